# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/inputs.sh, sourced by ci/package: the inputs of the source
# packages besides the series, the prepared tree of the configuration
# (ci/prepare's) and the pinned tarball (ci/fetch's), checked.
#
# Reads target, tree.  Sets src (the tree), tb (the tarball), topdir (its
# top-level folder).
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

# pkg_inputs: src, tb and topdir, or die naming the stage to run.
pkg_inputs()
{
	local fsha f
	src="$(src_root "$target")/$tree"
	[ -d "$src" ] || die "no $tree tree of $target; run: ci/prepare $target"
	fsha=$(sed -n 's/^sha256=//p' "$(src_root "$target")/FETCHED")
	tb=$(sed -n 's/^tarball=//p' "$(src_root "$target")/FETCHED")
	if [ -z "$tb" ] || [ ! -f "$tb" ]; then
		# A cache from before ci/fetch recorded the tarball: the download
		# folder's tarball of that SHA-256.
		tb=
		for f in "$RXKIT_CACHE"/dl/*.tar.*; do
			[ -f "$f" ] && [ "$(sha256_of "$f")" = "$fsha" ] && { tb=$f; break; }
		done
		[ -n "$tb" ] || die "the tarball of $target (SHA-256 $fsha) is not in $RXKIT_CACHE/dl; run: ci/fetch $target"
	fi
	[ "$(sha256_of "$tb")" = "$fsha" ] || die "$tb does not match the fetched SHA-256 $fsha; run: ci/fetch $target"
	case "$tb" in
	*.tar.xz) ;;
	*) die "$tb: the source packages take an .tar.xz tarball" ;;
	esac
	topdir=$(tar -tf "$tb" 2>/dev/null | head -n 1 | cut -d/ -f1)
	case "$topdir" in
	''|.|..) die "$tb has no single top-level folder" ;;
	esac
}
