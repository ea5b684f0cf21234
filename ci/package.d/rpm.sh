# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/rpm.sh, sourced by ci/package: the RPM packages.  A spec
# (rpm/vsockrx-kernel.spec.in, filled in) with Source0 the pinned tarball,
# Source1 the configuration and Patch1..N the series, which its %prep
# applies with zero fuzz and zero offset; built by rpmbuild -bb.  Then the
# checks of the .rpms.
#
# Reads the run's state (ci/package, config.sh, identity.sh), JOBS
# (build.sh) and deb_sha (deb.sh, when the .debs were built too).  Sets
# spec; check_rpm sets rpmf, drpm (the kernel and -devel packages) and
# rpm_sha, and adds them to pkgs.
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

need_rpm()
{
	need rpmbuild rpm
	need rpm rpm
	need rpm2cpio rpm2cpio
	need cpio cpio
}

# source_rpm: the spec and its sources, in $staging/rpmsrc/.
source_rpm()
{
	local rs plines='' plist='' i=0 p
	log "spec $rpm_name-$rpm_version-$rev (Source0 ${tb##*/}, $npatch patches)"
	rs="$staging/rpmsrc"
	mkdir -p "$rs/SOURCES"
	ln -s "$tb" "$rs/SOURCES/${tb##*/}"
	cp "$staging/kconfig/.config" "$rs/SOURCES/config"
	cp "$staging/config.requested" "$rs/SOURCES/config.requested"
	cp "$RXKIT_TOP/ci/kconfig-check" "$RXKIT_TOP/ci/extmod-tree" "$rs/SOURCES/"
	if [ "$npatch" -gt 0 ]; then
		for p in $(series_patches "$series"); do
			i=$((i + 1))
			cp "$series/$p" "$rs/SOURCES/$p"
			plines="${plines}Patch$i:	$p\\n"
			plist="$plist %{PATCH$i}"
		done
	fi
	spec="$rs/$rpm_name.spec"
	subst < "$RXKIT_TOP/rpm/vsockrx-kernel.spec.in" |
		sed -e "s|^@PATCHES@\$|$plines|" -e "s|@PATCHLIST@|${plist# }|" \
		    -e "s|@DATE@|$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a %b %d %Y')|" > "$spec"
	# BTF needs pahole (Fedora's dwarves too).
	! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$staging/kconfig/.config" ||
		sed -i '/^BuildRequires:/s/$/ dwarves/' "$spec"
}

# build_rpm: the binary packages, in $staging/rpm/RPMS/ (build.sh runs it in
# the background); log $staging/rpm.log, build time in $staging/rpm.seconds.
build_rpm()
{
	local t0 top
	t0=$(date +%s)
	top="$staging/rpm"
	mkdir -p "$top/tmp" "$top/BUILD" "$top/RPMS"
	# --nodeps: the build host's packages are Debian's, rpm's database
	# does not know them (ci/deps installs the BuildRequires' equivalents).
	CCACHE_STATSLOG="$staging/rpm.ccache" rpmbuild -bb --nodeps \
		--define "_topdir $top" \
		--define "_sourcedir $staging/rpmsrc/SOURCES" \
		--define "_tmppath $top/tmp" \
		--define "_buildhost rxkit" \
		--define "_smp_mflags -j$JOBS" \
		--define "use_source_date_epoch_as_buildtime 1" \
		--define "clamp_mtime_to_source_date_epoch 1" \
		"$spec" > "$staging/rpm.log" 2>&1 || return 1
	echo $(( $(date +%s) - t0 )) > "$staging/rpm.seconds"
}

# check_rpm: the kernel and -devel packages exist, the kernel package
# holds the kernel and its modules and provides kernel-REL (and
# kernel-uname-r = REL where REL is an RPM version), and its
# kernel is ci/build's (check_image) and the .deb's.
check_rpm()
{
	local provides
	rpmf="$staging/rpm/RPMS/x86_64/$rpm_name-$rpm_version-$rev.x86_64.rpm"
	drpm="$staging/rpm/RPMS/x86_64/$rpm_name-devel-$rpm_version-$rev.x86_64.rpm"
	[ -f "$rpmf" ] || die "rpmbuild made no ${rpmf##*/}"
	[ -f "$drpm" ] || die "rpmbuild made no ${drpm##*/}"
	pkgs="$pkgs $rpmf $drpm"
	{ rpm -qip "$rpmf"; echo; rpm -qlp "$rpmf"; echo
	  echo 'Requires, then provides:'; rpm -qp --requires --provides "$rpmf"; } > "$rpmf.info.txt" 2>&1 ||
		die "rpm cannot read ${rpmf##*/}"
	rpm -qlp "$rpmf" | grep -qx "/lib/modules/$rel/vmlinuz" || die "${rpmf##*/} has no /lib/modules/$rel/vmlinuz"
	rpm -qlp "$rpmf" | grep -q "^/lib/modules/$rel/kernel/" ||
		die "${rpmf##*/} has no modules in /lib/modules/$rel/kernel/"
	provides=$(rpm -qp --provides "$rpmf") || die "rpm cannot read ${rpmf##*/}"
	printf '%s\n' "$provides" | grep -qx "kernel-$rel" ||
		die "${rpmf##*/} does not provide kernel-$rel"
	[ "$uname_evr" = 0 ] || printf '%s\n' "$provides" | grep -qx "kernel-uname-r = $rel" ||
		die "${rpmf##*/} does not provide kernel-uname-r = $rel"
	# The image is in the modules folder; /boot/vmlinuz-REL is a %ghost
	# copy that %post writes, as upstream's kernel.spec does.
	rpm_sha=$(rpm2cpio "$rpmf" | cpio -i --quiet --to-stdout "./lib/modules/$rel/vmlinuz" | sha256sum | cut -d' ' -f1)
	check_image "$rpmf" "$rpm_sha"
	# Signed modules: each build generated its own key, whose certificate
	# is in its image (and in its package, signing_key.x509).
	if [ "$signed" = 1 ]; then
		rpm -qlp "$rpmf" | grep -qx "/lib/modules/$rel/signing_key.x509" ||
			die "${rpmf##*/} has no /lib/modules/$rel/signing_key.x509"
		log "the .deb and the .rpm images differ by their builds' module signing keys"
	else
		[ -z "$dsc" ] || [ "$rpm_sha" = "$deb_sha" ] ||
			die "the .deb and the .rpm hold different kernel images (same sources and configuration)"
	fi
	no_private_key "$rpmf" "$rpmf.info.txt"
}

# no_private_key PACKAGE LISTING: PACKAGE ships no module signing key
# (its certificate only).
no_private_key()
{
	! grep -q 'signing_key\.pem\|signing_key\.priv' "$2" ||
		die "${1##*/} ships a private module signing key: $(grep -o '[^ ]*signing_key\.p[a-z]*' "$2" | head -n 1)"
}

# list_rpm: the listing (.info.txt) of the -devel package, which must
# hold Module.symvers.
list_rpm()
{
	{ rpm -qip "$drpm"; echo; rpm -qlp "$drpm"; } > "$drpm.info.txt" 2>&1
	grep -q "linux-headers-$rel/Module.symvers\|kernels/$rel/Module.symvers" "$drpm.info.txt" ||
		die "${drpm##*/} has no Module.symvers"
	no_private_key "$drpm" "$drpm.info.txt"
}
