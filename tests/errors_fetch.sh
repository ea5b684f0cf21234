#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/errors_fetch.sh: error paths of ci/fetch, ci/prepare and
# maint/check-drift: bad input gets a clear error and leaves nothing
# half-made.  Each test runs the real stage on a small, self-made input in
# a private cache folder; KTAP on stdout.
set -eu
PROG=errors_fetch
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/errors_fetch.sh"
. "$RXKIT_TOP/tests/lib/errors.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="unknown_target tampered_tarball truncated_tarball local_tarball_drift \
archive_drift patch_not_applying patch_with_offset missing_tool no_space drift_report \
drift_unverified_tarball drift_one_hunk sockmap_6_1 deps_newer_refused"
readonly TEST_DESCS="ci/fetch refuses an unknown target and ci/prepare an invalid target name:\
a tarball that is not the pinned one is refused by its SHA-256, no tree left:\
a truncated tarball is refused by its SHA-256, no partial tree left:\
a local tarball of another sublevel is taken with --sha256 and reported loudly as drift:\
a pinned version the archive no longer has fetches the newest of its line, loudly, as drift:\
a patch that does not apply stops ci/prepare, no half-patched tree (after local_tarball_drift):\
a patch that applies only with an offset is refused (after local_tarball_drift):\
ci/prepare without quilt names the Debian package to install:\
a full file system stops ci/fetch with no partial tree, one below the threshold up front (root):\
maint/check-drift on a moved tree reports offsets and the fix gone, exit 1, series and cache kept:\
maint/check-drift refuses another sublevel's tarball without --sha256, saying what to give instead:\
maint/check-drift counts each failed hunk once and tries every patch:\
a 6.1 tree with vsock sockmap is refused by ci/prepare and maint/check-drift before any patch:\
ci/deps removes a newer package's .deb of another SHA-256 and fails a version the suite lacks"

usage()
{
	cat <<USAGE
usage: tests/errors_fetch.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Error-path tests of fetch, prepare and the drift check (TARGET: unused
here; the stage passes it as to the other error-path suites).

-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test; the patch_* tests
         need local_tarball_drift before them: -t local_tarball_drift too)
-T NAME  do not run NAME (may repeat)
USAGE
}
errors_setup "$@"

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
	local sha=
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
	local sha=
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
	local kit="$work/kit"
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

