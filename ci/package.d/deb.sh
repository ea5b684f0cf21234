# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/deb.sh, sourced by ci/package: the Debian packages.  A 3.0
# (quilt) source package (the pinned tarball is the .orig.tar.xz,
# debian/patches the series, debian/ the kit's, filled in) made by
# dpkg-source -b, unpacked by dpkg-source -x and built by
# dpkg-buildpackage -b; both dpkg-source runs apply the series with the
# strict patch program (ci/package.d/patch).  Then the checks of the .debs.
#
# Reads the run's state (ci/package, config.sh, identity.sh) and JOBS
# (build.sh).  Sets dsc (the .dsc), sd (the source folder, for lint.sh);
# check_deb sets deb, hdeb, gdeb (the image, headers and -dbg packages;
# the two metapackages are in pkgs alone),
# deb_sha (the packaged image's SHA-256) and adds them to pkgs.
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

need_deb()
{
	need dpkg-source dpkg-dev
	need dpkg-buildpackage dpkg-dev
	need dh debhelper
}

# strict_patch COMMAND...: COMMAND with ci/package.d/patch as its patch:
# dpkg-source passes -F 0 (no fuzz) but takes offsets silently.
strict_patch()
{
	local real
	real=$(command -v patch)
	PATH="$staging/bin:$PATH" RXKIT_PATCH="$real" "$@"
}

# deb_extra_build_depends: the Build-Depends beyond the guest's that the
# configuration needs (", NAME" each).
deb_extra_build_depends()
{
	local bd=''
	! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$staging/kconfig/.config" || bd="$bd, dwarves"
	! grep -q '^CONFIG_\(KERNEL\|MODULE_COMPRESS\)_ZSTD=y' "$staging/kconfig/.config" || bd="$bd, zstd"
	! grep -q '^CONFIG_KERNEL_LZ4=y' "$staging/kconfig/.config" || bd="$bd, lz4"
	! grep -q '^CONFIG_KERNEL_LZO=y' "$staging/kconfig/.config" || bd="$bd, lzop"
	printf '%s\n' "$bd"
}

