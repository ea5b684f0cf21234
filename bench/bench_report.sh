#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/bench_report.sh: the benchmark's report (bench/report and
# bench/src/abreport.py) on a made-up run, bench/fixtures/bench-report:
# the verdict words from the CI, the orders' means and the sign test in
# each cell, a pair with a state missing left out and named, the control
# pass's counters and cost, a run timed with the probes set called so, the
# intervals counted; and bench/bench.sh's check of the order of points
# (order_check) on made-up rows.  No kernel, no guest.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=bench_report.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/bench/lib/bench_sweep.sh"
. "$RXKIT_TOP/bench/lib/bench_nested.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="verdict_words sign_test missing_state control_pass probes_timed insn_cells intervals_counted refusals doc_current reports_current points_ordered l1_placement host_placement payloads_chosen"
readonly TEST_DESCS="an interval above zero is faster, below slower, across it inconclusive; never same:\
each cell carries the AB and BA means and the pairs won with the two-sided sign test's p:\
a pair without one state's sample is left out of that change, and the report names it:\
the counters come from the control pass, and its table shows what the probes cost each kernel:\
a run whose timed pass carried counts is called timed with the probes set, and its counters say so:\
the plugin's pass gives the RX worker and the reader each a change with its interval, counted:\
the closing note counts each distinct interval once, however many tables show it:\
no samples, or no folder, is an error (exit 2) that says what is missing:\
doc/benchmark.md's table of the committed runs is bench/summary's, and a changed cell fails the check:\
every committed run's report.md is what bench/report makes of its samples now:\
the order check accepts guests warmed up and in their pair's order, and rejects each kind of wrong sweep:\
the nested host's samples become a guest's busy shares, its L1 load and its points on one CPU, the warm-up left out:\
this machine's samples of L1's vCPU threads become their busy seconds, CPUs, moves and shared seconds, in the report:\
--payloads keeps its payloads' points, refuses one the sweep lacks, and a sweep of 64B alone gets its tables"
readonly FIX="$RXKIT_TOP/bench/fixtures/bench-report"

usage()
{
	cat <<USAGE
usage: bench/bench_report.sh [-l] [-t NAME]... [-T NAME]...

$(test_usage)
USAGE
}

suite_options "$@"
need gcc gcc
need python3 python3
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-bench-report.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stats="$work/rxkit-stats"
gcc -O2 -Wall -o "$stats" "$RXKIT_TOP/bench/src/rxkit-stats.c" -lm ||
	die "building bench/src/rxkit-stats.c failed"

# report NAME [EDIT]: the report of a copy of the fixture, EDIT (a shell
# command run in the copy) applied first; the report in $work/NAME.md.
report()
{
	rm -rf "${work:?}/$1"
	cp -r "$FIX" "$work/$1"
	[ -z "${2:-}" ] || (cd "$work/$1" && eval "$2")
	"$RXKIT_TOP/bench/report" --stats "$stats" "$work/$1" > "$work/$1.md" 2> "$work/$1.err"
}

# expect FILE WHAT REGEX: FILE has a line matching REGEX, else say WHAT.
expect()
{
	grep -q -- "$3" "$1" && return 0
	echo "# $2: no line matching '$3' in $1"
	return 1
}

# row FILE PAYLOAD: the 64K recv() throughput row of PAYLOAD.
row()
{
	sed -n '/^## Throughput, 64K/,/^## /p' "$1" | grep "^| $2 |"
}

test_verdict_words()
{
	local rc=0
	report fix || return "$KSFT_FAIL"
	row "$work/fix.md" 64 | grep -q '\] faster;' || { echo "# 64: not faster"; rc=1; }
	row "$work/fix.md" 4K | grep -q '\] slower;' || { echo "# 4K: not slower"; rc=1; }
	row "$work/fix.md" 64K | grep -q '\] inconclusive;' || { echo "# 64K: not inconclusive"; rc=1; }
	! grep -q '\] same' "$work/fix.md" || { echo "# a cell says same"; rc=1; }
	return "$rc"
}

