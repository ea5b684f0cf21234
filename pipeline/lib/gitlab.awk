# SPDX-License-Identifier: GPL-2.0
# pipeline/lib/gitlab.awk: the jobs of .gitlab-ci.yml from the stage records of
# pipeline/lib/stage-lines.awk (stdin), one job a stage: its GitLab stage
# (STAGEMAP: pipeline/stagegen --gitlab-stages, with its runner's tag), needs (its
# NEEDS and AFTER), timeout (three times the longest the stage took on any
# target in TIMESFILE, 10 minutes at least, BUDGET seconds at most) and its
# script's (SPARE minutes less), the pipeline/stage command make runs
# after the stages it runs again first, its artefacts and what it uploads
# to the package registry instead (CARRYFILE: pipeline/stagegen --carry,
# from the table's Produces and roles), the
# ccache of a build and the source archives of a fetch.  Refuses a graph
# whose needs name no stage or a stage of a later GitLab stage.  Run by
# pipeline/gitlab with pipeline/lib/stage-times.awk; TARGETS: the known
# targets.

function fail(msg) {
	printf "gitlab: error: %s\n", msg > "/dev/stderr"
	failed = 1
	exit 1
}

# glob(PATTERN): a stage name or shell pattern of STAGEMAP as an anchored
# regex.
function glob(p) {
	gsub(/\./, "\\.", p)
	gsub(/\*/, ".*", p)
	gsub(/\?/, ".", p)
	return "^" p "$"
}

function gstage(name,   i) {
	for (i = 1; i <= nmap; i++)
		if (name ~ mre[i]) {
			mrunner = mrun[i]
			msched = msch[i]
			mdocs = mdoc[i]
			mimage = mimg[i]
			return mstage[i]
		}
	fail(STAGEMAP ": no line matches stage " name " (pipeline/stage-table: its Gitlab)")
}

# cmd_of(LINE): the command of a pipeline/stage line (after its --).
function cmd_of(line,   w) {
	sub(/^.* -- /, "", line)
	sub(/^nice -n [0-9]+ /, "", line)
	split(line, w, " ")
	return w[1]
}

