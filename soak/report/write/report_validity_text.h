/*
 * report_validity_text — the words of the validity items whose kind says what judge/ found
 * (enum rpt_vkind): a cold start, a study's runs moving with their order, a generator
 * that set the pace or sent late, a host the generator shared, a GC log too short for a
 * memory verdict.  Not for other modules.
 */
#ifndef SOAK_REPORT_VALIDITY_TEXT_H
#define SOAK_REPORT_VALIDITY_TEXT_H

#include "report/report_int.h"

/* Words each item of r->validity that has no text yet (after rpt_build, before anything
 * shows them; again is a no-op); 0, or -1 out of memory. */
int rpt_validity_words(struct report *r);
struct sbuf;
/* The cold starts (cold_start items) said once when there are two or more: how many,
 * which runs, the range of their changes; b is left as it was for fewer.  Returns how
 * many cold_start items there are. */
int rpt_cold_once(const struct report *r, struct sbuf *b);

#endif
