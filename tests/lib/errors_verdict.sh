# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The error-path tests of the A/B verdict, the sockmap known defects and
# the VM runs' TCG fault (tests/errors_tools.sh: ab_regression,
# sockmap_known_defects, tcg_fault), apart so that the suite stays short.  Sourced after tests/lib/errors.sh.
# shellcheck disable=SC2154 # work, target: the suite's

# pipeline/ab-verdict: a case that passes on baseline and fails, skips or is
# missing patched is a regression, but for a listed known defect's (xfail:
# named, not counted); a suite without patched results, or whose trees ran
# on different backends, fails; identical results pass.
test_ab_regression()
{
	local a="$work/ab/7.3" rc=0
	mkdir -p "$a/baseline/s" "$a/patched/s"
	ab_json "$a/baseline/s/results.json" '"status": "pass"' '"status": "pass"'
	cp "$a/baseline/s/results.json" "$a/patched/s/results.json"
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 ||
		{ sed 's/^/#   /' "$work/ab.out"; echo "# identical results: not a pass"; return "$KSFT_FAIL"; }
	ab_json "$a/patched/s/results.json" '"status": "skip", "reason": "now"' '"status": "fail"'
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] &&
	grep -q "^REGRESSION s/job: 'case one' passes on baseline" "$work/ab.out" &&
	grep -q "^REGRESSION s/job: 'case (two)' passes on baseline" "$work/ab.out" &&
	! grep -q "case three" "$work/ab.out" ||
		{ echo "# regressions not reported as expected (exit $rc)"; return "$KSFT_FAIL"; }
	# A known defect's failure on patched (xfail) is named, not counted;
	# the other case still is.
	ab_json "$a/patched/s/results.json" '"status": "xfail", "reason": "listed"' '"status": "fail"'
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] &&
	grep -q "^KNOWN REGRESSION s/job: 'case one' passes on baseline, fails on patched as listed: listed$" "$work/ab.out" &&
	grep -q "^REGRESSION s/job: 'case (two)'" "$work/ab.out" &&
	grep -q "^s/job: baseline 2 passed, patched 0 passed, 1 regressions (and 1 known)$" "$work/ab.out" ||
		{ echo "# a known regression not named apart (exit $rc)"; return "$KSFT_FAIL"; }
	ab_json "$a/patched/s/results.json" '"status": "xfail", "reason": "listed [baseline,patched]"' '"status": "pass"'
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 0 ] && grep -q "^KNOWN DEFECT s/job: 'case one' .* a defect of both trees: listed \[baseline,patched\]$" "$work/ab.out" ||
		{ echo "# a known defect of both trees not named so, or it failed the verdict (exit $rc)"; return "$KSFT_FAIL"; }
	# The same results from two backends are no A/B pair.
	sed 's/^{"suite": "s", /{"suite": "s", "backend": "nested", /' "$a/baseline/s/results.json" > "$a/patched/s/results.json"
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] && expect_in "$work/ab.out" '^MISMATCH s: the baseline kernel ran on , the patched kernel on nested;' \
		"two backends' results were compared (exit $rc)" || return "$KSFT_FAIL"
	rm -r "$a/patched/s"
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] && expect_in "$work/ab.out" '^MISSING s:' "a missing patched suite was not a failure (exit $rc)" || return "$KSFT_FAIL"
	# The cloud flavour's other side is Debian's kernel (--against debian):
	# its folder, named in the verdict; none there is an error.
	mkdir -p "$a/debian-cloud/s" "$a/patched-cloud/s"
	ab_json "$a/debian-cloud/s/results.json" '"status": "pass"' '"status": "pass"'
	ab_json "$a/patched-cloud/s/results.json" '"status": "pass"' '"status": "fail"'
	rc=0
	RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" --flavour cloud --against debian 7.3 > "$work/ab.out" 2>&1 || rc=$?
	sed 's/^/#   /' "$work/ab.out"
	[ "$rc" = 1 ] && grep -q "^REGRESSION s/job: 'case (two)' passes on debian, not patched$" "$work/ab.out" &&
	grep -q "^s/job: debian 2 passed, patched 1 passed, 1 regressions$" "$work/ab.out" ||
		{ echo "# --against debian: not the regression against Debian's kernel (exit $rc)"; return "$KSFT_FAIL"; }
	expect_fail "$work/ab.err" "^ab-verdict: error: no debian results under .*/debian-bpf: run the suites with --tree debian first" \
		env RXKIT_OUT="$work/ab" "$RXKIT_TOP/pipeline/ab-verdict" --flavour bpf --against debian 7.3 || return "$KSFT_FAIL"
}

