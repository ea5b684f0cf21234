# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# ci/package.d/lint.sh, sourced by ci/package: the lint reports, next to
# the packages; their verdict is a test (tests/packages_deb.sh, packages_rpm.sh).  Each ends in
# 'exit N', the linter's exit status.  lintian.txt: lintian --pedantic of
# the .debs and of the source package; rpmlint.txt: rpmlint of the spec
# and the .rpms, with the filters of rpm/vsockrx-kernel.rpmlintrc (its
# fields and line marks filled in by subst).
#
# Reads staging, outdir, target, lint (0: --no-lint), pkgs, dsc, sd, topdir,
# rel, deb_version, spec, rpmf, drpm.  Writes $staging/lintian.txt and
# $staging/rpmlint.txt; adds their names to reports.
# The run's state is shared with ci/package and its other parts:
# shellcheck disable=SC2034,SC2154

# run_linter REPORT COMMAND...: $staging/REPORT, COMMAND's output without
# lintian's root warning, and 'exit N'.
run_linter()
{
	local report="$1" rc=0
	shift
	"$@" > "$staging/$report" 2>&1 || rc=$?
	grep -v '^running with root privileges' "$staging/$report" > "$staging/$report.tmp" || :
	echo "exit $rc" >> "$staging/$report.tmp"
	mv "$staging/$report.tmp" "$staging/$report"
	log "$(echo "$*" | sed "s|$staging/[^ ]*/||g") : exit $rc (report $outdir/$report)"
}

# lint_standin: the stand-in source package lintian checks by default,
# $staging/lintsrc/linux-rxkit_DEB_VERSION.dsc.  Lintian of the real .dsc
# unpacks and reads the 90,000 files of the kernel tarball, minutes of
# both cores (RXKIT_LINT_SOURCE=full does it); the stand-in has the
# same debian/ and an orig tarball of the files the series patches, and
# all of lintian's checks run on it.
lint_standin()
{
	local l="$staging/lintsrc"
	mkdir -p "$l/$topdir"
	{ echo Makefile; echo COPYING
	  [ ! -d "$sd/debian/patches" ] || sed -n 's|^+++ b/||p' "$sd"/debian/patches/*.patch; } |
		sort -u | (cd "$(src_root "$target")/pristine" && xargs cp --parents -t "$l/$topdir") ||
		die "cannot make the stand-in tree for lintian"
	tar -C "$l" -cJf "$l/linux-rxkit_$rel.orig.tar.xz" "$topdir"
	rm -rf "${l:?}/${topdir:?}"
	mkdir "$l/linux-rxkit-$rel"
	(cd "$l" && tar -xJf "linux-rxkit_$rel.orig.tar.xz" --strip-components=1 -C "linux-rxkit-$rel")
	cp -R "$sd/debian" "$l/linux-rxkit-$rel/debian"
	(cd "$l" && strict_patch dpkg-source -b "linux-rxkit-$rel") > "$l/source.log" 2>&1 ||
		failed "dpkg-source -b of the stand-in source" "$l/source.log"
}

# lint_deb: lintian.txt, the reports of the .debs and of the source
# package, and the first non-zero exit of the two (or exit 0).
lint_deb()
{
	local e
	reports="$reports lintian.txt"
	if [ "$lint" = 0 ]; then
		echo "not linted (--no-lint)" > "$staging/lintian.txt"
	elif command -v lintian >/dev/null 2>&1; then
		# shellcheck disable=SC2046
		run_linter lintian-deb.txt lintian --fail-on error,warning --display-info --pedantic \
			$(echo "$pkgs" | tr ' ' '\n' | grep '\.deb$')
		if [ "${RXKIT_LINT_SOURCE:-}" = full ]; then
			run_linter lintian-source.txt lintian --fail-on error,warning --display-info --pedantic "$dsc"
		else
			lint_standin
			run_linter lintian-source.txt lintian --fail-on error,warning --display-info --pedantic \
				"$staging/lintsrc/linux-rxkit_$deb_version.dsc"
		fi
		{ echo "# lintian --pedantic of the .debs"; cat "$staging/lintian-deb.txt"
		  echo "# lintian --pedantic of ${dsc##*/} (${RXKIT_LINT_SOURCE:-stand-in orig tarball of the patched files})"
		  cat "$staging/lintian-source.txt"
		  e=$(tail -q -n 1 "$staging/lintian-deb.txt" "$staging/lintian-source.txt" | sort -u | grep -v '^exit 0$' | head -n 1)
		  echo "${e:-exit 0}"; } > "$staging/lintian.txt"
	else
		echo "lintian not installed (Debian package 'lintian')" > "$staging/lintian.txt"
	fi
}

# lint_rpm: rpmlint.txt.
lint_rpm()
{
	reports="$reports rpmlint.txt"
	if [ "$lint" = 0 ]; then
		echo "not linted (--no-lint)" > "$staging/rpmlint.txt"
	elif command -v rpmlint >/dev/null 2>&1; then
		subst < "$RXKIT_TOP/rpm/vsockrx-kernel.rpmlintrc" > "$staging/rpmlintrc"
		run_linter rpmlint.txt rpmlint -r "$staging/rpmlintrc" "$spec" "$rpmf" "$drpm"
	else
		echo "rpmlint not installed (Debian package 'rpmlint')" > "$staging/rpmlint.txt"
	fi
}
