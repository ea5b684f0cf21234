#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_vhost_vsock.sh: the kernel's vsock selftests between a host with a
# real vhost-vsock device and a guest booted from a kit-built kernel, in the
# topology of upstream tools/testing/selftests/vsock/vmtest.sh
# (vm_server_host_client, vm_client_host_server), plus byte-checked bulk
# streams both ways.  KTAP on stdout; exit 0 (all passed or skipped), 1.
#
# Backend, chosen automatically and named in the output:
#   host    /dev/vhost-vsock works here: this machine is the host;
#   nested  otherwise: a fixed kit kernel (L1, default the target's baseline
#           build, VHOST_VSOCK=m) boots under QEMU with QEMU inside its
#           initramfs (images/mknested) and is the host of the kernel under
#           test (L2).
# In both, tests/guest/vhost-host drives the host side and the guest runs
# job vhost_guest; one guest boot carries every test.
set -eu
PROG=vsock_vhost_vsock
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/vhost_vsock.sh"

# In the manner of vmtest.sh: each test and what it checks (one guest run
# serves them all: -t and -T choose what is reported).
readonly TEST_NAMES="boot guest_to_host host_to_guest vsock_test_vm_client vsock_test_vm_server vsock_diag_test_vm_client vsock_diag_test_vm_server kernel_log"
readonly TEST_DESCS="the L1 host and the L2 guest boot, the guest behind the L1's vhost-vsock:one stream guest to host, every byte checked:one stream host to guest, every byte checked:the tree's vsock_test with the guest as client and the L1 host serving:vsock_test with the guest serving:vsock_diag_test with the guest as client:vsock_diag_test with the guest serving:no WARN, BUG, lockdep, KASAN or vsock error in either kernel's log"
NESTED_TIMEOUT=$(limit vhost-vsock) || exit 2
readonly NESTED_TIMEOUT
readonly GUEST_CID=3
# The settings of this suite, which reproducer.sh repeats.
readonly SETTINGS="RXKIT_VHOST_VSOCK_BACKEND RXKIT_VHOST_VSOCK_L1"

usage()
{
	cat <<USAGE
usage: tests/vsock_vhost_vsock.sh [--tree patched|baseline] [--flavour NAME]
       [-l] [-t NAME]... [-T NAME]... [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) behind a
real vhost-vsock device and run its tests (-l lists them; -t NAME reports
NAME, -T NAME leaves it out; each may repeat; the guest run is the same).
Artefacts: \$RXKIT_OUT/TARGET/TREE/vhost-vsock/ (serial and
protocol logs of every kernel, host-side logs, KTAP, results.json,
reproducer.sh).
Environment: RXKIT_VHOST_VSOCK_BACKEND=auto|host|nested, RXKIT_VHOST_VSOCK_L1=TARGET/TREE
  (the L1 kernel, default TARGET/baseline, built by ci/build),
  RXKIT_ACCEL=auto|kvm|tcg (the outermost guest).  Limits: vhost-vsock (the
  L1 run), boot and job of tests/data/limits.
USAGE
}

guest_test_setup "$@"
# The nested host runs the target's own unpatched kernel: the host side
# of every pair checks its kernel against the tree's vsock_test (6.1's
# test program expects 6.1's errno values, not 7.3's).
readonly L1=${RXKIT_VHOST_VSOCK_L1:-$target/baseline}
need gcc gcc
need cpio cpio
need gzip gzip

detect_host

art="$(out_dir "$target")/$variant/vhost-vsock"
rm -rf "$art"
mkdir -p "$art"
printf '%s\n' "$BACKEND" > "$art/backend"

# Skip lists (tests/guest/skip/JOB[.TARGET[.FLAVOUR]]): the guest reads them
# from /rxkit/skip/JOB, the host side gets the same --skip options.
skip_files "$art" "$target" "$flavour" vsock_test_vm_client vsock_test_vm_server \
	vsock_diag_test_vm_client vsock_diag_test_vm_server

