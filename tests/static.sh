#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/static.sh: checks of the kit's own files that need no guest.
# KTAP on stdout.
set -eu
PROG=static
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/static.sh"
. "$RXKIT_TOP/tests/lib/static_trees.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="upstream_verbatim upstream_git_am series_files series_equivalent interdiff fixes_record matrix_current skip_lists case_parser shell_syntax layout"
readonly TEST_DESCS="patches/upstream/ is the posting, byte for byte:\
git am takes every posted patch with its author and subject, git apply the five in order:\
every series names existing files, each patch its origin and backport note, refuse lists sound:\
the refreshed 7.3 series gives the tree its prerequisites and the posting give, byte for byte:\
maint/interdiff works on every series and finds the 7.3 refresh identical to the posting:\
series/TARGET/fixes describes each fetched pinned tree:\
series/MATRIX.md and the CHANGELOG lines of the matrix are current:\
every skip-list entry is a case id of its job's program with a reason quoting its name:\
the reader of vsock_test output (tests/lib/cases.sh) prints the expected KTAP of its fixtures:\
every shell script of the kit parses (sh -n, bash -n for a bash #! line):\
the product (ci/, debian/, rpm/, dkms/) sources ci/ alone, and a suite library is tests/lib/NAME.sh (bench/lib/ for the benchmark), as made-up bad files show"

usage()
{
	cat <<USAGE
usage: tests/static.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

Checks of the repository itself (default target: $RXKIT_TARGET).

-l       list the tests with what each checks
-t NAME  run NAME (may repeat; default: every test)
-T NAME  do not run NAME (may repeat)

The commands of the scripts and their packages: tests/commands.sh;
shellcheck of the scripts: tests/shellcheck.sh.
USAGE
}
parse_stage_args 'tests' "$@"
: "${target:=$RXKIT_TARGET}"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-static.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
up="$RXKIT_TOP/patches/upstream"

# Every skip-list entry (tests/guest/skip/JOB[.TARGET]) is a test id and a
# reason that starts with the case's quoted name, names a job the kit has,
# and the id is that case in the target's tree.
test_skip_lists()
{
	local bad=0 f= b=
	for f in "$RXKIT_TOP"/tests/guest/skip/*; do
		b=${f##*/}
		[ "$b" != README ] || continue
		[ -f "$RXKIT_TOP/tests/guest/jobs/${b%%.*}" ] ||
		case "${b%%.*}" in
		vsock_test_vm_client|vsock_test_vm_server|vsock_diag_test_vm_client|vsock_diag_test_vm_server) ;;
		*) echo "# $b: no job ${b%%.*}"; bad=1 ;;
		esac
		if grep -v '^#' "$f" | grep '[^ ]' | grep -Ev '^[0-9]+ [^ ].{15,}$' > "$work/skipbad"; then
			echo "# $b: entries without a test id and a reason:"
			sed 's/^/#   /' "$work/skipbad"
			bad=1
		fi
		echo "# $b: $(grep -v '^#' "$f" | grep -c '[^ ]') entries"
		skip_names "$f" || bad=1
	done
	return "$bad"
}

# The reader of vsock_test output (tests/lib/cases.sh) on the fixtures of
# tests/fixtures/vsock-cases: NAME.client, NAME.server (else the client
# log's "server: " lines), NAME.skip, and the KTAP it must print.  One is
# a server that died after its client's last check (its client says ok).
test_case_parser()
{
	local rc="$KSFT_PASS" e= n= d="$RXKIT_TOP/tests/fixtures/vsock-cases"
	for e in "$d"/*.expected; do
		n=${e%.expected}
		ktap_from_vsock_test "$n.client" "$([ -f "$n.skip" ] && echo "$n.skip")" \
			"$([ -f "$n.server" ] && echo "$n.server")" > "$work/cases.ktap"
		if diff -u "$e" "$work/cases.ktap" > "$work/cases.diff"; then
			echo "# ${n##*/}: as expected"
		else
			echo "# ${n##*/}: the KTAP differs:"
			sed 's/^/#   /' "$work/cases.diff"
			rc=$KSFT_FAIL
		fi
	done
	return "$rc"
}

