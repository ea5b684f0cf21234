#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages.sh: the source packages of ci/srcpkg, the .deb and .rpm
# packages built from them, installed, booted, upgraded and removed as a
# user would.  KTAP on stdout.
#
# Build: ci/srcpkg makes the Debian source package (dpkg-source) and the
# spec, and builds both from source through ci/build's ccache: the compiles
# are ccache hits, and the packaged kernel is ci/build's image byte for
# byte.  A series that applies only with fuzz or an offset fails both.
# DEB: a minimal Debian root (tests/mkrootfs: debootstrap) gets
# linux-image-REL and linux-headers-REL with dpkg in a chroot, so their
# maintainer scripts and the /etc/kernel hooks run there (depmod,
# initramfs-tools, linux-update-symlinks); the root boots in QEMU with the
# installed kernel and initrd; a module builds against the installed headers; a rebuilt package
# with a higher revision upgrades it; purge leaves nothing behind.
# RPM: rpm --root into another copy of that root, with the scriptlets
# (they run in the root's /bin/sh: %post's depmod, and kernel-install,
# here a recording stub), rpm -V, the installed kernel boots, a module
# builds against -devel inside the root, rpm -e runs %preun and leaves
# nothing behind.  Both: lintian / rpmlint clean (overrides and filters
# carry their reasons), and two package builds are identical.
# deb_dbg: the -dbg package of a configuration with debug info, linted.
# deb_clean_build: Build-Depends complete (a buildd-like clean root).
set -eu
PROG=packages
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="build source ccache lintian rpmlint reproducible deb_install deb_extmod \
deb_boot deb_upgrade deb_purge rpm_install rpm_verify rpm_extmod rpm_boot rpm_erase \
deb_fuzz_refused deb_offset_refused rpm_fuzz_refused rpm_offset_refused deb_dbg \
deb_clean_build"
readonly TESTS="${RXKIT_PACKAGE_TESTS:-$ALL_TESTS}"

usage()
{
	cat <<USAGE
usage: tests/packages.sh [TARGET]

Package tests of the patched guest kernel of TARGET (default: $RXKIT_TARGET;
ci/build must have built it, ci/srcpkg builds the packages from source):
$(for t in $ALL_TESTS; do echo "  $t"; done)
Artefacts (packages, lint reports, logs): \$RXKIT_OUT/TARGET/packages-test/
Environment: RXKIT_PACKAGE_TESTS="NAME..." (a subset, in this order).
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
-*) usage >&2; die "unknown option '$1'" ;;
esac
target=${1:-$RXKIT_TARGET}
load_base "$target"
check_subset RXKIT_PACKAGE_TESTS
[ "$(id -u)" = 0 ] || die "the package tests need root (chroot, dpkg --root)"
need lintian lintian
need rpmlint rpmlint
need chroot coreutils
need readelf binutils
need cpio cpio
need "$QEMU" qemu-system-x86

