#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/bench_stats.sh: the A/B statistics of the benchmark suite
# (tests/bench/rxkit-stats.c) built, unit-tested and run on a case computed
# by hand; the benchmark tools' C is checkpatch --strict clean.  KTAP on
# stdout; exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=bench_stats
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="build unit cli_example cli_lower_is_better cli_refusals checkpatch"
readonly TESTS="${RXKIT_BENCH_STATS_TESTS:-$ALL_TESTS}"
readonly FIX="$RXKIT_TOP/tests/fixtures/bench-stats"

usage()
{
	cat <<USAGE
usage: tests/bench_stats.sh [TARGET]

The statistics of the benchmark suite:
$(for t in $ALL_TESTS; do echo "  $t"; done)
checkpatch is TARGET's (default: $RXKIT_TARGET; ci/fetch must have
fetched it): scripts/checkpatch.pl --strict of tests/bench/*.c and
tests/rxkit-vsock.c.

Environment: RXKIT_BENCH_STATS_TESTS="NAME..." (a subset of the tests).
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage >&2; die "unknown option '$1'" ;;
esac
target=${1:-$RXKIT_TARGET}
load_base "$target"
check_subset RXKIT_BENCH_STATS_TESTS
need gcc gcc
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-bench-stats.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
stats="$work/rxkit-stats"

# need_stats: the tool, built by the build test.
need_stats()
{
	[ -x "$stats" ] && return 0
	SKIP_REASON="rxkit-stats did not build"
	return "$KSFT_SKIP"
}

test_build()
{
	gcc -O2 -Wall -Wextra -Werror -o "$stats" "$RXKIT_TOP/tests/bench/rxkit-stats.c" -lm \
		> "$work/build.log" 2>&1 || { sed 's/^/# /' "$work/build.log"; return "$KSFT_FAIL"; }
}

# The unit tests of the C (its --self-test, KTAP), as subtests.
test_unit()
{
	local rc=0
	need_stats || return $?
	"$stats" --self-test > "$work/unit.ktap" || rc=$?
	sed 's/^/    /' "$work/unit.ktap"
	grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' "$work/unit.ktap" ||
		{ echo "# the self-test passed no test, or failed one"; rc=1; }
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# Four pairs whose result tests/fixtures/bench-stats/pairs computes by hand.
test_cli_example()
{
	need_stats || return $?
	"$stats" "$FIX/pairs" > "$work/out" || { echo "# rxkit-stats failed"; return "$KSFT_FAIL"; }
	sed 's/^/# /' "$work/out"
	diff -u "$FIX/expected" "$work/out" | sed 's/^/# /'
	cmp -s "$FIX/expected" "$work/out" || return "$KSFT_FAIL"
}

# -l (latency, cost per byte): the same rise is worse.
test_cli_lower_is_better()
{
	need_stats || return $?
	"$stats" -l "$FIX/pairs" > "$work/out" || return "$KSFT_FAIL"
	grep -q ' verdict=worse$' "$work/out" || { sed 's/^/# /' "$work/out"; return "$KSFT_FAIL"; }
	printf 'AB 10 5\nBA 10 5\n' | "$stats" -l > "$work/out" || return "$KSFT_FAIL"
	grep -q '^change=-50.00% ci95=-50.00%,-50.00% .* verdict=better$' "$work/out" ||
		{ sed 's/^/# /' "$work/out"; return "$KSFT_FAIL"; }
}

# expect_refusal INPUT PATTERN: rxkit-stats exits 2 saying PATTERN.
expect_refusal()
{
	local rc=0
	printf "$1" | "$stats" > "$work/out" 2> "$work/err" || rc=$?
	if [ "$rc" != 2 ] || ! grep -q "$2" "$work/err"; then
		echo "# input '$1': exit $rc, not 2 with '$2':"
		sed 's/^/#   /' "$work/err"
		return 1
	fi
	echo "# refused: $(cat "$work/err")"
}

test_cli_refusals()
{
	local rc=0
	need_stats || return $?
	expect_refusal 'AB 1 2\n' '1 pairs: at least 2 are needed' || rc=1
	expect_refusal 'AB 1 2\nXY 1 2\n' 'line 2: want' || rc=1
	expect_refusal 'AB 1 2\nBA 0 2\n' 'line 2: want .* positive' || rc=1
	expect_refusal '# nothing\n' '0 pairs' || rc=1
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

test_checkpatch()
{
	local cp f rc=0
	cp="$(src_root "$target")/pristine/scripts/checkpatch.pl"
	[ -f "$cp" ] || { SKIP_REASON="no fetched $target tree for checkpatch.pl (ci/fetch $target)"; return "$KSFT_SKIP"; }
	need perl perl
	for f in "$RXKIT_TOP"/tests/bench/*.c "$RXKIT_TOP/tests/rxkit-vsock.c"; do
		if perl "$cp" --strict --no-tree --no-summary --quiet -f "$f" > "$work/cp" 2>&1; then
			echo "# ${f#"$RXKIT_TOP"/}: clean"
		else
			echo "# ${f#"$RXKIT_TOP"/}:"
			sed 's/^/#   /' "$work/cp"
			rc=1
		fi
	done
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
