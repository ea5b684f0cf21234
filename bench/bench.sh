#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/bench.sh: does the backport of TARGET deliver the series' effect?
# The cover letter's method on this machine: a single stream, the host
# sends (bench/src/rxkit-bench.c through vhost-device-vsock, or
# --backend vhost-vsock: the kernel's vhost-vsock, in the nested host of
# tests/vsock_vhost_vsock.sh where this machine has none), the guest
# receives with one thread in blocking recv() pinned to CPU0, the
# virtio-vsock interrupts (and so the RX worker) on CPU1; a fresh guest per
# kernel state, pairs in balanced AB/BA order; the guest's counters of
# socket locks, lookups, readable and write-space callbacks per received
# RW packet (kprobe events: kconfig/bench-probes.config, in the guest
# flavour).  KTAP on stdout: one test
# a pair and state, then the checks that hold whatever the timing noise.
#
# The samples (CSV) go to OUT/samples.csv; bench/report makes the
# tables.  Wall-clock throughput is reported, never asserted.
set -eu
PROG=bench
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"
. "$RXKIT_TOP/bench/lib/bench.sh"
. "$RXKIT_TOP/bench/lib/bench_sweep.sh"
. "$RXKIT_TOP/bench/lib/bench_nested.sh"

readonly GUEST_CID=3
readonly POINTS_FILE="$RXKIT_TOP/bench/data/bench-points"
readonly RTT_FILE="$RXKIT_TOP/bench/data/bench-rtt"
readonly PORT=6000 RTT_PORT=7000

usage()
{
	cat <<USAGE
usage: bench/bench.sh [--smoke] [--pairs N] [--patches N] [--out DIR] [--keep DIR]
                      [--no-insn] [--backend vhost-user|vhost-vsock]
                      [--payloads LIST] [TARGET]

The baseline and patched kernels of TARGET (default: $RXKIT_TARGET) of the
guest flavour (ci/build --tree TREE TARGET), N pairs
(default 8; --smoke: 2) of fresh guests in AB/BA order, each sweeping the
points of bench/data/bench-points after its warm-up, in an order of its
pair's, then the ping-pongs of bench/data/bench-rtt (--smoke: their smoke
columns).
--backend: the host's side of the device (default vhost-user:
  vhost-device-vsock; vhost-vsock: the kernel's, this machine's
  /dev/vhost-vsock or a nested L1 host's as in tests/vsock_vhost_vsock.sh, with
  the files' NESTED columns; the plugin then runs in L1's QEMU,
  OUT/l1.csv says where that host ran the guest at each point, and
  OUT/host.csv where this machine ran L1's vCPUs).
--out DIR: where the samples and logs go (default:
  \$RXKIT_OUT/TARGET/bench[-smoke]).  A full run (not --smoke) also keeps
  its results in bench/runs/TARGET/DATE-BACKEND/ (--keep DIR: there; --keep
  '': nowhere).
--patches N: the patched state is the posting's patches 1 to N
  (ci/prepare --patches N; ci/build --tree patched-N).
--payloads LIST: only the points of these payloads (comma-separated, as
  the file's PAYLOAD column names them: --payloads 64 for the 64-byte
  points alone); a kept run's folder ends in -payloads-LIST.
The guest instructions of each vCPU during each point come from a TCG
plugin (bench/mkplugin; --no-insn: without it, and its counts empty).
Environment: RXKIT_ACCEL; --backend vhost-vsock: RXKIT_VHOST_VSOCK_BACKEND,
  RXKIT_VHOST_VSOCK_L1 (tests/vsock_vhost_vsock.sh).  Limit: bench-job (one
  guest's sweep) of tests/data/limits.
USAGE
}

smoke=0
insn=1
payloads=
extra_opt()
{
	case "$1" in
	--smoke) smoke=1; return 1 ;;
	--no-insn) insn=0; return 1 ;;
	--backend) opt_arg "vhost-user or vhost-vsock" "$@"; backend=$2; return 2 ;;
	--payloads) opt_arg "a list of payloads" "$@"; payloads=$2; return 2 ;;
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
# nested: the guest under test runs behind the nested L1 host (TCG in
# TCG), whose QEMU (a copy of this one) loads the plugin.
nested=0
[ "$backend" = vhost-user ] || [ "$mode" = host ] || nested=1
plugin=
if [ "$insn" = 1 ]; then
	need mkfifo coreutils
	plugin=$("$RXKIT_TOP/bench/mkplugin") || die "no TCG plugin (bench/mkplugin failed)"
fi

# The run's folder: bench[-smoke], bench-vhost-vsock[-smoke] with that backend.
name=bench$([ "$backend" = vhost-user ] || echo "-$backend")
if [ "$smoke" = 1 ]; then
	bench_settle 2 "$name-smoke" -
