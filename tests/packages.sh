#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages.sh: the .deb and .rpm packages of ci/package, installed,
# booted, upgraded and removed as a user would.  KTAP on stdout.
#
# DEB: a minimal Debian root (tests/mkrootfs: debootstrap) gets
# linux-image-REL and linux-headers-REL with dpkg in a chroot, so their
# maintainer scripts and the /etc/kernel hooks run there (depmod,
# initramfs-tools, linux-update-symlinks); the installed kernel boots in
# QEMU; a module builds against the installed headers; a rebuilt package
# with a higher revision upgrades it; purge leaves nothing behind.
# RPM: rpm --root into an empty root (scriptlets cannot run there: no
# shell, no depmod; --noscripts, and depmod -b does %post's work), rpm -V,
# the installed kernel boots, a module builds against -devel, rpm -e
# leaves nothing behind.  Both: lintian / rpmlint clean (overrides and
# filters carry their reasons), and two package builds are identical.
set -eu
PROG=packages
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="build lintian rpmlint reproducible deb_install deb_extmod deb_boot \
deb_upgrade deb_purge rpm_install rpm_verify rpm_extmod rpm_boot rpm_erase"
readonly TESTS="${RXKIT_PACKAGE_TESTS:-$ALL_TESTS}"

usage()
{
	cat <<USAGE
usage: tests/packages.sh [TARGET]

Package tests of the patched guest kernel of TARGET (default: $RXKIT_TARGET;
ci/build must have built it):
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
need "$QEMU" qemu-system-x86

o="$(src_root "$target")/patched/o-guest"
[ -f "$o/include/config/kernel.release" ] || die "no built patched kernel of $target; run: ci/build --tree patched $target"
rel=$(cat "$o/include/config/kernel.release")
art="$(out_dir "$target")/packages-test"
rm -rf "$art"
mkdir -p "$art"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/rxkit-packages.XXXXXX")
droot="$work/deb-root"
rroot="$work/rpm-root"
cleanup()
{
	for m in "$droot/proc" "$droot/sys" "$droot/dev"; do
		! mountpoint -q "$m" 2>/dev/null || umount -l "$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# pkg REVISION OUT [OPTION]: ci/package into OUT (an RXKIT_OUT); sets deb,
# hdeb, rpmf, drpm.
pkg()
{
	RXKIT_OUT=$2 RXKIT_PKG_REVISION=$1 "$RXKIT_TOP/ci/package" ${3:-} "$target" \
		> "$art/package-$1-${2##*/}.log" 2>&1 ||
		{ tail -n 20 "$art/package-$1-${2##*/}.log" | sed 's/^/# /'; return 1; }
	_p="$2/$target/packages"
	deb=$(ls "$_p"/linux-image-"$rel"_*-"$1"_amd64.deb)
	hdeb=$(ls "$_p"/linux-headers-"$rel"_*-"$1"_amd64.deb)
	rpmf=$(ls "$_p"/kernel-*-"$1".x86_64.rpm | grep -v -- '-devel-')
	drpm=$(ls "$_p"/kernel-*-devel-*-"$1".x86_64.rpm)
}

in_root() { chroot "$droot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# extmod ROOT TREE [CHROOT]: build a one-file module against ROOT/TREE (the
# installed headers; the build link of /lib/modules/REL must lead there),
# inside ROOT with its own make and gcc when CHROOT is given, else with the
# host's (the RPM root is empty).
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
		in_root make -C "/lib/modules/$rel/build" M=/tmp/rxkit-extmod modules > "$_log" 2>&1
	else
		make -C "$1$2" M="$_m" modules > "$_log" 2>&1
	fi || { tail -n 15 "$_log" | sed 's/^/# /'; return 1; }
	_v=$(modinfo -F vermagic "$_m/rxkit_hello.ko")
	echo "# rxkit_hello.ko built against $2${3:+ inside the root (its gcc: $(in_root gcc -dumpfullversion))}: vermagic $_v"
	rm -rf "$_m"
	case "$_v" in
	"$rel "*) ;;
	*) echo "# vermagic is not that of $rel"; return 1 ;;
	esac
}

# boot ROOT: the installed /boot/vmlinuz-REL with the kit's test initramfs;
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

