# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The helpers of tests/stage_table.sh: a copy of the kit to change rows in,
# the plans make prints, the stages a run records.  Sourced by that suite.
# shellcheck disable=SC2154 # work, target: the suite's

# kit_copy: what pipeline/stagegen reads and writes, in $work/kit.
kit_copy()
{
	rm -rf "$work/kit"
	mkdir -p "$work/kit/pipeline/lib" "$work/kit/doc"
	cp "$RXKIT_TOP/pipeline/stagegen" "$RXKIT_TOP/pipeline/stage-table" "$RXKIT_TOP/pipeline/stages.gen.mk" "$work/kit/pipeline/"
	cp "$RXKIT_TOP/pipeline/lib/stagetable.py" "$RXKIT_TOP/pipeline/lib/stagedoc.py" \
		"$RXKIT_TOP/pipeline/lib/stagecarry.py" "$RXKIT_TOP/pipeline/lib/stagechanges.py" "$work/kit/pipeline/lib/"
	cp "$RXKIT_TOP/doc/pipeline.md" "$work/kit/doc/"
	cp -r "$RXKIT_TOP/series" "$work/kit/series"
}

# stale_one SED WANT: --check after SED on the table's copy fails naming
# WANT (and no other generated file).
stale_one()
{
	local rc=0
	kit_copy
	sed -i "$1" "$work/kit/pipeline/stage-table"
	"$work/kit/pipeline/stagegen" --check 2> "$work/err" || rc=$?
	if [ "$rc" != 1 ] || ! grep -q "error: $2 is not what" "$work/err" ||
	   [ "$(grep -c 'is not what' "$work/err")" != 1 ]; then
		echo "# after '$1': exit $rc (expected 1, naming $2 alone)"
		sed 's/^/#   /' "$work/err"
		return 1
	fi
	echo "# after '$1': $(cat "$work/err")"
}

# refused NAME AWK WANT: the table's copy edited by AWK is refused with
# exit 2 and a message matching WANT.
refused()
{
	local rc=0
	kit_copy
	awk "$2" "$RXKIT_TOP/pipeline/stage-table" > "$work/kit/pipeline/stage-table"
	"$work/kit/pipeline/stagegen" --mk > /dev/null 2> "$work/err" || rc=$?
	if [ "$rc" != 2 ] || ! grep -q -- "$3" "$work/err"; then
		echo "# $1: exit $rc (expected 2 and '$3')"
		sed 's/^/#   /' "$work/err"
		return 1
	fi
	echo "# $1: $(cat "$work/err")"
}

# plan_of TIER TARGET: the stage names of make -n's plan, in its order.
plan_of()
{
	MAKEFLAGS= MAKELEVEL= make -s -C "$RXKIT_TOP" -n -B TIER="$1" TARGET="$2" RXKIT_OUT="$work/out" stages |
		sed -n "s/^pipeline\/stage --skip '[^']*' \([^ ]*\) -- .*/\1/p; t; s/^pipeline\/stage \([^ -][^ ]*\) .*/\1/p"
}

# skipped_in TIER TARGET: the stages make -n records as skipped.
skipped_in()
{
	MAKEFLAGS= MAKELEVEL= make -s -C "$RXKIT_TOP" -n -B TIER="$1" TARGET="$2" RXKIT_OUT="$work/out" stages |
		sed -n "s/^pipeline\/stage --skip '[^']*' \([^ ]*\) -- .*/\1/p"
}

# full_others_case TIER TARGET STAGE WANT: STAGE is skipped (WANT=yes) or
# runs (no) in TIER for TARGET.
full_others_case()
{
	local got=no
	skipped_in "$1" "$2" | grep -qx "$3" && got=yes
	echo "# $1 TARGET=$2: $3 skipped: $got (want $4)"
	[ "$got" = "$4" ]
}

