#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/static.sh: checks of the kit's own files that need no guest.
# KTAP on stdout.
set -eu
PROG=static
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="upstream_verbatim upstream_git_am series_files series_equivalent interdiff fixes_record matrix_current skip_lists shell_syntax commands_packaged"
readonly TESTS="${RXKIT_STATIC_TESTS:-$ALL_TESTS}"

usage()
{
	cat <<USAGE
usage: tests/static.sh [TARGET]

Checks of the repository itself (default target: $RXKIT_TARGET):
$(for t in $ALL_TESTS; do echo "  $t"; done)

Environment: RXKIT_STATIC_TESTS="NAME..." (a subset of the tests above).
commands_packaged also reads RXKIT_DEPS_LIST (a file in the format of
ci/deps --list, instead of it), RXKIT_COMMANDS_IGNORE (instead of
tests/commands.ignore) and RXKIT_COMMANDS_EXTRA (more scripts to check,
absolute paths); tests/errors.sh uses them.
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
esac
check_subset RXKIT_STATIC_TESTS
target=${1:-$RXKIT_TARGET}
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-static.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
up="$RXKIT_TOP/patches/upstream"

# case_names PROG.c: the test_cases[] names of a kernel vsock test program,
# "ID NAME" (ids from 0, as --list prints them).
case_names()
{
	awk '/test_cases\[\] = \{/ { f = 1; next } f && /^};/ { f = 0 }
		f && /\.name = "/ { s = $0; sub(/.*\.name = "/, "", s); sub(/",?[ \t]*$/, "", s)
			print n++ " " s }' "$1"
}

# skip_names FILE: each entry's id and the case name its reason quotes must
# be that case in the tree of every target the file applies to (its own,
# or all), where the tree is prepared.
skip_names()
{
	_sb=${1##*/}
	_prog=$(echo "${_sb%%.*}" | sed 's/_\(loopback\|vm_client\|vm_server\)$//')
	_ts=$(echo "$_sb" | cut -s -d. -f2-3 | sed 's/\.[a-z]*$//')
	[ -n "$_ts" ] || _ts=$(known_targets)
	_sr=0
	for _t in $_ts; do
		_c="$(src_root "$_t")/patched/tools/testing/vsock/$_prog.c"
		if [ ! -f "$_c" ]; then
			echo "# $_sb: names not checked against $_t: no tree (ci/prepare $_t)"
			continue
		fi
		case_names "$_c" > "$work/names"
		grep -v '^#' "$1" | grep '[^ ]' | while read -r _id _rest; do
			_q=$(printf '%s\n' "$_rest" | sed -n 's/^"\([^"]*\)".*/\1/p')
			_n=$(sed -n "s/^$_id //p" "$work/names")
			if [ -z "$_q" ]; then
				echo "# $_sb: entry $_id does not quote its case name (\"$_n\" in $_t)"
				echo bad
			elif [ "$_q" != "$_n" ]; then
				echo "# $_sb: entry $_id quotes \"$_q\", but id $_id of $_prog in $_t is \"${_n:-no such case}\""
				echo bad
			fi
		done > "$work/names.out"
		grep -v '^bad$' "$work/names.out" || true
		if grep -qx bad "$work/names.out"; then
			_sr=1
		else
			echo "# $_sb: ids and names match $_prog.c of $_t ($(wc -l < "$work/names") cases)"
		fi
	done
	return "$_sr"
}

# Every skip-list entry (tests/guest/skip/JOB[.TARGET]) is a test id and a
# reason that starts with the case's quoted name, names a job the kit has,
# and the id is that case in the target's tree.
test_skip_lists()
{
	_bad=0
	for f in "$RXKIT_TOP"/tests/guest/skip/*; do
		b=${f##*/}
		[ "$b" != README ] || continue
		[ -f "$RXKIT_TOP/tests/guest/jobs/${b%%.*}" ] ||
		case "${b%%.*}" in
		vsock_test_vm_client|vsock_test_vm_server|vsock_diag_test_vm_client|vsock_diag_test_vm_server) ;;
		*) echo "# $b: no job ${b%%.*}"; _bad=1 ;;
		esac
		if grep -v '^#' "$f" | grep '[^ ]' | grep -Ev '^[0-9]+ [^ ].{15,}$' > "$work/skipbad"; then
			echo "# $b: entries without a test id and a reason:"
			sed 's/^/#   /' "$work/skipbad"
			_bad=1
		fi
		echo "# $b: $(grep -v '^#' "$f" | grep -c '[^ ]') entries"
		skip_names "$f" || _bad=1
	done
	return "$_bad"
}