o="$(src_root "$target")/patched/o-guest"
[ -f "$o/include/config/kernel.release" ] || die "no built patched kernel of $target; run: ci/build --tree patched $target"
rel=$(cat "$o/include/config/kernel.release")
art="$(out_dir "$target")/packages-test"
rm -rf "$art"
mkdir -p "$art"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rxkit-packages.XXXXXX")
# Every package build of this run stages in the same folder (the
# reproducible test compares two of them).
RXKIT_PKG_TMP=$(pkg_tmp)
export RXKIT_PKG_TMP
droot="$work/deb-root"
rroot="$work/rpm-root"
broot="$work/buildd-root"
cleanup()
{
	for m in "$droot/proc" "$droot/sys" "$droot/dev" "$rroot/proc" "$broot/proc"; do
		! mountpoint -q "$m" 2>/dev/null || umount -l "$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# pkg REVISION OUT [OPTION...]: ci/srcpkg into OUT (an RXKIT_OUT); sets
# deb, hdeb, rpmf, drpm (those of the formats built).
pkg()
{
	_rev=$1 _out=$2
	shift 2
	RXKIT_OUT=$_out RXKIT_PKG_REVISION=$_rev "$RXKIT_TOP/ci/srcpkg" "$@" "$target" \
		> "$art/package-$_rev-${_out##*/}.log" 2>&1 ||
		{ tail -n 20 "$art/package-$_rev-${_out##*/}.log" | sed 's/^/# /'; return 1; }
	_p="$_out/$target/packages"
	# Only the formats built: deb_upgrade's --format deb keeps the .rpms.
	_x=$(ls "$_p"/linux-image-"$rel"_*-"$_rev"_amd64.deb 2>/dev/null) && deb=$_x
	_x=$(ls "$_p"/linux-headers-"$rel"_*-"$_rev"_amd64.deb 2>/dev/null) && hdeb=$_x
	_x=$(ls "$_p"/kernel-*-"$_rev".x86_64.rpm 2>/dev/null | grep -v -- '-devel-') && rpmf=$_x
	_x=$(ls "$_p"/kernel-*-devel-*-"$_rev".x86_64.rpm 2>/dev/null) && drpm=$_x
	return 0
}

in_root() { chroot "$droot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_broot() { chroot "$broot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# extmod ROOT TREE [CHROOT]: build a one-file module against ROOT/TREE (the
# installed headers; the build link of /lib/modules/REL must lead there),
# inside ROOT with its own make and gcc when CHROOT is given, else with the
# host's.
extmod()
{
	_l=$(readlink "$1/lib/modules/$rel/build") || { echo "# no /lib/modules/$rel/build link"; return 1; }
	[ "$_l" = "$2" ] || { echo "# build link points to $_l, not $2"; return 1; }
	_m="$1/tmp/rxkit-extmod"
	mkdir -p "$_m"
	cat > "$_m/rxkit_hello.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/vm_sockets.h>

static int __init rxkit_hello_init(void)
{
	pr_info("rxkit_hello: VMADDR_CID_HOST is %u\n", VMADDR_CID_HOST);
	return 0;
}
module_init(rxkit_hello_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vsock-rxkit external module build test");
EOF
	echo 'obj-m := rxkit_hello.o' > "$_m/Makefile"
	_log="$art/extmod-${1##*/}.log"
	if [ -n "${3:-}" ]; then
		chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			make -C "/lib/modules/$rel/build" M=/tmp/rxkit-extmod modules > "$_log" 2>&1
	else
		make -C "$1$2" M="$_m" modules > "$_log" 2>&1
	fi || { tail -n 15 "$_log" | sed 's/^/# /'; return 1; }
	_v=$(modinfo -F vermagic "$_m/rxkit_hello.ko")
	echo "# rxkit_hello.ko built against $2${3:+ inside the root (its gcc: $(chroot "$1" gcc -dumpfullversion))}: vermagic $_v"
	rm -rf "$_m"
	case "$_v" in
	"$rel "*) ;;
	*) echo "# vermagic is not that of $rel"; return 1 ;;
	esac
}

# boot ROOT: the installed /boot/vmlinuz-REL with the kit's test initramfs
# (rpm_boot: the issue asks for that there);
# uname -r must be REL and vsock_diag_test must pass over loopback.
boot()
{
	_k="$1/boot/vmlinuz-$rel"
	[ -f "$_k" ] || { echo "# $_k missing"; return 1; }
	_i=$(ensure_initramfs "$(src_root "$target")/patched" "$o")
	_a=$(pick_accel "$_k" "$_i" "$art/accel-probe")
	for _j in probe vsock_diag_test_loopback; do
		_d="$art/boot-${1##*/}/$_j"
		_rc=0
		guest_run "$_d" "$_k" "$_i" "$_j" "$_a" || _rc=$?
		guest_verdict "$_j" "$_d" "$_rc" "$JOB_TIMEOUT" || return 1
	done
	_u=$(sed -n 's/^RXKIT: init //p' "$art/boot-${1##*/}/probe/results.log" | tr -d '\r')
	echo "# booted the installed kernel: uname -r $_u ($_a)"
	[ "$_u" = "$rel" ]
}

# The packages of make run / make check, built from source and linted, in
# $RXKIT_OUT/TARGET/{source,packages}.
test_build()
{
	_t0=$(date +%s)
	pkg 1 "$RXKIT_OUT" || return "$KSFT_FAIL"
	for f in "$deb" "$hdeb" "$rpmf" "$drpm"; do
		[ -f "$f" ] || { echo "# a package is missing: '$f'"; return "$KSFT_FAIL"; }
		echo "# ${f##*/}: $(( $(wc -c < "$f") / 1024 )) KiB"
	done
	_l="$art/package-1-${RXKIT_OUT##*/}.log"
	sed -n 's/^srcpkg: ccache/# ccache/p' "$_l"
	echo "# built from source and linted in $(( $(date +%s) - _t0 )) s (log: $_l)"
	# The kernel ci/build built and the guest tests booted is the packaged one.
	grep -q "the packaged kernel image is ci/build's .*, byte for byte" "$_l" ||
		{ echo "# ci/srcpkg did not compare the packaged image with ci/build's"; return "$KSFT_FAIL"; }
	echo "# the packaged vmlinuz is ci/build's bzImage, byte for byte"
}

# The source packages: the pinned tarball as it is, the series as it is.
test_source()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_s="$RXKIT_OUT/$target/source"
	_dsc="$_s/linux-rxkit_$rel-1.dsc"
	_fsha=$(sed -n 's/^sha256=//p' "$(src_root "$target")/FETCHED")
	_rc=0
	[ -f "$_dsc" ] || { echo "# no ${_dsc##*/}"; return "$KSFT_FAIL"; }
	grep -q "^ $_fsha [0-9]* linux-rxkit_$rel.orig.tar.xz\$" "$_dsc" ||
		{ echo "# ${_dsc##*/} does not name the pinned tarball (SHA-256 $_fsha)"; _rc=1; }
	grep -qx 'Format: 3.0 (quilt)' "$_dsc" || { echo "# ${_dsc##*/} is not 3.0 (quilt)"; _rc=1; }
	_x="$work/dsc-debian"
	mkdir -p "$_x"
	tar -xf "$_s/linux-rxkit_$rel-1.debian.tar.xz" -C "$_x"
	series_patches "$RXKIT_TOP/series/$target" > "$work/series.want"
	cmp -s "$work/series.want" "$_x/debian/patches/series" ||
		{ echo "# debian/patches/series is not series/$target/series"; _rc=1; }
	for p in $(cat "$work/series.want"); do
		cmp -s "$RXKIT_TOP/series/$target/$p" "$_x/debian/patches/$p" || { echo "# debian/patches/$p differs"; _rc=1; }
		cmp -s "$RXKIT_TOP/series/$target/$p" "$_s/rpm/SOURCES/$p" || { echo "# rpm SOURCES/$p differs"; _rc=1; }
	done
	_spec=$(ls "$_s"/rpm/*.spec)
	[ "$(grep -c '^Patch[0-9]*:' "$_spec")" = "$(wc -l < "$work/series.want")" ] ||
		{ echo "# ${_spec##*/} lists $(grep -c '^Patch[0-9]*:' "$_spec") patches"; _rc=1; }
	_src0=$(sed -n 's/^Source0:[[:space:]]*//p' "$_spec")
	[ "$(sha256_of "$_s/rpm/SOURCES/$_src0")" = "$_fsha" ] ||
		{ echo "# Source0 $_src0 is not the pinned tarball"; _rc=1; }
	echo "# ${_dsc##*/}: orig = pinned tarball, debian/patches = series/$target ($(wc -l < "$work/series.want") patches); ${_spec##*/}: Source0 $_src0"
	return "$_rc"
}

