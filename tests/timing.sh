#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/timing.sh: the kit's means against verdicts that depend on the
# machine's load: the inventory of fixed waits (tests/data/waits) against
# the kit's files and every prepared tree, its refusals, the rewrite of
# the waits it scales and their factor (tests/rxkit-time-scale.h,
# tests/data/time-scale); the flake census's table (pipeline/census) on
# fixtures.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=timing.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="kit_files trees refuses_changed refuses_unlisted apply_rewrites scaled_factor time_scale census_report census_races census_record"
readonly TEST_DESCS="the kit's own waits are the rows of its files:every prepared tree's waits are its target's rows:a tree whose listed wait changed value stops the build:a tree with a wait the inventory does not list stops the build:apply rewrites the scale rows' lines and nothing else, and the result compiles:rxkit_scaled() multiplies by RXKIT_TIME_SCALE, refuses bad factors, saturates:the factor of each run, RXKIT_TIME_SCALE taking its place, a bad one refused:the census names a flaky case, a failed one and a run without results, and passes steady runs and known races:an xfail is a known race only when all its defects are races:a census kept in a folder of the tree reports as its report.md says, and is added to only with --keep"
readonly WAITS_TOOL="$RXKIT_TOP/images/waits"

usage()
{
	cat <<USAGE
usage: tests/timing.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

$(test_usage)
TARGET   the target whose prepared tree the rewrite is tried on
         (default $RXKIT_TARGET); every prepared target's tree is checked
USAGE
}

suite_options "$@"
shift "$SUITE_SHIFT"
target=${1:-$RXKIT_TARGET}
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-waits.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# prepared TARGET: the tree the inventory is checked against (patched:
# the series touches no test program, baseline has the same files).
prepared() { printf '%s/patched\n' "$(src_root "$1")"; }

# vsock_copy TARGET: a copy of TARGET's tools/testing/vsock in $work/t.
vsock_copy()
{
	rm -rf "$work/t"
	mkdir -p "$work/t/tools/testing"
	cp -r "$(prepared "$1")/tools/testing/vsock" "$work/t/tools/testing/vsock"
}

# refused TARGET: 'waits check' refuses $work/t for the right reason.
refused()
{
	if "$WAITS_TOOL" check "$1" "$work/t" vsock > "$work/out" 2>&1; then
		echo "# accepted a tree that does not fit"
		return "$KSFT_FAIL"
	fi
	sed 's/^/#   /' "$work/out"
	grep -q 'does not fit this tree' "$work/out" || {
		echo "# refused, but not as a tree the inventory does not fit"
		return "$KSFT_FAIL"
	}
}

need_tree()
{
	[ -d "$(prepared "$target")/tools/testing/vsock" ] && return 0
	SKIP_REASON="no prepared tree of $target; run: ci/prepare $target"
	return 1
}

test_kit_files() { diag "$WAITS_TOOL" check-kit; }

test_trees()
{
	local t= n=0 rc="$KSFT_PASS" area=
	for t in $(known_targets); do
		[ -d "$(prepared "$t")/tools/testing/vsock" ] || {
			echo "# $t: no prepared tree (ci/prepare $t), not checked"
			continue
		}
		for area in vsock bpf; do
			if diag "$WAITS_TOOL" check "$t" "$(prepared "$t")" "$area"; then
				echo "# $t $area: $("$WAITS_TOOL" list "$t" | awk -F '\t' -v a="$area" '$1 == a' | wc -l) rows fit"
			else
				rc=$KSFT_FAIL
			fi
		done
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { SKIP_REASON="no target has a prepared tree; run: ci/prepare TARGET"; return "$KSFT_SKIP"; }
	return "$rc"
}

# The zerocopy completion's 100 ms made 150: the row no longer fits.
test_refuses_changed()
{
	need_tree || return "$KSFT_SKIP"
	vsock_copy "$target"
	sed -i 's/^\(#define POLL_TIMEOUT_MS[[:space:]]*\)100$/\1150/' \
		"$work/t/tools/testing/vsock/vsock_test_zerocopy.c"
	grep -q 'POLL_TIMEOUT_MS.*150' "$work/t/tools/testing/vsock/vsock_test_zerocopy.c" ||
		{ echo "# the copy has no POLL_TIMEOUT_MS 100 to change"; return "$KSFT_FAIL"; }
	refused "$target"
}

