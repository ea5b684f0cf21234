#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/results_format.sh: the kit's results as pipeline/results writes them:
# a suite's results.json from hostile reasons and case names, and the
# schemas of results.json and the stage record (tests/data/*.schema.json)
# accepting what the writers make and refusing each kind of bad record.
# KTAP on stdout; exit 0 or 1.
set -eu
PROG=results_format.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="hostile_reasons writers_meet_schema schema_refuses export_run kcidb_refuses"
readonly TEST_DESCS="reasons and case names with quotes, backslashes, CR, ESC, tabs and bytes that are not UTF-8 come out as valid JSON, each string as it went in:a stage record of a suite's log, of a plain command, of a skip and of a failed output check, and a suite's results.json, meet their schemas:each kind of bad record is refused, naming what is wrong:\
a run's summary.json and kcidb.json say what its records, results, packages and A/B log say, and pass their checks:\
the KCIDB check refuses each kind of bad report, naming what is wrong"
readonly RESULTS_TOOL="$RXKIT_TOP/pipeline/results"

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

# export_out OUT: a run's records (a prepare, a build, an A/B verdict that
# found a regression), the results of a suite on both trees (a failed case
# with its diagnostics, a known defect's) and a package with its lint.
export_out()
{
	local c="$1/check" a="$1/7.3/patched/loopback" b="$1/7.3/baseline/loopback"
	mkdir -p "$c" "$a/job" "$b/job" "$1/7.3/packages"
	: > "$c/p.log"
	"$RESULTS_TOOL" record prepare-7.3 0 3 "$c/p.log" > "$c/prepare-7.3.json"
	"$RESULTS_TOOL" record build-7.3-patched 0 60 "$c/p.log" --cpu 110 > "$c/build-7.3-patched.json"
	printf "REGRESSION loopback/job: 'c two' passes on baseline, fails on patched\nsomething else\n" > "$c/ab.log"
	"$RESULTS_TOOL" record ab-verdict-7.3 1 1 "$c/ab.log" > "$c/ab-verdict-7.3.json"
	printf 'boot\t0\t5\t\njob\t1\t9\t\n' > "$a/results.tsv"
	printf '    ok 1 c one\n    # POLLERR expected\n    not ok 2 c two\n    ok 3 c (three) # XFAIL known: it [baseline,patched] {1}\n' > "$a/job/cases.ktap"
	printf 'boot\t0\t5\t\njob\t0\t9\t\n' > "$b/results.tsv"
	printf '    ok 1 c one\n    ok 2 c two\n    ok 3 c (three) # XFAIL known: it [baseline,patched] {1}\n' > "$b/job/cases.ktap"
	"$RESULTS_TOOL" suite "$a" --suite loopback --target 7.3 --tree patched --backend loopback --accelerator tcg
	"$RESULTS_TOOL" suite "$b" --suite loopback --target 7.3 --tree baseline --backend loopback --accelerator tcg
	printf 'not a real package\n' > "$1/7.3/packages/linux-image-x.deb"
	printf 'W: a warning\nexit 0\n' > "$1/7.3/packages/lintian.txt"
}

test_export_run()
{
	local o="$work/export" s= k=
	export_out "$o"
	"$RESULTS_TOOL" export "$o" | sed 's/^/# /'
	s="$o/summary.json" k="$o/kcidb.json"
	[ -f "$s" ] && [ -f "$k" ] || { echo "# no summary.json or kcidb.json"; return "$KSFT_FAIL"; }
	python3 - "$s" "$k" "$(sha256sum < "$o/7.3/packages/linux-image-x.deb" | cut -c1-64)" <<'PY' || return "$KSFT_FAIL"
import json, sys
s, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t = s["targets"]["7.3"]
want = [
    (s["stages"], {"passed": 2, "failed": 1, "skipped": 0}),
    (s["cpu_seconds"], 110),
    (t["trees"]["patched"]["loopback"]["failed"], 1),
    (t["trees"]["patched"]["loopback"]["known"], 1),
    (t["trees"]["baseline"]["loopback"]["passed"], 3),
    (t["ab_verdict"], {"status": "fail", "findings": ["REGRESSION loopback/job: 'c two' passes on baseline, fails on patched"]}),
    (t["packages"][0]["sha256"], sys.argv[3]),
    (t["lint"], {"lintian": "exit 0"}),
    (len(k["checkouts"]), 2), (len(k["builds"]), 2), (len(k["tests"]), 10),
    (len(k["issues"]), 1), (len(k["incidents"]), 2),
    (k["builds"][1]["status"] if k["builds"][1]["id"].startswith("rxkit:7.3-patched-") else k["builds"][0]["status"], "PASS"),
]
fail = [t for t in k["tests"] if t["status"] == "FAIL" and t["path"].endswith(".c_two")]
want.append((fail[0]["comment"] if fail else None, "POLLERR expected"))
want.append((k["issues"][0]["comment"], "known: it"))
bad = [(got, exp) for got, exp in want if got != exp]
for got, exp in bad:
    print("# got %r, expected %r" % (got, exp))
print("# %d values as the run says" % (len(want) - len(bad)))
sys.exit(1 if bad else 0)
PY
	"$RESULTS_TOOL" kcidb-check "$k" || { echo "# kcidb-check refused the export"; return "$KSFT_FAIL"; }
}

# Each kind of bad KCIDB report (a mutation of a good one) is refused,
# naming the fault.
test_kcidb_refuses()
{
	local rc="$KSFT_PASS" what= py= want= k="$work/kcidb-good.json"
	[ -f "$work/export/kcidb.json" ] || export_out "$work/export"
	[ -f "$work/export/kcidb.json" ] || "$RESULTS_TOOL" export "$work/export" > /dev/null
	cp "$work/export/kcidb.json" "$k"
	"$RESULTS_TOOL" kcidb-check "$k" || { echo "# the good report was refused"; return "$KSFT_FAIL"; }
	while IFS='	' read -r what py want; do
		python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$py
json.dump(d, open(sys.argv[2], 'w'))" "$k" "$work/kcidb-bad.json"
		if "$RESULTS_TOOL" kcidb-check "$work/kcidb-bad.json" > "$work/kcidb.out" 2>&1 ||
		   ! grep -q -- "$want" "$work/kcidb.out"; then
			echo "# $what: not refused naming '$want':"; sed 's/^/#   /' "$work/kcidb.out"
			rc=$KSFT_FAIL
		else
			echo "# $what: $(head -n 1 "$work/kcidb.out" | sed "s|$work/||")"
		fi
	done <<'BAD'
no build_id	del d["tests"][0]["build_id"]	tests/0: no build_id
bad status	d["tests"][0]["status"] = "BROKEN"	status 'BROKEN' is none of
dangling build	d["builds"][0]["checkout_id"] = "rxkit:nowhere"	builds/0: checkout_id rxkit:nowhere names no object of checkouts
dangling issue	d["incidents"][0]["issue_id"] = "rxkit:none"	names no object of issues
path with a blank	d["tests"][0]["path"] = "vsock.a b"	is not dot-separated
unknown field	d["tests"][0]["verdict"] = "ok"	unknown field verdict
id without origin	d["builds"][0]["id"] = "build-1"	is not ORIGIN:ID
bad origin	d["checkouts"][0]["origin"] = "RX Kit"	origin 'RX Kit' is not
null value	d["tests"][0]["comment"] = None	comment is null
id twice	d["tests"][1]["id"] = d["tests"][0]["id"]	id .* twice
old version	d["version"]["major"] = 4	version:
bad patchset hash	d["checkouts"][0]["patchset_hash"] = "abc"	patchset_hash is neither
BAD
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