# patches/upstream/ is the posting, byte for byte.
test_upstream_verbatim()
{
	local seed=
	seed=$(ls "$RXKIT_TOP"/../shared/seeds/000_*.txt 2>/dev/null | head -n 1)
	if [ -z "$seed" ]; then
		SKIP_REASON="the archived posting (../shared/seeds) is not next to this clone"
		return "$KSFT_SKIP"
	fi
	diag "$RXKIT_TOP/maint/import-upstream" --check "$seed"
}

# git am's parser accepts every patch with the original author and subject,
# and git apply accepts the five in order on the pristine tree.
test_upstream_git_am()
{
	local n=0 p=
	need git git
	for p in "$up"/000[1-9]-*.patch; do
		n=$((n + 1))
		git mailinfo "$work/msg" "$work/patch" < "$p" > "$work/info" ||
			{ echo "# $p: git mailinfo failed"; return "$KSFT_FAIL"; }
		grep -qx 'Author: Jia Jia' "$work/info" &&
		grep -qx 'Email: physicalmtea@gmail.com' "$work/info" &&
		grep -q "^Subject: vsock/virtio: " "$work/info" ||
			{ echo "# $p: author or subject wrong:"; sed 's/^/#   /' "$work/info"; return "$KSFT_FAIL"; }
		grep -q '^Signed-off-by: Jia Jia <physicalmtea@gmail.com>$' "$work/msg" ||
			{ echo "# $p: no Signed-off-by of the author"; return "$KSFT_FAIL"; }
	done
	[ "$n" = 5 ] || { echo "# $n patches, expected 5"; return "$KSFT_FAIL"; }
	grep -q '^Message-ID: <20261010142247.99223-1-physicalmtea@gmail.com>$' \
		"$up/0000-cover-letter.patch" || { echo "# cover letter lacks the Message-ID"; return "$KSFT_FAIL"; }
	if [ ! -d "$(src_root 7.3)/pristine" ]; then
		echo "# git apply on the tree skipped: no fetched 7.3 tree (ci/fetch 7.3)"
		return "$KSFT_PASS"
	fi
	upstream_applied || return "$KSFT_FAIL"
	echo "# git apply: the five patches apply in order to Linux $(fetched_version 7.3) after the prerequisites series/7.3 lists"
}

# upstream_applied: the vsock files of the pristine 7.3 tree with the
# prerequisites of series/7.3 (its patches that are not the posting's, in
# series order) and then the posted patches applied in order by git apply
# (as git am does), in $work/eq.
upstream_applied()
{
	local srcdir= f= p=
	[ ! -f "$work/eq.done" ] || return 0
	srcdir=$(src_root 7.3)
	rm -rf "$work/eq"
	for f in include/linux/virtio_vsock.h include/net/af_vsock.h \
		 net/vmw_vsock/af_vsock.c net/vmw_vsock/virtio_transport.c \
		 net/vmw_vsock/virtio_transport_common.c net/vmw_vsock/vsock_bpf.c; do
		mkdir -p "$work/eq/${f%/*}"
		cp "$srcdir/pristine/$f" "$work/eq/$f"
	done
	for p in $(series_patches "$RXKIT_TOP/series/7.3"); do
		[ ! -f "$up/$p" ] || continue
		(cd "$work/eq" && git apply "$RXKIT_TOP/series/7.3/$p") > "$work/eq.log" 2>&1 ||
			{ echo "# git apply series/7.3/$p failed:"; sed 's/^/#   /' "$work/eq.log"; return 1; }
	done
	for p in "$up"/000[1-9]-*.patch; do
		(cd "$work/eq" && git apply "$p") > "$work/eq.log" 2>&1 ||
			{ echo "# git apply ${p##*/} failed:"; sed 's/^/#   /' "$work/eq.log"; return 1; }
	done
	touch "$work/eq.done"
}

