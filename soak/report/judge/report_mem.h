/*
 * report_mem — a process's memory over a run's measured window judged (struct rpt_mem):
 * flat, levelling off, at its limit, rising or filling, as a whole and by kind.  The
 * reading judges each source as its samples are read (rpt_mem_judge, handed to read/ by
 * report_load.c); write/ words the verdicts (report_mem_text.h).  Not for other modules.
 */
#ifndef SOAK_REPORT_MEM_H
#define SOAK_REPORT_MEM_H

#include "report/report_int.h"

/* Judges points p[0..n) (the measured window's samples, time order) against limit_mb
 * (<= 0: none) into *m; a window under min_hours (<= 0: RPT_MEM_MIN_HOURS) is too short
 * for a trend. */
void rpt_mem_analyze(const struct rpt_vpoint *p, size_t n, double limit_mb, double min_hours,
                     struct rpt_mem *m);
/* "flat", "levels_off", "at_limit", "rising", "filling", "unknown". */
const char *rpt_mem_name(enum rpt_mem_verdict v);
/* The verdict of the source's memory from its kinds, when it has them: private memory
 * rising is `rising` (by private); else a whole held at its configured limit stays
 * `at_limit`; else shared memory growing (rising or levelling off) with a known bound is
 * `filling`; else shared memory rising without one is `rising` (by shared); else m (the
 * whole's verdict) stands, by file when the whole and the file-backed pages rise.  Sets
 * m->verdict and k->by. */
void rpt_mem_by_kind(struct rpt_mem *m, struct rpt_memkinds *k);
/* "private", "shared", "file". */
const char *rpt_memk_name(enum rpt_memk k);
/* A source's memory verdicts from its measured window: the whole's samples p[0..n)
 * against limit_mb (rpt_mem_analyze) into *m, each kind's kp[j][0..kn) into k->k[j] when
 * k->has, then the verdict by kind (rpt_mem_by_kind). */
void rpt_mem_judge(struct rpt_mem *m, struct rpt_memkinds *k, const struct rpt_vpoint *p, size_t n,
                   double limit_mb, struct rpt_vpoint *const kp[RPT_MEMK_N], size_t kn,
                   double min_hours);

#endif
