# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/static_trees.sh: the helpers tests/static.sh checks the kit's
# lists against the kernel trees with: the case names a skip list quotes
# (skip_names) and a series' refuse list (refuse_ok).  Sourced after
# ci/lib.sh by tests/static.sh, whose work folder they write in.
# shellcheck disable=SC2154 # work is the suite's

# case_names PROG.c: the test_cases[] names of a kernel vsock test program,
# "ID NAME" (ids from 0, as --list prints them).
case_names()
{
	awk '/test_cases\[\] = \{/ { f = 1; next } f && /^};/ { f = 0 }
		f && /\.name = "/ { s = $0; sub(/.*\.name = "/, "", s); sub(/",?[ \t]*$/, "", s)
			print n++ " " s }' "$1"
}

# skip_names FILE: each entry's id and the case name its reason quotes must
# be that case in the tree of every target the file applies to (its own,
# or all), where the tree is prepared.
skip_names()
{
	local sb="${1##*/}" prog= ts= rc=0 t= c= id= rest= q= n=
	prog=$(echo "${sb%%.*}" | sed 's/_\(loopback\|vm_client\|vm_server\)$//')
	ts=$(echo "$sb" | cut -s -d. -f2-3 | sed 's/\.[a-z]*$//')
	[ -n "$ts" ] || ts=$(known_targets)
	for t in $ts; do
		c="$(src_root "$t")/patched/tools/testing/vsock/$prog.c"
		if [ ! -f "$c" ]; then
			echo "# $sb: names not checked against $t: no tree (ci/prepare $t)"
			continue
		fi
		case_names "$c" > "$work/names"
		grep -v '^#' "$1" | grep '[^ ]' | while read -r id rest; do
			q=$(printf '%s\n' "$rest" | sed -n 's/^"\([^"]*\)".*/\1/p')
			n=$(sed -n "s/^$id //p" "$work/names")
			if [ -z "$q" ]; then
				echo "# $sb: entry $id does not quote its case name (\"$n\" in $t)"
				echo bad
			elif [ "$q" != "$n" ]; then
				echo "# $sb: entry $id quotes \"$q\", but id $id of $prog in $t is \"${n:-no such case}\""
				echo bad
			fi
		done > "$work/names.out"
		grep -v '^bad$' "$work/names.out" || true
		if grep -qx bad "$work/names.out"; then
			rc=1
		else
			echo "# $sb: ids and names match $prog.c of $t ($(wc -l < "$work/names") cases)"
		fi
	done
	return "$rc"
}

# refuse_ok DIR: the entries of DIR/refuse (ci/lib.sh refuse_tree) are a
# path in the tree and a reason; no patch of the series touches the path
# (the series was written for trees without it), and the fetched base of
# the target lacks it (else ci/prepare refuses the kit's own base).
refuse_ok()
{
	local t=${1##*/} f= why= pr= bad=0 n=0
	pr="$(src_root "$t")/pristine"
	while IFS='	' read -r f why; do
		case "$f" in
		''|'#'*) continue ;;
		/*|*..*|*' '*) echo "# $1/refuse: '$f' is not a path in a tree"; bad=1; continue ;;
		esac
		n=$((n + 1))
		[ -n "$why" ] || { echo "# $1/refuse: $f has no reason"; bad=1; }
		if awk -v f="$f" '($1 == "+++" && $2 == "b/" f) || ($1 == "---" && $2 == "a/" f) \
			{ found = 1 } END { exit !found }' "$1"/*.patch; then
			echo "# $1/refuse: $f, but a patch of the series changes it"
			bad=1
		fi
		if [ ! -d "$pr" ]; then
			echo "# $1/refuse: $f not checked against the base: $t not fetched"
		elif [ -e "$pr/$f" ]; then
			echo "# $1/refuse: Linux $(fetched_version "$t"), the fetched base, has $f: ci/prepare $t refuses it"
			bad=1
		fi
	done < "$1/refuse"
	echo "# $1/refuse: $n entries"
	return "$bad"
}