# One compile, not three: each package build got ci/build's compiles from
# ccache (ci/srcpkg counts them per build from ccache's stats log; the
# calls ccache never caches, compiler probes and links, are apart).
test_ccache()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_c="$RXKIT_OUT/$target/packages/ccache.txt"
	[ "$(grep -c '^ccache: ' "$_c" 2>/dev/null)" = 2 ] || { echo "# no ccache counts of two builds in $_c"; return "$KSFT_FAIL"; }
	_rc=0
	while read -r _l; do
		echo "# $_l"
		set -- $(echo "$_l" | sed 's/^ccache: \([0-9]*\) hits, \([0-9]*\) misses.*/\1 \2/')
		# Near 100 %: at most 3 % of the cacheable compiles miss (the
		# files that missed are listed in ccache.txt).
		[ "$1" -gt 0 ] && [ $(( $2 * 100 )) -le $(( ($1 + $2) * 3 )) ] || _rc=1
	done <<EOF
$(grep '^ccache: ' "$_c")
EOF
	grep '^  missed: ' "$_c" | cut -c1-300 | sed 's/^ */# /'

	return "$_rc"
}

# lint REPORT: ci/package's report (lintian.txt, rpmlint.txt) says exit 0.
lint()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_r="$RXKIT_OUT/$target/packages/$1"
	cp "$_r" "$art/"
	tail -n 30 "$_r" | sed 's/^/# /'
	[ "$(tail -n 1 "$_r")" = "exit 0" ]
}

test_lintian() { lint lintian.txt; }
test_rpmlint() { lint rpmlint.txt; }

# Two builds from the same sources: byte-identical source and binary packages.
test_reproducible()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_first="$deb $hdeb $rpmf $drpm"
	# A subshell: the run's own packages stay in deb, hdeb, rpmf, drpm.
	(pkg 1 "$work/out2" --no-lint) || return "$KSFT_FAIL"
	_rc=0
	_s="$RXKIT_OUT/$target/source"
	for f in $_first "$_s/linux-rxkit_$rel-1.dsc" "$_s/linux-rxkit_$rel-1.debian.tar.xz" "$(ls "$_s"/rpm/*.spec)"; do
		case "$f" in
		*/source/rpm/*) _g="$work/out2/$target/source/rpm/${f##*/}" ;;
		*/source/*) _g="$work/out2/$target/source/${f##*/}" ;;
		*) _g="$work/out2/$target/packages/${f##*/}" ;;
		esac
		if cmp -s "$f" "$_g"; then
			echo "# ${f##*/}: identical ($(sha256_of "$f" | cut -c1-16))"
		else
			echo "# ${f##*/}: differs between two builds"
			_rc=1
		fi
	done
	sed -n 's/^srcpkg: ccache/# second build: ccache/p' "$art/package-1-out2.log"
	return "$_rc"
}

