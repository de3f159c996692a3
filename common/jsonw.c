/* jsonw: JSON strings and the emitter (see jsonw.h).
 * Every string is escaped as RFC 8259 says and numbers that are not finite are null, so
 * what it writes always parses. */
#include "jsonw.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>

void json_write_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void jsonw_init(struct jsonw *w, FILE *f)
{
	*w = (struct jsonw){.f = f};
}

void jsonw_br(struct jsonw *w, const char *br)
{
	w->br = br;
}

/* What goes before an item: nothing after a key; else the comma unless it is the first of
 * its container, then the break (a space after a comma when none was asked for). */
static void sep(struct jsonw *w)
{
	if (w->keyed) {
		w->keyed = 0;
		return;
	}
	if (w->depth > 0) {
		if (w->items[w->depth - 1]) {
			fputc(',', w->f);
			fputs(w->br ? w->br : " ", w->f);
		} else if (w->br) {
			fputs(w->br, w->f);
		}
		w->items[w->depth - 1] = 1;
	}
	w->br = NULL;
}

static void open_(struct jsonw *w, char open, char close)
{
	sep(w);
	assert(w->depth < JSONW_DEPTH);
	fputc(open, w->f);
	w->items[w->depth] = 0;
	w->close[w->depth++] = close;
}

void jsonw_obj(struct jsonw *w)
{
	open_(w, '{', '}');
}

void jsonw_arr(struct jsonw *w)
{
	open_(w, '[', ']');
}

void jsonw_end(struct jsonw *w)
{
	assert(w->depth > 0 && !w->keyed);
	if (w->br)
		fputs(w->br, w->f);
	w->br = NULL;
	fputc(w->close[--w->depth], w->f);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	assert(w->depth > 0 && w->close[w->depth - 1] == '}');
	sep(w);
	json_write_str(w->f, key);
	fputs(": ", w->f);
	w->keyed = 1;
}

void jsonw_str(struct jsonw *w, const char *s)
{
	sep(w);
	json_write_str(w->f, s);
}

void jsonw_str_or_null(struct jsonw *w, const char *s)
{
	if (s && *s)
		jsonw_str(w, s);
	else
		jsonw_null(w);
}

void jsonw_int(struct jsonw *w, long long v)
{
	sep(w);
	fprintf(w->f, "%lld", v);
}

void jsonw_bool(struct jsonw *w, int v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(struct jsonw *w)
{
	sep(w);
	fputs("null", w->f);
}

void jsonw_num(struct jsonw *w, double v, int decimals)
{
	if (!isfinite(v)) {
		jsonw_null(w);
		return;
	}
	sep(w);
	if (fabs(v) < 0.5 * pow(10, -decimals))
		v = 0;
	fprintf(w->f, "%.*f", decimals, v);
}

void jsonw_fmt(struct jsonw *w, const char *fmt, ...)
{
	va_list ap;

	sep(w);
	va_start(ap, fmt);
	vfprintf(w->f, fmt, ap);
	va_end(ap);
}

void jsonw_mstr(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_mint(struct jsonw *w, const char *key, long long v)
{
	jsonw_key(w, key);
	jsonw_int(w, v);
}

void jsonw_mbool(struct jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

void jsonw_mnull(struct jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_null(w);
}

void jsonw_mnum(struct jsonw *w, const char *key, double v, int decimals)
{
	jsonw_key(w, key);
	jsonw_num(w, v, decimals);
}
