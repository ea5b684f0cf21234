#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/sockmap_check.sh: the stream checker of the sockmap hand-off test
# (tests/sockmap/check.c) on this machine, no kernel: tests/sockmap/
# check_test feeds it right splits it must accept and each kind of bad
# stream it must count as its kind; then the known defects and the A/B
# verdict on job logs made here.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=sockmap_check.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="build cases tracker xfail_whole ab_counts"
readonly TEST_DESCS="tests/sockmap/check_test and track_test build (-Wall -Werror) with TARGET's kselftest harness:\
its cases pass, each a subtest (right splits give no violation, among them switches where the next piece begins with the bytes the stream has next and thousands of random ones; loss, repetition, reordering, the wrong side and bytes never written each give their kind's count):\
track_test's cases pass, each a subtest; the waits for records count a byte read twice once, so a repeat cannot make up for a record on its way (tests/sockmap/track.c), and a side whose read fails is one violation, not read again, the other side still read (read.c):\
tests/lib/known.sh known_defects makes a case XFAIL only when every violation it counted is printed and listed and no other expectation failed, and names how many lines each entry matched:\
pipeline/ab-verdict compares a defect of both trees by its count (job logs through known_defects and pipeline/results to results.json); an injected patched-only reordering is a REGRESSION, a small excess INCONCLUSIVE, the same count a KNOWN DEFECT"

usage()
{
	cat <<USAGE
usage: tests/sockmap_check.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

$(test_usage)
TARGET   the target whose fetched tree gives the kselftest harness
         (default $RXKIT_TARGET; ci/fetch TARGET)
USAGE
}

suite_options "$@"
shift "$SUITE_SHIFT"
target=${1:-$RXKIT_TARGET}
need gcc gcc
need make make
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-sockmap-check.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
selftests="$(src_root "$target")/pristine/tools/testing/selftests"

test_build()
{
	[ -f "$selftests/kselftest_harness.h" ] ||
		die "no fetched $target tree with tools/testing/selftests; run: ci/fetch $target"
	if make -s -C "$RXKIT_TOP/tests/sockmap" OUTPUT="$work" SELFTESTS="$selftests" \
		"$work/check_test" "$work/track_test" > "$work/build.log" 2>&1; then
		echo "# tests/sockmap/check_test, track_test: built against $target's harness"
		return "$KSFT_PASS"
	fi
	sed 's/^/# /' "$work/build.log"
	return "$KSFT_FAIL"
}

