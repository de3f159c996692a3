/* report_text: the sentence buffer (see report_text.h). */
#include "report_text.h"

#include <stdarg.h>
#include <stdio.h>
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
