#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/bench_slow.sh: the slow-reader scenario of the benchmark.  The host
# sends a paced stream of small packets (bench/data/bench-slow) through
# vhost-device-vsock; the guest's reader sleeps between small reads, so
# the receive queue grows, then drains it.  The guest's trace gives, per
# queue depth, the socket locks the RX worker took a packet: batching
# happens where that is well below one.  The series stops a batch when
# the queue's skbs fill the receive buffer's metadata room (about 455 at
# the default buffer); a kernel that also admits packets by that room and
# collapses the queue (7.3, 6.12) keeps batching, one without (6.18, 6.1)
# stops above 455 until the reader drains.  A fresh guest per state, pairs
# in AB/BA order.  KTAP on stdout; the rows in OUT/slow-depth.csv,
# slow-time.csv and slow-rx.csv, the tables in OUT/slow-report.md.
set -eu
PROG=bench_slow
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"
. "$RXKIT_TOP/bench/lib/bench.sh"

readonly GUEST_CID=3
readonly SLOW_FILE="$RXKIT_TOP/bench/data/bench-slow"
readonly PORT=6000 RTT_PORT=7000
# The series' batch limit at the default buffer: 256 KiB / SKB_TRUESIZE(0)
# (576 on x86-64) skbs.
readonly LIMIT=455

usage()
{
	cat <<USAGE
usage: bench/bench_slow.sh [--pairs N] [--patches N] [--out DIR] [--keep DIR] [TARGET]

The slow-reader scenario of bench/data/bench-slow on the baseline and
patched kernels of TARGET (default: $RXKIT_TARGET; ci/build --tree TREE
TARGET), N pairs (default 2) of fresh guests in AB/BA order.
--out DIR: the rows and logs (default: \$RXKIT_OUT/TARGET/bench-slow).
--keep DIR: the rows, tables and plot also there (default:
  bench/runs/TARGET/DATE-vhost-user-slow/; '': nowhere).
--patches N: the patched state is the posting's patches 1 to N.
Environment: RXKIT_ACCEL.  Limit: bench-job (a guest) of tests/data/limits.
USAGE
}

extra_opt() { bench_opt "$@"; }
parse_stage_args '' "$@"
: "${target:=$RXKIT_TARGET}"
load_base "$target"
[ -f "$SLOW_FILE" ] || die "$SLOW_FILE missing"
bench_needs
bench_settle 2 bench-slow -slow
read -r size bytes slow_bytes delay gap extra <<EOF
$(awk '!/^#/ && NF { print; exit }' "$SLOW_FILE")
EOF
[ -n "$gap" ] && [ -z "$extra" ] || die "$SLOW_FILE: no line of five fields (PAYLOAD BYTES SLOW DELAY GAP)"
slow="$size:$bytes:$slow_bytes:$delay"
points=
rtts=

echo "pair,order,tree,from,to,pkts,locks,bytes" > "$out/slow-depth.csv"
echo "pair,order,tree,ms,pkts,locks,depth" > "$out/slow-time.csv"
echo "pair,order,tree,bytes,seconds,gbps,mibps,recv_calls,errors,first_bad,result" > "$out/slow-rx.csv"
echo "pair,order,tree,entries,written,other_locks,away,away_bytes" > "$out/slow-trace.csv"
state_setup baseline plain
state_setup patched plain
bench_start
{
	bench_environment "bench/bench_slow.sh $*"
	echo "scenario: payload $size, $bytes, reader slow for $slow_bytes ($delay us after each recv), sender gap $gap us"
} > "$out/environment"
sed 's/^/# /' "$out/environment"

# send_slow DIR: the host's stream, once the guest's reader is up.
send_slow()
{
	"$art_tools/rxkit-bench" tx -t 600 -R 300 -w "$size" -p "$gap" -n "$bytes" \
		"vhu:$run/vm.vsock:$PORT" >> "$1/host.log" 2>&1 ||
		{ echo "# the sender exited $?"; return 1; }
}

# rows PAIR ORDER TREE LOG: the guest's lines as rows of the CSV files.
rows()
{
	local k
	for k in depth time rx trace; do
		tr -d '\r' < "$4" | sed -n "s/^RXKIT: slow-$k //p" | kv_row "$1,$2,$3" \
			>> "$out/slow-$k.csv"
	done
}

