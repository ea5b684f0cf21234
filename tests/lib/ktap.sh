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

# suite_options ARG...: the -h, -l, -t NAME and -T NAME of a suite that
# takes no other option (test_choice, ci/lib/args.sh); sets TESTS and
# SUITE_SHIFT, how many arguments it took (the suite shifts them).  The
# suite's usage() prints its help.
suite_options()
{
	local n=
	SUITE_SHIFT=0 TESTS_ONLY= TESTS_SKIP=
	while [ $# -gt 0 ]; do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		-l|-t|-T) n=0; test_choice "$@" || n=$?; shift "$n"; SUITE_SHIFT=$((SUITE_SHIFT + n)) ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*) break ;;
		esac
	done
	tests_chosen
}

# suite_alone ARG...: suite_options for a suite that takes its options
# alone; an argument besides them is refused.
suite_alone()
{
	suite_options "$@"
	[ $# -eq "$SUITE_SHIFT" ] || { usage >&2; die "no argument is taken"; }
}

# test_usage: the lines of -l, -t and -T in a suite's usage().
test_usage()
{
	cat <<'OPTIONS'
-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test)
-T NAME  do not run NAME (may repeat)
OPTIONS
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
				"$(( $(date +%s) - rt_t0 ))" "$(printf '%s' "$SKIP_REASON" | tr '\n' ' ')" >> "$RESULTS_TSV"
	done
	ktap_finish
}
