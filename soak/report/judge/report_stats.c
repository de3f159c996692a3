/* report_stats: batch means, run means and their variance components, Welch's test,
 * Student's t, prediction intervals, the USL fit and saturation. */
#include "report_stats.h"
#include "report/report_int.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The mean of x[0..n) with its NANs skipped (NAN when none), how many there were into *k
 * and, when ss is not NULL, their sum of squared deviations from the mean into *ss. */
static double mean_ss(const double *x, size_t n, size_t *k, double *ss)
{
	double sum = 0, mean;

	*k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			sum += x[i], (*k)++;
	mean = *k ? sum / (double)*k : NAN;
	if (ss)
		*ss = 0;
	for (size_t i = 0; i < n && ss && *k; i++)
		if (!isnan(x[i]))
			*ss += (x[i] - mean) * (x[i] - mean);
	return mean;
}

/* --- batch means ----------------------------------------------------------------------- */

/* Batch means of size b into out (cap entries); returns how many. */
static size_t batch(const double *x, const size_t *seg, size_t nseg, size_t b, double *out,
                    size_t cap)
{
	size_t k = 0, at = 0;

	for (size_t s = 0; s < nseg; s++) {
		size_t end = at + seg[s];
		double sum = 0;
		size_t got = 0;
		for (size_t i = at; i < end; i++) {
			if (isnan(x[i]))
				continue;
			sum += x[i];
			if (++got == b) {
				if (k < cap)
					out[k++] = sum / (double)b;
				sum = 0;
				got = 0;
			}
		}
		at = end;
	}
	return k;
}

/* Lag-1 autocorrelation of m[0..k) (0 when undefined). */
static double lag1(const double *m, size_t k)
{
	double num = 0, den;
	size_t n;

	if (k < 3)
		return 0;
	double mean = mean_ss(m, k, &n, &den);
	for (size_t i = 1; i < k; i++)
		num += (m[i] - mean) * (m[i - 1] - mean);
	return den > 0 ? num / den : 0;
}

void rpt_batch_means(const double *x, size_t n, const size_t *seg, size_t nseg, struct rpt_bm *out)
{
	size_t one = n, b = 1, k, valid;
	double *m;

	memset(out, 0, sizeof *out);
	out->se = NAN;
	if (nseg == 0) {
		seg = &one;
		nseg = 1;
	}
	out->mean = mean_ss(x, n, &valid, NULL);
	out->n = valid;
	if (valid == 0)
		return;
	m = malloc(valid * sizeof *m);
	if (!m)
		return; /* the mean stands; no error estimate */
	k = batch(x, seg, nseg, b, m, valid);
	while (k >= 2 * RPT_BM_MIN_BATCHES && lag1(m, k) > 2.0 / sqrt((double)k)) {
		b *= 2;
		k = batch(x, seg, nseg, b, m, valid);
	}
	out->batch = b;
	out->batches = k;
	if (k >= 2) {
		double ss;
		size_t all;
		mean_ss(m, k, &all, &ss);
		out->se = sqrt(ss / (double)(k - 1) / (double)k);
		out->df = (double)(k - 1);
	}
	free(m);
}

/* --- Student's t ----------------------------------------------------------------------- */

#define LENTZ_TINY 1e-300 /* what keeps Lentz's c and d off zero */

/* One step of the modified Lentz method with coefficient aa: c and d updated, the factor
 * the fraction takes returned. */
