/* template: request templates compiled once and expanded per request without allocation
 * (template.h); an unknown placeholder is an error at compile time, never at send time. */
#include "template.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "clock.h"

#define CSV_MAX_BYTES (64L << 20)
#define CSV_MAX_COLS  256

uint64_t tpl_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int add_part(struct tpl *t, struct tpl_part p, const char *src, char *err, size_t errlen)
{
	if (t->nparts >= TPL_MAX_PARTS) {
		snprintf(err, errlen, "template '%.40s...' has more than %d parts", src,
		         TPL_MAX_PARTS);
		return -1;
	}
	t->parts[t->nparts++] = p;
	if (p.kind != TPL_LIT)
		t->dynamic = 1;
	else
		t->min_len += p.len;
	return 0;
}

/* Parses one placeholder name (between "${" and "}") into a part. */
static int parse_placeholder(const char *name, size_t n, const struct tpl_csv *csv,
                             struct tpl_part *p, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum tpl_kind kind;
	} simple[] = {{"seq", TPL_SEQ},       {"vu", TPL_VU},       {"iter", TPL_ITER},
	              {"run", TPL_RUN},       {"nonce", TPL_NONCE}, {"uuid", TPL_UUID},
	              {"now_ms", TPL_NOW_MS}, {"agent", TPL_AGENT}};
	char buf[128];

	if (n >= sizeof buf) {
		snprintf(err, errlen, "unknown placeholder '${%.*s...}'", 40, name);
		return -1;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
		if (strcmp(buf, simple[i].name) == 0) {
			p->kind = simple[i].kind;
			return 0;
		}
	if (strncmp(buf, "random:", 7) == 0) {
		char *end;
		long v = strtol(buf + 7, &end, 10);
		if (end == buf + 7 || *end || v < 1 || v > 256) {
			snprintf(err, errlen, "bad placeholder '${%s}': N must be 1..256", buf);
			return -1;
		}
		p->kind = TPL_RANDOM;
		p->arg = (int)v;
		return 0;
	}
	if (strncmp(buf, "csv:", 4) == 0) {
		if (!csv) {
			snprintf(
			    err, errlen,
			    "placeholder '${%s}' needs a CSV data set (csv = FILE in [scenario])",
			    buf);
			return -1;
		}
		int c = tpl_csv_column(csv, buf + 4);
		if (c < 0) {
			snprintf(err, errlen, "unknown CSV column '%s' in '${%s}'", buf + 4, buf);
			return -1;
		}
		p->kind = TPL_CSV;
		p->arg = c;
		return 0;
	}
	snprintf(err, errlen,
	         "unknown placeholder '${%s}' (known: seq, vu, iter, run, nonce, random:N, uuid, "
	         "now_ms, agent, csv:COLUMN)",
	         buf);
	return -1;
}

int tpl_compile(struct tpl *t, const char *text, const struct tpl_csv *csv, char *err,
                size_t errlen)
{
	size_t len = strlen(text), lit = 0, i = 0;

	memset(t, 0, sizeof *t);
	if (len > UINT32_MAX / 2) {
		snprintf(err, errlen, "template too long");
		return -1;
	}
	t->text = strdup(text);
	t->parts = calloc(TPL_MAX_PARTS, sizeof *t->parts);
	if (!t->text || !t->parts) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* Literal runs are spans of t->text; "$$" ends a span after its first '$'. */
	while (i < len) {
		if (text[i] == '$' && text[i + 1] == '$') {
			struct tpl_part p = {TPL_LIT, (uint32_t)lit, (uint32_t)(i + 1 - lit), 0};
			if (add_part(t, p, text, err, errlen) < 0)
				goto fail;
			i += 2;
			lit = i;
			continue;
		}
		if (text[i] == '$' && text[i + 1] == '{') {
			const char *close = strchr(text + i + 2, '}');
			struct tpl_part p;
			if (!close) {
				snprintf(err, errlen, "unterminated placeholder '%.20s'", text + i);
				goto fail;
			}
			if (i > lit) {
				struct tpl_part l = {TPL_LIT, (uint32_t)lit, (uint32_t)(i - lit),
				                     0};
				if (add_part(t, l, text, err, errlen) < 0)
					goto fail;
			}
			if (parse_placeholder(text + i + 2, (size_t)(close - text - i - 2), csv, &p,
			                      err, errlen) < 0 ||
			    add_part(t, p, text, err, errlen) < 0)
				goto fail;
			i = (size_t)(close - text) + 1;
			lit = i;
			continue;
		}
		i++;
	}
	if (i > lit) {
		struct tpl_part l = {TPL_LIT, (uint32_t)lit, (uint32_t)(i - lit), 0};
		if (add_part(t, l, text, err, errlen) < 0)
			goto fail;
	}
	return 0;
fail:
	tpl_release(t);
	return -1;
}

