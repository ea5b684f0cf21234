# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared helpers of the kit's scripts (the ci/ stages, the tests).  Sourced,
# never executed; the command line's helpers are in ci/lib/args.sh, the
# kconfig helpers in ci/lib/kconfig.sh and the series' in ci/lib/series.sh,
# sourced from here.
#
# Every script sets PROG before sourcing this file.

: "${PROG:=rxkit}"

RXKIT_TOP=$(cd "$(dirname "$0")/.." && pwd)
readonly RXKIT_TOP
: "${RXKIT_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/vsock-rxkit}"
: "${RXKIT_OUT:=$RXKIT_TOP/out}"
: "${RXKIT_TARGET:=7.3}"
# A relative cache or results folder (a CI job's: .gitlab-ci.yml) is the
# one under the folder the first kit command ran in; what it runs gets
# the absolute path.
case "$RXKIT_CACHE" in /*) ;; *) RXKIT_CACHE="$PWD/$RXKIT_CACHE" ;; esac
case "$RXKIT_OUT" in /*) ;; *) RXKIT_OUT="$PWD/$RXKIT_OUT" ;; esac
export RXKIT_CACHE RXKIT_OUT

die()
{
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}

warn()
{
	printf '%s: warning: %s\n' "$PROG" "$*" >&2
}

log()
{
	printf '%s: %s\n' "$PROG" "$*"
}

# Loud, multi-line notice that cannot be missed in a CI log.
shout()
{
	printf '%s: ************************************************************\n' "$PROG" >&2
	printf '%s: *** %s\n' "$PROG" "$@" >&2
	printf '%s: ************************************************************\n' "$PROG" >&2
}

# need TOOL PACKAGE: fail with the Debian package name when TOOL is missing.
# limit NAME: the seconds of the limit NAME of tests/data/limits.
limit()
{
	awk -v n="$1" '$1 == n && $2 ~ /^[0-9]+$/ { print $2; f = 1; exit } END { exit !f }' \
		"$RXKIT_TOP/tests/data/limits" || die "no limit '$1' in tests/data/limits; run: add its row"
}

need()
{
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found; install the Debian package '$2' (make deps)"
}

# target_dir TARGET: the series folder of a target, or die.
target_dir()
{
	case "$1" in
	''|*/*|.*) die "invalid target name '$1'" ;;
	esac
	[ -f "$RXKIT_TOP/series/$1/base" ] ||
		die "unknown target '$1' (known: $(known_targets))"
	printf '%s\n' "$RXKIT_TOP/series/$1"
}

known_targets()
{
	local d=
	for d in "$RXKIT_TOP"/series/*/base; do
		[ -f "$d" ] || continue
		d=${d%/base}
		printf '%s ' "${d##*/}"
	done
}

# dkms_targets: the targets that pin the Debian kernel ABI of their DKMS
# package (series/T/debian-headers), in known_targets' order, one a line.
dkms_targets()
{
	local t=
	for t in $(known_targets); do
		[ ! -f "$RXKIT_TOP/series/$t/debian-headers" ] || printf '%s\n' "$t"
	done
}

# load_base TARGET: read series/TARGET/base (KEY=VALUE lines) into BASE_*.
# shellcheck disable=SC2034 # BASE_*: the caller's
load_base()
{
	local bd= k= v=
	bd=$(target_dir "$1") || exit 1
	BASE_TARGET= BASE_VERSION= BASE_KIND= BASE_SUITE= BASE_PACKAGE=
	BASE_PKG_VERSION= BASE_DEB_SHA256= BASE_TARBALL= BASE_SHA256=
	while IFS='=' read -r k v; do
		case "$k" in
		''|'#'*) continue ;;
		target) BASE_TARGET=$v ;;
		version) BASE_VERSION=$v ;;
		kind) BASE_KIND=$v ;;
		suite) BASE_SUITE=$v ;;
		package) BASE_PACKAGE=$v ;;
		package_version) BASE_PKG_VERSION=$v ;;
		deb_sha256) BASE_DEB_SHA256=$v ;;
		tarball) BASE_TARBALL=$v ;;
		sha256) BASE_SHA256=$v ;;
		*) die "$bd/base: unknown key '$k'" ;;
		esac
	done < "$bd/base"
	[ "$BASE_TARGET" = "$1" ] || die "$bd/base: target is '$BASE_TARGET', expected '$1'"
	[ -n "$BASE_VERSION" ] && [ -n "$BASE_KIND" ] && [ -n "$BASE_SHA256" ] ||
		die "$bd/base: version, kind and sha256 are required"
}

# Where a target's state lives.
src_root()   { printf '%s/src/%s\n' "$RXKIT_CACHE" "$1"; }
out_dir()    { printf '%s/%s\n' "$RXKIT_OUT" "$1"; }
# tree_target SRC: the target of a tree $(src_root TARGET)/TREE, or die.
tree_target()
{
	local t="${1%/}"
	t=${t%/*}
	t=${t##*/}
	[ -f "$RXKIT_TOP/series/$t/base" ] ||
		die "$1: not a tree of a target (\$RXKIT_CACHE/src/TARGET/TREE); run: ci/prepare TARGET"
	printf '%s\n' "$t"
}

