# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The known kernel defects a sockmap case fails as (tests/data/
# sockmap-defects): XFAIL, with how many of the case's violations each
# entry matched, which pipeline/ab-verdict compares between the trees.
# Sourced by tests/lib.sh.

readonly SOCKMAP_DEFECTS="$RXKIT_TOP/tests/data/sockmap-defects"

# known_defects [--ran] LOG KTAP TREE TARGET [LIST]: KTAP (a job's cases,
# ktap_from_harness) with each case that failed as the known defects of
# LIST (default tests/data/sockmap-defects) for TREE of TARGET (a TREES
# item TREE, or TREE@TARGET) say made "ok N CASE # XFAIL REASONS":
# the case printed a "# not as written:" line in LOG (the harness's
# output), every such line matches the SIGNATURE of an entry whose CASES
# the case's name matches, the checker printed every violation it counted,
# and no expectation but the count of violations failed (REASONS: those
# entries', each with its TREES in brackets and how many lines it matched
# in braces, which pipeline/ab-verdict compares; a race's prefixed "race: ",
# which pipeline/census counts apart).  A listed case that passed,
# or failed otherwise, gets a diagnostic line.  False when an entry
# matches no case that ran (stale) or LIST is malformed; with --ran (a
# job that runs some of the cases), an entry whose cases did not run is
# not judged, and says so.
known_defects()
{
	local ran=0
	[ "$1" != --ran ] || { ran=1; shift; }
	tr -d '\r' < "$1" | awk -v ktap="$2" -v tree="$3" -v target="$4" \
		-v list="${5:-$SOCKMAP_DEFECTS}" -v ran="$ran" '
		BEGIN {
			while ((getline l < list) > 0) {
				if (l ~ /^#/ || l !~ /[^ \t]/) continue
				if (split(l, f, "\t") != 5 || f[4] !~ /^(always|race)$/) {
					printf "    # %s: not CASES<TAB>TREES<TAB>SIGNATURE<TAB>always|race<TAB>REASON: %s\n", list, l
					bad = 1
					continue
				}
				if (!index("," f[2] ",", "," tree ",") &&
				    !index("," f[2] ",", "," tree "@" target ","))
					continue
				n++
				cre[n] = "^(" f[1] ")$"
				sig[n] = f[3]
				why[n] = (f[4] == "race" ? "race: " : "") f[5] " [" f[2] "]"
			}
			close(list)
		}
		function listed(c,    i) {
			for (i = 1; i <= n; i++)
				if (c ~ cre[i]) return 1
			return 0
		}
		/^#  RUN / {
			c = $0
			sub(/^#  RUN +/, "", c)
			sub(/ \.\.\.$/, "", c)
			for (i = 1; i <= n; i++)
				if (c ~ cre[i]) used[i] = 1
			next
		}
		/^# not as written: / && c != "" {
			v[c]++
			t = $0
			sub(/^# not as written: /, "", t)
			for (i = 1; i <= n; i++)
				if (c ~ cre[i] && t ~ sig[i]) {
					m[c]++
					hit[c, i]++
					break
				}
		}
		# The checker prints at most SHOW_MAX lines (tests/sockmap/check.h).
		/^# \.\.\. [0-9]+ violations in all$/ && c != "" { all[c] = $3 }
		# Another expectation of the case failed (the harness says which),
		# or the harness ended it.
		/^# [^ ]+:[0-9]+:[^ ]+:Expected / && c != "" && !/== c->errors / { other[c]++ }
		/^# [a-z_]+: Test terminated / && c != "" { other[c]++ }
		END {
			while ((getline l < ktap) > 0) {
				name = l
				if (sub(/^    not ok [0-9]+ /, "", name) && listed(name)) {
					if (v[name] && m[name] == v[name] && !other[name] &&
					    (!(name in all) || all[name] == v[name])) {
						r = ""
						for (i = 1; i <= n; i++)
							if ((name, i) in hit)
								r = r (r == "" ? "" : "; ") why[i] " {" hit[name, i] "}"
						sub(/^    not ok /, "    ok ", l)
						print l " # XFAIL " r
						continue
					}
					print l
					if (other[name])
						printf "    # %s: failed otherwise than its known defects (%d other expectations failed)\n", name, other[name]
					else if ((name in all) && all[name] != v[name])
						printf "    # %s: failed otherwise than its known defects (%d of its %d violations printed)\n", name, v[name], all[name]
					else
						printf "    # %s: failed otherwise than its known defects (%d of its %d violations theirs)\n", name, m[name], v[name]
					continue
				}
				print l
				if (sub(/^    ok [0-9]+ /, "", name) && listed(name))
					printf "    # %s: no known defect of it showed this run\n", name
			}
			for (i = 1; i <= n; i++)
				if (!used[i] && ran)
					printf "    # %s: the entry for %s of %s, cases %s, not judged: none of its cases ran in this job\n", list, tree, target, cre[i]
				else if (!used[i]) {
					printf "    # %s: the entry for %s of %s, cases %s, matches no case that ran (stale)\n", list, tree, target, cre[i]
					bad = 1
				}
			exit bad
		}'
}
