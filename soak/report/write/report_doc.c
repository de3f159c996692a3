/* report_doc: the report as one document of blocks (report_doc.h), which report_md.c and
 * report_html.c only mark up. */
#include "report_doc.h"
#include "report_findings.h"
#include "report_front.h"
#include "report_method_text.h"
#include "report_profile_text.h"
#include "report_study_text.h"
#include "report_tables.h"
#include "report_validity_text.h"
#include "report_verdict_text.h"
#include "history/history.h"
#include "report/report_text.h"

#include "buf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends block x; NULL out of memory. */
static struct rpt_block *block(struct rpt_doc *d, struct rpt_block x)
{
	if (buf_grow(&d->b, &d->cap, (size_t)d->n + 1, sizeof *d->b, 32) < 0)
		return NULL;
	d->b[d->n] = x;
	return &d->b[d->n++];
}

/* A text the document keeps (printf-style); NULL out of memory. */
__attribute__((format(printf, 2, 3))) static const char *doc_str(struct rpt_doc *d, const char *fmt,
                                                                 ...)
{
	va_list ap;
	char *s = NULL;

	if (buf_grow(&d->strs, &d->capstrs, (size_t)d->nstrs + 1, sizeof *d->strs, 16) < 0)
		return NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		d->strs[d->nstrs++] = s;
	return s;
}

static int heading(struct rpt_doc *d, int level, const char *text)
{
	struct rpt_block x = {.kind = RPT_B_HEADING, .level = level, .text = text};
	return text && block(d, x) ? 0 : -1;
}

static int para(struct rpt_doc *d, const char *cls, const char *lead, const char *text)
{
	struct rpt_block x = {.kind = RPT_B_PARA, .cls = cls, .lead = lead, .text = text};
	return text && block(d, x) ? 0 : -1;
}

/* A list of n items, to be filled by the caller; NULL out of memory. */
static struct rpt_block *list(struct rpt_doc *d, const char *cls, int n)
{
	struct rpt_block x = {.kind = RPT_B_LIST, .cls = cls};
	struct rpt_block *b = NULL;

	x.items = calloc((size_t)(n > 0 ? n : 1), sizeof *x.items);
	if (x.items && !(b = block(d, x)))
		free(x.items);
	return b;
}

static int table(struct rpt_doc *d, const struct rpt_table *t)
{
	return block(d, (struct rpt_block){.kind = RPT_B_TABLE, .table = t}) ? 0 : -1;
}

/* Tables from..n-1 of t, each a block. */
static int tables(struct rpt_doc *d, const struct rpt_table *t, int from, int n)
{
	for (int i = from; i < n; i++)
		if (table(d, &t[i]) < 0)
			return -1;
	return 0;
}

/* The verdict: its table, the one-sentence answer of each label right under it (what the
 * first screen must hold), then the table's note.  What the intervals resolve and what
 * would resolve more is the table of how long to run (report.json's verdict sentence says
 * both). */
static int verdict(struct rpt_doc *d)
{
	const struct report *r = d->r;
	struct rpt_block *b = NULL;
	int once = r->nverdicts > 1 && r->verdicts[0].warnings > 0; /* the same count for all */

	for (int i = 1; i < r->nverdicts; i++)
		once &= r->verdicts[i].warnings == r->verdicts[0].warnings;
	if (d->nfront > 0 && table(d, &d->front[0]) < 0)
		return -1;
	if (d->nfront > 0)
		d->b[d->n - 1].note_apart = 1;
	if (r->nverdicts > 0 && !(b = list(d, "verdict", r->nverdicts)))
		return -1;
	for (int i = 0; i < r->nverdicts; i++) {
		struct sbuf t = {0};
		rpt_verdict_brief(&t, r, &r->verdicts[i], !once);
		b->items[b->nitems++].text = doc_str(d, "%s", rpt_sb_str(&t));
		rpt_sb_release(&t);
		if (!b->items[b->nitems - 1].text)
			return -1;
	}
	if (d->nfront > 0 && d->front[0].note &&
	    para(d, "note", NULL,
	         once ? doc_str(d, "%s Read each with care: %d validity warning%s below.",
	                        d->front[0].note, r->verdicts[0].warnings,
	                        r->verdicts[0].warnings == 1 ? "" : "s")
	              : d->front[0].note) < 0)
		return -1;
	return 0;
}

