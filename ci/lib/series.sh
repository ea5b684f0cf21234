# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ci/lib/series.sh: the helpers of a target's series (its patches, their
# labels, the trees it refuses, the release mark and versions), sourced
# by ci/lib.sh.

# series_patches DIR: the patch file names DIR/series lists, in order.
series_patches()
{
	grep -v '^[[:space:]]*\(#\|$\)' "$1/series" | awk '{ print $1 }'
}

# patch_labels DIR: "LABEL FILE" for each patch of DIR/series, in order.
# LABEL is the file's NNNN- prefix, the posted patch it carries (0000: a
# prerequisite); a prefix met again gets .2, .3, ... (0000.2: the second
# prerequisite).  The names of the per-patch results and matrix cells.
patch_labels()
{
	series_patches "$1" | awk '{
		i = index($0, "-"); n = i ? substr($0, 1, i - 1) : $0
		print (++seen[n] > 1 ? n "." seen[n] : n), $0 }'
}

# refuse_tree SERIES TREE WHAT: die when TREE has a file that SERIES/refuse
# lists (FILE<TAB>WHY lines): a series written for the trees of its line
# that lack FILE must not be applied to one that has it (series/6.1 and a
# vendor 6.1 with vsock sockmap).  WHAT names TREE in the message.
refuse_tree()
{
	local f= why=
	[ -f "$1/refuse" ] || return 0
	while IFS='	' read -r f why; do
		case "$f" in
		''|'#'*) continue ;;
		esac
		[ ! -e "$2/$f" ] || die "$3 has $f: $why"
	done < "$1/refuse"
}

# quilt_patches DIR TREE: TREE/patches/ holding the patches of DIR/series
# and a series file of their names (for QUILT_PATCHES=patches).
quilt_patches()
{
	local p=
	mkdir "$2/patches"
	for p in $(series_patches "$1"); do
		[ -f "$1/$p" ] || die "$1/$p: listed in series but missing"
		cp "$1/$p" "$2/patches/$p"
		printf '%s\n' "$p" >> "$2/patches/series"
	done
}

# release_mark TREE: the uname -r suffix of that tree.  It goes into a
# localversion file of the build folder (scripts/setlocalversion reads
# $objtree/localversion*), not into CONFIG_LOCALVERSION: the .config and so
# include/generated/autoconf.h of the baseline and the patched tree stay
# identical, and the second tree compiles from ccache's direct-mode hits.
# The package builds (ci/package) mark their release the same way.
# The patched mark says which posting: -vsockrx2 for v2 of the series;
# -vsockrx2p3 for its patches 1 to 3 (ci/prepare --patches 3).
release_mark()
{
	case "$1" in
	patched) echo "-vsockrx$(series_version)" ;;
	patched-*) echo "-vsockrx$(series_version)p${1#patched-}" ;;
	*) echo "-rxbase" ;;
	esac
}

# series_version: the version of the posting in patches/upstream/ (the N
# of "[PATCH net-next vN 1/5]"; 1 when the subject carries none).
series_version()
{
	local v=
	v=$(sed -n 's/^Subject: \[PATCH[^]]* v\([0-9][0-9]*\) [0-9]*\/[0-9]*\].*/\1/p' \
		"$RXKIT_TOP"/patches/upstream/0001-*.patch | head -n 1)
	printf '%s\n' "${v:-1}"
}

# kit_version: the newest version CHANGELOG records.
kit_version()
{
	sed -n 's/^\([0-9][0-9.]*\) (.*/\1/p' "$RXKIT_TOP/CHANGELOG" | head -n 1
}