test_deb_install()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_t=$("$RXKIT_TOP/tests/mkrootfs" 2> "$art/mkrootfs.log") ||
		{ sed 's/^/# /' "$art/mkrootfs.log"; return "$KSFT_FAIL"; }
	mkdir -p "$droot"
	tar -C "$droot" -xf "$_t"
	mount -t proc proc "$droot/proc"
	cp "$deb" "$hdeb" "$droot/tmp/"
	in_root dpkg -i "/tmp/${deb##*/}" "/tmp/${hdeb##*/}" > "$art/deb-install.log" 2>&1 ||
		{ tail -n 20 "$art/deb-install.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	sed 's/^/# dpkg: /' "$art/deb-install.log" | tail -n 12
	_rc=0
	for f in "boot/vmlinuz-$rel" "boot/initrd.img-$rel" "lib/modules/$rel/modules.dep" \
		 "lib/modules/$rel/modules.dep.bin" "usr/src/linux-headers-$rel/Module.symvers"; do
		[ -f "$droot/$f" ] || { echo "# /$f missing after install"; _rc=1; }
	done
	[ "$(readlink "$droot/vmlinuz")" = "boot/vmlinuz-$rel" ] ||
		{ echo "# /vmlinuz is '$(readlink "$droot/vmlinuz")' (linux-update-symlinks did not run)"; _rc=1; }
	[ ! -e "$droot/lib/modules/$rel/.fresh-install" ] || { echo "# .fresh-install left behind"; _rc=1; }
	grep -q "^kernel/drivers/vhost/vhost_vsock.ko:" "$droot/lib/modules/$rel/modules.dep" ||
		{ echo "# modules.dep lacks vhost_vsock.ko"; _rc=1; }
	# The initrd of the postinst hook (initramfs-tools) holds this release.
	in_root lsinitramfs "/boot/initrd.img-$rel" > "$art/initrd.list" 2>&1 || _rc=1
	grep -q "^usr/lib/modules/$rel\$\|^lib/modules/$rel\$" "$art/initrd.list" ||
		{ echo "# initrd.img-$rel holds no lib/modules/$rel"; _rc=1; }
	echo "# installed: $(in_root dpkg-query -W -f '${Package} ${Version}, ' "linux-image-$rel" "linux-headers-$rel")initrd $(( $(wc -c < "$droot/boot/initrd.img-$rel") / 1024 )) KiB"
	return "$_rc"
}

need_deb_root()
{
	[ -f "$droot/boot/vmlinuz-$rel" ] || { SKIP_REASON="deb_install did not succeed"; return "$KSFT_SKIP"; }
}

test_deb_extmod()
{
	need_deb_root || return $?
	extmod "$droot" "/usr/src/linux-headers-$rel" chroot
}

# root_job DIR JOB: boot the Debian root (see test_deb_boot) for JOB.
root_job()
{
	_rc=0
	guest_run -a "root=rxroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L ro init=/opt/rxkit-test/init" \
		"$1" "$droot/boot/vmlinuz-$rel" "$droot/boot/initrd.img-$rel" "$2" "$_a" \
		-virtfs "local,path=$droot,mount_tag=rxroot,security_model=none,readonly=on" || _rc=$?
	guest_verdict "$2" "$1" "$_rc" "$JOB_TIMEOUT"
}

# The Debian root boots as a user's guest would: QEMU shares it read-only
# over virtio-9p; the installed vmlinuz-REL and the initrd.img-REL that
# the postinst hook made (initramfs-tools) mount it as / and start its
# init=.  The root has no init system (debootstrap minbase), so init= is a
# script in the root that reports the root it runs on and chroots into a
# copy of the kit's test initramfs, there in the root, for the job:
# vsock_diag_test and vsock_test over loopback.
test_deb_boot()
{
	need_deb_root || return $?
	_b="$art/boot-deb-root"
	_g="$droot/opt/rxkit-test"
	_i=$(ensure_initramfs "$(src_root "$target")/patched" "$o") || return 1
	rm -rf "$_g"
	mkdir -p "$_g/guest"
	gzip -dc "$_i" | (cd "$_g/guest" && cpio -id --quiet) || return 1
	# The root is read-only to the guest: the applet links now.
	chroot "$_g/guest" /bin/busybox --install -s /bin || return 1
	skip_files "$_b" "$target" guest vsock_test_loopback vsock_diag_test_loopback
	cp "$_b"/tools/rxkit/skip/* "$_g/guest/rxkit/skip/"
	cat > "$_g/init" <<'INIT'
#!/bin/sh
# init= of tests/packages.sh's deb_boot (vsock-rxkit): the installed initrd
# mounted this root; say which, then run the kit's test job (its /dev:
# the devtmpfs initramfs-tools moved here; the root is read-only).
echo "rxkit-root: $(grep ' / ' /proc/mounts)"
mount --bind /dev /opt/rxkit-test/guest/dev
exec /usr/sbin/chroot /opt/rxkit-test/guest /init
INIT
	chmod 755 "$_g/init"
	_a=$(pick_accel "$droot/boot/vmlinuz-$rel" "$_i" "$art/accel-probe")
	_rc=0
	root_job "$_b/probe" probe || { rm -rf "$_g"; return 1; }
	_s=$(tr -d '\r' < "$_b/probe/serial.log")
	_u=$(sed -n 's/^RXKIT: init //p' "$_b/probe/results.log" | tr -d '\r')
	_m=$(printf '%s\n' "$_s" | sed -n 's/^rxkit-root: //p')
	echo "# booted: uname -r $_u ($_a), root: $_m"
	[ "$_u" = "$rel" ] || { echo "# uname -r is not $rel"; _rc=1; }
	case "$_m" in
	"rxroot / 9p "*) ;;
	*) echo "# / is not the root's 9p share"; _rc=1 ;;
	esac
	# initramfs-tools' /init mounted it, not the kernel.
	printf '%s\n' "$_s" | grep -q "Begin: Mounting root file system" ||
		{ echo "# the installed initrd's init did not run (no 'Begin: Mounting root file system')"; _rc=1; }
	for _j in vsock_diag_test_loopback vsock_test_loopback; do
		_jrc=0
		root_job "$_b/$_j" "$_j" || _jrc=$?
		sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$_b/$_j/results.log" > "$_b/$_j/job.log"
		vsock_cases "$_j" "$_b/$_j/job.log" "$_g/guest/rxkit/skip/$_j" "$_jrc" || _rc=1
	done
	rm -rf "$_g"
	return "$_rc"
}

# A rebuilt package with a higher revision replaces the installed one.
test_deb_upgrade()
{
	need_deb_root || return $?
	# The file set outside dpkg's, debconf's and the logs' own state.
	in_root find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o \
		-path /var/cache -o -path /var/log \) -prune -o -print | sort > "$work/files.before"
	pkg 2 "$work/out3" --no-lint --format deb || return "$KSFT_FAIL"
	cp "$deb" "$hdeb" "$droot/tmp/"
	in_root dpkg -i "/tmp/${deb##*/}" "/tmp/${hdeb##*/}" > "$art/deb-upgrade.log" 2>&1 ||
		{ tail -n 20 "$art/deb-upgrade.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	_v=$(in_root dpkg-query -W -f '${Version}' "linux-image-$rel")
	echo "# upgraded to $_v"
	case "$_v" in
	*-2) ;;
	*) echo "# version after upgrade is $_v"; return "$KSFT_FAIL" ;;
	esac
	in_root find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o \
		-path /var/cache -o -path /var/log \) -prune -o -print | sort > "$work/files.after"
	if ! cmp -s "$work/files.before" "$work/files.after"; then
		echo "# the upgrade changed the file set:"
		diff "$work/files.before" "$work/files.after" | grep '^[<>]' | head -n 20 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	[ -f "$droot/boot/initrd.img-$rel" ] || { echo "# initrd gone after upgrade"; return "$KSFT_FAIL"; }
}

