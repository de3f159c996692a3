/*
 * report_flame — the differential flame graph of a profile comparison (struct rpt_pcmp):
 * the baseline's and the label's stacks as two flame graphs on one scale of µs of CPU per
 * request, each frame coloured by its judged change; SVG, written by soak itself (no
 * Perl), with a tooltip per box.  Not for other modules.
 */
#ifndef SOAK_REPORT_FLAME_H
#define SOAK_REPORT_FLAME_H

#include "report/report_int.h"

/* The SVG text (malloc'd), NULL out of memory. */
char *rpt_flame_svg(const struct report *r, const struct rpt_pcmp *pc);

#endif
