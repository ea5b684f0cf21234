# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/selftests.sh: the kit's own kernel selftests of a target
# (series/TARGET/selftests/*.patch, the selftest of the kit's fix that
# make mail posts beside it) applied to a view of a tree: a symlink farm
# (images/mkbpftests) or a scratch copy (images/waits).  Sourced after
# ci/lib.sh.

# selftest_patches TARGET: the patches, in order, one a line.
selftest_patches()
{
	local p=
	for p in "$RXKIT_TOP/series/$1/selftests/"*.patch; do
		[ ! -f "$p" ] || printf '%s\n' "$p"
	done
}

# selftest_files TARGET: the files the patches change, one a line.
selftest_files()
{
	selftest_patches "$1" | while read -r p; do
		sed -n 's/^+++ b\/\([^	]*\).*/\1/p' "$p"
	done | sort -u
}

# apply_selftests TARGET DIR: each patch onto DIR with zero fuzz and no
# offset, as ci/prepare applies the series.  A file of DIR that is a
# symbolic link becomes a copy of what it points to first: the tree it
# points into is not written.
apply_selftests()
{
	local p= f= log=
	for f in $(selftest_files "$1"); do
		[ ! -L "$2/$f" ] || cp --remove-destination "$(readlink -f "$2/$f")" "$2/$f" ||
			die "cannot copy $2/$f for the kit's selftests"
	done
	for p in $(selftest_patches "$1"); do
		log=$(patch -d "$2" -p1 --fuzz=0 --no-backup-if-mismatch -f < "$p" 2>&1) &&
			! printf '%s\n' "$log" | grep -q 'offset' || {
			printf '%s\n' "$log" | sed 's/^/  /' >&2
			die "${p#"$RXKIT_TOP"/} does not apply to $1's tree with zero fuzz and no offset; run: refresh it against ci/prepare $1's tree"
		}
	done
}
