#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/shellcheck.sh: shellcheck on every shell script of the kit.  KTAP on
# stdout.
set -eu
PROG=shellcheck
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/static.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="shellcheckrc shellcheck"
readonly TEST_DESCS="every check .shellcheckrc disables has a reason, a comment just above it:\
shellcheck -S warning warns of nothing in any shell script of the kit"

usage()
{
	cat <<USAGE
usage: tests/shellcheck.sh [-l] [-t NAME]... [-T NAME]...

shellcheck of the kit's shell scripts (the sh and bash #! files and *.sh
the tree has, git's untracked ones too, and what they source).

$(test_usage)
USAGE
}
suite_alone "$@"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-shellcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# Every check .shellcheckrc disables has a reason: a comment just above
# naming it.
test_shellcheckrc()
{
	[ -f "$RXKIT_TOP/.shellcheckrc" ] || { echo "# no .shellcheckrc"; return "$KSFT_FAIL"; }
	awk '/^[[:space:]]*#/ { c = c " " $0; next }
		/^[[:space:]]*disable=/ {
			n = split(substr($0, index($0, "=") + 1), d, ",")
			for (i = 1; i <= n; i++) {
				gsub(/[[:space:]]/, "", d[i])
				if (index(c, d[i]) == 0) { print "# .shellcheckrc: " d[i] " disabled without a reason above it"; bad = 1 }
				else print "# .shellcheckrc: " d[i] " disabled, with a reason"
			}
		}
		{ c = "" }
		END { exit bad }' "$RXKIT_TOP/.shellcheckrc" || return "$KSFT_FAIL"
}

# No warning of "shellcheck -S warning" in any script; .shellcheckrc at the
# top of the kit says what it follows and disables.  A library without a #! line is
# checked as sh.  Each file with warnings is named with their count and
# codes, then the warnings follow.
test_shellcheck()
{
	local f=
	command -v shellcheck >/dev/null 2>&1 ||
		{ SKIP_REASON="shellcheck not installed (make deps)"; return "$KSFT_SKIP"; }
	shell_list "$work/files" || return "$KSFT_FAIL"
	: > "$work/bang"
	: > "$work/lib"
	while read -r f; do
		if head -n 1 "$RXKIT_TOP/$f" | grep -q '^#!'; then
			echo "$f" >> "$work/bang"
		else
			echo "$f" >> "$work/lib"
		fi
	done < "$work/files"
	echo "# $(shellcheck --version | sed -n 's/^version: /shellcheck /p') on $(wc -l < "$work/files") scripts ($(wc -l < "$work/lib") without #!)"
	(
		cd "$RXKIT_TOP" || exit 1
		xargs -r shellcheck -S warning -f gcc < "$work/bang"
		xargs -r shellcheck -s sh -S warning -f gcc < "$work/lib"
	) > "$work/out" 2>&1 || :
	awk -v n="$(wc -l < "$work/files")" '
		/^[^:]+:[0-9]+:[0-9]+: [a-z]+: .* \[SC[0-9]+\]$/ {
			f = $0; sub(/:.*/, "", f); c = $NF; gsub(/[][]/, "", c)
			if (!(f in w)) o[++nf] = f
			if (!((f, c) in k)) cs[f] = cs[f] " " c
			w[f]++; k[f, c]++; all++; next
		}
		{ print "# shellcheck said: " $0; bad = 1 }
		END {
			for (i = 1; i <= nf; i++) {
				f = o[i]; m = split(substr(cs[f], 2), a, " "); l = ""
				for (j = 1; j <= m; j++) l = l (j > 1 ? ", " : "") a[j] (k[f, a[j]] > 1 ? " x" k[f, a[j]] : "")
				print "# " f ": " w[f] " warning" (w[f] > 1 ? "s" : "") " (" l ")"
			}
			print "# " nf + 0 " of " n " scripts with warnings, " all + 0 " in all"
			exit (all + bad > 0)
		}' "$work/out" || { grep ' \[SC[0-9]*\]$' "$work/out" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
}

# shellcheck disable=SC2086
run_tests $TESTS