# Every series names existing files and every file is named.  A patch of
# the posted series (same file name as in patches/upstream/) keeps the
# author and cites the posting; a prerequisite names the series patch that
# needs it (Stable-dep-of:); each carries a bracketed backport note.  A
# refuse list is sound (refuse_ok).
test_series_files()
{
	local rc="$KSFT_PASS" s= d= p= f= n=
	for s in "$RXKIT_TOP"/series/*/series; do
		d=${s%/series}
		for p in $(series_patches "$d"); do
			[ -f "$d/$p" ] || { echo "# $s: $p missing"; rc=$KSFT_FAIL; continue; }
			grep -q '^\[ vsock-rxkit: ' "$d/$p" ||
				{ echo "# $d/$p: no bracketed backport note"; rc=$KSFT_FAIL; }
			if [ ! -f "$up/$p" ]; then
				grep -q '^From: ' "$d/$p" && grep -q '^Stable-dep-of: ' "$d/$p" ||
					{ echo "# $d/$p: prerequisite without From: or Stable-dep-of:"; rc=$KSFT_FAIL; }
				continue
			fi
			grep -q '^From: Jia Jia <physicalmtea@gmail.com>$' "$d/$p" ||
				{ echo "# $d/$p: original author lost"; rc=$KSFT_FAIL; }
			grep -q '^Posted-as: \[PATCH net-next v2 [1-5]/5\], series Message-ID <20261010142247.99223-1-physicalmtea@gmail.com>' "$d/$p" ||
				{ echo "# $d/$p: posting not cited"; rc=$KSFT_FAIL; }
		done
		for f in "$d"/*.patch; do
			grep -qx "${f##*/}" "$s" || { echo "# $f: not in $s"; rc=$KSFT_FAIL; }
		done
		for n in 1 2 3 4 5; do
			grep -q "^000$n-" "$s" || { echo "# $s: no patch $n/5"; rc=$KSFT_FAIL; }
		done
		[ ! -f "$d/refuse" ] || refuse_ok "$d" || rc=$KSFT_FAIL
		# The accepted checkpatch messages name patches of the series
		# and give a reason (tests/series.sh compares them with checkpatch).
		[ -f "$d/checkpatch" ] || { echo "# $d/checkpatch missing"; rc=$KSFT_FAIL; continue; }
		grep -v '^[[:space:]]*\(#\|$\)' "$d/checkpatch" | while read -r p ty why; do
			grep -qxF "$p" "$s" && [ -n "$ty" ] && [ -n "$why" ] ||
				echo "# $d/checkpatch: '$p $ty': no such patch, or no type or reason"
		done | grep . && rc=$KSFT_FAIL
	done
	return "$rc"
}

# series/MATRIX.md and the CHANGELOG lines of the matrix are current.
test_matrix_current()
{
	diag "$RXKIT_TOP/maint/matrix" --check
}

# The refreshed 7.3 series changes no code of the posting: its
# prerequisites and the upstream patches (applied with offsets) and the
# series (zero offset) give byte-identical trees.
test_series_equivalent()
{
	local srcdir= f=
	srcdir=$(src_root 7.3)
	[ -d "$srcdir/patched" ] || { SKIP_REASON="no prepared 7.3 tree (ci/prepare 7.3)"; return "$KSFT_SKIP"; }
	upstream_applied || return "$KSFT_FAIL"
	(cd "$work/eq" && find . -type f) | while read -r f; do
		cmp -s "$work/eq/$f" "$srcdir/patched/$f" ||
			echo "# ${f#./}: series/7.3 differs from the posted code"
	done > "$work/eq.diff"
	cat "$work/eq.diff"
	[ ! -s "$work/eq.diff" ] || return "$KSFT_FAIL"
	echo "# 6 files identical"
}

