# SPDX-License-Identifier: GPL-2.0
# pipeline/ab-verdict's comparison of one suite: the regressions of its tests
# and of their cases (per test), and a count line per test.  Files, each
# "TEST<tab>CASE[<tab>REASON]": XB and X, the xfails of the baseline and
# the patched tree (pipeline/results xfails); R, what passed on the baseline
# and not on the patched tree; P and B, what passed on each; FAILED, the
# baseline's xfails that neither passed nor xfailed on the patched tree.
# S names the suite; U gets a line for each counted regression; OTHER
# the tree patched is compared with (pipeline/ab-verdict --against; baseline).
#
# A patched xfail (tests/lib/known.sh known_defects) names its entries,
# each "REASON [TREES] {N}": N lines of the case's violations matched the
# entry.  An entry of the patched tree alone is the series' (KNOWN
# REGRESSION, named, not counted).  An entry of both trees is compared by
# its count against the baseline's in the same case (0 if it passed):
# patched N above baseline M is a REGRESSION when N of N + M is unlikely
# with equal rates (binomial tail under ALPHA), else INCONCLUSIVE; neither
# is above: KNOWN DEFECT.  A reason without counts (a fixture's) is named
# as listed when the baseline passed, and compares nothing otherwise.

BEGIN { ALPHA = 0.01; if (OTHER == "") OTHER = "baseline" }

function label(t) { return t == "" ? s : s "/" t }
function q(c) { return "'" c "'" }

# tail(N, M): P(X >= N) for X binomial(N + M, 1/2).
function tail(p, b,    n, k, lc, t) {
	n = p + b
	lc = 0
	t = 0
	for (k = 0; k <= n; k++) {
		if (k > 0)
			lc += log(n - k + 1) - log(k)
		if (k >= p)
			t += exp(lc - n * log(2))
	}
	return t
}

# known(TEST, CASE, PE, BASE): the verdict lines of a patched xfail whose
# entries (entries()) are PE, BASE the baseline's reason of the case;
# true when it is a counted regression.
function known(t, c, pe, bk,    be, e, n, m, pv, bad) {
	split("", be)
	entries(bk, be)
	bad = 0
	for (e in pe) {
		n = pe[e]
		m = (e in be) ? be[e] : 0
		if (e !~ /\[[a-z0-9@.,]*baseline[a-z0-9@.,]*\]$/) {
			printf "KNOWN REGRESSION %s: %s fails on patched as listed (%d): %s\n", label(t), q(c), n, e
			continue
		}
		if (n <= m) {
			printf "KNOWN DEFECT %s: %s: patched %d, baseline %d: %s\n", label(t), q(c), n, m, e
			continue
		}
		# A race's violations of one run come together (one removal loses a
		# burst of records): one run a tree cannot compare them.
		if (race(e)) {
			printf "INCONCLUSIVE %s: %s: patched %d, baseline %d (a race: one run a tree compares nothing, pipeline/census counts its runs; not counted): %s\n", label(t), q(c), n, m, e
			continue
		}
		pv = tail(n, m)
		if (pv < ALPHA) {
			printf "REGRESSION %s: %s: a defect of both trees more often on patched: patched %d, baseline %d (p = %.2g): %s\n", label(t), q(c), n, m, pv, e
			bad = 1
		} else {
			printf "INCONCLUSIVE %s: %s: patched %d, baseline %d (p = %.2g, not counted): %s\n", label(t), q(c), n, m, pv, e
		}
	}
	return bad
}

FILENAME == XB { bx[$1 "\t" $2] = $3; next }
FILENAME == X { px[$1 "\t" $2] = $3; next }
FILENAME == R && (($1 "\t" $2) in px) { inr[$1 "\t" $2] = 1; next }
FILENAME == R { printf "REGRESSION %s: %s passes on %s, not patched\n", label($1), q($2), OTHER; print > U; reg[$1]++; next }
FILENAME == FAILED && !(($1 "\t" $2) in px) {
	printf "REGRESSION %s: %s fails on %s as listed, on patched otherwise\n", label($1), q($2), OTHER
	print > U
	reg[$1]++
	next
}
FILENAME == FAILED { next }
FILENAME == P { pat[$1]++; next }
{ if (!($1 in base)) order[n++] = $1; base[$1]++ }
END {
	for (k in px) {
		split(k, tc, "\t")
		split("", pe)
		if (!entries(px[k], pe)) {
			# No counts: named when the baseline passed, else nothing.
			if (!(k in inr))
				continue
			if (px[k] ~ /\[[a-z,]*baseline[a-z,]*\]/)
				printf "KNOWN DEFECT %s: %s passes on %s, fails on patched this run as a defect of both trees: %s\n", label(tc[1]), q(tc[2]), OTHER, px[k]
			else
				printf "KNOWN REGRESSION %s: %s passes on %s, fails on patched as listed: %s\n", label(tc[1]), q(tc[2]), OTHER, px[k]
			kn[tc[1]]++
			continue
		}
		if (known(tc[1], tc[2], pe, (k in bx) ? bx[k] : "")) {
			print k > U
			reg[tc[1]]++
		} else {
			kn[tc[1]]++
		}
	}
	for (i = 0; i < n; i++) {
		t = order[i]
		printf "%s: %s %d passed, patched %d passed, %d regressions%s\n",
			label(t), OTHER, base[t], pat[t], reg[t],
			kn[t] ? sprintf(" (and %d known)", kn[t]) : ""
	}
}