static double lentz(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	*d = fabs(*d) < LENTZ_TINY ? LENTZ_TINY : *d;
	*c = 1 + aa / *c;
	*c = fabs(*c) < LENTZ_TINY ? LENTZ_TINY : *c;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, del;
		h *= lentz(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
		del = lentz(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularised incomplete beta I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double rpt_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

/* The standard normal quantile: Acklam's rational approximation (relative error below
 * 1.2e-9), then one Halley step on erfc, which leaves it at machine precision. */
static double norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
	                           -2.759285104469687e+02, 1.383577518672690e+02,
	                           -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
	                           -1.556989798598866e+02, 6.680131188771972e+01,
	                           -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
	                           -2.400758277161838e+00, -2.549732539343734e+00,
	                           4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	                           2.445134137142996e+00, 3.754408661907416e+00};
	double q, r, x;

	if (p < 0.02425 || p > 1 - 0.02425) {
		/* The lower tail, and the upper one as its mirror image. */
		q = sqrt(-2 * (p < 0.5 ? log(p) : log1p(-p)));
		x = (p < 0.5 ? 1 : -1) *
		    ((((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		     ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1));
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	double e = 0.5 * erfc(-x / sqrt(2)) - p, u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* The density of Student's t. */
static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
	           (df + 1) / 2 * log1p(t * t / df));
}

double rpt_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	double z = norm_quantile(p);
	if (df > 1e7)
		return z;
	/* Newton from the Cornish-Fisher expansion about the normal quantile: a few steps,
	 * where a bisection takes fifty evaluations of the incomplete beta function. */
	double z2 = z * z,
	       t = z + (z2 + 1) * z / (4 * df) + ((5 * z2 + 16) * z2 + 3) * z / (96 * df * df);
	for (int i = 0; i < 20 && isfinite(t); i++) {
		double e = rpt_t_cdf(t, df) - p, f = t_pdf(t, df);
		if (fabs(e) < 1e-14)
			return t;
		if (!(f > 0))
			break;
		t -= e / f;
	}
	/* Far tails of few degrees of freedom: bisection, which always converges. */
	while (rpt_t_cdf(lo, df) > p)
		lo *= 2;
	while (rpt_t_cdf(hi, df) < p)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;
		if (rpt_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void rpt_welch_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                     struct rpt_diff *d)
{
	double va = a->se * a->se, vb = b->se * b->se;

	if (isnan(a->se) || isnan(b->se) || isnan(b->mean - a->mean)) {
		rpt_diff_known(a->mean, b->mean, NAN, NAN, alpha, d);
		return;
	}
	/* Welch-Satterthwaite; a side without spread contributes no degrees of freedom (both
	 * sides constant: any difference is exact, rpt_diff_known). */
	double den = (va > 0 ? va * va / a->df : 0) + (vb > 0 ? vb * vb / b->df : 0);
	rpt_diff_known(a->mean, b->mean, sqrt(va + vb),
	               den > 0 ? (va + vb) * (va + vb) / den : a->df + b->df, alpha, d);
}

void rpt_welch(const struct rpt_bm *a, const struct rpt_bm *b, struct rpt_diff *d)
{
	rpt_welch_alpha(a, b, 0.05, d);
}

void rpt_student_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                       struct rpt_diff *d)
{
	double na = (double)a->n, nb = (double)b->n, sp2;

	if (a->n < 2 || b->n < 2 || isnan(a->se) || isnan(b->se)) {
		rpt_diff_known(a->mean, b->mean, NAN, 0, alpha, d);
		return;
	}
	/* se^2 n is each side's sample variance. */
	sp2 = ((na - 1) * a->se * a->se * na + (nb - 1) * b->se * b->se * nb) / (na + nb - 2);
	rpt_diff_known(a->mean, b->mean, sqrt(sp2 * (1 / na + 1 / nb)), na + nb - 2, alpha, d);
}

void rpt_run_means(const double *x, size_t n, struct rpt_bm *out)
{
	double ss;
	size_t k;

	memset(out, 0, sizeof *out);
	out->se = NAN;
	out->mean = mean_ss(x, n, &k, &ss);
	out->n = out->batches = k;
	out->batch = 1;
	if (k < 2)
		return;
	out->se = sqrt(ss / (double)(k - 1) / (double)k);
	out->df = (double)(k - 1);
}

void rpt_vc_of(const double *x, const double *se, const double *secs, size_t n, struct rpt_vc *out)
{
	double ss, w = 0, t = 0;
	size_t k, kw = 0;

	memset(out, 0, sizeof *out);
	out->sd = out->within = out->between = out->secs = NAN;
	out->overhead_s = 0;
	out->mean = mean_ss(x, n, &k, &ss);
	out->runs = (int)k;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		if (se && !isnan(se[i])) {
			w += se[i] * se[i];
			kw++;
		}
		if (secs && !isnan(secs[i]))
			t += secs[i];
	}
	if (k == 0)
		return;
	out->secs = secs ? t / (double)k : NAN;
	out->within = kw == k ? w / (double)k : NAN;
	if (k < 2)
		return;
	out->sd = sqrt(ss / (double)(k - 1));
	/* The run means' variance holds a run's own offset and what its intervals left: the
	 * rest of what the runs' own errors explain is between them. */
	out->between = fmax(0, out->sd * out->sd - (isnan(out->within) ? 0 : out->within));
}

void rpt_paired_alpha(const double *base, const double *diff, size_t n, double alpha,
                      struct rpt_diff *d)
{
	struct rpt_bm md, ma;

	rpt_run_means(diff, n, &md);
	rpt_run_means(base, n, &ma);
	rpt_diff_known(ma.mean, ma.mean + md.mean, md.se, md.df, alpha, d);
}

void rpt_diff_known(double a, double b, double se, double df, double alpha, struct rpt_diff *d)
{
	memset(d, 0, sizeof *d);
	d->a = a;
	d->b = b;
	d->diff = b - a;
	d->rel_pct = a != 0 ? 100.0 * d->diff / fabs(a) : NAN;
	d->lo = d->hi = d->t = d->p = NAN;
	d->df = df;
	d->level = 1 - alpha;
	d->verdict = RPT_NA;
	if (isnan(d->diff) || !(se >= 0) || !(df > 0))
		return;
	if (se == 0) {
		d->lo = d->hi = d->diff;
		d->t = d->diff == 0 ? 0 : copysign(INFINITY, d->diff);
		d->p = d->diff == 0 ? 1 : 0;
		d->verdict = d->diff == 0 ? RPT_NOISE : RPT_REAL;
		return;
	}
	d->t = d->diff / se;
	d->p = 2 * (1 - rpt_t_cdf(fabs(d->t), df));
	double q = rpt_t_quantile(1 - alpha / 2, df);
	d->lo = d->diff - q * se;
	d->hi = d->diff + q * se;
	d->verdict = (d->lo > 0 || d->hi < 0) ? RPT_REAL : RPT_NOISE;
}

int rpt_outlier(const struct rpt_bm *s, double x, double alpha, double *rel_pct, double *half_pct)
{
	double sd, half;

	*rel_pct = *half_pct = NAN;
	if (s->batch != 1 || s->n < 2 || isnan(s->se) || isnan(x) || s->mean == 0)
		return 0;
	sd = s->se * sqrt((double)s->n);
	half = rpt_t_quantile(1 - alpha / 2, s->df) * sd * sqrt(1 + 1.0 / (double)s->n);
	*rel_pct = 100 * (x - s->mean) / fabs(s->mean);
	*half_pct = 100 * half / fabs(s->mean);
	return fabs(x - s->mean) > half;
}

/* --- USL ------------------------------------------------------------------------------- */

/* Solves the m x m system a x = b (m <= 3) by Gaussian elimination with partial
 * pivoting; -1 when singular. */
static int solve(double a[3][3], double b[3], int m, double x[3])
{
	for (int c = 0; c < m; c++) {
		int p = c;
		for (int r = c + 1; r < m; r++)
			if (fabs(a[r][c]) > fabs(a[p][c]))
				p = r;
		if (fabs(a[p][c]) < 1e-300)
			return -1;
		if (p != c) {
			for (int k = 0; k < m; k++) {
				double t = a[c][k];
				a[c][k] = a[p][k];
				a[p][k] = t;
			}
			double t = b[c];
			b[c] = b[p];
			b[p] = t;
		}
		for (int r = c + 1; r < m; r++) {
			double f = a[r][c] / a[c][c];
			for (int k = c; k < m; k++)
				a[r][k] -= f * a[c][k];
			b[r] -= f * b[c];
		}
	}
	for (int r = m - 1; r >= 0; r--) {
		double s = b[r];
		for (int k = r + 1; k < m; k++)
			s -= a[r][k] * x[k];
		x[r] = s / a[r][r];
	}
	return 0;
}

/* Linearised fit y = N/X = c0 + c1 (N-1) + c2 N(N-1) over the basis functions `use`
 * (bit 1: sigma term, bit 2: kappa term); *u gets lambda, sigma, kappa.  -1 on failure. */
static int usl_linear(const double *n, const double *x, size_t k, int use, struct rpt_usl *u)
{
	double a[3][3] = {{0}}, b[3] = {0}, c[3] = {0};
	int idx[3], m = 0;

	idx[m++] = 0;
	if (use & 1)
		idx[m++] = 1;
	if (use & 2)
		idx[m++] = 2;
	for (size_t i = 0; i < k; i++) {
		double f[3] = {1, n[i] - 1, n[i] * (n[i] - 1)}, y = n[i] / x[i];
		for (int r = 0; r < m; r++) {
			for (int s = 0; s < m; s++)
				a[r][s] += f[idx[r]] * f[idx[s]];
			b[r] += f[idx[r]] * y;
		}
	}
	if (solve(a, b, m, c) < 0 || !(c[0] > 0))
		return -1;
	u->lambda = 1 / c[0];
	u->sigma = (use & 1) ? c[1] / c[0] : 0;
	u->kappa = (use & 2) ? c[(use & 1) ? 2 : 1] / c[0] : 0;
	return 0;
}

double rpt_usl_x(const struct rpt_usl *u, double n)
{
	return u->lambda * n / (1 + u->sigma * (n - 1) + u->kappa * n * (n - 1));
}

static double usl_sse(const double *n, const double *x, size_t k, const struct rpt_usl *u)
{
	double s = 0;
	for (size_t i = 0; i < k; i++) {
		double r = x[i] - rpt_usl_x(u, n[i]);
		s += r * r;
	}
	return s;
}

/* Keeps the parameters in their physical range. */
static void usl_clamp(struct rpt_usl *u)
{
	if (!(u->sigma >= 0))
		u->sigma = 0;
	if (u->sigma > 1)
		u->sigma = 1;
	if (!(u->kappa >= 0))
		u->kappa = 0;
}

/* Levenberg-Marquardt on the residuals X - X(N). */
static void usl_refine(const double *n, const double *x, size_t k, struct rpt_usl *u)
{
	double mu = 1e-3, sse = usl_sse(n, x, k, u);

	for (int it = 0; it < 200 && sse > 0; it++) {
		double jtj[3][3] = {{0}}, jtr[3] = {0}, step[3];
		for (size_t i = 0; i < k; i++) {
			double N = n[i], d = 1 + u->sigma * (N - 1) + u->kappa * N * (N - 1);
			double f = u->lambda * N / d, r = x[i] - f;
			double j[3] = {N / d, -f * (N - 1) / d, -f * N * (N - 1) / d};
			for (int p = 0; p < 3; p++) {
				for (int q = 0; q < 3; q++)
					jtj[p][q] += j[p] * j[q];
				jtr[p] += j[p] * r;
			}
		}
		int improved = 0;
		for (int tries = 0; tries < 20 && !improved; tries++) {
			double a[3][3], b[3];
			for (int p = 0; p < 3; p++) {
				for (int q = 0; q < 3; q++)
					a[p][q] = jtj[p][q];
				a[p][p] += mu * (jtj[p][p] > 0 ? jtj[p][p] : 1e-12);
				b[p] = jtr[p];
			}
			if (solve(a, b, 3, step) < 0) {
				mu *= 10;
				continue;
			}
			struct rpt_usl t = *u;
			t.lambda += step[0];
			t.sigma += step[1];
			t.kappa += step[2];
			usl_clamp(&t);
			double s2 = t.lambda > 0 ? usl_sse(n, x, k, &t) : INFINITY;
			if (s2 < sse) {
				double gain = (sse - s2) / sse;
				*u = t;
				sse = s2;
				mu = mu / 10 > 1e-12 ? mu / 10 : 1e-12;
				improved = 1;
				if (gain < 1e-14)
					return;
			} else {
				mu *= 10;
			}
		}
		if (!improved)
			return;
	}
}

int rpt_usl_fit(const double *n, const double *x, size_t k, struct rpt_usl *u)
{
	double sst, sse;
	size_t kx;
	struct rpt_usl best = {0};
	double best_sse = INFINITY;

	memset(u, 0, sizeof *u);
	if (k < 3)
		return -1;
	for (size_t i = 0; i < k; i++)
		if (!(n[i] >= 1) || !(x[i] > 0))
			return -1;
	/* Start from every linearised sub-model whose parameters are physical and keep the
	 * best refined one: the full model's start can be negative on noisy data. */
	for (int use = 3; use >= 0; use--) {
		struct rpt_usl t = {0};
		if (usl_linear(n, x, k, use, &t) < 0)
			continue;
		usl_clamp(&t);
		usl_refine(n, x, k, &t);
		double s = usl_sse(n, x, k, &t);
		if (s < best_sse) {
			best = t;
			best_sse = s;
		}
	}
	if (!(best.lambda > 0))
		return -1;
	*u = best;
	mean_ss(x, k, &kx, &sst);
	sse = usl_sse(n, x, k, u);
	u->r2 = sst > 0 ? 1 - sse / sst : 1;
	/* Parameters at rounding level are zero: no peak, or no ceiling, in sight. */
	if (u->kappa < 1e-12)
		u->kappa = 0;
	if (u->sigma < 1e-9)
		u->sigma = 0;
	if (u->kappa > 0) {
		u->n_star = sqrt((1 - u->sigma) / u->kappa);
		u->x_star = rpt_usl_x(u, u->n_star);
	} else {
		u->n_star = INFINITY;
		u->x_star = u->sigma > 0 ? u->lambda / u->sigma : INFINITY;
	}
	u->ok = 1;
	return 0;
}

/* --- saturation ------------------------------------------------------------------------ */

void rpt_saturation(const double *x, size_t k, struct rpt_sat *s)
{
	memset(s, 0, sizeof *s);
	if (k == 0)
		return;
	for (size_t i = 1; i < k; i++)
		if (x[i] > x[s->peak])
			s->peak = i;
	for (size_t i = 0; i < k; i++)
		if (x[i] >= RPT_SAT_SHARE * x[s->peak]) {
			s->at = i;
			break;
		}
	s->saturated = s->at + 1 < k;
	s->ok = 1;
}

const char *rpt_verdict_name(enum rpt_verdict v)
{
	return v == RPT_REAL ? "real" : v == RPT_NOISE ? "noise" : "n/a";
}

const char *rpt_noise_name(enum rpt_noise n)
{
	return n == RPT_BY_RUNS          ? "runs"
	       : n == RPT_BY_ROUNDS      ? "paired runs"
	       : n == RPT_BY_GROUPS      ? "side by side"
	       : n == RPT_BY_CALIBRATION ? "calibration"
	                                 : "batch means";
}

int rpt_mk_s(const double *x, size_t n, int *k)
{
	int s = 0;

	*k = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		(*k)++;
		for (size_t j = i + 1; j < n; j++)
			if (!isnan(x[j]))
				s += (x[j] > x[i]) - (x[j] < x[i]);
	}
	return s;
}