static int pictures(struct rpt_doc *d, int compare)
{
	int n = 0;
	for (int i = 0; i < d->r->npics; i++)
		n += d->r->pics[i].compare == compare;
	if (n == 0)
		return 0;
	if (heading(d, 2, compare ? "Labels over time" : "Pictures of each run") < 0)
		return -1;
	if (!compare && d->r->plot_note[0] && para(d, "note", NULL, d->r->plot_note) < 0)
		return -1;
	return block(d, (struct rpt_block){.kind = RPT_B_PICTURES, .compare = compare}) ? 0 : -1;
}

int rpt_doc_pic_cols(const struct report *r, const char **cols, int max)
{
	int n = 0;

	for (int i = 0; i < r->npics && n < max; i++) {
		int seen = r->pics[i].run < 0;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(cols[k], r->pics[i].col) == 0;
		if (!seen)
			cols[n++] = r->pics[i].col;
	}
	return n;
}

int rpt_doc_pic(const struct report *r, int run, const char *col)
{
	for (int i = 0; i < r->npics; i++)
		if (r->pics[i].run == run && (!col || strcmp(r->pics[i].col, col) == 0))
			return i;
	return -1;
}

/* "Database: x.db. Runs: 6 (1 not done: see Findings)." (the title and the verdict name
 * the labels and the baseline) */
static const char *meta(struct rpt_doc *d)
{
	const struct report *r = d->r;
	struct sbuf t = {0}; /* as many databases as were read */
	const char *out;
	int open = 0;

	rpt_sb_printf(&t, "Database%s: ", r->ndbs > 1 ? "s" : "");
	for (int i = 0; i < r->ndbs; i++)
		rpt_sb_printf(&t, "%s%s", i ? ", " : "", r->dbs[i]);
	for (int i = 0; i < r->nruns; i++)
		open += strcmp(r->runs[i].status, "done") != 0;
	rpt_sb_printf(&t, ". Runs: %d", r->nruns);
	if (open)
		rpt_sb_printf(&t, " (%d not done: see Findings)", open);
	out = doc_str(d, "%s.", rpt_sb_str(&t));
	rpt_sb_release(&t);
	return out;
}

/* Whether two validity items differ only in their own parts (the labels'): then they are
 * said as one. */
static int same_but_own(const struct rpt_item *a, const struct rpt_item *b)
{
	return a->own_to > 0 && b->own_to > 0 && !strcmp(a->severity, b->severity) &&
	       !strcmp(a->code, b->code) && a->own_from == b->own_from &&
	       !strncmp(a->text, b->text, (size_t)a->own_from) &&
	       !strcmp(a->text + a->own_to, b->text + b->own_to);
}

/* n items that differ only in their own parts, said once: the lead, each own part, the
 * tail. */
static const char *said_once(struct rpt_doc *d, const struct rpt_item *v, int n)
{
	size_t len = strlen(v->text) + 1;
	char *s, *p;
	const char *out;

	for (int k = 1; k < n; k++)
		len += (size_t)(v[k].own_to - v[k].own_from) + 2;
	if (!(s = malloc(len)))
		return NULL;
	p = s + sprintf(s, "%.*s", v->own_to, v->text);
	for (int k = 1; k < n; k++)
		p += sprintf(p, "; %.*s", v[k].own_to - v[k].own_from, v[k].text + v[k].own_from);
	strcpy(p, v->text + v->own_to);
	out = doc_str(d, "%s", s);
	free(s);
	return out;
}

