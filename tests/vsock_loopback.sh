#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/vsock_loopback.sh: the kernel's vsock selftests over the loopback
# transport in a QEMU guest booted from a kit-built kernel.  KTAP on stdout;
# exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=vsock_loopback
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="boot_release vsock_test_loopback vsock_diag_test_loopback vsock_uring_test_loopback"
readonly TEST_DESCS="the guest boots the kernel built for TREE, its release as built:the tree's vsock_test over the loopback transport, a case a subtest:vsock_diag_test over loopback:vsock_uring_test over loopback (skipped with its reason where the tree has none)"

usage()
{
	cat <<USAGE
usage: tests/vsock_loopback.sh [--tree patched|baseline] [--flavour NAME]
       [-l] [-t NAME]... [-T NAME]... [TARGET]

Boot the TREE kernel of TARGET (default: patched, $RXKIT_TARGET) and run
its tests (-l lists them; -t NAME runs NAME, -T NAME leaves it out; each
may repeat).
Artefacts (serial logs, protocol logs, KTAP, results.json, reproducer.sh):
\$RXKIT_OUT/TARGET/TREE/loopback/ (TREE-FLAVOUR/ for a flavour other than guest)
Environment: RXKIT_ACCEL=auto|kvm|tcg.  Limits: boot and job of tests/data/limits.
USAGE
}

guest_test_setup "$@"
art="$(out_dir "$target")/$variant/loopback"
rm -rf "$art"
mkdir -p "$art"
# Skip lists of this target and flavour over the initramfs's own.
skip_files "$art" "$target" "$flavour" vsock_test_loopback \
	vsock_diag_test_loopback vsock_uring_test_loopback
tools_initrd "$o" "$art"
initrd="$art/initrd.cpio.gz"
accel=$(pick_accel "$kernel" "$initrd" "$art/accel-probe")
printf '%s\n' "$accel" > "$art/accel"
results_begin "$art" vsock_loopback.sh

# run_job JOB: boot a guest for JOB; diagnostics as '# ' lines; returns
# the KSFT code of boot + job + kernel log.
run_job()
{
	local rc=0
	guest_run "$art/$1" "$kernel" "$initrd" "$1" "$accel" || rc=$?
	guest_verdict "$1" "$art/$1" "$rc" "$JOB_TIMEOUT"
}

test_boot_release()
{
	local got=
	run_job probe || return $?
	got=$(sed -n 's/^RXKIT: init //p' "$art/probe/results.log" | tr -d '\r')
	echo "# booted $got ($accel, $(guest_cpu_count "$art/probe/results.log") of $GUEST_SMP vCPUs)"
	[ "$got" = "$release" ] || { echo "# uname -r is '$got', built '$release'"; return "$KSFT_FAIL"; }
	case "$got" in
	*"$suffix") return "$KSFT_PASS" ;;
	*) echo "# release '$got' lacks the $tree mark '$suffix'"; return "$KSFT_FAIL" ;;
	esac
}

# vsock_job JOB: run a vsock_test-style job and print its cases as subtests.
vsock_job()
{
	local rc=0
	run_job "$1" || rc=$?
	sed -n '/^RXKIT: job/,/^RXKIT: rc/p' "$art/$1/results.log" > "$art/$1/job.log"
	vsock_cases "$1" "$art/$1/job.log" "$art/tools/rxkit/skip/$1" "$rc"
}

test_vsock_test_loopback() { vsock_job vsock_test_loopback; }
test_vsock_diag_test_loopback() { vsock_job vsock_diag_test_loopback; }
test_vsock_uring_test_loopback()
{
	if [ ! -x "$o/rxkit-tests/bin/vsock_uring_test" ]; then
		SKIP_REASON="Linux $release has no tools/testing/vsock/vsock_uring_test.c (new in 6.8)"
		return "$KSFT_SKIP"
	fi
	vsock_job vsock_uring_test_loopback
}

echo "# $target/$variant: $release, accelerator $accel, time scale $(time_scale "$accel"), artefacts $art"
# shellcheck disable=SC2086
{ rc=0; run_tests $TESTS || rc=$?; echo "$rc" > "$art/rc"; } | tee "$art/results.ktap"
results_end loopback
exit "$(cat "$art/rc")"