ktap_header $((pairs * 2 + 5))
k=1
while [ "$k" -le "$pairs" ]; do
	order=AB
	states="baseline patched"
	[ $((k % 2)) = 1 ] || { order=BA; states="patched baseline"; }
	for st in $states; do
		kernel="$(bench_o "$st")/arch/x86/boot/bzImage"
		initrd="$out/$st/initrd.cpio.gz"
		art="$out/pair-$k-$st"
		mkdir -p "$art"
		t0=$(date +%s)
		rc=0
		virtio_run bench_slow '' send_slow || rc=$?
		rows "$k" "$order" "$st" "$art/bench_slow/results.log"
		echo "# pair $k ($order) $st: $(( $(date +%s) - t0 )) s"
		ktap_result "$rc" "pair_${k}_$st"
	done
	k=$((k + 1))
done

# The checks that timing cannot move.
rc=0
n=$(awk -F, 'NR > 1 && $11 == "ok" && $9 == 0' "$out/slow-rx.csv" | wc -l)
[ "$n" = $((pairs * 2)) ] || { echo "# $n of $((pairs * 2)) streams arrived whole and in order"; rc=1; }
ktap_result "$rc" every_byte_verified
# Every packet's event in the trace, none lost: the traced payload is the
# stream, the ring buffer wrote no more than it holds.
rc=0
want=$(bytes_of "$bytes")
awk -F, -v want="$want" 'FNR > 1 && FILENAME ~ /depth/ { got[$1 "," $3] += $8 }
	FNR > 1 && FILENAME ~ /trace/ { got[$1 "," $3] += $8 }
	END { for (r in got) if (got[r] != want) { print "# pair,tree " r ": " got[r] " bytes traced, not " want; bad = 1 }
		exit bad }' "$out/slow-depth.csv" "$out/slow-trace.csv" || rc=1
awk -F, 'NR > 1 && $4 != $5 { print "# pair " $1 " " $3 ": " $5 - $4 " events lost"; bad = 1 } END { exit bad }' \
	"$out/slow-trace.csv" || rc=1
[ "$(($(wc -l < "$out/slow-trace.csv") - 1))" = $((pairs * 2)) ] || { echo "# a guest gave no trace count"; rc=1; }
ktap_result "$rc" trace_complete
# The scenario holds only where the queue grew past the limit: packets
# arrived behind more than LIMIT unread ones in every run.
rc=0
awk -F, -v lim="$LIMIT" 'NR > 1 { p[$1 "," $3] += $6; b[$1 "," $3] += $8; if ($4 > lim) past[$1 "," $3] += $6 }
	END { for (r in p) { printf "# pair,tree %s: %d packets of %d bytes on average, %d behind more than %d unread\n",
			r, p[r], b[r] / p[r], past[r], lim
		if (!past[r]) bad = 1 }
		exit bad }' "$out/slow-depth.csv" ||
	{ echo "# the queue never held more than $LIMIT packets: the backend coalesced the writes (see the bytes a packet)"; rc=1; }
ktap_result "$rc" queue_past_limit
# The counters: the baseline takes a socket lock a packet at every depth.
rc=0
awk -F, 'NR > 1 && $3 == "baseline" { p += $6; l += $7 }
	END { printf "# baseline: %.3f locks a packet\n", p ? l / p : -1; exit !(p && l / p >= 0.8) }' \
	"$out/slow-depth.csv" || rc=1
ktap_result "$rc" baseline_one_lock_a_packet
rc=0
"$RXKIT_TOP/bench/slow-report" "$out" > "$out/report.log" 2>&1 || rc=1
grep -q '^| 0-63 |' "$out/slow-report.md" 2>/dev/null ||
	{ echo "# no depth table in $out/slow-report.md:"; sed 's/^/#   /' "$out/report.log"; rc=1; }
ktap_result "$rc" report
sed -n '/^| depth/,/^$/p' "$out/slow-report.md" | sed 's/^/# /'
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$out/environment" "$out"/slow-*.csv "$out/slow-report.md" "$keep/"
	[ ! -f "$out/slow.png" ] || cp "$out/slow.png" "$keep/"
	echo "# results: $keep"
fi
ktap_finish
