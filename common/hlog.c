/* hlog: HdrHistogram interval logs read one interval at a time and written as the
 * HdrHistogram tools read them (hlog.h); a line longer than its cap is an error, never a
 * silent cut. */
#include "hlog.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"

#define HLOG_YEAR_MS        (365LL * 24 * 3600 * 1000) /* the relative-timestamp threshold */
#define HLOG_SECONDS_MAX    1e12 /* timestamps beyond this (year 33658) are typos or garbage */
#define HLOG_FORMAT_VERSION "1.3"
#define HLOG_LEGEND                                                                                \
	"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","                                 \
	"\"Interval_Compressed_Histogram\""

/* Fills err with `NAME:LINE: message`; returns -1. */
__attribute__((format(printf, 4, 5))) static int line_error(const struct hlog_reader *r, char *err,
                                                            size_t errlen, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%ld: %s", r->name, r->line, msg);
	return -1;
}

int hlog_open_stream(struct hlog_reader *r, FILE *f, const char *name, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	snprintf(r->name, sizeof r->name, "%s", name);
	r->cap = 256;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		snprintf(err, errlen, "out of memory reading '%s'", name);
		r->f = NULL;
		return -1;
	}
	return 0;
}

int hlog_open(struct hlog_reader *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		memset(r, 0, sizeof *r);
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (hlog_open_stream(r, f, path, err, errlen) < 0) {
		fclose(f);
		return -1;
	}
	r->owns_f = 1;
	return 0;
}

void hlog_close(struct hlog_reader *r)
{
	if (r->owns_f && r->f)
		fclose(r->f);
	free(r->buf);
	memset(r, 0, sizeof *r);
}

void hlog_interval_release(struct hlog_interval *iv)
{
	hdr_release(&iv->hist);
}

/* Reads the next line into r->buf without its line break (CR LF too).  Returns 1, 0 at the
 * end of the file, -1 on an error. */
static int read_line(struct hlog_reader *r, size_t *len, char *err, size_t errlen)
{
	size_t n = 0;
	int c = EOF;

	r->line++;
	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		if (c == '\0')
			return line_error(r, err, errlen, "NUL byte in line");
		/* Checked on every byte: the buffer may have room past the limit. */
		if (n >= HLOG_LINE_MAX)
			return line_error(r, err, errlen, "line longer than %d bytes",
			                  HLOG_LINE_MAX);
		/* Room for this byte and the NUL; asked only when full, not for every byte. */
		if (n + 1 >= r->cap && buf_grow(&r->buf, &r->cap, n + 2, 1, 256) < 0)
			return line_error(r, err, errlen, "out of memory");
		r->buf[n++] = (char)c;
	}
	if (ferror(r->f))
		return line_error(r, err, errlen, "cannot read: %s", strerror(errno));
	if (c == EOF && n == 0)
		return 0;
	if (n > 0 && r->buf[n - 1] == '\r')
		n--;
	r->buf[n] = '\0';
	*len = n;
	return 1;
}

/* Parses non-negative decimal seconds s[0..n) into epoch (or relative) milliseconds. */
static int parse_seconds(const char *s, size_t n, int64_t *ms)
{
	char tmp[64], *end;
	double v;

	if (n == 0 || n >= sizeof tmp)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '.' && s[i] != 'e' && s[i] != 'E' &&
		    s[i] != '+' && s[i] != '-')
			return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (*end || errno || !isfinite(v) || v < 0 || v > HLOG_SECONDS_MAX)
		return -1;
	*ms = llround(v * 1000);
	return 0;
}

/* `#[Key: S ...]`: parses the seconds after the prefix. */
static int header_time(struct hlog_reader *r, const char *what, const char *rest, int64_t *ms,
                       char *err, size_t errlen)
{
	size_t n = strspn(rest, "0123456789.eE+-");

	if ((rest[n] != ' ' && rest[n] != ']' && rest[n] != '\0') || parse_seconds(rest, n, ms) < 0)
		return line_error(r, err, errlen, "bad %s '%.*s'", what, (int)strcspn(rest, " ]"),
		                  rest);
	return 0;
}

