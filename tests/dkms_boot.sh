#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/dkms_boot.sh: vsock-rxkit-dkms installed as a user does on a Debian
# VM that runs Debian's own kernel, and removed again.  KTAP on stdout;
# exit 0 (all passed or skipped), 1 (a failure).
#
# The VM is images/mkimage --variant dkms (Debian's cloud kernel and its
# headers, dkms, openssl), booted through SeaBIOS and GRUB with its disk in
# snapshot mode and a job disk (tests/lib/image_vm.sh) holding
# images/vm/run-dkms, the pinned kernel and headers (ci/debian-kernel
# --headers), ci/repo --dkms's signed repository and the kit's test
# initramfs as a tree.  The image's kernel installs the pinned one, then
# three boots of it: with Debian's modules (the vsock jobs, then apt-get
# install vsock-rxkit-dkms: dkms builds in the guest), with the package's
# modules (the same jobs, then apt-get remove), and with Debian's again.
# The A/B verdict: no case that passed on Debian's modules fails on the
# package's.  A virtio-vsock device (tests/lib/image_virtio.sh) carries a
# stream to the guest in the boots of both module sets.
set -eu
PROG=dkms_boot
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"
. "$RXKIT_TOP/tests/lib/image_vm.sh"
. "$RXKIT_TOP/tests/lib/vhost_user.sh"
. "$RXKIT_TOP/tests/lib/image_virtio.sh"

# Each test and what it checks (-l); one VM run serves them all.
readonly TEST_NAMES="dkms_boot_debian dkms_vsock_debian dkms_install dkms_refused dkms_loaded dkms_vsock dkms_virtio dkms_removed"
readonly TEST_DESCS="Debian's pinned kernel and headers, installed from their .debs, boot to multi-user.target with every vCPU:\
the vsock jobs pass on Debian's modules, the ones loaded:\
apt-get installs vsock-rxkit-dkms from ci/repo --dkms's repository and dkms builds and installs it for the running kernel:\
dkms builds nothing for the image's other kernel (another ABI), and says why:\
after a reboot every loaded module of the family is the package's (updates/dkms, the kit's version, signed by dkms's key):\
the vsock jobs pass on the package's modules, no case that passed on Debian's fails, the kernel log clean:\
a virtio-vsock device (vhost-device-vsock) carries a 16 MiB stream host to guest on Debian's modules and on the package's, every byte checked by the guest:\
apt-get remove takes the modules out and the next boot loads Debian's again"
VM_TIMEOUT=$(limit vm) || exit 2
readonly VM_TIMEOUT

usage()
{
	cat <<USAGE
usage: tests/dkms_boot.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Install-and-reboot test of the vsock-rxkit-dkms package of TARGET (default:
$RXKIT_TARGET; it needs series/TARGET/debian-headers) in the kit's VM
image of that pin's Debian release with Debian's kernel, from ci/repo
--dkms's signed repository (-l lists the tests; -t NAME runs NAME, -T NAME
leaves it out; each may repeat).  One VM run (four boots, at most
${VM_TIMEOUT}s) serves every test.  ci/prepare must have made TARGET's
trees.  Without vhost-device-vsock (tests/vhost-user-backend --install),
dkms_virtio is a SKIP.
Artefacts (console and protocol logs, each boot's cases):
\$RXKIT_OUT/TARGET/dkms-boot/
Limit: vm of tests/data/limits.
USAGE
}

pkg_setup "$@"
pkg_need_root
trap 'virtio_stop; pkg_cleanup' EXIT
need "$QEMU" qemu-system-x86
need mke2fs e2fsprogs
need cpio cpio
pin="$(target_dir "$target")/debian-headers"
[ -f "$pin" ] || die "no $pin: no Debian kernel ABI pinned for the $target series"
rel=$("$RXKIT_TOP/ci/debian-kernel" --headers --release "$target") || exit 1
debs=$("$RXKIT_TOP/ci/debian-kernel" --headers "$target") || die "ci/debian-kernel --headers $target failed"
dist=$("$RXKIT_TOP/ci/debian-kernel" --headers --image "$target") || exit 1
art="$(out_dir "$target")/dkms-boot"
rm -rf "$art"
mkdir -p "$art"
pr="$art/results.log"
vm_image_args="--variant dkms --suite $dist"
# The vsock tests are the patched tree's (no kernel of this target is
# built here).
uapi=$(uapi_payload)
accel=tcg

