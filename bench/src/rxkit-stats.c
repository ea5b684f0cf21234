// SPDX-License-Identifier: GPL-2.0
/*
 * rxkit-stats: the A/B statistics of the benchmark suite.
 *
 * Input, one line a pair (a fresh guest of each kernel state, run one after
 * the other; '#' starts a comment):
 *
 *   ORDER BASELINE PATCHED
 *
 * ORDER is AB (baseline ran first) or BA; the values are positive (MiB/s,
 * microseconds, instructions per byte ...).
 *
 * Method: the change of pair i is r_i = ln(PATCHED_i / BASELINE_i).  The
 * change is exp(mean r) - 1 (the geometric mean ratio, minus one), its 95%
 * confidence interval exp(mean r +- t(0.975, n - 1) * sd(r) / sqrt(n)) - 1:
 * a Student t interval on the paired log ratios.  Balanced AB/BA orders
 * cancel a drift of the machine over the run; the mean change of each order
 * is printed so that a reader sees how large the drift was.  Each side's
 * median and quartiles (linear interpolation between order statistics,
 * Hyndman and Fan type 7) are the spread.
 *
 * Output (key=value, one line each):
 *
 *   pairs=N ab=N ba=N
 *   baseline median=M p25=Q1 p75=Q3 min=L max=H
 *   patched median=M p25=Q1 p75=Q3 min=L max=H
 *   change=+P% ci95=+L%,+H% ab_change=+P% ba_change=+P% verdict=V wins=W/N sign_p=S
 *
 * V is better or worse when the interval lies above or below 0, for a
 * metric where higher is better (-l says lower is better: latency, cost per
 * byte); inconclusive when it contains 0: the pairs cannot tell the kernels
 * apart, which does not say they are the same.
 *
 * W/N and S are a two-sided exact sign test beside the interval: W is the
 * number of pairs where the patched value is better (higher, lower with -l),
 * N that of the pairs that are not ties (equal values, dropped), and
 * S = min(1, 2 * sum over k = 0 .. min(W, N - W) of C(N, k) / 2^N), 1 when
 * N = 0.  It counts only directions, so it is weak: with n pairs the
 * smallest S is 2 / 2^n (5 pairs give 0.0625, 6 give 0.03125), and fewer
 * than 6 pairs can never reach 0.05.  S is printed %.4g; below the smallest
 * double (N over about 1070, nearly all one way) it prints 0.
 *
 * --self-test runs the unit tests (KTAP).  Exit 0; 1 on a failed self-test;
 * 2 on a usage or input error.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAIRS	4096
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct summary {
	double median, p25, p75, min, max;
};

struct ab_result {
	int n, n_ab, n_ba;
	int n_up, n_down;		/* pairs patched > or < baseline */
	double sign_p;			/* the sign test's two-sided p */
	double change, lo, hi;		/* ratios minus one */
	double ab_change, ba_change;	/* NAN when the order has no pair */
	struct summary base, patched;
};

/* t(0.975, df) for df 1..30 (any statistics table). */
static const double t975[] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

/*
 * t_quantile975 - the 0.975 quantile of Student's t with @df degrees of
 * freedom: the table up to 30, then the Cornish-Fisher expansion around the
 * normal quantile (error below 0.001 from df 30 on).
 */
static double t_quantile975(int df)
{
	const double z = 1.959964;
	double d = df;

	if (df < 1)
		return NAN;
	if (df <= (int)ARRAY_SIZE(t975))
		return t975[df - 1];
	return z + (z * z * z + z) / (4 * d) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* quantile - type 7 quantile @q of the sorted @v[0..@n-1]. */
static double quantile(const double *v, int n, double q)
{
	double h = (n - 1) * q;
	int i = (int)floor(h);

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (h - i) * (v[i + 1] - v[i]);
}

static void summarize(const double *in, int n, struct summary *s)
{
	double v[MAX_PAIRS];

	memcpy(v, in, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	s->median = quantile(v, n, 0.5);
	s->p25 = quantile(v, n, 0.25);
	s->p75 = quantile(v, n, 0.75);
	s->min = v[0];
	s->max = v[n - 1];
}

/*
 * sign_test_p - the two-sided exact sign test's p of @w wins in @n pairs
 * that are not ties: min(1, 2 * sum_{k=0}^{min(w, n - w)} C(n, k) / 2^n), each
 * term computed in log space (lgamma) so that no C(n, k) overflows.
 */
static double sign_test_p(int w, int n)
{
	int k, m = w < n - w ? w : n - w;
	double sum = 0;

	for (k = 0; k <= m; k++)
		sum += exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) -
			   n * log(2.0));
	return n > 0 && 2 * sum < 1 ? 2 * sum : 1;
}

