/* report_text: the sentence buffer (see report_text.h) and the words of a run list.
 * A sentence grows in a buffer of its own; callers never hold a pointer into it across
 * a call that adds to it.  Every run list, a string of keys or runs selected in the
 * report, becomes an array of keys that say_keys alone words. */
#include "report_text.h"
#include "report_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rpt_sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b->b, fmt, ap);
	va_end(ap);
}

const char *rpt_sb_str(const struct sbuf *b)
{
	return b->b.p ? b->b.p : "";
}

size_t rpt_sb_len(const struct sbuf *b)
{
	return b->b.p ? b->b.n : 0;
}

void rpt_sb_trim(struct sbuf *b, size_t n)
{
	if (b->b.p && n <= b->b.n) {
		b->b.n = n;
		b->b.p[n] = '\0';
	}
}

void rpt_sb_reset(struct sbuf *b)
{
	rpt_sb_trim(b, 0);
}

void rpt_sb_release(struct sbuf *b)
{
	buf_free(&b->b);
}

char *rpt_sb_dup(const struct sbuf *b)
{
	return strdup(rpt_sb_str(b));
}

/* Past this many items a list says its first and last run and how many (report.json has
 * each): a study warmed up until steady makes dozens of runs a label. */
#define RUNLIST_MAX_ITEMS 8

/* One key of a run list: len bytes at k, and whether the next key of the list follows it
 * (the same database, the next id).  Both kinds of list (keys in a string, runs selected
 * in the report) become an array of these, which say_keys alone words. */
struct rkey {
	const char *k;
	size_t len;
	int next;
};

/* The separator before item nth of `of`: "", ", ", or " and " before the last. */
static const char *sep(int nth, int of)
{
	return nth == 0 ? "" : nth == of - 1 ? " and " : ", ";
}

/* Says keys k[0..n) as "1, 3-7 and 9" (of items; of 0: only counts them): three or more
 * that follow each other are one item, "3-7"; one or two in a row stay each alone.
 * Returns how many items. */
static int say_items(struct sbuf *b, const struct rkey *k, int n, int of)
{
	int nth = 0;

	for (int i = 0; i < n; i++) {
		int j = i;
		while (j + 1 < n && k[j].next)
			j++;
		if (j < i + 2)
			j = i;
		if (of > 0) {
			rpt_sb_printf(b, "%s%.*s", sep(nth, of), (int)k[i].len, k[i].k);
			if (j > i)
				rpt_sb_printf(b, "-%.*s", (int)k[j].len, k[j].k);
		}
		nth++;
		i = j;
	}
	return nth;
}

/* The one wording of a run list: "1, 3-7 and 9" ("runs 1, 3-7 and 9", "run 3" with
 * `lead`), or past eight items its count and span, "23 runs, 3-117".  Returns whether it
 * said the span. */
static int say_keys(struct sbuf *b, const struct rkey *k, int n, int lead)
{
	int items = say_items(b, k, n, 0);

	if (items > RUNLIST_MAX_ITEMS) {
		rpt_sb_printf(b, "%d runs, %.*s-%.*s", n, (int)k[0].len, k[0].k, (int)k[n - 1].len,
		              k[n - 1].k);
		return 1;
	}
	if (lead)
		rpt_sb_printf(b, "run%s ", n == 1 ? "" : "s");
	say_items(b, k, n, items);
	return 0;
}

/* Whether run key b follows a: the same database prefix ("2:"), and the next id. */
static int follows(const char *a, size_t na, const char *b, size_t nb)
{
	const char *ca = memchr(a, ':', na), *cb = memchr(b, ':', nb);
	size_t pa = ca ? (size_t)(ca - a) + 1 : 0, pb = cb ? (size_t)(cb - b) + 1 : 0;
	char x[32], y[32];

	if (pa != pb || strncmp(a, b, pa) != 0 || na - pa >= sizeof x || nb - pb >= sizeof y ||
	    na == pa || nb == pb)
		return 0;
	snprintf(x, sizeof x, "%.*s", (int)(na - pa), a + pa);
	snprintf(y, sizeof y, "%.*s", (int)(nb - pb), b + pb);
	if (strspn(x, "0123456789") != strlen(x) || strspn(y, "0123456789") != strlen(y))
		return 0;
	return atoll(y) == atoll(x) + 1;
}

void rpt_sb_runs(struct sbuf *b, const char *keys)
{
	size_t most = 1;
	struct rkey *k;
	int n = 0;

	for (const char *p = keys; *p; p++)
		most += *p == ',';
	k = malloc(most * sizeof *k);
	if (!k) {
		b->b.oom = 1;
		return;
	}
	for (const char *p = keys; *p;) {
		k[n].k = p;
		k[n].len = strcspn(p, ",");
		p += k[n++].len;
		p += *p == ',';
	}
	for (int i = 0; i < n; i++)
		k[i].next = i + 1 < n && follows(k[i].k, k[i].len, k[i + 1].k, k[i + 1].len);
	say_keys(b, k, n, 1);
	free(k);
}

