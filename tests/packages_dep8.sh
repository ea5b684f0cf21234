#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_dep8.sh: the source package's own DEP-8 test
# (debian/tests/control: install-reboot) run by Debian's autopkgtest with
# its QEMU virtualisation server, as a distribution's CI runs it.  KTAP on
# stdout; exit 0 (all passed or skipped), 1 (a failure).
#
# The testbed is images/mkimage --variant autopkgtest: the kit's Debian 12
# VM image (GRUB for BIOS, systemd) with Debian's generic kernel (the cloud
# kernel has no 9p, autopkgtest-virt-qemu's shared folder), a root shell
# on ttyS1 and the test's Depends preinstalled: it has no apt source, and
# autopkgtest installs the packages under test from a repository of the
# given .debs that it makes in the testbed.  autopkgtest unpacks the .dsc
# there, installs linux-image-REL and linux-headers-REL, the test checks
# the initramfs and GRUB entry the hooks made, reboots into the kernel
# (autopkgtest-reboot), builds the tree's vsock_test and vsock_diag_test
# and runs them over loopback, removes the package and reboots back.
# autopkgtest is ci/deps-newer's (bookworm's 5.28 loses the testbed's
# prompt at random); images/vm/autopkgtest-qemu gives its QEMU the
# kit's accelerator (pick_accel: TCG where /dev/kvm cannot run a guest).
set -eu
PROG=packages_dep8
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="dep8_depends dep8_install_reboot"
readonly TEST_DESCS="the Depends of debian/tests/control are in the testbed image (it has no apt source):\
autopkgtest-virt-qemu runs install-reboot on the testbed and it passes"
# The whole autopkgtest run (three boots under TCG, the source unpacked and
# the vsock tests built in the guest).
DEP8_TIMEOUT=$(limit dep8) || exit 2
readonly DEP8_TIMEOUT
readonly CONTROL="$RXKIT_TOP/debian/tests/control"
readonly TESTBED_PACKAGES="$RXKIT_TOP/tests/data/image-packages-autopkgtest"

usage()
{
	cat <<USAGE
usage: tests/packages_dep8.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The DEP-8 test of the patched guest kernel's source package of TARGET
(default: $RXKIT_TARGET), debian/tests/control, run by autopkgtest on the
kit's VM image (images/mkimage --variant autopkgtest) through
autopkgtest-virt-qemu, at most ${DEP8_TIMEOUT}s (-l lists the tests; -t
NAME runs NAME, -T NAME leaves it out; each may repeat).
Artefacts (autopkgtest's output folder, its log): \$RXKIT_OUT/TARGET/packages-test/dep8/
Environment: RXKIT_ACCEL.  Limit: dep8 of tests/data/limits.
USAGE
}

# --tree patched and --flavour guest alone (tests/lib/packages.sh).
pkg_opt() { pkg_opt_packaged "$@"; }
pkg_setup "$@"
pkg_need_kernel
pkg_need_root
need autopkgtest autopkgtest
need autopkgtest-virt-qemu autopkgtest
need qemu-img qemu-utils
need "$QEMU" qemu-system-x86
pkg_art_clean dep8
art="$art/dep8"
mkdir -p "$art"
tree=patched flavour=guest
release=$rel
accel=$(pick_accel "$kernel" "$(ensure_initramfs "$o")" "$art/accel-probe")

# test_depends: what the test needs besides the packages under test is in
# the testbed image (it has no apt source to install it from).
test_dep8_depends()
{
	local d rc=0
	for d in $(sed -n 's/^Depends:[[:space:]]*//p' "$CONTROL" | tr ',' ' '); do
		[ "$d" != @ ] || continue
		if grep -qx "$d" "$TESTBED_PACKAGES"; then
			echo "# $d: in the testbed image"
		else
			echo "# $d (Depends: of debian/tests/control) is not in $TESTBED_PACKAGES"
			rc=1
		fi
	done
	return "$rc"
}

# test_dep8_install_reboot: autopkgtest's verdict of install-reboot.
test_dep8_install_reboot()
{
	local img dsc rc=0 t0 out="$art/autopkgtest"
	need_packages || return $?
	dsc="$RXKIT_OUT/$target/source/linux-rxkit_$rel-1.dsc"
	[ -f "$dsc" ] || { echo "# no source package $dsc"; return "$KSFT_FAIL"; }
	img=$("$RXKIT_TOP/images/mkimage" --variant autopkgtest 2> "$art/mkimage.log") ||
		{ tail -n 5 "$art/mkimage.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	sed 's/^/# /' "$art/mkimage.log"
	echo "# autopkgtest ${deb##*/} ${hdeb##*/} ${dsc##*/} -- qemu ${img##*/} ($accel, $GUEST_SMP vCPUs)"
	t0=$(date +%s)
	RXKIT_QEMU_ACCEL_ARGS=$(qemu_accel_args "$accel") \
	timeout "$DEP8_TIMEOUT" autopkgtest --output-dir "$out" --timeout-test "$DEP8_TIMEOUT" \
		"$deb" "$hdeb" "$dsc" -- qemu \
		--qemu-command "$RXKIT_TOP/images/vm/autopkgtest-qemu" \
		--cpus "$GUEST_SMP" --ram-size 2048 --timeout-reboot 900 "$img" \
		> "$art/autopkgtest.log" 2>&1 || rc=$?
	echo "# autopkgtest: exit $rc after $(( $(date +%s) - t0 )) s (log: $art/autopkgtest.log)"
	# autopkgtest's steps, the test's own lines, the vsock cases (skips too).
	grep -E '^autopkgtest \[[0-9:]*\]: (test |@@@)|^(initrd|back on|booted)|^[0-9]+ - .*(ok|skipped)$' \
		"$art/autopkgtest.log" | sed 's/^/#   /'
	[ ! -f "$out/summary" ] || sed 's/^/# summary: /' "$out/summary"
	case "$rc" in
	0) ;;
	124) echo "# autopkgtest overran ${DEP8_TIMEOUT}s and was stopped" ;;
	16|20) echo "# autopkgtest: testbed failure (exit $rc); the log's end:"
		tail -n 15 "$art/autopkgtest.log" | sed 's/^/#   /' ;;
	*) echo "# autopkgtest: exit $rc (4: a test failed, 8: no test ran, 12: erroneous package)" ;;
	esac
	[ "$rc" = 0 ] && grep -q '^install-reboot[[:space:]]\+PASS' "$out/summary"
}

results_begin "$art" packages_dep8.sh
{ rc=0; pkg_run || rc=$?; echo "$rc" > "$art/rc"; } | tee "$art/results.ktap"
results_end autopkgtest-qemu
exit "$(cat "$art/rc")"
