#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/pipeline.sh: the GitLab CI view of the stage graph (pipeline/gitlab).
# .gitlab-ci.yml is what pipeline/gitlab writes from pipeline/stage-table now;
# gitlab-ci-local resolves it (every job, every need) and it has the
# graph's stages, one fetch job a target; a job's script exits 1 on a
# failed stage and 4 on a skipped one; the JUnit report and the results
# table say what the records say; one of its jobs runs for real, through
# gitlab-ci-local's shell executor, and leaves its record and its JUnit
# report.  KTAP on stdout; exit 0 (all passed or skipped), 1 (a
# failure).
set -eu
PROG=pipeline
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="generated_current definition_resolves stage_exit stage_cpu junit_table job_runs isolated_chain"
readonly TEST_DESCS=".gitlab-ci.yml is what pipeline/gitlab writes from pipeline/stage-table now:\
gitlab-ci-local resolves every job and need, the jobs the table's stages, one fetch job a target:\
a job's script (pipeline/stage --exit) exits 1 on a failed stage, 4 on a skipped one, 0 on a pass:\
a stage record counts the CPU time of the command's processes, not the seconds it slept (pipeline/results cpu):\
the JUnit report of a stage record (a testcase a case, its diagnostics the failure) and the results table say what the records say:\
one job (RXKIT_PIPELINE_JOB) runs in gitlab-ci-local's shell executor, its record passed and its JUnit report made:\
fetch, prepare, the patched build and the loopback suite of TARGET pass as runners apart run them (pipeline/isolate), and the suite fails, naming it, without one artefact of the build"
# A job of seconds that reads the tree only (its record goes to a folder
# of this test, not to make check's).
readonly JOB="${RXKIT_PIPELINE_JOB:-commands}"

usage()
{
	cat <<USAGE
usage: tests/pipeline.sh [-l] [-t NAME]... [-T NAME]... [TARGET]

The GitLab pipeline of the kit (.gitlab-ci.yml, written by pipeline/gitlab).
job_runs runs job $JOB (RXKIT_PIPELINE_JOB) with gitlab-ci-local;
isolated_chain the jobs of TARGET (default: $RXKIT_TARGET) from its fetch
to its patched loopback suite under --shell-isolation.

$(test_usage)
USAGE
}
suite_options "$@"
shift "$SUITE_SHIFT"
[ $# -le 1 ] || { usage >&2; die "one target at most"; }
target=${1:-$RXKIT_TARGET}
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-pipeline.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# need_gcl: gitlab-ci-local, or a skip saying how to get it.
need_gcl()
{
	[ -x "$RXKIT_CACHE/npm/node_modules/.bin/gitlab-ci-local" ] && return 0
	SKIP_REASON="gitlab-ci-local is not installed in $RXKIT_CACHE/npm (ci/deps installs it)"
	return "$KSFT_SKIP"
}

# The committed file is what pipeline/gitlab writes from the graph now.
test_generated_current()
{
	ci_gitlab --check > "$work/check.log" 2>&1 && return "$KSFT_PASS"
	sed 's/^/# /' "$work/check.log" | tail -n 20
	return "$KSFT_FAIL"
}

# gitlab-ci-local parses it (the include, every job, every need) and its
# jobs are the stages of pipeline/stage-table, with one fetch job a target.
test_definition_resolves()
{
	need_gcl || return
	if ci_gitlab --validate > "$work/validate.log" 2>&1; then
		sed 's/^/# /' "$work/validate.log" | grep -v 'remote\|origin\|symbolic'
		return "$KSFT_PASS"
	fi
	sed 's/^/# /' "$work/validate.log" | tail -n 20
	return "$KSFT_FAIL"
}

# A job's script is pipeline/stage --exit: the engine sees 1 for a failed stage,
# 4 (allowed, a warning) for a skipped one, 0 for a pass.
test_stage_exit()
{
	local r="$work/exit" rc want n
	for want in 1:fail:false 4:skip:-- 0:pass:true; do
		rc=0 n=${want#*:} n=${n%%:*}
		case "$want" in
		*:--) RXKIT_OUT="$work/out" RXKIT_RESULTS="$r" "$RXKIT_TOP/pipeline/stage" --exit s-skip s-fail -- true \
			> /dev/null 2>&1 || rc=$? ;;
		*) RXKIT_OUT="$work/out" RXKIT_RESULTS="$r" "$RXKIT_TOP/pipeline/stage" --exit "s-$n" -- "${want##*:}" \
			> /dev/null 2>&1 || rc=$? ;;
		esac
		[ "$rc" = "${want%%:*}" ] ||
			{ echo "# a $n stage: exit $rc, not ${want%%:*}"; return "$KSFT_FAIL"; }
		# The job's JUnit report, written by the script itself.
		grep -q "<testsuite name=\"s-$n\" " "$work/out/junit/s-$n.xml" 2>/dev/null ||
			{ echo "# a $n stage: no JUnit report"; return "$KSFT_FAIL"; }
	done
	echo "# fail 1, skip 4, pass 0; each with its JUnit report"
}

