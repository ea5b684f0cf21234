# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/races.awk: pipeline/census's verdicts of a suite ('TEST<tab>CASE
# <tab>STATUS' on stdin, pipeline/results verdicts), "race" for an xfail
# whose every entry is a race's (XF: pipeline/results xfails of the same
# results.json).  With pipeline/lib/entries.awk.

function race_only(r,   arr, e, n) {
	n = entries(r, arr)
	for (e in arr)
		if (!race(e))
			return 0
	return n > 0
}

BEGIN {
	FS = OFS = "\t"
	while ((getline l < XF) > 0) {
		split(l, f, "\t")
		if (race_only(f[3]))
			raced[f[1] "\t" f[2]] = 1
	}
}

{
	if ($3 == "xfail" && (($1 "\t" $2) in raced))
		$3 = "race"
	print
}
