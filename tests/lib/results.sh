# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The record a guest suite leaves in its artefact folder ART: reproducer.sh
# (results_begin) and results.json (results_end: pipeline/results suite, the
# one writer of results, from the per-test lines run_tests of
# tests/lib/ktap.sh appends to ART/results.tsv and each test's
# cases.ktap).  Sourced by tests/lib.sh.
# shellcheck disable=SC2154 # target, tree, flavour, release, accel: the suite's

# results_begin ART SCRIPT [SETTING...]: before a guest suite runs, write
# ART/reproducer.sh (re-runs this suite with the same tree, flavour,
# target, cache, accelerator, RXKIT_TIME_SCALE and tests (-t), and each
# SETTING, an environment variable of the suite, that is set, and the
# suite's own options, EXTRA_OPTS of parse_stage_args; an argument runs
# that test alone) and
# start the per-test record of ART/results.json.
# Reads tree, flavour, target and accel (guest_test_setup, pick_accel).
results_begin()
{
	local art="$1" script="$2" setting= value= how= t=
	shift 2
	# The accelerator pick_accel chose, as RXKIT_ACCEL takes it (the
	# nested suite's "tcg (L1), tcg (L2 in L1)": tcg; none: auto).
	how=${accel:-${RXKIT_ACCEL:-auto}}
	case "${how%% *}" in
	kvm|tcg) how=${how%% *} ;;
	*) how=auto ;;
	esac
	RESULTS_ART=$art
	RESULTS_SUITE=$script
	RESULTS_TSV="$art/results.tsv"
	: > "$RESULTS_TSV"
	{
		echo "#!/bin/sh"
		echo "# Re-runs $script exactly as $(date -u '+%Y-%m-%d %H:%M UTC') did;"
		echo "# an argument (a test name) runs that test alone instead."
		echo "set -eu"
		printf 'cd %s\n' "$RXKIT_TOP"
		printf 'export RXKIT_CACHE=%s RXKIT_OUT=%s RXKIT_ACCEL=%s\n' \
			"$RXKIT_CACHE" "$RXKIT_OUT" "$how"
		for setting in RXKIT_TIME_SCALE "$@"; do
			eval "value=\${$setting-}"
			[ -z "$value" ] || printf "export %s='%s'\n" "$setting" "$value"
		done
		printf '[ $# -eq 0 ] || set -- -t "$1"\n'
		printf '[ $# -gt 0 ] || set --'
		for t in $TESTS; do printf ' -t %s' "$t"; done
		printf '\nexec tests/%s --tree %s --flavour %s %s"$@" %s\n' "$script" "$tree" "$flavour" \
			"${EXTRA_OPTS:+$EXTRA_OPTS }" "$target"
	} > "$art/reproducer.sh"
	chmod +x "$art/reproducer.sh"
}

# results_end [BACKEND]: ART/results.json of the suite that results_begin
# started: target, release, backend, accelerator, each test with status and
# seconds, and the cases of its KTAP subtests (ART/*/cases.ktap).
results_end()
{
	"$RXKIT_TOP/pipeline/results" suite "$RESULTS_ART" --suite "$RESULTS_SUITE" \
		--target "$target" --tree "$tree" --release "$release" \
		--backend "${1:-loopback}" --accelerator "${accel:-none}"
}