static int validity(struct rpt_doc *d)
{
	const struct report *r = d->r;

	if (heading(d, 2, "Can these numbers be trusted?") < 0)
		return -1;
	if (r->nvalidity == 0)
		return para(d, NULL, NULL,
		            "Nothing found that undermines them: the generator's host and the "
		            "generator were not saturated, the windows are long enough for what "
		            "they claim, steady and nearly free of errors, and the labels ran in "
		            "the same environment as far as it was recorded.");
	struct rpt_block *b = list(d, "validity", r->nvalidity);
	struct sbuf cold = {0};
	const char *cold_text = NULL;
	int ncold = rpt_cold_once(r, &cold), cold_said = 0;

	if (ncold > 1)
		cold_text = doc_str(d, "%s", rpt_sb_str(&cold));
	rpt_sb_release(&cold);
	if (!b || (ncold > 1 && !cold_text))
		return -1;
	for (int i = 0, j; i < r->nvalidity; i = j) {
		const struct rpt_item *v = &r->validity[i];
		int warn = !strcmp(v->severity, "warn");
		const char *text = v->text;
		for (j = i + 1; j < r->nvalidity && same_but_own(v, &r->validity[j]); j++)
			;
		if (ncold > 1 && v->kind == RPT_V_COLD) {
			/* many cold starts: one item, where the first was */
			if (cold_said++)
				continue;
			text = cold_text;
		} else if (j > i + 1 && !(text = said_once(d, r->validity + i, j - i))) {
			return -1;
		}
		b->items[b->nitems++] = (struct rpt_doc_item){.tag = warn ? "warning" : "note",
		                                              .code = v->code,
		                                              .text = text,
		                                              .cls = warn ? "warn" : "info"};
	}
	return 0;
}

static int findings(struct rpt_doc *d)
{
	const struct report *r = d->r;
	int top[RPT_TOP_FINDINGS], ntop = rpt_top_findings(r, top), rest = r->nfindings - ntop;

	if (ntop) {
		struct rpt_block *b;
		if (heading(d, 2, "What matters most") < 0 || !(b = list(d, "findings", ntop)))
			return -1;
		for (int i = 0; i < ntop; i++)
			b->items[b->nitems++].text = r->findings[top[i]].text;
	}
	if (rest <= 0)
		return 0;
	if (heading(d, 2, ntop ? "Other findings" : "Findings") < 0)
		return -1;
	for (int t = 0; t < RPT_NTOPIC; t++) {
		struct rpt_block *b = NULL;
		for (int i = 0; i < r->nfindings; i++) {
			const struct rpt_item *x = &r->findings[i];
			if (x->top || x->topic != (enum rpt_topic)t)
				continue;
			if (!b && (heading(d, 3, rpt_topic_title((enum rpt_topic)t)) < 0 ||
			           !(b = list(d, "findings", r->nfindings))))
				return -1;
			b->items[b->nitems++].text = x->text;
		}
	}
	return 0;
}

/* Where CPU per request moved: each profile's answer and its flame graph (its top frames
 * are in the details file: frames()). */
static int profiles(struct rpt_doc *d)
{
	const struct report *r = d->r;

	if (r->npcmps == 0)
		return 0;
	if (!(d->prof = calloc((size_t)r->npcmps, sizeof *d->prof)) ||
	    heading(d, 2, "Where CPU per request moved") < 0)
		return -1;
	for (int i = 0; i < r->npcmps; i++) {
		char *lead = rpt_profile_lead(r, &r->pcmps[i]), title[160];
		const char *t = lead ? doc_str(d, "%s", lead) : NULL;
		free(lead);
		d->nprof++;
		rpt_profile_title(r, &r->pcmps[i], title, sizeof title);
		if (heading(d, 3, doc_str(d, "%s", title)) < 0 || para(d, NULL, NULL, t) < 0 ||
		    rpt_profile_table(r, &r->pcmps[i], RPT_PROF_TOP, &d->prof[i]) < 0)
			return -1;
		if (r->pcmps[i].svg[0] &&
		    !block(d, (struct rpt_block){.kind = RPT_B_FLAME, .compare = i}))
			return -1;
	}
	return 0;
}

static const char frames_title[] = "Top frames of each profile";

/* Each profile's top frames, a table under the profile's title (in the details file). */
static int frames(struct rpt_doc *d)
{
	if (d->nprof > 0 && heading(d, 2, frames_title) < 0)
		return -1;
	for (int i = 0; i < d->nprof; i++) {
		char title[160];
		rpt_profile_title(d->r, &d->r->pcmps[i], title, sizeof title);
		if (heading(d, 3, doc_str(d, "%s", title)) < 0 || table(d, &d->prof[i]) < 0)
			return -1;
	}
	return 0;
}

/* The length of the sentence at p, with its full stop (one followed by a capital). */
static size_t sentence_len(const char *p)
{
	for (const char *q = p; *q; q++)
		if (q[0] == '.' && q[1] == ' ' && isupper((unsigned char)q[2]))
			return (size_t)(q - p) + 1;
	return strlen(p);
}