test_deb_purge()
{
	need_deb_root || return $?
	in_root dpkg --purge "linux-headers-$rel" "linux-image-$rel" > "$art/deb-purge.log" 2>&1 ||
		{ tail -n 20 "$art/deb-purge.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	_left=$(cd "$droot" && find boot lib/modules usr/src var/lib/initramfs-tools -name "*$rel*" 2>/dev/null)
	[ -z "$_left" ] || { echo "# left behind: $_left"; return "$KSFT_FAIL"; }
	[ ! -e "$droot/vmlinuz" ] || { echo "# /vmlinuz left behind -> $(readlink "$droot/vmlinuz")"; return "$KSFT_FAIL"; }
	echo "# purged: no file of $rel left"
}

# root_files ROOT: the file set outside the package managers' own state
# (dpkg, rpm's database: /root/.rpmdb with Debian's rpm), logs and /tmp.
root_files()
{
	chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o -path /var/cache \
		-o -path /var/log -o -path /root/.rpmdb -o -path /var/lib/rpm -o -path /usr/lib/sysimage/rpm \) \
		-prune -o -print | sort
}

# The RPMs go into a copy of the Debian root: it has the /bin/sh and the
# depmod the scriptlets need (rpm --root runs them chrooted there).  It
# has no systemd: /usr/bin/kernel-install is a stub that records its
# arguments, so that the kernel-install calls of %post and %preun show.
test_rpm_install()
{
	[ -n "${rpmf:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_t=$("$RXKIT_TOP/tests/mkrootfs" 2>> "$art/mkrootfs.log") ||
		{ sed 's/^/# /' "$art/mkrootfs.log"; return "$KSFT_FAIL"; }
	mkdir -p "$rroot"
	tar -C "$rroot" -xf "$_t"
	[ ! -e "$rroot/usr/bin/kernel-install" ] ||
		{ echo "# the root has a kernel-install of its own; the stub would hide it"; return "$KSFT_FAIL"; }
	printf '%s\n' '#!/bin/sh' '# Stub of tests/packages.sh: records how the scriptlets call it.' \
		'echo "$*" >> /var/log/rxkit-kernel-install.log' > "$rroot/usr/bin/kernel-install"
	chmod 0755 "$rroot/usr/bin/kernel-install"
	# objtool reads /proc in the module build of rpm_extmod.
	mount -t proc proc "$rroot/proc"
	root_files "$rroot" > "$work/rpm-files.before"
	rpm --root "$rroot" --initdb
	# --nodeps: the root's packages are dpkg's, rpm's database is empty.
	rpm --root "$rroot" -i --nodeps "$rpmf" "$drpm" > "$art/rpm-install.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-install.log"; return "$KSFT_FAIL"; }
	rpm --root "$rroot" -qa | sed 's/^/# installed: /'
	_rc=0
	for f in "boot/vmlinuz-$rel" "lib/modules/$rel/modules.dep" "lib/modules/$rel/modules.dep.bin" \
		 "usr/src/kernels/$rel/Module.symvers"; do
		[ -f "$rroot/$f" ] || { echo "# /$f missing after install"; _rc=1; }
	done
	# As upstream's kernel.spec: the package holds the image in the modules
	# folder and owns the /boot files as %ghost; %post copies them there.
	for f in vmlinuz System.map config; do
		if cmp -s "$rroot/lib/modules/$rel/$f" "$rroot/boot/$f-$rel"; then
			echo "# %post copied /lib/modules/$rel/$f to /boot/$f-$rel"
		else
			echo "# /boot/$f-$rel is not /lib/modules/$rel/$f"
			_rc=1
		fi
	done
	rpm --root "$rroot" -q --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$(rpm -qp --qf '%{NAME}' "$rpmf")" |
		grep -c "^[a-z]*g[a-z]* /boot/" > "$work/ghosts" || :
	[ "$(cat "$work/ghosts")" = 3 ] ||
		{ echo "# the package owns $(cat "$work/ghosts") /boot files as %ghost, not 3"; _rc=1; }
	if grep -q "^kernel/drivers/vhost/vhost_vsock.ko:" "$rroot/lib/modules/$rel/modules.dep" 2>/dev/null; then
		echo "# %post ran depmod in the root: modules.dep lists vhost_vsock.ko"
	else
		echo "# modules.dep lacks vhost_vsock.ko (%post's depmod)"
		_rc=1
	fi
	_k=$(cat "$rroot/var/log/rxkit-kernel-install.log" 2>/dev/null) || :
	if [ "$_k" = "add $rel /lib/modules/$rel/vmlinuz" ]; then
		echo "# %post called: kernel-install $_k"
	else
		echo "# kernel-install calls: '$_k', expected 'add $rel /lib/modules/$rel/vmlinuz'"
		_rc=1
	fi
	return "$_rc"
}

