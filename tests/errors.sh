#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/errors.sh: the error-path suites in order, as one KTAP document:
# bad input gets a clear error and leaves nothing half-made.
#   tests/errors_fetch.sh   ci/fetch, ci/prepare, ci/check-drift
#   tests/errors_build.sh   kconfig, build, guest boots, per-patch checks
#   tests/errors_tools.sh   A/B verdict, ci/summary, commands, clean root
# Each suite also runs on its own, with its own subset variable.
set -eu
PROG=errors
. "$(dirname "$0")/../ci/lib.sh"

readonly SUITES="errors_fetch errors_build errors_tools"

usage()
{
	cat <<USAGE
usage: tests/errors.sh [TARGET]

The error-path suites, in order, their results numbered as one document
(TARGET, default $RXKIT_TARGET, goes to each):
$(for s in $SUITES; do echo "  tests/$s.sh: $("$RXKIT_TOP/tests/$s.sh" --list)"; done)

Environment: RXKIT_ERRORS_TESTS="NAME..." (a subset of all their tests;
the patch_* tests need local_tarball_drift before them), or the subset
variable of a suite (tests/SUITE.sh --help).
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage >&2; die "unknown option '$1'" ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-errors.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Each suite's tests to run ($work/SUITE.tests; none when the subset has
# none of them): those of RXKIT_ERRORS_TESTS it has, else those of its own
# subset variable ($work/SUITE.var), else all.
all=
total=0
for suite in $SUITES; do
	list=$("$RXKIT_TOP/tests/$suite.sh" --list) || die "tests/$suite.sh --list failed"
	all="$all $list"
	var="RXKIT_$(echo "$suite" | tr '[:lower:]' '[:upper:]')_TESTS"
	eval "pick=\${$var:-}"
	[ -n "$pick" ] || pick=$list
	if [ -n "${RXKIT_ERRORS_TESTS:-}" ]; then
		pick=
		for t in $list; do
			case " $RXKIT_ERRORS_TESTS " in
			*" $t "*) pick="$pick $t" ;;
			esac
		done
	fi
	echo "$var" > "$work/$suite.var"
	# shellcheck disable=SC2086 # the names on one line
	echo $pick > "$work/$suite.tests"
	total=$((total + $(wc -w < "$work/$suite.tests")))
done
for t in ${RXKIT_ERRORS_TESTS:-}; do
	case " $all " in
	*" $t "*) ;;
	*) die "unknown test '$t' in RXKIT_ERRORS_TESTS (known:$all)" ;;
	esac
done

# Each suite's KTAP less its header and totals, its results renumbered;
# $work/SUITE.counts: "RESULTS PASSED FAILED SKIPPED".
printf 'TAP version 13\n1..%s\n' "$total"
ran=0 pass=0 fail=0 skip=0 rc=0
for suite in $SUITES; do
	want=$(wc -w < "$work/$suite.tests")
	[ "$want" -gt 0 ] || continue
	echo "# tests/$suite.sh"
	{ env "$(cat "$work/$suite.var")=$(cat "$work/$suite.tests")" \
		"$RXKIT_TOP/tests/$suite.sh" "$@" 2>&1 || echo "$?" > "$work/$suite.rc"; } |
		awk -v off="$ran" -v counts="$work/$suite.counts" '
		/^TAP version / || /^1\.\.[0-9]+$/ || /^# Totals: / { next }
		/^(not )?ok [0-9]+ / {
			n++; sub(/ok [0-9]+ /, "ok " (off + n) " ")
			if (/^not ok /) f++; else if (/ # SKIP/) s++; else p++
		}
		{ print; fflush() }
		END { print n + 0, p + 0, f + 0, s + 0 > counts }'
	read -r n p f sk < "$work/$suite.counts"
	ran=$((ran + n)) pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + sk))
	if [ -f "$work/$suite.rc" ] && [ "$f" = 0 ]; then
		echo "# tests/$suite.sh exited $(cat "$work/$suite.rc") without a failed test"
		rc=1
	fi
	[ "$n" = "$want" ] || { echo "# tests/$suite.sh reported $n of $want tests"; rc=1; }
done
printf '# Totals: pass:%s fail:%s xfail:0 xpass:0 skip:%s error:0\n' "$pass" "$fail" "$skip"
[ "$fail" = 0 ] || rc=1
exit "$rc"