/* Whether the sentence s[0..n) is one of text t's. */
static int has_sentence(const char *t, const char *s, size_t n)
{
	for (const char *p = t + strspn(t, " "); *p;) {
		size_t k = sentence_len(p);
		if (k == n && !memcmp(p, s, n))
			return 1;
		p += k;
		p += strspn(p, " ");
	}
	return 0;
}

/* Appends the sentences of t that are (common 1) or are not (0) in every one of all[0..n). */
static void sentences(struct sbuf *out, const char *t, const struct sbuf *all, int n, int common)
{
	for (const char *p = t + strspn(t, " "); *p;) {
		size_t k = sentence_len(p);
		int every = 1;
		for (int i = 0; i < n && every; i++)
			every = has_sentence(rpt_sb_str(&all[i]), p, k);
		if (every == common)
			rpt_sb_printf(out, "%s%.*s", rpt_sb_len(out) ? " " : "", (int)k, p);
		p += k;
		p += strspn(p, " ");
	}
}

#define RPT_DOC_METHODS 16 /* distinct ways of judging a report says apart */

/* How changes are judged, once: what every comparison's method shares in one paragraph,
 * then for each distinct method the comparisons it judged and what it adds. */
static int methods(struct rpt_doc *d)
{
	const struct report *r = d->r;
	struct sbuf m[RPT_DOC_METHODS] = {{{0}}}, who[RPT_DOC_METHODS] = {{{0}}}, x = {0};
	int nm = 0, rc = 0;

	for (int i = 0; i < r->ncmps; i++) {
		const struct rpt_cell *c = &r->cells[r->cmps[i].cell];
		char at[96];
		int k = 0;
		rpt_sb_reset(&x);
		rpt_method_text(&x, r, &r->cmps[i]);
		while (k < nm && strcmp(rpt_sb_str(&m[k]), rpt_sb_str(&x)))
			k++;
		if (k == RPT_DOC_METHODS)
			continue;
		if (k == nm)
			rpt_sb_printf(&m[nm++], "%s", rpt_sb_str(&x));
		rpt_sb_printf(&who[k], "%s%s at %s", rpt_sb_len(&who[k]) ? "; " : "",
		              r->labels[c->label].name, rpt_cell_text(c, at, sizeof at));
	}
	rpt_sb_reset(&x);
	if (nm > 0)
		sentences(&x, rpt_sb_str(&m[0]), m, nm, 1);
	if (nm > 0 && para(d, "note", "How changes are judged.",
	                   doc_str(d, "%s", rpt_sb_str(nm == 1 ? &m[0] : &x))) < 0)
		rc = -1;
	struct rpt_block *b = nm > 1 && rc == 0 ? list(d, "note", nm) : NULL;
	for (int k = 0; k < nm && b; k++) {
		rpt_sb_reset(&x);
		rpt_sb_printf(&x, "%s: ", rpt_sb_str(&who[k]));
		sentences(&x, rpt_sb_str(&m[k]), m, nm, 0);
		if (!(b->items[b->nitems++].text = doc_str(d, "%s", rpt_sb_str(&x))))
			rc = -1;
	}
	if (nm > 1 && !b)
		rc = -1;
	for (int k = 0; k < RPT_DOC_METHODS; k++) {
		rpt_sb_release(&m[k]);
		rpt_sb_release(&who[k]);
	}
	rpt_sb_release(&x);
	return rc;
}

/* How it was measured: the judging method, then each study's design. */
static int measured(struct rpt_doc *d)
{
	const struct report *r = d->r;

	if ((r->ncmps > 0 || r->nstudies > 0) && heading(d, 2, "How it was measured") < 0)
		return -1;
	if (methods(d) < 0)
		return -1;
	for (int i = 0; i < r->nstudies; i++) {
		struct sbuf t = {0};
		const char *s;
		rpt_study_design(&t, r, i);
		s = doc_str(d, "%s", rpt_sb_str(&t));
		rpt_sb_release(&t);
		if (!s || para(d, "note", "Design.", s) < 0)
			return -1;
	}
	return 0;
}

void rpt_doc_slug(const char *title, char *out, size_t outlen)
{
	size_t n = 0;

	for (const char *p = title; *p && n + 1 < outlen; p++) {
		unsigned char c = (unsigned char)*p;
		if (isalnum(c) || c == '_')
			out[n++] = (char)tolower(c);
		else if (c == ' ' || c == '-')
			out[n++] = '-';
	}
	if (outlen > 0)
		out[n] = '\0';
}

