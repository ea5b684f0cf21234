#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_boot.sh: the patched kernel installed and booted as a
# user does, in a Debian 12 VM.  KTAP on stdout; exit 0 (all passed or
# skipped), 1 (a failure).
#
# The VM is images/mkimage's image (ext4 root on virtio-blk, GRUB for BIOS,
# systemd, Debian's cloud kernel), started through the firmware (SeaBIOS,
# GRUB; no -kernel), its disk in QEMU's snapshot mode (the cached image is
# not written).  A second, read-only virtio disk (label RXKITJOB, made
# with mke2fs -d) carries ci/repo's signed apt repository, the job
# (images/vm/run) and the kit's test initramfs as a tree; the image's
# rxkit-job.service runs the job after multi-user.target, one step a boot:
# Debian's kernel adds the repository and apt-get installs linux-image-REL
# (the hooks make the initramfs and the GRUB menu), GRUB boots the patched
# kernel, which runs the vsock loopback jobs and apt-get removes itself,
# GRUB boots Debian's kernel again.  One QEMU run for the three boots; the
# guest reports on its second serial port.  The packages:
# tests/lib/packages.sh's need_packages; the repository:
# tests/lib/packages_repo.sh's make_repo (ci/repo).
set -eu
PROG=packages_boot
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"
. "$RXKIT_TOP/tests/lib/image_vm.sh"

# Each test and what it checks (-l); one VM run serves them all.
readonly TEST_NAMES="boot_debian boot_install boot_default boot_patched boot_vsock boot_remove"
readonly TEST_DESCS="the image's Debian kernel boots to multi-user.target with every vCPU:\
apt-get installs the metapackage from ci/repo's repository, the hooks make the kernel's initrd and GRUB entry:\
a newer kernel beside it, GRUB's default stays the kit's kernel (the metapackage's):\
GRUB boots the installed kernel to multi-user.target:\
the vsock loopback jobs pass on the installed kernel, its kernel log clean:\
apt-get removes the kernel and its GRUB entry, Debian's kernel boots again"
# The three boots and their jobs under TCG, with other stages beside them:
# the vm limit of tests/data/limits.
VM_TIMEOUT=$(limit vm) || exit 2
readonly VM_TIMEOUT


usage()
{
	cat <<USAGE
usage: tests/packages_boot.sh [--tree patched|debian] [--flavour guest|cloud]
                              [-l] [-t NAME]... [-T NAME]... [TARGET]

Install-and-reboot test of the patched guest kernel of TARGET (default:
$RXKIT_TARGET) in the kit's Debian 12 VM image (images/mkimage), from
ci/repo's signed apt repository, booted through SeaBIOS and GRUB (-l lists
the tests; -t NAME runs NAME, -T NAME leaves it out; each may repeat).
One VM run (three boots, at most ${VM_TIMEOUT}s) serves every test; a test
whose boot did not happen FAILs with the end of the console log.
Artefacts (console and protocol logs): \$RXKIT_OUT/TARGET/packages-test/boot/
--flavour cloud: the cloud flavour's packages (ci/package --flavour cloud)
from ci/repo --flavour cloud, in the image of the Debian release of
series/TARGET/debian-kernel; with --tree debian, Debian's own kernel
pinned there (ci/debian-kernel) instead, the same way: the other side of
the cloud flavour's A/B.  Artefacts:
\$RXKIT_OUT/TARGET/TREE-cloud/boot/ (pipeline/ab-verdict --flavour cloud).
Limit: vm of tests/data/limits.
USAGE
}

# --tree patched|debian and --flavour guest|cloud; debian is Debian's own
# kernel, the other side of the cloud flavour's A/B alone.
btree=patched bflavour=guest
pkg_opt()
{
	case "$1" in
	--tree|--flavour)
		opt_arg "a value" "$@"
		case "$1 $2" in
		"--tree patched"|"--tree debian") btree=$2 ;;
		"--flavour guest"|"--flavour cloud") bflavour=$2 ;;
		"--tree baseline") die "--tree baseline: the cloud A/B's other side is Debian's own kernel; run: tests/packages_boot.sh --tree debian --flavour cloud" ;;
		*) die "$1 $2: the trees are patched and debian (Debian's own kernel), the flavours guest and cloud" ;;
		esac
		return 2 ;;
	esac
	return 0
}

# cloud_release: the release of the cloud flavour's packages (ci/package
# --flavour cloud), from its image package's name; false without one.
cloud_release()
{
	local f n
	for f in "$(out_dir "$target")"/cloud/packages/linux-image-*_amd64.deb; do
		[ -f "$f" ] || continue
		n=$(dpkg-deb -f "$f" Package)
		case "$n" in
		*-dbg) ;;
		*) printf '%s\n' "${n#linux-image-}"; return 0 ;;
		esac
	done
	return 1
}

