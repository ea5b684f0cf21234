#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_rebuild.sh: the package tests that build the packages
# again (make check-full and make packages run them, make check does not):
# once more from the same sources, and twice compiling the kernel anew,
# none of it from ccache.  KTAP on stdout; exit 0 (all passed or
# skipped), 1 (a failure).
#
# reproducible: a second package build is byte-identical to the first.
# revision: ci/package's revision 2; upgrade: from revision 1 to it through
# the kit's repository (tests/lib/packages_upgrade.sh).
# deb_dbg: the -dbg package of a configuration with debug info, linted.
# deb_clean_build: Build-Depends complete (a buildd-like clean root).  Both
# need the packages of this tree (tests/lib/packages.sh, need_packages):
# deb_clean_build compares its .debs with them, and both SKIP when they
# cannot be built.
set -eu
PROG=packages_rebuild
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="reproducible revision upgrade deb_dbg deb_clean_build"
readonly TEST_DESCS="a second package build from the same sources is byte-identical, source packages too:\
ci/package at revision 2 (RXKIT_PKG_REVISION) makes the same packages but for the version's revision:\
revision 1 from ci/repo installed through the metapackages, revision 2 published, apt and dnf upgrade, revision 1 stays installable:\
a configuration with debug info adds a linted -dbg package of unstripped vmlinux and modules:\
the source package builds in a clean buildd-like root from its Build-Depends, the kit's files"

usage()
{
	cat <<USAGE
usage: tests/packages_rebuild.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The package tests of the patched guest kernel of TARGET (default:
$RXKIT_TARGET; ci/build must have built it) that compile it in full (-l
lists them; -t NAME runs NAME, -T NAME leaves it out; each may repeat;
they run in the order -l lists).
Artefacts (logs, lint report): \$RXKIT_OUT/TARGET/packages-test/
Environment: RXKIT_PKG_TMP (ci/package's staging folder).
USAGE
}

pkg_setup "$@"
# After pkg_setup: its EXIT trap (repo_cleanup) needs work.
. "$RXKIT_TOP/tests/lib/packages_repo.sh"
. "$RXKIT_TOP/tests/lib/packages_upgrade.sh"
pkg_need_kernel
pkg_need_root
need dnf dnf
need createrepo_c createrepo-c
need chroot coreutils
need readelf binutils
pkg_art_clean package-1-out2.log package-2-out3.log package-1-out-dbg.log lintian-dbg.txt mkrootfs-buildd.log clean-build.log \
	upgrade standin-rpmbuild.log
broot="$work/buildd-root"

in_broot() { chroot "$broot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# Two builds from the same sources, in the same staging folder:
# byte-identical source and binary packages (the second build's compiles
# are ccache hits: the time is the packaging).
test_reproducible()
{
	local rc=0 s f g
	need_packages || return $?
	pkg 1 "$work/out2" --no-lint || return "$KSFT_FAIL"
	s="$RXKIT_OUT/$target/source"
	for f in "$deb" "$hdeb" "$rpmf" "$drpm" "$s/linux-rxkit_$rel-1.dsc" \
		 "$s/linux-rxkit_$rel-1.debian.tar.xz" "$s/rpm/$rpm_name.spec"; do
		case "$f" in
		*/source/rpm/*) g="$work/out2/$target/source/rpm/${f##*/}" ;;
		*/source/*) g="$work/out2/$target/source/${f##*/}" ;;
		*) g="$work/out2/$target/packages/${f##*/}" ;;
		esac
		if cmp -s "$f" "$g"; then
			echo "# ${f##*/}: identical ($(sha256_of "$f" | cut -c1-16))"
		else
			echo "# ${f##*/}: differs between two builds"
			rc=1
		fi
	done
	sed -n 's/^[a-z]*: ccache/# second build: ccache/p' "$art/package-1-out2.log"
	return "$rc"
}

