#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_rpm.sh: the .rpm packages of ci/package, installed, booted
# and erased.  KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
#
# rpmlint clean (the filters carry their reasons).  rpm --root installs
# the kernel and -devel packages into a minimal Debian root (images/mkrootfs)
# with the scriptlets (they run in the root's /bin/sh: %post's depmod, and
# kernel-install, here a recording stub); rpm -V; a module builds against
# -devel inside the root; the installed kernel boots; rpm -e runs %preun
# and leaves nothing behind.  The packages: those of
# $RXKIT_OUT/TARGET/packages when newer than the kernel, else ci/package's
# (tests/lib/packages.sh, need_packages).
set -eu
PROG=packages_rpm
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="rpmlint rpm_install rpm_verify rpm_extmod rpm_boot rpm_erase"
readonly TEST_DESCS="ci/package's rpmlint report of the packages is clean:\
rpm --root installs the kernel and -devel packages, %post fills /boot, runs depmod and kernel-install:\
rpm -V of the installed packages reports nothing:\
a module builds against -devel inside the root:\
the installed /boot/vmlinuz-REL boots with the kit's initramfs, vsock_diag_test over loopback:\
rpm -e runs %preun's kernel-install remove and leaves the root's file set as before"

usage()
{
	cat <<USAGE
usage: tests/packages_rpm.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

RPM package tests of the patched guest kernel of TARGET (default:
$RXKIT_TARGET; ci/build must have built it; the packages are ci/package's,
built when those in \$RXKIT_OUT/TARGET/packages/ are missing or stale).
-l lists them; -t NAME runs NAME, -T NAME leaves it out (each may repeat;
they run in the order -l lists).
Every test but rpmlint needs the root with the packages installed
(rpm_install's; it is made for whichever test comes first) and SKIPs,
saying why, without it.
Artefacts (lint report, logs, serial logs): \$RXKIT_OUT/TARGET/packages-test/
Environment: RXKIT_ACCEL, RXKIT_PKG_TMP (ci/package's staging folder).
USAGE
}

pkg_setup "$@"
pkg_need_kernel
pkg_need_root
need rpmlint rpmlint
need rpm rpm
need chroot coreutils
need "$QEMU" qemu-system-x86
pkg_art_clean rpmlint.txt mkrootfs-rpm.log rpm-install.log rpm-verify.txt \
	extmod-rpm-root.log boot-rpm-root rpm-erase.log
rroot="$work/rpm-root"

test_rpmlint() { lint_report rpmlint.txt; }

# root_files ROOT: the file set outside the package managers' own state
# (dpkg, rpm's database: /root/.rpmdb with Debian's rpm), logs and /tmp.
root_files()
{
	chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		find / -xdev \( -path /proc -o -path /tmp -o -path /var/lib/dpkg -o -path /var/cache \
		-o -path /var/log -o -path /root/.rpmdb -o -path /var/lib/rpm -o -path /usr/lib/sysimage/rpm \) \
		-prune -o -print | sort
}

rpm_root_state=	# '' (not made yet), ok, or why there is no root

# rpm_root: the RPMs installed into a copy of the Debian root, made once a
# run: it has the /bin/sh and the depmod the scriptlets need (rpm --root
# runs them chrooted there).  It has no systemd: /usr/bin/kernel-install is
# a stub that records its arguments, so that the kernel-install calls of
# %post and %preun show.  A KSFT code: SKIP (no packages; SKIP_REASON says
# why), FAIL (rpm_root_state says why).
rpm_root()
{
	local t
	case "$rpm_root_state" in
	ok) return "$KSFT_PASS" ;;
	?*) return "$KSFT_FAIL" ;;
	esac
	need_packages || return $?
	rpm_root_state="images/mkrootfs failed (log: $art/mkrootfs-rpm.log)"
	t=$(rootfs "$art/mkrootfs-rpm.log") || return "$KSFT_FAIL"
	mkdir -p "$rroot"
	tar -C "$rroot" -xf "$t"
	rpm_root_state="the root has a kernel-install of its own"
	[ ! -e "$rroot/usr/bin/kernel-install" ] ||
		{ echo "# the root has a kernel-install of its own; the stub would hide it"; return "$KSFT_FAIL"; }
	printf '%s\n' '#!/bin/sh' '# Stub of tests/packages_rpm.sh: records how the scriptlets call it.' \
		'echo "$*" >> /var/log/rxkit-kernel-install.log' > "$rroot/usr/bin/kernel-install"
	chmod 0755 "$rroot/usr/bin/kernel-install"
	# objtool reads /proc in the module build of rpm_extmod.
	mount -t proc proc "$rroot/proc"
	root_files "$rroot" > "$work/rpm-files.before"
	rpm --root "$rroot" --initdb
	rpm_root_state="rpm -i of the packages failed (log: $art/rpm-install.log)"
	# --nodeps: the root's packages are dpkg's, rpm's database is empty.
	rpm --root "$rroot" -i --nodeps "$rpmf" "$drpm" > "$art/rpm-install.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-install.log"; return "$KSFT_FAIL"; }
	rpm_root_state=ok
}

# need_rpm_root: the root of rpm_root, its kernel installed, or SKIP.
need_rpm_root()
{
	local rc=0
	rpm_root || rc=$?
	[ "$rc" != "$KSFT_SKIP" ] || return "$rc"
	if [ "$rc" != 0 ]; then
		SKIP_REASON="no root with the RPMs installed: $rpm_root_state"
		return "$KSFT_SKIP"
	fi
	[ -f "$rroot/boot/vmlinuz-$rel" ] ||
		{ SKIP_REASON="no /boot/vmlinuz-$rel in the root (rpm_install)"; return "$KSFT_SKIP"; }
}