# long_name_lines NAME < TEXT: the @LONGNAME@ lines of a lintian-overrides
# template kept when lintian finds the file name of NAME's package too
# long (package-has-long-file-name: over 80 characters with the
# architecture counted as kfreebsd-amd64's 14), dropped otherwise (an
# unused override is lintian's complaint too).
long_name_lines()
{
	local p n
	p=${1##*/}
	p=${p%.lintian-overrides}
	n=${p}_${deb_version}_amd64.deb
	if [ $(( ${#n} - 5 + 14 )) -gt 80 ]; then
		sed 's|^@LONGNAME@||'
	else
		sed '/^@LONGNAME@/d'
	fi
}

# deb_changelog: debian/changelog, one UNRELEASED entry.
deb_changelog()
{
	local e
	printf 'linux-rxkit (%s) UNRELEASED; urgency=medium\n\n' "$deb_version"
	for e in "$series_text." "Tree $tree, configuration: $config_text; source package by ci/package of vsock-rxkit $kit."; do
		printf '%s\n' "$e" | fold -s -w 72 | sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
	done
	printf '\n -- %s  %s\n' "$maint" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
}

# source_deb: the source package, $staging/dsrc/linux-rxkit_DEB_VERSION.dsc.
source_deb()
{
	local t f p
	mkdir "$staging/bin"
	cp "$PKG_LIB/patch" "$staging/bin/patch"
	chmod +x "$staging/bin/patch"
	log "source package linux-rxkit $deb_version (dpkg-source, 3.0 (quilt))"
	sd="$staging/dsrc/linux-rxkit-$rel"
	mkdir -p "$sd"
	cp -R "$RXKIT_TOP/debian" "$sd/debian"
	for t in "$sd"/debian/*.in; do
		f=${t%.in}
		case "${f##*/}" in
		linux-image-meta.*|linux-headers-meta.*)
			p=${f##*/}
			f="$sd/debian/${p%%-meta.*}$meta.${p#*.}" ;;
		linux-image-dbg.control) rm -f "$t"; continue ;;
		linux-image-dbg.*)
			[ "$dbg" = 1 ] || { rm -f "$t"; continue; }
			p=${f##*/}
			f="$sd/debian/linux-image-$rel-dbg.${p#*.}" ;;
		linux-image.*|linux-headers.*)
			p=${f##*/}
			f="$sd/debian/${p%%.*}-$rel.${p#*.}" ;;
		esac
		subst < "$t" | long_name_lines "${f##*/}" > "$f"
		rm -f "$t"
	done
	sed -i "s|@EXTRA_BUILD_DEPENDS@|$(deb_extra_build_depends)|" "$sd/debian/control"
	[ "$dbg" = 0 ] || subst < "$RXKIT_TOP/debian/linux-image-dbg.control.in" >> "$sd/debian/control"
	deb_changelog > "$sd/debian/changelog"
	cat > "$sd/debian/rxkit.mk" <<MK
# Written by ci/package.
RXKIT_RELEASE := $rel
RXKIT_LOCALVERSION := $lv
RXKIT_FLAVOUR := $flavour
RXKIT_META := $meta
MK
	# Not debian/config: debhelper takes that for a debconf script.
	cp "$staging/kconfig/.config" "$sd/debian/kernel.config"
	cp "$staging/config.requested" "$sd/debian/kernel.config.requested"
	mkdir "$sd/debian/rxkit"
	cp "$RXKIT_TOP/ci/kconfig-check" "$RXKIT_TOP/ci/extmod-tree" "$sd/debian/rxkit/"
	# The skips of the DEP-8 test (debian/tests/install-reboot): the kit's
	# skip lists of this target and flavour (tests/guest/skip/), reasons kept.
	for j in vsock_test_loopback vsock_diag_test_loopback; do
		{ echo "# $j cases debian/tests/install-reboot skips on $target ($flavour): tests/guest/skip/$j*"
		  skip_list "$j" "$target" "$flavour"; } > "$sd/debian/tests/skip-$j"
	done
	if [ "$npatch" -gt 0 ]; then
		mkdir "$staging/q"
		quilt_patches "$series" "$staging/q"
		mv "$staging/q/patches" "$sd/debian/patches"
	fi
	ln -s "$tb" "$staging/dsrc/linux-rxkit_$rel.orig.tar.xz"
	# The folder holds debian/ only: the upstream files are the
	# tarball's, and dpkg-source compares nothing else (it still unpacks
	# the tarball and applies the series to it, with the strict patch).
	(cd "$staging/dsrc" && strict_patch dpkg-source \
		--extend-diff-ignore='^(?!debian(/|$))' -b "linux-rxkit-$rel") \
		> "$staging/source.log" 2>&1 || failed "dpkg-source -b" "$staging/source.log"
	dsc="$staging/dsrc/linux-rxkit_$deb_version.dsc"
	[ -f "$dsc" ] || die "dpkg-source made no ${dsc##*/}"
}

# build_deb: the binary packages, in $staging/deb/ (build.sh runs it in the
# background); log $staging/deb.log, build time in $staging/deb.seconds.
build_deb()
{
	local t0
	t0=$(date +%s)
	mkdir "$staging/deb"
	strict_patch dpkg-source -x "$dsc" "$staging/deb/linux-rxkit-$rel" \
		> "$staging/deb.log" 2>&1 || { echo "dpkg-source -x failed" >> "$staging/deb.log"; return 1; }
	(cd "$staging/deb/linux-rxkit-$rel" && CCACHE_STATSLOG="$staging/deb.ccache" \
		DEB_BUILD_OPTIONS="parallel=$JOBS" dpkg-buildpackage -b -us -uc) >> "$staging/deb.log" 2>&1 ||
		return 1
	# The unpacked tree goes now, while the other build may still run.
	rm -rf "$staging/deb/linux-rxkit-$rel"
	echo $(( $(date +%s) - t0 )) > "$staging/deb.seconds"
}

# check_deb: the image and headers packages (and -dbg with debug info)
# exist, the image package holds the kernel and its modules, and its
# kernel is ci/build's (check_image).
check_deb()
{
	local f
	deb="$staging/deb/linux-image-${rel}_${deb_version}_amd64.deb"
	hdeb="$staging/deb/linux-headers-${rel}_${deb_version}_amd64.deb"
	[ -f "$deb" ] || die "dpkg-buildpackage made no ${deb##*/}"
	[ -f "$hdeb" ] || die "dpkg-buildpackage made no ${hdeb##*/}"
	pkgs="$deb $hdeb"
	for f in image headers; do
		f="$staging/deb/linux-$f${meta}_${deb_version}_amd64.deb"
		[ -f "$f" ] || die "dpkg-buildpackage made no ${f##*/}"
		pkgs="$pkgs $f"
	done
	if [ "$dbg" = 1 ]; then
		gdeb="$staging/deb/linux-image-$rel-dbg_${deb_version}_amd64.deb"
		[ -f "$gdeb" ] || die "dpkg-buildpackage made no ${gdeb##*/}"
		pkgs="$pkgs $gdeb"
	fi
	{ dpkg-deb -I "$deb"; echo; dpkg-deb -c "$deb"; } > "$deb.info.txt"
	grep -q " \./boot/vmlinuz-$rel\$" "$deb.info.txt" || die "${deb##*/} has no ./boot/vmlinuz-$rel"
	grep -q " \./lib/modules/$rel/kernel/" "$deb.info.txt" ||
		die "${deb##*/} has no modules in ./lib/modules/$rel/kernel/"
	[ "$signed" = 0 ] || grep -q " \./lib/modules/$rel/signing_key\.x509\$" "$deb.info.txt" ||
		die "${deb##*/} has no ./lib/modules/$rel/signing_key.x509 (its modules are signed)"
	no_private_key "$deb" "$deb.info.txt"
	deb_sha=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./boot/vmlinuz-$rel" | sha256sum | cut -d' ' -f1)
	check_image "$deb" "$deb_sha"
}

# list_deb: the listings (.info.txt) of the metapackages, which must
# depend on this release's package of this version, and of the headers
# and -dbg packages, which must hold Module.symvers and vmlinux.
list_deb()
{
	local f
	for f in $pkgs; do
		case "$f" in
		*-dbg_*) dpkg-deb -c "$f" > "$f.info.txt"
			grep -q " \./usr/lib/debug/boot/vmlinux-$rel\$" "$f.info.txt" || die "${f##*/} has no vmlinux" ;;
		*/linux-*"$meta"_*.deb) { dpkg-deb -I "$f"; echo; dpkg-deb -c "$f"; } > "$f.info.txt"
			# A metapackage: the package of this release, this version.
			dpkg-deb -f "$f" Depends | grep -q "^linux-[a-z]*-$rel (= $deb_version)" ||
				die "${f##*/} does not depend on this release's package, version $deb_version"
			case "${f##*/}" in
			linux-image*) grep -q " \./usr/share/linux-image$meta/grub\.cfg\$" "$f.info.txt" ||
				die "${f##*/} has no ./usr/share/linux-image$meta/grub.cfg (GRUB's default)" ;;
			esac ;;
		*headers*.deb) { dpkg-deb -I "$f"; echo; dpkg-deb -c "$f"; } > "$f.info.txt"
			grep -q "linux-headers-$rel/Module.symvers\|kernels/$rel/Module.symvers" "$f.info.txt" ||
				die "${f##*/} has no Module.symvers" ;;
		*) continue ;;
		esac
		no_private_key "$f" "$f.info.txt"
	done
}
