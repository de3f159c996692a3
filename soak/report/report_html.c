/* report_html: report.html — one self-contained page: inline CSS, the SVG pictures inline,
 * no script, no network. */
#include "report.h"
#include "report_text.h"

#include <string.h>

static const char css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;"
    "max-width:1100px;padding:0 1em;color:#1d1d1f}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd}\n"
    "p.meta{color:#555}p.note{color:#444;font-size:.92em;max-width:60em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.25em .6em;vertical-align:top}\n"
    "th{background:#f2f2f2}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    "tr:nth-child(even) td{background:#fafafa}\n"
    "figure{margin:1em 0 2em}figure svg{width:100%;max-width:800px;height:auto;display:block;"
    "border:1px solid #eee}\n"
    "figcaption{font-weight:600;margin-bottom:.3em}\n"
    "ul.findings li,ul.verdict li,ul.validity li{margin:.3em 0}\n"
    "ul.validity li.warn strong{color:#b00020}ul.validity li.info strong{color:#555}\n"
    "table#verdict{font-size:.95em}table#verdict td{white-space:nowrap}\n";

/* Text with &, <, >, " escaped (report_text.h). */
static void esc(FILE *f, const char *s)
{
	rpt_xml_esc(f, s);
}

static void html_table(const struct rpt_table *t, FILE *f)
{
	fputs("<h2>", f);
	esc(f, t->title);
	fputs("</h2>\n", f);
	if (t->note[0]) {
		fputs("<p class=\"note\">", f);
		esc(f, t->note);
		fputs("</p>\n", f);
	}
	if (t->id[0]) {
		fputs("<table id=\"", f);
		esc(f, t->id);
		fputs("\">\n", f);
	} else {
		fputs("<table>\n", f);
	}
	for (int row = 0; row <= t->nrows; row++) {
		const char *tag = row == 0 ? "th" : "td";
		fputs(row == 0 ? "<thead><tr>" : "<tr>", f);
		for (int c = 0; c < t->ncols; c++) {
			fprintf(f, "<%s%s>", tag, t->right[c] ? " class=\"r\"" : "");
			esc(f, t->cells[(size_t)row * (size_t)t->ncols + (size_t)c]);
			fprintf(f, "</%s>", tag);
		}
		fputs(row == 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* Whether s at i starts an attribute whose value names an id: id=, href=#, url(#. */
static size_t id_ref(const char *s, size_t i, size_t *skip)
{
	static const char *const pre[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
	for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
		size_t n = strlen(pre[k]);
		if (strncmp(s + i, pre[k], n) == 0 && (k >= 2 || i == 0 || s[i - 1] == ' ')) {
			*skip = n;
			return 1;
		}
	}
	return 0;
}

/* Writes gnuplot's SVG without its XML prolog, every id and reference to one prefixed
 * with the picture's name, so that several pictures can share one page. */
static void inline_svg(FILE *f, const char *svg, const char *prefix)
{
	const char *start = strstr(svg, "<svg");
	size_t i = 0, skip;

	if (!start)
		return;
	for (; start[i]; i++) {
		if (id_ref(start, i, &skip)) {
			fwrite(start + i, 1, skip, f);
			fprintf(f, "%s-", prefix);
			i += skip - 1;
			continue;
		}
		fputc(start[i], f);
	}
}

static void html_pictures(const struct report *r, FILE *f, int compare)
{
	for (int i = 0; i < r->npics; i++) {
		const struct rpt_picture *p = &r->pics[i];
		if (p->compare != compare)
			continue;
		fprintf(f, "<figure id=\"%s\">\n<figcaption>", p->name);
		esc(f, p->title);
		fputs("</figcaption>\n", f);
		if (p->drawn && p->svg)
			inline_svg(f, p->svg, p->name);
		else
			fputs("<p class=\"note\">(not drawn)</p>", f);
		fputs("\n</figure>\n", f);
	}
}

static int count_pictures(const struct report *r, int compare)
{
	int n = 0;
	for (int i = 0; i < r->npics; i++)
		n += r->pics[i].compare == compare;
	return n;
}

/* A list item per text. */
static void item(FILE *f, const char *cls, const char *text)
{
	fputs(cls ? "<li class=\"" : "<li>", f);
	if (cls) {
		esc(f, cls);
		fputs("\">", f);
	}
	esc(f, text);
	fputs("</li>\n", f);
}

static void html_validity(const struct report *r, FILE *f)
{
	fputs("<h2>Can these numbers be trusted?</h2>\n", f);
	if (r->nvalidity == 0) {
		fputs(
		    "<p>Nothing found that undermines them: the generator's host and the generator "
		    "were not saturated, the windows are long enough for what they claim, steady "
		    "and nearly free of errors, and the labels ran in the same environment as far "
		    "as it was recorded.</p>\n",
		    f);
		return;
	}
	fputs("<ul class=\"validity\">\n", f);
	for (int i = 0; i < r->nvalidity; i++) {
		const struct rpt_valid *v = &r->validity[i];
		int warn = !strcmp(v->severity, "warn");
		fprintf(f, "<li class=\"%s\"><strong>%s</strong> <code>", warn ? "warn" : "info",
		        warn ? "warning" : "note");
		esc(f, v->code);
		fputs("</code>: ", f);
		esc(f, v->message);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void html_findings(const struct report *r, FILE *f)
{
	int top[RPT_TOP_FINDINGS], ntop = rpt_top_findings(r, top), rest = r->nfindings - ntop;

	if (ntop) {
		fputs("<h2>What matters most</h2>\n<ul class=\"findings\">\n", f);
		for (int i = 0; i < ntop; i++)
			item(f, NULL, r->findings[top[i]].text);
		fputs("</ul>\n", f);
	}
	if (rest <= 0)
		return;
	fputs(ntop ? "<h2>Other findings</h2>\n" : "<h2>Findings</h2>\n", f);
	for (int t = 0; t < RPT_NTOPIC; t++) {
		int any = 0;
		for (int i = 0; i < r->nfindings; i++) {
			const struct rpt_finding *x = &r->findings[i];
			if (x->top || x->topic != (enum rpt_topic)t)
				continue;
			if (!any++)
				fprintf(f, "<h3>%s</h3>\n<ul class=\"findings\">\n",
				        rpt_topic_title((enum rpt_topic)t));
			item(f, NULL, x->text);
		}
		if (any)
			fputs("</ul>\n", f);
	}
}

int rpt_write_html(const struct report *r, FILE *f)
{
	struct rpt_table *front = NULL, *t = NULL, *env = NULL;
	int nfront = 0, n = 0, nenv = 0, open = 0, rc = -1;
	char err[128];

	if (rpt_front_tables(r, &front, &nfront, err, sizeof err) < 0 ||
	    rpt_tables(r, &t, &n, err, sizeof err) < 0 ||
	    rpt_env_tables(r, &env, &nenv, err, sizeof err) < 0)
		goto done;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	esc(f, r->title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	esc(f, r->title);
	fputs("</h1>\n<p class=\"meta\">", f);
	fprintf(f, "Database%s: ", r->ndbs > 1 ? "s" : "");
	for (int i = 0; i < r->ndbs; i++) {
		fputs(i ? ", " : "", f);
		esc(f, r->dbs[i]);
	}
	fprintf(f, ". Label%s: ", r->nlabels > 1 ? "s" : "");
	for (int l = 0; l < r->nlabels; l++) {
		fputs(l ? ", " : "", f);
		esc(f, r->labels[l].name);
		if (l == 0 && r->nlabels > 1)
			fputs(" (baseline)", f);
	}
	for (int i = 0; i < r->nruns; i++)
		open += strcmp(r->runs[i].status, "done") != 0;
	fprintf(f, ". Runs: %d", r->nruns);
	if (open)
		fprintf(f, " (%d not done: see Findings)", open);
	fputs(".</p>\n", f);
	for (int i = 0; i < r->nstudies; i++) {
		fputs("<p class=\"meta\"><b>Design.</b> ", f);
		esc(f, r->studies[i].design);
		fputs("</p>\n", f);
	}
	{
		const char *m[16];
		int nm = rpt_methods(r, m, 16);
		for (int i = 0; i < nm; i++) {
			fputs(i ? "<p class=\"note\">"
			        : "<p class=\"note\"><b>How changes are judged.</b> ",
			      f);
			esc(f, m[i]);
			fputs("</p>\n", f);
		}
	}
	/* The verdict first: its table, then a sentence per label. */
	if (nfront > 0)
		html_table(&front[0], f);
	fputs("<ul class=\"verdict\">\n", f);
	for (int i = 0; i < r->nverdicts; i++)
		item(f, NULL, r->verdicts[i].sentence);
	fputs("</ul>\n", f);
	html_validity(r, f);
	html_findings(r, f);
	if (count_pictures(r, 1)) {
		fputs("<h2>Labels over time</h2>\n", f);
		html_pictures(r, f, 1);
	}
	for (int i = 1; i < nfront; i++)
		html_table(&front[i], f);
	for (int i = 0; i < nenv; i++)
		html_table(&env[i], f);
	for (int i = 0; i < n; i++)
		html_table(&t[i], f);
	if (count_pictures(r, 0)) {
		fputs("<h2>Pictures of each run</h2>\n", f);
		if (r->plot_note[0]) {
			fputs("<p class=\"note\">", f);
			esc(f, r->plot_note);
			fputs("</p>\n", f);
		}
		html_pictures(r, f, 0);
	}
	fputs("</body>\n</html>\n", f);
	rc = ferror(f) ? -1 : 0;
done:
	rpt_tables_free(front, nfront);
	rpt_tables_free(t, n);
	rpt_tables_free(env, nenv);
	return rc;
}
