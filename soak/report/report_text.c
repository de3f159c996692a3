/* report_text: the sentence buffer (see report_text.h). */
#include "report_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rpt_sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->n >= sizeof b->s - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = (size_t)k < sizeof b->s - b->n ? b->n + (size_t)k : sizeof b->s - 1;
}

void rpt_sb_reset(struct sbuf *b)
{
	b->n = 0;
	b->s[0] = '\0';
}

void rpt_sb_runs(struct sbuf *b, const char *keys)
{
	int n = 1, i = 0;
	const char *p;

	for (p = keys; *p; p++)
		n += *p == ',';
	rpt_sb_printf(b, "run%s ", n > 1 ? "s" : "");
	for (p = keys; *p; i++) {
		size_t len = strcspn(p, ",");
		rpt_sb_printf(b, "%s%.*s", i == 0 ? "" : i == n - 1 ? " and " : ", ", (int)len, p);
		p += len;
		p += *p == ',';
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
