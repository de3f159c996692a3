/* report_html: report.html and details.html (report_doc.h's details file), each one
 * self-contained page: inline CSS, the SVG pictures inline, no script, no network. */
#include "report_html.h"
#include "report/report_int.h"
#include "report_doc.h"
#include "report_flame.h"
#include "report/report_text.h"

#include <stdlib.h>
#include <string.h>

/* Laid out to fit a 1280-px window, and its first 800 px to hold the title, the verdict
 * table and the answer per label: no word is broken inside a cell (only the environment's
 * command lines and paths break anywhere, and a word longer than its line), a number cell
 * breaks only before "±" and before its verdict in brackets, and each run's pictures sit in
 * one table, as wide as its columns. */
static const char css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1em auto;"
    "max-width:1240px;padding:0 1em;color:#1d1d1f}\n"
    "h1{font-size:1.45em;margin:.3em 0 .2em}h2{margin-top:2em;border-bottom:1px solid #ddd}\n"
    "h2:first-of-type{margin-top:.8em}\n"
    "p.meta{color:#555;margin-top:0}p.note{color:#444;font-size:.92em;max-width:60em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.88em;max-width:100%}\n"
    "th,td{border:1px solid #ccc;padding:.25em .4em;vertical-align:top;"
    "overflow-wrap:break-word}\n"
    ".nb{white-space:nowrap}\n"
    "table[id^=env] td{overflow-wrap:anywhere}\n"
    "th{background:#f2f2f2}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr:nth-child(even) td{background:#fafafa}\n"
    "figure{margin:1em 0 2em}figure svg{width:100%;max-width:800px;height:auto;display:block;"
    "border:1px solid #eee}\n"
    "figcaption{font-weight:600;margin-bottom:.3em}\n"
    "table.pics{width:100%;table-layout:fixed}table.pics td{padding:2px}"
    "table.pics th:first-child,table.pics td:first-child{width:12em}\n"
    "table.pics figure{margin:0}table.pics svg{max-width:none}\n"
    "figure.flame svg{max-width:1200px}figure.flame g:hover rect{stroke:#000}\n"
    "ul.findings li,ul.verdict li,ul.validity li{margin:.3em 0}\n"
    "ul.validity li.warn strong{color:#b00020}ul.validity li.info strong{color:#555}\n";

/* Text with &, <, >, " escaped (report_text.h). */
static void esc(FILE *f, const char *s)
{
	rpt_xml_esc(f, s);
}

/* Text between two pieces of markup: open, s escaped, close. */
static void tag(FILE *f, const char *open, const char *s, const char *close)
{
	fputs(open, f);
	esc(f, s);
	fputs(close, f);
}

/* A cell of a kept column ("-13.1% ±16.3% (noise)", "30 users (fixed runs of 20s)"): its
 * parts, split before "±" and before a bracket, each kept on one line. */
static void esc_kept(FILE *f, const char *s)
{
	while (*s) {
		const char *next = NULL, *pm = strstr(s + 1, " \xc2\xb1"),
		           *br = strstr(s + 1, " (");
		if (pm && (!br || pm < br))
			next = pm;
		else
			next = br;
		size_t n = next ? (size_t)(next - s) : strlen(s);
		fputs("<span class=\"nb\">", f);
		for (size_t k = 0; k < n; k += 255) {
			char part[256];
			snprintf(part, sizeof part, "%.*s", (int)(n - k < 255 ? n - k : 255),
			         s + k);
			esc(f, part);
		}
		fputs("</span>", f);
		if (!next)
			break;
		fputc(' ', f);
		s = next + 1;
	}
}

/* A text cell: a word with a hyphen in it ("regserver-2t", "too-short") is kept on one
 * line, as the browser would otherwise break it after the hyphen; a long one (a path, a
 * command line) may still break. */
static void esc_words(FILE *f, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " "), sp = strspn(s + n, " ");
		char word[64];
		int keep = n < sizeof word && memchr(s, '-', n) != NULL;
		if (keep)
			fputs("<span class=\"nb\">", f);
		for (size_t k = 0; k < n; k += sizeof word - 1) {
			size_t m = n - k < sizeof word - 1 ? n - k : sizeof word - 1;
			snprintf(word, sizeof word, "%.*s", (int)m, s + k);
			esc(f, word);
		}
		if (keep)
			fputs("</span>", f);
		fprintf(f, "%.*s", (int)sp, s + n);
		s += n + sp;
	}
}

/* A heading; in the details page (anchor 1) a section's (level 2) with the anchor
 * report.html links to (report.html's own ids are its tables': "verdict"). */
static void html_h(FILE *f, int level, const char *text, int anchor)
{
	char slug[128];

	if (level == 2 && anchor) {
		rpt_doc_slug(text, slug, sizeof slug);
		fprintf(f, "<h2 id=\"%s\">", slug);
	} else {
		fprintf(f, "<h%d>", level);
	}
	esc(f, text);
	fprintf(f, "</h%d>\n", level);
}