# A new wait at the end of util.c that no row lists.
test_refuses_unlisted()
{
	need_tree || return "$KSFT_SKIP"
	vsock_copy "$target"
	printf 'static void rxkit_extra(void) { usleep(500); }\n' \
		>> "$work/t/tools/testing/vsock/util.c"
	refused "$target"
}

# apply changes exactly the lines of the scale rows, and the programs
# compile with the forced header against the tree's UAPI headers.
test_apply_rewrites()
{
	local o= want= got= p=
	need_tree || return "$KSFT_SKIP"
	vsock_copy "$target"
	"$WAITS_TOOL" apply "$target" "$work/t" || return "$KSFT_FAIL"
	want=$("$WAITS_TOOL" list "$target" | awk -F '\t' '$1 == "vsock" && $4 == "scale"' | wc -l)
	got=$(diff -r "$(prepared "$target")/tools/testing/vsock" "$work/t/tools/testing/vsock" |
		grep -c '^<' || true)
	echo "# $got lines rewritten, $want rows marked scale"
	[ "$got" = "$want" ] || return "$KSFT_FAIL"
	grep -rq 'rxkit_scaled(' "$work/t/tools/testing/vsock" || return "$KSFT_FAIL"
	o="$(prepared "$target")/o-guest"
	[ -d "$o/usr/include/linux" ] || {
		SKIP_REASON="the rewrite not compiled: no UAPI headers in $o; run: ci/build --tree patched $target"
		return "$KSFT_SKIP"
	}
	cp -r "$(prepared "$target")/tools/include" "$work/t/tools/include"
	mkdir -p "$work/t/usr" && cp -r "$o/usr/include" "$work/t/usr/include"
	for p in vsock_test vsock_diag_test; do
		CFLAGS="-include $RXKIT_TOP/tests/rxkit-time-scale.h" \
			make -s -C "$work/t/tools/testing/vsock" LDFLAGS=-static "$p" \
			> "$work/make.log" 2>&1 ||
			{ sed 's/^/#   /' "$work/make.log" | tail -n 20; return "$KSFT_FAIL"; }
	done
	echo "# vsock_test and vsock_diag_test compiled with the rewritten waits"
}

# A program of the header's: rxkit_scaled() of its arguments, one a line.
test_scaled_factor()
{
	local rc="$KSFT_PASS" env= want= got=
	need gcc gcc
	printf '%s\n' '#include <stdio.h>' '#include "rxkit-time-scale.h"' \
		'int main(int c, char **v) { while (*++v) printf("%d\n", rxkit_scaled(atoll(*v))); return 0; }' \
		> "$work/s.c"
	gcc -Wall -Werror -I"$RXKIT_TOP/tests" -o "$work/s" "$work/s.c" || return "$KSFT_FAIL"
	# RXKIT_TIME_SCALE (- unset), then what 100 and 250000000 become.
	while read -r env want; do
		if [ "$env" = - ]; then
			got=$(env -u RXKIT_TIME_SCALE "$work/s" 100 250000000 | paste -sd, -)
		else
			got=$(RXKIT_TIME_SCALE=$env "$work/s" 100 250000000 | paste -sd, -)
		fi
		echo "# RXKIT_TIME_SCALE=$env: $got (expected $want)"
		[ "$got" = "$want" ] || rc=$KSFT_FAIL
	done <<EOF
- 100,250000000
1 100,250000000
6 600,1500000000
20 2000,2147483647
0 100,250000000
6x 100,250000000
1001 100,250000000
EOF
	return "$rc"
}

# time_scale's factors; in subshells, as it dies on a bad one.
test_time_scale()
{
	local rc="$KSFT_PASS" run= f=
	for run in kvm tcg tcg-in-kvm tcg-in-tcg none; do
		f=$(unset RXKIT_TIME_SCALE; time_scale "$run") ||
			{ echo "# $run: no factor"; rc=$KSFT_FAIL; continue; }
		echo "# $run: $f"
	done
	f=$(RXKIT_TIME_SCALE=3; time_scale tcg)
	echo "# RXKIT_TIME_SCALE=3 for tcg: $f"
	[ "$f" = 3 ] || rc=$KSFT_FAIL
	for f in 0 07 6x 1001; do
		if (RXKIT_TIME_SCALE=$f; time_scale tcg) > "$work/ts" 2>&1; then
			echo "# RXKIT_TIME_SCALE=$f accepted: $(cat "$work/ts")"
			rc=$KSFT_FAIL
		else
			echo "# RXKIT_TIME_SCALE=$f refused: $(cat "$work/ts")"
		fi
	done
	if (unset RXKIT_TIME_SCALE; time_scale tcg-in-nothing) > "$work/ts" 2>&1; then
		echo "# an unknown run got a factor: $(cat "$work/ts")"
		rc=$KSFT_FAIL
	fi
	return "$rc"
}