# The CPU-seconds of a stage record: a command that keeps a core busy in
# a child of a child for 2 s counts about 2, one that sleeps 2 s counts
# none; pipeline/results cpu ranks them.
test_stage_cpu()
{
	local r="$work/cpu" busy idle
	RXKIT_RESULTS="$r" "$RXKIT_TOP/pipeline/stage" c-busy -- sh -c \
		'sh -c "t=\$((\$(date +%s) + 2)); while [ \$(date +%s) -le \$t ]; do :; done"' > /dev/null 2>&1
	RXKIT_RESULTS="$r" "$RXKIT_TOP/pipeline/stage" c-idle -- sleep 2 > /dev/null 2>&1
	busy=$("$RXKIT_TOP/pipeline/results" get "$r/c-busy.json" cpu_seconds)
	idle=$("$RXKIT_TOP/pipeline/results" get "$r/c-idle.json" cpu_seconds)
	echo "# busy: $busy CPU-s, idle: $idle CPU-s"
	[ "${busy:-0}" -ge 1 ] && [ "${idle:-1}" = 0 ] || return "$KSFT_FAIL"
	"$RXKIT_TOP/pipeline/results" cpu "$r" > "$work/cpu.txt"
	sed 's/^/# /' "$work/cpu.txt"
	head -n 1 "$work/cpu.txt" | grep -q ' c-busy$' ||
		{ echo "# pipeline/results cpu does not rank the busy stage first"; return "$KSFT_FAIL"; }
}

# junit_cases DIR: a guest suite's failing vsock_test case is a testcase of
# its own in the JUnit report, named by the case, its diagnostics the
# failure's text; a known defect's is skipped, saying so; a test without
# cases keeps its seconds.
junit_cases()
{
	local a="$1/art"
	mkdir -p "$a/vm_client"
	printf 'boot\t0\t7\t\nvm_client\t1\t40\t\n' > "$a/results.tsv"
	printf '    1..3\n    ok 1 SOCK_STREAM connection reset\n    # POLLERR expected\n    not ok 2 SOCK_SEQPACKET MSG_ZEROCOPY\n    ok 3 SOCK_STREAM MSG_ZEROCOPY # XFAIL listed\n' \
		> "$a/vm_client/cases.ktap"
	"$RXKIT_TOP/pipeline/results" suite "$a" --suite s --target 7.3 --tree patched
	printf 'TAP version 13\n1..2\nok 1 boot\nnot ok 2 vm_client\n' > "$1/s2.log"
	"$RXKIT_TOP/pipeline/results" record s2 1 50 "$1/s2.log" --results "$a/results.json" > "$1/s2.json"
	"$RXKIT_TOP/pipeline/results" junit "$1/s2.json" > "$1/s2.xml"
	expect_line "$1/s2.xml" '    <testcase classname="s2" name="boot" time="7"></testcase>' &&
	expect_line "$1/s2.xml" '    <testcase classname="s2.vm_client" name="SOCK_STREAM connection reset"></testcase>' &&
	expect_line "$1/s2.xml" '    <testcase classname="s2.vm_client" name="SOCK_SEQPACKET MSG_ZEROCOPY"><failure message="POLLERR expected">POLLERR expected</failure></testcase>' &&
	expect_line "$1/s2.xml" '    <testcase classname="s2.vm_client" name="SOCK_STREAM MSG_ZEROCOPY"><skipped message="known defect (XFAIL): listed"/></testcase>' &&
	expect_line "$1/s2.xml" '  <testsuite name="s2" tests="4" failures="1" skipped="1" time="50">'
}

