# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ci/lib/args.sh: the command line of the kit's scripts, parsed the same
# way in each: the stages' shared options, a suite's choice of tests.
# Sourced by ci/lib.sh.

# parse_stage_args SHARED ARG...: the command line of a stage, parsed the
# same way in every script.  SHARED lists the shared options the script
# takes, as NAME=DEFAULT words: "tree=DEFAULT" (--tree VALUE sets $tree)
# and "flavour=DEFAULT" (--flavour NAME sets $flavour); each variable
# starts at its default.  Every script also takes -h/--help (usage on
# stdout, exit 0) and at most one TARGET operand ($target, empty without
# one; a second: "only one target at a time").  Script-specific options:
# the script defines extra_opt(), which gets the remaining arguments
# before anything else and returns how many of them it consumed (0: not
# its own; opt_arg checks an option's value); the words it consumed are
# EXTRA_OPTS, in their order (a suite's reproducer.sh repeats them).  Anything else starting
# with '-': usage on stderr and "PROG: error: unknown option 'X'".
# shellcheck disable=SC2034 # tree, flavour, target, EXTRA_OPTS: the caller's
parse_stage_args()
{
	local shared="$1" word= n=0 i=0 with_tree=0 with_flavour=0 with_tests=0
	shift
	TESTS_ONLY= TESTS_SKIP= EXTRA_OPTS=
	for word in $shared; do
		case "$word" in
		tree=*) with_tree=1; tree=${word#tree=} ;;
		flavour=*) with_flavour=1; flavour=${word#flavour=} ;;
		tests) with_tests=1 ;;
		*) die "parse_stage_args: unknown shared option '$word'" ;;
		esac
	done
	target=
	while [ $# -gt 0 ]; do
		n=0
		! command -v extra_opt >/dev/null 2>&1 || extra_opt "$@" || n=$?
		i=0
		for word in "$@"; do
			[ "$i" -lt "$n" ] || break
			EXTRA_OPTS="${EXTRA_OPTS:+$EXTRA_OPTS }$word"
			i=$((i + 1))
		done
		if [ "$n" -eq 0 ]; then
			n=1
			case "$1" in
			-h|--help) usage; exit 0 ;;
			--tree) [ "$with_tree" = 1 ] || parse_unknown "$1"
				opt_arg "a value" "$@"; tree=$2; n=2 ;;
			--flavour) [ "$with_flavour" = 1 ] || parse_unknown "$1"
				opt_arg "a name" "$@"; flavour=$2; n=2 ;;
			-l|-t|-T) [ "$with_tests" = 1 ] || parse_unknown "$1"
				n=0; test_choice "$@" || n=$? ;;
			-*) parse_unknown "$1" ;;
			*) [ -z "$target" ] || die "only one target at a time"; target=$1 ;;
			esac
		fi
		shift "$n"
	done
	[ "$with_tests" = 0 ] || tests_chosen
}

parse_unknown() { usage >&2; die "unknown option '$1'"; }

# opt_arg WHAT OPTION [VALUE...]: OPTION has a value, or die "OPTION
# needs WHAT" (for extra_opt: opt_arg "a file" "$@").
opt_arg()
{
	[ $# -ge 3 ] || die "$2 needs $1"
}

# list_tests: each of $TEST_NAMES with its line of $TEST_DESCS (one a
# name, separated by ':'), as vmtest.sh's usage prints them.
list_tests()
{
	local i=1 n= w=0
	for n in $TEST_NAMES; do [ "${#n}" -le "$w" ] || w=${#n}; done
	for n in $TEST_NAMES; do
		printf '%-*s  %s\n' "$w" "$n" "$(printf '%s\n' "$TEST_DESCS" | cut -d: -f"$i")"
		i=$((i + 1))
	done
}

# test_choice OPTION [NAME]: -l lists the tests and exits; -t NAME adds
# NAME to the tests to run, -T NAME to those left out (each a name of
# $TEST_NAMES, else die naming -l).  Returns how many words it took.
test_choice()
{
	case "$1" in
	-l) list_tests; exit 0 ;;
	esac
	[ $# -ge 2 ] || die "$1 needs a test name; run: ${0#"$RXKIT_TOP"/} -l"
	case " $TEST_NAMES " in
	*" $2 "*) ;;
	*) die "unknown test '$2'; run: ${0#"$RXKIT_TOP"/} -l" ;;
	esac
	if [ "$1" = -t ]; then TESTS_ONLY="$TESTS_ONLY $2"; else TESTS_SKIP="$TESTS_SKIP $2"; fi
	return 2
}

# tests_chosen: TESTS, the tests -t and -T leave of $TEST_NAMES (all of
# them without -t), in its order.  Dies when $TEST_DESCS has not one
# description a name (a ':' inside one shifts every later one in -l).
# shellcheck disable=SC2034 # TESTS: the suite's
tests_chosen()
{
	local n= nd
	nd=$(printf '%s\n' "$TEST_DESCS" | awk -F: '{ n += NF } END { print n }')
	# shellcheck disable=SC2086 # the names, as words
	set -- $TEST_NAMES
	[ "$nd" = $# ] ||
		die "TEST_DESCS has $nd descriptions for $# tests; run: ${0#"$RXKIT_TOP"/} -l, and take the ':' out of the description it shows split"
	TESTS=
	for n in $TEST_NAMES; do
		case " ${TESTS_ONLY:-$n} " in *" $n "*) ;; *) continue ;; esac
		case " $TESTS_SKIP " in *" $n "*) ;; *) TESTS="$TESTS $n" ;; esac
	done
	TESTS=${TESTS# }
}
