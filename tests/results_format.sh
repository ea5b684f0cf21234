#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/results_format.sh: the kit's results as tests/results writes them:
# a suite's results.json from hostile reasons and case names, and the
# schemas of results.json and the stage record (tests/data/*.schema.json)
# accepting what the writers make and refusing each kind of bad record.
# KTAP on stdout; exit 0 or 1.
set -eu
PROG=results_format.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="hostile_reasons writers_meet_schema schema_refuses"
readonly TEST_DESCS="reasons and case names with quotes, backslashes, CR, ESC, tabs and bytes that are not UTF-8 come out as valid JSON, each string as it went in:a stage record of a suite's log, of a plain command, of a skip and of a failed output check, and a suite's results.json, meet their schemas:each kind of bad record is refused, naming what is wrong"
readonly RESULTS_TOOL="$RXKIT_TOP/tests/results"

usage()
{
	cat <<USAGE
usage: tests/results_format.sh [-l] [-t NAME]... [-T NAME]...

$(test_usage)
USAGE
}

suite_alone "$@"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-results.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# hostile_art ART: a suite's results.tsv and a cases.ktap whose reasons and
# names hold every character a log can throw at the writer.
hostile_art()
{
	mkdir -p "$1/job"
	printf 'boot\t0\t3\t\njob\t4\t5\tsaid "no" \\ at\rCR\033[1mESC\tTAB \377 end\n' > "$1/results.tsv"
	printf '    ok 1 case "one" \\ two # SKIP why\033[0m \377\n    not ok 2 case\tthree\r\n    ok 3 four # XFAIL known "x"\n' \
		> "$1/job/cases.ktap"
}

test_hostile_reasons()
{
	local a="$work/hostile"
	hostile_art "$a"
	"$RESULTS_TOOL" suite "$a" --suite s.sh --target 7.3 --tree patched --release "7.3.4 \"q\"" \
		--backend loopback --accelerator tcg || return "$KSFT_FAIL"
	/usr/bin/python3 - "$a/results.json" <<'PY' || return "$KSFT_FAIL"
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
t = r["tests"]
want = [
    (t[1]["reason"], 'said "no" \\ at\rCR\x1b[1mESC\tTAB \ufffd end'),
    (t[1]["cases"][0]["name"], 'case "one" \\ two'),
    (t[1]["cases"][0]["reason"], "why\x1b[0m \ufffd"),
    (t[1]["cases"][1]["name"], "case\tthree\r"),
    (t[1]["cases"][2]["status"], "xfail"),
    (t[1]["status"], "skip"),
    (r["kernel_release"], '7.3.4 "q"'),
]
bad = [(g, w) for g, w in want if g != w]
for g, w in bad:
    print("# got %r, want %r" % (g, w))
print("# %d strings as they went in" % (len(want) - len(bad)))
sys.exit(1 if bad else 0)
PY
	"$RESULTS_TOOL" validate "$a" | sed 's/^/# /'
}

test_writers_meet_schema()
{
	local c="$work/w/check" rc="$KSFT_PASS"
	mkdir -p "$c"
	printf 'TAP version 13\n1..2\nok 1 a\nok 2 b # SKIP not here\n' > "$c/suite.log"
	echo 'built' > "$c/plain.log"
	"$RESULTS_TOOL" record suite 0 7 "$c/suite.log" --command "tests/x.sh" > "$c/suite.json"
	"$RESULTS_TOOL" record plain 0 1 "$c/plain.log" --command true > "$c/plain.json"
	"$RESULTS_TOOL" record skipped 0 0 "$c/plain.log" --skip "plain did not succeed" > "$c/skipped.json"
	"$RESULTS_TOOL" record unmade 0 1 "$c/plain.log" --fail "stage: error: no output" > "$c/unmade.json"
	hostile_art "$work/w/art"
	"$RESULTS_TOOL" suite "$work/w/art" --suite s.sh --target 7.3 --tree baseline --release r \
		--backend vhost-user --accelerator kvm
	"$RESULTS_TOOL" validate "$work/w" > "$work/v.out" 2>&1 || rc=$KSFT_FAIL
	sed 's/^/# /' "$work/v.out"
	grep -q '^5 result files meet their schema$' "$work/v.out" || rc=$KSFT_FAIL
	return "$rc"
}

# The bad records: what is wrong, the file (suite: a results.json;
# stage: a record), its JSON, what the refusal must say.
readonly BAD_RECORDS='unknown status	suite	{"suite":"s","target":"t","tree":"p","kernel_release":"","backend":"b","accelerator":"a","reproducer":"r","tests":[{"name":"x","status":"passed","seconds":1}]}	tests/0/status
no tests	suite	{"suite":"s","target":"t","tree":"p","kernel_release":"","backend":"b","accelerator":"a","reproducer":"r"}	.tests. is a required property
a key no reader knows	suite	{"suite":"s","target":"t","tree":"p","kernel_release":"","backend":"b","accelerator":"a","reproducer":"r","tests":[],"verdict":"ok"}	verdict
a case without a name	suite	{"suite":"s","target":"t","tree":"p","kernel_release":"","backend":"b","accelerator":"a","reproducer":"r","tests":[{"name":"x","status":"pass","seconds":1,"cases":[{"status":"pass"}]}]}	.name. is a required property
a skip without its reason	stage	{"stage":"s","command":"c","exit":null,"seconds":0,"log":"l","tests":[],"status":"skip"}	.reason. is a required property
seconds as text	stage	{"stage":"s","command":"c","exit":0,"seconds":"3","log":"l","tests":[],"status":"pass"}	seconds'

test_schema_refuses()
{
	local rc="$KSFT_PASS" what= kind= json= want= d=
	while IFS='	' read -r what kind json want; do
		d="$work/bad/$(printf '%s' "$what" | tr ' ' _)"
		case "$kind" in
		suite) mkdir -p "$d" && printf '%s\n' "$json" > "$d/results.json" ;;
		stage) mkdir -p "$d/check" && printf '%s\n' "$json" > "$d/check/s.json" ;;
		esac
		if "$RESULTS_TOOL" validate "$d" > "$work/bad.out" 2>&1 || ! grep -q -- "$want" "$work/bad.out"; then
			echo "# $what: not refused naming '$want':"; sed 's/^/#   /' "$work/bad.out"
			rc=$KSFT_FAIL
		else
			echo "# $what: $(grep 'error:' "$work/bad.out" | head -n 1 | sed "s|$work/bad/||")"
		fi
	done <<RECORDS
$BAD_RECORDS
RECORDS
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