accel=none
if [ -z "$BACKEND_SKIP" ]; then
	tools_initrd "$o" "$art"
	accel=$(pick_accel "$kernel" "$art/initrd.cpio.gz" "$art/accel-probe")
	[ "$mode" = host ] || accel="$accel (L1), tcg (L2 in L1)"
fi
printf '%s\n' "$accel" > "$art/accel"
# The guest under test and the host side of its pairs wait alike: for a
# guest in TCG inside L1, the factor of tcg-in-L1's accelerator.
case "$mode:$accel" in
nested:none) time_scale=1 ;;
nested:*) time_scale=$(time_scale "tcg-in-${accel%% *}") ;;
*) time_scale=$(time_scale "${accel%% *}") ;;
esac
skip_opts() { awk 'NF { printf " --skip=%s", $1 }' "$art/tools/rxkit/skip/$1"; }
cat > "$art/env" <<ENV
VH_SKIP_VT_CLIENT='$(skip_opts vsock_test_vm_client)'
VH_SKIP_VT_SERVER='$(skip_opts vsock_test_vm_server)'
VH_SKIP_DG_CLIENT='$(skip_opts vsock_diag_test_vm_client)'
VH_SKIP_DG_SERVER='$(skip_opts vsock_diag_test_vm_server)'
VH_MEM=768
VH_SMP=$GUEST_SMP
VH_STEP_TIMEOUT=1200
VH_BOOT_TIMEOUT=600
VH_TIME_SCALE=$time_scale
ENV
# shellcheck disable=SC2086
results_begin "$art" vsock_vhost_vsock.sh $SETTINGS

# host_out: where the host side's files are (vhost-host's OUT).
host_out="$art/host"

# skip_if_no_run: the shared run's failure to start, as each test's verdict.
run_rc=0
skip_if_no_run()
{
	if [ -n "$BACKEND_SKIP" ]; then
		SKIP_REASON=$BACKEND_SKIP
		return "$KSFT_SKIP"
	fi
	[ -f "$host_out/guest.results.log" ] && return 0
	echo "# the guest under test never ran (run rc $run_rc; logs: $art)"
	return "$KSFT_FAIL"
}

test_boot()
{
	local l1= got= cid=
	skip_if_no_run || return $?
	if [ "$mode" = nested ]; then
		l1=$(sed -n 's/^RXKIT: init //p' "$art/l1/results.log" | tr -d '\r')
		echo "# L1: $l1, $(grep -a '^RXKIT: l1 vhost-vsock' "$art/l1/results.log" | tr -d '\r')"
		guest_cpus L1 "$art/l1/results.log" "$art/l1/serial.log" "$GUEST_SMP" || return "$KSFT_FAIL"
	fi
	got=$(tr -d '\r' < "$host_out/guest.results.log" | sed -n 's/^RXKIT: init //p')
	cid=$(tr -d '\r' < "$host_out/guest.results.log" | sed -n 's/^RXKIT: cid //p')
	echo "# guest: $got, CID ${cid:-?} ($BACKEND)"
	[ "$got" = "$release" ] || { echo "# uname -r is '$got', built '$release'"; return "$KSFT_FAIL"; }
	echo "# guest: $(guest_cpu_count "$host_out/guest.results.log") of $GUEST_SMP vCPUs"
	guest_cpus guest "$host_out/guest.results.log" "$host_out/guest.serial.log" "$GUEST_SMP" ||
		return "$KSFT_FAIL"
	[ "$cid" = "$GUEST_CID" ] || [ "$mode" = host ] ||
		{ echo "# guest CID '$cid', expected $GUEST_CID"; return "$KSFT_FAIL"; }
	# Both ends of every pair wait alike: the factor reached the guest.
	got=$(tr -d '\r' < "$host_out/guest.results.log" | sed -n 's/^RXKIT: time-scale //p')
	echo "# guest: time scale ${got:-?}, the host side's $time_scale"
	[ "$got" = "$time_scale" ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

# stream_test NAME RECEIVER_LOG: both ends exited 0 and the receiver's
# line says every byte arrived in order.
stream_test()
{
	local h= g= line=
	skip_if_no_run || return $?
	h=$(host_step "$1")
	g=$(guest_step "$1")
	line=$(grep -h 'rxkit-vsock: recv' "$2" 2>/dev/null | tail -n 1)
	echo "# $1: host rc $h, guest rc $g; ${line:-no receiver result}"
	[ "$h" = 0 ] && [ "$g" = 0 ] || return "$KSFT_FAIL"
	case "$line" in
	*result=ok*) return "$KSFT_PASS" ;;
	*) return "$KSFT_FAIL" ;;
	esac
}

