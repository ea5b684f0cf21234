# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/entries.awk: the known-defect entries of an XFAIL reason, as
# tests/lib/known.sh writes them ("REASON [TREES] {N}", joined by "; ";
# a race's REASON begins "race: ").  Loaded with -f before the program
# that calls it: pipeline/lib/ab-verdict.awk, pipeline/lib/races.awk.

# entries(REASON, ARR): ARR["TEXT [TREES]"] = N of each entry; how many.
function entries(r, arr,    n, t, key, cnt) {
	n = 0
	while (match(r, / \[[a-z0-9@.,]+\] \{[0-9]+\}/)) {
		t = substr(r, RSTART, RLENGTH)
		cnt = t
		sub(/.*\{/, "", cnt)
		sub(/\}$/, "", t)
		sub(/ \{[0-9]+$/, "", t)
		key = substr(r, 1, RSTART - 1) t
		arr[key] = cnt + 0
		n++
		r = substr(r, RSTART + RLENGTH)
		sub(/^; /, "", r)
	}
	return n
}

# race(ENTRY): true when ENTRY (a key of entries()) is a race's.
function race(e) { return substr(e, 1, 6) == "race: " }