/*
 * ab_analyse - the paired analysis of @n pairs: @base[i] and @patched[i]
 * (positive), @ab[i] nonzero when the baseline ran first.  Returns 0, or
 * -EINVAL when there are fewer than two pairs or a value is not positive.
 */
static int ab_analyse(const double *base, const double *patched,
		      const int *ab, int n, struct ab_result *res)
{
	double r, sum = 0, sum_ab = 0, sum_ba = 0, ss = 0, mean, half;
	int i;

	if (n < 2 || n > MAX_PAIRS)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	for (i = 0; i < n; i++) {
		if (!(base[i] > 0) || !(patched[i] > 0))
			return -EINVAL;
		r = log(patched[i] / base[i]);
		sum += r;
		res->n_up += patched[i] > base[i];
		res->n_down += patched[i] < base[i];
		if (ab[i]) {
			sum_ab += r;
			res->n_ab++;
		} else {
			sum_ba += r;
			res->n_ba++;
		}
	}
	mean = sum / n;
	for (i = 0; i < n; i++) {
		r = log(patched[i] / base[i]) - mean;
		ss += r * r;
	}
	half = t_quantile975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n);
	res->n = n;
	res->change = exp(mean) - 1;
	res->lo = exp(mean - half) - 1;
	res->hi = exp(mean + half) - 1;
	res->ab_change = res->n_ab ? exp(sum_ab / res->n_ab) - 1 : NAN;
	res->ba_change = res->n_ba ? exp(sum_ba / res->n_ba) - 1 : NAN;
	res->sign_p = sign_test_p(res->n_up, res->n_up + res->n_down);
	summarize(base, n, &res->base);
	summarize(patched, n, &res->patched);
	return 0;
}

/*
 * verdict - better or worse when the interval excludes 0 (@lower_better for
 * costs), inconclusive when it contains 0.
 */
static const char *verdict(const struct ab_result *res, int lower_better)
{
	if (res->lo > 0)
		return lower_better ? "worse" : "better";
	if (res->hi < 0)
		return lower_better ? "better" : "worse";
	return "inconclusive";
}

/* wins - the sign test's W: the pairs where patched is better. */
static int wins(const struct ab_result *res, int lower_better)
{
	return lower_better ? res->n_down : res->n_up;
}

static void print_summary(const char *side, const struct summary *s)
{
	printf("%s median=%.6g p25=%.6g p75=%.6g min=%.6g max=%.6g\n",
	       side, s->median, s->p25, s->p75, s->min, s->max);
}

static void print_pct(const char *key, double ratio)
{
	if (isnan(ratio))
		printf("%s=none", key);
	else
		printf("%s=%+.2f%%", key, 100 * ratio);
}

static void print_result(const struct ab_result *res, int lower_better)
{
	printf("pairs=%d ab=%d ba=%d\n", res->n, res->n_ab, res->n_ba);
	print_summary("baseline", &res->base);
	print_summary("patched", &res->patched);
	print_pct("change", res->change);
	printf(" ci95=%+.2f%%,%+.2f%%", 100 * res->lo, 100 * res->hi);
	print_pct(" ab_change", res->ab_change);
	print_pct(" ba_change", res->ba_change);
	printf(" verdict=%s wins=%d/%d sign_p=%.4g\n", verdict(res, lower_better),
	       wins(res, lower_better), res->n_up + res->n_down, res->sign_p);
}

/* --- Unit tests: cases computed by hand (see each) ------------------- */

static int nr_test, nr_fail;

/* Tolerances: exact but for rounding, and those of hand-computed values. */
static const double exact = 0.000000000001, by_hand = 0.00001;

static void expect(int ok, const char *name)
{
	nr_test++;
	if (!ok)
		nr_fail++;
	printf("%sok %d %s\n", ok ? "" : "not ", nr_test, name);
}

static int near(double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	printf("# got %.9g, want %.9g (+- %g)\n", got, want, tol);
	return 0;
}

