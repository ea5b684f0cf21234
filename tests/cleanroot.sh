#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/cleanroot.sh: the kit's stages on a new user's machine.
#
# A root holding only Debian 12's base system (debootstrap's default
# variant: priority required and important; images/mkrootfs --base, cached)
# gets a copy of the kit's tracked files, then runs, chrooted in a private
# mount namespace: ci/deps, ci/fetch, ci/prepare, ci/build of the patched
# tree, the test initramfs and one guest boot, ci/package with its lint, and
# ci/repo (the signed repositories, with a key made there); then the DKMS
# package's suite (tests/dkms_build.sh) of the first target that pins a
# Debian kernel ABI.
# Only the kit's ccache is shared with this machine (bind-mounted), so the
# compiles are ccache hits of the kernels make check built before; apt's
# downloaded packages are kept between runs (RXKIT_CACHE/cleanroot/archives).
# A command the root lacks fails the test with the command and the Debian
# package that provides it on this machine: a tool ci/deps forgot.
# KTAP on stdout; exit 0 (all passed or skipped), 1 (a failure).
set -eu
PROG=cleanroot
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="deps fetch_prepare build boot package repo dkms"
readonly TEST_DESCS="ci/deps installs in the base root what the kit needs, and nothing on its second run:\
ci/fetch and ci/prepare of TARGET in the root:\
ci/build of the patched tree in the root (its compiles the shared ccache's hits):\
the test initramfs and one guest boot of that kernel (tests/vsock_loopback.sh -t boot_release):\
ci/package in the root, lintian and rpmlint clean:\
ci/repo publishes the root's packages, signed with a key made in the root:\
ci/dkms and Debian's dkms build and install the DKMS package in the root (tests/dkms_build.sh)"
# Where the kit, its cache and its output live inside the root.
readonly IN_KIT=/rxkit
readonly IN_CACHE=/var/cache/vsock-rxkit

usage()
{
	cat <<USAGE
usage: tests/cleanroot.sh [-l] [-t NAME]... [-T NAME]... [TARGET]
       tests/cleanroot.sh --scan LOG

In a clean Debian 12 base root (images/mkrootfs --base), run the kit's
stages for TARGET (default: $RXKIT_TARGET), each a test; each needs
those before it in the same run (every run starts from a new root).  The
root and the logs: \$RXKIT_CACHE/cleanroot/ (removed at the start of the
next run).

-l         list the tests with what each checks
-t NAME    run NAME (may repeat; default: every test)
-T NAME    do not run NAME (may repeat)
--scan LOG the commands LOG says were not found, each with the Debian
           package that provides it on this machine (what a failing
           test prints)
USAGE
}
work="$RXKIT_CACHE/cleanroot"
root="$work/root"
logs="$work/logs"