else
	bench_settle 8 "$name" "${payloads:+-payloads-$(echo "$payloads" | tr , -)}"
fi

# The column of the files: FULL, SMOKE, or NESTED (the kernel's vhost-vsock
# in a nested host: TCG inside TCG moves a fraction of the bytes).
col=$((smoke ? 3 : 2))
[ "$nested" = 0 ] || col=4
# The points: "PAYLOAD:BYTES:RECV", each payload with recv() of 64 KiB and
# of the payload (once for 64K); the warm-up before them in every guest:
# "PAYLOAD:BYTES:64K:warmup".
points=$(sweep_points "$col" "$payloads") || exit 1
warmup=$(awk -v col=$col '$1 ~ /^warmup:/ && $col != "-" {
		printf "%s:%s:64K:warmup", substr($1, 8), $col }' "$POINTS_FILE")
[ -n "$warmup" ] || die "no warm-up line (warmup:PAYLOAD) in $POINTS_FILE"
# The ping-pongs: "SIZE:COUNT".
rtts=$(awk -v col=$col '!/^#/ && NF && $col != "-" {
		printf "%s:%s ", $1, $col }' "$RTT_FILE")


# The passes: those of every pair, then the control's, once; with the
# plugin, each again with it.
pair_passes="plain${plugin:+ insn}"
control_passes="probes${plugin:+ probes-insn}"
passes="$pair_passes $control_passes"
nruns=$(( $(echo "$pair_passes" | wc -w) * pairs * 2 + $(echo "$control_passes" | wc -w) * 2 ))
echo "pair,order,tree,point,payload,recv,bytes,seconds,gbps,mibps,recv_calls,errors,first_bad,result,rwpkt,lock,lookup,readable,writespace,cycles,insn_worker,insn_reader,insn_worker_host,insn_reader_host" \
	> "$out/samples.csv"
for pass in $passes; do
	[ "$pass" = plain ] || head -n 1 "$out/samples.csv" > "$out/$(csv_of "$pass")"
done
echo "pair,order,tree,count,size,mean_us,median_us,p99_us,min_us,max_us" > "$out/rtt.csv"
echo "pair,order,tree,pass,probes,boot_id,guest_load,host_load,seconds,warmup" > "$out/guests.csv"
[ "$backend" = vhost-user ] ||
	echo "pair,order,tree,pass,place,seconds,host_load,what,id,cpu,busy_s" > "$out/l1.csv"
[ "$nested" = 0 ] ||
	echo "pair,order,tree,pass,thread,seconds,busy_samples,busy_s,cpus,moves,shared_pct" > "$out/host.csv"
for pass in $passes; do
	state_setup baseline "$pass"
	state_setup patched "$pass"
done
bench_start
{
	bench_environment "bench/bench.sh $*"
	echo "points: $points"
	echo "order: every guest first the warm-up $warmup (not kept), then the points in its pair's order (a shuffle seeded with the pair's number; the control: as above); the samples' point column is the place"
	echo "ping-pongs: $rtts"
	[ "$col" != 4 ] || echo "nested: the guest under test in TCG inside L1 ($L1, the accelerator above is L1's); the NESTED columns"
	echo "instructions: $([ -n "$plugin" ] && echo "TCG plugin $plugin$([ "$nested" = 0 ] || echo " in L1's QEMU"), vcpu1: RX worker, vcpu0: reader, between the receiver's marks around its receive loop (the *_host columns: the host's around the sender)" || echo "not counted (--no-insn)")"
	echo "passes: every pair: plain (timed, no probe)${plugin:+, insn (the plugin, no probe)}; once, the control: probes (the counters' probes set, timed)${plugin:+, probes-insn (the probes and the plugin)}"
} > "$out/environment"
sed 's/^/# /' "$out/environment"

ktap_header $((nruns + 9))
done_runs=0
k=1
while [ "$k" -le "$pairs" ]; do
	order=AB
	[ $((k % 2)) = 1 ] || order=BA
	states="baseline patched"
	[ "$order" = AB ] || states="patched baseline"
	# Both states of a pair in one order of points, each pair its own.
	gpoints="$warmup $(point_order "$k")"
	# Each state: the timed sweep, then (with the plugin, which slows the
	# guest several times) the same points again for the instructions.
	for st in $states; do
		for pass in $pair_passes; do
			guest_pass "$pass"
		done
	done
	k=$((k + 1))
