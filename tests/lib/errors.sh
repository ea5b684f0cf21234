# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Shared by the error-path suites (tests/errors_*.sh, each a stage): the
# command line, the private work folder and cache, the checks of a failure
# and the self-made inputs of the tests (stand-in trees, a series, a
# results.json).  Sourced after tests/lib.sh by a suite that has set
# TEST_NAMES, TEST_DESCS and usage().

# errors_setup [-l] [-t NAME]... [-T NAME]... [TARGET]: the suite's command
# line (parse_stage_args 'tests': -h its usage, -l its tests, -t and -T the
# ones to run, in TESTS).  Sets target (default $RXKIT_TARGET), work (a
# private folder, removed on exit) and cache (the private cache of the
# fetch and prepare tests, in work: never the real one).
# shellcheck disable=SC2034 # target and cache are the suite's
errors_setup()
{
	parse_stage_args 'tests' "$@"
	: "${target:=$RXKIT_TARGET}"
	work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-$PROG.XXXXXX")
	cache="$work/cache"
	trap errors_cleanup EXIT INT TERM
}

# errors_cleanup: the small file system of no_space unmounted, work removed.
errors_cleanup()
{
	! mountpoint -q "$work/small" 2>/dev/null || umount "$work/small"
	rm -rf "$work"
}

# expect_fail LOG PATTERN CMD...: CMD must fail and say PATTERN (grep -E)
# on stderr (in LOG; its stdout in LOG.out).
expect_fail()
{
	local log="$1" pat="$2"
	shift 2
	if "$@" > "$log.out" 2> "$log"; then
		echo "# '$*' succeeded; expected a failure"
		return 1
	fi
	if ! grep -q -E "$pat" "$log"; then
		echo "# '$*' failed without saying /$pat/:"
		sed 's/^/#   /' "$log"
		return 1
	fi
	sed -n '1,3s/^/#   /p' "$log"
}

# expect_in FILE PATTERN WHAT: FILE has a line PATTERN (grep) matches, or
# say what is missing.
expect_in()
{
	grep -q -- "$2" "$1" && return 0
	echo "# $3"
	return 1
}

# fake_tarball SUBLEVEL FILE: FILE, a tiny stand-in kernel tree 7.3.SUBLEVEL:
# a Makefile with the version and net/file.c, the one file test patches
# touch.
fake_tarball()
{
	local d="$work/mk.$1"
	rm -rf "$d"
	mkdir -p "$d/linux-7.3.$1/net"
	printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$1" \
		> "$d/linux-7.3.$1/Makefile"
	seq 1 40 | sed 's/^/line /' > "$d/linux-7.3.$1/net/file.c"
	tar -C "$d" -cJf "$2" "linux-7.3.$1"
}

# series_of NAME SEDEXPR: a one-patch series against the fake tree's file.c.
series_of()
{
	local s="$work/series.$1"
	mkdir -p "$s/a/net" "$s/b/net"
	cp "$cache/src/7.3/pristine/net/file.c" "$s/a/net/file.c"
	sed "$2" "$s/a/net/file.c" > "$s/b/net/file.c"
	(cd "$s" && diff -u a/net/file.c b/net/file.c > 0001-test.patch) || true
	echo 0001-test.patch > "$s/series"
	printf '%s\n' "$s"
}

# fake_61 SUBLEVEL FILE [PATH...]: FILE, a tiny stand-in tree 6.1.SUBLEVEL:
# the Makefile and the named files of the tree, each a one-line stub.
fake_61()
{
	local d="$work/mk61.$1" t="linux-6.1.$1" out="$2" f=
	rm -rf "$d"
	mkdir -p "$d/$t"
	printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$1" > "$d/$t/Makefile"
	shift 2
	for f in "$@"; do
		mkdir -p "$d/$t/${f%/*}"
		echo "/* stand-in of $f */" > "$d/$t/$f"
	done
	tar -C "$d" -cJf "$out" "$t"
}

# ab_json FILE CASE-ONE CASE-TWO: the results.json of a suite "s" whose
# tests boot and job pass, job with the cases "case one", "case (two)"
# (their statuses, and a skip reason or "") and "case three" (skipped).
ab_json()
{
	local c1="{\"name\": \"case one\", $2}" c2="{\"name\": \"case (two)\", $3}"
	printf '{"suite": "s", "tests": [%s, %s%s, %s, %s]}]}\n' \
		'{"name": "boot", "status": "pass", "seconds": 1}' \
		'{"name": "job", "status": "pass", "seconds": 1, "cases": [' "$c1" "$c2" \
		'{"name": "case three", "status": "skip", "reason": "reason"}' > "$1"
}

# split_suite DESCS: a made-up suite of two tests described by DESCS, in
# a kit of links to this one ($work/split), run with -t one.
split_suite()
{
	local k="$work/split"
	rm -rf "$k"
	mkdir -p "$k/tests"
	ln -s "$RXKIT_TOP/ci" "$k/ci"
	ln -s "$RXKIT_TOP/tests/lib.sh" "$RXKIT_TOP/tests/lib" "$RXKIT_TOP/tests/data" "$k/tests/"
	cat > "$k/tests/split.sh" <<-SUITE
	#!/bin/sh
	set -eu
	PROG=split.sh
	. "\$(dirname "\$0")/../ci/lib.sh"
	. "\$RXKIT_TOP/tests/lib.sh"
	readonly TEST_NAMES="one two"
	readonly TEST_DESCS="$1"
	usage() { echo "usage: tests/split.sh [-l]"; }
	suite_alone "\$@"
	SUITE
	sh "$k/tests/split.sh" -t one
}