void tpl_release(struct tpl *t)
{
	free(t->text);
	free(t->parts);
	memset(t, 0, sizeof *t);
}

/* Writes v in decimal at p (room checked by the caller: at most 20 bytes). */
static size_t put_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

long tpl_expand(const struct tpl *t, struct tpl_ctx *ctx, char *buf, size_t cap)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	if (cap == 0)
		return -1;
	for (int i = 0; i < t->nparts; i++) {
		const struct tpl_part *p = &t->parts[i];
		const char *s = NULL;
		size_t sl = 0;

		/* Numbers need at most 21 bytes: check once for all numeric kinds. */
		switch (p->kind) {
		case TPL_LIT:
			s = t->text + p->off;
			sl = p->len;
			break;
		case TPL_NONCE:
			s = ctx->nonce ? ctx->nonce : "";
			sl = strlen(s);
			break;
		case TPL_CSV:
			if (ctx->csv && ctx->csv->nrows > 0) {
				long row = (long)((ctx->seq ? ctx->seq - 1 : 0) %
				                  (uint64_t)ctx->csv->nrows);
				s = ctx->csv->cells[row * ctx->csv->ncols + p->arg];
				sl = strlen(s);
			} else {
				s = "";
			}
			break;
		case TPL_SEQ:
		case TPL_VU:
		case TPL_ITER:
		case TPL_RUN:
		case TPL_AGENT:
		case TPL_NOW_MS: {
			uint64_t v = p->kind == TPL_SEQ     ? ctx->seq
			             : p->kind == TPL_VU    ? ctx->vu
			             : p->kind == TPL_ITER  ? ctx->iter
			             : p->kind == TPL_RUN   ? (uint64_t)ctx->run_id
			             : p->kind == TPL_AGENT ? ctx->agent
			                                    : (uint64_t)clock_wall_ms();
			if (n + 21 >= cap)
				return -1;
			n += put_u64(buf + n, v);
			continue;
		}
		case TPL_RANDOM: {
			if (n + (size_t)p->arg >= cap)
				return -1;
			for (int k = 0; k < p->arg; k++)
				buf[n++] = alnum[tpl_rand(&ctx->rng) % 36];
			continue;
		}
		case TPL_UUID: {
			uint64_t a = tpl_rand(&ctx->rng), b = tpl_rand(&ctx->rng);
			unsigned char u[16];
			if (n + 36 >= cap)
				return -1;
			memcpy(u, &a, 8);
			memcpy(u + 8, &b, 8);
			u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* version 4 */
			u[8] = (unsigned char)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
			for (int k = 0; k < 16; k++) {
				if (k == 4 || k == 6 || k == 8 || k == 10)
					buf[n++] = '-';
				buf[n++] = hex[u[k] >> 4];
				buf[n++] = hex[u[k] & 15];
			}
			continue;
		}
		}
		if (n + sl >= cap)
			return -1;
		memcpy(buf + n, s, sl);
		n += sl;
	}
	buf[n] = '\0';
	return (long)n;
}

size_t tpl_max_len(const struct tpl *t, const struct tpl_ctx *ctx)
{
	size_t n = 1; /* the NUL */

	for (int i = 0; i < t->nparts; i++) {
		const struct tpl_part *p = &t->parts[i];
		switch (p->kind) {
		case TPL_LIT:
			n += p->len;
			break;
		case TPL_NONCE:
			n += ctx->nonce ? strlen(ctx->nonce) : 0;
			break;
		case TPL_RANDOM:
			n += (size_t)p->arg;
			break;
		case TPL_UUID:
			n += 36;
			break;
		case TPL_CSV: {
			size_t m = 0;
			for (long r = 0; ctx->csv && r < ctx->csv->nrows; r++) {
				size_t l = strlen(ctx->csv->cells[r * ctx->csv->ncols + p->arg]);
				if (l > m)
					m = l;
			}
			n += m;
			break;
		}
		default:
			n += 21; /* a 64-bit number and the slack tpl_expand checks for */
			break;
		}
	}
	return n;
}

/* --- CSV ------------------------------------------------------------------------------ */