done
# The control: each kernel once more with the counters' probes set, timed
# (and counted by the plugin): the counts, and what the probes cost.
k=control order=AB gpoints="$warmup $points"
for pass in $control_passes; do
	for st in baseline patched; do
		guest_pass "$pass"
	done
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
rows=$(($(wc -l < "$out/probes.csv") - 1))
[ "$rows" = $((2 * npts)) ] || { echo "# $rows samples with the probes, not $((2 * npts))"; rc=1; }
nrtt=$(printf '%s\n' $rtts | wc -l)
rows=$(($(wc -l < "$out/rtt.csv") - 1))
[ "$rows" = $((pairs * 2 * nrtt)) ] || { echo "# $rows ping-pongs, not $((pairs * 2 * nrtt))"; rc=1; }
csvs=$(for pass in $passes; do echo "$out/$(csv_of "$pass")"; done)
# shellcheck disable=SC2086 # the files, as words
bad=$(awk -F, 'FNR > 1 && ($14 != "ok" || $12 != 0)' $csvs | wc -l)
[ "$bad" = 0 ] || { echo "# $bad points lost or corrupted bytes"; rc=1; }
ktap_result "$rc" every_byte_verified
# Each guest warmed up first, then swept every point once, in its pair's
# order.
rc=0
# shellcheck disable=SC2086 # the files, as words
order_check "$npts" "$out/guests.csv" $csvs || rc=1
ktap_result "$rc" points_ordered
# No probe while timing or counting instructions: each guest said how
# many it carried, and only the control's rows have counts.
rc=0
bad=$(awk -F, 'NR > 1 && (($4 ~ /^probes/) != ($5 > 0)) { print $1 "-" $3 "-" $4 }' \
	"$out/guests.csv" | tr '\n' ' ')
[ -z "$bad" ] || { echo "# guests with probes where none belong, or none where they do: $bad"; rc=1; }
rows=$(($(wc -l < "$out/guests.csv") - 1))
[ "$rows" = "$nruns" ] || { echo "# $rows guests said what they carried, not $nruns"; rc=1; }
for pass in $passes; do
	bad=$(awk -F, -v p="$pass" 'NR > 1 && (($15 != "") != (p ~ /^probes/))' \
		"$out/$(csv_of "$pass")" | wc -l)
	[ "$bad" = 0 ] || { echo "# $pass: $bad points whose counts belong to no probe pass"; rc=1; }
done
ktap_result "$rc" timed_without_probes
# The plugin saw every point: instructions on both vCPUs between its marks.
if [ -n "$plugin" ]; then
	rc=0
	rows=$(($(wc -l < "$out/insn.csv") - 1))
	[ "$rows" = $((pairs * 2 * npts)) ] || { echo "# $rows points counted, not $((pairs * 2 * npts))"; rc=1; }
	rows=$(($(wc -l < "$out/probes-insn.csv") - 1))
	[ "$rows" = $((2 * npts)) ] || { echo "# $rows points counted with the probes, not $((2 * npts))"; rc=1; }
	bad=$(awk -F, 'FNR > 1 && !($21 > 0 && $22 > 0)' "$out/insn.csv" "$out/probes-insn.csv" | wc -l)
	[ "$bad" = 0 ] || { echo "# $bad points without instruction counts (plugin log: pair-*-insn/insn.log)"; rc=1; }
	ktap_result "$rc" instructions_counted
else
	ktap_result "$KSFT_SKIP" instructions_counted "no instructions pass: --no-insn"
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
# The counts a packet at 64 bytes (packet_checks), where the sweep has it.
case " $points" in
*" 64:"*) packet_checks ;;
*)
	ktap_result "$KSFT_SKIP" baseline_one_lock_a_packet "no 64-byte point in this sweep (--payloads $payloads)"
	ktap_result "$KSFT_SKIP" patched_batches "no 64-byte point in this sweep (--payloads $payloads)" ;;
esac
# The tables of the samples (OUT/report.md), the change and its CI from
# rxkit-stats: the report of every run, the smoke run's included.
rc=0
"$RXKIT_TOP/bench/report" "$out" > "$out/report.log" 2>&1 || rc=1
sed -n '/^## Per received RW packet/,/^## /p' "$out/report.md" 2>/dev/null |
	grep -q '^| [0-9]*K* | baseline | [0-9]' ||
	{ echo "# no counter table in $out/report.md:"; sed 's/^/#   /' "$out/report.log"; rc=1; }
[ -s "$out/plot.png" ] || { echo "# no plot: $(grep '^No plot' "$out/report.md")"; rc=1; }
ktap_result "$rc" report
echo "# samples: $out/samples.csv; tables: $out/report.md"
# A full run's results beside the kit (bench/runs/TARGET/DATE-BACKEND/): the
# samples, tables, plot and environment, not the guests' artefacts.
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	# shellcheck disable=SC2086 # the files, as words
	cp "$out/environment" $csvs "$out/rtt.csv" "$out/guests.csv" \
		"$out/ref.csv" "$out/report.md" "$out/plot.png" "$out/plot.dat" "$keep/"
	for f in l1.csv host.csv; do
		[ ! -f "$out/$f" ] || cp "$out/$f" "$keep/"
	done
	echo "# results: $keep"
fi
ktap_finish
[ "$ktap_fail" = 0 ]
