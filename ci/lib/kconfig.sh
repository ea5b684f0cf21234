# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The kconfig helpers of ci/lib.sh (which sources this file): kconfig
# flavours, --config files and the merged .config of a build folder.

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

# flavour_key FLIST KEY: the value of a KEY=VALUE line of a flavour file
# (empty without one).  The keys: base (debian-cloud: the configuration
# series/TARGET/cloud pins, not tinyconfig), release (a suffix of the
# kernel release after the tree's mark), rpm (a suffix of the RPM package
# name), ccache (a ccache folder of its own under the cache, and its size:
# NAME:SIZE), pkgtmp (disk: the package builds stage on disk, not in
# /dev/shm).
flavour_key()
{
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# flavour_fragments FLIST: the fragment paths a flavour file names,
# relative to its own folder or to kconfig/ (KEY=VALUE lines are
# flavour_key's).
flavour_fragments()
{
	local f=
	grep -v '^[[:space:]]*\(#\|$\)' "$1" | grep -v '^[a-z_]*=' | while read -r f; do
		if [ -f "${1%/*}/$f" ]; then
			printf '%s\n' "${1%/*}/$f"
		elif [ -f "$RXKIT_TOP/kconfig/$f" ]; then
			printf '%s\n' "$RXKIT_TOP/kconfig/$f"
		else
			die "$1 names missing fragment $f"
		fi
	done
}

# flavour_base FLIST TARGET: the base configuration file of a flavour
# (empty: tinyconfig); debian-cloud: Debian's cloud configuration of
# TARGET, fetched and verified by ci/cloud-config (its lines on stderr).
flavour_base()
{
	local b=
	b=$(flavour_key "$1" base)
	case "$b" in
	'') ;;
	debian-cloud) "$RXKIT_TOP/ci/cloud-config" "$2" >&2 || exit 1
		cloud_file "$2" ;;
	*) die "$1: unknown base '$b' (debian-cloud, or none: tinyconfig)" ;;
	esac
}

# cloud_file TARGET: where ci/cloud-config keeps Debian's cloud
# configuration of TARGET, unpacked and verified.
cloud_file()
{
	printf '%s/cloud/%s/config.amd64_none_cloud-amd64\n' "$RXKIT_CACHE" "$1"
}

# flavour_ccache FLIST: a flavour's own ccache (flavour_key ccache,
# NAME:SIZE) in CCACHE_DIR and CCACHE_MAXSIZE, before kbuild_env; a
# CCACHE_DIR of the caller's stays.
flavour_ccache()
{
	local c=
	c=$(flavour_key "$1" ccache)
	[ -n "$c" ] && [ -z "${CCACHE_DIR:-}" ] || return 0
	export CCACHE_DIR="$RXKIT_CACHE/${c%%:*}" CCACHE_MAXSIZE="${c#*:}"
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
	local src="$1" o="$2" base="$3"
	shift 3
	mkdir -p "$o"
	if [ -n "$base" ]; then
		cp "$base" "$o/.config"
		# A distribution's configuration names its own keys and release.
		sed -i -e '/^CONFIG_SYSTEM_TRUSTED_KEYS=/s/=.*/=""/' \
			-e '/^CONFIG_SYSTEM_REVOCATION_KEYS=/s/=.*/=""/' \
			-e '/^CONFIG_MODULE_SIG_KEY=/s/=.*/="certs\/signing_key.pem"/' \
			-e '/^CONFIG_LOCALVERSION=/s/=.*/=""/' "$o/.config"
		make -s -C "$src" O="$o" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig \
			>"$o/config.log" 2>&1
	else
		make -s -C "$src" O="$o" CC="ccache gcc" HOSTCC="ccache gcc" tinyconfig \
			>"$o/config.log" 2>&1
	fi || { cat "$o/config.log" >&2; die "the base configuration failed"; }
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$o" "$o/.config" "$@") \
		>>"$o/config.log" 2>&1 ||
		{ cat "$o/config.log" >&2; die "merge_config.sh failed"; }
	make -s -C "$src" O="$o" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig \
		>>"$o/config.log" 2>&1 ||
		{ cat "$o/config.log" >&2; die "make olddefconfig failed"; }
	cat "$@" | "$RXKIT_TOP/ci/kconfig-check" "$o/.config" ||
		die "requested kconfig symbols did not stick (missing dependency?)"
}

# cloud_check SRC O REF TARGET FLAVOUR NAME: O/.config of a flavour on
# Debian's cloud configuration against that file: REF (a folder) gets
# Debian's file resolved alone by olddefconfig, then ci/cloud-diff writes
# the diffs and the report to $RXKIT_OUT/TARGET/FLAVOUR/NAME.* and refuses
# a change outside kconfig/cloud-allowed.
cloud_check()
{
	local src="$1" o="$2" ref="$3" deb=
	deb=$(cloud_file "$4")
	mkdir -p "$ref"
	cp "$deb" "$ref/.config"
	make -s -C "$src" O="$ref" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig \
		>"$ref/config.log" 2>&1 ||
		{ cat "$ref/config.log" >&2; die "olddefconfig of Debian's cloud configuration failed"; }
	"$RXKIT_TOP/ci/cloud-diff" --src "$src" --debian "$deb" --ref "$ref/.config" \
		--config "$o/.config" --out "$RXKIT_OUT/$4/$5" --name "$6"
}