test_guest_to_host() { stream_test guest_to_host "$host_out/guest_to_host.log"; }

test_host_to_guest()
{
	guest_section host_to_guest > "$art/host_to_guest.guest.log" 2>/dev/null || true
	stream_test host_to_guest "$art/host_to_guest.guest.log"
}

# pair_test NAME SKIPLIST CLIENT_LOG SERVER_LOG: a vsock_test-style pair;
# the cases as subtests (a case fails on either side); both ends must exit 0.
pair_test()
{
	local h= g= rc=0
	skip_if_no_run || return $?
	h=$(host_step "$1")
	g=$(guest_step "$1")
	echo "# $1: host side rc $h, guest side rc $g"
	[ "$h" = 0 ] && [ "$g" = 0 ] || rc=1
	[ ! -f "$host_out/$1.times" ] || case_times_note "$1" "$host_out/$1.times" "$art/$1"
	vsock_cases "$1" "$3" "$art/tools/rxkit/skip/$2" "$rc" "$4"
}

# vm_client: the guest is the client, the host (L1) serves; vm_server the
# other way round.  The guest's side is its section of the protocol log.
vm_client_pair()
{
	guest_section "$1" > "$art/$1.guest.log" 2>/dev/null || true
	pair_test "$1" "$1" "$art/$1.guest.log" "$host_out/$1.log"
}
vm_server_pair()
{
	guest_section "$1" > "$art/$1.guest.log" 2>/dev/null || true
	pair_test "$1" "$1" "$host_out/$1.log" "$art/$1.guest.log"
}
test_vsock_test_vm_client() { vm_client_pair vsock_test_vm_client; }
test_vsock_test_vm_server() { vm_server_pair vsock_test_vm_server; }
test_vsock_diag_test_vm_client() { vm_client_pair vsock_diag_test_vm_client; }
test_vsock_diag_test_vm_server() { vm_server_pair vsock_diag_test_vm_server; }

# test_kernel_log: no WARN, BUG, lockdep, KASAN or vsock error line in the
# kernel log of the guest under test, nor in L1's (the vhost side).
test_kernel_log()
{
	local bad=0 k= lines=
	skip_if_no_run || return $?
	mkdir -p "$art/l2"
	cp "$host_out/guest.results.log" "$art/l2/results.log"
	cp "$host_out/guest.serial.log" "$art/l2/serial.log" 2>/dev/null || : > "$art/l2/serial.log"
	for k in l2 l1; do
		[ -d "$art/$k" ] || continue
		lines=$(guest_dmesg_bad "$art/$k") || return "$KSFT_FAIL"
		[ -n "$lines" ] || continue
		echo "# $k kernel log reports problems:"
		printf '%s\n' "$lines" | sed 's/^/#   /'
		bad=1
	done
	grep -q '^RXKIT: dmesg-end' "$art/l2/results.log" ||
		{ echo "# the guest's kernel log dump is missing"; bad=1; }
	[ "$bad" = 0 ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

echo "# $target/$variant: $release, backend $BACKEND, accelerator $accel, time scale $time_scale, artefacts $art"
if [ -z "$BACKEND_SKIP" ]; then
	t0=$(date +%s)
	run_rc=0
	"run_$mode" || run_rc=$?
	echo "# guest run ($mode): rc $run_rc, $(($(date +%s) - t0)) s"
fi
# shellcheck disable=SC2086
{ rc=0; run_tests $TESTS || rc=$?; echo "$rc" > "$art/rc"; } | tee "$art/results.ktap"
results_end "$BACKEND"
exit "$(cat "$art/rc")"