/* Splits one CSV record starting at *p (in place: unquotes, NUL-terminates cells).
 * Returns the number of cells or -1 on an unterminated quote; *p moves past the record. */
static int csv_record(char **p, char **cells, int max, int *overflow)
{
	char *s = *p;
	int n = 0;

	*overflow = 0;
	for (;;) {
		char *out = s, *cell = s;
		if (*s == '"') {
			s++;
			cell = out = s;
			for (;;) {
				if (*s == '\0')
					return -1;
				if (*s == '"' && s[1] == '"') {
					*out++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*out++ = *s++;
				}
			}
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				s++; /* junk after the closing quote is dropped */
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				s++;
			out = s;
		}
		char sep = *s;
		*out = '\0';
		if (n < max)
			cells[n++] = cell;
		else
			*overflow = 1;
		if (sep == ',') {
			s++;
			continue;
		}
		/* *out may have been the separator itself: decide from the saved copy. */
		if (sep == '\r') {
			s++;
			if (*s == '\n')
				s++;
		} else if (sep == '\n') {
			s++;
		}
		break;
	}
	*p = s;
	return n;
}

int tpl_csv_load(struct tpl_csv *csv, const char *path, char *err, size_t errlen)
{
	FILE *f = NULL;
	struct stat st;
	char *p;
	size_t cap_rows = 0;
	long line = 1;
	char *tmp[CSV_MAX_COLS];
	int n, overflow;

	memset(csv, 0, sizeof *csv);
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st) < 0) {
		snprintf(err, errlen, "cannot read CSV file '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (st.st_size > CSV_MAX_BYTES) {
		snprintf(err, errlen, "CSV file '%s' is larger than %ld MB", path,
		         CSV_MAX_BYTES >> 20);
		goto fail;
	}
	csv->storage = malloc((size_t)st.st_size + 1);
	if (!csv->storage) {
		snprintf(err, errlen, "out of memory reading '%s'", path);
		goto fail;
	}
	size_t got = fread(csv->storage, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read CSV file '%s': %s", path, strerror(errno));
		goto fail;
	}
	csv->storage[got] = '\0';
	fclose(f);
	f = NULL;
	p = csv->storage;
	n = csv_record(&p, tmp, CSV_MAX_COLS, &overflow);
	if (n <= 0 || (n == 1 && tmp[0][0] == '\0')) {
		snprintf(err, errlen, "%s:1: the CSV file needs a header row naming its columns",
		         path);
		goto fail;
	}
	if (overflow) {
		snprintf(err, errlen, "%s:1: more than %d columns", path, CSV_MAX_COLS);
		goto fail;
	}
	csv->ncols = n;
	csv->cols = malloc((size_t)n * sizeof *csv->cols);
	if (!csv->cols)
		goto oom;
	memcpy(csv->cols, tmp, (size_t)n * sizeof *tmp);
	while (*p) {
		line++;
		n = csv_record(&p, tmp, CSV_MAX_COLS, &overflow);
		if (n < 0) {
			snprintf(err, errlen, "%s:%ld: unterminated quoted field", path, line);
			goto fail;
		}
		if (n == 1 && tmp[0][0] == '\0')
			continue; /* blank line */
		if (n != csv->ncols || overflow) {
			snprintf(err, errlen, "%s:%ld: %d fields, the header has %d", path, line, n,
			         csv->ncols);
			goto fail;
		}
		/* A row of ncols cells is one element of the array. */
		if (buf_grow(&csv->cells, &cap_rows, (size_t)csv->nrows + 1,
		             (size_t)csv->ncols * sizeof *csv->cells, 64) < 0)
			goto oom;
		memcpy(csv->cells + csv->nrows * csv->ncols, tmp, (size_t)n * sizeof *tmp);
		csv->nrows++;
	}
	if (csv->nrows == 0) {
		snprintf(err, errlen, "%s: the CSV file has no data rows", path);
		goto fail;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory reading '%s'", path);
fail:
	if (f)
		fclose(f);
	tpl_csv_release(csv);
	return -1;
}

void tpl_csv_release(struct tpl_csv *csv)
{
	free(csv->cols);
	free(csv->cells);
	free(csv->storage);
	memset(csv, 0, sizeof *csv);
}

int tpl_csv_column(const struct tpl_csv *csv, const char *name)
{
	for (int i = 0; i < csv->ncols; i++)
		if (strcmp(csv->cols[i], name) == 0)
			return i;
	return -1;
}