# The JUnit report of a suite's stage record (a failed and a skipped KTAP
# test) and the table of results.json files (target x suite x tree).
test_junit_table()
{
	local r="$work/junit" o="$work/table"
	mkdir -p "$r" "$o/7.3/patched/s" "$o/7.3/baseline/s"
	printf 'TAP version 13\n1..3\nok 1 a\nnot ok 2 b\nok 3 c # SKIP no c here\n' > "$r/suite.log"
	"$RXKIT_TOP/pipeline/results" record suite 1 5 "$r/suite.log" > "$r/suite.json"
	"$RXKIT_TOP/pipeline/results" junit "$r/suite.json" > "$r/suite.xml"
	expect_line "$r/suite.xml" '  <testsuite name="suite" tests="3" failures="1" skipped="1" time="5">' || return
	expect_line "$r/suite.xml" '    <testcase classname="suite" name="b"><failure message=""></failure></testcase>' || return
	expect_line "$r/suite.xml" '    <testcase classname="suite" name="c"><skipped message="no c here"/></testcase>' || return
	junit_cases "$r" || return
	printf '{"target": "7.3", "tree": "%s", "tests": [{"name": "x", "status": "%s"}]}\n' \
		patched pass > "$o/7.3/patched/s/results.json"
	printf '{"target": "7.3", "tree": "%s", "tests": [{"name": "x", "status": "%s"}]}\n' \
		baseline fail > "$o/7.3/baseline/s/results.json"
	"$RXKIT_TOP/pipeline/results" table "$o" > "$o/table.md"
	sed 's/^/# /' "$o/table.md"
	expect_line "$o/table.md" '| target | suite | patched | baseline |' &&
	expect_line "$o/table.md" '| 7.3 | s | 1/0/0 | 0/1/0 |'
}

# expect_line FILE LINE: FILE has LINE, or a failure saying so.
expect_line()
{
	grep -qxF -- "$2" "$1" && return 0
	echo "# no line '$2' in ${1##*/}:"
	sed 's/^/#   /' "$1"
	return "$KSFT_FAIL"
}

# Job JOB of .gitlab-ci.yml, run by gitlab-ci-local on this machine's
# shell (before_script: ci/deps; its pipeline/stage line; after_script: its
# JUnit report): its record passed and its report is JUnit XML naming it.
# gitlab-ci-local's own exit says too little (a failed job that may fail
# with another code leaves it 0): the record is the verdict.
test_job_runs()
{
	local t0 rec="$work/out/check/$JOB.json" xml="$work/out/junit/$JOB.xml" rc=0
	need_gcl || return
	t0=$(date +%s)
	RXKIT_OUT="$work/out" ci_gitlab --run --no-artifacts-to-source "$JOB" > "$work/run.log" 2>&1 || rc=$?
	echo "# gitlab-ci-local ran job $JOB in $(( $(date +%s) - t0 )) s (exit $rc)"
	if [ ! -f "$rec" ]; then
		echo "# no record $rec:"
		grep -v 'remote\|origin\|symbolic' "$work/run.log" | tail -n 15 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	if [ "$("$RXKIT_TOP/pipeline/results" status "$rec")" != pass ]; then
		echo "# $JOB did not pass: $("$RXKIT_TOP/pipeline/results" reason "$rec")"
		tail -n 15 "$work/out/check/$JOB.log" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	grep -q "<testsuite name=\"$JOB\" " "$xml" 2>/dev/null && grep -q '</testsuites>' "$xml" || {
		echo "# no JUnit report of $JOB in $xml"
		return "$KSFT_FAIL"
	}
	echo "# $xml: $(grep -c '<testcase ' "$xml") test cases"
	return "$KSFT_PASS"
}