need_rpm_root()
{
	[ -f "$rroot/boot/vmlinuz-$rel" ] || { SKIP_REASON="rpm_install did not succeed"; return "$KSFT_SKIP"; }
}

test_rpm_verify()
{
	need_rpm_root || return $?
	_rc=0
	rpm --root "$rroot" -V --nodeps "$(rpm -qp --qf '%{NAME}' "$rpmf")" \
		"$(rpm -qp --qf '%{NAME}' "$drpm")" > "$art/rpm-verify.txt" 2>&1 || _rc=$?
	sed 's/^/# /' "$art/rpm-verify.txt"
	echo "# rpm -V exit $_rc, $(rpm --root "$rroot" -ql "$(rpm -qp --qf '%{NAME}' "$rpmf")" | wc -l) files"
	[ "$_rc" = 0 ]
}

test_rpm_extmod()
{
	need_rpm_root || return $?
	extmod "$rroot" "/usr/src/kernels/$rel" chroot
}

test_rpm_boot()
{
	need_rpm_root || return $?
	boot "$rroot"
}

# rpm -e with the scriptlets: %preun's kernel-install remove, and the root
# is as it was before the install.
test_rpm_erase()
{
	need_rpm_root || return $?
	rpm --root "$rroot" -e --nodeps "$(rpm -qp --qf '%{NAME}' "$drpm")" \
		"$(rpm -qp --qf '%{NAME}' "$rpmf")" > "$art/rpm-erase.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-erase.log"; return "$KSFT_FAIL"; }
	_rc=0
	_k=$(tail -n 1 "$rroot/var/log/rxkit-kernel-install.log" 2>/dev/null) || :
	if [ "$_k" = "remove $rel" ]; then
		echo "# %preun called: kernel-install $_k"
	else
		echo "# last kernel-install call: '$_k', expected 'remove $rel'"
		_rc=1
	fi
	# Left: the empty parents rpm made and no package of this root owns
	# (a distribution's filesystem package owns them).
	root_files "$rroot" | grep -vx '/usr/lib/modules\|/usr/src/kernels' > "$work/rpm-files.after"
	for d in usr/lib/modules usr/src/kernels; do
		[ ! -d "$rroot/$d" ] || [ -z "$(ls -A "$rroot/$d")" ] ||
			{ echo "# /$d is not empty: $(ls "$rroot/$d")"; _rc=1; }
	done
	if ! cmp -s "$work/rpm-files.before" "$work/rpm-files.after"; then
		echo "# the install and erase changed the file set:"
		diff "$work/rpm-files.before" "$work/rpm-files.after" | grep '^[<>]' | head -n 20 | sed 's/^/#   /'
		_rc=1
	else
		echo "# erased: the root's file set is as before the install"
	fi
	return "$_rc"
}

# bad_series KIND: series/TARGET with its first patch made to apply only
# with fuzz (a context line changed) or an offset (its first hunk said to
# be 50 lines further down); prints the folder.
bad_series()
{
	_d="$work/series-$1"
	rm -rf "$_d"
	cp -R "$RXKIT_TOP/series/$target" "$_d"
	_p="$_d/$(series_patches "$_d" | head -n 1)"
	case "$1" in
	fuzz) awk '!done && /^@@ / { h = 1 }
		h && !done && /^ ./ { print " rxkit: this context line is not in the tree"; done = 1; next }
		{ print }' "$_p" > "$_p.new" ;;
	offset) awk '!done && /^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@/ {
			split(substr($2, 2), a, ","); split(substr($3, 2), b, ",")
			sub(/^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@/, sprintf("@@ -%d,%s +%d,%s @@", a[1] + 50, a[2], b[1] + 50, b[2]))
			done = 1 }
		{ print }' "$_p" > "$_p.new" ;;
	esac
	! cmp -s "$_p" "$_p.new" || { echo "# could not make a $1 patch of ${_p##*/}" >&2; return 1; }
	mv "$_p.new" "$_p"
	printf '%s\n' "$_d"
}