# stage_in OUT NAME COMMAND...: pipeline/stage NAME's status with RXKIT_OUT=OUT.
stage_in()
{
	local out=$1 name=$2
	shift 2
	RXKIT_OUT=$out RXKIT_RESULTS=$out/check "$RXKIT_TOP/pipeline/stage" "$name" -- "$@" > "$work/stage.out" 2>&1 || :
	"$RXKIT_TOP/pipeline/results" status "$out/check/$name.json"
}

# outputs_case NAME WANT WHY COMMAND...: pipeline/stage NAME COMMAND gives WANT.
outputs_case()
{
	local name=$1 want=$2 why=$3 got=
	shift 3
	got=$(stage_in "$work/o" "$name" "$@")
	if [ "$got" != "$want" ] || { [ "$want" = fail ] && ! grep -q -- "$why" "$work/o/check/$name.log"; }; then
		echo "# $name $*: $got (expected $want: $why)"; sed 's/^/#   /' "$work/stage.out"
		return 1
	fi
	echo "# $name: $got ($why)"
}

# names_in FILE: how many stages FILE names (doc/pipeline.md without its
# generated table).
names_in()
{
	sed '/^<!-- stages: generated/,/^<!-- end of stages -->/d' "$1" |
		grep -owF -f "$work/names" | sort -u | wc -l
}

# afters MAKE-ARG...: "STAGE<TAB>AFTER..." of each stage make -n -B plans
# (its "# after:" list, "-" for none).
afters()
{
	MAKEFLAGS= MAKELEVEL= make -s -C "$RXKIT_TOP" -n -B RXKIT_OUT="$work/out" "$@" 2> /dev/null |
		sed -n 's/^pipeline\/stage \([^ -][^ ]*\) .* # after: \(.*\); last: .*/\1\t\2/p'
}

# group_order GROUP TARGET: a stage of make GROUP waits for the same
# stages of that run (its members and what they need) as in check-full
# (afters of TARGET's check-full in $work/full.after), counting the
# stages of both; false, with the differences, otherwise.
group_order()
{
	afters TARGET="$2" "$1" > "$work/group.after"
	awk -F '\t' -v g="$1" -v t="$2" '
		function pick(s,    n, i, w, o) {
			n = split(s, w, " "); o = ""
			for (i = 1; i <= n; i++) if ((w[i] in run) && (w[i] in full)) o = o " " w[i]
			return o
		}
		FNR == NR { full[$1] = 1; fa[$1] = $2; next }
		{ run[$1] = 1; ga[$1] = $2 }
		END {
			for (s in ga) {
				if (!(s in full)) continue
				if (pick(fa[s]) != pick(ga[s])) {
					printf "# make %s TARGET=%s: %s waits for%s, in check-full for%s\n", g, t, s, pick(ga[s]), pick(fa[s])
					bad = 1
				}
			}
			exit bad
		}' "$work/full.after" "$work/group.after"
}

# test_help_groups: make help lists each group of the table once, its
# help beside it, every help starting in one column (the longest name's).
test_help_groups()
{
	MAKEFLAGS= MAKELEVEL= make -s -C "$RXKIT_TOP" help > "$work/help" 2> "$work/help.err" ||
		{ sed 's/^/# /' "$work/help.err"; return "$KSFT_FAIL"; }
	sed -n 's/^Group: //p' "$RXKIT_TOP/pipeline/stage-table" |
		awk 'FNR == NR { want[$1] = 1; n++; next }
			/^  [a-z]/ && ($1 in want) {
				seen[$1]++
				col[match($0, /[^ ]  *[^ ]/) + RLENGTH - 1]++
			}
			END {
				for (g in want)
					if (seen[g] != 1) { printf "# group %s listed %d times\n", g, seen[g]; bad = 1 }
				for (c in col) k++
				if (k != 1) { printf "# the helps start in %d columns\n", k; bad = 1 }
				if (!bad) printf "# %d groups, their helps in one column\n", n
				exit bad
			}' - "$work/help" || return "$KSFT_FAIL"
}
