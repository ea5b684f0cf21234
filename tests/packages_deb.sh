#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_deb.sh: the .deb packages of ci/package as a user gets
# them.  KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
#
# lintian clean (the overrides carry their reasons).  A minimal Debian root
# (images/mkrootfs: debootstrap) gets linux-image-REL and linux-headers-REL
# with dpkg in a chroot, so their maintainer scripts and the /etc/kernel
# hooks run there (depmod, initramfs-tools, linux-update-symlinks); a
# module builds against the installed headers; the root boots in QEMU with
# the installed kernel and initrd; a rebuilt package with a higher revision
# upgrades it; purge leaves nothing behind; piuparts, Debian's own
# install and purge test, passes.  The packages: those of
# $RXKIT_OUT/TARGET/packages when newer than the kernel, else ci/package's
# (tests/lib/packages.sh, need_packages).
set -eu
PROG=packages_deb
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="lintian deb_install deb_extmod deb_boot deb_upgrade deb_purge deb_piuparts"
readonly TEST_DESCS="ci/package's lintian report of the packages is clean:\
dpkg installs the image and headers in a Debian root, its hooks run (initrd, symlinks, depmod):\
a module builds against the installed headers inside the root:\
the root boots its installed kernel and initrd in QEMU, vsock_diag_test and vsock_test over loopback:\
the package at revision 2 upgrades the installed one, the root's file set unchanged:\
dpkg --purge leaves no file of the release behind:\
piuparts installs and purges the packages in Debian's base system, nothing left or broken"

