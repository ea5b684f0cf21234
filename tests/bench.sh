#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/bench.sh: does the backport of TARGET deliver the series' effect?
# The cover letter's method on this machine: a single stream, the host
# sends (tests/bench/rxkit-bench.c through vhost-device-vsock, or
# --backend vhost-vsock: the kernel's vhost-vsock, in the nested host of
# tests/vsock_nested.sh where this machine has none), the guest
# receives with one thread in blocking recv() pinned to CPU0, the
# virtio-vsock interrupts (and so the RX worker) on CPU1; a fresh guest per
# kernel state, pairs in balanced AB/BA order; the guest's counters of
# socket locks, lookups, readable and write-space callbacks per received
# RW packet (kprobe events: kconfig/bench-probes.config, in the guest
# flavour).  KTAP on stdout: one test
# a pair and state, then the checks that hold whatever the timing noise.
#
# The samples (CSV) go to OUT/samples.csv; tests/bench-report makes the
# tables.  Wall-clock throughput is reported, never asserted.
set -eu
PROG=bench
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"
. "$RXKIT_TOP/tests/lib/bench.sh"
. "$RXKIT_TOP/tests/lib/bench_nested.sh"

readonly GUEST_CID=3
readonly POINTS_FILE="$RXKIT_TOP/tests/data/bench-points"
readonly RTT_FILE="$RXKIT_TOP/tests/data/bench-rtt"
readonly PORT=6000 RTT_PORT=7000

usage()
{
	cat <<USAGE
usage: tests/bench.sh [--smoke] [--pairs N] [--patches N] [--out DIR] [--keep DIR]
                      [--no-insn] [--backend vhost-user|vhost-vsock] [TARGET]

The baseline and patched kernels of TARGET (default: $RXKIT_TARGET) of the
guest flavour (ci/build --tree TREE TARGET), N pairs
(default 8; --smoke: 2) of fresh guests in AB/BA order, each sweeping the
points of tests/data/bench-points, then the ping-pongs of
tests/data/bench-rtt (--smoke: their smoke columns).
--backend: the host's side of the device (default vhost-user:
  vhost-device-vsock; vhost-vsock: the kernel's, this machine's
  /dev/vhost-vsock or a nested L1 host's as in tests/vsock_nested.sh, with
  the files' NESTED columns, no instructions pass).
--out DIR: where the samples and logs go (default:
  \$RXKIT_OUT/TARGET/bench[-smoke]).  A full run (not --smoke) also keeps
  its results in bench/TARGET/DATE-BACKEND/ (--keep DIR: there; --keep
  '': nowhere).
--patches N: the patched state is the posting's patches 1 to N
  (ci/prepare --upto N; ci/build --tree patched-N).
The guest instructions of each vCPU during each point come from a TCG
plugin (tests/mkplugin; --no-insn: without it, and its counts empty).
Environment: RXKIT_ACCEL, RXKIT_BENCH_JOB_TIMEOUT (seconds for one guest's
  sweep, default 1800); --backend vhost-vsock: RXKIT_NESTED_BACKEND,
  RXKIT_NESTED_L1 (tests/vsock_nested.sh).
USAGE
}

smoke=0
insn=1
extra_opt()
{
	case "$1" in
	--smoke) smoke=1; return 1 ;;
	--no-insn) insn=0; return 1 ;;
	--backend) opt_arg "vhost-user or vhost-vsock" "$@"; backend=$2; return 2 ;;
	esac
	bench_opt "$@"
}
parse_stage_args '' "$@"
: "${target:=$RXKIT_TARGET}"
load_base "$target"
[ -f "$POINTS_FILE" ] || die "$POINTS_FILE missing"
[ -f "$RTT_FILE" ] || die "$RTT_FILE missing"
case "$backend" in
vhost-user|vhost-vsock) ;;
*) die "--backend takes vhost-user or vhost-vsock, not '$backend'" ;;
esac
bench_needs
# nested: the guest under test runs behind the nested L1 host (TCG in TCG).
nested=0
[ "$backend" = vhost-user ] || [ "$mode" = host ] || nested=1
# The plugin of this QEMU counts the outermost guest's vCPUs: behind a
# nested host, L1's, not those of the kernel under test.
noinsn=
[ "$nested" = 0 ] ||
	{ insn=0; noinsn="the nested host's guest runs inside L1's QEMU, which this QEMU's TCG plugin does not see"; }
[ "$insn" = 1 ] || : "${noinsn:=--no-insn}"
plugin=
if [ "$insn" = 1 ]; then
	need mkfifo coreutils
	plugin=$("$RXKIT_TOP/tests/mkplugin") || die "no TCG plugin (tests/mkplugin failed)"
fi