# vm_job DIR: the DKMS package (ci/dkms) in ci/repo --dkms's repository,
# the job and its settings, the vsock jobs' tree.
vm_job()
{
	local g="$1" jobs
	RXKIT_OUT="$work/out" "$RXKIT_TOP/ci/dkms" --no-lint "$target" > "$art/ci-dkms.log" 2>&1 ||
		{ tail -n 10 "$art/ci-dkms.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	RXKIT_OUT="$work/out" "$RXKIT_TOP/ci/repo" --dkms "$target" > "$art/ci-repo.log" 2>&1 ||
		{ tail -n 10 "$art/ci-repo.log" | sed 's/^/# /'; return "$KSFT_FAIL"; }
	job_repo "$work/out/repo" "$g/repo" "$dist" main || return "$KSFT_FAIL"
	mkdir "$g/debs"
	cp "$debs"/*.deb "$g/debs/"
	modversion=$(tar -xJOf "$work/out/$target/dkms/"*.orig.tar.xz --wildcards '*/rxkit-modversion.h' |
		sed -n 's/^#define VSOCKRX_MODULE_VERSION "\(.*\)"$/\1/p')
	cp "$RXKIT_TOP/images/vm/run-dkms" "$g/run"
	guest_tree "$g/guest" "$uapi" || return "$KSFT_FAIL"
	# The virtio job in the boots of Debian's modules and the package's.
	jobs=$VSOCK_JOBS
	if virtio_start "$uapi"; then
		jobs="$jobs $VIRTIO_JOBS"
		cp "$virtio_art/rxkit-vsock" "$g/guest/rxkit/"
	fi
	printf 'rel=%s\njobs="%s"\nscale=%s\n' "$rel" "$jobs" "$(time_scale "$accel")" > "$g/env"
}

# loaded STEP WHERE VERSION: the family's modules loaded in STEP's boot
# (at least vsock and its loopback transport) all from WHERE (kernel or
# updates/dkms), of VERSION ('' : any) and signed (Debian's by Debian's
# key; the package's by dkms's own, so not by the key that signed
# Debian's vsock in the debian boot).
loaded()
{
	local b rc=0 m f v s n=0 deb=
	b=$(boot_block "$1")
	printf '%s\n' "$b" | sed -n 's/^RXKIT: module //p' > "$work/loaded-$1"
	[ "$2" = kernel ] ||
		deb=$(boot_block debian | sed -n 's/^RXKIT: module vsock [^ ]* [^ ]* //p')
	while read -r m f v s; do
		n=$((n + 1))
		case "$f" in
		"/lib/modules/$rel/$2/"*) ;;
		*) echo "# $1: $m from $f, not $2"; rc=1 ;;
		esac
		[ -z "$3" ] || [ "$v" = "$3" ] || { echo "# $1: $m version '$v', not '$3'"; rc=1; }
		[ "${s:--}" != - ] || { echo "# $1: $m is not signed"; rc=1; }
		[ -z "$deb" ] || [ "$s" != "$deb" ] || { echo "# $1: $m signed by Debian's key ($s)"; rc=1; }
	done < "$work/loaded-$1"
	grep -q '^vsock ' "$work/loaded-$1" && grep -q '^vsock_loopback ' "$work/loaded-$1" ||
		{ echo "# $1: vsock or vsock_loopback not loaded"; rc=1; }
	echo "# $1: $n modules of the family loaded from $2: $(cut -d' ' -f1 "$work/loaded-$1" | tr '\n' ' ')"
	echo "# $1: signed by: $(cut -d' ' -f4- "$work/loaded-$1" | sort -u | paste -sd';' -)"
	return "$rc"
}

# jobs_pass STEP: the vsock jobs of STEP's boot, their cases in $art/STEP/.
jobs_pass()
{
	local j jrc rc=0
	for j in $VSOCK_JOBS; do
		job_block "$1" "$j" > "$work/$1-$j.log"
		jrc=$(sed -n 's/^RXKIT: rc \([0-9]*\)$/\1/p' "$work/$1-$j.log")
		art="$art/$1" vsock_cases "$j" "$work/$1-$j.log" "$work/job/guest/rxkit/skip/$j" "${jrc:-255}" ||
			rc=1
	done
	return "$rc"
}

