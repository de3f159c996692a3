/* changepoint: e-divisive means with its permutation test (see changepoint.h).
 * Pure statistics: no database, no state; the permutation test's draws come from the
 * caller's seed, so a history's change points are the same each time it is read. */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one detection works with. */
struct cpx {
	const struct cp_opts *o;       /* the options */
	double *z;                     /* the analysed values (valid points, oldest first) */
	double *zp;                    /* a permuted copy */
	size_t m;                      /* how many */
	double *pre;                   /* (m + 1)^2 prefix sums of one segment's distances */
	size_t cut[CP_MAX_POINTS + 2]; /* segment bounds: 0, change points ascending, m */
	int ncut;                      /* entries in cut */
	uint64_t rng;                  /* splitmix64 state */
};

static uint64_t next_u64(struct cpx *c)
{
	uint64_t x = (c->rng += 0x9e3779b97f4a7c15ULL);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The sum of the distances of rows [a0, a1) and columns [b0, b1) from prefix sums P of
 * row width w. */
static inline double rect(const double *P, size_t w, size_t a0, size_t a1, size_t b0, size_t b1)
{
	return P[a1 * w + b1] - P[a0 * w + b1] - P[a1 * w + b0] + P[a0 * w + b0];
}

/* The best split of z[s, e): the largest Q over s + min <= tau <= e - min and
 * tau + min <= kappa <= e; *tau gets its split.  -INFINITY when the segment is too short. */
static double best_split(struct cpx *c, const double *z, size_t s, size_t e, size_t *tau)
{
	size_t len = e - s, w = len + 1, min = (size_t)c->o->min_size;
	double *P = c->pre, best = -INFINITY;

	if (len < 2 * min)
		return best;
	/* P[i][j] = sum of |z[s+a] - z[s+b]| over a < i, b < j. */
	for (size_t j = 0; j <= len; j++)
		P[j] = 0;
	for (size_t i = 0; i < len; i++) {
		double row = 0;
		P[(i + 1) * w] = 0;
		for (size_t j = 0; j < len; j++) {
			row += fabs(z[s + i] - z[s + j]);
			P[(i + 1) * w + j + 1] = P[i * w + j + 1] + row;
		}
	}
	for (size_t t = min; t + min <= len; t++) {
		double n1 = (double)t, wx = rect(P, w, 0, t, 0, t) / 2;
		double left = 2 * wx / (n1 * (n1 - 1));
		for (size_t k = t + min; k <= len; k++) {
			double n2 = (double)(k - t);
			double cross = rect(P, w, 0, t, t, k), wy = rect(P, w, t, k, t, k) / 2;
			double q = n1 * n2 / (n1 + n2) *
			           (2 * cross / (n1 * n2) - left - 2 * wy / (n2 * (n2 - 1)));
			if (q > best) {
				best = q;
				*tau = s + t;
			}
		}
	}
	return best;
}

/* The best split over every current segment of z; *tau gets it (-INFINITY: none). */
static double best_over_segments(struct cpx *c, const double *z, size_t *tau)
{
	double best = -INFINITY;

	for (int i = 0; i + 1 < c->ncut; i++) {
		size_t t = 0;
		double q = best_split(c, z, c->cut[i], c->cut[i + 1], &t);
		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return best;
}

/* The permutation test of a split whose Q is q: the p-value, *perms the permutations run.
 * Stops once the exceedances make significance impossible. */
static double perm_test(struct cpx *c, double q, int *perms)
{
	int R = c->o->permutations, k = 0, r;
	/* Significant iff (k + 1) / (R + 1) <= alpha, i.e. k <= limit. */
	double limit = c->o->alpha * (R + 1) - 1;

	memcpy(c->zp, c->z, c->m * sizeof *c->zp);
	for (r = 1; r <= R; r++) {
		size_t t;
		for (int i = 0; i + 1 < c->ncut; i++) {
			size_t s = c->cut[i], len = c->cut[i + 1] - s;
			for (size_t j = len; j > 1; j--) {
				size_t u = (size_t)(next_u64(c) % j);
				double tmp = c->zp[s + j - 1];
				c->zp[s + j - 1] = c->zp[s + u];
				c->zp[s + u] = tmp;
			}
		}
		/* Sums in another order may differ in the last bits: a tie is an exceedance. */
		if (best_over_segments(c, c->zp, &t) >= q - 1e-9 * fabs(q))
			k++;
		if (k > limit)
			break;
	}
	if (r > R)
		r = R;
	*perms = r;
	return (double)(k + 1) / (double)(r + 1);
}

static void add_cut(struct cpx *c, size_t tau)
{
	int i = c->ncut;
	while (i > 0 && c->cut[i - 1] > tau) {
		c->cut[i] = c->cut[i - 1];
		i--;
	}
	c->cut[i] = tau;
	c->ncut++;
}

/* Mean and sample standard deviation of z[s, e). */
static void seg_stats(const double *z, size_t s, size_t e, double *mean, double *sd)
{
	double sum = 0, ss = 0, n = (double)(e - s);

	for (size_t i = s; i < e; i++)
		sum += z[i];
	*mean = sum / n;
	for (size_t i = s; i < e; i++)
		ss += (z[i] - *mean) * (z[i] - *mean);
	*sd = e - s >= 2 ? sqrt(ss / (n - 1)) : NAN;
}

void cp_defaults(struct cp_opts *o)
{
	o->alpha = CP_ALPHA;
	o->permutations = CP_PERMUTATIONS;
	o->min_size = CP_MIN_SIZE;
	o->max_n = CP_MAX_N;
	o->max_points = CP_MAX_POINTS;
	o->seed = CP_SEED;
}

int cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_result *res)
{
	struct cpx c = {.o = o, .rng = o->seed};
	size_t *idx = NULL, valid = 0;
	double found_p[CP_MAX_POINTS], found_q[CP_MAX_POINTS];
	int found_perms[CP_MAX_POINTS], rc = -1;

	memset(res, 0, sizeof *res);
	res->p_stop = NAN;
	if (!(o->alpha > 0 && o->alpha < 1) || o->permutations < 1 || o->min_size < 2 ||
	    o->max_n < 2 * o->min_size || o->max_points < 1 || o->max_points > CP_MAX_POINTS)
		return -1;
	/* The newest max_n valid points, oldest first. */
	for (size_t i = n; i-- > 0 && valid < (size_t)o->max_n;)
		valid += !isnan(x[i]);
	res->analysed = valid;
	if (valid < 2 * (size_t)o->min_size)
		return 0;
	c.m = valid;
	c.z = malloc(valid * sizeof *c.z);
	c.zp = malloc(valid * sizeof *c.zp);
	idx = malloc(valid * sizeof *idx);
	c.pre = malloc((valid + 1) * (valid + 1) * sizeof *c.pre);
	if (!c.z || !c.zp || !idx || !c.pre)
		goto done;
	for (size_t i = n, k = valid; k > 0; i--)
		if (!isnan(x[i - 1])) {
			k--;
			c.z[k] = x[i - 1];
			idx[k] = i - 1;
		}
	res->from = idx[0];
	c.cut[0] = 0;
	c.cut[1] = valid;
	c.ncut = 2;
	while (res->n < o->max_points) {
		size_t tau = 0;
		int perms;
		double q = best_over_segments(&c, c.z, &tau), p;
		if (!(q > 0)) { /* no split, or none that diverges */
			res->p_stop = q == -INFINITY ? NAN : 1;
			break;
		}
		p = perm_test(&c, q, &perms);
		res->tests++;
		res->perms += perms;
		if (p > o->alpha) {
			res->p_stop = p;
			break;
		}
		/* Kept in position order with the cuts: the new one's place among them. */
		int at = 0;
		while (at < res->n && c.cut[at + 1] < tau)
			at++;
		for (int i = res->n; i > at; i--) {
			found_p[i] = found_p[i - 1];
			found_q[i] = found_q[i - 1];
			found_perms[i] = found_perms[i - 1];
		}
		found_p[at] = p;
		found_q[at] = q;
		found_perms[at] = perms;
		add_cut(&c, tau);
		res->n++;
	}
	/* Each change point between its neighbours in the final segmentation. */
	for (int i = 0; i < res->n; i++) {
		struct cp_point *cp = &res->cp[i];
		size_t s = c.cut[i], t = c.cut[i + 1], e = c.cut[i + 2];
		cp->at = idx[t];
		cp->qhat = found_q[i];
		cp->p = found_p[i];
		cp->perms = found_perms[i];
		cp->n_before = t - s;
		cp->n_after = e - t;
		seg_stats(c.z, s, t, &cp->mean_before, &cp->sd_before);
		seg_stats(c.z, t, e, &cp->mean_after, &cp->sd_after);
		cp->change_pct = cp->mean_before != 0 ? 100 * (cp->mean_after - cp->mean_before) /
		                                            fabs(cp->mean_before)
		                                      : NAN;
	}
	rc = 0;
done:
	free(c.z);
	free(c.zp);
	free(idx);
	free(c.pre);
	return rc;
}