# A configuration with debug info adds linux-image-REL-dbg: vmlinux and the
# unstripped modules under /usr/lib/debug, while linux-image's modules stay
# stripped.  The guest configuration with DWARF: no ccache hits, a full
# compile.
# ci/package's revision 2: the image and headers packages hold the same
# files, their control fields but Version are the same, and Version ends
# in -2 (tests/packages_deb.sh's upgrade installs such a package).
test_revision()
{
	local rc=0 f g k
	need_packages || return $?
	pkg 2 "$work/out3" --no-lint || return "$KSFT_FAIL"
	for k in image headers; do
		f=$(pkg_file "$RXKIT_OUT" 1 "$k") g=$(pkg_file "$work/out3" 2 "$k")
		[ -f "$g" ] || { echo "# no ${g##*/}"; rc=1; continue; }
		dpkg-deb -c "$f" | awk '{ print $1, $2, $NF }' > "$work/c1"
		dpkg-deb -c "$g" | awk '{ print $1, $2, $NF }' > "$work/c2"
		diff "$work/c1" "$work/c2" > "$work/cdiff" ||
			{ echo "# ${g##*/}: its files differ:"; head -n 10 "$work/cdiff" | sed 's/^/#   /'; rc=1; }
		dpkg-deb -f "$f" | grep -v '^Version:\|^Installed-Size:' > "$work/f1"
		dpkg-deb -f "$g" | grep -v '^Version:\|^Installed-Size:' > "$work/f2"
		diff "$work/f1" "$work/f2" > "$work/fdiff" ||
			{ echo "# ${g##*/}: its control fields differ:"; sed 's/^/#   /' "$work/fdiff"; rc=1; }
		case "$(dpkg-deb -f "$g" Version)" in
		*-2) echo "# ${g##*/}: $(wc -l < "$work/c2") files, version $(dpkg-deb -f "$g" Version)" ;;
		*) echo "# ${g##*/}: version $(dpkg-deb -f "$g" Version)"; rc=1 ;;
		esac
	done
	[ "$rc" = 0 ] || return "$KSFT_FAIL"
}