test_patch_not_applying()
{
	local s=
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
	local s=
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
	local d= f= n=
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

test_no_space()
{
	local sha=
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

# drift_report, drift_unverified_tarball and drift_one_hunk, the tests of
# maint/check-drift alone: tests/lib/errors_fetch.sh.

# series/6.1 drops the sockmap hand-off: a 6.1 tree with vsock sockmap
# (net/vmw_vsock/vsock_bpf.c, as a vendor backport of 634f1a7110b4 has
# it) is refused by ci/prepare and maint/check-drift, with series/6.1/refuse's
# reason, before a patch is tried or a tree made.  The same tree without
# the file is not refused (its failure is the patches not applying).
test_sockmap_6_1()
{
	local c="$work/c61" tb= rc=0
	fake_61 193 "$work/linux-6.1.193.tar.xz" net/vmw_vsock/vsock_bpf.c \
		net/vmw_vsock/virtio_transport_common.c
	tb="$work/linux-6.1.193.tar.xz"
	env RXKIT_CACHE="$c" "$RXKIT_TOP/ci/fetch" --tarball "$tb" --sha256 "$(sha256_of "$tb")" 6.1 \
		> "$work/f61.out" 2>&1 || { sed 's/^/#   /' "$work/f61.out"; return "$KSFT_FAIL"; }
	expect_fail "$work/p61" \
		'^prepare: error: Linux 6\.1\.193 has net/vmw_vsock/vsock_bpf\.c: vsock sockmap .*must be redone against the sockmap variant' \
		env RXKIT_CACHE="$c" "$RXKIT_TOP/ci/prepare" 6.1 || return "$KSFT_FAIL"
	[ ! -e "$c/src/6.1/patched" ] && [ ! -e "$c/src/6.1/patched.tmp" ] && [ ! -e "$c/src/6.1/baseline" ] ||
		{ echo "# a tree was made for a refused base"; return "$KSFT_FAIL"; }
	"$RXKIT_TOP/maint/check-drift" --tarball "$tb" --sha256 "$(sha256_of "$tb")" 6.1 \
		> "$work/d61.out" 2> "$work/d61" || rc=$?
	sed 's/^/#   /' "$work/d61"
	[ "$rc" = 1 ] || { echo "# maint/check-drift exit $rc, expected 1"; return "$KSFT_FAIL"; }
	expect_in "$work/d61" '^check-drift: error: Linux 6\.1\.193 has net/vmw_vsock/vsock_bpf\.c: .*must be redone' \
		"maint/check-drift did not refuse the tree" || return "$KSFT_FAIL"
	! grep -q '^  0001-' "$work/d61.out" || { echo "# maint/check-drift tried the patches"; return "$KSFT_FAIL"; }
	# The control: without vsock_bpf.c the same tree gets to quilt.
	fake_61 194 "$work/linux-6.1.194.tar.xz" net/vmw_vsock/virtio_transport_common.c
	tb="$work/linux-6.1.194.tar.xz"
	env RXKIT_CACHE="$c" "$RXKIT_TOP/ci/fetch" --tarball "$tb" --sha256 "$(sha256_of "$tb")" 6.1 \
		> "$work/f61b.out" 2>&1 || { sed 's/^/#   /' "$work/f61b.out"; return "$KSFT_FAIL"; }
	expect_fail "$work/p61b" 'does not apply to Linux 6\.1\.194' \
		env RXKIT_CACHE="$c" "$RXKIT_TOP/ci/prepare" 6.1 || return "$KSFT_FAIL"
	! grep -q 'vsock_bpf' "$work/p61b" || { echo "# the control tree was refused"; return "$KSFT_FAIL"; }
	rm -rf "$c"
}

# ci/deps-newer's pins hold: a .deb of another SHA-256 is removed, not
# installed (linux-source of trixie-backports: a 1 KiB metapackage), and a
# version the suite does not have fails the download, both named.
test_deps_newer_refused()
{
	local c="$work/deps-cache" f="$work/deps-newer"
	[ "$(dpkg-query -W -f='${Status} ${Version}' linux-source 2>/dev/null)" != "install ok installed 7.3.4-1~bpo13+1" ] ||
		{ SKIP_REASON="linux-source 7.3.4-1~bpo13+1 is installed here"; return "$KSFT_SKIP"; }
	printf 'linux-source\t7.3.4-1~bpo13+1\ttrixie-backports\t%064d\tthe error test\n' 0 > "$f"
	expect_fail "$work/dn-sha" \
		'^deps: error: linux-source_7\.3\.4-1~bpo13\+1_all\.deb: SHA-256 mismatch \(got [0-9a-f]{64}, pinned 0{64} in [^)]+\)$' \
		env RXKIT_CACHE="$c" RXKIT_DEPS_NEWER="$f" "$RXKIT_TOP/ci/deps" || return "$KSFT_FAIL"
	grep -q '^deps: error: linux-source 7\.3\.4-1~bpo13+1 not installed$' "$work/dn-sha" ||
		{ echo "# the refusal did not say the package was not installed"; return "$KSFT_FAIL"; }
	[ "$(dpkg-query -W -f='${Status}' linux-source 2>/dev/null)" != "install ok installed" ] ||
		{ echo "# linux-source was installed"; return "$KSFT_FAIL"; }
	[ ! -e "$c/deb-newer/linux-source_7.3.4-1~bpo13+1_all.deb" ] ||
		{ echo "# the refused .deb was left in the cache"; return "$KSFT_FAIL"; }
	printf 'linux-source\t0.0~rxkit\ttrixie-backports\t%064d\tthe error test\n' 0 > "$f"
	expect_fail "$work/dn-ver" '^deps: error: apt-get download linux-source=0\.0~rxkit from trixie-backports failed \(there: [^)]+\); pin another in [^ ]+$' \
		env RXKIT_CACHE="$c" RXKIT_DEPS_NEWER="$f" "$RXKIT_TOP/ci/deps" || return "$KSFT_FAIL"
	rm -rf "$c"
}

# shellcheck disable=SC2086
run_tests $TESTS