/* A factor to three significant figures: "373", "2.5". */
static void factor(struct sbuf *b, double pct)
{
	rpt_sb_printf(b, "\u00d7%.3g", 1 + pct / 100);
}

void rpt_sb_change(struct sbuf *b, double lo, double hi, const char *up, const char *down)
{
	double a = fabs(lo) < fabs(hi) ? lo : hi, z = fabs(lo) < fabs(hi) ? hi : lo;
	int one = fabs(z - a) < 0.05;

	if (a >= 0 && z >= 100) {
		factor(b, a);
		if (!one) {
			rpt_sb_printf(b, "-");
			factor(b, z);
		}
		rpt_sb_printf(b, " %s", up);
		return;
	}
	if (one)
		rpt_sb_printf(b, "%.1f %% %s", fabs(a), a < 0 ? down : up);
	else
		rpt_sb_printf(b, "%.1f-%.1f %% %s", fabs(a), fabs(z), a < 0 ? down : up);
}

void rpt_xml_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(c < 0x20 && c != '\n' && c != '\t' ? '?' : c, f);
		}
	}
}

/* The runs r->runs[i] with sel[i] set as keys, *n of them (the caller frees); NULL out of
 * memory.  A range only over runs that follow each other in id too (runs made side by side
 * start in the same instant, and their ids need not follow the report's order). */
static struct rkey *sel_keys(const struct report *r, const unsigned char *sel, int *n)
{
	struct rkey *k = malloc(((size_t)r->nruns + 1) * sizeof *k);

	*n = 0;
	for (int i = 0; k && i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (!sel[i])
			continue;
		k[*n].k = run->key;
		k[*n].len = strlen(run->key);
		k[*n].next = i + 1 < r->nruns && sel[i + 1] && run[1].db == run->db &&
		             run[1].id == run->id + 1;
		(*n)++;
	}
	return k;
}

/* After a run list of n runs, nwarm of them warm-ups: " (warm-up)" when all are, else
 * " (warm-up: 1 and 2)", or after a span " (all warm-up)", " (28 warm-up)". */
static void say_warm(struct sbuf *b, const struct report *r, const unsigned char *sel, int n,
                     int nwarm, int span)
{
	int k = 0;

	if (span) {
		rpt_sb_printf(b, nwarm == n ? " (all warm-up)" : " (%d warm-up)", nwarm);
		return;
	}
	if (nwarm == n) {
		rpt_sb_printf(b, " (warm-up)");
		return;
	}
	rpt_sb_printf(b, " (warm-up: ");
	for (int i = 0; i < r->nruns; i++)
		if (sel[i] && r->runs[i].warmup)
			rpt_sb_printf(b, "%s%s", sep(k++, nwarm), r->runs[i].key);
	rpt_sb_printf(b, ")");
}

/* rpt_sb_runlist, with "run "/"runs " before a list when `lead` is set. */
static void runlist(struct sbuf *b, const struct report *r, const unsigned char *sel, int warm,
                    int lead)
{
	int n, nwarm = 0, span;
	struct rkey *k = sel_keys(r, sel, &n);

	if (!k) {
		b->b.oom = 1;
		return;
	}
	span = say_keys(b, k, n, lead);
	free(k);
	for (int i = 0; i < r->nruns; i++)
		nwarm += sel[i] && r->runs[i].warmup;
	if (warm && nwarm)
		say_warm(b, r, sel, n, nwarm, span);
}

void rpt_sb_runlist(struct sbuf *b, const struct report *r, const unsigned char *sel, int warm)
{
	runlist(b, r, sel, warm, 0);
}

void rpt_sb_runsel(struct sbuf *b, const struct report *r, const unsigned char *sel, int label)
{
	int n = 0, all = 0;

	for (int i = 0; i < r->nruns; i++) {
		n += sel[i] != 0;
		all += label == -1 || r->runs[i].label == label;
	}
	if (n == all && n > 1 && label != RPT_RUNS_LISTED) {
		int nwarm = 0;
		for (int i = 0; i < r->nruns; i++)
			nwarm += sel[i] && r->runs[i].warmup;
		if (n == 2)
			rpt_sb_printf(b, "both runs");
		else
			rpt_sb_printf(b, "all %d runs", n);
		if (nwarm)
			rpt_sb_printf(b, " (%d warm-up)", nwarm);
		return;
	}
	runlist(b, r, sel, 1, 1);
}