/* A line starting with '#' or '"': header facts, the legend, or a free comment. */
static int header_line(struct hlog_reader *r, const char *s, char *err, size_t errlen)
{
	static const char start[] = "#[StartTime: ", base[] = "#[BaseTime: ",
	                  version[] = "#[Histogram log format version ";

	if (strncmp(s, start, sizeof start - 1) == 0) {
		if (header_time(r, "StartTime", s + sizeof start - 1, &r->start_ms, err, errlen) <
		    0)
			return -1;
		r->has_start = 1;
	} else if (strncmp(s, base, sizeof base - 1) == 0) {
		if (header_time(r, "BaseTime", s + sizeof base - 1, &r->base_ms, err, errlen) < 0)
			return -1;
		r->has_base = 1;
	} else if (strncmp(s, version, sizeof version - 1) == 0) {
		const char *v = s + sizeof version - 1;
		snprintf(r->version, sizeof r->version, "%.*s", (int)strcspn(v, "]"), v);
	} else if (s[0] == '"') {
		r->end_timestamps = strstr(s, "\"EndTimestamp\"") != NULL;
	}
	return 0;
}

/* [Tag=NAME,]START,LENGTH,MAX,HIST */
static int interval_line(struct hlog_reader *r, char *s, size_t len, struct hlog_interval *iv,
                         char *err, size_t errlen)
{
	const char *field[4];
	size_t flen[4];
	int nf = 0;
	int64_t start, second;
	char *p = s, *end = s + len, hmsg[256];

	iv->tag[0] = '\0';
	if (strncmp(p, "Tag=", 4) == 0) {
		char *comma = memchr(p, ',', (size_t)(end - p));
		size_t tlen = comma ? (size_t)(comma - p - 4) : 0;

		if (!comma)
			return line_error(r, err, errlen, "tag without fields");
		if (tlen == 0)
			return line_error(r, err, errlen, "empty tag");
		if (tlen >= HLOG_TAG_MAX)
			return line_error(r, err, errlen, "tag longer than %d characters",
			                  HLOG_TAG_MAX - 1);
		if (strcspn(p + 4, " \t\r,") < tlen) /* the writer's rule too */
			return line_error(r, err, errlen, "blank in tag '%.*s'", (int)tlen, p + 4);
		memcpy(iv->tag, p + 4, tlen);
		iv->tag[tlen] = '\0';
		p = comma + 1;
	}
	for (const char *q = p; q < end; q++)
		nf += *q == ',';
	if (nf != 3)
		return line_error(r, err, errlen,
		                  "expected START,LENGTH,MAX,HISTOGRAM (4 fields), got %d", nf + 1);
	for (nf = 0; nf < 4; nf++) {
		char *stop = nf < 3 ? memchr(p, ',', (size_t)(end - p)) : end;

		field[nf] = p;
		flen[nf] = (size_t)(stop - p);
		p = stop + 1;
	}
	if (parse_seconds(field[0], flen[0], &start) < 0)
		return line_error(r, err, errlen, "bad start timestamp '%.*s'", (int)flen[0],
		                  field[0]);
	if (parse_seconds(field[1], flen[1], &second) < 0)
		return line_error(r, err, errlen, "bad interval %s '%.*s'",
		                  r->end_timestamps ? "end timestamp" : "length", (int)flen[1],
		                  field[1]);
	{
		char tmp[64], *e;
		if (flen[2] == 0 || flen[2] >= sizeof tmp ||
		    strspn(field[2], "0123456789.eE+-") < flen[2])
			return line_error(r, err, errlen, "bad interval max '%.*s'", (int)flen[2],
			                  field[2]);
		memcpy(tmp, field[2], flen[2]);
		tmp[flen[2]] = '\0';
		iv->max_column = strtod(tmp, &e);
		if (*e || !isfinite(iv->max_column) || iv->max_column < 0)
			return line_error(r, err, errlen, "bad interval max '%s'", tmp);
	}
	if (!r->has_base) {
		/* The first interval decides, for the whole file (Java's rule). */
		r->base_ms = r->has_start && start < r->start_ms - HLOG_YEAR_MS ? r->start_ms : 0;
		r->has_base = 1;
	}
	iv->start_ms = start + r->base_ms;
	if (iv->start_ms > (int64_t)(HLOG_SECONDS_MAX * 1000))
		return line_error(r, err, errlen, "start timestamp beyond %.0f s",
		                  HLOG_SECONDS_MAX);
	iv->length_ms = r->end_timestamps ? second - start : second;
	if (iv->length_ms < 0)
		return line_error(r, err, errlen, "interval ends before it starts");
	iv->line = r->line;
	hdr_release(&iv->hist);
	if (hdr_decode_base64(field[3], flen[3], &iv->hist, hmsg, sizeof hmsg) < 0)
		return line_error(r, err, errlen, "bad histogram: %s", hmsg);
	return 0;
}

