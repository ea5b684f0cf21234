# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The record a guest suite leaves in its artefact folder ART: reproducer.sh
# (results_begin) and results.json (results_end), from the per-test lines
# run_tests (tests/lib/ktap.sh) appends to ART/results.tsv.  Sourced by
# tests/lib.sh.
# shellcheck disable=SC2154 # target, tree, flavour, release, accel: the suite's

# results_begin ART SCRIPT SUBSET_VAR [SETTING...]: before a guest suite
# runs, write ART/reproducer.sh (re-runs this suite with the same tree,
# flavour, target, cache, accelerator and RXKIT_TIME_SCALE, and each
# SETTING, an environment variable of the suite, that is set; an argument
# picks one test through the suite's SUBSET_VAR) and start the per-test
# record of ART/results.json.
# Reads tree, flavour, target and accel (guest_test_setup, pick_accel).
results_begin()
{
	local art="$1" script="$2" subset="$3" setting= value= how=
	shift 3
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
		printf 'export %s="${1:-%s}"\n' "$subset" "$TESTS"
		printf 'exec tests/%s --tree %s --flavour %s %s\n' "$script" "$tree" "$flavour" "$target"
	} > "$art/reproducer.sh"
	chmod +x "$art/reproducer.sh"
}

json_str()
{
	printf '%s' "$1" | awk 'BEGIN { ORS = "" } {
		gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, " ")
		print (NR > 1 ? "\\n" : "") $0 }'
}

# results_cases KTAP: the subtests of ART/TEST/cases.ktap as a JSON list
# (status pass, fail, skip, or xfail: a known defect's failure, "ok N NAME
# # XFAIL REASON", tests/lib/cases.sh known_defects).
results_cases()
{
	sed -n 's/^    \(not ok\|ok\) [0-9]* \(.*\)$/\1\t\2/p' "$1" | awk -F '\t' '
	{
		st = $1 == "ok" ? "pass" : "fail"; name = $2; why = ""
		if (match(name, / # SKIP ?/)) {
			why = substr(name, RSTART + RLENGTH)
			name = substr(name, 1, RSTART - 1); st = "skip"
		} else if ($1 == "ok" && match(name, / # XFAIL ?/)) {
			why = substr(name, RSTART + RLENGTH)
			name = substr(name, 1, RSTART - 1); st = "xfail"
		}
		gsub(/\\/, "\\\\", name); gsub(/"/, "\\\"", name)
		gsub(/\\/, "\\\\", why); gsub(/"/, "\\\"", why)
		sep = (NR > 1) ? ", " : ""
		extra = (why == "") ? "" : ", \"reason\": \"" why "\""
		printf "%s{\"name\": \"%s\", \"status\": \"%s\"%s}", sep, name, st, extra
	}'
}

# results_end [BACKEND]: ART/results.json of the suite that results_begin
# started: target, release, backend, accelerator, each test with status and
# seconds, and the cases of its KTAP subtests (ART/*/cases.ktap).
results_end()
{
	local sep= name= rc= secs= why= st=
	{
		printf '{\n  "suite": "%s",\n' "$(json_str "$RESULTS_SUITE")"
		printf '  "target": "%s",\n  "tree": "%s",\n' "$(json_str "$target")" "$tree"
		printf '  "kernel_release": "%s",\n' "$(json_str "$release")"
		printf '  "backend": "%s",\n' "$(json_str "${1:-loopback}")"
		printf '  "accelerator": "%s",\n' "$(json_str "${accel:-none}")"
		printf '  "reproducer": "%s",\n  "tests": [' "$(json_str "$RESULTS_ART/reproducer.sh")"
		while IFS="$(printf '\t')" read -r name rc secs why; do
			case "$rc" in
			"$KSFT_PASS") st=pass ;;
			"$KSFT_SKIP") st=skip ;;
			*) st=fail ;;
			esac
			printf '%s\n    {"name": "%s", "status": "%s", "seconds": %s' \
				"$sep" "$(json_str "$name")" "$st" "$secs"
			[ -z "$why" ] || printf ', "reason": "%s"' "$(json_str "$why")"
			if [ -f "$RESULTS_ART/$name/cases.ktap" ]; then
				printf ', "cases": ['
				results_cases "$RESULTS_ART/$name/cases.ktap"
				printf ']'
			fi
			printf '}'
			sep=,
		done < "$RESULTS_TSV"
		printf '\n  ]\n}\n'
	} > "$RESULTS_ART/results.json"
}
