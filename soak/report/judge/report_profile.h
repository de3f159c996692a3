/*
 * report_profile — where CPU per request moved: each comparison's CPU profiles (soak-perf's
 * windows of its two cells) turned into every frame's CPU per request a side, self and
 * total, and the change of each frame's self part judged with the sides' processes as the
 * observations.  Not for other modules.
 *
 * A frame's CPU per request in a process is its share of the process's samples (all its
 * windows in the cell) times the process's CPU per request as the collector measured it
 * (the figure the verdict judges), so that the frames add up to that figure; perf's own
 * count (samples / hz / requests) runs short where perf began sampling late, and is the
 * fallback only.  A side's figure is the mean of its processes'.  The
 * processes are the observations, never the windows of one process: two JVMs of one
 * server inline differently, so one process a side would call a frame that one JIT
 * inlined and the other did not a real change (shared/lab/profile.md).  With two or more
 * processes a side, the frames that hold at least RPT_PROF_SHARE of a side's CPU form one
 * family judged by Holm's step-down at RPT_ALPHA (Student's t with as many processes a
 * side, Welch's otherwise); with one, each frame is shown and not judged.
 */
#ifndef SOAK_REPORT_PROFILE_H
#define SOAK_REPORT_PROFILE_H

#include "report/report_int.h"

#define RPT_PROF_SHARE     0.01 /* a frame judged holds this share of a side's CPU */
#define RPT_PROF_MAX_FAMILY 64  /* frames judged at most (the largest by their CPU) */

/* r->pcmps: for every comparison, one per source both cells have profiles of; 0, or -1
 * with err (out of memory). */
int rpt_profiles(struct report *r, char *err, size_t errlen);
/* The comparison's profile of `source` ("app"), or of its first source when NULL; NULL
 * when it has none. */
const struct rpt_pcmp *rpt_profile_of(const struct report *r, int cmp, const char *source);

/* What keeps a label's profiles from saying where its CPU goes, as validity items, one per
 * label and code: profile_stacks (a JVM's stacks stop at JIT code, or its JIT code has no
 * names: how to fix it) and profile_missing (a window without a profile: why).  *out is
 * allocated (NULL when none); rpt_items_free.  0, or -1 out of memory. */
int rpt_profile_items(const struct report *r, struct rpt_item **out, int *n);

#endif
