/*
 * report_plot — the pictures: data files, the gnuplot scripts (rpt_scripts) copied into the
 * report directory, and gnuplot runs that draw each picture as SVG and PNG.  Not for other
 * modules.
 */
#ifndef SOAK_REPORT_PLOT_H
#define SOAK_REPORT_PLOT_H

#include "report/report_int.h"

/* Writes DIR/data/NAME.dat and DIR/plots/NAME.gp and runs gnuplot into
 * DIR/img/ (NAME.svg and NAME.png); fills r->pics.  A missing gnuplot is not an error
 * (r->plot_note says so); a script that fails is. */
int rpt_plots(struct report *r, const char *dir, char *err, size_t errlen);
/* Registers the pictures without drawing them (--no-plots). */
int rpt_plan_pictures(struct report *r, char *err, size_t errlen);

#endif
