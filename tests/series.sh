#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/series.sh: the series of a target checked patch by patch, the way a
# stable reviewer checks a backport queue.  KTAP on stdout.
#
# On a hard-link copy of the pristine tree (the "series" tree), after each
# patch in order:
#   apply       quilt push --fuzz=0 of that one patch, no offset
#   w1_builtin  W=1 compile of net/vmw_vsock/ and drivers/vhost/vsock.o with
#               every vsock option built in (kconfig/flavours/vsock-y)
#   w1_modules  the same with every vsock option a module (vsock-m)
#   checkpatch  the tree's checkpatch.pl --strict; its messages must be
#               exactly those listed, with a reason, in series/TARGET/checkpatch
# and once for the whole series:
#   quiltimport git quiltimport of the series onto the pristine files it
#               touches: one commit a patch, each with the patch's author
#               and subject
# A warning or an error of the compiler or of objtool fails the step.
set -eu
PROG=series
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly VSOCK_OBJS="net/vmw_vsock/ drivers/vhost/vsock.o"
readonly VARIANTS="builtin:vsock-y modules:vsock-m"

usage()
{
	cat <<USAGE
usage: tests/series.sh [--series DIR] [TARGET]

Per-patch checks of series/TARGET (default: $RXKIT_TARGET): zero-fuzz apply,
W=1 compile of the vsock objects built in and as modules, checkpatch --strict
against series/TARGET/checkpatch.  Needs the fetched tree (ci/fetch TARGET).
--series DIR checks the quilt series in DIR instead (with DIR/checkpatch).
Work tree: \$RXKIT_CACHE/src/TARGET/series (RXKIT_CACHE=$RXKIT_CACHE).
USAGE
}
sdir=
extra_opt()
{
	case "$1" in
	--series) opt_arg "a folder" "$@"; sdir=$2; return 2 ;;
	esac
	return 0
}
parse_stage_args '' "$@"
: "${target:=$RXKIT_TARGET}"
tdir=$(target_dir "$target")
: "${sdir:=$tdir}"
sdir=$(cd "$sdir" && pwd) || die "no series folder $sdir"
[ -f "$sdir/series" ] || die "$sdir/series: no quilt series file"
need quilt quilt
need perl perl
srcdir=$(src_root "$target")
[ -d "$srcdir/pristine" ] || die "$target not fetched; run: ci/fetch $target"
tree="$srcdir/series"
logs="$(out_dir "$target")/series"
# One run a target at a time: the work tree and the logs are shared (the
# error suite's bad-patch test runs this script too).
need flock util-linux
exec 8> "$srcdir/series.lock"
if ! flock -n 8; then
	log "waiting for another tests/series.sh of $target (lock $srcdir/series.lock)" >&2
	flock 8
fi
JOBS=${RXKIT_JOBS:-$(nproc)}
kbuild_env

patches=$(series_patches "$sdir")
npatch=$(printf '%s\n' "$patches" | grep -c .) || die "$sdir/series lists no patch"
# The result names: 0001 for posted patch 1, 0000, 0000.2 for prerequisites.
labels=$(patch_labels "$sdir")

# new_tree: a fresh hard-link copy of pristine with the series as quilt
# patches, none applied; the build folders of the last run are kept (their
# objects of the vsock folders are removed before every compile).
new_tree()
{
	rm -rf "$tree.tmp"
	cp -al "$srcdir/pristine" "$tree.tmp"
	for o in "$tree"/o-*; do
		[ -d "$o" ] && mv "$o" "$tree.tmp/"
	done
	quilt_patches "$sdir" "$tree.tmp"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
}