# tests/fixtures/census/NAME.tsv (runs' verdicts) gives NAME.expected;
# flaky.tsv fails the census, steady.tsv passes it, kept.tsv (a census
# added to a suite at a time) counts each suite's own runs.
test_census_report()
{
	local rc="$KSFT_PASS" f= n= want= got=
	for f in "$RXKIT_TOP"/tests/fixtures/census/*.tsv; do
		n=${f##*/}
		n=${n%.tsv}
		got=0
		"$RXKIT_TOP/pipeline/census" --report "$f" > "$work/report" || got=$?
		case "$n" in flaky) want=1 ;; *) want=0 ;; esac
		if [ "$got" != "$want" ] || ! diff -u "${f%.tsv}.expected" "$work/report" > "$work/diff"; then
			echo "# $n: exit $got (expected $want)"
			sed 's/^/#   /' "$work/diff"
			rc=$KSFT_FAIL
		else
			echo "# $n: exit $got, the table as expected"
		fi
	done
	return "$rc"
}

# pipeline/census --verdicts: a case that XFAILs as races of
# tests/data/sockmap-defects alone is "race"; one with a defect that
# always shows among them, or none, stays "xfail"
# (tests/fixtures/census/races.json).
test_census_races()
{
	local f="$RXKIT_TOP/tests/fixtures/census/races"
	"$RXKIT_TOP/pipeline/census" --verdicts "$f.json" > "$work/verdicts" || return "$KSFT_FAIL"
	sed 's/^/# /' "$work/verdicts"
	diff -u "$f-verdicts.expected" "$work/verdicts" > "$work/diff" ||
		{ sed 's/^/#   /' "$work/diff"; return "$KSFT_FAIL"; }
}

# pipeline/census --record: the report of a folder's tables
# (tests/fixtures/census/record, runs of several commits and boots, one
# without load) and of every census the kit keeps (tests/census/TARGET:
# its report.md must be what its tables give); a folder that holds a
# census is refused without --keep before any suite runs.
test_census_record()
{
	local rc="$KSFT_PASS" d= f="$RXKIT_TOP/tests/fixtures/census/record"
	"$RXKIT_TOP/pipeline/census" --report "$f" > "$work/report" || true
	diff -u "$f/report.expected" "$work/report" > "$work/diff" ||
		{ echo "# the fixture's report:"; sed 's/^/#   /' "$work/diff"; rc=$KSFT_FAIL; }
	for d in "$RXKIT_TOP"/tests/census/*/; do
		[ -f "$d/runs.tsv" ] || continue
		"$RXKIT_TOP/pipeline/census" --report "$d" > "$work/report" || true
		if diff -u "$d/report.md" "$work/report" > "$work/diff"; then
			echo "# ${d%/}: report.md is its tables' report"
		else
			echo "# ${d%/}: report.md is stale; run: pipeline/census --report $d > ${d}report.md"
			sed 's/^/#   /' "$work/diff"
			rc=$KSFT_FAIL
		fi
	done
	mkdir -p "$work/kept"
	cp "$f/runs.tsv" "$f/verdicts.tsv" "$work/kept/"
	if "$RXKIT_TOP/pipeline/census" --no-load -t loopback --record "$work/kept" "$RXKIT_TARGET" \
		> "$work/out" 2>&1; then
		echo "# a census over a kept one was not refused"; rc=$KSFT_FAIL
	elif ! grep -q "holds a census already; run: pipeline/census --keep" "$work/out" ||
		! cmp -s "$f/runs.tsv" "$work/kept/runs.tsv"; then
		echo "# the refusal or the kept runs are wrong:"; sed 's/^/#   /' "$work/out"; rc=$KSFT_FAIL
	fi
	"$RXKIT_TOP/pipeline/census" --report "$work" > "$work/out" 2>&1 &&
		{ echo "# --report of a folder without a census passed"; rc=$KSFT_FAIL; }
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
