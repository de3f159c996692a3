/* report_text: the sentence buffer (see report_text.h).
 * A sentence grows in a buffer of its own; callers never hold a pointer into it across
 * a call that adds to it. */
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

/* Says keys k[0..n) (lengths len[]) as "runs 1, 3-7 and 9" (say 0: only counts the
 * items): three or more keys that follow each other are one item, "3-7"; two stay two.
 * Returns how many items. */
static int say_keys(struct sbuf *b, const char **k, const size_t *len, int n, int say)
{
	int items = 0, nth = 0;

	if (say)
		rpt_sb_printf(b, "run%s ", n > 1 ? "s" : "");
	for (int pass = 0; pass < 1 + say; pass++)
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
	return items;
}

void rpt_sb_runs(struct sbuf *b, const char *keys)
{
	size_t most = 1, *len;
	const char **k;
	int n = 0;

	for (const char *p = keys; *p; p++)
		most += *p == ',';
	k = malloc(most * sizeof *k);
	len = malloc(most * sizeof *len);
	if (!k || !len) {
		b->b.oom = 1;
		goto out;
	}
	for (const char *p = keys; *p;) {
		k[n] = p;
		len[n] = strcspn(p, ",");
		p += len[n++];
		p += *p == ',';
	}
	if (say_keys(b, k, len, n, 0) > RUNLIST_MAX_ITEMS) /* "23 runs, 3-117" */
		rpt_sb_printf(b, "%d runs, %.*s-%.*s", n, (int)len[0], k[0], (int)len[n - 1],
		              k[n - 1]);
	else
		say_keys(b, k, len, n, 1);
out:
	free(k);
	free(len);
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

/* "40 runs, 3-104 (28 warm-up)": n runs, nwarm of them warm-ups. */
static void run_span(struct sbuf *b, const struct report *r, const unsigned char *sel, int n,
                     int nwarm, int warm)
{
	int first = -1, last = -1;

	for (int i = 0; i < r->nruns; i++)
		if (sel[i]) {
			first = first < 0 ? i : first;
			last = i;
		}
	rpt_sb_printf(b, "%d runs, %s-%s", n, r->runs[first].key, r->runs[last].key);
	if (warm && nwarm)
		rpt_sb_printf(b, nwarm == n ? " (all warm-up)" : " (%d warm-up)", nwarm);
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
	if (run_items(b, r, sel, 0) <= RUNLIST_MAX_ITEMS)
		rpt_sb_printf(b, "run%s ", n == 1 ? "" : "s");
	rpt_sb_runlist(b, r, sel, 1);
}