test_deb_dbg()
{
	local c p img dbg rc=0 v n=0 k l
	need_packages || return $?
	c="$work/config-dbg"
	sed -e 's/^CONFIG_DEBUG_INFO_NONE=y$/# CONFIG_DEBUG_INFO_NONE is not set/' \
	    -e 's/^# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set$/CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y/' \
		"$o/.config" > "$c"
	grep -qx 'CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y' "$c" ||
		{ echo "# $o/.config has no DEBUG_INFO choice to switch"; return "$KSFT_FAIL"; }
	pkg 1 "$work/out-dbg" --format deb --config "$c" || return "$KSFT_FAIL"
	p="$work/out-dbg/$target/packages"
	img=$(pkg_file "$work/out-dbg" 1 image)
	dbg="$p/linux-image-$rel-dbg_$rel-1_amd64.deb"
	[ -f "$img" ] && [ -f "$dbg" ] ||
		{ echo "# no linux-image-$rel and -dbg packages:"; ls "$p" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
	echo "# ${dbg##*/}: $(( $(wc -c < "$dbg") / 1024 )) KiB"
	rm -rf "$work/dbg" "$work/img"
	dpkg-deb -x "$dbg" "$work/dbg"
	dpkg-deb -x "$img" "$work/img"
	v="$work/dbg/usr/lib/debug/boot/vmlinux-$rel"
	[ -f "$v" ] || { echo "# no /usr/lib/debug/boot/vmlinux-$rel"; return "$KSFT_FAIL"; }
	readelf -S "$v" | grep -q '\.debug_info' || { echo "# vmlinux-$rel has no .debug_info"; rc=$KSFT_FAIL; }
	for k in $(cd "$work/img" && find lib/modules -name '*.ko'); do
		n=$((n + 1))
		[ -f "$work/dbg/usr/lib/debug/$k" ] || { echo "# no debug copy of $k"; rc=$KSFT_FAIL; continue; }
		readelf -S "$work/dbg/usr/lib/debug/$k" | grep -q '\.debug_info' ||
			{ echo "# /usr/lib/debug/$k has no .debug_info"; rc=$KSFT_FAIL; }
		! readelf -S "$work/img/$k" | grep -q '\.debug_info' ||
			{ echo "# linux-image's $k is not stripped"; rc=$KSFT_FAIL; }
	done
	[ "$n" -gt 0 ] || { echo "# linux-image has no modules to compare"; rc=$KSFT_FAIL; }
	echo "# vmlinux with .debug_info, $n modules: unstripped in -dbg, stripped in linux-image"
	# lintian --pedantic of the three .debs (ci/package's lint).
	cp "$p/lintian.txt" "$art/lintian-dbg.txt" 2>/dev/null || :
	l=$(tail -n 1 "$art/lintian-dbg.txt" 2>/dev/null)
	echo "# lintian of linux-image, -dbg and linux-headers: $l ($(grep -c "^[EWIPX]: linux-image-$rel-dbg" "$art/lintian-dbg.txt" || true) tags on -dbg; $art/lintian-dbg.txt)"
	[ "$l" = "exit 0" ] || { grep '^[EW]: ' "$art/lintian-dbg.txt" | head -n 10 | sed 's/^/#   /'; rc=$KSFT_FAIL; }
	return "$rc"
}

# Build-Depends complete: the source package builds as on a buildd, in a
# clean Debian root (images/mkrootfs --buildd: build-essential only) that
# gets what apt-get build-dep reads from the .dsc and nothing else, as an
# unprivileged user (Rules-Requires-Root: no), with plain gcc (no ccache:
# a full compile).  Its .debs must hold the same files as the kit's.
test_deb_clean_build()
{
	local dsc t f log s rc=0 k b
	need_packages || return $?
	dsc="$RXKIT_OUT/$target/source/linux-rxkit_$rel-1.dsc"
	[ -f "$dsc" ] || { echo "# no ${dsc##*/} in $RXKIT_OUT/$target/source"; return "$KSFT_FAIL"; }
	t=$(rootfs "$art/mkrootfs-buildd.log" --buildd) || return "$KSFT_FAIL"
	mkdir -p "$broot/build"
	tar -C "$broot" -xf "$t"
	mount -t proc proc "$broot/proc"
	cp /etc/resolv.conf "$broot/etc/resolv.conf"
	# The .dsc and the files its Files: field names.
	for f in "${dsc##*/}" $(awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 } f { print $3 }' "$dsc"); do
		cp "${dsc%/*}/$f" "$broot/build/" || return "$KSFT_FAIL"
	done
	log="$art/clean-build.log"
	{
		in_broot apt-get update &&
		in_broot apt-get build-dep -y --no-install-recommends "/build/${dsc##*/}" &&
		in_broot useradd -m rxbuild && in_broot chown -R rxbuild: /build
	} > "$log" 2>&1 || { tail -n 20 "$log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	echo "# build-dep: $(grep -c '^Setting up ' "$log") packages installed over build-essential"
	s=$(date +%s)
	chroot --userspec=rxbuild:rxbuild "$broot" /usr/bin/env -i HOME=/home/rxbuild \
		PATH=/usr/bin:/bin DEB_BUILD_OPTIONS="parallel=$(nproc)" sh -c \
		"cd /build && dpkg-source -x ${dsc##*/} src && cd src && dpkg-buildpackage -b -uc -us" \
		>> "$log" 2>&1 || { tail -n 20 "$log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	echo "# dpkg-buildpackage -b as rxbuild in the clean root: $(( $(date +%s) - s )) s (log: $log)"
	for k in "$deb" "$hdeb"; do
		b="$broot/build/${k##*/}"
		[ -f "$b" ] || { echo "# the clean build made no ${k##*/}"; rc=$KSFT_FAIL; continue; }
		dpkg-deb -c "$k" | awk '{ print $1, $6 }' | sort > "$work/files.kit"
		dpkg-deb -c "$b" | awk '{ print $1, $6 }' | sort > "$work/files.clean"
		if cmp -s "$work/files.kit" "$work/files.clean"; then
			echo "# ${k##*/}: $(wc -l < "$work/files.kit") files, the same as the kit's build"
		else
			echo "# ${k##*/} differs from the kit's build (mode and path):"
			diff "$work/files.kit" "$work/files.clean" | head -n 10 | sed 's/^/#   /'
			rc=$KSFT_FAIL
		fi
	done
	umount "$broot/proc"
	rm -rf "$broot"
	return "$rc"
}

pkg_run