static int self_test(void)
{
	/* r = ln 1.1 in every pair: no spread, the interval is the point. */
	static const double b1[] = { 100, 100, 200 }, p1[] = { 110, 110, 220 };
	static const int o1[] = { 1, 0, 1 };
	/*
	 * r = 0.1, 0.2, 0.3: mean 0.2, sd 0.1, t(0.975, 2) = 4.303, half width
	 * 4.303 * 0.1 / sqrt(3) = 0.248434; change e^0.2 - 1 = 22.140%, interval
	 * e^-0.048434 - 1 = -4.728%, e^0.448434 - 1 = +56.586%: contains 0.
	 */
	static const double b2[] = { 1, 1, 1 };
	const double p2[] = { exp(0.1), exp(0.2), exp(0.3) };
	static const int o2[] = { 1, 0, 1 };
	/* Halved four times (ratio 0.5): worse if higher is better. */
	static const double b3[] = { 8, 6, 4, 2 }, p3[] = { 4, 3, 2, 1 };
	static const int o3[] = { 1, 0, 1, 0 };
	/* A tie (100 = 100) and two rises: N = 2, p = 2 * C(2, 0) / 2^2. */
	static const double b4[] = { 100, 100, 100 }, p4[] = { 100, 110, 120 };
	static const double q[] = { 4, 1, 3, 2 };
	static const double bad[] = { 1, 0 };
	struct summary s;
	struct ab_result res;

	printf("TAP version 13\n1..18\n");
	expect(!ab_analyse(b1, p1, o1, 3, &res) &&
	       near(res.change, 0.1, exact) && near(res.lo, 0.1, exact) &&
	       near(res.hi, 0.1, exact), "no_spread_is_the_point");
	expect(res.n_ab == 2 && res.n_ba == 1 &&
	       near(res.ab_change, 0.1, exact) && near(res.ba_change, 0.1, exact),
	       "orders_counted");
	expect(!strcmp(verdict(&res, 0), "better") &&
	       !strcmp(verdict(&res, 1), "worse"), "verdict_direction");
	expect(!ab_analyse(b2, p2, o2, 3, &res) &&
	       near(res.change, 0.221403, by_hand) && near(res.lo, -0.047280, by_hand) &&
	       near(res.hi, 0.565858, by_hand), "t_interval_three_pairs");
	expect(!strcmp(verdict(&res, 0), "inconclusive") &&
	       !strcmp(verdict(&res, 1), "inconclusive"),
	       "interval_with_zero_is_inconclusive");
	expect(near(res.ab_change, exp(0.2) - 1, exact) &&
	       near(res.ba_change, exp(0.2) - 1, exact), "order_means");
	expect(!ab_analyse(b3, p3, o3, 4, &res) && near(res.change, -0.5, exact) &&
	       !strcmp(verdict(&res, 0), "worse") &&
	       !strcmp(verdict(&res, 1), "better"), "halved_is_worse_or_cheaper");
	/* Four falls: W = 0 of 4, or 4 of 4 with -l; p = 2 * C(4, 0) / 2^4. */
	expect(wins(&res, 0) == 0 && wins(&res, 1) == 4 && res.n_up + res.n_down == 4 &&
	       near(res.sign_p, 0.125, exact), "sign_lower_is_better_flips_wins");
	/* 6 of 6: 2 * C(6, 0) / 2^6 = 2 / 64 = 0.03125, the least of 6 pairs. */
	expect(near(sign_test_p(6, 6), 0.03125, exact) &&
	       near(sign_test_p(0, 6), 0.03125, exact), "sign_six_of_six");
	/* 5 of 6: 2 * (C(6, 0) + C(6, 1)) / 2^6 = 2 * 7 / 64 = 0.21875. */
	expect(near(sign_test_p(5, 6), 0.21875, exact) &&
	       near(sign_test_p(1, 6), 0.21875, exact), "sign_five_of_six");
	expect(!ab_analyse(b4, p4, o1, 3, &res) && res.n_up == 2 && res.n_down == 0 &&
	       near(res.sign_p, 0.5, exact), "sign_tie_dropped");
	/* Ties alone: N = 0, p = 1, and the interval is [0, 0]. */
	expect(!ab_analyse(b1, b1, o1, 3, &res) && res.n_up + res.n_down == 0 &&
	       near(res.sign_p, 1, exact) && near(sign_test_p(0, 0), 1, exact) &&
	       !strcmp(verdict(&res, 0), "inconclusive"), "sign_no_pair_is_one");
	/*
	 * 2 of 4: 2 * (1 + 4 + 6) / 16 = 1.375, so 1; half of 4096 likewise.
	 * 0 of 1000: 2 / 2^1000 = 2^-999 (2^1000 overflows every integer type).
	 */
	expect(near(sign_test_p(2, 4), 1, exact) && near(sign_test_p(2048, 4096), 1, exact) &&
	       near(sign_test_p(0, 1000) * ldexp(1, 999), 1, 0.000000001), "sign_large_n");
	/* {1, 2, 3, 4}: median 2.5, type 7 quartiles 1.75 and 3.25. */
	summarize(q, 4, &s);
	expect(near(s.median, 2.5, exact) && near(s.p25, 1.75, exact) &&
	       near(s.p75, 3.25, exact) && s.min == 1 && s.max == 4,
	       "quartiles_type7");
	expect(near(t_quantile975(1), 12.706, exact) &&
	       near(t_quantile975(30), 2.042, exact), "t_table");
	/* Tables: t(0.975, 40) = 2.021, t(0.975, 120) = 1.980. */
	expect(near(t_quantile975(40), 2.021, 0.001) &&
	       near(t_quantile975(120), 1.980, 0.001), "t_cornish_fisher");
	expect(ab_analyse(b1, p1, o1, 1, &res) == -EINVAL, "one_pair_refused");
	expect(ab_analyse(bad, b1, o1, 2, &res) == -EINVAL, "zero_refused");
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       nr_test - nr_fail, nr_fail);
	return nr_fail ? 1 : 0;
}