test_dkms_boot_debian()
{
	local p v rc=0
	vm_run || return $?
	apt_ok pin || rc=1
	check_boot debian "$rel" || rc=1
	for p in "linux-image-$rel" "linux-headers-$rel"; do
		v=$(awk -v p="$p" '$1 == "deb" && $2 == p { print $3 }' "$pin")
		boot_block debian | grep -qx "RXKIT: package $p $v" ||
			{ echo "# the image's $p is not the pinned $v: $(boot_block debian | sed -n "s/^RXKIT: package $p //p")"; rc=1; }
	done
	return "$rc"
}

test_dkms_vsock_debian()
{
	vm_run || return $?
	loaded debian kernel '' || return 1
	jobs_pass debian
}

test_dkms_install()
{
	vm_run || return $?
	apt_ok debian || return 1
	grep '^Building\|^Signing\|^Installing\|^depmod\|^vsock-rxkit-dkms' "$art/apt-debian.log" | sed 's/^/# apt: /'
	boot_block debian | sed -n 's/^RXKIT: apt-seconds /# apt-get (the last: install, dkms build included): /p' | tail -n 1
	boot_block debian | grep -q "^RXKIT: dkms-status vsock-rxkit/.*, $rel, x86_64: installed" ||
		{ echo "# dkms status: $(boot_block debian | sed -n 's/^RXKIT: dkms-status //p')"; return 1; }
}

test_dkms_refused()
{
	local b k n=0 rc=0
	vm_run || return $?
	b=$(boot_block debian)
	for k in $(printf '%s\n' "$b" | sed -n 's/^RXKIT: other-abi \([^ ]*\) rc .*/\1/p'); do
		n=$((n + 1))
		printf '%s\n' "$b" | grep -qx "RXKIT: other-abi $k rc 77" ||
			{ echo "# dkms build for $k: $(printf '%s\n' "$b" | sed -n "s/^RXKIT: other-abi $k //p"), not 77"; rc=1; }
		! printf '%s\n' "$b" | grep -q "^RXKIT: dkms-status .*, $k, .*installed" ||
			{ echo "# dkms installed modules for $k"; rc=1; }
	done
	if [ "$n" = 0 ]; then
		# Debian 13's image kernel is the one series/6.12 pins.
		[ "$(boot_block pin | sed -n 's/^RXKIT: boot pin //p')" = "$rel" ] ||
			{ echo "# the image has no other kernel with headers to refuse"; return 1; }
		SKIP_REASON="the image's own kernel is the pinned $rel, and no other has headers (tests/dkms_build.sh dkms_refused builds for another ABI)"
		return "$KSFT_SKIP"
	fi
	printf '%s\n' "$b" | sed -n 's/^RXKIT: other-abi-log //p' | dkms_excluded_said ||
		{ echo "# dkms did not say why"; rc=1; }
	echo "# refused for $n other kernel(s): $(printf '%s\n' "$b" | sed -n 's/^RXKIT: other-abi \([^ ]*\) rc .*/\1/p' | tr '\n' ' ')"
	return "$rc"
}

test_dkms_loaded()
{
	vm_run || return $?
	check_boot modules "$rel" || return 1
	loaded modules updates/dkms "$modversion"
}

test_dkms_vsock()
{
	local rc=0 bad j
	vm_run || return $?
	jobs_pass modules || rc=1
	for j in $VSOCK_JOBS; do
		awk 'FNR == NR { if ($1 == "ok") was[$2] = 1; next }
			$1 == "not" && ($3 in was) { print "# REGRESSION: case " $3 " " $4 " passed on Debian'"'"'s modules"; bad = 1 }
			END { exit bad }' "$art/debian/$j/cases.ktap" "$art/modules/$j/cases.ktap" || rc=1
	done
	mkdir -p "$art/modules-log"
	boot_block modules > "$art/modules-log/results.log"
	: > "$art/modules-log/serial.log"
	bad=$(guest_dmesg_bad "$art/modules-log") || return 1
	[ -z "$bad" ] || { echo "# kernel log reports problems:"; printf '%s\n' "$bad" | sed 's/^/#   /'; rc=1; }
	return "$rc"
}

test_dkms_virtio()
{
	local rc=0
	vm_run || return $?
	[ -n "$virtio_on" ] || { SKIP_REASON="no virtio-vsock device: $BACKEND_SKIP"; return "$KSFT_SKIP"; }
	echo "# backend: $BACKEND"
	virtio_check debian 1 || rc=1
	virtio_check modules 2 || rc=1
	return "$rc"
}

test_dkms_removed()
{
	local rc=0
	vm_run || return $?
	apt_ok modules || rc=1
	! boot_block modules | grep '^RXKIT: left ' | sed 's/^RXKIT: left /# left in updates\/dkms: /' | grep . || rc=1
	check_boot removed "$rel" || rc=1
	loaded removed kernel '' || rc=1
	grep -q '^RXKIT: done' "$pr.txt" || { echo "# the last boot did not finish"; rc=1; }
	return "$rc"
}

pkg_run