pkg_setup "$@"
. "$RXKIT_TOP/tests/lib/packages_repo.sh"
[ "$btree$bflavour" != debianguest ] ||
	die "--tree debian: Debian's own kernel is the other side of the cloud flavour's A/B alone; run: tests/packages_boot.sh --tree debian --flavour cloud $target"
pkg_need_root
need "$QEMU" qemu-system-x86
need mke2fs e2fsprogs
need cpio cpio
# What the guest installs: inst (apt-get install's arguments: the kit's
# metapackage, as INSTALL says), rm (apt-get remove's), repo (the job
# disk's repository: ci/repo's folder, or none), debs (Debian's packages:
# ci/debian-kernel's folder, or none), newer (the release of the stand-in
# newer kernel the job puts beside the kit's, or none).
repo= debs= dist=bookworm newer=
readonly NEWER=99.0.0-rxkit-newer
if [ "$bflavour" = guest ]; then
	pkg_need_kernel
	pkg_art_clean boot
	art="$art/boot"
	mkdir -p "$art"
	repo=$RXKIT_OUT/repo
	inst="linux-image$meta"
	rm="$inst linux-image-$rel"
	newer=$NEWER
	uapi=$o
	accel=$(pick_accel "$kernel" "$(ensure_initramfs "$o")" "$art/accel-probe")
else
	# The cloud flavour: pipeline/ab-verdict's folders (TREE-cloud/boot).
	art="$(out_dir "$target")/$btree-cloud/boot"
	rm -rf "$art"
	if [ "$btree" = patched ]; then
		rel=$(cloud_release) || die "no cloud flavour packages of $target; run: make cloud TARGET=$target"
		repo=$RXKIT_OUT/repo
		inst="linux-image$meta$(flavour_key "$RXKIT_TOP/kconfig/flavours/$bflavour" release)"
		rm="$inst linux-image-$rel"
		newer=$NEWER
	else
		debs=$("$RXKIT_TOP/ci/debian-kernel" "$target") || die "ci/debian-kernel $target failed"
		rel=$("$RXKIT_TOP/ci/debian-kernel" --release "$target")
		inst=$(cd "$debs" && for f in *.deb; do printf '/run/rxkit-job/debs/%s ' "$f"; done)
		# The kernel's own packages; linux-base stays, as with any kernel.
		rm=$(for f in "$debs"/*"$rel"_*.deb; do f=${f##*/}; printf '%s ' "${f%%_*}"; done)
	fi
	# Both kernels of the A/B in the image of the release Debian's is for.
	dist=$("$RXKIT_TOP/ci/debian-kernel" --image "$target") || die "ci/debian-kernel --image $target failed"
	# The vsock tests are the patched tree's (the cloud kernel's build
	# may be elsewhere).
	uapi=$(uapi_payload)
	case "${RXKIT_ACCEL:-auto}" in
	auto) accel=tcg
	      log "accelerator: TCG (the cloud kernel has no test initramfs to probe KVM with; RXKIT_ACCEL=kvm to use it)" >&2 ;;
	*) accel=$(pick_accel) ;;
	esac
fi
mkdir -p "$art"
pr="$art/results.log"
tree=$btree flavour=$bflavour
release=$rel

vm_image_args="--suite $dist"

