# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/config.sh, sourced by ci/package: the kernel configuration
# the packages ship, ci/build's for the flavour (tinyconfig, or --config
# FILE, + the flavour's fragments), resolved by kconfig's olddefconfig and
# every requested value checked (kconfig_make of ci/lib.sh).
#
# Reads src, staging, target, tree, flavour, flist (the flavour's fragment
# list), base_config.  Writes $staging/kconfig/.config and
# $staging/config.requested (the fragments' lines, which the package builds
# check their configuration against).  Sets dbg (1: debug info, a -dbg
# package), signed (1: modules signed, the @SIGNED@ lines of the
# templates), modzip (1: modules compressed, the @KOZ@ lines of the
# templates; 0: the @KO@ lines), config_base (the base configuration, in words; the
# @CONFIG_BASE@ of the templates), config_text (the configuration, in
# words: the base and the fragments) and guest (1: the
# guest flavour on tinyconfig, the @GUEST@ lines of the templates).
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

pkg_config()
{
	local frags
	frags=$(flavour_fragments "$flist")
	# A missing fragment fails before the first line of the run.
	log "staging folder $staging"
	# shellcheck disable=SC2086
	log "$target/$tree: configuration ${base_config:-tinyconfig} + $(echo $frags | wc -w) fragments of $flist"
	# shellcheck disable=SC2086
	kconfig_make "$src" "$staging/kconfig" "$base_config" $frags
	# shellcheck disable=SC2086
	cat $frags > "$staging/config.requested"
	dbg=0
	if config_has 'CONFIG_DEBUG_INFO=y'; then dbg=1; fi
	signed=0
	if config_has 'CONFIG_MODULE_SIG_ALL=y'; then signed=1; fi
	modzip=0
	if config_has 'CONFIG_MODULE_COMPRESS=y'; then modzip=1; fi
	if [ "$(flavour_key "$flist" base)" = debian-cloud ]; then
		config_base="Debian's config.amd64_none_cloud-amd64 ($(sed -n 's/^package=//p' "$RXKIT_TOP/series/$target/cloud") $(sed -n 's/^package_version=//p' "$RXKIT_TOP/series/$target/cloud"))"
	elif [ -n "$base_config" ]; then
		config_base=${base_config##*/}
	else
		config_base=tinyconfig
	fi
	config_text="$config_base with the fragments of kconfig/flavours/$flavour"
	guest=0
	[ -n "$base_config" ] || [ "$flavour" != guest ] || guest=1
}

# config_has LINE: the resolved configuration holds LINE (a whole line).
config_has()
{
	grep -qx "$1" "$staging/kconfig/.config"
}