/* The title of a block that opens a section of the details file, or NULL. */
static const char *section_title(const struct rpt_block *b)
{
	if (b->kind == RPT_B_HEADING && b->level == 2)
		return b->text;
	if (b->kind == RPT_B_TABLE && b->table->title && b->table->title[0])
		return b->table->title;
	return NULL;
}

/* What a details section holds, said short: its table's rows, or the runs pictured. */
static const char *section_size(struct rpt_doc *d, int i)
{
	int n = 0;

	if (d->b[i].kind == RPT_B_TABLE)
		return doc_str(d, ": %d row%s.", d->b[i].table->nrows,
		               d->b[i].table->nrows == 1 ? "" : "s");
	if (d->b[i].text == frames_title)
		return doc_str(d, ": %d profile%s.", d->nprof, d->nprof == 1 ? "" : "s");
	for (int k = 0; k < d->r->nruns; k++)
		n += rpt_doc_pic(d->r, k, NULL) >= 0;
	return n ? doc_str(d, ": %d run%s.", n, n == 1 ? "" : "s") : doc_str(d, ".");
}

/* Blocks from..n-1 go to the details file; the report links each of its sections. */
static int details(struct rpt_doc *d, int from)
{
	int n = 0, end = d->n;
	struct rpt_block *b;

	for (int i = from; i < end; i++)
		n += section_title(&d->b[i]) != NULL;
	if (n == 0)
		return 0;
	for (int i = from; i < end; i++)
		d->b[i].details = 1;
	if (heading(d, 2, "Details") < 0 ||
	    para(d, NULL, NULL,
	         "Each profile's top frames, what ran, the tables of each run, comparison and "
	         "process, and the pictures of each run are in the details file beside this "
	         "report (details.md, details.html); report.json holds every figure.") < 0 ||
	    !(b = list(d, "details", n)))
		return -1;
	for (int i = from; i < end; i++) {
		const char *t = section_title(&d->b[i]);
		char slug[128];
		struct rpt_doc_item it = {.text = t};
		if (!t)
			continue;
		rpt_doc_slug(t, slug, sizeof slug);
		if (!(it.anchor = doc_str(d, "%s", slug)) || !(it.tail = section_size(d, i)))
			return -1;
		b->items[b->nitems++] = it;
	}
	return 0;
}

int rpt_doc_build(const struct report *r, struct rpt_doc *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof *d);
	d->r = r;
	if (rpt_front_tables(r, &d->front, &d->nfront, err, errlen) < 0 ||
	    rpt_tables(r, &d->tables, &d->ntables, err, errlen) < 0 ||
	    rpt_env_tables(r, &d->env, &d->nenv, err, errlen) < 0 ||
	    rpt_hist_tables(r->history, &d->hist, &d->nhist, err, errlen) < 0)
		return -1;
	if (heading(d, 1, r->title) < 0 || para(d, "meta", NULL, meta(d)) < 0)
		goto oom;
	/* The verdict first; then whether to trust it, the findings, and how it was measured. */
	if (verdict(d) < 0)
		goto oom;
	if (validity(d) < 0 || findings(d) < 0 || measured(d) < 0 || profiles(d) < 0 ||
	    pictures(d, 1) < 0)
		goto oom;
	/* Night over night, when a label and scenario have a series (history/history.h). */
	if (tables(d, d->front, 1, d->nfront) < 0 || tables(d, d->hist, 0, d->nhist) < 0)
		goto oom;
	/* What a reader looks up rather than reads: the details file. */
	int from = d->n;
	if (frames(d) < 0 || tables(d, d->env, 0, d->nenv) < 0 ||
	    tables(d, d->tables, 0, d->ntables) < 0 || pictures(d, 0) < 0 || details(d, from) < 0)
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory building the report");
	return -1;
}

void rpt_doc_free(struct rpt_doc *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->b[i].items);
	free(d->b);
	for (int i = 0; i < d->nstrs; i++)
		free(d->strs[i]);
	free(d->strs);
	rpt_tables_free(d->front, d->nfront);
	rpt_tables_free(d->tables, d->ntables);
	rpt_tables_free(d->env, d->nenv);
	rpt_tables_free(d->hist, d->nhist);
	rpt_tables_free(d->prof, d->nprof);
	memset(d, 0, sizeof *d);
}