test_sign_test()
{
	local rc=0
	report fix || return "$KSFT_FAIL"
	# By hand: three wins of three, p = 2 / 2^3; 64K: a win, a loss and a
	# tie dropped, p = 1.  AB: pairs 1 and 3, BA: pair 2 (0.55 s: +81.82 %).
	row "$work/fix.md" 64 | grep -q 'BA +81.82%; wins 3/3, sign p 0.25 |' ||
		{ echo "# 64: $(row "$work/fix.md" 64)"; rc=1; }
	row "$work/fix.md" 4K | grep -q 'wins 0/3, sign p 0.25 |' || { echo "# 4K: $(row "$work/fix.md" 4K)"; rc=1; }
	row "$work/fix.md" 64K | grep -q 'wins 1/2, sign p 1 |' || { echo "# 64K: $(row "$work/fix.md" 64K)"; rc=1; }
	return "$rc"
}

test_missing_state()
{
	local rc=0
	report missing "sed -i '/^3,AB,patched,0,/d' samples.csv" || return "$KSFT_FAIL"
	row "$work/missing.md" 64 | grep -q 'wins 2/2, sign p 0.5 |' ||
		{ echo "# 64 without pair 3's patched sample: $(row "$work/missing.md" 64)"; rc=1; }
	expect "$work/missing.md" "the pair left out" 'left out of a change.*pair 3 at 64/64K (no patched)' || rc=1
	row "$work/missing.md" 4K | grep -q 'wins 0/3' || { echo "# 4K lost a pair it has"; rc=1; }
	return "$rc"
}

test_control_pass()
{
	local rc=0
	report fix || return "$KSFT_FAIL"
	expect "$work/fix.md" "counters' source" '^## Per received RW packet.*the control pass' || rc=1
	expect "$work/fix.md" "baseline counts" '^| 64 | baseline | 283 | 3705 | 1.000 | 1.000 | 1.000 |' || rc=1
	expect "$work/fix.md" "probes' cost" '^| 64 | baseline | 0.0084 | 0.0042 | -50.0% |' || rc=1
	! grep -q 'Timed with the counters' "$work/fix.md" || { echo "# a clean run called probed"; rc=1; }
	return "$rc"
}

test_probes_timed()
{
	local rc=0
	# The method before the control pass: counts in the timed rows.
	report old "rm probes.csv; sed -i 's/,ok,,,,,,/,ok,300,300,300,300,360/' samples.csv" ||
		return "$KSFT_FAIL"
	expect "$work/old.md" "the warning" '^\*\*Timed with the counters. probes set\*\*' || rc=1
	expect "$work/old.md" "counters' source" '^## Per received RW packet.*probes set in the timed pass' || rc=1
	! grep -q '^## What the probes cost' "$work/old.md" || { echo "# a cost table without a control"; rc=1; }
	return "$rc"
}

# INSN_PASS: an awk program making the plugin's pass (insn.csv) of the
# fixture's 64K rows: per byte, the worker 10 on the baseline and 7 on the
# patched kernel, the reader 5 and 1, each pair a little apart.
readonly INSN_PASS='NR == 1 { print; next }
$6 == "64K" { f = ($3 == "patched"); d = 1 + $1 / 100
	$21 = $7 * (f ? 7 : 10) * d; $22 = $7 * (f ? 1 : 5) * d; print }'

test_insn_cells()
{
	local rc=0 p
	report insn "awk -F, -v OFS=, '$INSN_PASS' samples.csv > insn.csv" ||
		{ sed 's/^/# /' "$work/insn.err"; return "$KSFT_FAIL"; }
	for p in 64 4K 64K; do
		expect "$work/insn.md" "$p: the worker's and the reader's changes" \
			"^| $p | 10\\.[0-9]* | 7\\.[0-9]* | -30\\.[0-9]*% \\[.*\\] fewer;.* | 5\\.[0-9]* | 1\\.[0-9]* | -80\\.[0-9]*% \\[.*\\] fewer;" ||
			rc=1
	done
	# The fixture's three throughput changes, and two a payload here.
	expect "$work/insn.md" "the count" '^9 distinct intervals above' || rc=1
	return "$rc"
}

