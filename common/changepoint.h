/*
 * changepoint — where a series of run figures shifted: e-divisive means (Matteson and
 * James, "A Nonparametric Approach for Multiple Change Point Analysis of Multivariate
 * Data", JASA 2014), the method MongoDB's performance CI and Apache Otava (Hunter) use.
 *
 * The method, as done here:
 *   - The divergence of two samples X (n) and Y (m) is the energy statistic
 *       Q = nm/(n+m) * (2/(nm) sum|X-Y| - 2/(n(n-1)) sum_{i<k}|X-X| - 2/(m(m-1)) sum_{j<k}|Y-Y|),
 *     distances to the power 1: it is 0 in expectation when X and Y come from one
 *     distribution and grows with any difference between them (mean first of all), and it
 *     asks nothing of the noise's shape.
 *   - Within a segment [s, e) of the series, the candidate is the split tau (and the right
 *     end kappa, s < tau < kappa <= e) that maximises Q(Z[s, tau), Z[tau, kappa)); each
 *     side holds at least min_size points, so one odd night is an outlier, not a level.
 *   - Divisive: the best candidate over all current segments is tested; when significant
 *     it becomes a change point and splits its segment; the search starts again, until a
 *     test fails or max_points are found.
 *   - The test is the method's permutation test: the points are shuffled within each
 *     current segment and the whole search is run again on the shuffled series; the
 *     p-value is (exceedances + 1) / (permutations + 1), significant at p <= alpha.
 *     Because each permutation redoes the maximisation, the p-value accounts for having
 *     picked the best split (a t-test on the chosen split would not).
 *
 * Bounded work: at most the newest max_n valid points are analysed (older ones are left
 * out and cp_result.from says where analysis starts); a test runs at most `permutations`
 * permutations and stops as soon as its answer cannot change (exceedances already past
 * what significance allows: Besag and Clifford's sequential stop), so a flat series costs
 * a few dozen permutations; at most max_points + 1 tests.  One permutation costs
 * O(analysed^2): a 2-D prefix sum of the distances per segment, then every (tau, kappa) in
 * O(1).  Memory: (max_n + 1)^2 doubles while it runs.
 *
 * Deterministic: the permutations come from a generator seeded with opts.seed, so the same
 * series always gives the same answer.  NAN values are left out; indices refer to x.
 * No database, no I/O, no global state: the unit tests drive it with synthetic series.
 */
#ifndef SOAK_CHANGEPOINT_H
#define SOAK_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#define CP_ALPHA        0.01 /* significance of each test */
#define CP_PERMUTATIONS 499  /* permutations of a test, at most (p resolves to 0.002) */
#define CP_MIN_SIZE     3    /* points on each side of a change, at least */
#define CP_MAX_N        200  /* newest valid points analysed, at most */
#define CP_MAX_POINTS   8    /* change points of one series, at most */
#define CP_SEED         0x736f616b68697374ULL

struct cp_opts {
	double alpha;     /* significance level of each test (0 < alpha < 1) */
	int permutations; /* permutations per test, at most (>= 1) */
	int min_size;     /* points each side of a split (>= 2) */
	int max_n;        /* newest valid points analysed (>= 2 * min_size) */
	int max_points;   /* change points, at most (1..CP_MAX_POINTS) */
	uint64_t seed;    /* the permutations' generator */
};

/* One change point. */
struct cp_point {
	size_t at;          /* index into x of the first point at the new level */
	double qhat;        /* the divergence Q of the split when it was found */
	double p;           /* its permutation p-value */
	int perms;          /* permutations its test ran */
	size_t n_before;    /* valid points in the segment before it (to the previous change
	                     * point, or the start of the analysis) */
	size_t n_after;     /* ... and after it (to the next one, or the end) */
	double mean_before; /* mean of the segment before */
	double mean_after;  /* mean of the segment after */
	double sd_before;   /* sample standard deviations (NAN below two points) */
	double sd_after;    /* ... */
	double change_pct;  /* 100 (after - before) / |before|; NAN when before is 0 */
};

struct cp_result {
	struct cp_point cp[CP_MAX_POINTS]; /* by position */
	int n;                             /* change points found */
	size_t from;                       /* first index of x analysed (the newest max_n
	                                    * valid points); 0 when all were */
	size_t analysed;                   /* valid points analysed */
	int tests;                         /* permutation tests run */
	long perms;                        /* permutations run in all */
	double p_stop; /* the p-value (estimate at its stop) of the test that found nothing
	                * more; NAN when no test ran or max_points ended the search */
};

/* The defaults above. */
void cp_defaults(struct cp_opts *o);
/* Finds the change points of x[0..n) into *res.  A series of fewer than 2 * min_size
 * valid points has none (no test runs).  0, or -1 when out of memory or opts are out of
 * range (res then holds no change point). */
int cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_result *res);

#endif