# q(S): S as a single-quoted YAML scalar.
function q(s) {
	gsub(/'/, "''", s)
	return "'" s "'"
}

# target_of(CMD): the last word of CMD when it is a target, else "".
function target_of(cmd,   w, n, i, t) {
	n = split(cmd, w, " ")
	split(TARGETS, t, " ")
	for (i in t)
		if (w[n] == t[i])
			return w[n]
	return ""
}

# opt(CMD, OPTION, DEFAULT): the word after OPTION in CMD.
function opt(cmd, o, d,   w, n, i) {
	n = split(cmd, w, " ")
	for (i = 1; i < n; i++)
		if (w[i] == o)
			return w[i + 1]
	return d
}

# caches(COMMANDS, TARGET, FLAVOUR): the caches of a job whose commands
# (its own and those it runs again first) are COMMANDS: the verified
# source archives of ci/fetch (one download a target, reused by pin), the
# ccache of a build, by target and flavour, and the Debian roots and VM
# images, keyed by the programs that make them (each file in them is
# named by its own content key: a stale one is not used); in every job,
# the npm tools of ci/deps (it installs them again when their lock
# changed).
function caches(cmds, target, flavour) {
	printf "  cache:\n    - key: npm-tools\n      paths: [%s/npm/]\n", CACHE_REL
	if (cmds ~ /images\/mk(rootfs|image)( |$)/)
		printf "    - key:\n        files: [images/mkrootfs, images/mkimage]\n        prefix: roots\n      paths: [%s/rootfs/, %s/image/]\n", CACHE_REL, CACHE_REL
	if (cmds ~ /ci\/fetch /)
		printf "    - key: sources-%s\n      paths: [%s/dl/]\n", target, CACHE_REL
	if (cmds ~ /ci\/build /)
		printf "    - key: ccache-%s-%s\n      paths: [%s/ccache/]\n", target, flavour, CACHE_REL
}

BEGIN {
	FS = "\t"
	# Minutes of a job's timeout kept from its script: the runner's start
	# and the after_script (RUNNER_AFTER_SCRIPT_TIMEOUT, the defaults').
	SPARE = 5
	split("fetch prepare build test package verdict .post", order, " ")
	for (i = 1; i <= 7; i++)
		rank[order[i]] = i
	while ((getline line < STAGEMAP) > 0) {
		if (line ~ /^[ \t]*(#|$)/)
			continue
		split(line, w, " ")
		if (!(w[2] in rank))
			fail(STAGEMAP ": unknown GitLab stage '" w[2] "'")
		mre[++nmap] = glob(w[1])
		mstage[nmap] = w[2]
		mrun[nmap] = (w[3] == "" ? "-" : w[3])
		msch[nmap] = (w[4] == "" ? "-" : w[4])
		mdoc[nmap] = (w[5] == "" ? "-" : w[5])
		mimg[nmap] = (w[6] == "" ? "-" : w[6])
	}
	close(STAGEMAP)
	# What each job carries (pipeline/stagegen --carry): its artefacts,
	# and the stages it runs again first (their runner, their command).
	while ((getline line < CARRYFILE) > 0) {
		split(line, w, "\t")
		if (w[2] == "artefact")
			arts[w[1]] = arts[w[1]] "      - " w[3] "\n"
		else if (w[2] == "registry") {
			excl[w[1]] = excl[w[1]] "      - " w[3] "\n"
			upl[w[1]] = upl[w[1]] " " w[3]
		}
		else if (w[2] == "remake") {
			remk[w[1]] = remk[w[1]] "    - " q(w[5]) "\n"
			remade[w[1]] = remade[w[1]] " " w[5]
			if (w[4] != "-")
				rpriv[w[1]] = w[4]
		}
	}
	close(CARRYFILE)
	load_times(TIMESFILE)
}

{
	n++
	name[n] = $1; needs[n] = $3; after[n] = $4; inv[n] = $6
	known[$1] = n
}

END {
	if (failed)
		exit 1
	if (!n)
		fail("no stage lines in make's plan")
	for (i = 1; i <= n; i++) {
		gs[i] = gstage(name[i])
		runner[i] = mrunner
		sched[i] = msched
		docs[i] = mdocs
		image[i] = mimage
		if (mimage == "base")
			imagejob = name[i]
		deps = (needs[i] == "-" ? "" : needs[i]) " " (after[i] == "-" ? "" : after[i])
		nd = split(deps, d, " ")
		for (k = 1; k <= nd; k++) {
			if (!(d[k] in known))
				fail("stage " name[i] " needs " d[k] ", which is no stage of the graph")
			if (gs[i] != ".post" && rank[gs[known[d[k]]]] > rank[gs[i]])
				fail("stage " name[i] " (GitLab stage " gs[i] ") needs " d[k] \
				     " of the later GitLab stage " gs[known[d[k]]])
		}
	}
	printf "stages: [fetch, prepare, build, test, package, verdict]\n"
	for (i = 1; i <= n; i++) {
		t = duration(name[i])
		how = DURATION_HOW
		tmo = longest(name[i])
		tmo = tmo < 0 ? BUDGET : 3 * tmo
		if (tmo < 600) tmo = 600
		if (tmo > BUDGET) tmo = BUDGET
		cmd = inv[i]
		sub(/^pipeline\/stage /, "pipeline/stage --exit ", cmd)
		target = target_of(cmd)
		printf "\n# %s: %s\n", name[i], t < 0 ? "not measured yet" : \
			"last " t " s" (how == "measured" ? "" : " (" how ")")
		if (longest(name[i]) > BUDGET)
				printf "# as measured here (this stage on some target) over the %d-minute budget of a job\n", BUDGET / 60
		# No tag for KVM: the guests fall back to TCG, the nested host
		# to an L1 guest.
		if (cmd ~ /tests\/vsock_vhost_vsock\.sh/)
			printf "# runner: /dev/vhost-vsock (else an L1 guest is the host) and /dev/kvm (else TCG) speed it up\n"
		else if (cmd ~ /(tests\/(vsock_[a-z_]+|packages_deb|packages_rpm)|bench\/bench)\.sh/)
			printf "# runner: /dev/kvm speeds its guests up (else TCG)\n"
		printf "%s:\n  extends: .rxkit\n  stage: %s\n", name[i], gs[i]
		if (gs[i] != ".post") {
			deps = (needs[i] == "-" ? "" : needs[i]) " " (after[i] == "-" ? "" : after[i])
			# A job of no need waits for the image every job runs in.
			if (deps ~ /^ *$/ && imagejob != "" && image[i] != "base")
				deps = imagejob
			nd = split(deps, d, " ")
			# A Docs job runs where its needs may not (a change of
			# documentation alone).
			printf "  needs: ["
			for (k = 1; k <= nd; k++)
				printf (docs[i] == "-" ? "%s%s" : "%s{job: %s, optional: true}"), (k > 1 ? ", " : ""), d[k]
			printf "]\n"
		}
		# A job that runs a privileged stage again first needs its runner.
		if (runner[i] == "-" && name[i] in rpriv)
			runner[i] = rpriv[name[i]]
		if (runner[i] != "-")
			printf "  tags: [rxkit-%s]\n", runner[i]
		# A scheduled stage's job: its schedule's pipelines alone, where
		# the others do not run (pipeline/gitlab-ci.defaults.yml).
		if (sched[i] != "-")
			printf "  rules:\n    - if: $CI_PIPELINE_SOURCE == \"schedule\" && $RXKIT_SCHEDULE == \"%s\"\n      when: always\n", sched[i]
		# The job that makes the job image: in Debian's own image, with
		# the packages its command names, in every pipeline.
		else if (image[i] == "base")
			printf "  image: debian:bookworm\n  before_script:\n    - apt-get update -q\n    - %s\n  rules:\n    - when: always\n", \
				q("apt-get install -y -q --no-install-recommends $(" cmd_of(cmd) " --needs)")
		# A Docs job: on every change, documentation alone too (the
		# others: on a change of .rxkit-code's files, the defaults').
		else if (docs[i] != "-")
			printf "  rules:\n    - if: $RXKIT_SCHEDULE\n      when: never\n    - when: always\n"
		# The script stops SPARE minutes before the job does, so that
		# the after_script still writes the JUnit report.
		tmin = int((tmo + 59) / 60)
		printf "  timeout: %d minutes\n", tmin
		printf "  variables:\n    RUNNER_SCRIPT_TIMEOUT: %dm\n", tmin - SPARE
		# First the stages that make what it consumes of the roles too
		# large to carry (pipeline/stage-table: Carry remake).
		printf "  script:\n%s    - %s\n", remk[name[i]], q(cmd)
		# What no job reads and is too large for artefacts: to the
		# project's package registry (pipeline/stage-table: Carry registry).
		if (name[i] in upl)
			printf "    - %s\n", q("pipeline/registry" upl[name[i]])
		caches(cmd remade[name[i]], target, opt(cmd, "--flavour", "guest"))
		printf "  artifacts:\n    paths:\n"
		printf "      - %s/check/%s.json\n      - %s/check/%s.log\n", OUT_REL, name[i], OUT_REL, name[i]
		printf "      - %s/junit/%s.xml\n", OUT_REL, name[i]
		printf "%s", arts[name[i]]
		if (name[i] in excl)
			printf "    exclude:\n%s", excl[name[i]]
		printf "    reports:\n      junit: %s/junit/%s.xml\n", OUT_REL, name[i]
	}
}