# tests/lib/known.sh known_defects: a sockmap case failing as a listed
# defect says (every violation line its signature) is XFAIL, on the trees
# listed only; one failing otherwise stays a failure; an entry naming no
# case that ran is refused (with --ran only reported, while the entries
# of cases that ran are judged), and one whose SHOWS is neither always nor
# race; a race's XFAIL says "race: " (tests/fixtures/sockmap-cases:
# job.log, and defects, a list of its own); the live list is well formed.
test_sockmap_known_defects()
{
	local f="$RXKIT_TOP/tests/fixtures/sockmap-cases/job.log" rc=0
	local l="$RXKIT_TOP/tests/fixtures/sockmap-cases/defects"
	ktap_from_harness "$f" > "$work/raw"
	known_defects "$f" "$work/raw" patched 7.3 > "$work/kd.out" ||
		{ sed 's/^/#   /' "$work/kd.out"; echo "# $SOCKMAP_DEFECTS: malformed or stale"; return "$KSFT_FAIL"; }
	known_defects "$f" "$work/raw" patched 7.3 "$l" > "$work/kd.out" || rc=$?
	sed 's/^/#   /' "$work/kd.out"
	[ "$rc" = 0 ] &&
	grep -q '^    ok 2 handoff.partial_head.loop # XFAIL upstream: .* \[baseline,patched\] {1}$' "$work/kd.out" &&
	grep -q '^    ok 4 quiet.partial_head # XFAIL the series (patch 5).* \[patched\] {1}$' "$work/kd.out" &&
	grep -q '^    not ok 3 handoff.remove_under_flow.loop$' "$work/kd.out" &&
	grep -q '^    # handoff.remove_under_flow.loop: failed otherwise than its known defects (1 of its 2 violations theirs)$' "$work/kd.out" &&
	grep -q '^    ok 1 handoff.skb_verdict.loop$' "$work/kd.out" ||
		{ echo "# patched: not the XFAILs expected (exit $rc)"; return "$KSFT_FAIL"; }
	known_defects "$f" "$work/raw" baseline 7.3 "$l" > "$work/kd.out" || rc=$?
	grep -q '^    not ok 4 quiet.partial_head$' "$work/kd.out" ||
		{ echo "# baseline: quiet.partial_head (listed for patched only) made XFAIL"; return "$KSFT_FAIL"; }
	sed '/^handoff\\.\[a-z_\]+\\.loop/s/\talways\t/\trace\t/' "$l" > "$work/list"
	known_defects "$f" "$work/raw" patched 7.3 "$work/list" > "$work/kd.out" || rc=$?
	grep -q '^    ok 2 handoff.partial_head.loop # XFAIL race: upstream: .* \[baseline,patched\] {1}$' "$work/kd.out" ||
		{ echo "# a race's entry: not XFAIL 'race: ...'"; sed 's/^/#   /' "$work/kd.out"; return "$KSFT_FAIL"; }
	printf 'handoff\\.gone\\.loop\tpatched\tx\talways\ty\n' > "$work/list"
	rc=0
	known_defects "$f" "$work/raw" patched 7.3 "$work/list" > "$work/kd.out" || rc=$?
	[ "$rc" = 1 ] && expect_in "$work/kd.out" 'gone.*matches no case that ran (stale)' \
		"a stale entry was not refused (exit $rc)" || return "$KSFT_FAIL"
	rc=0
	known_defects --ran "$f" "$work/raw" patched 7.3 "$work/list" > "$work/kd.out" || rc=$?
	[ "$rc" = 0 ] && expect_in "$work/kd.out" 'gone.*not judged: none of its cases ran in this job' \
		"--ran: an entry of cases that did not run was refused (exit $rc)" || return "$KSFT_FAIL"
	grep -v '^#' "$l" >> "$work/list"
	known_defects --ran "$f" "$work/raw" patched 7.3 "$work/list" > "$work/kd.out" || rc=$?
	[ "$rc" = 0 ] && grep -q '^    ok 2 handoff.partial_head.loop # XFAIL upstream: ' "$work/kd.out" &&
	grep -q '^    not ok 3 handoff.remove_under_flow.loop$' "$work/kd.out" &&
	grep -q '^    ok 4 quiet.partial_head # XFAIL ' "$work/kd.out" ||
		{ sed 's/^/#   /' "$work/kd.out"; echo "# --ran: the entries of cases that ran not judged as without it (exit $rc)"; return "$KSFT_FAIL"; }
	printf 'handoff\\.[a-z_]+\\.loop\tpatched\tx\tsometimes\ty\n' > "$work/list"
	rc=0
	known_defects "$f" "$work/raw" patched 7.3 "$work/list" > "$work/kd.out" || rc=$?
	[ "$rc" = 1 ] && expect_in "$work/kd.out" 'not CASES<TAB>TREES<TAB>SIGNATURE<TAB>always|race<TAB>REASON' \
		"an entry that is neither always nor race was not refused (exit $rc)" || return "$KSFT_FAIL"
}

# The VM image runs repeat a run only for the oops multi-threaded TCG makes
# (tests/lib/image_vm.sh tcg_fault): the recorded console of Debian's 6.12
# (tests/fixtures/tcg-fault) and four that are the kernel's or nobody's.
test_tcg_fault()
{
	local f="$RXKIT_TOP/tests/fixtures/tcg-fault/int3-early.log" d="$work/tcg" c rc=0
	mkdir -p "$d"
	sed 's/Comm: swapper\/0 Not tainted/Comm: systemd Not tainted/' "$f" > "$d/after-init"
	sed 's/Comm: swapper\/0 Not tainted/Comm: swapper\/0 Tainted: G           OE/' "$f" > "$d/tainted"
	sed 's/Oops: int3/Oops: general protection fault/' "$f" > "$d/other-oops"
	grep -v 'Oops' "$f" > "$d/no-oops"
	(. "$RXKIT_TOP/tests/lib/image_vm.sh"; tcg_fault "$f") > "$d/early.out" ||
		{ echo "# the recorded early int3 was not taken for TCG's"; rc=$KSFT_FAIL; }
	grep -q 'Comm: swapper/0 Not tainted' "$d/early.out" ||
		{ echo "# tcg_fault did not print the oops's task line"; rc=$KSFT_FAIL; }
	sed 's/^/# /' "$d/early.out"
	for c in after-init tainted other-oops no-oops; do
		if (. "$RXKIT_TOP/tests/lib/image_vm.sh"; tcg_fault "$d/$c") > /dev/null; then
			echo "# $c: taken for TCG's (the run would be repeated)"
			rc=$KSFT_FAIL
		else
			echo "# $c: refused"
		fi
	done
	return "$rc"
}
