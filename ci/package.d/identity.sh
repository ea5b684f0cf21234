# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/identity.sh, sourced by ci/package: what the packages are
# called and say about themselves, the same in both formats: the kernel
# release, the package names and versions, the texts of the changelogs and
# descriptions, and subst, which fills them into the templates of debian/
# and rpm/.
#
# Reads src, staging, target, tree, series, rev, flavour, flist, tb, topdir,
# guest, signed, modzip, config_base, config_text.  Sets kver (the kernel version), lv (the release mark),
# rel (uname -r), npatch, series_text, maint, deb_version, rpm_name, meta
# (the metapackages' name after linux-image),
# rpm_version, uname_evr (1: the release is an RPM version), kit (the
# kit's version).
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

pkg_identity()
{
	kver=$(make -s -C "$src" O="$staging/kconfig" kernelversion) || die "make kernelversion failed"
	lv=$(release_mark "$tree")$(flavour_key "$flist" release)
	rel=$kver$lv
	case "$rel" in
	[0-9]*[0-9a-z]) ;;
	*) die "kernel release '$rel' is no valid package version" ;;
	esac
	case "$rel" in
	*[!a-z0-9.+-]*) die "kernel release '$rel' is no valid Debian package name part" ;;
	esac
	if [ "$tree" = patched ]; then
		npatch=$(series_patches "$series" | wc -l)
		series_text="Linux $kver with the $npatch patches of the kit's series/$target"
		[ "$series" = "$RXKIT_TOP/series/$target" ] || series_text="Linux $kver with the $npatch patches of ${series##*/}/"
	else
		npatch=0
		series_text="Linux $kver without the kit's series (A/B baseline)"
	fi
	if [ -n "${RXKIT_MAINTAINER:-}" ]; then
		maint=$RXKIT_MAINTAINER
	elif [ -n "${DEBEMAIL:-}" ]; then
		maint="${DEBFULLNAME:-vsock-rxkit} <$DEBEMAIL>"
	else
		maint='vsock-rxkit maintainers <maintainers@vsock-rxkit.invalid>'
	fi
	case "$maint$series_text$config_text" in
	*'|'*|*'&'*|*\\*) die "RXKIT_MAINTAINER and file names may not contain '|', '&' or '\\'" ;;
	esac
	deb_version=$rel-$rev
	# The package name stays across series versions: kernel-vsockrx (and
	# the flavour's rpm suffix: kernel-vsockrx-cloud).
	rpm_name=kernel$(release_mark "$tree" | sed 's/[0-9]*$//')$(flavour_key "$flist" rpm)
	# So do the Debian metapackages' (linux-image-vsockrx-cloud-amd64, as
	# Debian's linux-image-cloud-amd64): they follow the newest release.
	meta=$(release_mark "$tree" | sed 's/[0-9]*$//')$(flavour_key "$flist" release)
	kit=$(kit_version)
	rpm_version=$(printf '%s\n' "$kver" | tr - '~')
	# The release as an RPM version (kernel-uname-r = REL): one '-' only.
	case "$rel" in
	*-*-*) uname_evr=0 ;;
	*) uname_evr=1 ;;
	esac
}

# subst < TEMPLATE: fill in the @KEY@ fields; @GUEST@ lines only for the
# guest flavour on tinyconfig, @SIGNED@ lines only when the build signs
# its modules, @UNAMER@ lines only when the release is an RPM version,
# @KO@ lines only for plain modules and @KOZ@ lines only for compressed.
subst()
{
	local guest_lines signed_lines unamer_lines ko_lines
	if [ "$guest" = 1 ]; then guest_lines='s|^@GUEST@||'; else guest_lines='/^@GUEST@/d'; fi
	if [ "$signed" = 1 ]; then signed_lines='s|^@SIGNED@||'; else signed_lines='/^@SIGNED@/d'; fi
	if [ "$uname_evr" = 1 ]; then unamer_lines='s|^@UNAMER@||'; else unamer_lines='/^@UNAMER@/d'; fi
	if [ "$modzip" = 1 ]; then ko_lines='/^@KO@/d;s|^@KOZ@||'; else ko_lines='/^@KOZ@/d;s|^@KO@||'; fi
	sed -e "$guest_lines" -e "$signed_lines" -e "$unamer_lines" -e "$ko_lines" -e "s|@RELEASE@|$rel|g" -e "s|@KVERSION@|$kver|g" \
		-e "s|@IMAGE@|/boot/vmlinuz-$rel|g" -e "s|@FLAVOUR@|$flavour|g" \
		-e "s|@TREE@|$tree|g" -e "s|@CONFIG@|$config_text|g" \
		-e "s|@CONFIG_BASE@|$config_base|g" \
		-e "s|@SERIES@|$series_text|g" -e "s|@MAINTAINER@|$maint|g" \
		-e "s|@LOCALVERSION@|$lv|g" -e "s|@NAME@|$rpm_name|g" -e "s|@META@|$meta|g" \
		-e "s|@VERSION@|$rpm_version|g" -e "s|@PKGREL@|$rev|g" \
		-e "s|@SRCDIR@|$topdir|g" -e "s|@TARBALL@|${tb##*/}|g" \
		-e "s|@KITVERSION@|$kit|g"
}
