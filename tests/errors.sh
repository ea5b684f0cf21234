#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/errors.sh: bad input gets a clear error and leaves nothing half-made.
# Each test runs a real ci/ stage on a small, self-made input in a private
# cache folder; KTAP on stdout.
set -eu
PROG=errors
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="unknown_target tampered_tarball truncated_tarball local_tarball_drift \
archive_drift patch_not_applying patch_with_offset missing_tool no_space kconfig_unmet kconfig_changed \
qemu_no_init dmesg_scan drift_report drift_unverified_tarball drift_one_hunk series_bad_patch \
ab_regression vhost_no_l1 summary_stale commands_unpackaged cleanroot_scan"
readonly TESTS="${RXKIT_ERRORS_TESTS:-$ALL_TESTS}"

usage()
{
	cat <<USAGE
usage: tests/errors.sh [TARGET]

Error-path tests of the ci/ stages (default target for the real-tree tests:
$RXKIT_TARGET):
$(for t in $ALL_TESTS; do echo "  $t"; done)

Environment: RXKIT_ERRORS_TESTS="NAME..." (a subset of the tests above; the
patch_* tests need local_tarball_drift before them).
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac
check_subset RXKIT_ERRORS_TESTS
target=${1:-$RXKIT_TARGET}

work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-errors.XXXXXX")
cleanup()
{
	mountpoint -q "$work/small" 2>/dev/null && umount "$work/small"
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A tiny stand-in kernel tree: a Makefile with a version and one file the
# test patches touch.  fake_tarball SUBLEVEL FILE
fake_tarball()
{
	_d="$work/mk.$1"
	rm -rf "$_d"
	mkdir -p "$_d/linux-7.3.$1/net"
	printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$1" \
		> "$_d/linux-7.3.$1/Makefile"
	seq 1 40 | sed 's/^/line /' > "$_d/linux-7.3.$1/net/file.c"
	tar -C "$_d" -cJf "$2" "linux-7.3.$1"
}

# expect_fail LOG PATTERN CMD...: CMD must fail and say PATTERN on stderr.
expect_fail()
{
	_log=$1 _pat=$2
	shift 2
	if "$@" > "$_log.out" 2> "$_log"; then
		echo "# '$*' succeeded; expected a failure"
		return 1
	fi
	if ! grep -q -E "$_pat" "$_log"; then
		echo "# '$*' failed without saying /$_pat/:"
		sed 's/^/#   /' "$_log"
		return 1
	fi
	sed -n '1,3s/^/#   /p' "$_log"
}

# Private cache for the fetch/prepare tests (never the real one).
cache="$work/cache"

# expect_in FILE PATTERN WHAT: FILE has a line PATTERN (grep) matches, or
# say what is missing.
expect_in()
{
	grep -q -- "$2" "$1" && return 0
	echo "# $3"
	return 1
}

test_unknown_target()
{
	expect_fail "$work/unknown" "unknown target 'nosuch'" \
		env RXKIT_CACHE="$cache" "$RXKIT_TOP/ci/fetch" nosuch || return "$KSFT_FAIL"
	expect_fail "$work/unknown2" "invalid target name" \
		env RXKIT_CACHE="$cache" "$RXKIT_TOP/ci/prepare" ../7.3 || return "$KSFT_FAIL"
}

test_tampered_tarball()
{
	fake_tarball 90 "$work/t.tar.xz"
	# Not the pinned tarball: refused against the pin of series/7.3/base.
	expect_fail "$work/tamper" "SHA-256 mismatch" env RXKIT_CACHE="$cache" \
		"$RXKIT_TOP/ci/fetch" --tarball "$work/t.tar.xz" 7.3 || return "$KSFT_FAIL"
	[ ! -e "$cache/src/7.3/pristine" ] || { echo "# tree left behind"; return "$KSFT_FAIL"; }
}

test_truncated_tarball()
{
	fake_tarball 90 "$work/full.tar.xz"
	sha=$(sha256_of "$work/full.tar.xz")
	head -c 300 "$work/full.tar.xz" > "$work/trunc.tar.xz"
	expect_fail "$work/trunc" "SHA-256 mismatch" env RXKIT_CACHE="$cache" \
		"$RXKIT_TOP/ci/fetch" --tarball "$work/trunc.tar.xz" --sha256 "$sha" 7.3 ||
		return "$KSFT_FAIL"
	[ ! -e "$cache/src/7.3/pristine" ] && [ ! -e "$cache/src/7.3/pristine.tmp" ] ||
		{ echo "# partial tree left behind"; return "$KSFT_FAIL"; }
}

# Accepted with --sha256, reported loudly as another sublevel than the pin.
test_local_tarball_drift()
{
	fake_tarball 91 "$work/l.tar.xz"
	sha=$(sha256_of "$work/l.tar.xz")
	env RXKIT_CACHE="$cache" "$RXKIT_TOP/ci/fetch" --tarball "$work/l.tar.xz" \
		--sha256 "$sha" 7.3 > "$work/drift.out" 2>&1 ||
		{ sed 's/^/#   /' "$work/drift.out"; return "$KSFT_FAIL"; }
	grep -q 'LOCAL TARBALL IS 7.3.91' "$work/drift.out" &&
	grep -qx 'drift=yes' "$cache/src/7.3/FETCHED" &&
	grep -qx 'version=7.3.91' "$cache/src/7.3/FETCHED" || {
		echo "# drift not reported:"; sed 's/^/#   /' "$work/drift.out" "$cache/src/7.3/FETCHED"
		return "$KSFT_FAIL"
	}
}

# The archive dropped the pinned sublevel: a copy of the kit whose 7.3 pin
# names a package version the archive does not have fetches the newest of
# the line instead, says so loudly and records drift=yes.
test_archive_drift()
{
	kit="$work/kit"
	mkdir -p "$kit/series/7.3"
	cp -r "$RXKIT_TOP/ci" "$kit/ci"
	sed -e 's/^package_version=.*/package_version=7.3.0-1~bpo13+1/' \
	    -e 's/^deb_sha256=.*/deb_sha256=0000000000000000000000000000000000000000000000000000000000000000/' \
		"$RXKIT_TOP/series/7.3/base" > "$kit/series/7.3/base"
	if ! env RXKIT_CACHE="$work/dcache" "$kit/ci/fetch" 7.3 > "$work/adrift.out" 2>&1; then
		if grep -q 'apt-get update of .* failed' "$work/adrift.out"; then
			SKIP_REASON="the Debian archive is not reachable"
			return "$KSFT_SKIP"
		fi
		sed 's/^/#   /' "$work/adrift.out"
		return "$KSFT_FAIL"
	fi
	grep 'NO LONGER IN\|INSTEAD' "$work/adrift.out" | sed 's/^/#   /'
	grep -q 'PINNED linux-source-7.3 7.3.0-1~bpo13+1 IS NO LONGER IN' "$work/adrift.out" &&
	grep -qx 'drift=yes' "$work/dcache/src/7.3/FETCHED" || {
		echo "# drift not reported"; sed 's/^/#   /' "$work/adrift.out"
		return "$KSFT_FAIL"
	}
	echo "# fetched $(sed -n 's/^source=//p' "$work/dcache/src/7.3/FETCHED")"
	rm -rf "$work/dcache" "$kit"
}

# series_of NAME SEDEXPR: a one-patch series against the fake tree's file.c.
series_of()
{
	_s="$work/series.$1"
	mkdir -p "$_s/a/net" "$_s/b/net"
	cp "$cache/src/7.3/pristine/net/file.c" "$_s/a/net/file.c"
	sed "$2" "$_s/a/net/file.c" > "$_s/b/net/file.c"
	(cd "$_s" && diff -u a/net/file.c b/net/file.c > 0001-test.patch) || true
	echo 0001-test.patch > "$_s/series"
	printf '%s\n' "$_s"
}

test_patch_not_applying()
{
	[ -d "$cache/src/7.3/pristine" ] || { SKIP_REASON="needs local_tarball_drift"; return "$KSFT_SKIP"; }
	s=$(series_of broken 's/^line 20$/line twenty/')
	sed -i 's/^ line 19$/ line nineteen/' "$s/0001-test.patch"
	expect_fail "$work/noapply" "does not apply|FAILED" env RXKIT_CACHE="$cache" \
		"$RXKIT_TOP/ci/prepare" --series "$s" 7.3 || return "$KSFT_FAIL"
	[ ! -e "$cache/src/7.3/patched" ] && [ ! -e "$cache/src/7.3/patched.tmp" ] ||
		{ echo "# half-patched tree left behind"; return "$KSFT_FAIL"; }
}

test_patch_with_offset()
{
	[ -d "$cache/src/7.3/pristine" ] || { SKIP_REASON="needs local_tarball_drift"; return "$KSFT_SKIP"; }
	s=$(series_of offset 's/^line 20$/line twenty/')
	# Move the hunk header 3 lines away: patch would apply it with offset.
	sed -i 's/^@@ -17,7 +17,7 @@$/@@ -14,7 +14,7 @@/' "$s/0001-test.patch"
	grep -q '^@@ -14,7 +14,7 @@$' "$s/0001-test.patch" || { echo "# fixture broken"; return "$KSFT_FAIL"; }
	expect_fail "$work/offset" "offsets or fuzz" env RXKIT_CACHE="$cache" \
		"$RXKIT_TOP/ci/prepare" --series "$s" 7.3 || return "$KSFT_FAIL"
	[ ! -e "$cache/src/7.3/patched" ] || { echo "# tree left behind"; return "$KSFT_FAIL"; }
}

test_missing_tool()
{
	# A PATH with everything but quilt.
	mkdir -p "$work/bin"
	for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
		for f in "$d"/*; do
			n=${f##*/}
			[ "$n" = quilt ] || [ -e "$work/bin/$n" ] || ln -s "$f" "$work/bin/$n"
		done
	done
	expect_fail "$work/tool" "install the Debian package 'quilt'" env PATH="$work/bin" \
		RXKIT_CACHE="$cache" "$RXKIT_TOP/ci/prepare" 7.3 || return "$KSFT_FAIL"
}

# The clean-root test's diagnosis of a failed stage: each way a missing
# command shows in a log (the shell's, make's, env's, need's) is named with
# the package that provides it here.
test_cleanroot_scan()
{
	cat > "$work/scan.log" <<'LOG'
  HDRINST usr/include/linux/vm_sockets.h
/bin/sh: 1: rsync: not found
make[2]: *** [Makefile:1536: headers_install] Error 127
tests/mkinitramfs: line 9: cpio: command not found
make[1]: gzip: No such file or directory
env: 'qemu-system-x86_64': No such file or directory
build: error: 'bison' not found; install the Debian package 'bison' (make deps)
srcpkg: | dpkg-checkbuilddeps: error: Unmet build dependencies: build-essential:native debhelper-compat (= 13)
LOG
	"$RXKIT_TOP/tests/cleanroot.sh" --scan "$work/scan.log" > "$work/scan.out" 2>&1 ||
		{ sed 's/^/# /' "$work/scan.out"; return "$KSFT_FAIL"; }
	cat "$work/scan.out"
	expect_in "$work/scan.out" "build dependency 'build-essential'; Debian package: build-essential;" "the unmet build dependency build-essential not named" || return "$KSFT_FAIL"
	for tp in rsync:rsync cpio:cpio gzip:gzip qemu-system-x86_64:qemu-system-x86 bison:bison; do
		grep -q "not in the clean root: '${tp%%:*}'; Debian package: ${tp#*:};" "$work/scan.out" ||
			{ echo "# ${tp%%:*} (package ${tp#*:}) not named"; return "$KSFT_FAIL"; }
	done
	[ "$(wc -l < "$work/scan.out")" = 7 ] || { echo "# expected 7 missing packages"; return "$KSFT_FAIL"; }
}

test_no_space()
{
	if [ "$(id -u)" != 0 ]; then
		SKIP_REASON="needs root to mount a small tmpfs"
		return "$KSFT_SKIP"
	fi
	mkdir -p "$work/small"
	mount -t tmpfs -o size=2m rxkit-small "$work/small" ||
		{ SKIP_REASON="cannot mount tmpfs here"; return "$KSFT_SKIP"; }
	# 8 MiB of incompressible data in a tarball that fits, a tree that does not.
	mkdir -p "$work/big/linux-7.3.92"
	printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 92\n' > "$work/big/linux-7.3.92/Makefile"
	head -c 8388608 /dev/zero > "$work/big/linux-7.3.92/blob"
	tar -C "$work/big" -cJf "$work/big.tar.xz" linux-7.3.92
	sha=$(sha256_of "$work/big.tar.xz")
	expect_fail "$work/space" "no space left" env RXKIT_CACHE="$work/small" \
		RXKIT_MIN_FREE_MB=1 "$RXKIT_TOP/ci/fetch" --tarball "$work/big.tar.xz" \
		--sha256 "$sha" 7.3 || return "$KSFT_FAIL"
	[ ! -e "$work/small/src/7.3/pristine.tmp" ] && [ ! -e "$work/small/src/7.3/pristine" ] ||
		{ echo "# partial tree left on the full file system"; return "$KSFT_FAIL"; }
	# And the up-front check: a file system below the threshold is refused.
	expect_fail "$work/space2" "no space left" env RXKIT_CACHE="$work/small" \
		"$RXKIT_TOP/ci/fetch" --tarball "$work/big.tar.xz" --sha256 "$sha" 7.3 ||
		return "$KSFT_FAIL"
}

test_kconfig_unmet()
{
	src="$(src_root "$target")/baseline"
	[ -d "$src" ] || { SKIP_REASON="no $target baseline tree (ci/prepare $target)"; return "$KSFT_SKIP"; }
	expect_fail "$work/kconfig" "CONFIG_VIRTIO_VSOCKETS: requested y, got n" \
		"$RXKIT_TOP/ci/build" --config-only --tree baseline \
		--flavour "$RXKIT_TOP/tests/fixtures/flavour-bad" "$target" || return "$KSFT_FAIL"
	rm -rf "$src/o-flavour-bad"
}

# The package builds' configuration check (ci/kconfig-check --same): a
# build machine whose olddefconfig changes a symbol of the shipped
# configuration stops the build; a different rustc (a probe the build does
# not use while CONFIG_RUST is off) does not.
test_kconfig_changed()
{
	_c="$(src_root "$target")/patched/o-guest/.config"
	[ -f "$_c" ] || { SKIP_REASON="no configured $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	sed -e 's/^CONFIG_VSOCKETS=y$/# CONFIG_VSOCKETS is not set/' \
	    -e 's/^CONFIG_RUSTC_VERSION=.*/CONFIG_RUSTC_VERSION=1/' "$_c" > "$work/config-changed"
	expect_fail "$work/kconfig-changed" "CONFIG_VSOCKETS: shipped y, olddefconfig here n" \
		sh "$RXKIT_TOP/ci/kconfig-check" --same "$_c" "$work/config-changed" || return "$KSFT_FAIL"
	grep -q '^  CONFIG_RUSTC_VERSION:' "$work/kconfig-changed" &&
		{ echo "# the rustc probe was counted as a difference"; return "$KSFT_FAIL"; }
	sed 's/^CONFIG_RUSTC_VERSION=.*/CONFIG_RUSTC_VERSION=1/' "$_c" > "$work/config-rustc"
	sh "$RXKIT_TOP/ci/kconfig-check" --same "$_c" "$work/config-rustc" 2> "$work/kconfig-rustc" ||
		{ echo "# another rustc failed the check:"; sed 's/^/#   /' "$work/kconfig-rustc"; return "$KSFT_FAIL"; }
	expect_in "$work/kconfig-rustc" '^kconfig-check: note: CONFIG_RUSTC_VERSION' "no note of the rustc probe" || return "$KSFT_FAIL"
}

test_qemu_no_init()
{
	o="$(src_root "$target")/patched/o-guest"
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	need "$QEMU" qemu-system-x86
	# An initramfs without /init: the kernel panics, no protocol ever.
	mkdir -p "$work/noinit/etc"
	(cd "$work/noinit" && echo etc | cpio -o -H newc --quiet | gzip) > "$work/noinit.gz"
	rc=0
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
	src="$(src_root "$target")/patched"
	o="$src/o-guest"
	[ -f "$o/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	initrd=$(ensure_initramfs "$src" "$o") || return "$KSFT_FAIL"
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

# ci/check-drift on a tree that moved: the vsock files of the pinned 7.3
# tree with three lines more at the top of virtio_transport_common.c and
# vsock_check_source() gone from af_vsock.h must report offsets and the
# fix that disappeared, and exit 1; the series and the cache stay as they were.
test_drift_report()
{
	pr="$(src_root 7.3)/pristine"
	[ -d "$pr" ] || { SKIP_REASON="no fetched 7.3 tree (ci/fetch 7.3)"; return "$KSFT_SKIP"; }
	d="$work/drift/linux-7.3.99"
	mkdir -p "$d"
	printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 99\nEXTRAVERSION =\n' > "$d/Makefile"
	for f in include/linux/virtio_vsock.h include/net/af_vsock.h \
		 net/vmw_vsock/af_vsock.c net/vmw_vsock/virtio_transport.c \
		 net/vmw_vsock/virtio_transport_common.c net/vmw_vsock/vsock_bpf.c; do
		mkdir -p "$d/${f%/*}"
		cp "$pr/$f" "$d/$f"
	done
	sed -i '1i /* moved */\n/* by */\n/* three */' "$d/net/vmw_vsock/virtio_transport_common.c"
	sed -i 's/vsock_check_source/vsock_check_src_gone/' "$d/include/net/af_vsock.h"
	tar -C "$work/drift" -cJf "$work/drift.tar.xz" linux-7.3.99
	before=$(cat "$RXKIT_TOP"/series/7.3/* | sha256sum)
	rc=0
	"$RXKIT_TOP/ci/check-drift" --tarball "$work/drift.tar.xz" \
		--sha256 "$(sha256_of "$work/drift.tar.xz")" 7.3 > "$work/drift.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/drift.out"
	[ "$rc" = 1 ] || { echo "# exit $rc, expected 1 (drift)"; return "$KSFT_FAIL"; }
	grep -q '0001-.* 0 failed, [1-9][0-9]* offset' "$work/drift.out" &&
	expect_in "$work/drift.out" 'NOW ABSENT: vsock/virtio: validate packet source' "offsets or the missing fix not reported" || return "$KSFT_FAIL"
	[ "$(cat "$RXKIT_TOP"/series/7.3/* | sha256sum)" = "$before" ] ||
		{ echo "# series/7.3 changed"; return "$KSFT_FAIL"; }
}

# ci/check-drift on a tarball of another sublevel without --sha256: still
# refused (it cannot be verified), with what to give instead; nothing is
# fetched.
test_drift_unverified_tarball()
{
	fake_tarball 94 "$work/u.tar.xz"
	rc=0
	"$RXKIT_TOP/ci/check-drift" --tarball "$work/u.tar.xz" 7.3 > "$work/unverified.out" \
		2> "$work/unverified" || rc=$?
	sed 's/^/#   /' "$work/unverified"
	[ "$rc" = 2 ] || { echo "# exit $rc, expected 2 (the check cannot run)"; return "$KSFT_FAIL"; }
	grep -q 'not the pinned tarball of 7.3' "$work/unverified" &&
	grep -q 'pass --sha256 SUM' "$work/unverified" &&
	expect_in "$work/unverified" 'check-drift --newest 7.3' "the message does not say to pass --sha256 or use the archive" || return "$KSFT_FAIL"
	! grep -q 'checking series' "$work/unverified.out" ||
		{ echo "# an unverified tree was checked"; return "$KSFT_FAIL"; }
}

# ci/check-drift counts each failed hunk once, and tries every patch: a
# copy of the kit whose 7.3 is pinned to a small tree, with a series of
# three patches: two hunks of which one fails, one that applies with an
# offset (after a forced push: quilt tries it only once the first is
# refreshed), one to a file the tree does not have.  The pinned tarball
# needs no --sha256.
test_drift_one_hunk()
{
	kit="$work/hkit"
	rm -rf "$kit"
	mkdir -p "$kit/series/7.3" "$work/hunk/a/net" "$work/hunk/b/net"
	cp -r "$RXKIT_TOP/ci" "$kit/ci"
	fake_tarball 93 "$work/hunk.tar.xz"
	tar -C "$work/hunk" -xJf "$work/hunk.tar.xz"
	printf 'target=7.3\nversion=7.3.93\nkind=deb\nsha256=%s\n' \
		"$(sha256_of "$work/hunk.tar.xz")" > "$kit/series/7.3/base"
	printf 'net/file.c\tline 7\ttest: line 7 present\n' > "$kit/series/fixes"
	printf 'present\ttest: line 7 present\n' > "$kit/series/7.3/fixes"
	cp "$work/hunk/linux-7.3.93/net/file.c" "$work/hunk/a/net/file.c"
	sed -e 's/^line 5$/line five/' -e 's/^line 30$/line thirty/' \
		"$work/hunk/a/net/file.c" > "$work/hunk/b/net/file.c"
	# The second hunk removes a line the tree does not have.
	(cd "$work/hunk" && diff -u a/net/file.c b/net/file.c) |
		sed 's/^-line 30$/-line 30 (elsewhere)/' > "$kit/series/7.3/0001-two-hunks.patch"
	grep -c '^@@ ' "$kit/series/7.3/0001-two-hunks.patch" | grep -qx 2 ||
		{ echo "# fixture broken: not two hunks"; return "$KSFT_FAIL"; }
	# Made against the file less its first three lines: an offset of 3.
	sed '1,3d' "$work/hunk/linux-7.3.93/net/file.c" > "$work/hunk/a/net/file.c"
	sed 's/^line 12$/line twelve/' "$work/hunk/a/net/file.c" > "$work/hunk/b/net/file.c"
	(cd "$work/hunk" && diff -u a/net/file.c b/net/file.c) > "$kit/series/7.3/0002-offset.patch"
	printf -- '--- a/net/gone.c\n+++ b/net/gone.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n' \
		> "$kit/series/7.3/0003-gone-file.patch"
	printf '%s\n' 0001-two-hunks.patch 0002-offset.patch 0003-gone-file.patch > "$kit/series/7.3/series"
	rc=0
	RXKIT_CACHE="$work/hcache" "$kit/ci/check-drift" --tarball "$work/hunk.tar.xz" 7.3 \
		> "$work/hunk.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/hunk.out"
	[ "$rc" = 1 ] || { echo "# exit $rc, expected 1 (drift)"; return "$KSFT_FAIL"; }
	expect_in "$work/hunk.out" '0001-two-hunks.patch  *1 failed, 0 offset, 0 fuzz$' "one failed hunk not reported as '1 failed'" || return "$KSFT_FAIL"
	expect_in "$work/hunk.out" '0002-offset.patch  *0 failed, 1 offset, 0 fuzz$' "the patch after the failed one was not tried" || return "$KSFT_FAIL"
	expect_in "$work/hunk.out" '0003-gone-file.patch  *1 failed,' "a patch to a missing file not reported as failed" || return "$KSFT_FAIL"
	rm -rf "$kit" "$work/hcache"
}

# shellcheck disable=SC2086
# A patch that adds an unused variable on a line with a trailing space:
# tests/series.sh fails its W=1 compile (built in and module) and its
# checkpatch step, and names the warning.
test_series_bad_patch()
{
	pr="$(src_root 7.3)/pristine"
	[ -d "$pr" ] || { SKIP_REASON="no fetched 7.3 tree (ci/fetch 7.3)"; return "$KSFT_SKIP"; }
	f=net/vmw_vsock/virtio_transport_common.c
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
	rc=0
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

# tests/ab-verdict: a case that passes on baseline and fails, skips or is
# missing patched is a regression; a suite without patched results fails;
# identical results pass.
test_ab_regression()
{
	a="$work/ab/7.3"
	mkdir -p "$a/baseline/s/job" "$a/patched/s/job"
	printf 'TAP version 13\n1..2\nok 1 boot\nok 2 job\n' > "$a/baseline/s/results.ktap"
	printf '    1..3\n    ok 1 case one\n    ok 2 case (two)\n    ok 3 case three # SKIP reason\n' \
		> "$a/baseline/s/job/cases.ktap"
	cp "$a/baseline/s/results.ktap" "$a/patched/s/results.ktap"
	cp "$a/baseline/s/job/cases.ktap" "$a/patched/s/job/cases.ktap"
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/tests/ab-verdict" 7.3 > "$work/ab.out" 2>&1 ||
		{ sed 's/^/#   /' "$work/ab.out"; echo "# identical results: not a pass"; return "$KSFT_FAIL"; }
	printf '    1..3\n    ok 1 case one # SKIP now\n    not ok 2 case (two)\n    ok 3 case three # SKIP reason\n' \
		> "$a/patched/s/job/cases.ktap"
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/tests/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] &&
	grep -q "^REGRESSION s/job: 'case one' passes on baseline" "$work/ab.out" &&
	grep -q "^REGRESSION s/job: 'case (two)' passes on baseline" "$work/ab.out" &&
	! grep -q "case three" "$work/ab.out" ||
		{ echo "# regressions not reported as expected (exit $rc)"; return "$KSFT_FAIL"; }
	rm -r "$a/patched/s"
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/tests/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] && expect_in "$work/ab.out" '^MISSING s:' "a missing patched suite was not a failure (exit $rc)" || return "$KSFT_FAIL"
}

# tests/vsock_vhost.sh without the nested host's kernel: every test is
# SKIP with the reason and the command that builds it, none passes.
test_vhost_no_l1()
{
	[ -f "$(src_root "$target")/patched/o-guest/arch/x86/boot/bzImage" ] ||
		{ SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	rc=0
	RXKIT_OUT="$work/vh" RXKIT_VHOST_BACKEND=nested RXKIT_NESTED_L1=7.3/no-such-tree \
		"$RXKIT_TOP/tests/vsock_vhost.sh" "$target" > "$work/vh.ktap" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/vh.ktap" | grep -v '^#   $'
	[ "$rc" = 0 ] || { echo "# exit $rc, expected 0 (all skipped)"; return "$KSFT_FAIL"; }
	n=$(grep -c '^ok [0-9]* .* # SKIP nested backend: no L1 kernel .*run: ci/build --tree no-such-tree 7.3$' "$work/vh.ktap" || true)
	[ "$n" = 8 ] && ! grep -q '^ok [0-9]* [^#]*$' "$work/vh.ktap" ||
		{ echo "# $n of 8 tests skipped with the reason, or one passed"; return "$KSFT_FAIL"; }
}

# ci/summary reports results older than the kernel they claim as stale and
# fails, instead of passing them on.
test_summary_stale()
{
	_b="$(src_root "$target")/patched/o-guest/arch/x86/boot/bzImage"
	[ -f "$_b" ] || { SKIP_REASON="no built $target kernel (ci/build $target)"; return "$KSFT_SKIP"; }
	_o="$work/summary-out"
	mkdir -p "$_o/$target/patched/loopback"
	printf '%s\n' 'TAP version 13' '1..1' 'ok 1 boot_release' \
		'# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0' > "$_o/$target/patched/loopback/results.ktap"
	echo tcg > "$_o/$target/patched/loopback/accel"
	touch -r "$_b" -d '-1 hour' "$_o/$target/patched/loopback/results.ktap"
	if RXKIT_OUT="$_o" "$RXKIT_TOP/ci/summary" "$target" > "$work/summary.out" 2>&1; then
		echo "# ci/summary passed stale results"
		return "$KSFT_FAIL"
	fi
	grep -q '^  loopback: stale: results older than the patched kernel' "$work/summary.out" ||
		{ echo "# no stale mark:"; sed 's/^/#   /' "$work/summary.out"; return "$KSFT_FAIL"; }
	sed -n '/loopback: stale/s/^/#   /p' "$work/summary.out"
}

# The commands_packaged test of tests/static.sh fails on a script that runs
# a command of a package ci/deps does not install, and names the package:
# a script running rsync, checked against the ci/deps list less rsync
# (rsync, priority optional, is there for the kernel's headers_install).
# A name that is no command and a stale ignore entry fail it too.
test_commands_unpackaged()
{
	command -v rsync >/dev/null 2>&1 ||
		{ SKIP_REASON="rsync not installed (make deps)"; return "$KSFT_SKIP"; }
	case "$(dpkg-query -W -f='${Priority}' rsync 2>/dev/null)" in
	required|important) SKIP_REASON="rsync has priority required/important here"; return "$KSFT_SKIP" ;;
	esac
	mkdir -p "$work/cmds"
	printf '#!/bin/sh\nrsync -a "$1/" "$2/"\nrxkit-no-such-tool --version\n' > "$work/cmds/inject.sh"
	"$RXKIT_TOP/ci/deps" --list | grep -v '^rsync ' > "$work/cmds/deps"
	{ cat "$RXKIT_TOP/tests/commands.ignore"; echo 'rxkit-gone-tool stale on purpose'; } \
		> "$work/cmds/ignore"
	rc=0
	RXKIT_STATIC_TESTS=commands_packaged RXKIT_COMMANDS_EXTRA="$work/cmds/inject.sh" \
	RXKIT_DEPS_LIST="$work/cmds/deps" RXKIT_COMMANDS_IGNORE="$work/cmds/ignore" \
		"$RXKIT_TOP/tests/static.sh" > "$work/cmds.ktap" 2>&1 || rc=$?
	grep '^not ok\|^ok\|# not ok: \|stale' "$work/cmds.ktap" | sed 's/^/#   /'
	if grep -q '^ok 1 commands_packaged # SKIP' "$work/cmds.ktap"; then
		SKIP_REASON=$(sed -n 's/^ok 1 commands_packaged # SKIP //p' "$work/cmds.ktap")
		return "$KSFT_SKIP"
	fi
	[ "$rc" != 0 ] && expect_in "$work/cmds.ktap" '^not ok 1 commands_packaged$' "the check passed (exit $rc)" || return "$KSFT_FAIL"
	# The scripts that run it: the injected one, and the kit's own (ci/build).
	grep -q "^# not ok: rsync: .*(rsync), run by $work/cmds/inject.sh[,:].*add \"rsync  $work/cmds/inject.sh[^\"]*\" to ci/deps$" "$work/cmds.ktap" ||
		{ echo "# rsync and its package not named"; return "$KSFT_FAIL"; }
	expect_in "$work/cmds.ktap" "^# not ok: rxkit-no-such-tool: not a command on this machine (run by $work/cmds/inject.sh)" "the unknown command not reported" || return "$KSFT_FAIL"
	expect_in "$work/cmds.ktap" "stale entry 'rxkit-gone-tool'" "the stale ignore entry not reported" || return "$KSFT_FAIL"
	# With ci/deps as it is, rsync is allowed.
	RXKIT_STATIC_TESTS=commands_packaged RXKIT_COMMANDS_EXTRA="$work/cmds/inject.sh" \
		"$RXKIT_TOP/tests/static.sh" > "$work/cmds2.ktap" 2>&1 || :
	grep -q '^# rsync: .*(rsync): in ci/deps$' "$work/cmds2.ktap" ||
		{ echo "# rsync not accepted through ci/deps:"; grep rsync "$work/cmds2.ktap" | sed 's/^/#   /'; return "$KSFT_FAIL"; }
}

# shellcheck disable=SC2086
run_tests $TESTS
