/*
 * report_stats — the statistics the judges stand on (batch means, Welch's and Student's
 * tests, Mann-Kendall, the t distribution, the USL fit, saturation) and the names of their
 * verdicts.  Free of the model but for its statistics' types (report_int.h), so that the
 * unit tests drive them with synthetic numbers.  Stateless.  Not for other modules.
 */
#ifndef SOAK_REPORT_STATS_H
#define SOAK_REPORT_STATS_H

#include "report/report_int.h"

/* Batch means over x[0..n) split in segments seg[0..nseg) (their sum is n; nseg 0 means
 * one segment).  NAN observations are skipped. */
void rpt_batch_means(const double *x, size_t n, const size_t *seg, size_t nseg, struct rpt_bm *out);
/* Welch's test of b against a (a is the baseline), 95% interval. */
void rpt_welch(const struct rpt_bm *a, const struct rpt_bm *b, struct rpt_diff *d);
/* The same with a (1 - alpha) interval. */
void rpt_welch_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                     struct rpt_diff *d);
/* Student's two-sample t on run means (rpt_run_means, two or more a side): the spreads
 * pooled, n_a + n_b - 2 degrees of freedom, a (1 - alpha) interval.  With as many runs on
 * each side it holds its level even when the spreads differ, and with few runs it keeps
 * the degrees of freedom Welch's would lose. */
void rpt_student_alpha(const struct rpt_bm *a, const struct rpt_bm *b, double alpha,
                       struct rpt_diff *d);
/* One observation per run: the mean of x[0..n) (NAN skipped) as an rpt_bm whose batches
 * are the runs (batch 1), se = sd / sqrt(n), df = n - 1; se NAN below two runs. */
void rpt_run_means(const double *x, size_t n, struct rpt_bm *out);
/* b - a when the standard error of the difference and its degrees of freedom are known
 * (a calibration's run-to-run spread), with a (1 - alpha) interval. */
void rpt_diff_known(double a, double b, double se, double df, double alpha, struct rpt_diff *d);
/* Paired (rounds, blocks): the mean of the pairs' differences diff[0..n) against the mean
 * of their baselines base[0..n), its standard error from the differences' spread (n - 1
 * degrees of freedom), with a (1 - alpha) interval. */
void rpt_paired_alpha(const double *base, const double *diff, size_t n, double alpha,
                      struct rpt_diff *d);
/* Variance components of values x[0..n) of runs whose own standard errors (from their
 * intervals) are se[0..n) (NAN: unknown) and measured seconds secs[0..n); NAN values
 * are skipped. */
void rpt_vc_of(const double *x, const double *se, const double *secs, size_t n, struct rpt_vc *out);
/* Whether x lies outside the (1 - alpha) prediction interval of one more observation from
 * the sample s (an rpt_run_means, two or more runs): mean +- t sd sqrt(1 + 1/n).  0 when
 * it lies inside or s cannot say; *rel_pct gets 100 (x - mean) / mean, *half_pct the
 * interval's half-width in % of the mean. */
int rpt_outlier(const struct rpt_bm *s, double x, double alpha, double *rel_pct, double *half_pct);
/* Mann-Kendall's S of x[0..n) in that order (NAN skipped, ties count 0): the pairs that
 * rise minus the pairs that fall; *k gets how many values were not NAN. */
int rpt_mk_s(const double *x, size_t n, int *k);
/* The exact two-sided p-value of a summed Mann-Kendall S: P(|S| >= |s|) when S is the sum
 * of the S of k independent groups of n[0..k) values, each group in a random order with
 * no ties (so its S is C(m, 2) - 2 x its inversions, whose distribution is Mahonian).
 * 1 when no group has two values; NAN out of memory. */
double rpt_mk_p(const int *n, int k, int s);
/* Student's t distribution: P(T <= t) and its inverse, df > 0. */
double rpt_t_cdf(double t, double df);
double rpt_t_quantile(double p, double df);
/* USL fit of x[i] measured at concurrency n[i] (k points, k >= 3; n ascending, >= 1):
 * least squares, started from the linearised form N/X = (1 + sigma (N-1) + kappa N (N-1))
 * / lambda and refined by damped Gauss-Newton (Levenberg-Marquardt) on X itself, with
 * sigma kept in [0, 1] and kappa >= 0.  Returns 0, or -1 (u->ok 0) when it cannot fit. */
int rpt_usl_fit(const double *n, const double *x, size_t k, struct rpt_usl *u);
/* X predicted by a fit at concurrency n. */
double rpt_usl_x(const struct rpt_usl *u, double n);
/* Saturation of x[0..k) measured at ascending levels. */
void rpt_saturation(const double *x, size_t k, struct rpt_sat *s);
/* "real", "noise", "n/a". */
const char *rpt_verdict_name(enum rpt_verdict v);
/* "runs", "batch means", "calibration". */
const char *rpt_noise_name(enum rpt_noise n);

#endif
