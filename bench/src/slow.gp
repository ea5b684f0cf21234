# SPDX-License-Identifier: GPL-2.0
# The slow-reader plot (bench/slow-report writes the data, runs this):
#   gnuplot -e "dir='OUT'; title='...'" slow.gp
# OUT/slow-depth.dat: depth (packets), baseline and patched locks a packet.
# OUT/slow-time-{baseline,patched}.dat (pair 1): ms, locks a packet over 64
#   packets, depth then.
set terminal pngcairo size 1200,500 font ",10"
set output dir . "/slow.png"
set multiplot layout 1,2 title title
set grid ytics
set key top left
set yrange [0:1.2]

set title "Socket locks a packet against the queue's depth (all pairs)"
set xlabel "depth when the packet arrived (packets)"
set ylabel "locks/packet"
set arrow from 455, graph 0 to 455, graph 1 nohead dt 2 lc "gray"
plot dir . "/slow-depth.dat" using 1:2 with linespoints title "baseline", \
     "" using 1:3 with linespoints title "patched"
unset arrow

set title "Pair 1 over time: locks a packet (64-packet steps) and depth"
set xlabel "ms after the first packet"
set ylabel "locks/packet"
set y2label "depth (packets)"
set y2tics
set y2range [0:*]
plot dir . "/slow-time-baseline.dat" using 1:2 with lines title "baseline locks", \
     dir . "/slow-time-patched.dat" using 1:2 with lines title "patched locks", \
     dir . "/slow-time-baseline.dat" using 1:3 axes x1y2 with lines dt 2 title "baseline depth", \
     dir . "/slow-time-patched.dat" using 1:3 axes x1y2 with lines dt 2 title "patched depth"
