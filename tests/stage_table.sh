#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/stage_table.sh: the stage table (pipeline/stage-table) and what pipeline/stagegen
# makes of it: the generated files current, a stale one and each kind of
# bad row refused, every tier's plan the table's stages with rules for all
# they need, every command a program of the kit, and no second list of
# stages.  KTAP on stdout; exit 0 or 1.
set -eu
PROG=stage_table.sh
. "$(dirname "$0")/../ci/lib.sh"
. "$RXKIT_TOP/tests/lib.sh"
. "$RXKIT_TOP/tests/lib/stage_table.sh"

# In the manner of vmtest.sh: each test and what it checks.
readonly TEST_NAMES="current stale refuses plans group_order help_groups full_others commands runners inputs outputs carry one_list"
readonly TEST_DESCS="pipeline/stages.gen.mk and doc/pipeline.md's stage table are what the table makes:a changed row makes --check name the file it changes, and only that one:each kind of bad row is refused, naming its line:every tier of every target plans exactly the stages the table lists for it:in make GROUP, a stage waits for the same stages of that run (the group's and what they need) as in check-full:make help lists each group once, every help in one column:a Full-others row runs for make's TARGET and in check-full, and is recorded skipped for another target in check:every stage's command is an executable of the kit:a stage has Runner privileged exactly when its command stops without root:every Consumes path is produced by a stage the consumer needs or waits for, and one that is not is named:pipeline/stage fails a passed stage that lacks a Produces path or wrote where none reaches, and passes one that made its own:a job carries its Produces of roles carried as artefacts and remakes what it consumes of the others, producers first, as pipeline/stagegen --carry and .gitlab-ci.yml say:no other file lists the stages (more than MAX_NAMES of them)"
# A file that names more stages than this restates the table (prose names
# a few; the old hand-kept lists named over 40).
readonly MAX_NAMES=16
# The files that may name every stage: the table, what is generated from
# it (checked current), the durations keyed by stage and the history.
readonly MAY_LIST="pipeline/stage-table pipeline/stages.gen.mk .gitlab-ci.yml pipeline/stage-times.ref CHANGELOG"

usage()
{
	cat <<USAGE
usage: tests/stage_table.sh [-l] [-t NAME]... [-T NAME]...

$(test_usage)
USAGE
}