# setup_root: a fresh root from the cached base tarball, with the kit in it.
setup_root()
{
	local tarball f
	rm -rf "$root" "$logs"
	mkdir -p "$root" "$logs" "$work/archives/partial" "$RXKIT_CACHE/ccache"

	tarball=$("$RXKIT_TOP/images/mkrootfs" --base) || die "no Debian base root (images/mkrootfs --base)"
	tar -C "$root" -xf "$tarball" || die "cannot unpack $tarball"
	echo "# $target in a clean Debian base root: $root (from $tarball)"
	# The kit as a clone has it: tracked files only (an untracked new file
	# that the kit needs fails here as it would on a user's machine).
	mkdir -p "$root$IN_KIT" "$root$IN_CACHE/ccache"
	git -C "$RXKIT_TOP" ls-files -z | tar -C "$RXKIT_TOP" --null -T - -cf - |
		tar -C "$root$IN_KIT" -xf - || die "cannot copy the kit into the root"
	# The root reaches the archive as this machine does: its name service and
	# its apt settings (a proxy, or the validity dates of a mirror snapshot:
	# apt.conf.d holds no package list, the root keeps its own sources).
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
	for f in /etc/apt/apt.conf.d/*; do
		[ ! -f "$f" ] || [ -e "$root$f" ] || cp "$f" "$root$f"
	done
	# And its TLS trust: the certificate authorities this machine adds to
	# Debian's (a proxy's, e.g.), which ca-certificates in the root takes
	# in when ci/deps installs it, for npm (ci/deps: gitlab-ci-local).
	if [ -d /usr/local/share/ca-certificates ]; then
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp -R /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
	fi
}

# in_root LOG CMD...: CMD in the root, as root, with a plain environment
# (node's extra certificate authorities, Debian's bundle of the root,
# where this machine gives node extra ones),
# the root a mount point of its own (so that unshare -m works inside),
# /proc, /sys, /dev, a private /dev/shm and the shared ccache; output to
# $logs/LOG.  The mounts go with the namespace.  (ccache checks the
# compiler by its content, kbuild_env of ci/lib.sh: the root's gcc,
# installed anew, shares this machine's compiles.)
in_root()
{
	local log=$1
	shift
	unshare --mount --propagation private sh -c '
		r=$1 cache=$2 arch=$3 in_cache=$4
		shift 4
		mount --bind "$r" "$r" &&
		mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount --bind /dev "$r/dev" &&
		mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm" &&
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts" &&
		mount --bind "$cache/ccache" "$r$in_cache/ccache" &&
		mount --bind "$arch" "$r/var/cache/apt/archives" || exit 125
		exec chroot "$r" "$@"' cleanroot "$root" "$RXKIT_CACHE" "$work/archives" "$IN_CACHE" \
		env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root ${LANG:+LANG=$LANG} ${LC_ALL:+LC_ALL=$LC_ALL} \
		${LC_CTYPE:+LC_CTYPE=$LC_CTYPE} ${LC_MESSAGES:+LC_MESSAGES=$LC_MESSAGES} \
		DEBIAN_FRONTEND=noninteractive RXKIT_CACHE="$IN_CACHE" \
		${NODE_EXTRA_CA_CERTS:+NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt} \
		RXKIT_OUT="$IN_KIT/out" RXKIT_TARGET="$target" \
		sh -c 'cd "$0" && exec "$@"' "$IN_KIT" "$@" > "$logs/$log.log" 2>&1
}

# missing_tools LOG: each command the log says was not found, with the
# Debian package that provides it on this machine.
missing_tools()
{
	local t p path
	sed -n -e "s/.*: \([A-Za-z0-9_.+-]*\): \(command \)\{0,1\}not found\$/\1/p" \
		-e "s/.*'\([A-Za-z0-9_.+-]*\)' not found; install .*/\1/p" \
		-e "s/.*make[^:]*: \([A-Za-z0-9_.+-]*\): No such file or directory\$/\1/p" \
		-e "s/^env: '\([A-Za-z0-9_.+-]*\)': No such file or directory\$/\1/p" \
		"$1" | sort -u | while read -r t; do
		p=
		path=$(command -v "$t" 2>/dev/null) || path=
		[ -z "$path" ] || p=$(dpkg -S "$path" 2>/dev/null ||
			dpkg -S "$(twin "$path")" 2>/dev/null) || p=
		p=$(printf '%s\n' "$p" | sed -n '1s/:.*//p')
		echo "# not in the clean root: '$t'; Debian package: ${p:-none on this machine provides it (apt-file search bin/$t)}; ci/deps must install it"
	done
	# dpkg-buildpackage's check of the Build-Depends (and build-essential).
	sed -n 's/.*Unmet build dependencies: //p' "$1" | tr ' ' '\n' |
		sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)\(:[a-z]*\)\{0,1\}$/\1/p' | sort -u |
		while read -r p; do
		echo "# not in the clean root: build dependency '$p'; Debian package: $p; ci/deps must install it"
	done
}

extra_opt()
{
	case "$1" in
	--scan) [ $# = 2 ] || die "--scan needs a log file"; missing_tools "$2"; exit 0 ;;
	esac
	return 0
}
parse_stage_args 'tests' "$@"
: "${target:=$RXKIT_TARGET}"
target_dir "$target" >/dev/null
[ "$(id -u)" = 0 ] || die "a chroot needs root"
need unshare util-linux
need git git
setup_root

# step LOG CMD...: one stage in the root as a test verdict; on failure the
# tail of its log and the tools it missed.
step()
{
	local log=$1 rc=0 t0
	shift
	t0=$(date +%s)
	echo "# in the root: $*"
	in_root "$log" "$@" || rc=$?
	echo "# $log: exit $rc after $(( $(date +%s) - t0 )) s (log: $logs/$log.log)"
	[ "$rc" != 0 ] || return "$KSFT_PASS"
	tail -n 15 "$logs/$log.log" | sed 's/^/#   /'
	missing_tools "$logs/$log.log"
	touch "$logs/failed"
	return "$KSFT_FAIL"
}

