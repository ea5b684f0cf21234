# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/schedule.awk: the wall time of the stage graph (records of
# pipeline/lib/stage-lines.awk on stdin; every NEEDS and AFTER an edge) from the
# durations of TIMESFILES (space-separated, the first that has a stage
# wins; pipeline/lib/stage-times.awk): each job's duration, the critical path,
# and the wall time with RUNNERS (space-separated counts) by list
# scheduling: whenever a runner is free it takes the ready job with the
# longest path to the end.  BUDGET: a job's budget in seconds.

function hms(s) {
	return sprintf("%d:%02d:%02d", s / 3600, (s % 3600) / 60, s % 60)
}

# level(I): I's duration plus the longest level of the jobs waiting for it.
function level(i,   k, m, l) {
	if (i in lvl)
		return lvl[i]
	m = 0
	for (k = 1; k <= nsucc[i]; k++) {
		l = level(succ[i, k])
		if (l > m) { m = l; nxt[i] = succ[i, k] }
	}
	return lvl[i] = dur[i] + m
}

# makespan(R): the wall time of the graph on R runners.
function makespan(r,   i, k, free, now, done, best, bi, end, running, left) {
	for (i = 1; i <= n; i++) {
		left[i] = npred[i]
		end[i] = -1
	}
	free = r; now = 0; done = 0
	while (done < n) {
		for (;;) {
			best = -1
			if (free > 0)
				for (i = 1; i <= n; i++)
					if (end[i] < 0 && left[i] == 0 && !(i in running) && lvl[i] > best) {
						best = lvl[i]; bi = i
					}
			if (best < 0)
				break
			running[bi] = now + dur[bi]
			free--
		}
		best = -1
		for (i in running)
			if (best < 0 || running[i] < best) { best = running[i]; bi = i }
		now = best
		for (i = 1; i <= n; i++)
			if ((i in running) && running[i] == now) {
				end[i] = now
				delete running[i]
				free++
				done++
				for (k = 1; k <= nsucc[i]; k++)
					left[succ[i, k]]--
			}
	}
	return now
}

BEGIN {
	FS = "\t"
	nf = split(TIMESFILES, f, " ")
	for (i = 1; i <= nf; i++)
		load_times(f[i])
}

{
	n++
	name[n] = $1
	id[$1] = n
	deps[n] = ($3 == "-" ? "" : $3) " " ($4 == "-" ? "" : $4)
}

END {
	printf "%-30s %8s  %s\n", "JOB", "SECONDS", "FROM"
	for (i = 1; i <= n; i++) {
		dur[i] = duration(name[i])
		how = DURATION_HOW
		if (dur[i] < 0) {
			dur[i] = 0
			unknown = unknown " " name[i]
		}
		total += dur[i]
		printf "%-30s %8s  %s%s\n", name[i], how == "unmeasured" ? "?" : dur[i], how,
			(dur[i] > BUDGET ? " (over the " BUDGET / 60 "-minute budget)" : "")
		nd = split(deps[i], d, " ")
		for (k = 1; k <= nd; k++) {
			if (!(d[k] in id)) {
				printf "schedule: error: %s waits for %s, no stage of the graph\n",
					name[i], d[k] > "/dev/stderr"
				exit 1
			}
			p = id[d[k]]
			succ[p, ++nsucc[p]] = i
			npred[i]++
		}
	}
	cp = 0
	for (i = 1; i <= n; i++)
		if (level(i) > cp) { cp = lvl[i]; head = i }
	printf "\n%d jobs, %s of job time in all\n", n, hms(total)
	if (unknown != "")
		printf "not measured (counted as 0 s):%s\n", unknown
	printf "critical path: %s\n ", hms(cp)
	for (i = head; i != ""; i = nxt[i])
		printf " %s (%d s)%s", name[i], dur[i], (i in nxt) ? " ->" : "\n"
	nr = split(RUNNERS, r, " ")
	for (k = 1; k <= nr; k++)
		printf "wall time with %d runner%s: %s\n", r[k], (r[k] > 1 ? "s" : " "), hms(makespan(r[k]))
}
