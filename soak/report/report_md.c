/* report_md: report.md in GitHub-flavoured Markdown, in the order a reader needs it: the
 * verdict, whether to trust it, what matters most, the findings by topic, the pictures
 * comparing labels, how long to run, what ran, the tables, the pictures of each run.
 *
 * Every text from the model (labels, names, messages, samples) is escaped: a label such
 * as `<img src=x onerror=...>` must stay text in a Markdown viewer, not become HTML. */
#include "report.h"
#include "report_history.h"

#include <ctype.h>
#include <string.h>

/* Text with Markdown and HTML made literal: < and & as entities (every viewer honours
 * them; without a '<' no tag can start, so '>' stays as it is), the punctuation that starts
 * emphasis, code or links backslash-escaped, '_' only where it could start emphasis (inside a word
 * it cannot: client_ports stays readable), line breaks as spaces; in a table cell '|' too. */
static void md_esc(FILE *f, const char *s, int cell)
{
	for (const char *p = s; p && *p; p++) {
		unsigned char c = (unsigned char)*p;
		switch (c) {
		case '<':
			fputs("&lt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '\\':
		case '`':
		case '*':
		case '[':
		case ']':
			fputc('\\', f);
			fputc(c, f);
			break;
		case '_':
			if (p == s || !isalnum((unsigned char)p[-1]) ||
			    !isalnum((unsigned char)p[1]))
				fputc('\\', f);
			fputc('_', f);
			break;
		case '|':
			fputs(cell ? "\\|" : "|", f);
			break;
		case '\n':
		case '\r':
			fputc(' ', f);
			break;
		default:
			fputc(c, f);
		}
	}
}

static void md_text(FILE *f, const char *s)
{
	md_esc(f, s, 0);
}

/* Heading lines for the databases, labels and run count. */
static void md_meta(const struct report *r, FILE *f)
{
	int open = 0;

	fprintf(f, "Database%s: ", r->ndbs > 1 ? "s" : "");
	for (int i = 0; i < r->ndbs; i++) {
		fputs(i ? ", " : "", f);
		md_text(f, r->dbs[i]);
	}
	fprintf(f, ". Label%s: ", r->nlabels > 1 ? "s" : "");
	for (int l = 0; l < r->nlabels; l++) {
		fputs(l ? ", " : "", f);
		md_text(f, r->labels[l].name);
		if (l == 0 && r->nlabels > 1)
			fputs(" (baseline)", f);
	}
	for (int i = 0; i < r->nruns; i++)
		open += strcmp(r->runs[i].status, "done") != 0;
	fprintf(f, ". Runs: %d", r->nruns);
	if (open)
		fprintf(f, " (%d not done: see Findings)", open);
	fprintf(f, ".\n");
}

static void md_table(const struct rpt_table *t, FILE *f, const char *level)
{
	fprintf(f, "%s ", level);
	md_text(f, t->title);
	fputs("\n\n", f);
	if (t->note[0]) {
		md_text(f, t->note);
		fputs("\n\n", f);
	}
	for (int row = 0; row <= t->nrows; row++) {
		fputc('|', f);
		for (int c = 0; c < t->ncols; c++) {
			fputc(' ', f);
			md_esc(f, t->cells[(size_t)row * (size_t)t->ncols + (size_t)c], 1);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (row == 0) {
			fputc('|', f);
			for (int c = 0; c < t->ncols; c++)
				fputs(t->right[c] ? " ---: |" : " --- |", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

static void md_pictures(const struct report *r, FILE *f, int compare)
{
	for (int i = 0; i < r->npics; i++) {
		const struct rpt_picture *p = &r->pics[i];
		if (p->compare != compare)
			continue;
		fputs("### ", f);
		md_text(f, p->title);
		fputs("\n\n", f);
		if (p->drawn) {
			fputs("![", f);
			md_text(f, p->title);
			fprintf(f, "](img/%s.png) ([SVG](img/%s.svg))\n\n", p->name, p->name);
		} else {
			fprintf(f, "(not drawn)\n\n");
		}
	}
}

static int count_pictures(const struct report *r, int compare)
{
	int n = 0;
	for (int i = 0; i < r->npics; i++)
		n += r->pics[i].compare == compare;
	return n;
}

static void md_validity(const struct report *r, FILE *f)
{
	fputs("## Can these numbers be trusted?\n\n", f);
	if (r->nvalidity == 0) {
		fputs(
		    "Nothing found that undermines them: the generator's host and the generator "
		    "were not saturated, the windows are long enough for what they claim, steady "
		    "and nearly free of errors, and the labels ran in the same environment as far "
		    "as it was recorded.\n\n",
		    f);
		return;
	}
	for (int i = 0; i < r->nvalidity; i++) {
		const struct rpt_valid *v = &r->validity[i];
		fprintf(f, "- **%s** %s: ", !strcmp(v->severity, "warn") ? "warning" : "note",
		        v->code);
		md_text(f, v->message);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_findings(const struct report *r, FILE *f)
{
	int top[RPT_TOP_FINDINGS], ntop = rpt_top_findings(r, top), rest = r->nfindings - ntop;

	if (ntop) {
		fputs("## What matters most\n\n", f);
		for (int i = 0; i < ntop; i++) {
			fputs("- ", f);
			md_text(f, r->findings[top[i]].text);
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	if (rest <= 0)
		return;
	fputs(ntop ? "## Other findings\n\n" : "## Findings\n\n", f);
	for (int t = 0; t < RPT_NTOPIC; t++) {
		int any = 0;
		for (int i = 0; i < r->nfindings; i++) {
			const struct rpt_finding *x = &r->findings[i];
			if (x->top || x->topic != (enum rpt_topic)t)
				continue;
			if (!any++)
				fprintf(f, "### %s\n\n", rpt_topic_title((enum rpt_topic)t));
			fputs("- ", f);
			md_text(f, x->text);
			fputc('\n', f);
		}
		if (any)
			fputc('\n', f);
	}
}

int rpt_write_md(const struct report *r, FILE *f)
{
	struct rpt_table *front = NULL, *t = NULL, *env = NULL;
	int nfront = 0, n = 0, nenv = 0, rc = -1;
	char err[128];

	if (rpt_front_tables(r, &front, &nfront, err, sizeof err) < 0 ||
	    rpt_tables(r, &t, &n, err, sizeof err) < 0 ||
	    rpt_env_tables(r, &env, &nenv, err, sizeof err) < 0)
		goto done;
	fputs("# ", f);
	md_text(f, r->title);
	fputs("\n\n", f);
	md_meta(r, f);
	fputc('\n', f);
	/* The study's design and how changes are judged, before the verdict rests on them. */
	for (int i = 0; i < r->nstudies; i++) {
		fputs("**Design.** ", f);
		md_text(f, r->studies[i].design);
		fputs("\n\n", f);
	}
	{
		const char *m[16];
		int nm = rpt_methods(r, m, 16);
		if (nm)
			fputs(nm > 1 ? "**How changes are judged.**\n\n"
			             : "**How changes are judged.** ",
			      f);
		for (int i = 0; i < nm; i++) {
			fputs(nm > 1 ? "- " : "", f);
			md_text(f, m[i]);
			fputc('\n', f);
		}
		if (nm)
			fputc('\n', f);
	}
	/* The verdict: its table, then a sentence per label. */
	if (nfront > 0)
		md_table(&front[0], f, "##");
	for (int i = 0; i < r->nverdicts; i++) {
		fputs("- ", f);
		md_text(f, r->verdicts[i].sentence);
		fputc('\n', f);
	}
	fputc('\n', f);
	md_validity(r, f);
	md_findings(r, f);
	if (count_pictures(r, 1)) {
		fputs("## Labels over time\n\n", f);
		md_pictures(r, f, 1);
	}
	for (int i = 1; i < nfront; i++)
		md_table(&front[i], f, "##");
	{
		/* Night over night (report_history.h): only when a label and scenario have a
		 * series of runs. */
		struct rpt_table *hist = NULL;
		int nhist = 0;
		if (rpt_hist_tables(r->history, &hist, &nhist, err, sizeof err) < 0)
			goto done;
		for (int i = 0; i < nhist; i++)
			md_table(&hist[i], f, "##");
		rpt_tables_free(hist, nhist);
	}
	for (int i = 0; i < nenv; i++)
		md_table(&env[i], f, "##");
	for (int i = 0; i < n; i++)
		md_table(&t[i], f, "##");
	if (count_pictures(r, 0)) {
		fprintf(f, "## Pictures of each run\n\n");
		if (r->plot_note[0]) {
			md_text(f, r->plot_note);
			fputs("\n\n", f);
		}
		md_pictures(r, f, 0);
	}
	rc = ferror(f) ? -1 : 0;
done:
	rpt_tables_free(front, nfront);
	rpt_tables_free(t, n);
	rpt_tables_free(env, nenv);
	return rc;
}
