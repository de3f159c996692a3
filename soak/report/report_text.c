/* report_text: the sentence buffer (see report_text.h).
 * A sentence grows in a buffer of its own; callers never hold a pointer into it across
 * a call that adds to it. */
#include "report_text.h"
#include "report_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rpt_sb_printf(struct sbuf *b, const char *fmt, ...)
{
	size_t cap = b->cap && b->cap < sizeof b->s ? b->cap : sizeof b->s;
	va_list ap;
	int k;

	if (b->n >= cap - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, cap - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = (size_t)k < cap - b->n ? b->n + (size_t)k : cap - 1;
}

char *rpt_sb_copy(const struct sbuf *b, char *buf, size_t len)
{
	size_t n = b->n < len ? b->n : len - 1;
	memcpy(buf, b->s, n);
	buf[n] = '\0';
	return buf;
}

void rpt_sb_reset(struct sbuf *b)
{
	b->n = 0;
	b->s[0] = '\0';
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
	const char *k[RPT_SENTENCE_MAX / 2];
	size_t len[RPT_SENTENCE_MAX / 2];
	int n = 0, items = 0, nth = 0;

	for (const char *p = keys; *p && n < (int)(sizeof k / sizeof k[0]);) {
		k[n] = p;
		len[n] = strcspn(p, ",");
		p += len[n++];
		p += *p == ',';
	}
	rpt_sb_printf(b, "run%s ", n > 1 ? "s" : "");
	/* Three or more keys that follow each other are one item, "3-7"; two stay two. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			int j = i;
			while (j + 1 < n && follows(k[j], len[j], k[j + 1], len[j + 1]))
				j++;
			if (j < i + 2)
				j = i;
			if (pass == 1) {
				rpt_sb_printf(b, "%s%.*s",
				              nth == 0           ? ""
				              : nth == items - 1 ? " and "
				                                 : ", ",
				              (int)len[i], k[i]);
				if (j > i)
					rpt_sb_printf(b, "-%.*s", (int)len[j], k[j]);
				nth++;
			} else {
				items++;
			}
			i = j;
		}
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

/* The items of a run list: each selected run alone, or three or more that follow each
 * other as one range; calls fn(b, first, last, nth, of) for each, or only counts them. */
static int run_items(struct sbuf *b, const struct report *r, const unsigned char *sel, int of)
{
	int nth = 0;

	for (int i = 0; i < r->nruns; i++) {
		int j = i;
		if (!sel[i])
			continue;
		/* A range only over runs that follow each other in id too (runs made side by side
		 * start in the same instant, and their ids need not follow the report's order). */
		while (j + 1 < r->nruns && sel[j + 1] && r->runs[j + 1].db == r->runs[j].db &&
		       r->runs[j + 1].id == r->runs[j].id + 1)
			j++;
		if (j < i + 2)
			j = i; /* one or two in a row: each alone */
		if (of > 0)
			rpt_sb_printf(b, "%s%s",
			              nth == 0        ? ""
			              : nth == of - 1 ? " and "
			                              : ", ",
			              r->runs[i].key);
		if (of > 0 && j > i)
			rpt_sb_printf(b, "-%s", r->runs[j].key);
		nth++;
		i = j;
	}
	return nth;
}

/* Past this many items a list says its first and last run and how many (report.json has
 * each): a study warmed up until steady makes dozens of runs a label. */
#define RUNLIST_MAX_ITEMS 8

/* "between 3 and 104 (40 of them, 28 warm-up)": n runs, nwarm of them warm-ups. */
static void run_span(struct sbuf *b, const struct report *r, const unsigned char *sel, int n,
                     int nwarm, int warm)
{
	int first = -1, last = -1;

	for (int i = 0; i < r->nruns; i++)
		if (sel[i]) {
			first = first < 0 ? i : first;
			last = i;
		}
	rpt_sb_printf(b, "between %s and %s (%d of them", r->runs[first].key, r->runs[last].key,
	              n);
	if (warm && nwarm)
		rpt_sb_printf(b, nwarm == n ? ", all warm-up" : ", %d warm-up", nwarm);
	rpt_sb_printf(b, ")");
}

int rpt_sb_runlist(struct sbuf *b, const struct report *r, const unsigned char *sel, int warm)
{
	int n = 0, nwarm = 0, items = run_items(b, r, sel, 0);

	for (int i = 0; i < r->nruns; i++) {
		n += sel[i] != 0;
		nwarm += sel[i] && r->runs[i].warmup;
	}
	if (items > RUNLIST_MAX_ITEMS) {
		run_span(b, r, sel, n, nwarm, warm);
		return n;
	}
	run_items(b, r, sel, items);
	if (warm && nwarm == n) {
		rpt_sb_printf(b, " (warm-up)");
	} else if (warm && nwarm) {
		int k = 0;
		rpt_sb_printf(b, " (warm-up: ");
		for (int i = 0; i < r->nruns; i++)
			if (sel[i] && r->runs[i].warmup)
				rpt_sb_printf(b, "%s%s",
				              k++ == 0     ? ""
				              : k == nwarm ? " and "
				                           : ", ",
				              r->runs[i].key);
		rpt_sb_printf(b, ")");
	}
	return n;
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
	rpt_sb_printf(b, "run%s ", n == 1 ? "" : "s");
	rpt_sb_runlist(b, r, sel, 1);
}