int hlog_next(struct hlog_reader *r, struct hlog_interval *iv, char *err, size_t errlen)
{
	size_t len = 0;
	int rc;

	while ((rc = read_line(r, &len, err, errlen)) > 0) {
		if (len == 0)
			continue;
		if (r->buf[0] == '#' || r->buf[0] == '"') {
			if (header_line(r, r->buf, err, errlen) < 0)
				return -1;
			continue;
		}
		if (interval_line(r, r->buf, len, iv, err, errlen) < 0)
			return -1;
		return 1;
	}
	return rc;
}

/* --- writer ----------------------------------------------------------------------------- */

/* Epoch or relative ms as seconds with 3 decimals (ms >= 0). */
static char *fmt_seconds(int64_t ms, char *buf, size_t len)
{
	snprintf(buf, len, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
	return buf;
}

static int write_failed(FILE *f, char *err, size_t errlen)
{
	if (!ferror(f))
		return 0;
	snprintf(err, errlen, "cannot write the histogram log: %s", strerror(errno));
	return -1;
}

int hlog_writer_init(struct hlog_writer *w, FILE *f, int64_t start_ms, double max_ratio,
                     const char *comment, char *err, size_t errlen)
{
	char secs[32], iso[40];

	w->f = f;
	w->start_ms = start_ms;
	w->max_ratio = max_ratio;
	if (start_ms < 0 || !(max_ratio > 0) || !isfinite(max_ratio)) {
		snprintf(err, errlen, "bad histogram log start %lld or max ratio %g",
		         (long long)start_ms, max_ratio);
		return -1;
	}
	if (comment)
		fprintf(f, "#[%s]\n", comment);
	fmt_seconds(start_ms, secs, sizeof secs);
	fprintf(f, "#[Histogram log format version %s]\n", HLOG_FORMAT_VERSION);
	fprintf(f, "#[StartTime: %s (seconds since epoch), %s]\n", secs,
	        clock_iso(start_ms, iso, sizeof iso));
	fprintf(f, "#[BaseTime: %s (seconds since epoch)]\n", secs);
	fprintf(f, "%s\n", HLOG_LEGEND);
	return write_failed(f, err, errlen);
}

int hlog_write(struct hlog_writer *w, const char *tag, int64_t start_ms, int64_t length_ms,
               const struct hdr *h, char *err, size_t errlen)
{
	char *b64 = NULL, s1[32], s2[32];
	int rc = -1;

	if (tag && *tag && (strlen(tag) >= HLOG_TAG_MAX || tag[strcspn(tag, ", \t\r\n")] != '\0')) {
		snprintf(err, errlen, "bad histogram log tag '%.64s'", tag);
		goto cleanup;
	}
	if (start_ms < w->start_ms || length_ms < 0) {
		snprintf(err, errlen, "interval %lld+%lld ms starts before the log (%lld)",
		         (long long)start_ms, (long long)length_ms, (long long)w->start_ms);
		goto cleanup;
	}
	if (hdr_encode_base64(h, &b64, err, errlen) < 0)
		goto cleanup;
	fprintf(w->f, "%s%s%s%s,%s,%.3f,%s\n", tag && *tag ? "Tag=" : "", tag && *tag ? tag : "",
	        tag && *tag ? "," : "", fmt_seconds(start_ms - w->start_ms, s1, sizeof s1),
	        fmt_seconds(length_ms, s2, sizeof s2), (double)hdr_max(h) / w->max_ratio, b64);
	rc = write_failed(w->f, err, errlen);
cleanup:
	free(b64);
	return rc;
}