# The version actually fetched (may differ from the pin when the archive
# moved on); written by ci/fetch.
fetched_version()
{
	local f=
	f="$(src_root "$1")/FETCHED"
	[ -f "$f" ] || die "target '$1' not fetched yet; run: ci/fetch $1"
	sed -n 's/^version=//p' "$f"
}

sha256_of()
{
	sha256sum "$1" | cut -d' ' -f1
}

# The timing line of a stage: timer_start, then timer_end NAME logs "NAME
# done in N s".
timer_start() { RXKIT_TIMER_T0=$(date +%s); }
timer_end()   { log "$1 done in $(( $(date +%s) - RXKIT_TIMER_T0 )) s"; }

# The kernel build identity shared by ci/build and the package builds of
# ci/package: fixed user, host and time stamp (reproducible objects, shared
# ccache entries), and the kit's ccache.  With it, a make in a build folder
# finds everything up to date and rebuilds nothing, and a package build of
# the same sources gets its compiles from ccache.  ccache also hashes the
# locale (LANG, LC_ALL, LC_CTYPE, LC_MESSAGES): the package builds keep
# the caller's, as ci/build does.
kbuild_env()
{
	export CCACHE_DIR="${CCACHE_DIR:-$RXKIT_CACHE/ccache}"
	export CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
	# The compiler by its content, not its mtime: a root that installs the
	# same gcc anew (tests/cleanroot.sh) then shares this machine's
	# compiles (with mtime it missed every one).
	export CCACHE_COMPILERCHECK=content
	# Depend mode: a miss takes its manifest from the compiler's own -MD
	# file (kbuild's -Wp,-MMD) instead of running the preprocessor once
	# more, which cost a cold kernel build about a third of its CPU.  Hits
	# are direct-mode ones, as they were: kbuild's srctree is relative
	# ("..", O= inside the tree; "." in a package build), so the other
	# tree's and the package builds' compiles still hit.
	export CCACHE_DEPEND=1
	export KBUILD_BUILD_USER=rxkit KBUILD_BUILD_HOST=rxkit
	export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-Thu Jan  1 00:00:00 UTC 2026}"
	export KBUILD_BUILD_VERSION=1
	# Debian's tools only: Kconfig asks $(RUSTC) and $(BINDGEN) from PATH
	# for their versions (CONFIG_RUSTC_VERSION and the like), so a rustc
	# of rustup's in ~/.cargo/bin changed the .config and the packages of
	# this machine from those of a clean root (tests/packages_rebuild.sh
	# reproducible, under gitlab-ci-local).  The kernel builds see the
	# distribution's folders alone, as a buildd's do.
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin
}

# pkg_tmp: the folder ci/package unpacks and builds the packages in
# (RXKIT_PKG_TMP, default auto).  Every package run unpacks the 1.8 GB
# source tree three times (dpkg-source -b, dpkg-source -x, rpmbuild's
# %prep) and compiles twice; on tmpfs an unpack takes a quarter of its time
# on ext4.  auto: /dev/shm when it is a tmpfs with 10 GiB free and 12 GiB of
# memory are available (a package build of one target holds GBs at its peak), else
# RXKIT_CACHE/pkg-tmp.  The folder name ends up in the headers packages'
# host tools: callers that compare two builds pin it (tests/packages_build.sh).
# pkg_tmp disk: the cache's folder in any case (a flavour with debug info:
# two such build folders side by side do not fit in memory).
pkg_tmp()
{
	if [ "${RXKIT_PKG_TMP:-auto}" != auto ]; then
		printf '%s\n' "$RXKIT_PKG_TMP"
		return 0
	fi
	if [ "${1:-}" = disk ]; then
		printf '%s/pkg-tmp\n' "$RXKIT_CACHE"
		return 0
	fi
	local shm= mem=
	shm=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 && $1 == "tmpfs" { print $4 }')
	mem=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo 2>/dev/null)
	if [ "${shm:-0}" -ge $((10 << 20)) ] && [ "${mem:-0}" -ge $((12 << 20)) ]; then
		printf '/dev/shm/vsock-rxkit-pkg\n'
	else
		printf '%s/pkg-tmp\n' "$RXKIT_CACHE"
	fi
}

# mirror_for SUITE: the archive URI the system's own apt sources use for
# SUITE's distribution (debian or debian-security), read from deb822
# .sources and one-line .list files.
mirror_for()
{
	local want=
	case "$1" in
	*-security) want=security ;;
	*) want=main ;;
	esac
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v want="$want" '
		function pick(uri, suites) {
			if (found || uri !~ /^(https?|file):/) return
			sec = (suites ~ /-security/)
			if ((want == "security") == sec) { print uri; found = 1 }
		}
		/^[ \t]*#/ { next }
		/^deb[ \t]/ {
			sub(/\[[^]]*\][ \t]*/, "")
			pick($2, $3)
			next
		}
		/^URIs:/ { uri = $2 }
		/^Suites:/ { suites = $0 }
		/^$/ { if (uri != "") pick(uri, suites); uri = ""; suites = "" }
		END { if (uri != "") pick(uri, suites) }'
}

. "$RXKIT_TOP/ci/lib/args.sh"
. "$RXKIT_TOP/ci/lib/series.sh"
. "$RXKIT_TOP/ci/lib/kconfig.sh"
. "$RXKIT_TOP/ci/lib/skips.sh"
