/* report_html: report.html — one self-contained page: inline CSS, the SVG pictures inline,
 * no script, no network. */
#include "report/report_int.h"
#include "report_doc.h"
#include "report/report_text.h"

#include <string.h>

/* Laid out to fit a 1280-px window: text cells wrap (command lines anywhere), only
 * numbers keep to one line. */
static const char css[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;"
    "max-width:1200px;padding:0 1em;color:#1d1d1f}\n"
    "h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd}\n"
    "p.meta{color:#555}p.note{color:#444;font-size:.92em;max-width:60em}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.88em;max-width:100%}\n"
    "th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;"
    "overflow-wrap:anywhere}\n"
    "th{background:#f2f2f2}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap;overflow-wrap:normal}\n"
    "tr:nth-child(even) td{background:#fafafa}\n"
    "figure{margin:1em 0 2em}figure svg{width:100%;max-width:800px;height:auto;display:block;"
    "border:1px solid #eee}\n"
    "figcaption{font-weight:600;margin-bottom:.3em}\n"
    "ul.findings li,ul.verdict li,ul.validity li{margin:.3em 0}\n"
    "ul.validity li.warn strong{color:#b00020}ul.validity li.info strong{color:#555}\n";

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

static void html_list(const struct rpt_block *b, FILE *f)
{
	if (b->cls)
		fprintf(f, "<ul class=\"%s\">\n", b->cls);
	else
		fputs("<ul>\n", f);
	for (int i = 0; i < b->nitems; i++) {
		const struct rpt_doc_item *it = &b->items[i];
		if (it->cls)
			fprintf(f, "<li class=\"%s\">", it->cls);
		else
			fputs("<li>", f);
		if (it->tag) {
			fputs("<strong>", f);
			esc(f, it->tag);
			fputs("</strong> ", f);
		}
		if (it->code) {
			fputs("<code>", f);
			esc(f, it->code);
			fputs("</code>: ", f);
		}
		esc(f, it->text);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

int rpt_write_html(const struct report *r, FILE *f)
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
	esc(f, r->title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
	for (int i = 0; i < d.n; i++) {
		const struct rpt_block *b = &d.b[i];
		switch (b->kind) {
		case RPT_B_HEADING:
			fprintf(f, "<h%d>", b->level);
			esc(f, b->text);
			fprintf(f, "</h%d>\n", b->level);
			break;
		case RPT_B_PARA:
			if (b->cls)
				fprintf(f, "<p class=\"%s\">", b->cls);
			else
				fputs("<p>", f);
			if (b->lead) {
				fputs("<b>", f);
				esc(f, b->lead);
				fputs("</b> ", f);
			}
			esc(f, b->text);
			fputs("</p>\n", f);
			break;
		case RPT_B_LIST:
			html_list(b, f);
			break;
		case RPT_B_TABLE:
			html_table(b->table, f);
			break;
		case RPT_B_PICTURES:
			html_pictures(r, f, b->compare);
			break;
		}
	}
	fputs("</body>\n</html>\n", f);
	rpt_doc_free(&d);
	return ferror(f) ? -1 : 0;
}
