# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the ci/ stage scripts.  Sourced, never executed.
#
# Every stage script sets PROG before sourcing this file.

: "${PROG:=rxkit}"

RXKIT_TOP=$(cd "$(dirname "$0")/.." && pwd)
readonly RXKIT_TOP
: "${RXKIT_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/vsock-rxkit}"
: "${RXKIT_OUT:=$RXKIT_TOP/out}"
: "${RXKIT_TARGET:=7.3}"
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
	for d in "$RXKIT_TOP"/series/*/base; do
		[ -f "$d" ] || continue
		d=${d%/base}
		printf '%s ' "${d##*/}"
	done
}

# load_base TARGET: read series/TARGET/base (KEY=VALUE lines) into BASE_*.
load_base()
{
	_bd=$(target_dir "$1") || exit 1
	BASE_TARGET= BASE_VERSION= BASE_KIND= BASE_SUITE= BASE_PACKAGE=
	BASE_PKG_VERSION= BASE_DEB_SHA256= BASE_TARBALL= BASE_SHA256=
	while IFS='=' read -r _k _v; do
		case "$_k" in
		''|'#'*) continue ;;
		target) BASE_TARGET=$_v ;;
		version) BASE_VERSION=$_v ;;
		kind) BASE_KIND=$_v ;;
		suite) BASE_SUITE=$_v ;;
		package) BASE_PACKAGE=$_v ;;
		package_version) BASE_PKG_VERSION=$_v ;;
		deb_sha256) BASE_DEB_SHA256=$_v ;;
		tarball) BASE_TARBALL=$_v ;;
		sha256) BASE_SHA256=$_v ;;
		*) die "$_bd/base: unknown key '$_k'" ;;
		esac
	done < "$_bd/base"
	[ "$BASE_TARGET" = "$1" ] || die "$_bd/base: target is '$BASE_TARGET', expected '$1'"
	[ -n "$BASE_VERSION" ] && [ -n "$BASE_KIND" ] && [ -n "$BASE_SHA256" ] ||
		die "$_bd/base: version, kind and sha256 are required"
}

# Where a target's state lives.
src_root()   { printf '%s/src/%s\n' "$RXKIT_CACHE" "$1"; }
build_root() { printf '%s/build/%s\n' "$RXKIT_CACHE" "$1"; }
out_dir()    { printf '%s/%s\n' "$RXKIT_OUT" "$1"; }

# The version actually fetched (may differ from the pin when the archive
# moved on); written by ci/fetch.
fetched_version()
{
	_f="$(src_root "$1")/FETCHED"
	[ -f "$_f" ] || die "target '$1' not fetched yet; run: ci/fetch $1"
	sed -n 's/^version=//p' "$_f"
}

sha256_of()
{
	sha256sum "$1" | cut -d' ' -f1
}

# Elapsed-time helpers for the per-stage timing lines.
stage_start() { _stage_t0=$(date +%s); }
stage_end()   { log "$1 done in $(( $(date +%s) - _stage_t0 )) s"; }

# The kernel build identity shared by ci/build and the package builds of
# ci/srcpkg: fixed user, host and time stamp (reproducible objects, shared
# ccache entries), and the kit's ccache.  With it, a make in a build folder
# finds everything up to date and rebuilds nothing, and a package build of
# the same sources gets its compiles from ccache.  ccache also hashes the
# locale (LANG, LC_ALL, LC_CTYPE, LC_MESSAGES): the package builds keep
# the caller's, as ci/build does.
kbuild_env()
{
	export CCACHE_DIR="${CCACHE_DIR:-$RXKIT_CACHE/ccache}"
	export CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
	export KBUILD_BUILD_USER=rxkit KBUILD_BUILD_HOST=rxkit
	export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-Thu Jan  1 00:00:00 UTC 2026}"
	export KBUILD_BUILD_VERSION=1
}

# pkg_tmp: the folder ci/srcpkg unpacks and builds the packages in
# (RXKIT_PKG_TMP, default auto).  Every package run unpacks the 1.8 GB
# source tree three times (dpkg-source -b, dpkg-source -x, rpmbuild's
# %prep) and compiles twice; on tmpfs an unpack takes 10 s against 40 s on
# this machine's ext4 (measured: dpkg-source -x 10 s / 43 s, -b 17 s /
# 76 s).  auto: /dev/shm when it is a tmpfs with 10 GiB free and 12 GiB of
# memory are available (tests/packages.sh 7.3 held 4.2 GB at its peak), else
# RXKIT_CACHE/pkg-tmp.  The folder name ends up in the headers packages'
# host tools: callers that compare two builds pin it (tests/packages.sh).
pkg_tmp()
{
	if [ "${RXKIT_PKG_TMP:-auto}" != auto ]; then
		printf '%s\n' "$RXKIT_PKG_TMP"
		return 0
	fi
	_shm=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 && $1 == "tmpfs" { print $4 }')
	_mem=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo 2>/dev/null)
	if [ "${_shm:-0}" -ge $((10 << 20)) ] && [ "${_mem:-0}" -ge $((12 << 20)) ]; then
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

# series_patches DIR: the patch file names DIR/series lists, in order.
series_patches()
{
	grep -v '^[[:space:]]*\(#\|$\)' "$1/series" | awk '{ print $1 }'
}