# The packages of make run / make check, linted, in $RXKIT_OUT/TARGET/packages.
test_build()
{
	_t0=$(date +%s)
	pkg 1 "$RXKIT_OUT" || return "$KSFT_FAIL"
	for f in "$deb" "$hdeb" "$rpmf" "$drpm"; do
		echo "# ${f##*/}: $(( $(wc -c < "$f") / 1024 )) KiB"
	done
	echo "# built and linted in $(( $(date +%s) - _t0 )) s (log: $art/package-1-${RXKIT_OUT##*/}.log)"
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

# Two builds from the same build folder: byte-identical packages.
test_reproducible()
{
	[ -n "${deb:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	_first="$deb $hdeb $rpmf $drpm"
	pkg 1 "$work/out2" --no-lint || return "$KSFT_FAIL"
	# shellcheck disable=SC2086
	set -- $_first
	deb=$1 hdeb=$2 rpmf=$3 drpm=$4
	_rc=0
	for f in $_first; do
		_g="$work/out2/$target/packages/${f##*/}"
		if cmp -s "$f" "$_g"; then
			echo "# ${f##*/}: identical ($(sha256_of "$f" | cut -c1-16))"
		else
			echo "# ${f##*/}: differs between two builds"
			_rc=1
		fi
	done
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

test_deb_boot()
{
	need_deb_root || return $?
	boot "$droot"
}

# A rebuilt package with a higher revision replaces the installed one.
test_deb_upgrade()
{
	need_deb_root || return $?
	# The file set outside dpkg's, debconf's and the logs' own state.
	in_root find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o \
		-path /var/cache -o -path /var/log \) -prune -o -print | sort > "$work/files.before"
	pkg 2 "$work/out3" --no-lint || return "$KSFT_FAIL"
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

test_rpm_install()
{
	[ -n "${rpmf:-}" ] || { SKIP_REASON="no packages (build failed)"; return "$KSFT_SKIP"; }
	mkdir -p "$rroot"
	rpm --root "$rroot" --initdb
	rpm --root "$rroot" -i --nodeps --noscripts "$rpmf" "$drpm" > "$art/rpm-install.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-install.log"; return "$KSFT_FAIL"; }
	# %post's depmod, from outside the root.
	depmod -b "$rroot" "$rel" || { echo "# depmod -b failed"; return "$KSFT_FAIL"; }
	rpm --root "$rroot" -qa | sed 's/^/# installed: /'
	[ -f "$rroot/boot/vmlinuz-$rel" ] && [ -f "$rroot/lib/modules/$rel/modules.dep" ] ||
		{ echo "# vmlinuz or modules.dep missing"; return "$KSFT_FAIL"; }
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
	extmod "$rroot" "/usr/src/kernels/$rel"
}

test_rpm_boot()
{
	need_rpm_root || return $?
	boot "$rroot"
}

test_rpm_erase()
{
	need_rpm_root || return $?
	rpm --root "$rroot" -e --nodeps --noscripts "$(rpm -qp --qf '%{NAME}' "$drpm")" \
		"$(rpm -qp --qf '%{NAME}' "$rpmf")" > "$art/rpm-erase.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-erase.log"; return "$KSFT_FAIL"; }
	# Left: rpm's database and the empty parents a distribution's
	# filesystem package owns (rpm made them in the empty root).
	# (Debian's rpm keeps the database in ~/.rpmdb, /root/.rpmdb here.)
	_left=$(cd "$rroot" && find . -mindepth 1 ! -type d 2>/dev/null |
		grep -v '^\./usr/lib/sysimage/rpm/\|^\./var/lib/rpm/\|^\./root/\.rpmdb/' || true)
	_dirs=$(cd "$rroot" && find . -mindepth 1 -type d | grep -v '^\./usr/lib/sysimage\|^\./var\|^\./root' |
		grep -vx '\./boot\|\./lib\|\./lib/modules\|\./usr\|\./usr/lib\|\./usr/src\|\./usr/src/kernels\|\./tmp' || true)
	[ -z "$_left$_dirs" ] || { echo "# left behind:"; printf '%s\n' $_left $_dirs | head -n 20 | sed 's/^/#   /'; return "$KSFT_FAIL"; }
	echo "# erased: only rpm's database and empty system folders are left in the root"
}

echo "# $target: $rel; work folder $work; artefacts $art"
deb= hdeb= rpmf= drpm=
# The tests share the packages and roots: they run in this shell, in order.
# shellcheck disable=SC2086
run_tests $TESTS