test_intervals_counted()
{
	local n
	report fix || return "$KSFT_FAIL"
	# 64, 4K, 64K in the 64K table; 64K again in the matched table.
	n=$(grep -c '% \[.*\] \(faster\|slower\|inconclusive\)' "$work/fix.md")
	[ "$n" = 4 ] || { echo "# $n cells, not 4"; return "$KSFT_FAIL"; }
	expect "$work/fix.md" "the count" '^3 distinct intervals above' || return "$KSFT_FAIL"
}

test_refusals()
{
	local rc=0
	report empty "head -n 1 samples.csv > s && mv s samples.csv" && rc=1
	expect "$work/empty.err" "no samples" "^bench-report: error: .*samples.csv: no samples" || rc=1
	"$RXKIT_TOP/bench/report" --stats "$stats" "$work/none" > /dev/null 2> "$work/none.err" && rc=1
	expect "$work/none.err" "no folder" "^bench-report: error: .*none/samples.csv: No such file" || rc=1
	return "$rc"
}

test_doc_current()
{
	local rc=0 doc="$RXKIT_TOP/doc/benchmark.md"
	"$RXKIT_TOP/bench/summary" --stats "$stats" --check "$doc" 2> "$work/doc.err" ||
		{ sed 's/^/# /' "$work/doc.err"; rc=1; }
	sed 's/ faster (wins / slower (wins /' "$doc" > "$work/doc.md"
	cmp -s "$doc" "$work/doc.md" && { echo "# no cell to change in $doc"; rc=1; }
	"$RXKIT_TOP/bench/summary" --stats "$stats" --check "$work/doc.md" 2> "$work/doc.err" && rc=1
	expect "$work/doc.err" "the stale table" "are not the committed runs'; run: bench/summary --write" || rc=1
	return "$rc"
}

