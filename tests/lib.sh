# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Host-side helpers of the test scripts, sourced after ci/lib.sh: the one
# file the scripts source; each concern is a file of tests/lib/.
#   ktap.sh       KTAP output, KSFT codes, diag, suite_options, run_tests
#   results.sh    results_begin/results_end: reproducer.sh, results.json
#   qemu.sh       accelerator, guest_run, the protocol, wait_for, guest_verdict
#                 (kernel log patterns: tests/data/dmesg-bad)
#   initramfs.sh  ensure_initramfs, tools_initrd, mover
#   cases.sh      vsock_test cases as KTAP, skip lists, backend defects
#                 (tests/data/backend-defects)
#   known.sh      the known kernel defects of the sockmap cases (XFAIL)
#   streams.sh    the per-stream result lines of rxkit-vsock, checked
#   args.sh       guest_test_setup: a guest suite's command line and kernel
#   paths.sh      twin
#   selftests.sh  the kit's own selftests of a target (series/T/selftests)
#                 applied to a view of a tree (also images/waits, mkbpftests)
# and, each sourced by its suite alone: vhost_user.sh (vsock_vhost_user.sh,
# vsock_sockmap.sh, dkms_boot.sh, bench.sh), vhost_vsock.sh
# (vsock_vhost_vsock.sh), bench.sh (bench.sh), image_vm.sh
# (packages_boot.sh, dkms_boot.sh), image_virtio.sh (dkms_boot.sh).

. "$RXKIT_TOP/tests/lib/ktap.sh"
. "$RXKIT_TOP/tests/lib/results.sh"
. "$RXKIT_TOP/tests/lib/qemu.sh"
. "$RXKIT_TOP/tests/lib/initramfs.sh"
. "$RXKIT_TOP/tests/lib/cases.sh"
. "$RXKIT_TOP/tests/lib/known.sh"
. "$RXKIT_TOP/tests/lib/streams.sh"
. "$RXKIT_TOP/tests/lib/args.sh"
. "$RXKIT_TOP/tests/lib/paths.sh"
. "$RXKIT_TOP/tests/lib/selftests.sh"
