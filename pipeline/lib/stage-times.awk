# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/stage-times.awk: the durations of stages, for pipeline/gitlab (job
# timeouts, the wall-time estimate).  Functions only; the caller sets
# TARGETS (the known targets, space-separated).

# load_times(FILE): TIMES[NAME] from FILE's "last.NAME := SECONDS" lines
# (the format of $RXKIT_OUT/stage-times.mk); a name already known keeps
# its value, so the first file read wins.
function load_times(file,   line, w, n) {
	while ((getline line < file) > 0) {
		if (line !~ /^last\.[^ ]+ := [0-9]+$/)
			continue
		split(line, w, " ")
		n = substr(w[1], 6)
		if (!(n in TIMES))
			TIMES[n] = w[3] + 0
	}
	close(file)
}

# generic(NAME): NAME with its target (a word of TARGETS between dashes or
# at the end) written T: build-6.12-patched -> build-T-patched.
function generic(name,   w, n, i, t, at) {
	n = split(TARGETS, w, " ")
	for (i = 1; i <= n; i++) {
		t = w[i]
		at = index(name, "-" t "-")
		if (at)
			return substr(name, 1, at) "T" substr(name, at + length(t) + 1)
		if (substr(name, length(name) - length(t)) == "-" t)
			return substr(name, 1, length(name) - length(t)) "T"
	}
	return name
}

# duration(NAME): its measured seconds; else the longest of the same stage
# of another target (DURATION_HOW says which: "measured", "like NAME" or
# "unmeasured"); -1 when neither is known.
function duration(name,   g, n, best, bname) {
	if (name in TIMES) {
		DURATION_HOW = "measured"
		return TIMES[name]
	}
	g = generic(name)
	best = -1
	for (n in TIMES)
		if (g != name && generic(n) == g && TIMES[n] > best) {
			best = TIMES[n]
			bname = n
		}
	DURATION_HOW = best < 0 ? "unmeasured" : "like " bname
	return best
}

# longest(NAME): the longest measured duration of NAME's stage on any
# target (a timeout must hold a cold build where another target's was
# measured cold); -1 when none is known.
function longest(name,   g, n, best) {
	g = generic(name)
	best = (name in TIMES) ? TIMES[name] : -1
	for (n in TIMES)
		if (generic(n) == g && TIMES[n] > best)
			best = TIMES[n]
	return best
}