# patches/upstream/ is the posting, byte for byte.
test_upstream_verbatim()
{
	seed=$(ls "$RXKIT_TOP"/../shared/seeds/000_*.txt 2>/dev/null | head -n 1)
	if [ -z "$seed" ]; then
		SKIP_REASON="the archived posting (../shared/seeds) is not next to this clone"
		return "$KSFT_SKIP"
	fi
	diag "$RXKIT_TOP/ci/import-upstream" --check "$seed"
}

# git am's parser accepts every patch with the original author and subject,
# and git apply accepts the five in order on the pristine tree.
test_upstream_git_am()
{
	need git git
	n=0
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
	echo "# git apply: the five patches apply in order to Linux $(fetched_version 7.3)"
}

# upstream_applied: the vsock files of the pristine 7.3 tree with the posted
# patches applied in order by git apply (as git am does), in $work/eq.
upstream_applied()
{
	[ ! -f "$work/eq.done" ] || return 0
	srcdir=$(src_root 7.3)
	rm -rf "$work/eq"
	for f in include/linux/virtio_vsock.h include/net/af_vsock.h \
		 net/vmw_vsock/af_vsock.c net/vmw_vsock/virtio_transport.c \
		 net/vmw_vsock/virtio_transport_common.c net/vmw_vsock/vsock_bpf.c; do
		mkdir -p "$work/eq/${f%/*}"
		cp "$srcdir/pristine/$f" "$work/eq/$f"
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
# needs it (Stable-dep-of:); each carries a bracketed backport note.
test_series_files()
{
	rc=$KSFT_PASS
	for s in "$RXKIT_TOP"/series/*/series; do
		d=${s%/series}
		for p in $(grep -v '^[[:space:]]*#' "$s"); do
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
	diag "$RXKIT_TOP/ci/matrix" --check
}

# The refreshed 7.3 series changes no code: the upstream patches (applied
# with offsets) and the series (zero offset) give byte-identical trees.
test_series_equivalent()
{
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

# ci/interdiff works on every series (written to out/interdiff/TARGET.txt
# for review) and finds the 7.3 refresh identical to the posting.
test_interdiff()
{
	mkdir -p "$RXKIT_OUT/interdiff"
	for b in "$RXKIT_TOP"/series/*/series; do
		t=${b%/series}
		t=${t##*/}
		"$RXKIT_TOP/ci/interdiff" "$t" > "$RXKIT_OUT/interdiff/$t.txt" ||
			{ echo "# ci/interdiff $t failed"; return "$KSFT_FAIL"; }
		echo "# $t: $(grep -c ': identical$' "$RXKIT_OUT/interdiff/$t.txt") of $(grep -c '^=== ' "$RXKIT_OUT/interdiff/$t.txt") patches identical to the posting"
	done
	n=$(grep -c ': identical$' "$RXKIT_OUT/interdiff/7.3.txt")
	[ "$n" = 5 ] || { echo "# 7.3: $n of 5 patches identical, expected 5"; return "$KSFT_FAIL"; }
}

# series/TARGET/fixes describes each fetched pinned tree.
test_fixes_record()
{
	n=0
	for f in "$RXKIT_TOP"/series/*/fixes; do
		t=${f%/fixes}
		t=${t##*/}
		[ -d "$(src_root "$t")/pristine" ] || { echo "# $t: not fetched here"; continue; }
		diag "$RXKIT_TOP/ci/check-drift" --verify-record "$t" || return "$KSFT_FAIL"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { SKIP_REASON="no target with a fixes record is fetched"; return "$KSFT_SKIP"; }
}

test_shell_syntax()
{
	rc=$KSFT_PASS
	for f in "$RXKIT_TOP"/ci/* "$RXKIT_TOP"/tests/*.sh "$RXKIT_TOP"/tests/mkinitramfs \
		 "$RXKIT_TOP"/tests/vhost-user-backend \
		 "$RXKIT_TOP"/tests/check "$RXKIT_TOP"/tests/guest/init \
		 "$RXKIT_TOP"/tests/guest/jobs/* "$RXKIT_TOP"/tests/guest/lib.sh \
		 "$RXKIT_TOP"/.ci/run; do
		[ -f "$f" ] || continue
		sh -n "$f" 2>&1 | sed 's/^/# /' | grep . && rc=$KSFT_FAIL
	done
	if command -v shellcheck >/dev/null 2>&1; then
		shellcheck -s sh -S error "$RXKIT_TOP"/ci/fetch "$RXKIT_TOP"/ci/prepare \
			"$RXKIT_TOP"/ci/build 2>&1 | sed 's/^/# /' | grep . && rc=$KSFT_FAIL
	else
		echo "# shellcheck not installed: sh -n only"
	fi
	return "$rc"
}

# The shell's reserved words are the awk program's; these are its builtins
# (dash's, and POSIX's special ones): the language, not commands to install.
readonly SH_BUILTINS=". : [ alias bg break cd command continue echo eval exec exit export false fc fg getopts hash jobs kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait"

# commands_scan: tests/commands.awk over the kit's host-side scripts: the
# tracked shell scripts (a sh or bash #! line, or *.sh), except the busybox
# guest's (tests/guest/), tests/fixtures/ and the maintainer scripts
# debian/*.in, which run on the installing system (their needs are the
# packages' Depends); the recipes of Makefile and debian/rules; the build
# sections of the RPM spec; RXKIT_COMMANDS_EXTRA.  Also writes
# $work/cmd.kit, the names of the kit's own executables.
commands_scan()
{
	(
		cd "$RXKIT_TOP" || exit 1
		git ls-files > "$work/cmd.tracked" || exit 1
		while read -r _f; do
			[ -f "$_f" ] || continue
			[ ! -x "$_f" ] || echo "${_f##*/}" >> "$work/cmd.kit"
			case "$_f" in
			tests/guest/*|tests/fixtures/*|debian/*.in) continue ;;
			*.sh) echo "$_f"; continue ;;
			esac
			case "$(head -n 1 "$_f")" in
			'#!'*/sh|'#!'*/bash|'#!'*/sh[\ \	]*|'#!'*/bash[\ \	]*|'#!'*/env\ sh|'#!'*/env\ bash) echo "$_f" ;;
			esac
		done < "$work/cmd.tracked" > "$work/cmd.files"
		# shellcheck disable=SC2046,SC2086
		awk -f tests/commands.awk type=sh $(cat "$work/cmd.files") \
			${RXKIT_COMMANDS_EXTRA:-} \
			type=make Makefile debian/rules type=spec rpm/*.spec.in
	) > "$work/cmd.raw" || return 1
	sort -u "$work/cmd.raw" > "$work/cmd.scan"
}

# Every command the kit's scripts run (tests/commands.awk finds them: the
# list is derived, not kept) comes from a package that a clean Debian has
# (priority required or important), that ci/deps installs, or that a
# package of ci/deps directly depends on; every "need TOOL PACKAGE" names
# the package TOOL is in, or one that directly depends on it.  A name that is no command here is a missing
# tool, or a word the awk program took for a command: tests/commands.ignore
# lists the deliberate ones with a reason, and an entry the scan no longer
# finds fails too.
test_commands_packaged()
{
	command -v git >/dev/null 2>&1 && [ -e "$RXKIT_TOP/.git" ] ||
		{ SKIP_REASON="not a git checkout (the scripts are git ls-files)"; return "$KSFT_SKIP"; }
	command -v dpkg-query >/dev/null 2>&1 ||
		{ SKIP_REASON="no dpkg-query: not a Debian system"; return "$KSFT_SKIP"; }
	_cp_rc=$KSFT_PASS
	: > "$work/cmd.kit"
	commands_scan || { echo "# the scan of the scripts failed"; return "$KSFT_FAIL"; }
	if grep '^warn ' "$work/cmd.scan" | sed 's/^warn /# commands.awk lost track: /' | grep .; then
		_cp_rc=$KSFT_FAIL
	fi
	sed -n 's/^dyn \([^ ]*\) \(.*\)/# note: \2 runs \1, a computed command (not checked)/p' "$work/cmd.scan"
	# The names: commands less builtins, the kit's functions and scripts.
	{
		for _b in $SH_BUILTINS; do echo "drop $_b"; done
		awk '$1 == "func" { print "drop", $2 }' "$work/cmd.scan"
		sed 's/^/drop /' "$work/cmd.kit"
		awk '$1 == "cmd"' "$work/cmd.scan"
	} | awk '$1 == "drop" { d[$2] = 1; next }
		!($2 in d) { f[$2] = f[$2] (f[$2] == "" ? "" : ",") $3 }
		END { for (n in f) print n, f[n] }' | sort > "$work/cmd.names"
	_ign=${RXKIT_COMMANDS_IGNORE:-$RXKIT_TOP/tests/commands.ignore}
	grep -v '^[[:space:]]*\(#\|$\)' "$_ign" > "$work/cmd.ignore" 2>/dev/null || :
	while read -r _n _why; do
		[ -n "$_why" ] || { echo "# ${_ign##*/}: '$_n' has no reason"; _cp_rc=$KSFT_FAIL; }
		grep -q "^$_n " "$work/cmd.names" ||
			{ echo "# ${_ign##*/}: stale entry '$_n': the scripts no longer run it"; _cp_rc=$KSFT_FAIL; }
	done < "$work/cmd.ignore"
	# Paths: as found (sbin too), its merged-/usr twin, then each link.
	: > "$work/cmd.paths"
	while read -r _n _f; do
		# Debian's folders first: not a copy in /usr/local or ~.
		_p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$_n" 2>/dev/null) ||
			_p=$(command -v "$_n" 2>/dev/null) || _p=
		_c=
		_i=0
		while [ -n "$_p" ] && [ "$_i" -lt 5 ]; do
			case "$_p" in
			/*) ;;
			*) break ;;
			esac
			_c="$_c $_p $(twin "$_p")"
			[ -L "$_p" ] || break
			_l=$(readlink "$_p")
			case "$_l" in
			/*) _p=$_l ;;
			*) _p="$(dirname "$_p")/$_l" ;;
			esac
			_i=$((_i + 1))
		done
		printf '%s %s\n' "$_n" "$_c" >> "$work/cmd.paths"
	done < "$work/cmd.names"
	# One dpkg -S for every path: "pkg[:arch][, pkg...]: path".
	# shellcheck disable=SC2046
	dpkg -S $(awk '{ for (i = 2; i <= NF; i++) print $i }' "$work/cmd.paths" | sort -u) \
		2>/dev/null | grep -v '^diversion ' |
		awk '{ i = index($0, ": "); p = substr($0, i + 2); l = substr($0, 1, i - 1)
			gsub(/:[a-z0-9_-]+/, "", l); gsub(/,/, "", l); print p, l }' > "$work/cmd.owners" || :
	# The allowed packages: ci/deps, and one level of their Depends.
	if [ -n "${RXKIT_DEPS_LIST:-}" ]; then
		cat "$RXKIT_DEPS_LIST"
	else
		"$RXKIT_TOP/ci/deps" --list
	fi | awk 'NF { print $1 }' | sort -u > "$work/cmd.deps"
	# Their hard dependencies ("a | b" guarantees neither), and those of
	# the packages the need calls name: "DEP PACKAGE" lines.
	# shellcheck disable=SC2046
	dpkg-query -W -f='${Package} ${Depends}, ${Pre-Depends}\n' $(cat "$work/cmd.deps") \
		$(awk '$1 == "need" { print $3 }' "$work/cmd.scan" | sort -u) 2>/dev/null |
		awk '{ p = $1; $1 = ""; n = split($0, d, ",")
			for (i = 1; i <= n; i++) {
				if (d[i] ~ /\|/) continue
				sub(/\(.*/, "", d[i]); sub(/:[a-z]+/, "", d[i]); gsub(/[ \t]/, "", d[i])
				if (d[i] != "") print d[i], p
			} }' | sort -u > "$work/cmd.pulled"
	# shellcheck disable=SC2046
	dpkg-query -W -f='${Package} ${Priority}\n' \
		$(awk '{ for (i = 2; i <= NF; i++) print $i }' "$work/cmd.owners" | sort -u) \
		2>/dev/null > "$work/cmd.prio" || :
	awk -v need="$work/cmd.scan" -v ign="$work/cmd.ignore" -v deps="$work/cmd.deps" \
	    -v pulled="$work/cmd.pulled" -v prio="$work/cmd.prio" -v owners="$work/cmd.owners" \
	    -v names="$work/cmd.names" -v list="${RXKIT_DEPS_LIST:-ci/deps}" -v ign_name="${_ign##*/}" '
		BEGIN {
			while ((getline l < ign) > 0) { split(l, a, " "); r = l; sub(/^[^ \t]*[ \t]+/, "", r); why[a[1]] = r }
			while ((getline l < deps) > 0) listed[l] = 1
			while ((getline l < pulled) > 0) {
				split(l, a, " ")
				if ((a[2] in listed) && !(a[1] in by)) by[a[1]] = a[2]
				dep[a[2], a[1]] = 1
			}
			while ((getline l < prio) > 0) { split(l, a, " "); pr[a[1]] = a[2] }
			while ((getline l < owners) > 0) { n = split(l, a, " "); for (i = 2; i <= n; i++) own[a[1]] = own[a[1]] " " a[i] }
			while ((getline l < names) > 0) { split(l, a, " "); files[a[1]] = a[2] }
			while ((getline l < need) > 0) { split(l, a, " "); if (a[1] == "need") needs[a[2]] = needs[a[2]] " " a[3] ":" a[4] }
		}
		# ok PKG: why PKG may be used, or "".
		function ok(p) {
			if (pr[p] == "required" || pr[p] == "important") return "priority " pr[p]
			if (p in listed) return "in " list
			if (p in by) return "note: Depends of " by[p] " (in " list ")"
			return ""
		}
		{
			nm = $1; path = ""; pk = ""
			for (i = 2; i <= NF; i++) if (own[$i] != "") { path = $i; pk = substr(own[$i], 2); break }
			if (NF == 1) {
				if (nm in why) { print "# " nm ": not a command here; in " ign_name ": " why[nm]; next }
				print "BAD " nm ": not a command on this machine (run by " files[nm] "): install it, or, when the scan took a word for a command, say why in the ignore file"
				next
			}
			if (pk == "") {
				if (nm in why) { print "# " nm ": " $2 ", of no package; in " ign_name ": " why[nm]; next }
				print "BAD " nm ": " $2 " belongs to no Debian package (run by " files[nm] ")"
				next
			}
			n = split(pk, ps, " "); reason = ""; which = ps[1]
			for (i = 1; i <= n && reason == ""; i++) { reason = ok(ps[i]); if (reason != "") which = ps[i] }
			if (nm in why) reason = (reason == "" ? "" : reason "; ") "in " ign_name ": " why[nm]
			if (reason == "")
				print "BAD " nm ": " path " (" which "), run by " files[nm] ": not in " list ", not priority required/important, no Depends of a listed package: add \"" which "  " files[nm] "\" to ci/deps"
			else
				print "# " nm ": " path " (" which "): " reason
			# need TOOL PKG: PKG has TOOL, or directly depends on its package.
			m = split(needs[nm], nd, " ")
			for (i = 1; i <= m; i++) {
				split(nd[i], q, ":")
				if ((" " pk " ") ~ (" " q[1] " ")) continue
				for (j = 1; j <= n; j++) if ((q[1], ps[j]) in dep) break
				if (j <= n)
					print "# note: " q[2] ": need " nm " " q[1] ": " path " is in " ps[j] ", which " q[1] " depends on"
				else
					print "BAD " q[2] ": need " nm " " q[1] ", but " path " is in " pk
			}
		}' "$work/cmd.paths" > "$work/cmd.report"
	grep -v '^BAD ' "$work/cmd.report" || :
	if grep -q '^BAD ' "$work/cmd.report"; then
		sed -n 's/^BAD /# not ok: /p' "$work/cmd.report"
		_cp_rc=$KSFT_FAIL
	fi
	echo "# $(wc -l < "$work/cmd.names") commands in $(wc -l < "$work/cmd.files") scripts, Makefile, debian/rules, the RPM spec; $(wc -l < "$work/cmd.ignore") in the ignore file"
	return "$_cp_rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