# refused KIND FORMAT WHAT OPTION...: ci/srcpkg of a series whose first
# patch needs KIND must fail, name the patch and say WHAT (a regex of the
# refusal), and leave no source or binary package behind.
refused()
{
	_k=$1 _f=$2 _what=$3
	shift 3
	_d=$(bad_series "$_k") || return "$KSFT_FAIL"
	_o="$work/out-$_k-$_f"
	_log="$art/refused-$_k-$_f.log"
	if RXKIT_OUT=$_o "$RXKIT_TOP/ci/srcpkg" --series "$_d" --format "$_f" --no-lint "$@" "$target" \
		> "$_log" 2>&1; then
		echo "# ci/srcpkg --format $_f built a series whose first patch needs $_k"
		return "$KSFT_FAIL"
	fi
	_rc=0
	grep -E "$_what" "$_log" | head -n 3 | sed 's/^/# /'
	grep -qE "$_what" "$_log" || { echo "# no '$_what' in the failure:"; tail -n 8 "$_log" | sed 's/^/#   /'; _rc=1; }
	grep -q "$(series_patches "$_d" | head -n 1)" "$_log" ||
		{ echo "# the failure does not name the patch"; _rc=1; }
	[ -z "$(ls -A "$_o/$target/source" 2>/dev/null)" ] ||
		{ echo "# a source package was left behind: $(ls "$_o/$target/source")"; _rc=1; }
	[ -z "$(ls "$_o/$target/packages/"*.deb "$_o/$target/packages/"*.rpm 2>/dev/null)" ] ||
		{ echo "# packages were left behind"; _rc=1; }
	return "$_rc"
}

# dpkg-source applies debian/patches with -F 0: a fuzzy patch fails the
# Debian source package.
test_deb_fuzz_refused()
{
	refused fuzz deb 'FAILED|fuzz' --source-only
}

# dpkg-source takes offsets silently: ci/srcpkg's patch wrapper fails them.
test_deb_offset_refused()
{
	refused offset deb 'applies only with offsets or fuzz' --source-only
}

# The spec's %prep applies with -F0: a fuzzy hunk fails, before anything
# is compiled.
test_rpm_fuzz_refused()
{
	refused fuzz rpm 'FAILED|fuzz'
}

# The spec's %prep refuses a patch that applies only at an offset (patch
# itself would take it), before anything is compiled.
test_rpm_offset_refused()
{
	refused offset rpm 'offset'
}

# A configuration with debug info adds linux-image-REL-dbg: vmlinux and the
# unstripped modules under /usr/lib/debug, while linux-image's modules stay
# stripped.  The guest configuration with DWARF: no ccache hits, a full
# compile (make check-full and make packages run it, make check does not).
test_deb_dbg()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_c="$work/config-dbg"
	sed -e 's/^CONFIG_DEBUG_INFO_NONE=y$/# CONFIG_DEBUG_INFO_NONE is not set/' \
	    -e 's/^# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set$/CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y/' \
		"$o/.config" > "$_c"
	grep -qx 'CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y' "$_c" ||
		{ echo "# $o/.config has no DEBUG_INFO choice to switch"; return "$KSFT_FAIL"; }
	# A subshell: the run's own packages stay in deb and hdeb.
	(pkg 1 "$work/out-dbg" --format deb --config "$_c") || return "$KSFT_FAIL"
	_p="$work/out-dbg/$target/packages"
	_img=$(ls "$_p/linux-image-${rel}_"*-1_amd64.deb 2>/dev/null) &&
	_dbg=$(ls "$_p/linux-image-$rel-dbg_"*_amd64.deb 2>/dev/null) ||
		{ echo "# no linux-image-$rel and -dbg packages:"; ls "$_p" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
	_rc=0
	echo "# ${_dbg##*/}: $(( $(wc -c < "$_dbg") / 1024 )) KiB"
	rm -rf "$work/dbg" "$work/img"
	dpkg-deb -x "$_dbg" "$work/dbg"
	dpkg-deb -x "$_img" "$work/img"
	_v="$work/dbg/usr/lib/debug/boot/vmlinux-$rel"
	[ -f "$_v" ] || { echo "# no /usr/lib/debug/boot/vmlinux-$rel"; return "$KSFT_FAIL"; }
	readelf -S "$_v" | grep -q '\.debug_info' || { echo "# vmlinux-$rel has no .debug_info"; _rc=$KSFT_FAIL; }
	_n=0
	for _k in $(cd "$work/img" && find lib/modules -name '*.ko'); do
		_n=$((_n + 1))
		[ -f "$work/dbg/usr/lib/debug/$_k" ] || { echo "# no debug copy of $_k"; _rc=$KSFT_FAIL; continue; }
		readelf -S "$work/dbg/usr/lib/debug/$_k" | grep -q '\.debug_info' ||
			{ echo "# /usr/lib/debug/$_k has no .debug_info"; _rc=$KSFT_FAIL; }
		! readelf -S "$work/img/$_k" | grep -q '\.debug_info' ||
			{ echo "# linux-image's $_k is not stripped"; _rc=$KSFT_FAIL; }
	done
	[ "$_n" -gt 0 ] || { echo "# linux-image has no modules to compare"; _rc=$KSFT_FAIL; }
	echo "# vmlinux with .debug_info, $_n modules: unstripped in -dbg, stripped in linux-image"
	# lintian --pedantic of the three .debs (ci/srcpkg's lint).
	cp "$_p/lintian.txt" "$art/lintian-dbg.txt" 2>/dev/null || :
	_l=$(tail -n 1 "$art/lintian-dbg.txt" 2>/dev/null)
	echo "# lintian of linux-image, -dbg and linux-headers: $_l ($(grep -c "^[EWIPX]: linux-image-$rel-dbg" "$art/lintian-dbg.txt" || true) tags on -dbg; $art/lintian-dbg.txt)"
	[ "$_l" = "exit 0" ] || { grep '^[EW]: ' "$art/lintian-dbg.txt" | head -n 10 | sed 's/^/#   /'; _rc=$KSFT_FAIL; }
	return "$_rc"
}

