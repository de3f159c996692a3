/*
 * report_text — the sentence buffer every writer of report sentences uses (findings,
 * validity, verdicts, drift, study designs): common/buf.h's growing string, so no sentence
 * is ever cut.  A zeroed sbuf is empty; rpt_sb_release frees it.  Out of memory, the
 * text keeps what it had and its buf's oom flag says so.  A run list is worded one way,
 * however it is given (rpt_sb_runs, rpt_sb_runlist, rpt_sb_runsel).  Not for other modules.
 */
#ifndef SOAK_REPORT_TEXT_H
#define SOAK_REPORT_TEXT_H

#include "buf.h"

#include <stddef.h>
#include <stdio.h>

struct sbuf {
	struct buf b; /* the text so far (owned; grows without a bound) */
};

/* Appends. */
__attribute__((format(printf, 2, 3))) void rpt_sb_printf(struct sbuf *b, const char *fmt, ...);
/* The text ("" when empty); valid until the next call that adds to b or releases it. */
const char *rpt_sb_str(const struct sbuf *b);
/* Its length in bytes. */
size_t rpt_sb_len(const struct sbuf *b);
/* Cuts the text back to its first n bytes (n <= its length): a writer takes back a word. */
void rpt_sb_trim(struct sbuf *b, size_t n);
/* Empties the buffer (its memory kept). */
void rpt_sb_reset(struct sbuf *b);
/* Frees the text; the buffer is zeroed (empty) again. */
void rpt_sb_release(struct sbuf *b);
/* A copy of the text, the caller's to free; NULL out of memory. */
char *rpt_sb_dup(const struct sbuf *b);
/* Text for HTML and XML: &, <, >, " escaped; control characters XML 1.0 does not allow
 * (all below 0x20 but tab and newline) written as '?'. */
void rpt_xml_esc(FILE *f, const char *s);
/* "run 3" or "runs 1, 3 and 5" of a comma-separated key list; past eight items its count
 * and span, "23 runs, 3-117" (report.json lists each). */
void rpt_sb_runs(struct sbuf *b, const char *keys);

/* A change in % (lo..hi, one sign; lo == hi: one value) in words: "59.5 % fewer",
 * "52.3-91.0 % fewer"; a rise past 100 % as its factor, "×373 slower", "×234-×581
 * slower".  `up` and `down` are the words of a rise and a fall. */
void rpt_sb_change(struct sbuf *b, double lo, double hi, const char *up, const char *down);

struct report;
/* The runs r->runs[i] with sel[i] set, said once however many: "1-4, 11 and 17" (three or
 * more that follow each other in the report and in id as a range), then " (warm-up: 1, 2)"
 * when warm-up runs are among them and `warm` is set; past eight items its count and
 * span, "40 runs, 3-104 (28 warm-up)" (report.json lists each).  Worded as rpt_sb_runs
 * words a key list. */
void rpt_sb_runlist(struct sbuf *b, const struct report *r, const unsigned char *sel, int warm);
/* The same as a phrase: "run 3", "runs 1-4 and 11-14 (warm-up: 1)", or "all 8 runs (2
 * warm-up)" ("both runs") when they are every run of label `label` (-1: of the report;
 * RPT_RUNS_LISTED: always listed). */
#define RPT_RUNS_LISTED (-2)
void rpt_sb_runsel(struct sbuf *b, const struct report *r, const unsigned char *sel, int label);

#endif
