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
. "$RXKIT_TOP/tests/lib/pipeline.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="generated_current definition_resolves docs_only registry image_push stage_exit stage_cpu junit_table job_runs isolated_chain"
readonly TEST_DESCS=".gitlab-ci.yml is what pipeline/gitlab writes from pipeline/stage-table now:\
gitlab-ci-local resolves every job and need, the jobs the table's stages, one fetch job a target:\
a merge request changing documentation alone runs the Docs jobs, one changing a script or a stage's report every job, and a Docs need that is not optional is refused:\
pipeline/registry puts a package at its name and version in a generic package registry, byte for byte with the job's token, and refuses a wrong token, a missing file and a job outside GitLab:\
images/mkjobimage puts the job image at its key's tag in a container registry (Debian's docker-registry, TLS and a password), byte for byte, finds it there the next time, and stops on a wrong password before it builds:\
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

# A merge request's pipeline (gitlab-ci-local's rules:changes against the
# clone's origin/main): documentation alone (pipeline/stage-table:
# Documentation) runs the Docs jobs, and their needs hold there; a
# script's change runs every job of no schedule, and so does a change of a
# report a stage writes (doc/reports/).  A Docs job whose need is not
# optional makes the documentation-only pipeline fail, and says so.
test_docs_only()
{
	local c="$work/changes" docs all
	need_gcl || return
	change_clone "$c" || return "$KSFT_FAIL"
	"$RXKIT_TOP/pipeline/stagegen" --gitlab-stages > "$work/map"
	docs=$(awk '$5 == "docs" || $6 == "base" { print $1 }' "$work/map" | sort)
	all=$(awk '/^[a-z][^ ]*:$/ { j = substr($0, 1, length($0) - 1) }
		/^  extends: .rxkit$/ { print j }' "$c/.gitlab-ci.yml" |
		grep -vFx "$(awk '$4 != "-" { print $1 }' "$work/map")" | sort)
	changed_runs "$c" doc/testing.md "$docs" "documentation alone" &&
		changed_runs "$c" ci/lib.sh "$all" "a script" &&
		changed_runs "$c" doc/reports/read-skb-af-unix.txt "$all" "a stage's report" || return "$KSFT_FAIL"
	git -C "$c" checkout -q -- .
	sed -i 's/{job: \([^,]*\), optional: true}/\1/g' "$c/.gitlab-ci.yml"
	git -C "$c" -c user.name=rxkit -c user.email=rxkit@localhost commit -q -a -m "needs not optional" &&
		git -C "$c" update-ref refs/remotes/origin/main HEAD
	echo "# a change" >> "$c/doc/testing.md"
	if (cd "$c" && ./pipeline/gitlab --changed) > "$work/broken.out" 2>&1 ||
	   ! grep -q "whose need does not run" "$work/broken.out"; then
		echo "# a Docs job with a need that does not run was not refused:"
		tail -n 3 "$work/broken.out" | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	echo "# Docs needs made not optional: $(grep -m 1 'when:never' "$work/broken.out")"
}

# pipeline/registry against the upload API of GitLab's generic packages
# (tests/registry_server.py on 127.0.0.1): a Debian package goes to
# NAME/VERSION/FILE of its own fields, byte for byte, with the job's
# token; a wrong token fails naming the HTTP code; a pattern no file
# matches fails; outside a GitLab job nothing is uploaded.
test_registry()
{
	local r="$work/registry" deb pid rc=0
	deb=$(tiny_deb "$r") || return "$KSFT_FAIL"
	mkdir -p "$r/srv"
	python3 "$RXKIT_TOP/tests/registry_server.py" "$r/srv" job-token 2> "$r/server.log" &
	pid=$!
	registry_checks "$r" "$deb" || rc=$KSFT_FAIL
	kill "$pid" 2> /dev/null || :
	wait "$pid" 2> /dev/null || :
	return "$rc"
}

# images/mkjobimage in a GitLab job with a container registry: Debian's
# docker-registry on 127.0.0.1 (oci_registry) stands in for GitLab's.
test_image_push()
{
	local r="$work/oci" rc=0
	if ! command -v docker-registry > /dev/null || ! command -v htpasswd > /dev/null; then
		SKIP_REASON="no docker-registry or htpasswd (packages docker-registry, apache2-utils; ci/deps installs them)"
		return "$KSFT_SKIP"
	fi
	mkdir -p "$r"
	if oci_registry "$r"; then
		image_push_checks "$r" || rc=$KSFT_FAIL
	else
		rc=$KSFT_FAIL
	fi
	[ ! -s "$r/pid" ] || kill "$(cat "$r/pid")" 2> /dev/null || :
	return "$rc"
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

ci_gitlab() { "$RXKIT_TOP/pipeline/gitlab" "$@"; }

# shellcheck disable=SC2086
run_tests $TESTS