# configure VARIANT FLAVOUR: .config of the build folder and 'make prepare'.
# The configuration is redone only when the fragments, ci/build or the
# fetched tree changed (stamp in the build folder).
configure()
{
	local sum=
	sum=$( (cat "$RXKIT_TOP/kconfig/flavours/$2" "$RXKIT_TOP"/kconfig/*.config \
		"$RXKIT_TOP/ci/build" "$srcdir/FETCHED") | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$tree/o-$2/.rxkit-config" 2>/dev/null)" != "$sum" ]; then
		"$RXKIT_TOP/ci/build" --tree series --flavour "$2" --config-only "$target" \
			> "$logs/config-$1.log" 2>&1 ||
			{ sed 's/^/# /' "$logs/config-$1.log"; return 1; }
		echo "$sum" > "$tree/o-$2/.rxkit-config"
	fi
	make -C "$tree/o-$2" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" prepare \
		>> "$logs/config-$1.log" 2>&1 ||
		{ tail -n 20 "$logs/config-$1.log" | sed 's/^/# /'; return 1; }
}

# compile STEP VARIANT FLAVOUR: W=1 compile of the vsock objects; 0 warnings.
compile()
{
	local o="$tree/o-$3" log="$logs/$1-w1-$2.log" rc=0 warnings=0 errors=0 objects=0
	rm -f "$o"/net/vmw_vsock/*.o "$o"/drivers/vhost/vsock.o "$o"/drivers/vhost/vhost_vsock.o
	make -C "$o" -j"$JOBS" W=1 CC="ccache gcc" HOSTCC="ccache gcc" $VSOCK_OBJS \
		> "$log" 2>&1 || rc=$?
	warnings=$(grep -c ': warning:' "$log") || :
	errors=$(grep -c ': error:' "$log") || :
	objects=$(grep -c '^  CC .*\(vmw_vsock\|vhost/vsock\)' "$log") || :
	echo "# $1 $2: $objects objects compiled, $warnings warnings, $errors errors (log: $log)"
	if [ "$rc" != 0 ] || [ "$warnings" != 0 ] || [ "$errors" != 0 ] || [ "$objects" = 0 ]; then
		grep -E ': (warning|error):' "$log" | head -n 20 | sed 's/^/#   /'
		[ "$rc" = 0 ] || tail -n 5 "$log" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	return "$KSFT_PASS"
}

# apply PATCH: exactly that patch, zero fuzz, no offset.
apply()
{
	local log="$logs/$1-apply.log"
	if ! (cd "$tree" && QUILT_PATCHES=patches QUILTRC=/dev/null \
		quilt push --fuzz=0 > "$log" 2>&1); then
		sed 's/^/# /' "$log"
		return "$KSFT_FAIL"
	fi
	if grep -qE 'offset|fuzz' "$log"; then
		sed 's/^/# /' "$log"
		return "$KSFT_FAIL"
	fi
	(cd "$tree" && QUILT_PATCHES=patches QUILTRC=/dev/null quilt top) |
		sed "s,^patches/,," | grep -qx "$1" || { echo "# quilt top is not $1"; return "$KSFT_FAIL"; }
}

# checkpatch PATCH: the messages of checkpatch --strict, by type, equal the
# entries of series/TARGET/checkpatch for that patch.
checkpatch()
{
	local want="$logs/$1-checkpatch.want" got="$logs/$1-checkpatch.got"
	: > "$want"
	[ ! -f "$sdir/checkpatch" ] ||
		awk -v p="$1" '$1 == p { print $2 }' "$sdir/checkpatch" | sort > "$want"
	(cd "$tree" && perl scripts/checkpatch.pl --strict --terse --show-types \
		--no-summary "$sdir/$1" > "$logs/$1-checkpatch.log" 2>&1) || :
	sed -n 's/^[^:]*:[0-9]*: \(WARNING\|ERROR\|CHECK\):\([A-Z0-9_]*\):.*/\2/p' \
		"$logs/$1-checkpatch.log" | sort > "$got"
	sed 's/^[^:]*:/# /' "$logs/$1-checkpatch.log"
	if ! cmp -s "$want" "$got"; then
		echo "# $1: checkpatch messages differ from ${sdir#"$RXKIT_TOP"/}/checkpatch (-listed +reported):"
		diff "$want" "$got" | sed -n 's/^\([<>]\) /\1/p' | tr '<>' '-+' | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
}

# quiltimport: the series imports with git quiltimport (as stable
# maintainers take a queue), onto a repository of the pristine versions of
# the files it touches; every commit keeps its patch's From: and subject.
quiltimport()
{
	local g="$logs/quiltimport" p= f= n=0 i=0 want_a= want_s= got_a= got_s=
	need git git
	rm -rf "$g"
	mkdir -p "$g/repo"
	for p in $patches; do
		sed -n 's/^+++ b\/\([^	]*\).*/\1/p' "$sdir/$p"
	done | sort -u | while read -r f; do
		[ -f "$srcdir/pristine/$f" ] || continue
		mkdir -p "$g/repo/${f%/*}"
		cp "$srcdir/pristine/$f" "$g/repo/$f"
	done
	(
		cd "$g/repo"
		export GIT_AUTHOR_NAME=rxkit GIT_AUTHOR_EMAIL=rxkit@localhost.invalid \
			GIT_COMMITTER_NAME=rxkit GIT_COMMITTER_EMAIL=rxkit@localhost.invalid
		git init -q . && git add -A && git commit -q -m "Linux $(fetched_version "$target"), touched files" &&
		git quiltimport --patches "$sdir" --series "$sdir/series"
	) > "$g/import.log" 2>&1 || { sed 's/^/# /' "$g/import.log" | tail -n 15; return 1; }
	n=$(git -C "$g/repo" rev-list --count HEAD) || return 1
	[ "$n" = $((npatch + 1)) ] || { echo "# $((n - 1)) commits for $npatch patches"; return 1; }
	i=$npatch
	for p in $patches; do
		i=$((i - 1))
		want_a=$(sed -n 's/^From: //p' "$sdir/$p" | head -n 1)
		want_s=$(sed -n 's/^Subject: \(\[[^]]*\] \)\{0,1\}//p' "$sdir/$p" | head -n 1)
		got_a=$(git -C "$g/repo" log -1 --format='%an <%ae>' "HEAD~$i")
		got_s=$(git -C "$g/repo" log -1 --format='%s' "HEAD~$i")
		[ "$got_a" = "$want_a" ] && [ "$got_s" = "$want_s" ] || {
			echo "# $p imported as '$got_a' '$got_s', not '$want_a' '$want_s'"
			return 1
		}
	done
	echo "# git quiltimport: $npatch commits, authors and subjects as in the patches"
}

# step STEP: the two compiles of one step, as two results.
step()
{
	local v= r=0
	for v in $VARIANTS; do
		if [ "$configured" != 1 ]; then
			ktap_result "$KSFT_SKIP" "$1 w1_${v%%:*}" "the build folders could not be configured"
			continue
		fi
		r=0
		compile "$1" "${v%%:*}" "${v#*:}" || r=$?
		ktap_result "$r" "$1 w1_${v%%:*}"
	done
}

rm -rf "$logs"
mkdir -p "$logs"
ktap_header $((4 * npatch + 1))
echo "# ${sdir#"$RXKIT_TOP"/} on Linux $(fetched_version "$target"): $npatch patches, $JOBS jobs"
new_tree
configured=1
for v in $VARIANTS; do
	configure "${v%%:*}" "${v#*:}" || configured=0
done
broken=
for p in $patches; do
	n=$(printf '%s\n' "$labels" | awk -v p="$p" '$2 == p { print $1; exit }')
	echo "# $p: $(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$sdir/$p" | head -n 1)"
	if [ -n "$broken" ]; then
		for t in apply w1_builtin w1_modules; do
			ktap_result "$KSFT_SKIP" "$n $t" "$broken did not apply"
		done
	else
		r=0
		apply "$p" || r=$?
		ktap_result "$r" "$n apply"
		if [ "$r" = 0 ]; then
			step "$n"
		else
			broken=$p
			for t in w1_builtin w1_modules; do
				ktap_result "$KSFT_SKIP" "$n $t" "$p did not apply"
			done
		fi
	fi
	r=0
	checkpatch "$p" || r=$?
	ktap_result "$r" "$n checkpatch"
done
r=0
quiltimport || r=$?
ktap_result "$r" "quiltimport"
ktap_finish
