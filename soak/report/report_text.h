/*
 * report_text — the sentence buffer every writer of report sentences uses (findings,
 * validity, verdicts, drift, study designs): a fixed buffer that cuts silently at its cap,
 * so a long list of runs never overflows and never fails.  Not for other modules.
 */
#ifndef SOAK_REPORT_TEXT_H
#define SOAK_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#define RPT_SENTENCE_MAX 2048 /* one sentence or one topic line, bytes */

struct sbuf {
	char s[RPT_SENTENCE_MAX]; /* the text (cut at the cap, always terminated) */
	size_t n;                 /* bytes used */
	size_t cap; /* a smaller cap than RPT_SENTENCE_MAX (a field's size), or 0: the whole */
};

/* Appends; past the cap the text is cut. */
__attribute__((format(printf, 2, 3))) void rpt_sb_printf(struct sbuf *b, const char *fmt, ...);
/* The text into buf (len > 0), cut to len - 1 bytes; returns buf. */
char *rpt_sb_copy(const struct sbuf *b, char *buf, size_t len);
/* Empties the buffer. */
void rpt_sb_reset(struct sbuf *b);
/* Text for HTML and XML: &, <, >, " escaped; control characters XML 1.0 does not allow
 * (all below 0x20 but tab and newline) written as '?'. */
void rpt_xml_esc(FILE *f, const char *s);
/* "run 3" or "runs 1, 3 and 5" of a comma-separated key list. */
void rpt_sb_runs(struct sbuf *b, const char *keys);

struct report;
/* The runs r->runs[i] with sel[i] set, said once however many: "1-4, 11 and 17" (three or
 * more that follow each other as a range), then " (warm-up: 1, 2)" when warm-up runs are
 * among them and `warm` is set; past eight items "between 3 and 104 (40 of them, 28
 * warm-up)".  Returns how many are selected. */
int rpt_sb_runlist(struct sbuf *b, const struct report *r, const unsigned char *sel, int warm);
/* The same as a phrase: "run 3", "runs 1-4 and 11-14 (warm-up: 1)", or "all 8 runs (2
 * warm-up)" ("both runs") when they are every run of label `label` (-1: of the report;
 * RPT_RUNS_LISTED: always listed). */
#define RPT_RUNS_LISTED (-2)
void rpt_sb_runsel(struct sbuf *b, const struct report *r, const unsigned char *sel, int label);

#endif
