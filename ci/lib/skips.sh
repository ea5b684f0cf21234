# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ci/lib/skips.sh: the skip lists of the vsock test programs' cases
# (tests/guest/skip/), read the same way by the suites (tests/lib/cases.sh)
# and by the Debian source package's DEP-8 test (ci/package.d/deb.sh).
# Sourced by ci/lib.sh.

# skip_list JOB TARGET [FLAVOUR]: the skip list of JOB, "ID REASON" lines:
# tests/guest/skip/JOB (every target), JOB.TARGET (test ids differ between
# trees) and JOB.TARGET.FLAVOUR (e.g. the slower debug kernels).
skip_list()
{
	local f=
	for f in "$1" "$1.$2" "$1.$2.${3:-guest}"; do
		f="$RXKIT_TOP/tests/guest/skip/$f"
		[ ! -f "$f" ] || grep -v '^#' "$f" | grep '[^ ]' || true
	done
}
