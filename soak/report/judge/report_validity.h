/*
 * report_validity — can the numbers be trusted: the validity items (warnings and notes
 * about the data behind the figures), and the facts of what ran that a report shows.  Not
 * for other modules.
 */
#ifndef SOAK_REPORT_VALIDITY_H
#define SOAK_REPORT_VALIDITY_H

#include "report/report_int.h"

/* The validity warnings; 0, or -1 out of memory. */
int rpt_validity(struct report *r);

/* The facts of what ran that a report shows, in order; labels differing in one may be
 * confounded. */
struct rpt_env_key {
	const char *key;  /* as recorded (soak/run/env.h) */
	const char *name; /* as shown */
	int per_source;   /* 0: a fact of the load generator; 1: of a collected source */
	int confounds;    /* labels differing in it: 0 fine, 1 worth a note, 2 a warning */
};
extern const struct rpt_env_key rpt_env_keys[];
extern const int rpt_nenv_keys;

#endif