double rpt_mk_p(const int *n, int k, int s)
{
	size_t max = 0, top = 0;
	long total = 0;
	double *p, *c, tail = 0;

	for (int g = 0; g < k; g++)
		if (n[g] >= 2) {
			max += (size_t)n[g] * (size_t)(n[g] - 1) / 2;
			total += (long)n[g] * (n[g] - 1) / 2;
		}
	if (max == 0)
		return 1;
	p = calloc(max + 1, sizeof *p);
	c = calloc(max + 2, sizeof *c);
	if (!p || !c) {
		free(p);
		free(c);
		return NAN;
	}
	/* The number of inversions: each group's m values inserted one by one, the j-th adding
	 * 0 .. j-1 of them with equal chance; convolved with running sums. */
	p[0] = 1;
	for (int g = 0; g < k; g++)
		for (int j = 2; j <= n[g]; j++) {
			c[0] = 0;
			for (size_t i = 0; i <= top; i++)
				c[i + 1] = c[i] + p[i];
			top += (size_t)j - 1;
			for (size_t i = 0; i <= top; i++) {
				size_t hi = i < top - ((size_t)j - 1) ? i : top - ((size_t)j - 1);
				size_t lo = i >= (size_t)j - 1 ? i - ((size_t)j - 1) : 0;
				p[i] = lo <= hi ? (c[hi + 1] - c[lo]) / j : 0;
			}
		}
	for (size_t i = 0; i <= top; i++)
		if (labs(total - 2 * (long)i) >= labs((long)s))
			tail += p[i];
	free(p);
	free(c);
	return tail > 1 ? 1 : tail;
}
