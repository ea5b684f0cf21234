# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The kit's files as the suites that check them see them (tests/static.sh
# shell_syntax, tests/shellcheck.sh, tests/commands.sh): derived from the
# tree, never kept by hand.  Sourced after ci/lib.sh.

# kit_files: every file of the kit, one a line relative to $RXKIT_TOP: what
# git tracks and what it would track (untracked and not ignored: a new
# script counts before its first commit); only those present (a file git
# still tracks may be gone in a rename).  Outside a git checkout: every file
# but .git/ and out/.
kit_files()
{
	(
		cd "$RXKIT_TOP" || exit 1
		if [ -e .git ] && command -v git >/dev/null 2>&1; then
			git -c core.quotePath=false ls-files --cached --others --exclude-standard
		else
			find . -path ./.git -prune -o -path ./out -prune -o -type f -print |
				sed 's|^\./||'
		fi | while read -r f; do
			[ ! -f "$f" ] || printf '%s\n' "$f"
		done
	)
}

# shell_shebang FILE: FILE's #! line runs sh, dash, bash (directly or
# through env) or busybox sh.
shell_shebang()
{
	local l=
	l=$(head -n 1 "$1" 2>/dev/null) || return 1
	case "$l" in
	'#!'*/sh|'#!'*/dash|'#!'*/bash|'#!'*/env\ sh|'#!'*/env\ dash|'#!'*/env\ bash|'#!'*/busybox\ sh) return 0 ;;
	'#!'*/sh[\ \	]*|'#!'*/dash[\ \	]*|'#!'*/bash[\ \	]*) return 0 ;;
	esac
	return 1
}

# shell_sources FILE: the files FILE (relative to $RXKIT_TOP) sources by a
# literal path relative to itself (. "$(dirname "$0")/lib.sh") or to the
# kit (. "$RXKIT_TOP/tests/lib.sh"), those that exist.
shell_sources()
{
	local k= p=
	sed -nE 's#^[[:space:]]*(\.|source)[[:space:]]+"?\$\(dirname "?\$0"?\)/([^"$ ;]+)("|[[:space:];]|$).*#D \2#p
		s#^[[:space:]]*(\.|source)[[:space:]]+"?\$\{?RXKIT_TOP\}?/([^"$ ;]+)("|[[:space:];]|$).*#T \2#p' \
		"$RXKIT_TOP/$1" | while read -r k p; do
		case "$k$1" in
		D*/*) p="${1%/*}/$p" ;;
		esac
		p=$(realpath -m --relative-to="$RXKIT_TOP" "$RXKIT_TOP/$p")
		[ ! -f "$RXKIT_TOP/$p" ] || printf '%s\n' "$p"
	done
}

# shell_files: the kit's shell scripts, one a line relative to $RXKIT_TOP,
# sorted: each file of kit_files with a shell_shebang, each *.sh, and each
# file those source (shell_sources: a library without a #! line or .sh;
# what such a library sources in turn too).
shell_files()
{
	local list= more= f=
	list=$(kit_files | while read -r f; do
		case "$f" in
		*.sh) printf '%s\n' "$f" ;;
		*) ! shell_shebang "$RXKIT_TOP/$f" || printf '%s\n' "$f" ;;
		esac
	done) || return 1
	more=$list
	while [ -n "$more" ]; do
		more=$(printf '%s\n' "$more" | while read -r f; do shell_sources "$f"; done |
			sort -u | while read -r f; do
				printf '%s\n' "$list" | grep -qxF "$f" || printf '%s\n' "$f"
			done)
		[ -z "$more" ] || list=$(printf '%s\n%s\n' "$list" "$more")
	done
	printf '%s\n' "$list" | grep . | sort -u
}

# shell_list FILE: shell_files into FILE; false, saying so, when there are
# none.
shell_list()
{
	(cd "$RXKIT_TOP" && shell_files) > "$1" && [ -s "$1" ] && return 0
	echo "# no shell scripts found in $RXKIT_TOP"
	return 1
}

# layout_bad: reads "FILE SOURCED" lines (SOURCED "-": FILE sources
# nothing) and names each that breaks the folders' roles: a file of the
# product (ci/, debian/, rpm/, dkms/) that sources a library outside ci/,
# and a library kept beside the suites as tests/NAME-lib.sh or
# bench/NAME-lib.sh instead of tests/lib/ or bench/lib/.
layout_bad()
{
	awk '$1 ~ /^(ci|debian|rpm|dkms)\// && $2 != "-" && $2 !~ /^ci\// {
		print "# " $1 " sources " $2 ": the product sources ci/ alone (move what it needs to ci/lib/)" }
	$1 ~ /^(tests|bench)\/[^\/]*-lib\.sh$/ {
		print "# " $1 ": a suite library is tests/lib/NAME.sh (bench/lib/ for the benchmark)" }'
}