# quilt_patches DIR TREE: TREE/patches/ holding the patches of DIR/series
# and a series file of their names (for QUILT_PATCHES=patches).
quilt_patches()
{
	mkdir "$2/patches"
	for _qp in $(series_patches "$1"); do
		[ -f "$1/$_qp" ] || die "$1/$_qp: listed in series but missing"
		cp "$1/$_qp" "$2/patches/$_qp"
		printf '%s\n' "$_qp" >> "$2/patches/series"
	done
}

# release_mark TREE: the uname -r suffix of that tree.  It goes into a
# localversion file of the build folder (scripts/setlocalversion reads
# $objtree/localversion*), not into CONFIG_LOCALVERSION: the .config and so
# include/generated/autoconf.h of the baseline and the patched tree stay
# identical, and the second tree compiles from ccache's direct-mode hits.
# The package builds (ci/srcpkg) mark their release the same way.
# The patched mark says which posting: -vsockrx2 for v2 of the series.
release_mark()
{
	case "$1" in
	patched) echo "-vsockrx$(series_version)" ;;
	*) echo "-rxbase" ;;
	esac
}

# series_version: the version of the posting in patches/upstream/ (the N
# of "[PATCH net-next vN 1/5]"; 1 when the subject carries none).
series_version()
{
	_sv=$(sed -n 's/^Subject: \[PATCH[^]]* v\([0-9][0-9]*\) [0-9]*\/[0-9]*\].*/\1/p' \
		"$RXKIT_TOP"/patches/upstream/0001-*.patch | head -n 1)
	printf '%s\n' "${_sv:-1}"
}

# kit_version: the newest version CHANGELOG records.
kit_version()
{
	sed -n 's/^\([0-9][0-9.]*\) (.*/\1/p' "$RXKIT_TOP/CHANGELOG" | head -n 1
}

# flavour_file NAME|PATH: the fragment list of a kconfig flavour.
flavour_file()
{
	case "$1" in
	*/*) [ -f "$1" ] || die "no flavour file $1"
	     printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "${1##*/}" ;;
	*) [ -f "$RXKIT_TOP/kconfig/flavours/$1" ] ||
		die "unknown flavour '$1' (no $RXKIT_TOP/kconfig/flavours/$1)"
	   printf '%s\n' "$RXKIT_TOP/kconfig/flavours/$1" ;;
	esac
}

# flavour_fragments FLIST: the fragment paths a flavour file names,
# relative to its own folder or to kconfig/.
flavour_fragments()
{
	grep -v '^[[:space:]]*\(#\|$\)' "$1" | while read -r _f; do
		if [ -f "${1%/*}/$_f" ]; then
			printf '%s\n' "${1%/*}/$_f"
		elif [ -f "$RXKIT_TOP/kconfig/$_f" ]; then
			printf '%s\n' "$RXKIT_TOP/kconfig/$_f"
		else
			die "$1 names missing fragment $_f"
		fi
	done
}

# config_file FILE: the absolute path of a --config FILE, checked.
config_file()
{
	[ -f "$1" ] || die "--config $1: no such file"
	grep -q '^CONFIG_' "$1" || die "--config $1: not a kernel configuration"
	printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "${1##*/}"
}

# kconfig_make SRC O BASE_CONFIG FRAGMENT...: O/.config = tinyconfig (or
# BASE_CONFIG, a distribution's configuration) + the fragments, merged by
# merge_config.sh; every requested value checked (ci/kconfig-check).  The
# same CC and HOSTCC as the build: kbuild rebuilds whatever was built with
# another command line (scripts/kconfig, fixdep, ...).  Log: O/config.log.
kconfig_make()
{
	_src=$1 _o=$2 _base=$3
	shift 3
	mkdir -p "$_o"
	if [ -n "$_base" ]; then
		cp "$_base" "$_o/.config"
		# A distribution's configuration names its own keys and release.
		sed -i -e '/^CONFIG_SYSTEM_TRUSTED_KEYS=/s/=.*/=""/' \
			-e '/^CONFIG_SYSTEM_REVOCATION_KEYS=/s/=.*/=""/' \
			-e '/^CONFIG_MODULE_SIG_KEY=/s/=.*/="certs\/signing_key.pem"/' \
			-e '/^CONFIG_LOCALVERSION=/s/=.*/=""/' "$_o/.config"
		make -s -C "$_src" O="$_o" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig \
			>"$_o/config.log" 2>&1
	else
		make -s -C "$_src" O="$_o" CC="ccache gcc" HOSTCC="ccache gcc" tinyconfig \
			>"$_o/config.log" 2>&1
	fi || { cat "$_o/config.log" >&2; die "the base configuration failed"; }
	(cd "$_src" && scripts/kconfig/merge_config.sh -m -O "$_o" "$_o/.config" "$@") \
		>>"$_o/config.log" 2>&1 ||
		{ cat "$_o/config.log" >&2; die "merge_config.sh failed"; }
	make -s -C "$_src" O="$_o" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig \
		>>"$_o/config.log" 2>&1 ||
		{ cat "$_o/config.log" >&2; die "make olddefconfig failed"; }
	cat "$@" | "$RXKIT_TOP/ci/kconfig-check" "$_o/.config" ||
		die "requested kconfig symbols did not stick (missing dependency?)"
}
