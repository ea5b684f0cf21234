#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/packages.sh: every package suite of TARGET in turn (make packages):
#   tests/packages_build.sh     ci/package's build: source, ccache
#   tests/packages_deb.sh       lintian; dpkg install, module, boot, upgrade, purge
#   tests/packages_rpm.sh       rpmlint; rpm install, verify, module, boot, erase
#   tests/packages_repo.sh      ci/repo's signed repositories: apt and dnf install,
#                               tampering and other keys refused
#   tests/packages_boot.sh      apt-get install from ci/repo's repository in a
#                               Debian VM (tests/mkimage), reboot through GRUB,
#                               vsock jobs, remove, reboot back
#   tests/packages_refusals.sh  a series that needs fuzz or an offset is refused
#   tests/packages_rebuild.sh   reproducible, the -dbg package, the clean-root
#                               build (rebuilds: make check-full)
# Each suite states what it needs (the packages, a root) and runs alone as
# well; this only runs them in order, their KTAP as nested subtests.
# Exit 0 (every suite passed), 1 (a failure).
set -eu
PROG=packages
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# SUITE:VARIABLE, the order they run in.
readonly SUITES="packages_build:RXKIT_PACKAGE_BUILD_TESTS packages_deb:RXKIT_PACKAGE_DEB_TESTS \
packages_rpm:RXKIT_PACKAGE_RPM_TESTS packages_repo:RXKIT_PACKAGE_REPO_TESTS packages_boot:RXKIT_PACKAGE_BOOT_TESTS packages_refusals:RXKIT_PACKAGE_REFUSAL_TESTS \
packages_rebuild:RXKIT_PACKAGE_REBUILD_TESTS"

usage()
{
	cat <<USAGE
usage: tests/packages.sh [TARGET]

Every package suite of the patched guest kernel of TARGET (default:
$RXKIT_TARGET; ci/build must have built it), in this order:
$(for s in $SUITES; do printf '  tests/%s.sh (%s)\n' "${s%%:*}" "${s#*:}"; done)
Artefacts (packages-test/ is emptied first): \$RXKIT_OUT/TARGET/packages-test/
Environment: each suite's variable above (a subset of its tests), or
  RXKIT_PACKAGE_TESTS="NAME..." (a subset of all of them: each suite runs
  its own, a suite with none does not run), RXKIT_PKG_TMP.
USAGE
}
parse_stage_args '' "$@"
: "${target:=$RXKIT_TARGET}"
load_base "$target"

# The suites to run, each with its subset: "SUITE:VARIABLE:NAME,NAME...".
runs=
if [ -n "${RXKIT_PACKAGE_TESTS:-}" ]; then
	known=
	for s in $SUITES; do
		names=$("$RXKIT_TOP/tests/${s%%:*}.sh" --list | tr '\n' ' ')
		names=${names% }
		known="$known $names"
		sub=
		for t in $RXKIT_PACKAGE_TESTS; do
			case " $names " in
			*" $t "*) sub="$sub,$t" ;;
			esac
		done
		[ -z "$sub" ] || runs="$runs $s:${sub#,}"
	done
	for t in $RXKIT_PACKAGE_TESTS; do
		case "$known " in
		*" $t "*) ;;
		*) die "unknown test '$t' in RXKIT_PACKAGE_TESTS (known:$known)" ;;
		esac
	done
else
	for s in $SUITES; do
		runs="$runs $s:"
	done
fi

art="$(out_dir "$target")/packages-test"
rm -rf "$art"
mkdir -p "$art"
# One staging folder for every package build of the run.
RXKIT_PKG_TMP=$(pkg_tmp)
export RXKIT_PKG_TMP
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-packages-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# shellcheck disable=SC2086
ktap_header "$(echo $runs | wc -w)"
for r in $runs; do
	suite=${r%%:*}
	var=${r#*:}
	sub=${var#*:}
	var=${var%%:*}
	t0=$(date +%s)
	{
		rc=0
		if [ -n "$sub" ]; then
			env "$var=$(echo "$sub" | tr , ' ')" "$RXKIT_TOP/tests/$suite.sh" "$target" || rc=$?
		else
			"$RXKIT_TOP/tests/$suite.sh" "$target" || rc=$?
		fi
		echo "$rc" > "$tmp/rc"
	} | tee "$tmp/$suite.ktap" | sed 's/^/    /'
	echo "# $suite: exit $(cat "$tmp/rc") in $(( $(date +%s) - t0 )) s"
	ktap_result "$(cat "$tmp/rc")" "$suite"
done
# The tests of every suite, summed.
cat "$tmp"/*.ktap | sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) .* skip:\([0-9]*\) .*/\1 \2 \3/p' |
	awk '{ p += $1; f += $2; s += $3 } END { printf "# tests: %d passed, %d failed, %d skipped\n", p, f, s }'
ktap_finish
