#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/sockmap_check.sh: the stream checker of the sockmap hand-off test
# (tests/sockmap/check.c) on this machine, no kernel: tests/sockmap/
# check_test feeds it right splits it must accept and each kind of bad
# stream it must count as its kind.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=sockmap_check.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="build cases"
readonly TEST_DESCS="tests/sockmap/check_test builds (-Wall -Werror) with TARGET's kselftest harness:\
its cases pass, each a subtest (right splits give no violation, among them switches where the next piece begins with the bytes the stream has next and thousands of random ones; loss, repetition, reordering, the wrong side and bytes never written each give their kind's count)"

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
		"$work/check_test" > "$work/build.log" 2>&1; then
		echo "# tests/sockmap/check_test: built against $target's harness"
		return "$KSFT_PASS"
	fi
	sed 's/^/# /' "$work/build.log"
	return "$KSFT_FAIL"
}

test_cases()
{
	local rc=0
	if [ ! -x "$work/check_test" ]; then
		SKIP_REASON="check_test did not build (test build)"
		return "$KSFT_SKIP"
	fi
	"$work/check_test" > "$work/cases.log" 2>&1 || rc=$?
	ktap_from_harness "$work/cases.log"
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

# shellcheck disable=SC2086
run_tests $TESTS
[ "$ktap_fail" = 0 ]