# Build-Depends complete: the source package builds as on a buildd, in a
# clean Debian root (tests/mkrootfs --buildd: build-essential only) that
# gets what apt-get build-dep reads from the .dsc and nothing else, as an
# unprivileged user (Rules-Requires-Root: no), with plain gcc (no ccache:
# a full compile).  Its .debs must hold the same files as the kit's.
test_deb_clean_build()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_dsc=$(ls "$(out_dir "$target")"/source/*.dsc 2>/dev/null | head -n 1)
	[ -n "$_dsc" ] || { echo "# no source package in $(out_dir "$target")/source"; return "$KSFT_FAIL"; }
	_t=$("$RXKIT_TOP/tests/mkrootfs" --buildd 2> "$art/mkrootfs-buildd.log") ||
		{ sed 's/^/# /' "$art/mkrootfs-buildd.log"; return "$KSFT_FAIL"; }
	mkdir -p "$broot/build"
	tar -C "$broot" -xf "$_t"
	mount -t proc proc "$broot/proc"
	cp /etc/resolv.conf "$broot/etc/resolv.conf"
	# The .dsc and the files its Files: field names.
	for _f in "${_dsc##*/}" $(awk '/^Files:/ { f = 1; next } /^[^ ]/ { f = 0 } f { print $3 }' "$_dsc"); do
		cp "${_dsc%/*}/$_f" "$broot/build/" || return "$KSFT_FAIL"
	done
	_log="$art/clean-build.log"
	{
		in_broot apt-get update &&
		in_broot apt-get build-dep -y --no-install-recommends "/build/${_dsc##*/}" &&
		in_broot useradd -m rxbuild && in_broot chown -R rxbuild: /build
	} > "$_log" 2>&1 || { tail -n 20 "$_log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	echo "# build-dep: $(grep -c '^Setting up ' "$_log") packages installed over build-essential"
	_s=$(date +%s)
	chroot --userspec=rxbuild:rxbuild "$broot" /usr/bin/env -i HOME=/home/rxbuild \
		PATH=/usr/bin:/bin DEB_BUILD_OPTIONS="parallel=$(nproc)" sh -c \
		"cd /build && dpkg-source -x ${_dsc##*/} src && cd src && dpkg-buildpackage -b -uc -us" \
		>> "$_log" 2>&1 || { tail -n 20 "$_log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	echo "# dpkg-buildpackage -b as rxbuild in the clean root: $(( $(date +%s) - _s )) s (log: $_log)"
	_rc=0
	for _k in "$deb" "$hdeb"; do
		_b="$broot/build/${_k##*/}"
		[ -f "$_b" ] || { echo "# the clean build made no ${_k##*/}"; _rc=$KSFT_FAIL; continue; }
		dpkg-deb -c "$_k" | awk '{ print $1, $6 }' | sort > "$work/files.kit"
		dpkg-deb -c "$_b" | awk '{ print $1, $6 }' | sort > "$work/files.clean"
		if cmp -s "$work/files.kit" "$work/files.clean"; then
			echo "# ${_k##*/}: $(wc -l < "$work/files.kit") files, the same as the kit's build"
		else
			echo "# ${_k##*/} differs from the kit's build (mode and path):"
			diff "$work/files.kit" "$work/files.clean" | head -n 10 | sed 's/^/#   /'
			_rc=$KSFT_FAIL
		fi
	done
	umount "$broot/proc"
	rm -rf "$broot"
	return "$_rc"
}

echo "# $target: $rel; work folder $work; package staging $RXKIT_PKG_TMP; artefacts $art"
deb= hdeb= rpmf= drpm=
# The tests share the packages and roots: they run in this shell, in order.
# shellcheck disable=SC2086
run_tests $TESTS
