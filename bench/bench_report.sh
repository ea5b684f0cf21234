#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/bench_report.sh: the benchmark's report (bench/report and
# bench/src/abreport.py) on a made-up run, bench/fixtures/bench-report:
# the verdict words from the CI, the orders' means and the sign test in
# each cell, a pair with a state missing left out and named, the control
# pass's counters and cost, a run timed with the probes set called so, the
# intervals counted, the doc's and README's blocks current; and, in
# bench/lib/bench_report.sh, the sweep's own code on made-up rows.  No
# kernel, no guest.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=bench_report.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/bench/lib/bench_sweep.sh"
. "$RXKIT_TOP/bench/lib/bench_nested.sh"
. "$RXKIT_TOP/bench/lib/bench_report.sh"

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
doc/benchmark.md's tables and the README's verdicts are bench/summary's, and a changed cell or word fails the check:\
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

# stale FILE SED: FILE edited by SED must fail bench/summary --check.
stale()
{
	sed "$2" "$1" > "$work/stale.md"
	cmp -s "$1" "$work/stale.md" && { echo "# nothing to change in $1 ($2)"; return 1; }
	"$RXKIT_TOP/bench/summary" --stats "$stats" --check "$work/stale.md" 2> "$work/doc.err" &&
		{ echo "# $1 with '$2' passed the check"; return 1; }
	expect "$work/doc.err" "the stale block" "are not the committed runs'; run: bench/summary --write"
}

test_doc_current()
{
	local rc=0 f= code=0
	for f in "$RXKIT_TOP/doc/benchmark.md" "$RXKIT_TOP/README.md"; do
		"$RXKIT_TOP/bench/summary" --stats "$stats" --check "$f" 2> "$work/doc.err" ||
			{ sed 's/^/# /' "$work/doc.err"; rc=1; }
	done
	stale "$RXKIT_TOP/doc/benchmark.md" 's/ faster (wins / slower (wins /' || rc=1
	stale "$RXKIT_TOP/README.md" 's/ a byte fewer at / a byte more at /' || rc=1
	stale "$RXKIT_TOP/README.md" 's/a packet at 64B 1.00 -> /a packet at 64B 1.50 -> /' || rc=1
	stale "$RXKIT_TOP/README.md" 's/cycles a byte fewer at every size (-15.6 %/cycles a byte fewer at every size (-25.6 %/' || rc=1
	printf '# no block\n' > "$work/none.md"
	"$RXKIT_TOP/bench/summary" --stats "$stats" --check "$work/none.md" 2> "$work/doc.err" || code=$?
	[ "$code" = 2 ] || { echo "# a file without a block was not refused"; rc=1; }
	expect "$work/doc.err" "no block" "none.md has no block" || rc=1
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

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