static void html_table(const struct rpt_table *t, FILE *f, int note, int anchor)
{
	if (t->title && t->title[0]) /* else the document heads it */
		html_h(f, 2, t->title, anchor);
	if (note && t->note && t->note[0])
		tag(f, "<p class=\"note\">", t->note, "</p>\n");
	if (t->id[0])
		tag(f, "<table id=\"", t->id, "\">\n");
	else
		fputs("<table>\n", f);
	for (int row = 0; row <= t->nrows; row++) {
		const char *tag = row == 0 ? "th" : "td";
		fputs(row == 0 ? "<thead><tr>" : "<tr>", f);
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[(size_t)row * (size_t)t->ncols + (size_t)c];
			fprintf(f, "<%s%s>", tag, t->right[c] ? " class=\"r\"" : "");
			if (t->keep[c] && row > 0)
				esc_kept(f, cell);
			else
				esc_words(f, cell);
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

static void html_figure(const struct rpt_picture *p, FILE *f, int caption)
{
	fprintf(f, "<figure id=\"%s\">", p->name);
	if (caption)
		tag(f, "\n<figcaption>", p->title, "</figcaption>\n");
	if (p->drawn && p->svg)
		inline_svg(f, p->svg, p->name);
	else
		fputs("<p class=\"note\">(not drawn)</p>", f);
	fputs("</figure>", f);
}

/* A profile's flame graph, inline so that its boxes' tooltips work. */
static void html_flame(const struct report *r, int i, FILE *f)
{
	char *svg = rpt_flame_svg(r, &r->pcmps[i]);

	fprintf(f, "<figure class=\"flame\" id=\"profile-%d\">", i + 1);
	if (svg)
		fputs(svg, f);
	fputs("</figure>\n", f);
	free(svg);
}

/* Each run's pictures as one table: a row per run, a column per kind of picture, each
 * picture as wide as its column (the browser's zoom enlarges it). */
static void html_run_pictures(const struct report *r, FILE *f)
{
	const char *cols[32];
	int ncols = rpt_doc_pic_cols(r, cols, 32);

	if (ncols == 0)
		return;
	fputs("<table class=\"pics\"><thead><tr><th>run</th>", f);
	for (int k = 0; k < ncols; k++)
		tag(f, "<th>", cols[k], "</th>");
	fputs("</tr></thead>\n<tbody>\n", f);
	for (int i = 0; i < r->nruns; i++) {
		if (rpt_doc_pic(r, i, NULL) < 0)
			continue;
		fprintf(f, "<tr><td>%s <span class=\"nb\">(", r->runs[i].key);
		tag(f, "", rpt_label_name(r, r->runs[i].label), ")</span></td>");
		for (int k = 0; k < ncols; k++) {
			int p = rpt_doc_pic(r, i, cols[k]);
			fputs("<td>", f);
			if (p >= 0)
				html_figure(&r->pics[p], f, 0);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void html_pictures(const struct report *r, FILE *f, int compare)
{
	for (int i = 0; i < r->npics; i++) {
		const struct rpt_picture *p = &r->pics[i];
		if (p->compare != compare || p->run >= 0)
			continue;
		html_figure(p, f, 1);
		fputc('\n', f);
	}
	if (!compare)
		html_run_pictures(r, f);
}

/* An element's opening tag, with its class when it has one. */
static void open_cls(FILE *f, const char *el, const char *cls)
{
	if (cls)
		fprintf(f, "<%s class=\"%s\">", el, cls);
	else
		fprintf(f, "<%s>", el);
}

static void html_list(const struct rpt_block *b, FILE *f)
{
	open_cls(f, "ul", b->cls);
	fputc('\n', f);
	for (int i = 0; i < b->nitems; i++) {
		const struct rpt_doc_item *it = &b->items[i];
		open_cls(f, "li", it->cls);
		if (it->tag)
			tag(f, "<strong>", it->tag, "</strong> ");
		if (it->code)
			tag(f, "<code>", it->code, "</code>: ");
		if (it->anchor) {
			tag(f, "<a href=\"details.html#", it->anchor, "\">");
			tag(f, "", it->text, "</a>");
		} else {
			esc(f, it->text);
		}
		tag(f, "", it->tail ? it->tail : "", "</li>\n");
	}
	fputs("</ul>\n", f);
}

static void html_block(const struct report *r, const struct rpt_block *b, FILE *f)
{
	switch (b->kind) {
	case RPT_B_HEADING:
		html_h(f, b->level, b->text, b->details);
		break;
	case RPT_B_PARA:
		open_cls(f, "p", b->cls);
		if (b->lead)
			tag(f, "<b>", b->lead, "</b> ");
		tag(f, "", b->text, "</p>\n");
		break;
	case RPT_B_LIST:
		html_list(b, f);
		break;
	case RPT_B_TABLE:
		html_table(b->table, f, !b->note_apart, b->details);
		break;
	case RPT_B_PICTURES:
		html_pictures(r, f, b->compare);
		break;
	case RPT_B_FLAME:
		html_flame(r, b->compare, f);
		break;
	}
}

/* The page of the report (details 0) or of the details file (1). */
static int html_write(const struct report *r, FILE *f, int details)
{
	struct rpt_doc d;
	char err[128];

	if (rpt_doc_build(r, &d, err, sizeof err) < 0) {
		rpt_doc_free(&d);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	tag(f, "", r->title, details ? ": details" : "");
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
	if (details) {
		tag(f, "<h1>", r->title, ": details</h1>\n");
		fputs("<p class=\"meta\">What <a href=\"report.html\">report.html</a> links to: "
		      "each profile's top frames, what ran, the tables of each run, comparison and "
		      "process, and the pictures of each run.</p>\n",
		      f);
	}
	for (int i = 0; i < d.n; i++)
		if (d.b[i].details == details)
			html_block(r, &d.b[i], f);
	fputs("</body>\n</html>\n", f);
	rpt_doc_free(&d);
	return ferror(f) ? -1 : 0;
}

int rpt_write_html(const struct report *r, FILE *f)
{
	return html_write(r, f, 0);
}

int rpt_write_html_details(const struct report *r, FILE *f)
{
	return html_write(r, f, 1);
}
