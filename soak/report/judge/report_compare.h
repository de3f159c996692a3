/*
 * report_compare — each label's cells against the baseline's (struct rpt_cmp): every figure
 * judged by the comparison's one method (enum rpt_noise) as one family, what it resolves
 * and the advice to resolve more; the cells' statistics and keys.  Its side-by-side part is
 * report_groups.h.  Not for other modules.
 */
#ifndef SOAK_REPORT_COMPARE_H
#define SOAK_REPORT_COMPARE_H

#include "report/report_int.h"

/* The comparisons of every cell with the baseline's at the same key, judged; 0, or -1 with
 * err. */
int rpt_compare(struct report *r, char *err, size_t errlen);
/* The two values of figure f that comparison m prints, a (the baseline's) and v: the
 * means its interval is built around (d.a and d.b, so that the change (v - a) / a is the
 * interval's centre: one estimate, one interval), or the cells' merged figures where the
 * figure has no interval (n/a).  Every writer shows a change from these. */
void rpt_cmp_values(const struct rpt_cmp *m, int f, double *a, double *v);
/* Fills a cell's per-figure statistics (value, bm, run, vc) from its compared runs. */
int rpt_cell_stats(const struct report *r, struct rpt_cell *c);
/* A figure an `until` names ("tps", "cpu.app", "memory.db"), as an index of the report's
 * figures (RPT_FIG_*), or -1 when the report has no such figure. */
int rpt_fig_index(const struct report *r, const char *name);
/* The advice for resolving target_pct of base with runs whose variance components are a
 * and b (rpt_vc; between NAN: unknown) when each figure is tested at 1 - alpha: the
 * rounds and measured run length with the smallest total time (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time", ISMM 2013: the repetitions at each level
 * chosen by their variances and costs), searched over runs of 1/4 to 64 times the
 * current length and 2 to RPT_ADVISE_MAX_ROUNDS rounds.  res->rounds 0 when the target
 * cannot be reached so (or the noise is unknown). */
#define RPT_ADVISE_MAX_ROUNDS 100
void rpt_advise(const struct rpt_vc *a, const struct rpt_vc *b, double base, double target_pct,
                double alpha, struct rpt_resolve *res);

#endif