suite_alone "$@"
work=$(mktemp -d "${TMPDIR:-/tmp}/rxkit-stage-table.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

test_current()
{
	"$RXKIT_TOP/pipeline/stagegen" --check 2>&1 | sed 's/^/# /'
	"$RXKIT_TOP/pipeline/stagegen" --check 2>/dev/null || return "$KSFT_FAIL"
	echo "# pipeline/stages.gen.mk and doc/pipeline.md are current"
}

test_stale()
{
	local rc="$KSFT_PASS"
	stale_one 's|^Nice: 15$|Nice: 19|' pipeline/stages.gen.mk || rc=$KSFT_FAIL
	stale_one 's|^Does: the slow-reader scenario$|Does: a slower reader|' doc/pipeline.md || rc=$KSFT_FAIL
	kit_copy
	"$work/kit/pipeline/stagegen" --check 2> "$work/err" || { echo "# the copy itself is stale"; rc=$KSFT_FAIL; }
	return "$rc"
}

# The bad rows: what is wrong, the awk that makes it of the table, what
# the refusal must say.
readonly BAD_ROWS='unknown field	{ print } /^Stage: rootfs$/ { print "Need: vm-image" }	stage-table:[0-9]*: unknown field .Need.
continuation outside a field	/^Stage: rootfs$/ { print " stray"; next } { print }	continuation line outside a field
unknown tier	{ sub(/^Tiers: check check-full$/, "Tiers: check full") } { print }	unknown tier .full.
stage twice	{ print } END { print ""; print "Stage: rootfs"; print "Command: true" }	rootfs declared twice
no command	/^Command: images\/mkrootfs$/ { next } { print }	stage rootfs has no Command
field twice	{ print } /^Stage: rootfs$/ { print "Tiers: run"; print "Tiers: check" }	field Tiers given twice
an unknown runner	{ sub(/^Runner: privileged$/, "Runner: kvm") } { print }	unknown runner .kvm.
a scheduled stage of a tier	{ print } /^Stage: rootfs$/ { print "Schedule: drift" }	stage rootfs: a Schedule is a word, for a stage of no tier
unknown predicate	{ sub(/^When: sockmap$/, "When: bpf") } { print }	unknown predicate .bpf.
a GitLab keyword	{ sub(/^Stage: rootfs$/, "Stage: stages") } { print }	stage stages: a GitLab keyword
an unknown GitLab stage	{ sub(/^Gitlab: verdict$/, "Gitlab: judge") } { print }	unknown GitLab stage .judge.
a quote in a skip reason	{ print } /^Stage: rootfs$/ { print "Full-others: the root\047s own" }	a quote in its Full-others reason
an undeclared role	{ sub(/^Produces: interdiff=/, "Produces: intrdiff=") } { print }	no role .intrdiff.
an unknown way to carry a role	{ sub(/^Carry: remake$/, "Carry: rsync") } { print }	unknown Carry .rsync.
a scheduled stage that checks documentation	{ print } /^Stage: drift-/ { print "Docs: README.md" }	Docs and a Schedule
the documentation named twice	{ print } END { print ""; print "Documentation: README.md" }	the documentation declared twice
a role no job gets consumed	{ print } /^Stage: rootfs$/ { print "Consumes: debug-packages=$RXKIT_OUT/x.deb" }	consumes debug-packages, which no job gets
an unknown job image	{ print } /^Stage: rootfs$/ { print "Image: alpine" }	unknown Image .alpine.
a predicate that lifts no Full	{ print } /^Stage: rootfs$/ { print "Full-unless: dkms" }	stage rootfs: Full-unless without a Full
a Full lifted by an unknown predicate	{ sub(/^Full-unless: dkms-debian12$/, "Full-unless: bookworm") } { print }	unknown predicate .bookworm.'

test_refuses()
{
	local rc="$KSFT_PASS" what= prog= want=
	while IFS='	' read -r what prog want; do
		refused "$what" "$prog" "$want" || rc=$KSFT_FAIL
	done <<ROWS
$BAD_ROWS
ROWS
	return "$rc"
}

test_plans()
{
	local rc="$KSFT_PASS" tier= t=
	for t in $(known_targets); do
		for tier in run check check-full; do
			if ! plan_of "$tier" "$t" > "$work/plan" 2> "$work/err"; then
				echo "# $tier $t: make -n failed"; sed 's/^/#   /' "$work/err"
				rc=$KSFT_FAIL; continue
			fi
			"$RXKIT_TOP/pipeline/stagegen" --list "$tier" "$t" | sort > "$work/want"
			if ! sort "$work/plan" | diff -u "$work/want" - > "$work/diff"; then
				echo "# $tier $t: the plan (+) is not the table's stages (-)"
				sed 's/^/#   /' "$work/diff"; rc=$KSFT_FAIL
			else
				echo "# $tier $t: $(wc -l < "$work/plan") stages, the table's"
			fi
		done
	done
	return "$rc"
}

test_group_order()
{
	local rc="$KSFT_PASS" g t n=0
	for t in $(known_targets); do
		afters TIER=check-full TARGET="$t" stages > "$work/full.after"
		for g in $(sed -n 's/^GROUPS := //p' "$RXKIT_TOP/pipeline/stages.gen.mk"); do
			group_order "$g" "$t" || rc=$KSFT_FAIL
			n=$((n + 1))
		done
	done
	echo "# $n group runs planned"
	return "$rc"
}

test_full_others()
{
	local rc="$KSFT_PASS" a b
	# A target that pins a Debian kernel ABI has dkms-boot-T, whose row
	# carries Full-others; any other target is B.
	a=$(dkms_targets | sed -n 1p)
	b=$(known_targets | tr " " "\n" | grep -vx "$a" | sed -n 1p)
	[ -n "$a" ] && [ -n "$b" ] ||
		{ SKIP_REASON="no DKMS target beside another target"; return "$KSFT_SKIP"; }
	full_others_case check "$b" "dkms-boot-$a" yes || rc=$KSFT_FAIL
	full_others_case check "$a" "dkms-boot-$a" no || rc=$KSFT_FAIL
	full_others_case check-full "$b" "dkms-boot-$a" no || rc=$KSFT_FAIL
	return "$rc"
}

# The program of each row's Command: the word after env's settings and
# pipeline/under-load.
test_commands()
{
	local rc="$KSFT_PASS" p= n=0
	awk '/^[^ \t]/ { cmd = "" } /^Command:/ { cmd = substr($0, 10) }
	     /^[ \t]/ && cmd != "" { cmd = cmd " " $0 }
	     /^$/ && cmd != "" { print cmd; cmd = "" }
	     END { if (cmd != "") print cmd }' "$RXKIT_TOP/pipeline/stage-table" | awk '
		{
			n = split($0, w, " ")
			for (i = 1; i <= n; i++) {
				if (w[i] == "nice" || w[i] == "env" || w[i] == "pipeline/under-load") continue
				if (w[i] ~ /^-n$/) { i++; continue }
				if (w[i] ~ /=/) continue
				print w[i]; break
			}
		}' | sort -u > "$work/progs"
	while read -r p; do
		n=$((n + 1))
		[ -x "$RXKIT_TOP/$p" ] || { echo "# $p: not an executable of the kit"; rc=$KSFT_FAIL; }
	done < "$work/progs"
	[ "$n" -gt 20 ] || { echo "# only $n programs read: the table was not parsed"; rc=$KSFT_FAIL; }
	echo "# $n programs, every one an executable of the kit"
	return "$rc"
}

# A command that stops without root (the packages' pkg_need_root, or an
# "id -u" test that dies) asks for the privileged runner, and only such a
# command: its GitLab job is tagged for it.
test_runners()
{
	local rc="$KSFT_PASS" prog= runner= root= n=0
	awk '/^$/ { if (cmd != "") print cmd "\t" (run == "" ? "-" : run); cmd = run = "" }
	     /^[^ \t]/ { f = "" } /^Command:/ { cmd = substr($0, 10); f = "c" }
	     /^[ \t]/ && f == "c" { cmd = cmd " " $0 }
	     /^Runner:/ { run = $2 }
	     END { if (cmd != "") print cmd "\t" (run == "" ? "-" : run) }' "$RXKIT_TOP/pipeline/stage-table" |
		awk -F '\t' '{ n = split($1, w, " ")
			for (i = 1; i <= n; i++) {
				if (w[i] == "nice" || w[i] == "env" || w[i] == "pipeline/under-load") continue
				if (w[i] ~ /^-n$/) { i++; continue }
				if (w[i] ~ /=/) continue
				print w[i] "\t" $2; break
			} }' | sort -u > "$work/runners"
	while IFS='	' read -r prog runner; do
		n=$((n + 1))
		root=-
		grep -Eq '^[[:space:]]*pkg_need_root$|id -u\)" = 0 \] \|\| die' "$RXKIT_TOP/$prog" && root=privileged
		[ "$root" = "$runner" ] && continue
		echo "# $prog: Runner $runner in pipeline/stage-table, but it $([ "$root" = - ] && echo runs || echo stops) without root"
		rc=$KSFT_FAIL
	done < "$work/runners"
	echo "# $n commands, $(grep -c 'privileged$' "$work/runners") of them on the privileged runner"
	[ "$n" -gt 20 ] && grep -q 'privileged$' "$work/runners" || rc=$KSFT_FAIL
	return "$rc"
}