# The run's folder: bench[-smoke], bench-vhost-vsock[-smoke] with that backend.
name=bench$([ "$backend" = vhost-user ] || echo "-$backend")
if [ "$smoke" = 1 ]; then
	bench_settle 2 "$name-smoke" -
else
	bench_settle 8 "$name" ''
fi

# The column of the files: FULL, SMOKE, or NESTED (the kernel's vhost-vsock
# in a nested host: TCG inside TCG moves a fraction of the bytes).
col=$((smoke ? 3 : 2))
[ "$nested" = 0 ] || col=4
# The points: "PAYLOAD:BYTES:RECV", each payload with recv() of 64 KiB and
# of the payload (once for 64K).
points=$(awk -v col=$col '!/^#/ && NF && $col != "-" {
		printf "%s:%s:64K ", $1, $col
		if ($1 != "64K") printf "%s:%s:%s ", $1, $col, $1 }' "$POINTS_FILE")
[ -n "$points" ] || die "no points in $POINTS_FILE"
# The ping-pongs: "SIZE:COUNT".
rtts=$(awk -v col=$col '!/^#/ && NF && $col != "-" {
		printf "%s:%s ", $1, $col }' "$RTT_FILE")


echo "pair,order,tree,point,payload,recv,bytes,seconds,gbps,mibps,recv_calls,errors,first_bad,result,rwpkt,lock,lookup,readable,writespace,cycles,insn_worker,insn_reader" \
	> "$out/samples.csv"
head -n 1 "$out/samples.csv" > "$out/insn.csv"
echo "pair,order,tree,count,size,mean_us,median_us,p99_us,min_us,max_us" > "$out/rtt.csv"
state_setup baseline
state_setup patched
[ -z "$plugin" ] || { state_setup baseline insn; state_setup patched insn; }
passes="plain${plugin:+ insn}"
nruns=$((pairs * 2))
[ -z "$plugin" ] || nruns=$((nruns * 2))
bench_start
{
	bench_environment "tests/bench.sh $*"
	echo "points: $points"
	echo "ping-pongs: $rtts"
	[ "$col" != 4 ] || echo "nested: the guest under test in TCG inside L1 ($L1, the accelerator above is L1's); the NESTED columns"
	echo "instructions: $([ -n "$plugin" ] && echo "TCG plugin $plugin (vcpu1: RX worker, vcpu0: reader)" || echo "not counted ($noinsn)")"
} > "$out/environment"
sed 's/^/# /' "$out/environment"

ktap_header $((nruns + 7))
k=1
done_runs=0
while [ "$k" -le "$pairs" ]; do
	order=AB
	[ $((k % 2)) = 1 ] || order=BA
	states="baseline patched"
	[ "$order" = AB ] || states="patched baseline"
	# Each state: the timed sweep, then (with the plugin, which slows the
	# guest several times) the same points again for the instructions.
	for st in $states; do
	for pass in $passes; do
		kernel="$(bench_o "$st")/arch/x86/boot/bzImage"
		initrd="$out/$st$([ "$pass" = plain ] || echo "-$pass")/initrd.cpio.gz"
		art="$out/pair-$k-$st$([ "$pass" = plain ] || echo "-$pass")"
		mkdir -p "$art"
		t0=$(date +%s)
		rc=0
		VIRTIO_QEMU_ARGS=
		if [ "$pass" = insn ]; then
			rm -f "$art/insn.fifo"
			mkfifo "$art/insn.fifo"
			VIRTIO_QEMU_ARGS="-plugin $plugin,fifo=$art/insn.fifo,out=$art/insn.log"
		fi
		if [ "$backend" = vhost-user ]; then
			virtio_run bench_rx '' send_points || rc=$?
		else
			nested_sweep || rc=$?
		fi
		[ "$pass" = plain ] || exec 9>&-
		samples "$k" "$order" "$st" "$art/bench_rx" \
			"$([ "$pass" = plain ] || echo "$art/insn.log")"
		done_runs=$((done_runs + 1))
		secs=$(( $(date +%s) - t0 ))
		echo "# pair $k ($order) $st, $pass: $(grep -c "^$k,$order,$st," "$out/$([ "$pass" = insn ] && echo insn || echo samples).csv") points in $secs s; $((nruns - done_runs)) runs left, about $(( (nruns - done_runs) * secs / 60 )) min"
		ktap_result "$rc" "pair_${k}_${st}$([ "$pass" = plain ] || echo "_$pass")"
	done
	done
	k=$((k + 1))
done

npts=$(printf '%s\n' $points | wc -l)
mkdir -p "$out/ref"
rc=0
ref_rows || rc=1
ktap_result "$rc" reference_rows

