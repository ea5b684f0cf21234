#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/errors_build.sh: error paths of the kernel configuration and
# build, the guest boots and the per-patch checks: each is refused or
# reported, with the reason.  The tests use the kit's prepared and built
# TARGET tree (and SKIP, saying which stage makes it, without one); their
# own files stay in a private folder.  KTAP on stdout.
set -eu
PROG=errors_build
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/errors.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="kconfig_unmet build_lock kconfig_changed qemu_no_init dmesg_scan series_bad_patch vhost_no_l1"
readonly TEST_DESCS="ci/build --config-only stops on a flavour symbol its dependencies leave unset, naming it:a second ci/build of one build folder waits for the first, saying so:ci/kconfig-check --same stops a package build whose olddefconfig changes a shipped symbol, not one whose rustc differs:a guest without /init, and one hung before it, end within the boot bound with the serial log kept:the kernel log scan finds an injected WARNING, and nothing in a clean boot:tests/series.sh fails a patch with an unused variable and a trailing space in W=1 and checkpatch, naming both:the nested suite without its L1 kernel skips every test with the reason and the command that builds it"

usage()
{
	cat <<USAGE
usage: tests/errors_build.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Error-path tests of the configuration, build and boot of the TARGET
kernel (default $RXKIT_TARGET) and of the per-patch checks.

-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test)
-T NAME  do not run NAME (may repeat)
USAGE
}
errors_setup "$@"

test_kconfig_unmet()
{
	local src=
	src="$(src_root "$target")/baseline"
	[ -d "$src" ] || { SKIP_REASON="no $target baseline tree (ci/prepare $target)"; return "$KSFT_SKIP"; }
	expect_fail "$work/kconfig" "CONFIG_VIRTIO_VSOCKETS: requested y, got n" \
		"$RXKIT_TOP/ci/build" --config-only --tree baseline \
		--flavour "$RXKIT_TOP/tests/fixtures/flavour-bad" "$target" || return "$KSFT_FAIL"
	rm -rf "$src/o-flavour-bad"
}

