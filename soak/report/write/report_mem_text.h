/*
 * report_mem_text — a memory verdict (judge/report_mem.h) in words, with the numbers that
 * make it: what the findings, the tables and report.json say about a source's process
 * memory.  Not for other modules.
 */
#ifndef SOAK_REPORT_MEM_TEXT_H
#define SOAK_REPORT_MEM_TEXT_H

#include "report/report_int.h"

struct sbuf;
/* Appends the verdict in a sentence, with its numbers ("keeps rising: +12.0
 * MB/h over the 2h measured ..."). */
void rpt_mem_why(struct sbuf *out, const struct rpt_mem *m);
/* Appends the source's memory verdict in words: by kind when it has kinds ("cache
 * filling: shared memory 52.1 of 165.4 MB ..."), else rpt_mem_why of the whole. */
void rpt_mem_src_why(struct sbuf *out, const struct rpt_source *s);
/* The verdict in a table cell: "filling (52 of 165 MB)", "rising (private +12.0 MB/h)",
 * else rpt_mem_name's word. */
char *rpt_mem_cell(const struct rpt_source *s, char *buf, size_t len);
/* Appends label l's memory verdicts in words, worst first: "normal (app)", "suspected
 * leak (app, run 2), normal (app, run 5; db)" (the runs only with_runs: report.json;
 * the verdict row says "suspected leak (app), normal (app; db)"), "normal (app), cache
 * filling (db)"; nothing without any. */
void rpt_memory_verdicts(struct sbuf *out, const struct report *r, int l, int with_runs);

#endif