# The chain of TARGET's patched loopback suite (fetch, prepare, the
# patched build, the suite), each job as a runner apart runs it: its own
# copy of the project, its needs' artefacts, its keyed caches (seeded from
# this host's: a warm ccache).  Each passes; the suite ran in its own
# folder.  Then its build's test payload (a declared artefact) is taken
# out, and the suite, run again alone, fails for that reason.
test_isolated_chain()
{
	local st="$RXKIT_TOP/.gitlab-ci-local/isolated" j= rc=0 t0 rec
	need_gcl || return
	rm -rf "$st"
	t0=$(date +%s)
	"$RXKIT_TOP/pipeline/isolate" --state "$st" "loopback-$target-patched" > "$work/isolated.log" 2>&1 || rc=$?
	echo "# pipeline/isolate ran the chain in $(( $(date +%s) - t0 )) s (exit $rc)"
	isolated_chain "$st"
	rc=$?
	# The jobs' folders hold three copies of the kernel tree.
	rm -rf "$st/builds"
	return "$rc"
}

# isolated_chain STATE: the verdicts of the chain's jobs in STATE, then
# the suite without its build's test payload.
isolated_chain()
{
	local st="$1" j= rec=
	for j in "fetch-$target" "prepare-$target" "build-$target-patched" "loopback-$target-patched"; do
		rec=$(job_file "$st" "$j" "out/check/$j.json")
		if [ "$("$RXKIT_TOP/pipeline/results" status "$rec" 2>/dev/null)" != pass ]; then
			echo "# $j did not pass apart: $("$RXKIT_TOP/pipeline/results" reason "$rec" 2>&1)"
			grep -v 'remote\|origin\|symbolic\|still running' "$work/isolated.log" | tail -n 20 | sed 's/^/#   /'
			return "$KSFT_FAIL"
		fi
		[ -s "$(job_file "$st" "$j" "out/junit/$j.xml")" ] ||
			{ echo "# $j left no JUnit report among its artefacts"; return "$KSFT_FAIL"; }
		echo "# $j: pass, $("$RXKIT_TOP/pipeline/results" get "$rec" seconds) s"
	done
	j="loopback-$target-patched"
	grep -q "artefacts $st/builds/[^ ]*/out/$target/patched/loopback" "$(job_file "$st" "$j" "out/check/$j.log")" ||
		{ echo "# the suite did not run in its job's own folder"; return "$KSFT_FAIL"; }
	isolated_without "$st" "$j" "$(job_file "$st" "build-$target-patched" \
		".rxkit-cache/src/$target/patched/o-guest/rxkit-tests")" 'rxkit-tests: no test payload'
}

# job_file STATE JOB PATH: PATH among JOB's artefacts in STATE (gitlab-ci-local
# names the folder for the job with what a container name cannot hold,
# such as the dot of 7.3, encoded).
job_file()
{
	local f=
	for f in "$1"/artifacts/*/"$3"; do
		[ ! -e "$f" ] || { printf '%s\n' "$f"; return 0; }
	done
	printf '%s\n' "$1/artifacts/$2/$3"
}

# isolated_without STATE JOB ARTEFACT WHY: JOB, run alone again without
# ARTEFACT of a need, fails, its record saying WHY.
isolated_without()
{
	local rec= log=
	[ -e "$3" ] || { echo "# no artefact ${3#"$1"/} to take out"; return "$KSFT_FAIL"; }
	rm -rf "$3"
	"$RXKIT_TOP/pipeline/isolate" --state "$1" --alone "$2" > "$work/without.log" 2>&1 || :
	rec=$(job_file "$1" "$2" "out/check/$2.json") log=${rec%.json}.log
	if [ "$("$RXKIT_TOP/pipeline/results" status "$rec" 2>/dev/null)" != fail ] ||
	   ! grep -q -- "$4" "$log"; then
		echo "# without ${3#"$1"/artifacts/}, $2 did not fail saying '$4':"
		tail -n 5 "$log" 2>&1 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	echo "# without ${3#"$1"/artifacts/}: $2 failed: $(grep -- "$4" "$log" | head -n 1)"
}

ci_gitlab() { "$RXKIT_TOP/pipeline/gitlab" "$@"; }

# shellcheck disable=SC2086
run_tests $TESTS