# Two builds of one folder: the second waits for the first's lock (a
# holder started here, which lets go once it is asked), says so, then
# runs (the fixture flavour's configuration error shows it ran after).
test_build_lock()
{
	local src= o= held="$work/lock-held" i=0
	src="$(src_root "$target")/baseline"
	[ -d "$src" ] || { SKIP_REASON="no $target baseline tree (ci/prepare $target)"; return "$KSFT_SKIP"; }
	o="$src/o-flavour-bad"
	mkdir -p "$o"
	rm -f "$held"
	# The holder lets go once ci/build says it waits, or after 60 s.
	flock "$o/.build.lock" sh -c ': > "$1"; i=0
		while ! grep -q "waiting for another" "$2" 2>/dev/null && [ "$i" -lt 600 ]; do
			sleep 0.1; i=$((i + 1))
		done' sh "$held" "$work/build-lock" &
	while [ ! -e "$held" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$held" ] || { echo "# flock(1) did not take $o/.build.lock"; wait; return "$KSFT_FAIL"; }
	expect_fail "$work/build-lock" "CONFIG_VIRTIO_VSOCKETS: requested y, got n" \
		"$RXKIT_TOP/ci/build" --config-only --tree baseline \
		--flavour "$RXKIT_TOP/tests/fixtures/flavour-bad" "$target" || { wait; return "$KSFT_FAIL"; }
	wait
	rm -rf "$o"
	expect_in "$work/build-lock" "waiting for another ci/build of $target/baseline/flavour-bad" \
		"ci/build did not wait for the folder's lock" || return "$KSFT_FAIL"
}

# The package builds' configuration check (ci/kconfig-check --same): a
# build machine whose olddefconfig changes a symbol of the shipped
# configuration stops the build; a different rustc (a probe the build does
# not use while CONFIG_RUST is off) does not.
test_kconfig_changed()
{
	local c=
	c="$(src_root "$target")/patched/o-guest/.config"
	[ -f "$c" ] || { SKIP_REASON="no configured $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	sed -e 's/^CONFIG_VSOCKETS=y$/# CONFIG_VSOCKETS is not set/' \
	    -e 's/^CONFIG_RUSTC_VERSION=.*/CONFIG_RUSTC_VERSION=1/' "$c" > "$work/config-changed"
	expect_fail "$work/kconfig-changed" "CONFIG_VSOCKETS: shipped y, olddefconfig here n" \
		sh "$RXKIT_TOP/ci/kconfig-check" --same "$c" "$work/config-changed" || return "$KSFT_FAIL"
	grep -q '^  CONFIG_RUSTC_VERSION:' "$work/kconfig-changed" &&
		{ echo "# the rustc probe was counted as a difference"; return "$KSFT_FAIL"; }
	sed 's/^CONFIG_RUSTC_VERSION=.*/CONFIG_RUSTC_VERSION=1/' "$c" > "$work/config-rustc"
	sh "$RXKIT_TOP/ci/kconfig-check" --same "$c" "$work/config-rustc" 2> "$work/kconfig-rustc" ||
		{ echo "# another rustc failed the check:"; sed 's/^/#   /' "$work/kconfig-rustc"; return "$KSFT_FAIL"; }
	expect_in "$work/kconfig-rustc" '^kconfig-check: note: CONFIG_RUSTC_VERSION' "no note of the rustc probe" || return "$KSFT_FAIL"
}

test_qemu_no_init()
{
	local o= rc=0 t0= t=
	o="$(src_root "$target")/patched/o-guest"
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	need "$QEMU" qemu-system-x86
	# An initramfs without /init: the kernel panics, no protocol ever.
	mkdir -p "$work/noinit/etc"
	(cd "$work/noinit" && echo etc | cpio -o -H newc --quiet | gzip) > "$work/noinit.gz"
	guest_run -b 30 "$work/vm" "$o/arch/x86/boot/bzImage" "$work/noinit.gz" \
		probe tcg || rc=$?
	[ "$rc" = 2 ] || { echo "# guest_run returned $rc, expected 2 (no /init)"; return "$KSFT_FAIL"; }
	[ -s "$work/vm/serial.log" ] || { echo "# serial log not kept"; return "$KSFT_FAIL"; }
	grep -E 'No working init|Kernel panic' "$work/vm/serial.log" | head -n 2 | sed 's/^/#   /'
	# And a guest that hangs before /init: bounded by BOOT_TIMEOUT.
	t0=$(date +%s)
	rc=0
	guest_run -b 5 "$work/vm2" "$o/arch/x86/boot/bzImage" "$work/noinit.gz" \
		probe tcg -append "console=ttyS0 panic=0" || rc=$?
	t=$(( $(date +%s) - t0 ))
	[ "$rc" = 2 ] && [ "$t" -lt 30 ] ||
		{ echo "# hung guest: rc=$rc after ${t}s, expected 2 within the 5 s bound"; return "$KSFT_FAIL"; }
	echo "# hung guest stopped after ${t}s"
}

# A WARNING in the guest's kernel log is found by the scan that fails runs.
test_dmesg_scan()
{
	local o= initrd= bad=
	o="$(src_root "$target")/patched/o-guest"
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	initrd=$(ensure_initramfs "$o") || return "$KSFT_FAIL"
	guest_run "$work/warn" "$o/arch/x86/boot/bzImage" "$initrd" \
		kmsg_warn tcg || { echo "# guest run failed"; return "$KSFT_FAIL"; }
	bad=$(guest_dmesg_bad "$work/warn")
	printf '%s\n' "$bad" | sed 's/^/#   found: /'
	printf '%s\n' "$bad" | grep -q 'WARNING: CPU: 0 PID: 1 at rxkit/selftest.c:1' ||
		{ echo "# the injected WARNING was not found"; return "$KSFT_FAIL"; }
	# And the clean probe boot of the same kernel has nothing to report.
	guest_run "$work/clean" "$o/arch/x86/boot/bzImage" "$initrd" \
		probe tcg || { echo "# guest run failed"; return "$KSFT_FAIL"; }
	bad=$(guest_dmesg_bad "$work/clean")
	[ -z "$bad" ] || { printf '%s\n' "$bad" | sed 's/^/#   clean boot: /'; return "$KSFT_FAIL"; }
}

# A patch that adds an unused variable on a line with a trailing space:
# tests/series.sh fails its W=1 compile (built in and module) and its
# checkpatch step, and names the warning.
test_series_bad_patch()
{
	local pr= f=net/vmw_vsock/virtio_transport_common.c rc=0
	pr="$(src_root 7.3)/pristine"
	[ -d "$pr" ] || { SKIP_REASON="no fetched 7.3 tree (ci/fetch 7.3)"; return "$KSFT_SKIP"; }
	mkdir -p "$work/bad/a/${f%/*}" "$work/bad/b/${f%/*}" "$work/bad/s"
	cp "$pr/$f" "$work/bad/a/$f"
	sed '/^void virtio_transport_destruct(struct vsock_sock \*vsk)$/{n;s/^{$/{\n\tint rxkit_unused; /}' \
		"$pr/$f" > "$work/bad/b/$f"
	! cmp -s "$work/bad/a/$f" "$work/bad/b/$f" || { echo "# fixture broken"; return "$KSFT_FAIL"; }
	{
		printf 'From: Test <test@example.invalid>\nSubject: [PATCH] test: unused variable\n\n'
		printf 'Adds an unused variable.\n\nSigned-off-by: Test <test@example.invalid>\n---\n'
		(cd "$work/bad" && diff -u "a/$f" "b/$f") || :
	} > "$work/bad/s/0001-unused.patch"
	echo 0001-unused.patch > "$work/bad/s/series"
	"$RXKIT_TOP/tests/series.sh" --series "$work/bad/s" 7.3 > "$work/bad.ktap" 2>&1 || rc=$?
	sed -n '/^\(not \)\{0,1\}ok\|warning:\|^#   [-+]/s/^/#   /p' "$work/bad.ktap"
	[ "$rc" != 0 ] || { echo "# tests/series.sh passed a patch with an unused variable"; return "$KSFT_FAIL"; }
	grep -q '^ok 1 0001 apply$' "$work/bad.ktap" &&
	grep -q '^not ok 2 0001 w1_builtin$' "$work/bad.ktap" &&
	grep -q '^not ok 3 0001 w1_modules$' "$work/bad.ktap" &&
	grep -q '^not ok 4 0001 checkpatch$' "$work/bad.ktap" &&
	grep -q "warning: unused variable .rxkit_unused." "$work/bad.ktap" &&
	expect_in "$work/bad.ktap" '+TRAILING_WHITESPACE' "not the expected verdicts" || return "$KSFT_FAIL"
}

# The nested vhost-vsock suite (tests/vsock_vhost_vsock.sh) without the nested
# host's kernel: every test is SKIP
# with the reason and the command that builds it, none passes.
test_vhost_no_l1()
{
	local suite="$RXKIT_TOP/tests/vsock_vhost_vsock.sh" rc=0 n= plan=
	[ -f "$(src_root "$target")/patched/o-guest/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	RXKIT_OUT="$work/vh" RXKIT_VHOST_VSOCK_BACKEND=nested \
		RXKIT_VHOST_VSOCK_L1=7.3/no-such-tree "$suite" "$target" > "$work/vh.ktap" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/vh.ktap" | grep -v '^#   $'
	[ "$rc" = 0 ] || { echo "# exit $rc, expected 0 (all skipped)"; return "$KSFT_FAIL"; }
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$work/vh.ktap" | head -n 1)
	n=$(grep -c '^ok [0-9]* .* # SKIP nested backend: no L1 kernel .*run: ci/build --tree no-such-tree 7.3$' "$work/vh.ktap" || true)
	[ "${plan:-0}" -gt 0 ] && [ "$n" = "$plan" ] && ! grep -q '^ok [0-9]* [^#]*$' "$work/vh.ktap" ||
		{ echo "# $n of ${plan:-?} tests skipped with the reason, or one passed"; return "$KSFT_FAIL"; }
}

# shellcheck disable=SC2086
run_tests $TESTS
