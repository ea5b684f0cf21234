# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/build.sh, sourced by ci/package: the binary builds.  Their
# environment (ci/build's build identity and ccache, reproducible time
# stamps, the caller's locale), the builds of the formats side by side
# (build_deb of deb.sh, build_rpm of rpm.sh), their ccache counts, and the
# comparison of the packaged kernel with ci/build's.
#
# Reads src, staging, outdir, formats, flavour, base_config, rel.  Sets JOBS
# (build_env), image_ref and o_ref (ci/build's image, when it is the same
# configuration) and ctext (the ccache counts, for ccache.txt).
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

# build_env: ci/build's build identity and ccache (kbuild_env of
# ci/lib.sh), SOURCE_DATE_EPOCH, TZ, RXKIT_LANG and JOBS.
build_env()
{
	kbuild_env
	# Reproducible packages: every time stamp is the kernel's build time.
	SOURCE_DATE_EPOCH=$(date -u -d "$KBUILD_BUILD_TIMESTAMP" +%s) ||
		die "cannot parse KBUILD_BUILD_TIMESTAMP '$KBUILD_BUILD_TIMESTAMP'"
	export SOURCE_DATE_EPOCH TZ=UTC
	# ccache hashes the locale: the package builds keep the caller's, as
	# ci/build does (no LC_ALL here; the spec undoes rpmbuild's LANG=C).
	if [ -n "${LANG+set}" ]; then RXKIT_LANG="set:$LANG"; else RXKIT_LANG='unset'; fi
	export RXKIT_LANG
	JOBS=${RXKIT_JOBS:-$(nproc)}
}

# ccache_stats LOG: "HITS MISSES OTHER" of one build's ccache stats log
# (CCACHE_STATSLOG: per call, so other builds beside it do not count).
# OTHER: calls ccache never caches (compiler probes, links, .incbin).
ccache_stats()
{
	awk -v missed="$1.missed" '
		/^# / { n++; f = $2; next }
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h++ }
		$1 == "cache_miss" { m++; print f > missed }
		END { printf "%d %d %d\n", h, m, n - h - m }' "$1" 2>/dev/null || echo "0 0 0"
}

# build_binaries: build_FORMAT of every format, side by side; their logs
# to $outdir/FORMAT.log, a failed build's end on stderr (failed), and the
# ccache counts logged and kept in ctext.
build_binaries()
{
	local f p pids='' bad='' line
	image_ref=
	o_ref="$src/o-$flavour"
	if [ -z "$base_config" ] && [ -f "$o_ref/arch/x86/boot/bzImage" ] && cmp -s "$o_ref/.config" "$staging/kconfig/.config"; then
		image_ref=$(sha256_of "$o_ref/arch/x86/boot/bzImage")
	fi
	for f in $formats; do
		log "building the $f packages from source (log: $outdir/$f.log)"
		"build_$f" &
		pids="$pids $f:$!"
	done
	for p in $pids; do
		wait "${p#*:}" || bad="$bad ${p%%:*}"
	done
	mkdir -p "$outdir"
	for f in $formats; do
		cp "$staging/$f.log" "$outdir/.$f.log.tmp" && mv "$outdir/.$f.log.tmp" "$outdir/$f.log"
	done
	for f in $bad; do
		case "$f" in
		deb) failed dpkg-buildpackage "$staging/deb.log" ;;
		rpm) failed rpmbuild "$staging/rpm.log" ;;
		esac
	done
	ctext=
	for f in $formats; do
		# shellcheck disable=SC2046
		set -- $(ccache_stats "$staging/$f.ccache")
		line="ccache: $1 hits, $2 misses ($(( $1 * 100 / ($1 + $2 + ($1 + $2 == 0)) ))% of cacheable compiles), $3 calls ccache never caches (compiler probes, links, .incbin); $f build $(cat "$staging/$f.seconds") s"
		log "$line"
		ctext="$ctext$line
"
		[ ! -s "$staging/$f.ccache.missed" ] ||
			ctext="$ctext  missed: $(sed "s|^$staging/[^ ]*/linux-[^/]*/||" "$staging/$f.ccache.missed" | sort | tr '\n' ' ')
"
	done
}

# check_image PACKAGE SHA: the packaged vmlinuz is the built one, and (the
# default configuration) ci/build's image byte for byte.
check_image()
{
	[ -z "$image_ref" ] || [ "$2" = "$image_ref" ] ||
		die "${1##*/}: /boot/vmlinuz-$rel differs from ci/build's $o_ref/arch/x86/boot/bzImage (same sources and configuration)"
}
