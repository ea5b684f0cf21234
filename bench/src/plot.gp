# SPDX-License-Identifier: GPL-2.0
# The benchmark's plot (bench/report writes the data and runs this):
#   gnuplot -e "dat='DIR/plot.dat'; png='DIR/plot.png'; title='...'; insn=1" plot.gp
# insn=0 (no instructions pass: --no-insn, the nested vhost-vsock backend):
# the lower row shows the socket locks per packet instead.
# plot.dat, one line a payload (64K recv() size):
#   1 bytes  2 label
#   3-5 baseline Gbit/s median, p25, p75    6-8 patched median, p25, p75
#   9-11 throughput change %, its 95% CI low, high
#   12-14 worker instructions/byte change %, 95% CI low, high ("nan": none)
#   15, 16 worker instructions/byte, baseline and patched medians
#   17, 18 socket locks per received RW packet, baseline and patched medians
set terminal pngcairo size 1200,900 font ",10"
set output png
set multiplot layout 2,2 title title
set logscale x 2
set xtics nomirror rotate by -45
set grid ytics
set key top left
set offsets graph 0.05, graph 0.05, 0, 0
set xlabel "payload (the sender's write size)"

set title "Throughput, 64K recv() (median, bars: quartiles of the pairs)"
set ylabel "Gbit/s"
plot dat using ($1 * 0.95):3:4:5:xtic(2) with yerrorlines title "baseline", \
     dat using ($1 * 1.05):6:7:8 with yerrorlines title "patched"

# Clipped at -100% and +1000%: with two pairs the t interval (1 degree of
# freedom) can span millions of percent.
set title "Throughput change, patched against baseline (bars: 95% CI, clipped at +1000%)"
set ylabel "change (%)"
set yrange [-100<*:*<1000]
plot dat using 1:9:10:11:xtic(2) with yerrorbars pt 7 title "throughput", \
     0 with lines lc "gray" notitle
set autoscale y

if (insn) {
	set title "RX worker instructions per received byte (TCG plugin, median)"
	set ylabel "instructions/byte"
	set logscale y
	plot dat using ($1 * 0.95):15:xtic(2) with linespoints title "baseline", \
	     dat using ($1 * 1.05):16 with linespoints title "patched"
	unset logscale y

	set title "RX worker instructions/byte change (bars: 95% CI)"
	set ylabel "change (%)"
	plot dat using 1:12:13:14:xtic(2) with yerrorbars pt 7 title "instructions/byte", \
	     0 with lines lc "gray" notitle
} else {
	set title "Socket locks per received RW packet (RX worker's CPU, median)"
	set ylabel "locks/packet"
	set yrange [0:*]
	plot dat using ($1 * 0.95):17:xtic(2) with linespoints title "baseline", \
	     dat using ($1 * 1.05):18 with linespoints title "patched"
}
unset multiplot
