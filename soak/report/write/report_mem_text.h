/*
 * report_mem_text — a memory verdict (judge/report_mem.h) in words, with the numbers that
 * make it: what the findings, the tables and report.json say about a source's process
 * memory.  Not for other modules.
 */
#ifndef SOAK_REPORT_MEM_TEXT_H
#define SOAK_REPORT_MEM_TEXT_H

#include "report/report_int.h"

/* The verdict in a sentence, with its numbers ("keeps rising: +12.0
 * MB/h over the 2h measured ..."), cut at RPT_MEM_WHY_MAX - 1 bytes. */
#define RPT_MEM_WHY_MAX 512
char *rpt_mem_why(const struct rpt_mem *m, char *buf, size_t len);
/* The source's memory verdict in words: by kind when it has kinds ("cache filling: shared
 * memory 52.1 of 165.4 MB ..."), else rpt_mem_why of the whole; cut at RPT_MEM_WHY_MAX - 1.
 */
char *rpt_mem_src_why(const struct rpt_source *s, char *buf, size_t len);
/* The verdict in a table cell: "filling (52 of 165 MB)", "rising (private +12.0 MB/h)",
 * else rpt_mem_name's word. */
char *rpt_mem_cell(const struct rpt_source *s, char *buf, size_t len);
/* Label l's memory verdicts in words, worst first: "normal (app)", "suspected leak (app,
 * run 2), normal (app, run 5; db)", "normal (app), cache filling (db)"; "" without any.
 * Cut at len - 1 bytes (RPT_VMEM_MAX: what the verdict row shows); returns out. */
#define RPT_VMEM_MAX 192
char *rpt_memory_verdicts(const struct report *r, int l, char *out, size_t len);

#endif
