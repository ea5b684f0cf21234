# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/publish.sh, sourced by ci/package: the results, from the
# staging folder to $RXKIT_OUT/TARGET/source (the source packages) and
# $RXKIT_OUT/TARGET/packages (the packages, their listings, the lint
# reports, ccache.txt).  Each file lands under its final name in one
# rename.
#
# Reads staging, srcout, outdir, tb, rel, lv, deb_version, dsc, spec,
# rpm_name, rpm_version, pkgs, reports, ctext.
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

# publish_sources: the source packages, kept whatever the binary builds do.
publish_sources()
{
	local f o
	mkdir -p "$srcout"
	if [ -n "$dsc" ]; then
		for f in "$staging"/dsrc/linux-rxkit_"$deb_version".* "$staging/source.log"; do
			cp "$f" "$srcout/.${f##*/}.tmp" && mv "$srcout/.${f##*/}.tmp" "$srcout/${f##*/}"
		done
		o="$srcout/linux-rxkit_$rel.orig.tar.xz"
		[ -f "$o" ] && cmp -s "$o" "$tb" ||
			{ ln -f "$tb" "$o.tmp" 2>/dev/null || cp "$tb" "$o.tmp"; mv "$o.tmp" "$o"; }
	fi
	if [ -n "$spec" ]; then
		rm -rf "$srcout/rpm.tmp"
		cp -R "$staging/rpmsrc" "$srcout/rpm.tmp"
		rm "$srcout/rpm.tmp/SOURCES/${tb##*/}"
		ln -f "$tb" "$srcout/rpm.tmp/SOURCES/${tb##*/}" 2>/dev/null ||
			cp "$tb" "$srcout/rpm.tmp/SOURCES/${tb##*/}"
		rm -rf "$srcout/rpm"
		mv "$srcout/rpm.tmp" "$srcout/rpm"
	fi
}

# publish_results: the source packages, the reports and ccache.txt, then
# the packages, each after its listing.
publish_results()
{
	local f g mark
	publish_sources
	printf '%s' "$ctext" > "$staging/ccache.txt"
	for f in $reports ccache.txt; do
		cp "$staging/$f" "$outdir/.$f.tmp"
		mv "$outdir/.$f.tmp" "$outdir/$f"
	done
	# The folder holds this tree's last build: its packages of an earlier
	# release (another posting or kernel version) or revision go, in the
	# formats built now.
	mark=$(printf '%s\n' "$lv" | sed 's/[0-9]*$//')
	for f in "$outdir"/linux-image-*"$mark"*_*.deb "$outdir"/linux-headers-*"$mark"*_*.deb \
		 "$outdir/$rpm_name"-[0-9]*.rpm "$outdir/$rpm_name"-devel-*.rpm; do
		[ -f "$f" ] || continue
		case "$f" in
		*.deb) [ -n "$dsc" ] || continue ;;
		*.rpm) [ -n "$spec" ] || continue ;;
		esac
		rm -f "$f" "$f.info.txt"
	done
	for f in $pkgs; do
		for g in "$f.info.txt" "$f"; do
			cp "$g" "$outdir/.${g##*/}.tmp"
			mv "$outdir/.${g##*/}.tmp" "$outdir/${g##*/}"
		done
		log "wrote $outdir/${f##*/} ($(( $(wc -c < "$f") / 1024 )) KiB)"
	done
	[ -z "$dsc" ] || log "source: $srcout/${dsc##*/}"
	[ -z "$spec" ] || log "source: $srcout/rpm/${spec##*/}"
}

# publish_summary: the last lines, the kernel package of each format.
publish_summary()
{
	local f
	for f in $pkgs; do
		case "$f" in
		*/linux-image-"$rel"_*.deb) printf '%s: deb %s\n' "$PROG" "$outdir/${f##*/}" ;;
		*/"$rpm_name-$rpm_version"-*.rpm) printf '%s: rpm %s\n' "$PROG" "$outdir/${f##*/}" ;;
		esac
	done
}
