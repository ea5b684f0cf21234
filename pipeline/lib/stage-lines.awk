# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/stage-lines.awk: the stage lines of 'make -n -B TIER=... stages'
# (pipeline/stage-table: "pipeline/stage [--skip 'REASON'] NAME NEEDS... -- COMMAND #
# after: AFTER...; last: N s") as one tab-separated record a stage:
#
#   NAME  SKIPPED(0|1)  NEEDS  AFTER  LAST  INVOCATION
#
# NEEDS and AFTER are space-separated names ("-": none), LAST the seconds
# of the last run ("?": none), INVOCATION the pipeline/stage command line as make
# runs it.  The one reader of that output: pipeline/check --plan (the plan
# table) and pipeline/gitlab (the pipeline) format these records.
$1 ~ /pipeline\/stage$/ {
	i = 2
	skip = ($2 == "--skip")
	if (skip) { i = 4; while (i <= NF && $(i - 1) !~ /'$/) i++ }
	name = $i; needs = ""
	for (i++; i <= NF && $i != "--"; i++) needs = needs (needs ? " " : "") $i
	after = ""; last = "?"
	if (match($0, /# after: [^;]*;/)) after = substr($0, RSTART + 9, RLENGTH - 10)
	if (match($0, /last: [0-9?]+ s$/)) last = substr($0, RSTART + 6, RLENGTH - 8)
	inv = $0
	sub(/ # after: .*$/, "", inv)
	sub(/^[ \t]*/, "", inv)
	gsub(/  +/, " ", inv)
	printf "%s\t%d\t%s\t%s\t%s\t%s\n", name, skip, needs ? needs : "-",
		after ? after : "-", last, inv
}