static void help(FILE *f)
{
	fprintf(f, "usage: rxkit-stats [-l] [FILE]\n"
		"       rxkit-stats --self-test\n"
		"Paired A/B analysis of lines 'AB|BA BASELINE PATCHED' (FILE or\n"
		"standard input): medians, quartiles, the change and its 95%%\n"
		"confidence interval (t interval on the paired log ratios), an\n"
		"exact sign test (wins of the patched side, two-sided p).\n"
		"-l: lower is better (latency, cost per byte).\n");
}

int main(int argc, char **argv)
{
	static double base[MAX_PAIRS], patched[MAX_PAIRS];
	static int ab[MAX_PAIRS];
	char line[256], order[8];
	int lower_better = 0, n = 0, lineno = 0, i = 1;
	struct ab_result res;
	FILE *in = stdin;
	char *p;

	if (argc == 2 && !strcmp(argv[1], "--self-test"))
		return self_test();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		help(stdout);
		return 0;
	}
	if (i < argc && !strcmp(argv[i], "-l")) {
		lower_better = 1;
		i++;
	}
	if (i < argc && argv[i][0] == '-' && argv[i][1]) {
		help(stderr);
		fprintf(stderr, "rxkit-stats: error: unknown option '%s'\n", argv[i]);
		return 2;
	}
	if (i < argc) {
		in = fopen(argv[i], "r");
		if (!in) {
			fprintf(stderr, "rxkit-stats: error: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		i++;
	}
	if (i < argc) {
		help(stderr);
		return 2;
	}
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		p = strchr(line, '#');
		if (p)
			*p = '\0';
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (n == MAX_PAIRS) {
			fprintf(stderr, "rxkit-stats: error: more than %d pairs\n", MAX_PAIRS);
			return 2;
		}
		if (sscanf(line, "%7s %lf %lf", order, &base[n], &patched[n]) != 3 ||
		    (strcmp(order, "AB") && strcmp(order, "BA")) ||
		    !(base[n] > 0) || !(patched[n] > 0)) {
			fprintf(stderr,
				"rxkit-stats: error: line %d: want 'AB|BA BASELINE PATCHED', two positive values\n",
				lineno);
			return 2;
		}
		ab[n++] = !strcmp(order, "AB");
	}
	if (ab_analyse(base, patched, ab, n, &res)) {
		fprintf(stderr, "rxkit-stats: error: %d pairs: at least 2 are needed\n", n);
		return 2;
	}
	print_result(&res, lower_better);
	return 0;
}