# host_test NAME: run tests/sockmap/NAME, its cases as subtests.
host_test()
{
	local rc=0
	if [ ! -x "$work/$1" ]; then
		SKIP_REASON="$1 did not build (test build)"
		return "$KSFT_SKIP"
	fi
	"$work/$1" > "$work/$1.log" 2>&1 || rc=$?
	ktap_from_harness "$work/$1.log"
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

test_cases()
{
	host_test check_test
}

test_tracker()
{
	host_test track_test
}

# job_log FILE CASE N [LINE...]: a harness log of one case with N
# reordered records on S (an injected batching bug; the live list has it
# for both trees) and the harness's lines LINE.
job_log()
{
	local f="$1" c="$2" n="$3" i=0
	shift 3
	{
		printf 'TAP version 13\n1..1\n#  RUN           %s ...\n' "$c"
		while [ "$i" -lt "$n" ]; do
			printf '# not as written: reordered: vsock: record %d after record %d\n' "$((i * 10 + 5))" "$((i * 10 + 9))"
			i=$((i + 1))
		done
		[ "$#" = 0 ] || printf '%s\n' "$@"
		if [ "$n" -gt 0 ] || [ "$#" -gt 0 ]; then
			[ "$n" = 0 ] || echo "# rxkit-sockmap.c:700:loop:Expected 0U (0) == c->errors ($n)"
			printf '#          FAIL  %s\nnot ok 1 %s\n' "$c" "$c"
		else
			printf '#            OK  %s\nok 1 %s\n' "$c" "$c"
		fi
	} > "$f"
}

# tree_results OUT TREE LOG: OUT/7.3/TREE/sockmap/results.json of a job
# whose harness log is LOG, its cases through known_defects.
tree_results()
{
	local a="$1/7.3/$2/sockmap"
	mkdir -p "$a/sockmap_loopback"
	ktap_from_harness "$3" > "$a/raw.ktap"
	known_defects "$3" "$a/raw.ktap" "$2" 7.3 ${LIST:+"$LIST"} > "$a/sockmap_loopback/cases.ktap" || true
	printf 'sockmap_loopback\t0\t1\t\n' > "$a/results.tsv"
	"$RXKIT_TOP/pipeline/results" suite "$a" --suite vsock_sockmap.sh --target 7.3 --tree "$2" \
		--release 7.3.4 --backend loopback --accelerator tcg
}

# ab NAME BASE-N PATCHED-N WANT [PATCHED-LINE...]: the verdict of a
# baseline with BASE-N reorderings against a patched tree with
# PATCHED-N; WANT, an ERE its output must match; its exit code too.
ab()
{
	local name="$1" o="$work/ab-$1" want="$4" b="$2" p="$3" rc=0
	shift 4
	job_log "$work/b.log" handoff.skb_verdict.loop "$b"
	job_log "$work/p.log" handoff.skb_verdict.loop "$p" "$@"
	tree_results "$o" baseline "$work/b.log"
	tree_results "$o" patched "$work/p.log"
	RXKIT_OUT="$o" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$o/ab.out" 2>&1 || rc=$?
	if ! grep -Eq "$want" "$o/ab.out"; then
		echo "# $name: no line matching '$want' (exit $rc):"
		sed 's/^/#   /' "$o/ab.out"
		return 1
	fi
	echo "# $name (exit $rc): $(grep -E "$want" "$o/ab.out" | cut -c1-160)"
	return "$rc"
}

test_xfail_whole()
{
	local rc="$KSFT_PASS"
	job_log "$work/x.log" handoff.skb_verdict.loop 3
	ktap_from_harness "$work/x.log" > "$work/x.ktap"
	known_defects "$work/x.log" "$work/x.ktap" patched 7.3 > "$work/x.out" || true
	grep -q '^    ok 1 handoff.skb_verdict.loop # XFAIL .* \[baseline,patched\] {3}$' "$work/x.out" ||
		{ echo "# 3 listed reorderings: not XFAIL with their count"; sed 's/^/#   /' "$work/x.out"; rc=$KSFT_FAIL; }
	job_log "$work/x.log" handoff.skb_verdict.loop 3 \
		"# rxkit-sockmap.c:710:loop:Expected 0ULL (0) < counts.redir_runs (0)"
	ktap_from_harness "$work/x.log" > "$work/x.ktap"
	known_defects "$work/x.log" "$work/x.ktap" patched 7.3 > "$work/x.out" || true
	grep -q '^    not ok 1 handoff.skb_verdict.loop$' "$work/x.out" &&
	grep -q '1 other expectations failed' "$work/x.out" ||
		{ echo "# a failed expectation beside the listed ones: not a failure"; sed 's/^/#   /' "$work/x.out"; rc=$KSFT_FAIL; }
	job_log "$work/x.log" handoff.skb_verdict.loop 3 "# ... 1500 violations in all"
	ktap_from_harness "$work/x.log" > "$work/x.ktap"
	known_defects "$work/x.log" "$work/x.ktap" patched 7.3 > "$work/x.out" || true
	grep -q '(3 of its 1500 violations printed)' "$work/x.out" ||
		{ echo "# violations the checker did not print: matched all the same"; sed 's/^/#   /' "$work/x.out"; rc=$KSFT_FAIL; }
	[ "$rc" = "$KSFT_PASS" ] && echo "# listed and whole: XFAIL {3}; another expectation failed, or unprinted violations: a failure"
	return "$rc"
}

test_ab_counts()
{
	local rc="$KSFT_PASS"
	# The live list's reordering is a race: its counts of one run a tree
	# are not compared.
	ab race 0 12 "^INCONCLUSIVE .*patched 12, baseline 0 \(a race: " || rc=$KSFT_FAIL
	# The same defect as one that always shows is compared by its count.
	sed '/^handoff.*reordered/s/\trace\t/\talways\t/' "$SOCKMAP_DEFECTS" > "$work/always"
	LIST="$work/always" ab injected 0 12 "^REGRESSION .*patched 12, baseline 0 \(p = 0.00024\)" && rc=$KSFT_FAIL
	LIST="$work/always" ab inconclusive 1 3 "^INCONCLUSIVE .*patched 3, baseline 1 \(p = 0.31" || rc=$KSFT_FAIL
	ab same 12 12 "^KNOWN DEFECT .*patched 12, baseline 12" || rc=$KSFT_FAIL
	ab baseline_only 5 0 "^sockmap: baseline 1 passed, patched 1 passed, 0 regressions" ||
		rc=$KSFT_FAIL
	ab other_failed 0 2 "^REGRESSION .*'handoff.skb_verdict.loop' passes on baseline, not patched" \
		"# rxkit-sockmap.c:710:loop:Expected 0ULL (0) < counts.redir_runs (0)" && rc=$KSFT_FAIL
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
