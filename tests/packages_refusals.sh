#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages_refusals.sh: ci/package refuses a series that applies only
# with fuzz or an offset, in both formats, as ci/prepare does.  KTAP on
# stdout; exit 0 (all passed or skipped), 1 (a failure).
#
# Each test packages a copy of series/TARGET whose first patch was made to
# need fuzz (a context line changed) or an offset (its first hunk said to
# be 50 lines further down): ci/package must fail, name the patch, say why
# and leave no source or binary package behind.  Needs ci/prepare's
# patched tree, not a built kernel: the refusals come before any compile.
set -eu
PROG=packages_refusals
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/packages.sh"

# Each test and what it checks (-l).
readonly TEST_NAMES="deb_fuzz_refused deb_offset_refused rpm_fuzz_refused rpm_offset_refused"
readonly TEST_DESCS="the Debian source package of a series needing fuzz fails (dpkg-source -F 0), nothing left behind:\
the Debian source package of a series needing an offset fails (ci/package's patch wrapper):\
the RPM build of a series needing fuzz fails in %prep (-F0), before any compile:\
the RPM build of a series needing an offset fails in %prep, before any compile"

usage()
{
	cat <<USAGE
usage: tests/packages_refusals.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

ci/package of TARGET (default: $RXKIT_TARGET; ci/prepare must have made its
patched tree) with a series that needs fuzz or an offset must fail, naming
the patch (-l lists the tests; -t NAME runs NAME, -T NAME leaves it out;
each may repeat; they run in the order -l lists).
Artefacts (ci/package's logs): \$RXKIT_OUT/TARGET/packages-test/refused-*.log
Environment: RXKIT_PKG_TMP (ci/package's staging folder; these builds
  stage in its refusals/ subfolder, apart from the package builds).
USAGE
}

pkg_setup "$@"
# A staging folder (and so a ci/package lock) of their own: the refusals
# run beside the package builds (tests/packages_build.sh, _deb.sh).
RXKIT_PKG_TMP=$RXKIT_PKG_TMP/refusals
[ -d "$(src_root "$target")/patched" ] ||
	die "no patched tree of $target; run: ci/prepare $target"
pkg_art_clean refused-fuzz-deb.log refused-offset-deb.log refused-fuzz-rpm.log \
	refused-offset-rpm.log

# bad_series KIND: series/TARGET with its first patch made to apply only
# with fuzz (a context line changed) or an offset (its first hunk said to
# be 50 lines further down); prints the folder.
bad_series()
{
	local d p
	d="$work/series-$1"
	rm -rf "$d"
	cp -R "$RXKIT_TOP/series/$target" "$d"
	p="$d/$(series_patches "$d" | head -n 1)"
	case "$1" in
	fuzz) awk '!done && /^@@ / { h = 1 }
		h && !done && /^ ./ { print " rxkit: this context line is not in the tree"; done = 1; next }
		{ print }' "$p" > "$p.new" ;;
	offset) awk '!done && /^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@/ {
			split(substr($2, 2), a, ","); split(substr($3, 2), b, ",")
			sub(/^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@/, sprintf("@@ -%d,%s +%d,%s @@", a[1] + 50, a[2], b[1] + 50, b[2]))
			done = 1 }
		{ print }' "$p" > "$p.new" ;;
	esac
	! cmp -s "$p" "$p.new" || { echo "# could not make a $1 patch of ${p##*/}" >&2; return 1; }
	mv "$p.new" "$p"
	printf '%s\n' "$d"
}

# refused KIND FORMAT WHAT OPTION...: ci/package of a series whose first
# patch needs KIND must fail, name the patch and say WHAT (a regex of the
# refusal), and leave no source or binary package behind.
refused()
{
	local kind="$1" fmt="$2" what="$3" d out log rc=0
	shift 3
	d=$(bad_series "$kind") || return "$KSFT_FAIL"
	out="$work/out-$kind-$fmt"
	log="$art/refused-$kind-$fmt.log"
	if RXKIT_OUT=$out "$RXKIT_TOP/ci/package" --series "$d" --format "$fmt" --no-lint "$@" "$target" \
		> "$log" 2>&1; then
		echo "# ci/package --format $fmt built a series whose first patch needs $kind"
		return "$KSFT_FAIL"
	fi
	grep -E "$what" "$log" | head -n 3 | sed 's/^/# /'
	grep -qE "$what" "$log" || { echo "# no '$what' in the failure:"; tail -n 8 "$log" | sed 's/^/#   /'; rc=1; }
	grep -q "$(series_patches "$d" | head -n 1)" "$log" ||
		{ echo "# the failure does not name the patch"; rc=1; }
	[ -z "$(ls -A "$out/$target/source" 2>/dev/null)" ] ||
		{ echo "# a source package was left behind: $(ls "$out/$target/source")"; rc=1; }
	[ -z "$(ls "$out/$target/packages/"*.deb "$out/$target/packages/"*.rpm 2>/dev/null)" ] ||
		{ echo "# packages were left behind"; rc=1; }
	return "$rc"
}

# dpkg-source applies debian/patches with -F 0: a fuzzy patch fails the
# Debian source package.
test_deb_fuzz_refused()
{
	refused fuzz deb 'FAILED|fuzz' --source-only
}

# dpkg-source takes offsets silently: ci/package's patch wrapper fails them.
test_deb_offset_refused()
{
	refused offset deb 'applies only with offsets or fuzz' --source-only
}

# The spec's %prep applies with -F0: a fuzzy hunk fails, before anything
# is compiled.
test_rpm_fuzz_refused()
{
	refused fuzz rpm 'FAILED|fuzz'
}

# The spec's %prep refuses a patch that applies only at an offset (patch
# itself would take it), before anything is compiled.
test_rpm_offset_refused()
{
	refused offset rpm 'offset'
}

pkg_run
