# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The cases of the kernel's vsock test programs, of its BPF selftests'
# test_progs and of the kit's harness tests: their output as KTAP
# subtests, the per-job skip lists (tests/guest/skip/), the known defects
# of a backend (tests/data/backend-defects) that skip a test (the known
# kernel defects a sockmap case fails as: tests/lib/known.sh).
# Sourced by tests/lib.sh.

readonly BACKEND_DEFECTS="$RXKIT_TOP/tests/data/backend-defects"

# ktap_from_vsock_test LOG SKIPLIST [SERVER_LOG]: the per-case lines of
# vsock_test / vsock_diag_test ("N - name...ok", where a case may print
# diagnostics between its name and its verdict) as indented KTAP subtests.
# LOG is the client's output; the server's is SERVER_LOG, or LOG's lines
# prefixed "server: " (tests/guest/lib.sh's pairs).  A case is ok when
# the client says so and the server did not die in it: a server that fails
# after its client's last check (the client then says ok and only fails
# at the final barrier) fails that case, with the server's words.  A case
# without a verdict (the program died in it) is "not ok".
ktap_from_vsock_test()
{
	local srv=
	srv=$(mktemp "${TMPDIR:-/tmp}/rxkit-server.XXXXXX") || return 1
	if [ -n "${3:-}" ]; then
		tr -d '\r' < "$3" | sed 's/^server: //' > "$srv" 2>/dev/null || true
	else
		tr -d '\r' < "$1" | sed -n 's/^server: //p' > "$srv"
	fi
	tr -d '\r' < "$1" | grep -v '^server: ' | awk -v skiplist="${2:-/dev/null}" '
		BEGIN {
			while ((getline l < skiplist) > 0) {
				if (l ~ /^#/ || l !~ /[^ ]/) continue
				id = l; sub(/ .*/, "", id); r = l; sub(/^[^ ]* /, "", r)
				why[id] = r
			}
		}
		function close_case(verdict) {
			if (!open[s]) return
			v[s, n[s]] = verdict == "" ? "bad" : verdict
			open[s] = 0
		}
		function add_note(t) { note[s, n[s]] = note[s, n[s]] "    # " (s == "server" ? "server: " : "") t "\n" }
		FNR == 1 { close_case(""); s = side }
		/^[0-9]+ - / {
			close_case("")
			n[s]++; open[s] = 1
			line = $0
			sub(/^[0-9]+ - /, "", line)
			name = line; sub(/\.\.\..*$/, "", name)
			nm[s, n[s]] = name
			rest = line; sub(/^[^.]*(\.[^.]+)*\.\.\./, "", rest)
			if (index(line, "...") && rest ~ /(^|\.\.\.)ok$/) close_case("ok")
			else if (index(line, "...") && rest ~ /skipped$/) close_case("skipped")
			else if (index(line, "...") && rest != "") add_note(rest)
			next
		}
		open[s] && /^(ok|skipped)$/ { close_case($0); next }
		open[s] && /ok$/ && !/^RXKIT:/ { add_note(substr($0, 1, length($0) - 2)); close_case("ok"); next }
		open[s] && !/^RXKIT:/ { add_note($0); next }
		END {
			close_case("")
			c = "client"
			print "    1.." n[c]
			for (i = 1; i <= n[c]; i++) {
				r = v[c, i]
				sv = (("server", i) in v) ? v["server", i] : ""
				printf "%s", note[c, i]
				if (sv == "bad") printf "%s", note["server", i]
				if (r == "ok" && sv == "bad") print "    not ok " i " " nm[c, i] " (the server side failed)"
				else if (r == "ok") print "    ok " i " " nm[c, i]
				else if (r == "skipped") print "    ok " i " " nm[c, i] " # SKIP " ((i - 1) in why ? why[i - 1] : "skipped by the test itself")
				else print "    not ok " i " " nm[c, i]
			}
		}' side=server "$srv" side=client -
	rm -f "$srv"
}

# vsock_cases NAME LOG SKIPLIST RC [SERVER_LOG]: the cases of one
# vsock_test-style run (LOG: the client's output, SERVER_LOG the server's,
# else LOG's "server: " lines) as KTAP subtests, also in
# ART/NAME/cases.ktap ($art); returns the KSFT code: RC (the run's own
# verdict) unless no case ran at all, which fails.
vsock_cases()
{
	local ktap="$art/$1/cases.ktap" ok=0 skipped=0 bad=0
	mkdir -p "$art/$1"
	ktap_from_vsock_test "$2" "$3" "${5:-}" | tee "$ktap"
	ok=$(grep '^    ok ' "$ktap" | grep -vc '# SKIP' || true)
	skipped=$(grep -c '^    ok .*# SKIP' "$ktap" || true)
	bad=$(grep -c '^    not ok ' "$ktap" || true)
	echo "# $1: $ok cases passed, $bad failed, $skipped skipped"
	if [ "$4" = 0 ] && [ "$ok" -eq 0 ]; then
		echo "# $1: no test case ran"
		return "$KSFT_FAIL"
	fi
	[ "$4" = 0 ] || return "$KSFT_FAIL"
	[ "$bad" -eq 0 ] || return "$KSFT_FAIL"
	return "$KSFT_PASS"
}

# case_times TIMES: the seconds each case of a vsock_test-style run took
# on the stamped side, from its output stamped line by line (tests/guest/
# vhost-host stamped): a case's line comes whole when the program flushes
# it as the next case starts or as it exits, so a case's time is its stamp
# less the one before.  That includes the wait at the case's barrier for
# the peer to end the case before (a skipped case after one the peer ends
# later shows that wait).  "ID SECONDS NAME...VERDICT" lines, ID as the
# program numbers it.
case_times()
{
	awk '$2 == "start" && NF == 2 { prev = $1; next }
	     { t = $1; sub(/^[0-9]+ /, "") }
	     /^[0-9]+ - / { id = $1; sub(/^[0-9]+ - /, ""); print id, t - prev, $0; prev = t }' "$1"
}

# case_times_note NAME TIMES DIR: the run's slowest three cases and every
# case that did not end "ok" or "skipped", with their seconds, as KTAP
# diagnostics; all of them in DIR/case-times.
case_times_note()
{
	mkdir -p "$3"
	case_times "$2" > "$3/case-times"
	[ -s "$3/case-times" ] || return 0
	echo "# $1: the slowest cases (s, host clock): $(sort -k2,2nr "$3/case-times" |
		head -n 3 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
	awk -v n="$1" '$0 !~ /\.\.\.(ok|skipped)$/ {
		id = $1; s = $2; sub(/^[0-9]+ [0-9]+ /, "")
		printf "# %s: case id %s ended after %s s: %s\n", n, id, s, $0 }' "$3/case-times"
}

