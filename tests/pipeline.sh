#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/pipeline.sh: the GitLab CI view of the stage graph (ci/gitlab).
# .gitlab-ci.yml is what ci/gitlab writes from ci/stages.mk now;
# gitlab-ci-local resolves it (every job, every need) and it has the
# graph's stages, one fetch job a target; one of its jobs runs for real,
# through gitlab-ci-local's shell executor, and leaves its record and its
# JUnit report.  KTAP on stdout; exit 0 (all passed or skipped), 1 (a
# failure).
set -eu
PROG=pipeline
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"

readonly ALL_TESTS="generated_current definition_resolves job_runs"
readonly TESTS="${RXKIT_PIPELINE_TESTS:-$ALL_TESTS}"
# A job of seconds that reads the tree only (its record goes to a folder
# of this test, not to make check's).
readonly JOB="${RXKIT_PIPELINE_JOB:-commands}"

usage()
{
	cat <<USAGE
usage: tests/pipeline.sh

The GitLab pipeline of the kit (.gitlab-ci.yml, written by ci/gitlab):
$(for t in $ALL_TESTS; do echo "  $t"; done)
job_runs runs job $JOB (RXKIT_PIPELINE_JOB) with gitlab-ci-local.

Environment: RXKIT_PIPELINE_TESTS="NAME..." (a subset of the tests).
USAGE
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
'') ;;
*) usage >&2; die "unknown argument '$1'" ;;
esac
check_subset RXKIT_PIPELINE_TESTS
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-pipeline.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# need_gcl: gitlab-ci-local, or a skip saying how to get it.
need_gcl()
{
	[ -x "$RXKIT_CACHE/npm/node_modules/.bin/gitlab-ci-local" ] && return 0
	SKIP_REASON="gitlab-ci-local is not installed in $RXKIT_CACHE/npm (ci/deps installs it)"
	return "$KSFT_SKIP"
}

# The committed file is what ci/gitlab writes from the graph now.
test_generated_current()
{
	ci_gitlab --check > "$work/check.log" 2>&1 && return "$KSFT_PASS"
	sed 's/^/# /' "$work/check.log" | tail -n 20
	return "$KSFT_FAIL"
}

# gitlab-ci-local parses it (the include, every job, every need) and its
# jobs are the stages of ci/stages.mk, with one fetch job a target.
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

# Job JOB of .gitlab-ci.yml, run by gitlab-ci-local on this machine's
# shell (before_script: ci/deps; its ci/stage line; after_script: its
# JUnit report): its record passed and its report is JUnit XML naming it.
# gitlab-ci-local's own exit says too little (a failed job that may fail
# with another code leaves it 0): the record is the verdict.
test_job_runs()
{
	local t0 rec="$work/out/check/$JOB.json" xml="$work/out/junit/$JOB.xml" rc=0
	need_gcl || return
	t0=$(date +%s)
	RXKIT_OUT="$work/out" ci_gitlab --run "$JOB" > "$work/run.log" 2>&1 || rc=$?
	echo "# gitlab-ci-local ran job $JOB in $(( $(date +%s) - t0 )) s (exit $rc)"
	if [ ! -f "$rec" ]; then
		echo "# no record $rec:"
		grep -v 'remote\|origin\|symbolic' "$work/run.log" | tail -n 15 | sed 's/^/#   /'
		return "$KSFT_FAIL"
	fi
	if [ "$("$RXKIT_TOP/tests/results" status "$rec")" != pass ]; then
		echo "# $JOB did not pass: $("$RXKIT_TOP/tests/results" reason "$rec")"
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

ci_gitlab() { "$RXKIT_TOP/ci/gitlab" "$@"; }

# shellcheck disable=SC2086
run_tests $TESTS
