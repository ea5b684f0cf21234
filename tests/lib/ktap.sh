# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# KTAP output of the test scripts: the KSFT exit codes, the result lines
# and totals, diagnostics, and the loop that runs a script's tests.
# Sourced by tests/lib.sh.
# shellcheck disable=SC2034 # the codes are the sourcing scripts' too

readonly KSFT_PASS=0
readonly KSFT_FAIL=1
readonly KSFT_SKIP=4

ktap_n=0
ktap_pass=0
ktap_fail=0
ktap_skip=0

ktap_header()
{
	printf 'TAP version 13\n1..%s\n' "$1"
}

# ktap_result RC NAME [REASON]
ktap_result()
{
	ktap_n=$((ktap_n + 1))
	case "$1" in
	"$KSFT_PASS") ktap_pass=$((ktap_pass + 1)); printf 'ok %s %s\n' "$ktap_n" "$2" ;;
	"$KSFT_SKIP") ktap_skip=$((ktap_skip + 1)); printf 'ok %s %s # SKIP %s\n' "$ktap_n" "$2" "${3:-}" ;;
	*) ktap_fail=$((ktap_fail + 1)); printf 'not ok %s %s\n' "$ktap_n" "$2" ;;
	esac
}

ktap_finish()
{
	printf '# Totals: pass:%s fail:%s xfail:0 xpass:0 skip:%s error:0\n' \
		"$ktap_pass" "$ktap_fail" "$ktap_skip"
	[ "$ktap_fail" -eq 0 ]
}

# diag CMD...: run CMD, its output as KTAP diagnostics; CMD's exit status.
diag()
{
	local out= rc=0
	out=$(mktemp "${TMPDIR:-/tmp}/rxkit-diag.XXXXXX")
	"$@" > "$out" 2>&1 || rc=$?
	sed 's/^/# /' "$out"
	rm -f "$out"
	return "$rc"
}

# check_subset VAR: every name in $TESTS (a subset the user set in VAR) is
# one of $ALL_TESTS, or die naming VAR.
check_subset()
{
	local t=
	for t in $TESTS; do
		case " $ALL_TESTS " in
		*" $t "*) ;;
		*) die "unknown test '$t' in $1 (known: $ALL_TESTS)" ;;
		esac
	done
}

# list_tests: each of $TEST_NAMES with its line of $TEST_DESCS (one a
# name, separated by ':'), as the vmtest.sh usage prints them.
list_tests()
{
	local i=1 n=
	for n in $TEST_NAMES; do
		printf '%-18s %s\n' "$n" "$(printf '%s\n' "$TEST_DESCS" | cut -d: -f"$i")"
		i=$((i + 1))
	done
}

# suite_options ARG...: a suite's -h, -l, -t NAME and -T NAME, as the
# kselftest harness takes them; sets TESTS (the tests to run, in the
# order of $TEST_NAMES) and SUITE_SHIFT (how many arguments it took: the
# suite shifts them).  The suite's usage() prints its help.
suite_options()
{
	local only= skip= n=
	SUITE_SHIFT=0
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		-l) list_tests; exit 0 ;;
		-t|-T)
			[ $# -ge 2 ] || die "$1 needs a test name; run: tests/$PROG -l"
			case " $TEST_NAMES " in
			*" $2 "*) ;;
			*) die "unknown test '$2'; run: tests/$PROG -l" ;;
			esac
			if [ "$1" = -t ]; then only="$only $2"; else skip="$skip $2"; fi
			shift 2; SUITE_SHIFT=$((SUITE_SHIFT + 2)) ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*) break ;;
		esac
	done
	TESTS=
	for n in ${only:-$TEST_NAMES}; do
		case " $skip " in *" $n "*) ;; *) TESTS="$TESTS $n" ;; esac
	done
}

# run_tests NAME...: run test_NAME for each, in KTAP; a test prints its own
# diagnostics as '# ' lines and sets SKIP_REASON before returning KSFT_SKIP.
# Each test's name, code, seconds and reason also go to $RESULTS_TSV when
# results_begin (tests/lib/results.sh) set it.
run_tests()
{
	# The tests run inside this function and see its locals (the shell
	# scopes them dynamically): names no test uses, and the test's code
	# taken after it returned.
	local rt_name= rt_rc=0 rt_t0=0
	ktap_header $#
	for rt_name in "$@"; do
		SKIP_REASON=
		rt_t0=$(date +%s)
		if "test_$rt_name"; then rt_rc=0; else rt_rc=$?; fi
		ktap_result "$rt_rc" "$rt_name" "$SKIP_REASON"
		[ -z "${RESULTS_TSV:-}" ] ||
			printf '%s\t%s\t%s\t%s\n' "$rt_name" "$rt_rc" \
				"$(( $(date +%s) - rt_t0 ))" "$SKIP_REASON" >> "$RESULTS_TSV"
	done
	ktap_finish
}