# maint/interdiff works on every series (written to out/interdiff/TARGET.txt
# for review) and finds the 7.3 refresh identical to the posting.
test_interdiff()
{
	local b= t= n=
	mkdir -p "$RXKIT_OUT/interdiff"
	for b in "$RXKIT_TOP"/series/*/series; do
		t=${b%/series}
		t=${t##*/}
		"$RXKIT_TOP/maint/interdiff" "$t" > "$RXKIT_OUT/interdiff/$t.txt" ||
			{ echo "# maint/interdiff $t failed"; return "$KSFT_FAIL"; }
		echo "# $t: $(grep -c ': identical$' "$RXKIT_OUT/interdiff/$t.txt") of $(grep -c '^=== ' "$RXKIT_OUT/interdiff/$t.txt") patches identical to the posting"
	done
	n=$(grep -c ': identical$' "$RXKIT_OUT/interdiff/7.3.txt")
	[ "$n" = 5 ] || { echo "# 7.3: $n of 5 patches identical, expected 5"; return "$KSFT_FAIL"; }
}

# series/TARGET/fixes describes each fetched pinned tree.
test_fixes_record()
{
	local n=0 f= t=
	for f in "$RXKIT_TOP"/series/*/fixes; do
		t=${f%/fixes}
		t=${t##*/}
		[ -d "$(src_root "$t")/pristine" ] || { echo "# $t: not fetched here"; continue; }
		diag "$RXKIT_TOP/maint/check-drift" --verify-record "$t" || return "$KSFT_FAIL"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { SKIP_REASON="no target with a fixes record is fetched"; return "$KSFT_SKIP"; }
}

# Every shell script (shell_files: each sh or bash #! file and *.sh of the
# tree, and what they source) parses: sh -n (bash -n for a bash #! line).
test_shell_syntax()
{
	local rc="$KSFT_PASS" f=
	shell_list "$work/shell.files" || return "$KSFT_FAIL"
	while read -r f; do
		case "$(head -n 1 "$RXKIT_TOP/$f")" in
		'#!'*bash*) bash -n "$RXKIT_TOP/$f" 2>&1 ;;
		*) sh -n "$RXKIT_TOP/$f" 2>&1 ;;
		esac | sed 's/^/# /' | grep . && rc=$KSFT_FAIL
	done < "$work/shell.files"
	echo "# sh -n on $(wc -l < "$work/shell.files") scripts"
	return "$rc"
}

test_layout()
{
	local f= s=
	shell_list "$work/shell.files" || return "$KSFT_FAIL"
	while read -r f; do
		s=$(shell_sources "$f")
		printf '%s\n' "${s:--}" | sed "s|^|$f |"
	done < "$work/shell.files" > "$work/sources"
	layout_bad < "$work/sources" > "$work/layout.bad"
	printf '%s\n' 'ci/package.d/x.sh tests/lib/cases.sh' 'bench/x-lib.sh -' 'ci/x ci/lib.sh' |
		layout_bad > "$work/layout.made-up"
	echo "# $(cut -d" " -f1 "$work/sources" | sort -u | wc -l) shell files and what they source"
	if [ -s "$work/layout.bad" ]; then
		cat "$work/layout.bad"
		return "$KSFT_FAIL"
	fi
	[ "$(grep -c . "$work/layout.made-up")" = 2 ] &&
		grep -q 'x.sh sources tests/lib/cases.sh' "$work/layout.made-up" &&
		grep -q 'bench/x-lib.sh: a suite' "$work/layout.made-up" && return "$KSFT_PASS"
	echo "# the check took the made-up bad files for good or the good one for bad:"
	sed 's/^# /#   /' "$work/layout.made-up"
	return "$KSFT_FAIL"
}

# shellcheck disable=SC2086
run_tests $TESTS
