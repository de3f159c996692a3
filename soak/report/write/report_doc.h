/*
 * report_doc — the report as one document: the blocks report.md and report.html show, in
 * the order a reader needs them, built once from the model so that the two writers say
 * the same things in the same order and only differ in markup.  Not for other modules.
 *
 * Order: title and what was read; the verdict (table and a one-sentence answer per
 * label: what a 1280x800 window shows first) and how to read the table; can these numbers
 * be trusted (one item per code and label, its runs listed or counted; many cold starts
 * as one); what matters most; the other findings by topic; how it was measured (what
 * every comparison's method shares once, then what each adds; the study's design);
 * where CPU per request moved (each profile's answer, its top frames, its flame graph);
 * the labels over time; how long to run; the history of each series, when the databases
 * hold one (history/history.h); then a link to each section of the details file.
 *
 * The details file (details.md, details.html beside the report) holds what a reader looks
 * up rather than reads: what ran (the environment), the detail tables (a row per run, per
 * comparison, per process) and the pictures of each run.  Its blocks are in the same
 * document, marked `details`; report.md links each of its sections where they were
 * (rpt_doc_slug: the anchor both writers give a heading).
 *
 * Ownership: the document owns its blocks, their items and the texts it made (doc_str);
 * other texts point into the report, which must outlive the document.  rpt_doc_free()
 * releases what it owns (a zeroed document is fine).
 */
#ifndef SOAK_REPORT_DOC_H
#define SOAK_REPORT_DOC_H

#include "report/report_int.h"

enum rpt_block_kind {
	RPT_B_HEADING,  /* a section heading (level 1..3) */
	RPT_B_PARA,     /* a paragraph, with an optional bold lead ("Design.") */
	RPT_B_LIST,     /* a bulleted list of items */
	RPT_B_TABLE,    /* a table, with its own heading and note */
	RPT_B_PICTURES, /* the pictures that compare labels (compare 1) or of each run (0) */
	RPT_B_FLAME,    /* the flame graph of report.pcmps[compare] (its SVG, pcmp.svg) */
};

/* One item of a list: "**tag** `code`: text". */
struct rpt_doc_item {
	const char *tag;    /* a bold lead ("warning", "note"), or NULL */
	const char *code;   /* a code shown as such ("short_window"), or NULL */
	const char *text;   /* the item */
	const char *cls;    /* HTML class of the item ("warn", "info"), or NULL */
	const char *anchor; /* the text links to this section of the details file ("runs"),
	                     * or NULL */
	const char *tail;   /* after the link, plain text (": 30 rows."), or NULL */
};

struct rpt_block {
	enum rpt_block_kind kind;
	int level;                     /* heading: 1, 2 or 3 */
	const char *cls;               /* paragraph or list: its HTML class ("meta", "note",
	                                * "verdict", "findings", "validity"), or NULL */
	const char *lead;              /* paragraph: its bold lead, or NULL */
	const char *text;              /* heading or paragraph text */
	const struct rpt_table *table; /* table */
	int note_apart;                /* table: its note is not shown with it (the document
	                                * places it as a paragraph of its own) */
	int compare;                   /* pictures: 1 the labels compared, 0 each run's;
	                                * flame graph: the index into report.pcmps */
	struct rpt_doc_item *items;    /* list: its items (owned) */
	int nitems;                    /* entries in items */
	int details;                   /* 1: in the details file, 0: in the report */
};

struct rpt_doc {
	const struct report *r;   /* the report it shows */
	struct rpt_block *b;      /* the blocks in order (owned) */
	int n;                    /* blocks used */
	size_t cap;               /* blocks allocated */
	char **strs;              /* texts the document made (owned) */
	int nstrs;                /* texts used */
	size_t capstrs;           /* texts allocated */
	struct rpt_table *front;  /* the verdict and how-long tables (owned) */
	int nfront;               /* entries in front */
	struct rpt_table *tables; /* the detail tables (owned) */
	int ntables;              /* entries in tables */
	struct rpt_table *env;    /* the environment tables (owned) */
	int nenv;                 /* entries in env */
	struct rpt_table *hist;   /* the history tables, when a series exists (owned) */
	int nhist;                /* entries in hist */
	struct rpt_table *prof;   /* where CPU per request moved: one per profile (owned) */
	int nprof;                /* entries in prof */
};

/* The table of each run's pictures: its columns (what a picture shows, rpt_picture.col) in
 * the order they first come, at most max; returns how many. */
int rpt_doc_pic_cols(const struct report *r, const char **cols, int max);
/* The picture of run `run` in column col (NULL: any column), or -1. */
int rpt_doc_pic(const struct report *r, int run, const char *col);

/* The anchor of a heading: its letters and digits lowercased, spaces and '-' as '-', the
 * rest left out (GitHub's rule for ASCII headings), in out (at most outlen - 1 bytes). */
void rpt_doc_slug(const char *title, char *out, size_t outlen);

/* Builds the document of r into d (zeroed first); 0, or -1 with err. */
int rpt_doc_build(const struct report *r, struct rpt_doc *d, char *err, size_t errlen);
void rpt_doc_free(struct rpt_doc *d);

#endif