usage()
{
	cat <<USAGE
usage: tests/packages_deb.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Debian package tests of the patched guest kernel of TARGET (default:
$RXKIT_TARGET; ci/build must have built it; the packages are ci/package's,
built when those in \$RXKIT_OUT/TARGET/packages/ are missing or stale).
-l lists them; -t NAME runs NAME, -T NAME leaves it out (each may repeat;
they run in the order -l lists).
Every test but lintian needs the Debian root with the packages installed
(deb_install's; it is made for whichever test comes first) and SKIPs,
saying why, without it.
Artefacts (lint report, logs, serial logs): \$RXKIT_OUT/TARGET/packages-test/
Environment: RXKIT_ACCEL, RXKIT_PKG_TMP (ci/package's staging folder).
USAGE
}

pkg_setup "$@"
pkg_need_kernel
pkg_need_root
need lintian lintian
need chroot coreutils
need cpio cpio
need "$QEMU" qemu-system-x86
need piuparts piuparts
pkg_art_clean lintian.txt mkrootfs.log deb-install.log initrd.list extmod-deb-root.log \
	boot-deb-root package-2-out3.log deb-upgrade.log deb-purge.log \
	piuparts-mkrootfs.log piuparts.log
droot="$work/deb-root"

in_root() { chroot "$droot" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

test_lintian() { lint_report lintian.txt; }

deb_root_state=	# '' (not made yet), ok, or why there is no root

# deb_root: the Debian root with linux-image and linux-headers installed by
# dpkg, made once a run.  A KSFT code: SKIP (no packages; SKIP_REASON
# says why), FAIL (deb_root_state says why).
deb_root()
{
	local t
	case "$deb_root_state" in
	ok) return "$KSFT_PASS" ;;
	?*) return "$KSFT_FAIL" ;;
	esac
	need_packages || return $?
	deb_root_state="images/mkrootfs failed (log: $art/mkrootfs.log)"
	t=$(rootfs "$art/mkrootfs.log") || return "$KSFT_FAIL"
	mkdir -p "$droot"
	tar -C "$droot" -xf "$t"
	mount -t proc proc "$droot/proc"
	cp "$deb" "$hdeb" "$droot/tmp/"
	deb_root_state="dpkg -i of the packages failed (log: $art/deb-install.log)"
	in_root dpkg -i "/tmp/${deb##*/}" "/tmp/${hdeb##*/}" > "$art/deb-install.log" 2>&1 ||
		{ tail -n 20 "$art/deb-install.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	sed 's/^/# dpkg: /' "$art/deb-install.log" | tail -n 12
	deb_root_state=ok
}

# need_deb_root: the root of deb_root, its kernel installed, or SKIP.
need_deb_root()
{
	local rc=0
	deb_root || rc=$?
	[ "$rc" != "$KSFT_SKIP" ] || return "$rc"
	if [ "$rc" != 0 ]; then
		SKIP_REASON="no Debian root with the packages: $deb_root_state"
		return "$KSFT_SKIP"
	fi
	[ -f "$droot/boot/vmlinuz-$rel" ] ||
		{ SKIP_REASON="no /boot/vmlinuz-$rel in the Debian root (deb_install)"; return "$KSFT_SKIP"; }
}

test_deb_install()
{
	local rc=0 f
	deb_root || return $?
	for f in "boot/vmlinuz-$rel" "boot/initrd.img-$rel" "lib/modules/$rel/modules.dep" \
		 "lib/modules/$rel/modules.dep.bin" "usr/src/linux-headers-$rel/Module.symvers"; do
		[ -f "$droot/$f" ] || { echo "# /$f missing after install"; rc=1; }
	done
	[ "$(readlink "$droot/vmlinuz")" = "boot/vmlinuz-$rel" ] ||
		{ echo "# /vmlinuz is '$(readlink "$droot/vmlinuz")' (linux-update-symlinks did not run)"; rc=1; }
	[ ! -e "$droot/lib/modules/$rel/.fresh-install" ] || { echo "# .fresh-install left behind"; rc=1; }
	grep -q "^kernel/drivers/vhost/vhost_vsock.ko:" "$droot/lib/modules/$rel/modules.dep" ||
		{ echo "# modules.dep lacks vhost_vsock.ko"; rc=1; }
	# The initrd of the postinst hook (initramfs-tools) holds this release.
	in_root lsinitramfs "/boot/initrd.img-$rel" > "$art/initrd.list" 2>&1 || rc=1
	grep -q "^usr/lib/modules/$rel\$\|^lib/modules/$rel\$" "$art/initrd.list" ||
		{ echo "# initrd.img-$rel holds no lib/modules/$rel"; rc=1; }
	echo "# installed: $(in_root dpkg-query -W -f '${Package} ${Version}, ' "linux-image-$rel" "linux-headers-$rel")initrd $(( $(wc -c < "$droot/boot/initrd.img-$rel") / 1024 )) KiB"
	return "$rc"
}

test_deb_extmod()
{
	need_deb_root || return $?
	extmod "$droot" "/usr/src/linux-headers-$rel" chroot
}

# root_job DIR JOB ACCEL: boot the Debian root (see test_deb_boot) for JOB.
root_job()
{
	local rc=0
	guest_run -a "root=rxroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L ro init=/opt/rxkit-test/init" \
		"$1" "$droot/boot/vmlinuz-$rel" "$droot/boot/initrd.img-$rel" "$2" "$3" \
		-virtfs "local,path=$droot,mount_tag=rxroot,security_model=none,readonly=on" || rc=$?
	guest_verdict "$2" "$1" "$rc" "$JOB_TIMEOUT"
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
	local b g i a rc=0 s u m j jrc
	need_deb_root || return $?
	b="$art/boot-deb-root"
	g="$droot/opt/rxkit-test"
	i=$(ensure_initramfs "$o") || return 1
	rm -rf "$g"
	mkdir -p "$g/guest"
	gzip -dc "$i" | (cd "$g/guest" && cpio -id --quiet) || return 1
	# The root is read-only to the guest: the applet links now.
	chroot "$g/guest" /bin/busybox --install -s /bin || return 1
	skip_files "$b" "$target" guest vsock_test_loopback vsock_diag_test_loopback
	cp "$b"/tools/rxkit/skip/* "$g/guest/rxkit/skip/"
	cat > "$g/init" <<'INIT'
#!/bin/sh
# init= of tests/packages_deb.sh's deb_boot (vsock-rxkit): the installed
# initrd mounted this root; say which, then run the kit's test job (its
# /dev: the devtmpfs initramfs-tools moved here; the root is read-only).
echo "rxkit-root: $(grep ' / ' /proc/mounts)"
mount --bind /dev /opt/rxkit-test/guest/dev
exec /usr/sbin/chroot /opt/rxkit-test/guest /init
INIT
	chmod 755 "$g/init"
	a=$(pick_accel "$droot/boot/vmlinuz-$rel" "$i" "$art/accel-probe")
	root_job "$b/probe" probe "$a" || { rm -rf "$g"; return 1; }
	s=$(tr -d '\r' < "$b/probe/serial.log")
	u=$(sed -n 's/^RXKIT: init //p' "$b/probe/results.log" | tr -d '\r')
	m=$(printf '%s\n' "$s" | sed -n 's/^rxkit-root: //p')
	echo "# booted: uname -r $u ($a), root: $m"
	[ "$u" = "$rel" ] || { echo "# uname -r is not $rel"; rc=1; }
	case "$m" in
	"rxroot / 9p "*) ;;
	*) echo "# / is not the root's 9p share"; rc=1 ;;
	esac
	# initramfs-tools' /init mounted it, not the kernel.
	printf '%s\n' "$s" | grep -q "Begin: Mounting root file system" ||
		{ echo "# the installed initrd's init did not run (no 'Begin: Mounting root file system')"; rc=1; }
	for j in vsock_diag_test_loopback vsock_test_loopback; do
		jrc=0
		root_job "$b/$j" "$j" "$a" || jrc=$?
		sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$b/$j/results.log" > "$b/$j/job.log"
		vsock_cases "$j" "$b/$j/job.log" "$g/guest/rxkit/skip/$j" "$jrc" || rc=1
	done
	rm -rf "$g"
	return "$rc"
}

# root_find: the root's file set outside dpkg's, debconf's and the logs'
# own state.
root_find()
{
	in_root find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o \
		-path /var/cache -o -path /var/log \) -prune -o -print | sort
}

# A rebuilt package with a higher revision replaces the installed one.
# revision REV DEB DIR: DEB as Debian revision REV (its version's last
# -N) in DIR, its files and maintainer scripts as they are; the path.
# ci/package's own revision 2 is tests/packages_rebuild.sh's (a build of
# its own): dpkg's upgrade path needs only the higher version.
revision()
{
	local x="$work/repack" v
	rm -rf "$x"
	dpkg-deb -R "$2" "$x" || return 1
	v=$(sed -n 's/^Version: //p' "$x/DEBIAN/control")
	sed -i "s/^Version: .*/Version: ${v%-*}-$1/" "$x/DEBIAN/control"
	dpkg-deb -Zxz -b "$x" "$3/" > "$work/repack.log" 2>&1 ||
		{ sed 's/^/# /' "$work/repack.log"; return 1; }
	v=$(basename "$2" | sed "s/-[0-9]*_\([a-z0-9]*\)\.deb\$/-$1_\1.deb/")
	[ -f "$3/$v" ] || { echo "# no $3/$v after dpkg-deb -b" >&2; return 1; }
	printf '%s\n' "$3/$v"
}

test_deb_upgrade()
{
	local deb2 hdeb2 f v
	need_deb_root || return $?
	root_find > "$work/files.before"
	mkdir -p "$work/rev2"
	deb2=$(revision 2 "$deb" "$work/rev2") && hdeb2=$(revision 2 "$hdeb" "$work/rev2") ||
		return "$KSFT_FAIL"
	cp "$deb2" "$hdeb2" "$droot/tmp/"
	in_root dpkg -i "/tmp/${deb2##*/}" "/tmp/${hdeb2##*/}" > "$art/deb-upgrade.log" 2>&1 ||
		{ tail -n 20 "$art/deb-upgrade.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	v=$(in_root dpkg-query -W -f '${Version}' "linux-image-$rel")
	echo "# upgraded to $v"
	case "$v" in
	*-2) ;;
	*) echo "# version after upgrade is $v"; return "$KSFT_FAIL" ;;
	esac
	root_find > "$work/files.after"
	if ! cmp -s "$work/files.before" "$work/files.after"; then
		echo "# the upgrade changed the file set:"
		diff "$work/files.before" "$work/files.after" | grep '^[<>]' | head -n 20 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	[ -f "$droot/boot/initrd.img-$rel" ] || { echo "# initrd gone after upgrade"; return "$KSFT_FAIL"; }
}

test_deb_purge()
{
	local left
	need_deb_root || return $?
	in_root dpkg --purge "linux-headers-$rel" "linux-image-$rel" > "$art/deb-purge.log" 2>&1 ||
		{ tail -n 20 "$art/deb-purge.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	left=$(cd "$droot" && find boot lib/modules usr/src var/lib/initramfs-tools -name "*$rel*" 2>/dev/null)
	[ -z "$left" ] || { echo "# left behind: $left"; return "$KSFT_FAIL"; }
	[ ! -e "$droot/vmlinuz" ] || { echo "# /vmlinuz left behind -> $(readlink "$droot/vmlinuz")"; return "$KSFT_FAIL"; }
	echo "# purged: no file of $rel left"
}

# piuparts, as piuparts.debian.org runs it on Debian's linux-image
# packages: the image and the headers installed with their dependencies
# from the archive into Debian's base system (images/mkrootfs --base),
# then purged; nothing left behind, nothing broken.  Its upgrade test is
# off: it upgrades from the version an archive in its sources has, and no
# Debian archive has the kit's packages (deb_upgrade upgrades one revision
# of them to the next).  /var/cache/debconf/tmp.ci/ is not the packages':
# debconf makes it at its first use in the root (the dependencies'
# install), and the base root has none.
test_deb_piuparts()
{
	local t= m= b="$work/piuparts-base"
	need_packages || return $?
	m=$(mirror_for bookworm)
	[ -n "$m" ] || { SKIP_REASON="no Debian archive in this system's apt sources"; return "$KSFT_SKIP"; }
	t=$(rootfs "$art/piuparts-mkrootfs.log" --base) || return "$KSFT_FAIL"
	rm -rf "$b"
	mkdir -p "$b"
	tar -C "$b" -xf "$t"
	if ! piuparts --existing-chroot "$b" -d bookworm -m "$m main" --no-upgrade-test \
		--ignore /var/cache/debconf/tmp.ci/ -l "$art/piuparts.log" \
		"$deb" "$hdeb" > /dev/null 2>&1; then
		grep -E 'ERROR|FAIL' "$art/piuparts.log" | head -n 20 | sed 's/^/# /'
		return "$KSFT_FAIL"
	fi
	rm -rf "$b"
	# Its warnings (adequate's tags among them) stay warnings, as on
	# piuparts.debian.org; they are shown.
	sed -n 's/^.* INFO: \(PASS: .*\)$/# piuparts: \1/p; s/^.* ERROR: \(WARN: .*\)$/# piuparts: \1/p' \
		"$art/piuparts.log"
}

pkg_run