test_inputs()
{
	local rc="$KSFT_PASS"
	if ! "$RXKIT_TOP/pipeline/stagegen" --inputs > "$work/inputs"; then
		sed 's/^/# /' "$work/inputs"
		rc=$KSFT_FAIL
	else
		echo "# every Consumes path is made by a stage before its consumer"
	fi
	# The check itself: rootfs reading a kernel no stage before it makes.
	kit_copy
	awk '{ print } /^Stage: rootfs$/ { print "Consumes: kernel=$RXKIT_CACHE/src/7.3/patched/o-guest" }' \
		"$RXKIT_TOP/pipeline/stage-table" > "$work/kit/pipeline/stage-table"
	if "$work/kit/pipeline/stagegen" --inputs > "$work/inputs" ||
	   ! grep -q '^rootfs consumes .*/src/7.3/patched/o-guest/rxkit-tests, which none' "$work/inputs"; then
		echo "# a rootfs that reads a kernel was not named:"; sed 's/^/#   /' "$work/inputs"
		rc=$KSFT_FAIL
	else
		sed 's/^/# /' "$work/inputs"
	fi
	return "$rc"
}

# CARRY: lines of pipeline/stagegen --carry for target T that must be
# there ("JOB<TAB>WHAT<TAB>...", T for the target), each with why.
readonly CARRY='build-T-patched	artefact	.rxkit-cache/src/T/patched/o-guest/rxkit-tests	a build carries its test payload
build-T-patched	artefact	.rxkit-cache/src/T/patched/o-guest/usr/include	and its UAPI headers
loopback-T-patched	artefact	out/T/patched/loopback	a suite carries the folder of its results.json
prepare-T	remake	fetch-T	-	ci/fetch T	the prepare job unpacks the source again
build-T-patched	remake	prepare-T	-	ci/prepare T	a build prepares its tree again
packages-boot-T	remake	vm-image	privileged	images/mkimage	a VM suite makes its image again'

