/*
 * report_plot — the pictures: data files, the gnuplot scripts (rpt_scripts) copied into the
 * report directory, and gnuplot runs that draw each picture as SVG and PNG.  Not for other
 * modules.
 */
#ifndef SOAK_REPORT_PLOT_H
#define SOAK_REPORT_PLOT_H

#include "outdir.h"
#include "report/report_int.h"

/* Writes the data files (data/NAME.dat) and scripts (plots/NAME.gp) into a private folder
 * in dir, runs gnuplot there (no start-up file read) into img/ (NAME.svg and NAME.png),
 * then moves all three into dir's data/, plots/ and img/ (outdir.h: nothing followed or
 * another's replaced); fills r->pics.  A missing gnuplot is not an error (r->plot_note
 * says so); a script that fails is. */
int rpt_plots(struct report *r, const struct outdir *dir, char *err, size_t errlen);
/* Registers the pictures without drawing them (--no-plots). */
int rpt_plan_pictures(struct report *r, char *err, size_t errlen);

#endif
