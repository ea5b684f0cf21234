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

# flavour_fragments FLIST: the fragment paths a flavour file names,
# relative to its own folder or to kconfig/.
flavour_fragments()
{
	local f=
	grep -v '^[[:space:]]*\(#\|$\)' "$1" | while read -r f; do
		if [ -f "${1%/*}/$f" ]; then
			printf '%s\n' "${1%/*}/$f"
		elif [ -f "$RXKIT_TOP/kconfig/$f" ]; then
			printf '%s\n' "$RXKIT_TOP/kconfig/$f"
		else
			die "$1 names missing fragment $f"
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
