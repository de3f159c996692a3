/*
 * report_study — what the report reads about studies (soak study, soak calibrate): each
 * run's study tags, the studies as their designs are stated, the stored calibrations.
 * Not for other modules.
 */
#ifndef SOAK_REPORT_STUDY_H
#define SOAK_REPORT_STUDY_H

#include "report_read.h"

/* The study tags of one run: its study, round and place, warm-up, process, start and
 * group, and whether it is compared. */
int rpt_read_study_run(struct reader *rd, struct rpt_run *run);
/* Per database: its studies and calibrations into the report. */
int rpt_read_studies(struct reader *rd);

#endif