# after NAME: SKIP when an earlier test failed.
earlier_failed()
{
	[ -f "$logs/failed" ] || return 1
	SKIP_REASON="an earlier stage failed in the clean root"
}

test_deps()
{
	step deps ci/deps || return $?
	# Idempotent: the second run installs nothing.
	step deps-again ci/deps || return $?
	grep -q 'packages installed$' "$logs/deps-again.log" || {
		echo "# ci/deps installed again on its second run:"
		sed 's/^/#   /' "$logs/deps-again.log"
		return "$KSFT_FAIL"
	}
}

test_fetch_prepare()
{
	earlier_failed && return "$KSFT_SKIP"
	step fetch ci/fetch "$target" || return $?
	step prepare ci/prepare "$target"
}

test_build()
{
	earlier_failed && return "$KSFT_SKIP"
	step build ci/build --tree patched "$target" || return $?
	# The compile was served by the shared ccache, or this is a rebuild.
	grep -o 'build done in [0-9]* s' "$logs/build.log" | sed 's/^/# /'
}

test_boot()
{
	earlier_failed && return "$KSFT_SKIP"
	step boot \
		tests/vsock_loopback.sh --tree patched -t boot_release "$target" || return $?
	grep '^# booted\|^ok \|^not ok ' "$logs/boot.log" | sed 's/^/# /'
	grep -q '^ok 1 boot_release$' "$logs/boot.log" || {
		echo "# the guest boot did not pass in the clean root"
		return "$KSFT_FAIL"
	}
}

test_package()
{
	earlier_failed && return "$KSFT_SKIP"
	local r f
	step package ci/package "$target" || return $?
	# The packages were linted in the root: both reports end in 'exit 0'.
	r="$root$IN_KIT/out/$target/packages"
	for f in "$r"/*.deb "$r"/*.rpm; do
		[ ! -f "$f" ] || echo "# built: ${f##*/}"
	done
	for f in lintian.txt rpmlint.txt; do
		echo "# $f: $(tail -n 1 "$r/$f" 2>/dev/null || echo missing)"
		[ "$(tail -n 1 "$r/$f" 2>/dev/null)" = "exit 0" ] || {
			# What the linter said: the root is gone on the next run.
			grep -E '^([EW]|[^ ]+: [EW]): ' "$r/$f" 2>/dev/null | head -n 20 | sed 's/^/#   /'
			return "$KSFT_FAIL"
		}
	done
}

# ci/repo publishes the root's packages with a key it makes in the root
# (it checks every signature with the exported key before it publishes).
test_repo()
{
	earlier_failed && return "$KSFT_SKIP"
	step repo ci/repo "$target" || return $?
	grep '^repo: \(generated\|published\)' "$logs/repo.log" | sed 's/^/# /'
}

# The DKMS package's suite, of the first target with series/T/debian-headers
# (fetched in the root when it is not TARGET).
test_dkms()
{
	local t u
	earlier_failed && return "$KSFT_SKIP"
	t=$(dkms_targets | sed -n 1p)
	[ -n "$t" ] || { SKIP_REASON="no target pins a Debian kernel ABI (series/*/debian-headers)"; return "$KSFT_SKIP"; }
	# Debian's installer enables the security suite, which a debootstrap
	# root lacks: series/6.1 is pinned there. Its URI is this machine's.
	u=$(mirror_for bookworm-security)
	[ -n "$u" ] || { SKIP_REASON="this machine names no bookworm-security mirror to give the root"; return "$KSFT_SKIP"; }
	grep -rqs 'bookworm-security' "$root/etc/apt/sources.list" "$root/etc/apt/sources.list.d" ||
		echo "deb $u bookworm-security main" > "$root/etc/apt/sources.list.d/debian-security.list"
	[ "$t" = "$target" ] || step dkms-fetch ci/fetch "$t" || return $?
	step dkms tests/dkms_build.sh "$t" || return $?
	grep '^ok\|^not ok' "$logs/dkms.log" | sed 's/^/# /'
}

# shellcheck disable=SC2086
{ rc=0; run_tests $TESTS || rc=$?; echo "$rc" > "$logs/rc"; } | tee "$logs/results.ktap"
rc=$(cat "$logs/rc")
# A passing root is 5 GB of trees nobody needs again; a failing one is
# kept for a look.
[ "$rc" != 0 ] || rm -rf "$root"
exit "$rc"
