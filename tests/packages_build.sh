#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_build.sh: the package build of ci/package.  KTAP on stdout;
# exit 0 (all passed or skipped), 1 (a failure).
#
# ci/package makes the Debian source package (dpkg-source) and the spec,
# and builds both from source through ci/build's ccache: the compiles are
# ccache hits, and the packaged kernel is ci/build's image byte for byte.
# The source packages hold the pinned tarball and the series as they are
# (two builds are identical: tests/packages_rebuild.sh, make check-full).
# The packages this suite builds
# are those the Debian and RPM suites (tests/packages_deb.sh,
# tests/packages_rpm.sh) install, when they are newer than the kernel.
set -eu
PROG=packages_build
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="build source ccache"
readonly TEST_DESCS="the packages build from source and lint clean, their kernel image ci/build's byte for byte:\
the source packages hold the pinned tarball and series/TARGET as they are:\
each package build got ci/build's compiles from ccache (at most 3 % missed)"

usage()
{
	cat <<USAGE
usage: tests/packages_build.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The package build of the patched guest kernel of TARGET (default:
$RXKIT_TARGET; ci/build must have built it) and its tests (-l lists them;
-t NAME runs NAME, -T NAME leaves it out; each may repeat; they run in the
order -l lists).
Packages and source packages: \$RXKIT_OUT/TARGET/{packages,source}/
Artefacts (build logs): \$RXKIT_OUT/TARGET/packages-test/
Environment: RXKIT_PKG_TMP (ci/package's staging folder).
USAGE
}

pkg_setup "$@"
pkg_need_kernel
pkg_art_clean "package-1-${RXKIT_OUT##*/}.log"

# The packages of make run, built from source and linted, in
# $RXKIT_OUT/TARGET/{source,packages}: always built here, whatever an
# earlier run left there.
test_build()
{
	local t0 f l
	t0=$(date +%s)
	pkg_build || return "$KSFT_FAIL"
	l="$art/package-1-${RXKIT_OUT##*/}.log"
	for f in "$deb" "$hdeb" "$rpmf" "$drpm"; do
		echo "# ${f##*/}: $(( $(wc -c < "$f") / 1024 )) KiB"
	done
	sed -n 's/^[a-z]*: ccache/# ccache/p' "$l"
	echo "# built from source and linted in $(( $(date +%s) - t0 )) s (log: $l)"
	# ci/package compared the image it packaged with its ci/build's ...
	grep -q "the packaged kernel image is ci/build's .*, byte for byte" "$l" ||
		{ echo "# ci/package did not compare the packaged image with ci/build's"; return "$KSFT_FAIL"; }
	# ... and the kernel the guest suites here booted is the packaged one.
	same_image deb "$deb" && same_image rpm "$rpmf" || return "$KSFT_FAIL"
	echo "# the kernel image of both packages is ci/build's bzImage ($kernel), byte for byte"
}

# same_image deb|rpm PACKAGE: its kernel image is $kernel: the .deb's
# /boot/vmlinuz-REL, the .rpm's /lib/modules/REL/vmlinuz (its /boot file is
# a %ghost that %post fills, as in the kernel's own kernel.spec).
same_image()
{
	local x="$work/vmlinuz.$1" f
	case "$1" in
	deb) f=./boot/vmlinuz-$rel
	     dpkg-deb --fsys-tarfile "$2" | tar -xOf - "$f" > "$x" ;;
	rpm) f=./lib/modules/$rel/vmlinuz
	     rpm2cpio "$2" | cpio -i --quiet --to-stdout "$f" > "$x" ;;
	esac
	cmp -s "$x" "$kernel" || { echo "# ${2##*/}: its ${f#.} is not $kernel"; return 1; }
}

# The source packages: the pinned tarball as it is, the series as it is.
test_source()
{
	local s dsc fsha rc=0 x p spec src0
	need_packages || return $?
	s="$RXKIT_OUT/$target/source"
	dsc="$s/linux-rxkit_$rel-1.dsc"
	fsha=$(sed -n 's/^sha256=//p' "$(src_root "$target")/FETCHED")
	[ -f "$dsc" ] || { echo "# no ${dsc##*/}"; return "$KSFT_FAIL"; }
	grep -q "^ $fsha [0-9]* linux-rxkit_$rel.orig.tar.xz\$" "$dsc" ||
		{ echo "# ${dsc##*/} does not name the pinned tarball (SHA-256 $fsha)"; rc=1; }
	grep -qx 'Format: 3.0 (quilt)' "$dsc" || { echo "# ${dsc##*/} is not 3.0 (quilt)"; rc=1; }
	x="$work/dsc-debian"
	rm -rf "$x"
	mkdir -p "$x"
	tar -xf "$s/linux-rxkit_$rel-1.debian.tar.xz" -C "$x"
	series_patches "$RXKIT_TOP/series/$target" > "$work/series.want"
	cmp -s "$work/series.want" "$x/debian/patches/series" ||
		{ echo "# debian/patches/series is not series/$target/series"; rc=1; }
	for p in $(cat "$work/series.want"); do
		cmp -s "$RXKIT_TOP/series/$target/$p" "$x/debian/patches/$p" || { echo "# debian/patches/$p differs"; rc=1; }
		cmp -s "$RXKIT_TOP/series/$target/$p" "$s/rpm/SOURCES/$p" || { echo "# rpm SOURCES/$p differs"; rc=1; }
	done
	spec="$s/rpm/$rpm_name.spec"
	[ "$(grep -c '^Patch[0-9]*:' "$spec")" = "$(wc -l < "$work/series.want")" ] ||
		{ echo "# ${spec##*/} lists $(grep -c '^Patch[0-9]*:' "$spec") patches"; rc=1; }
	src0=$(sed -n 's/^Source0:[[:space:]]*//p' "$spec")
	[ "$(sha256_of "$s/rpm/SOURCES/$src0")" = "$fsha" ] ||
		{ echo "# Source0 $src0 is not the pinned tarball"; rc=1; }
	echo "# ${dsc##*/}: orig = pinned tarball, debian/patches = series/$target ($(wc -l < "$work/series.want") patches); ${spec##*/}: Source0 $src0"
	return "$rc"
}

# One compile, not three: each package build got ci/build's compiles from
# ccache (ci/package counts them per build from ccache's stats log; the
# calls ccache never caches, compiler probes and links, are apart).
test_ccache()
{
	local c rc=0 l
	need_packages || return $?
	c="$RXKIT_OUT/$target/packages/ccache.txt"
	[ "$(grep -c '^ccache: ' "$c" 2>/dev/null)" = 2 ] || { echo "# no ccache counts of two builds in $c"; return "$KSFT_FAIL"; }
	while read -r l; do
		echo "# $l"
		# shellcheck disable=SC2046
		set -- $(echo "$l" | sed 's/^ccache: \([0-9]*\) hits, \([0-9]*\) misses.*/\1 \2/')
		# Near 100 %: at most 3 % of the cacheable compiles miss (the
		# files that missed are listed in ccache.txt).
		[ "$1" -gt 0 ] && [ $(( $2 * 100 )) -le $(( ($1 + $2) * 3 )) ] || rc=1
	done <<EOF
$(grep '^ccache: ' "$c")
EOF
	grep '^  missed: ' "$c" | cut -c1-300 | sed 's/^ */# /'
	return "$rc"
}

pkg_run