# skip_files ART TARGET FLAVOUR JOB...: ART/tools/rxkit/skip/JOB for each
# JOB (skip_list), which tools_initrd packs over the initramfs's own.
skip_files()
{
	local art="$1" target="$2" flavour="$3" job=
	shift 3
	mkdir -p "$art/tools/rxkit/skip"
	for job in "$@"; do
		skip_list "$job" "$target" "$flavour" > "$art/tools/rxkit/skip/$job"
	done
}

# version_in VERSION RANGE: VERSION (empty: unknown, taken as 0) is in
# RANGE: '*', or comma-separated conditions OP VERSION, OP one of <= < >=
# > = (sort -V order), all of which hold.
version_in()
{
	local v="${1:-0}" cond= op= w= lo=
	[ "$2" = '*' ] && return 0
	for cond in $(printf '%s\n' "$2" | tr ',' ' '); do
		case "$cond" in
		'<='*|'>='*) op=$(printf '%.2s' "$cond"); w=${cond#??} ;;
		'<'*|'>'*|'='*) op=$(printf '%.1s' "$cond"); w=${cond#?} ;;
		*) die "$BACKEND_DEFECTS: bad version condition '$cond'" ;;
		esac
		lo=$(printf '%s\n%s\n' "$v" "$w" | sort -V | head -n 1)
		case "$op" in
		'<=') [ "$lo" = "$v" ] ;;
		'<') [ "$lo" = "$v" ] && [ "$v" != "$w" ] ;;
		'>=') [ "$lo" = "$w" ] ;;
		'>') [ "$lo" = "$w" ] && [ "$v" != "$w" ] ;;
		'=') [ "$v" = "$w" ] ;;
		esac || return 1
	done
}

# backend_defect BACKEND VERSION TEST: the reason of the known defect of
# BACKEND at VERSION that TEST runs into (tests/data/backend-defects), or
# nothing.
backend_defect()
{
	local b= t= range= why=
	while read -r b t range why; do
		case "$b" in
		''|'#'*) continue ;;
		esac
		[ "$b" = "$1" ] && [ "$t" = "$3" ] || continue
		version_in "$2" "$range" || continue
		printf '%s\n' "$why"
		return 0
	done < "$BACKEND_DEFECTS"
}

# ktap_from_harness LOG: the kselftest harness's KTAP in a job's output as
# indented subtests (its plan, results and diagnostics).
ktap_from_harness()
{
	tr -d '\r' < "$1" | awk '
		/^TAP version/ { on = 1; next }
		on && /^(1\.\.[0-9]+|ok |not ok |# )/ { print "    " $0 }'
}

# ktap_from_test_progs LOG: test_progs' subtest lines ("#N/M test/sub:OK",
# SKIP, FAIL) as indented KTAP subtests, numbered in their order; its
# "All error logs:" section, which repeats the failed ones, is not read.
ktap_from_test_progs()
{
	tr -d '\r' < "$1" | awk '
		/^All error logs:/ { done = 1 }
		!done && /^#[0-9]+\/[0-9]+ / {
			sub(/^#[0-9]+\/[0-9]+ +/, "")
			st = $0; sub(/.*:/, "", st)
			name = $0; sub(/:[A-Z]+$/, "", name)
			n++
			if (st == "OK") line[n] = "    ok " n " " name
			else if (st == "SKIP") line[n] = "    ok " n " " name " # SKIP"
			else line[n] = "    not ok " n " " name
		}
		END {
			print "    1.." n+0
			for (i = 1; i <= n; i++)
				print line[i]
		}'
}

# harness_from_test_progs LOG: test_progs' log in the shape known_defects
# reads (tests/lib/known.sh): a "#  RUN NAME ..." line a subtest, and each
# failed check of a failed subtest ("FUNC:FAIL:MESSAGE", which test_progs
# prints before the subtest's "#N/M NAME:FAIL") as "# not as written:
# FUNC:FAIL:MESSAGE".  A failed subtest without such a line (a crash, a
# timeout) gets none, so no entry can excuse it.
harness_from_test_progs()
{
	tr -d '\r' < "$1" | awk '
		/^All error logs:/ { exit }
		/^#[0-9]+\/[0-9]+ / {
			name = $0
			sub(/^#[0-9]+\/[0-9]+ +/, "", name)
			st = name; sub(/.*:/, "", st)
			sub(/:[A-Z]+$/, "", name)
			print "#  RUN " name " ..."
			if (st == "FAIL")
				for (i = 1; i <= nf; i++)
					print "# not as written: " fl[i]
			nf = 0
			next
		}
		/^#[0-9]+ / { nf = 0; next }
		/^[A-Za-z0-9_]+:FAIL:/ { fl[++nf] = $0 }'
}
