# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tests/lib/errors_fetch.sh: the tests of tests/errors_fetch.sh that run
# maint/check-drift alone (drift_report, drift_unverified_tarball and
# drift_one_hunk; the suite lists and runs them).  Sourced after
# tests/lib/errors.sh (work, expect_in, fake_tarball) by
# tests/errors_fetch.sh.
# shellcheck disable=SC2034,SC2154 # work is the suite's, SKIP_REASON run_tests'

# maint/check-drift on a tree that moved: the vsock files of the pinned 7.3
# tree with three lines more at the top of virtio_transport_common.c and
# vsock_check_source() gone from af_vsock.h must report offsets and the
# fix that disappeared, and exit 1; the series and the cache stay as they were.
test_drift_report()
{
	local pr= d="$work/drift/linux-7.3.99" f= before= rc=0
	pr="$(src_root 7.3)/pristine"
	[ -d "$pr" ] || { SKIP_REASON="no fetched 7.3 tree (ci/fetch 7.3)"; return "$KSFT_SKIP"; }
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
	"$RXKIT_TOP/maint/check-drift" --tarball "$work/drift.tar.xz" \
		--sha256 "$(sha256_of "$work/drift.tar.xz")" 7.3 > "$work/drift.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/drift.out"
	[ "$rc" = 1 ] || { echo "# exit $rc, expected 1 (drift)"; return "$KSFT_FAIL"; }
	grep -q '0001-.* 0 failed, [1-9][0-9]* offset' "$work/drift.out" &&
	expect_in "$work/drift.out" 'NOW ABSENT: vsock/virtio: validate packet source' "offsets or the missing fix not reported" || return "$KSFT_FAIL"
	[ "$(cat "$RXKIT_TOP"/series/7.3/* | sha256sum)" = "$before" ] ||
		{ echo "# series/7.3 changed"; return "$KSFT_FAIL"; }
}

# maint/check-drift on a tarball of another sublevel without --sha256: still
# refused (it cannot be verified), with what to give instead; nothing is
# fetched.
test_drift_unverified_tarball()
{
	local rc=0
	fake_tarball 94 "$work/u.tar.xz"
	"$RXKIT_TOP/maint/check-drift" --tarball "$work/u.tar.xz" 7.3 > "$work/unverified.out" \
		2> "$work/unverified" || rc=$?
	sed 's/^/#   /' "$work/unverified"
	[ "$rc" = 2 ] || { echo "# exit $rc, expected 2 (the check cannot run)"; return "$KSFT_FAIL"; }
	grep -q 'not the pinned tarball of 7.3' "$work/unverified" &&
	grep -q 'pass --sha256 SUM' "$work/unverified" &&
	expect_in "$work/unverified" 'check-drift --newest 7.3' "the message does not say to pass --sha256 or use the archive" || return "$KSFT_FAIL"
	! grep -q 'checking series' "$work/unverified.out" ||
		{ echo "# an unverified tree was checked"; return "$KSFT_FAIL"; }
}

# maint/check-drift counts each failed hunk once, and tries every patch: a
# copy of the kit whose 7.3 is pinned to a small tree, with a series of
# three patches: two hunks of which one fails, one that applies with an
# offset (after a forced push: quilt tries it only once the first is
# refreshed), one to a file the tree does not have.  The pinned tarball
# needs no --sha256.
test_drift_one_hunk()
{
	local kit="$work/hkit" s="$work/hkit/series/7.3" h="$work/hunk" rc=0
	rm -rf "$kit"
	mkdir -p "$s" "$h/a/net" "$h/b/net"
	cp -r "$RXKIT_TOP/ci" "$kit/ci"
	cp -r "$RXKIT_TOP/maint" "$kit/maint"
	fake_tarball 93 "$work/hunk.tar.xz"
	tar -C "$h" -xJf "$work/hunk.tar.xz"
	printf 'target=7.3\nversion=7.3.93\nkind=deb\nsha256=%s\n' \
		"$(sha256_of "$work/hunk.tar.xz")" > "$s/base"
	printf 'net/file.c\tline 7\ttest: line 7 present\n' > "$kit/series/fixes"
	printf 'present\ttest: line 7 present\n' > "$s/fixes"
	cp "$h/linux-7.3.93/net/file.c" "$h/a/net/file.c"
	sed -e 's/^line 5$/line five/' -e 's/^line 30$/line thirty/' \
		"$h/a/net/file.c" > "$h/b/net/file.c"
	# The second hunk removes a line the tree does not have.
	(cd "$h" && diff -u a/net/file.c b/net/file.c) |
		sed 's/^-line 30$/-line 30 (elsewhere)/' > "$s/0001-two-hunks.patch"
	grep -c '^@@ ' "$s/0001-two-hunks.patch" | grep -qx 2 ||
		{ echo "# fixture broken: not two hunks"; return "$KSFT_FAIL"; }
	# Made against the file less its first three lines: an offset of 3.
	sed '1,3d' "$h/linux-7.3.93/net/file.c" > "$h/a/net/file.c"
	sed 's/^line 12$/line twelve/' "$h/a/net/file.c" > "$h/b/net/file.c"
	(cd "$h" && diff -u a/net/file.c b/net/file.c) > "$s/0002-offset.patch"
	printf -- '--- a/net/gone.c\n+++ b/net/gone.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n' \
		> "$s/0003-gone-file.patch"
	printf '%s\n' 0001-two-hunks.patch 0002-offset.patch 0003-gone-file.patch > "$s/series"
	RXKIT_CACHE="$work/hcache" "$kit/maint/check-drift" --tarball "$work/hunk.tar.xz" 7.3 \
		> "$work/hunk.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/hunk.out"
	[ "$rc" = 1 ] || { echo "# exit $rc, expected 1 (drift)"; return "$KSFT_FAIL"; }
	expect_in "$work/hunk.out" '0001-two-hunks.patch  *1 failed, 0 offset, 0 fuzz$' "one failed hunk not reported as '1 failed'" || return "$KSFT_FAIL"
	expect_in "$work/hunk.out" '0002-offset.patch  *0 failed, 1 offset, 0 fuzz$' "the patch after the failed one was not tried" || return "$KSFT_FAIL"
	expect_in "$work/hunk.out" '0003-gone-file.patch  *1 failed,' "a patch to a missing file not reported as failed" || return "$KSFT_FAIL"
	rm -rf "$kit" "$work/hcache"
}