test_rpm_install()
{
	local rc=0 f ghosts k
	rpm_root || return $?
	rpm --root "$rroot" -qa | sed 's/^/# installed: /'
	for f in "boot/vmlinuz-$rel" "lib/modules/$rel/modules.dep" "lib/modules/$rel/modules.dep.bin" \
		 "usr/src/kernels/$rel/Module.symvers"; do
		[ -f "$rroot/$f" ] || { echo "# /$f missing after install"; rc=1; }
	done
	# As upstream's kernel.spec: the package holds the image in the modules
	# folder and owns the /boot files as %ghost; %post copies them there.
	for f in vmlinuz System.map config; do
		if cmp -s "$rroot/lib/modules/$rel/$f" "$rroot/boot/$f-$rel"; then
			echo "# %post copied /lib/modules/$rel/$f to /boot/$f-$rel"
		else
			echo "# /boot/$f-$rel is not /lib/modules/$rel/$f"
			rc=1
		fi
	done
	ghosts=$(rpm --root "$rroot" -q --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$(rpm -qp --qf '%{NAME}' "$rpmf")" |
		grep -c "^[a-z]*g[a-z]* /boot/") || :
	[ "$ghosts" = 3 ] ||
		{ echo "# the package owns $ghosts /boot files as %ghost, not 3"; rc=1; }
	if grep -q "^kernel/drivers/vhost/vhost_vsock.ko:" "$rroot/lib/modules/$rel/modules.dep" 2>/dev/null; then
		echo "# %post ran depmod in the root: modules.dep lists vhost_vsock.ko"
	else
		echo "# modules.dep lacks vhost_vsock.ko (%post's depmod)"
		rc=1
	fi
	k=$(cat "$rroot/var/log/rxkit-kernel-install.log" 2>/dev/null) || :
	if [ "$k" = "add $rel /lib/modules/$rel/vmlinuz" ]; then
		echo "# %post called: kernel-install $k"
	else
		echo "# kernel-install calls: '$k', expected 'add $rel /lib/modules/$rel/vmlinuz'"
		rc=1
	fi
	return "$rc"
}

test_rpm_verify()
{
	local rc=0
	need_rpm_root || return $?
	rpm --root "$rroot" -V --nodeps "$(rpm -qp --qf '%{NAME}' "$rpmf")" \
		"$(rpm -qp --qf '%{NAME}' "$drpm")" > "$art/rpm-verify.txt" 2>&1 || rc=$?
	sed 's/^/# /' "$art/rpm-verify.txt"
	echo "# rpm -V exit $rc, $(rpm --root "$rroot" -ql "$(rpm -qp --qf '%{NAME}' "$rpmf")" | wc -l) files"
	[ "$rc" = 0 ]
}

test_rpm_extmod()
{
	need_rpm_root || return $?
	extmod "$rroot" "/usr/src/kernels/$rel" chroot
}

# The installed /boot/vmlinuz-REL with the kit's test initramfs (the
# issue asks for that here); uname -r must be REL and vsock_diag_test must
# pass over loopback.
test_rpm_boot()
{
	local k i a j d rc u
	need_rpm_root || return $?
	k="$rroot/boot/vmlinuz-$rel"
	i=$(ensure_initramfs "$o") || return 1
	a=$(pick_accel "$k" "$i" "$art/accel-probe")
	for j in probe vsock_diag_test_loopback; do
		d="$art/boot-rpm-root/$j"
		rc=0
		guest_run "$d" "$k" "$i" "$j" "$a" || rc=$?
		guest_verdict "$j" "$d" "$rc" "$JOB_TIMEOUT" || return 1
	done
	u=$(sed -n 's/^RXKIT: init //p' "$art/boot-rpm-root/probe/results.log" | tr -d '\r')
	echo "# booted the installed kernel: uname -r $u ($a)"
	[ "$u" = "$rel" ]
}

# rpm -e with the scriptlets: %preun's kernel-install remove, and the root
# is as it was before the install.
test_rpm_erase()
{
	local rc=0 k d
	need_rpm_root || return $?
	rpm --root "$rroot" -e --nodeps "$(rpm -qp --qf '%{NAME}' "$drpm")" \
		"$(rpm -qp --qf '%{NAME}' "$rpmf")" > "$art/rpm-erase.log" 2>&1 ||
		{ sed 's/^/# /' "$art/rpm-erase.log"; return "$KSFT_FAIL"; }
	k=$(tail -n 1 "$rroot/var/log/rxkit-kernel-install.log" 2>/dev/null) || :
	if [ "$k" = "remove $rel" ]; then
		echo "# %preun called: kernel-install $k"
	else
		echo "# last kernel-install call: '$k', expected 'remove $rel'"
		rc=1
	fi
	# Left: the empty parents rpm made and no package of this root owns
	# (a distribution's filesystem package owns them).
	root_files "$rroot" | grep -vx '/usr/lib/modules\|/usr/src/kernels' > "$work/rpm-files.after"
	for d in usr/lib/modules usr/src/kernels; do
		[ ! -d "$rroot/$d" ] || [ -z "$(ls -A "$rroot/$d")" ] ||
			{ echo "# /$d is not empty: $(ls "$rroot/$d")"; rc=1; }
	done
	if ! cmp -s "$work/rpm-files.before" "$work/rpm-files.after"; then
		echo "# the install and erase changed the file set:"
		diff "$work/rpm-files.before" "$work/rpm-files.after" | grep '^[<>]' | head -n 20 | sed 's/^/#   /'
		rc=1
	else
		echo "# erased: the root's file set is as before the install"
	fi
	return "$rc"
}

pkg_run