test_reports_current()
{
	local d rc=0 n=0
	for d in "$RXKIT_TOP"/bench/runs/*/*/samples.csv; do
		d=${d%/samples.csv}
		rm -rf "$work/run"
		cp -r "$d" "$work/run"
		"$RXKIT_TOP/bench/report" --stats "$stats" "$work/run" > /dev/null 2> "$work/run.err" ||
			{ echo "# ${d#"$RXKIT_TOP"/}: $(cat "$work/run.err")"; rc=1; continue; }
		n=$((n + 1))
		cmp -s "$d/report.md" "$work/run/report.md" ||
			{ echo "# ${d#"$RXKIT_TOP"/}/report.md is not bench/report's; run: bench/report ${d#"$RXKIT_TOP"/}"; rc=1; }
	done
	echo "# $n committed reports remade"
	[ "$n" -gt 0 ] && [ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# ordered_run DIR [SEED]: a made-up run of two pairs and the control over
# three points, each guest warmed up, a pair's guests in point_order's
# order of the pair (SEED: of that one for both pairs), the control's in
# the file's.
ordered_run()
{
	local k st pass gp i p
	points="64:1M:64K 4K:1M:64K 64K:1M:64K"
	mkdir -p "$1"
	echo "pair,order,tree,pass,probes,boot_id,guest_load,host_load,seconds,warmup" > "$1/guests.csv"
	for pass in samples insn probes; do
		head -n 1 "$FIX/samples.csv" > "$1/$pass.csv"
	done
	for k in 1 2 control; do
		gp=$points
		[ "$k" = control ] || gp=$(point_order "${2:-$k}")
		for st in baseline patched; do
			for pass in $([ "$k" = control ] && echo probes || echo "samples insn"); do
				echo "$k,AB,$st,$pass,0,b,0/0/0,0,1,ok" >> "$1/guests.csv"
				i=1
				for p in $gp; do
					echo "$k,AB,$st,$i,${p%%:*},${p##*:},1048576,1,0,0,0,0,-1,ok" >> "$1/$pass.csv"
					i=$((i + 1))
				done
			done
		done
	done
}

# order_rejects NAME WHY EDIT [SEED]: order_check refuses the made-up run
# after EDIT (a command run in its folder) with a line matching WHY.
order_rejects()
{
	ordered_run "$work/$1" "${4:-}"
	(cd "$work/$1" && $3)
	order_check 3 "$work/$1/guests.csv" "$work/$1"/samples.csv "$work/$1"/insn.csv \
		"$work/$1"/probes.csv > "$work/$1.out" &&
		{ echo "# $1: accepted"; return 1; }
	expect "$work/$1.out" "$1" "$2"
}

# The wrong sweeps, each an edit of a good run's rows.
edit() { sed -i "$2" "$1"; }
no_warmup() { edit guests.csv '2s/,ok$/,/'; }
failed_warmup() { edit guests.csv '/^2,AB,patched,insn,/s/,ok$/,bad/'; }
# pair 1's baseline: place 2 the payload of place 1.
twice()
{
	awk -F, -v OFS=, '$1 == 1 && $3 == "baseline" { if ($4 == 1) p = $5; if ($4 == 2) $5 = p } 1' \
		samples.csv > s && mv s samples.csv
}
missing() { edit insn.csv '/^2,AB,patched,3,/d'; }
# pair 1's patched guest, places 1 and 2 swapped.
state_order() { edit insn.csv 's/^1,AB,patched,1,/x/; s/^1,AB,patched,2,/1,AB,patched,1,/; s/^x/1,AB,patched,2,/'; }

test_points_ordered()
{
	local rc=0
	ordered_run "$work/ordered"
	order_check 3 "$work/ordered/guests.csv" "$work/ordered"/samples.csv \
		"$work/ordered"/insn.csv "$work/ordered"/probes.csv || { echo "# a good run refused"; rc=1; }
	order_rejects no_warmup '^# guest 1 baseline samples: no warm-up first (none)' no_warmup || rc=1
	order_rejects failed_warmup '^# guest 2 patched insn: no warm-up first (bad)' failed_warmup || rc=1
	order_rejects twice '^# 1 baseline .*samples.csv: [0-9K]*/64K twice' twice || rc=1
	order_rejects missing '^# 2 patched .*insn.csv: 2 points, not 3' missing || rc=1
	order_rejects state_order '^# 1 patched .*insn.csv: another order than its pair' state_order || rc=1
	order_rejects one_order '^# all 2 pairs in one order' : 1 || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

test_l1_placement()
{
	local rc=0
	# Pair 1's baseline: two points of 10 s (the warm-up's huge counts
	# must not show); vCPU 0 busy 5 s a point, vCPU 1 10 s, on one L1 CPU
	# at the second point; the vhost worker 2 s; L1's CPUs 8 s and 9 s.
	report l1 "{ echo pair,order,tree,pass,place,seconds,host_load,what,id,cpu,busy_s
		for i in 0 1 2; do
			b=\$(( i ? 1 : 1000 ))
			echo 1,AB,baseline,plain,\$i,10,\$(( i + 1 )).50,CPU_0/TCG,7,0,\$(( 5 * b ))
			echo 1,AB,baseline,plain,\$i,10,\$(( i + 1 )).50,CPU_1/TCG,8,\$(( i == 1 )),\$(( 10 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,vhost-6,9,1,\$(( 2 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,cpu0,-,0,\$(( 8 * b ))
			echo 1,AB,baseline,plain,\$i,10,1.00,cpu1,-,1,\$(( 9 * b ))
		done; } > l1.csv" || return "$KSFT_FAIL"
	expect "$work/l1.md" "the table" '^## Where the nested host ran each guest' || rc=1
	expect "$work/l1.md" "L1's CPUs" 'L1 has 2 CPUs' || rc=1
	expect "$work/l1.md" "the guest's row" '^| 1 | baseline | plain | 20.0 | 3.50 | 50% | 100% | 20% | 85% | 1/2 |$' || rc=1
	report fix || return "$KSFT_FAIL"
	! grep -q '^## Where the nested host' "$work/fix.md" || { echo "# a table without l1.csv"; rc=1; }
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# test_host_placement: host_rows on made-up host_sampler lines (USER_HZ
# 100): in three seconds vCPU 0 busy on CPUs 0, 1, 1 and vCPU 1 on 0, 1,
# 0, so on one CPU in the first two and apart in the third; QEMU's main
# thread left out.
test_host_placement()
{
	local rc=0
	printf '%s\n' "100 7 0 0 qemu-system-x86" "100 8 0 0 CPU_0/TCG" "100 9 1 0 CPU_1/TCG" \
		"101 7 1 900 qemu-system-x86" "101 8 0 100 CPU_0/TCG" "101 9 0 50 CPU_1/TCG" \
		"102 8 1 200 CPU_0/TCG" "102 9 1 150 CPU_1/TCG" \
		"103 8 1 300 CPU_0/TCG" "103 9 0 250 CPU_1/TCG" > "$work/host.log"
	(k=2 order=BA st=patched pass=insn; host_rows "$work/host.log") > "$work/host.rows" ||
		{ echo "# host_rows failed"; rc=1; }
	printf '%s\n' "2,BA,patched,insn,CPU_0/TCG,3,3,3.00,0:33 1:67,1,67" \
		"2,BA,patched,insn,CPU_1/TCG,3,3,2.50,0:67 1:33,3,67" | diff - "$work/host.rows" |
		sed 's/^/# /' | grep . && rc=1
	: > "$work/empty.log"
	(k=1 order=AB st=baseline pass=plain; host_rows "$work/empty.log") && { echo "# rows without samples"; rc=1; }
	report host "{ echo pair,order,tree,pass,thread,seconds,busy_samples,busy_s,cpus,moves,shared_pct
		cat '$work/host.rows'; } > host.csv" || return "$KSFT_FAIL"
	expect "$work/host.md" "the table" "^## Where this machine ran the nested host's vCPUs" || rc=1
	expect "$work/host.md" "vCPU 1's row" '^| 2 | patched | insn | 3 | CPU 1/TCG | 3 | 2.50 | 0:67 1:33 | 3 | 67% |$' || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# test_payloads_chosen: bench.sh's --payloads (sweep_points) and the
# report of a sweep of one payload.
test_payloads_chosen()
{
	local rc=0 pts=
	pts=$(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 4 64) || rc=1
	[ "$pts" = "64:256K:64K 64:256K:64 " ] || { echo "# --payloads 64: '$pts'"; rc=1; }
	pts=$(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 2 4K,64K) || rc=1
	[ "$pts" = "4K:128M:64K 4K:128M:4K 64K:128M:64K " ] || { echo "# --payloads 4K,64K: '$pts'"; rc=1; }
	(POINTS_FILE="$RXKIT_TOP/bench/data/bench-points" sweep_points 4 512) \
		> /dev/null 2> "$work/payloads.err" && { echo "# 512 accepted for the nested sweep"; rc=1; }
	expect "$work/payloads.err" "the refusal" \
		"error: --payloads: this sweep has no payload '512' .*; run: --payloads with some of: 64,256,1K,4K,64K$" || rc=1
	report one "for f in samples.csv probes.csv; do awk -F, 'NR == 1 || \$5 == 64' \$f > x && mv x \$f; done" ||
		{ sed 's/^/# /' "$work/one.err"; return "$KSFT_FAIL"; }
	row "$work/one.md" 64 | grep -q '^| 64 | ' || { echo "# no 64B row"; rc=1; }
	row "$work/one.md" 4K | grep -q . && { echo "# a 4K row in a 64B sweep"; rc=1; }
	sed -n '/^## Per received RW packet/,/^## /p' "$work/one.md" | grep -q '^| 64 | baseline | [0-9]' ||
		{ echo "# no counter row at 64B"; rc=1; }
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
