#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/commands.sh: every command the kit's scripts run comes from a
# package a clean Debian has or ci/deps installs.  KTAP on stdout.
set -eu
PROG=commands
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/static.sh"
. "$RXKIT_TOP/tests/lib/commands.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="commands_packaged settings_documented limits_used"
readonly TEST_DESCS="every command the kit's scripts, makefiles and RPM spec run is a builtin, a function or executable of the kit, in a package ci/deps installs or a clean Debian has, or in tests/commands.ignore with its reason:every RXKIT_ name the kit's code reads is named in doc/settings.md, and every name there is read:every limit the code asks for is a row of tests/data/limits, and every row is asked for"

usage()
{
	cat <<USAGE
usage: tests/commands.sh [-l] [-t NAME]... [-T NAME]...

The commands of the kit's scripts (tests/commands-scan finds them in
shfmt's syntax trees) and the Debian packages they come from.

$(test_usage)

Environment: RXKIT_DEPS_LIST (a file in the format of ci/deps --list, instead of it),
RXKIT_COMMANDS_IGNORE (instead of tests/commands.ignore) and
RXKIT_COMMANDS_EXTRA (more scripts to check, absolute paths): the
commands_unpackaged test of tests/errors_tools.sh uses them.
USAGE
}
suite_alone "$@"
need shfmt shfmt
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-commands.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The shell's reserved words are shfmt's; these are its builtins (dash's,
# and POSIX's special ones): the language, not commands to install.
readonly SH_BUILTINS=". : [ alias bg break cd command continue echo eval exec exit export false fc fg getopts hash jobs kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait"

# Every command the kit's scripts run (tests/commands-scan finds them: the
# list is derived, not kept) comes from a package that a clean Debian has
# (priority required or important), that ci/deps installs, or that a
# package of ci/deps directly depends on; every "need TOOL PACKAGE" names
# the package TOOL is in, or one that directly depends on it.  A name that
# is no command here is a missing tool, or a word the scan took for a
# command: tests/commands.ignore lists the deliberate ones with a reason,
# and an entry the scan no longer finds fails too.
test_commands_packaged()
{
	local rc="$KSFT_PASS" ign="${RXKIT_COMMANDS_IGNORE:-$RXKIT_TOP/tests/commands.ignore}"
	command -v dpkg-query >/dev/null 2>&1 ||
		{ SKIP_REASON="no dpkg-query: not a Debian system"; return "$KSFT_SKIP"; }
	commands_scan || {
		sed 's/^/# /' "$work/cmd.err"
		echo "# the scan of the scripts failed"
		return "$KSFT_FAIL"
	}
	if grep '^warn ' "$work/cmd.scan" | sed 's/^warn \([^ ]*\) /# shfmt cannot parse \1:/' | grep .; then
		rc=$KSFT_FAIL
	fi
	sed -n 's/^dyn \([^ ]*\) \(.*\)/# note: \2 runs \1, a computed command (not checked)/p' "$work/cmd.scan"
	commands_names
	commands_ignore "$ign" || rc=$KSFT_FAIL
	commands_paths
	commands_packages
	commands_report "$ign"
	grep -v '^BAD ' "$work/cmd.report" || :
	if grep -q '^BAD ' "$work/cmd.report"; then
		sed -n 's/^BAD /# not ok: /p' "$work/cmd.report"
		rc=$KSFT_FAIL
	fi
	echo "# $(wc -l < "$work/cmd.names") commands in $(wc -l < "$work/cmd.files") scripts, $(wc -l < "$work/cmd.make") makefiles, the RPM spec; $(wc -l < "$work/cmd.ignore") in the ignore file"
	return "$rc"
}

# unmatched USED LISTED FILES PREFIX NOTLISTED NOTUSED: each name of USED
# (sorted) that LISTED lacks, with the FILES (a list) that use it (PREFIX
# in front of the name there), and each of LISTED that USED lacks; false
# if any.
unmatched()
{
	local n rc=0
	for n in $(comm -23 "$1" "$2"); do
		echo "# $n: used by $(cd "$RXKIT_TOP" && xargs grep -lF -- "$4$n" < "$3" | head -n 3 | tr '\n' ' ')but $5"
		rc=1
	done
	for n in $(comm -13 "$1" "$2"); do
		echo "# $n: $6"
		rc=1
	done
	return "$rc"
}

# settings_documented: the RXKIT_ names of the kit's files (not its docs,
# history, fixtures or patches) and of RXKIT_COMMANDS_EXTRA against those
# doc/settings.md names (its table and its list of the kit's own).
test_settings_documented()
{
	local rc="$KSFT_PASS" n=
	{
		kit_files | grep -v '\.md$\|^CHANGELOG$\|^tests/fixtures/\|^patches/\|\.patch$'
		# shellcheck disable=SC2086 # absolute paths, one a word
		[ -z "${RXKIT_COMMANDS_EXTRA:-}" ] || printf '%s\n' ${RXKIT_COMMANDS_EXTRA}
	} > "$work/set.files"
	(cd "$RXKIT_TOP" && xargs grep -ho 'RXKIT_[A-Z0-9_]*[A-Z0-9]' < "$work/set.files") |
		sort -u > "$work/set.read"
	grep -o '`RXKIT_[A-Z0-9_]*`' "$RXKIT_TOP/doc/settings.md" |
		tr -d '`' | sort -u > "$work/set.doc"
	unmatched "$work/set.read" "$work/set.doc" "$work/set.files" "" \
		"not in doc/settings.md" "in doc/settings.md, but no file of the kit reads it" || rc=$KSFT_FAIL
	[ "$(wc -l < "$work/set.read")" -gt 20 ] || { echo "# only $(wc -l < "$work/set.read") names read: the scan found nothing"; rc=$KSFT_FAIL; }
	echo "# $(wc -l < "$work/set.read") names read, $(wc -l < "$work/set.doc") documented"
	return "$rc"
}

# limits_used: the names the kit's scripts give limit() against the rows
# of tests/data/limits.
test_limits_used()
{
	local rc="$KSFT_PASS" n=
	kit_files | grep -v '\.md$\|^CHANGELOG$\|^tests/fixtures/\|^patches/\|\.patch$' > "$work/lim.files"
	(cd "$RXKIT_TOP" && xargs grep -ho '\$(limit [a-z][a-z0-9-]*)' < "$work/lim.files") |
		sed 's/^\$(limit //; s/)$//' | sort -u > "$work/lim.used"
	awk '!/^#/ && NF { print $1 }' "$RXKIT_TOP/tests/data/limits" | sort > "$work/lim.data"
	unmatched "$work/lim.used" "$work/lim.data" "$work/lim.files" "(limit " \
		"no row of tests/data/limits" "a row of tests/data/limits that no code asks for" || rc=$KSFT_FAIL
	[ -z "$(sort "$work/lim.data" | uniq -d)" ] || { echo "# a limit given twice: $(uniq -d "$work/lim.data")"; rc=$KSFT_FAIL; }
	awk '!/^#/ && NF && $2 !~ /^[1-9][0-9]*$/ { print "# " $1 ": " $2 " is no number of seconds"; bad = 1 } END { exit bad }' \
		"$RXKIT_TOP/tests/data/limits" || rc=$KSFT_FAIL
	echo "# $(wc -l < "$work/lim.used") limits asked for: $(tr '\n' ' ' < "$work/lim.used")"
	[ -s "$work/lim.used" ] || rc=$KSFT_FAIL
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