# vm_job DIR: the job disk of images/vm/run: the repository or Debian's
# .deb files, the job's settings and the kit's test initramfs as a tree.
vm_job()
{
	local g="$1" i
	if [ -n "$repo" ]; then
		need_repo || return $?
		job_repo "$repo" "$g/repo" "$dist" "$rcomp" || return "$KSFT_FAIL"
	fi
	[ -z "$debs" ] || { mkdir "$g/debs" && cp "$debs"/*.deb "$g/debs/"; }
	cp "$RXKIT_TOP/images/vm/run" "$g/run"
	printf 'rel=%s\njobs="%s"\ninst="%s"\nrm="%s"\nnewer=%s\nscale=%s\n' "$rel" "$VSOCK_JOBS" "$inst" "$rm" \
		"$newer" "$(time_scale "$accel")" > "$g/env"
	guest_tree "$g/guest" "$uapi"
}

test_boot_debian()
{
	vm_run || return $?
	check_boot install debian
}

test_boot_install()
{
	local rc=0 b
	vm_run || return $?
	b=$(boot_block install)
	apt_ok install || return 1
	grep '^Setting up\|^update-initramfs\|^Generating grub\|^Found linux image' "$art/apt-install.log" |
		sed 's/^/# apt: /'
	printf '%s\n' "$b" | grep -qx "RXKIT: initrd new /boot/initrd.img-$rel" ||
		{ echo "# /boot/initrd.img-$rel was not made by the install"; rc=1; }
	printf '%s\n' "$b" | grep -qx 'RXKIT: grub.cfg new' ||
		{ echo "# /boot/grub/grub.cfg was not regenerated"; rc=1; }
	printf '%s\n' "$b" | grep -qx "RXKIT: grub.cfg has vmlinuz-$rel" ||
		{ echo "# grub.cfg has no entry of vmlinuz-$rel"; rc=1; }
	printf '%s\n' "$b" | sed -n 's/^RXKIT: grub-entry /# grub.cfg: /p'
	return "$rc"
}

# The metapackage keeps GRUB's default on the kit's kernel when a newer
# one (the stand-in: Debian's kernel copied under the release $NEWER,
# which GRUB sorts first) is installed beside it; boot_patched sees GRUB
# boot the kit's.
test_boot_default()
{
	local b d
	[ -n "$newer" ] || { SKIP_REASON="Debian's own kernel: no kit metapackage sets GRUB's default"; return "$KSFT_SKIP"; }
	vm_run || return $?
	b=$(boot_block install)
	printf '%s\n' "$b" | grep -qx "RXKIT: newer-kernel $newer update-grub 0" ||
		{ echo "# no newer kernel $newer beside the kit's (or update-grub failed)"; return 1; }
	printf '%s\n' "$b" | grep -q "^RXKIT: grub-entry linux[[:space:]]*/boot/vmlinuz-$newer " ||
		{ echo "# GRUB does not list the newer kernel $newer first"; return 1; }
	d=$(printf '%s\n' "$b" | sed -n 's/^RXKIT: grub-default //p')
	echo "# GRUB lists vmlinuz-$newer first; its default: $d"
	case "$d" in
	gnulinux-advanced-*">gnulinux-$rel-advanced-"*) ;;
	*) echo "# GRUB's default is not the entry of $rel"; return 1 ;;
	esac
}

test_boot_patched()
{
	vm_run || return $?
	check_boot patched "$rel"
}

test_boot_vsock()
{
	local b j jrc rc=0 bad
	vm_run || return $?
	b=$(boot_block patched)
	[ -n "$b" ] || { echo "# no boot of the patched kernel"; return 1; }
	for j in $VSOCK_JOBS; do
		job_block patched "$j" > "$art/$j.log"
		jrc=$(sed -n 's/^RXKIT: rc \([0-9]*\)$/\1/p' "$art/$j.log")
		vsock_cases "$j" "$art/$j.log" "$work/job/guest/rxkit/skip/$j" "${jrc:-255}" || rc=1
	done
	printf '%s\n' "$b" > "$art/patched.log"
	mkdir -p "$art/patched"
	printf '%s\n' "$b" > "$art/patched/results.log"
	: > "$art/patched/serial.log"
	bad=$(guest_dmesg_bad "$art/patched") || return 1
	[ -z "$bad" ] || { echo "# kernel log reports problems:"; printf '%s\n' "$bad" | sed 's/^/#   /'; rc=1; }
	return "$rc"
}

test_boot_remove()
{
	local rc=0 b
	vm_run || return $?
	b=$(boot_block patched)
	[ -n "$b" ] || { echo "# no boot of the patched kernel"; return 1; }
	apt_ok patched || return 1
	printf '%s\n' "$b" | grep -qx "RXKIT: removed /boot/vmlinuz-$rel" ||
		{ echo "# /boot/vmlinuz-$rel is still there"; rc=1; }
	printf '%s\n' "$b" | grep -qx "RXKIT: grub.cfg lost vmlinuz-$rel" ||
		{ echo "# grub.cfg still boots vmlinuz-$rel"; rc=1; }
	# What the last boot's GRUB read (its slow start: doc/package-tests.md).
	printf '%s\n' "$b" | sed -n 's/^RXKIT: grub-entry /# grub.cfg: /p; s/^RXKIT: boot-file /# \/boot: /p'
	check_boot removed debian || rc=1
	grep -q '^RXKIT: done' "$pr.txt" || { echo "# the last boot did not finish"; rc=1; }
	return "$rc"
}

results_begin "$art" packages_boot.sh
{ rc=0; pkg_run || rc=$?; echo "$rc" > "$art/rc"; } | tee "$art/results.ktap"
results_end vm-image
exit "$(cat "$art/rc")"