test_carry()
{
	local t="$RXKIT_TARGET" rc="$KSFT_PASS" line= want= why=
	"$RXKIT_TOP/pipeline/stagegen" --carry > "$work/carry" ||
		{ echo "# pipeline/stagegen --carry failed"; return "$KSFT_FAIL"; }
	while IFS= read -r line; do
		want=$(printf '%s\n' "${line%	*}" | sed "s/-T\b/-$t/g; s|/T/|/$t/|g; s/ T\$/ $t/")
		why=${line##*	}
		grep -qxF -- "$want" "$work/carry" || { echo "# not carried ($why): $want"; rc=$KSFT_FAIL; }
	done <<ROWS
$CARRY
ROWS
	# Producers first: fetch before prepare in a build's script, and no
	# tree among the artefacts of any job.
	if [ "$(awk -F '\t' -v j="build-$t-patched" '$1 == j && $2 == "remake" { print $3 }' "$work/carry" | tr '\n' ' ')" != "fetch-$t prepare-$t " ]; then
		echo "# build-$t-patched does not remake fetch-$t, then prepare-$t"; rc=$KSFT_FAIL
	fi
	if grep -E "	artefact	.*/src/[^/]+/(pristine|patched|baseline)/?\$" "$work/carry"; then
		echo "# a source tree is carried as an artefact (above)"; rc=$KSFT_FAIL
	fi
	# .gitlab-ci.yml says the same: a VM suite that remakes its image is
	# tagged for a privileged runner.
	awk -v j="packages-boot-$t:" '$0 == j { on = 1; next } /^[^ ]/ { on = 0 } on' \
		"$RXKIT_TOP/.gitlab-ci.yml" > "$work/job"
	grep -qx '  tags: \[rxkit-privileged\]' "$work/job" && grep -qxF "    - 'images/mkimage'" "$work/job" ||
		{ echo "# packages-boot-$t's job does not remake its image on a privileged runner"; rc=$KSFT_FAIL; }
	[ "$rc" != "$KSFT_PASS" ] || echo "# $(wc -l < "$work/carry") lines; the build, suite and remake rules hold for $t"
	return "$rc"
}

test_outputs()
{
	local rc="$KSFT_PASS" res=
	rm -rf "$work/o"
	mkdir -p "$work/o"
	res="$work/o/6.1/patched/loopback/results.json"
	outputs_case loopback-6.1-patched fail "passed without making $res" true || rc=$KSFT_FAIL
	outputs_case loopback-6.1-patched pass "made its results" \
		sh -c 'mkdir -p "${1%/*}" && echo "{}" > "$1"' sh "$res" || rc=$KSFT_FAIL
	outputs_case loopback-6.1-patched fail "wrote $work/o/stray, where no stage" \
		sh -c 'touch "$1" "$2"' sh "$res" "$work/o/stray" || rc=$KSFT_FAIL
	outputs_case no-such-stage pass "no row: not checked" true || rc=$KSFT_FAIL
	return "$rc"
}

test_one_list()
{
	local rc="$KSFT_PASS" f= n= files=0
	# Names with a dash: "static" or "pipeline" are words of prose too.
	"$RXKIT_TOP/pipeline/stagegen" --names | grep -- - > "$work/names"
	# The check itself: a hand-kept list is caught.
	printf 'one.x := %s\n' "$(head -n "$((MAX_NAMES + 1))" "$work/names" | tr '\n' ' ')" > "$work/list.mk"
	n=$(names_in "$work/list.mk")
	[ "$n" -gt "$MAX_NAMES" ] || { echo "# a list of $((MAX_NAMES + 1)) stages counted $n"; rc=$KSFT_FAIL; }
	for f in $(cd "$RXKIT_TOP" && git ls-files); do
		case " $MAY_LIST " in *" $f "*) continue ;; esac
		case "$f" in patches/*|series/*/*.patch|tests/fixtures/*) continue ;; esac
		[ -f "$RXKIT_TOP/$f" ] || continue
		files=$((files + 1))
		n=$(names_in "$RXKIT_TOP/$f")
		[ "$n" -le "$MAX_NAMES" ] || { echo "# $f names $n stages: a second list (pipeline/stage-table is the one)"; rc=$KSFT_FAIL; }
	done
	echo "# $files files read, none names more than $MAX_NAMES stages"
	return "$rc"
}

# shellcheck disable=SC2086
run_tests $TESTS