# The checks that timing noise cannot move.
rows=$(($(wc -l < "$out/samples.csv") - 1))
rc=0
[ "$rows" = $((pairs * 2 * npts)) ] || { echo "# $rows samples, not $((pairs * 2 * npts))"; rc=1; }
nrtt=$(printf '%s\n' $rtts | wc -l)
rows=$(($(wc -l < "$out/rtt.csv") - 1))
[ "$rows" = $((pairs * 2 * nrtt)) ] || { echo "# $rows ping-pongs, not $((pairs * 2 * nrtt))"; rc=1; }
bad=$(awk -F, 'FNR > 1 && ($14 != "ok" || $12 != 0)' "$out/samples.csv" "$out/insn.csv" | wc -l)
[ "$bad" = 0 ] || { echo "# $bad points lost or corrupted bytes"; rc=1; }
ktap_result "$rc" every_byte_verified
# The plugin saw every point: instructions on both vCPUs between its marks.
if [ -n "$plugin" ]; then
	rc=0
	rows=$(($(wc -l < "$out/insn.csv") - 1))
	[ "$rows" = $((pairs * 2 * npts)) ] || { echo "# $rows points counted, not $((pairs * 2 * npts))"; rc=1; }
	bad=$(awk -F, 'NR > 1 && !($21 > 0 && $22 > 0)' "$out/insn.csv" | wc -l)
	[ "$bad" = 0 ] || { echo "# $bad points without instruction counts (plugin log: pair-*-insn/insn.log)"; rc=1; }
	ktap_result "$rc" instructions_counted
else
	ktap_result "$KSFT_SKIP" instructions_counted "no instructions pass: $noinsn"
fi
# The RX worker's CPU cycles (perf, rx -C): counted at every point of the
# timed sweep where the guest has a cycles counter (KVM with a PMU), else
# the guest's reason.
rc=0
counted=$(awk -F, 'NR > 1 && $20 != ""' "$out/samples.csv" | wc -l)
if [ "$counted" = 0 ]; then
	why=$(cat "$out"/pair-*/bench_rx/results.log 2>/dev/null | tr -d '\r' |
		sed -n 's/^RXKIT: bench-cycles none //p' | sort -u | head -n 1)
	ktap_result "$KSFT_SKIP" cycles_counted "the guest has no cycles counter (accelerator $accel): ${why:-no reason given}"
else
	bad=$(awk -F, 'NR > 1 && !($20 > 0)' "$out/samples.csv" | wc -l)
	[ "$bad" = 0 ] || { echo "# $bad points of the timed sweep without cycles where others have them"; rc=1; }
	ktap_result "$rc" cycles_counted
fi
# Per received RW packet at 64-byte writes into a 64 KiB recv(), each
# state's pooled counts: about one lock and one lookup a packet on the
# baseline, at most half of one on the patched kernel (batches of up to 64).
lock_b=$(per_packet baseline 16)
lookup_b=$(per_packet baseline 17)
lock_p=$(per_packet patched 16)
lookup_p=$(per_packet patched 17)
echo "# 64B into 64K, a packet: baseline $lock_b locks, $lookup_b lookups; patched $lock_p locks, $lookup_p lookups"
rc=0
awk -v l="$lock_b" -v u="$lookup_b" 'BEGIN { exit !(l >= 0.8 && u >= 0.8) }' ||
	{ echo "# the baseline does not take a lock and a lookup a packet: the counters are wrong"; rc=1; }
ktap_result "$rc" baseline_one_lock_a_packet
rc=0
awk -v l="$lock_p" -v u="$lookup_p" 'BEGIN { exit !(l >= 0 && l <= 0.5 && u >= 0 && u <= 0.5) }' ||
	{ echo "# the patched kernel does not batch: $lock_p locks, $lookup_p lookups a packet"; rc=1; }
ktap_result "$rc" patched_batches
# The tables of the samples (OUT/report.md), the change and its CI from
# rxkit-stats: the report of every run, the smoke run's included.
rc=0
"$RXKIT_TOP/tests/bench-report" "$out" > "$out/report.log" 2>&1 || rc=1
grep -q '^| 64K | baseline | ' "$out/report.md" 2>/dev/null ||
	{ echo "# no counter table in $out/report.md:"; sed 's/^/#   /' "$out/report.log"; rc=1; }
[ -s "$out/plot.png" ] || { echo "# no plot: $(grep '^No plot' "$out/report.md")"; rc=1; }
ktap_result "$rc" report
echo "# samples: $out/samples.csv; tables: $out/report.md"
# A full run's results beside the kit (bench/TARGET/DATE-BACKEND/): the
# samples, tables, plot and environment, not the guests' artefacts.
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$out/environment" "$out/samples.csv" "$out/insn.csv" "$out/rtt.csv" \
		"$out/ref.csv" "$out/report.md" "$out/plot.png" "$out/plot.dat" "$keep/"
	echo "# results: $keep"
fi
ktap_finish
[ "$ktap_fail" = 0 ]
