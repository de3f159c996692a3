/* jtl: JMeter's result files (CSV with or without a header, XML) read one top-level
 * sample at a time in bounded memory (jtl.h); a bad field is FILE:LINE. */
#include "jtl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"

#define JTL_MAX_RECORD (1 << 20) /* a CSV record, quoted line breaks included */
#define JTL_MAX_TAG    (1 << 20) /* an XML tag with its attributes */
#define JTL_MAX_FIELDS 512       /* CSV fields per record */
#define JTL_MAX_MS     (100LL * 366 * 86400 * 1000)

/* The columns soak reads; the rest are skipped. */
enum col {
	C_TS,
	C_ELAPSED,
	C_LABEL,
	C_CODE,
	C_MSG,
	C_SUCCESS,
	C_BYTES,
	C_GRP,
	C_ALL,
	C_LATENCY,
	C_URL,
	C_HOST,
	C_COUNT,
	C_NCOL
};

/* CSV header names and XML attribute names of each column. */
static const char *const csv_names[C_NCOL] = {
    "timeStamp", "elapsed",  "label",       "responseCode", "responseMessage",
    "success",   "bytes",    "grpThreads",  "allThreads",   "Latency",
    "URL",       "Hostname", "SampleCount",
};
static const char *const xml_names[C_NCOL] = {
    "ts", "t", "lb", "rc", "rm", "s", "by", "ng", "na", "lt", "", "hn", "sc",
};

/* Header-less CSV: the columns of JMeter's default configurations, by field count. */
static const char *const default_2_13[] = {
    "timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
    "dataType",  "success", "bytes", "grpThreads",   "allThreads",      "Latency",
};
static const char *const default_2_13_fm[] = {
    "timeStamp",  "elapsed",    "label",   "responseCode",   "responseMessage",
    "threadName", "dataType",   "success", "failureMessage", "bytes",
    "grpThreads", "allThreads", "Latency",
};
static const char *const default_5[] = {
    "timeStamp",  "elapsed", "label",          "responseCode", "responseMessage", "threadName",
    "dataType",   "success", "failureMessage", "bytes",        "sentBytes",       "grpThreads",
    "allThreads", "URL",     "Latency",        "IdleTime",     "Connect",
};

struct jtl_reader {
	struct ireader *r;   /* the input (not owned) */
	enum jtl_format fmt; /* told by the first byte */
	int has_threads;     /* allThreads or grpThreads is there */
	/* CSV */
	char delim;                  /* ',' or '\t' */
	int header;                  /* the first line names the columns */
	int col[C_NCOL];             /* field index of each column, -1 when absent */
	int nfields;                 /* fields of the header or the default layout */
	char *rec;                   /* the record being assembled (lines joined by '\n') */
	size_t reclen, reccap;       /* its length and allocation (fbuf's too) */
	char *fbuf;                  /* the record's fields, unquoted, each NUL-terminated */
	char *field[JTL_MAX_FIELDS]; /* where each starts in fbuf */
	/* XML */
	char *tag, *top;          /* the tag being read; the top-level sample's start tag */
	size_t taglen, toplen;    /* their lengths */
	long top_line;            /* line of the top-level sample's start tag */
	int depth;                /* open elements */
	int top_depth;            /* depth of the open top-level sample, 0 when none */
	int root_seen;            /* <testResults> opened */
	int in_url;               /* reading the text of the top sample's <java.net.URL> */
	char url[JTL_MAX_FIELD];  /* that text */
	size_t urllen;            /* its length */
	const char *attr[C_NCOL]; /* values of the top sample's attributes, in top */
};

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long x;

	while (*s == ' ')
		s++;
	if (!*s || !(isdigit((unsigned char)*s) || *s == '-'))
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/* --- CSV ------------------------------------------------------------------------------- */

/* Splits rec into fields.  Returns the number of fields, -2 when a quoted field is still
 * open at the end (the record continues on the next line), -1 past JTL_MAX_FIELDS. */
static int csv_split(struct jtl_reader *j)
{
	const char *p = j->rec, *end = j->rec + j->reclen;
	char *o = j->fbuf;
	int n = 0;

	for (;;) {
		if (n >= JTL_MAX_FIELDS)
			return -1;
		j->field[n++] = o;
		if (p < end && *p == '"') {
			p++;
			for (;;) {
				if (p >= end)
					return -2;
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*o++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*o++ = *p++;
			}
		}
		/* Unquoted text, or anything after a closing quote, up to the delimiter. */
		while (p < end && *p != j->delim)
			*o++ = *p++;
		*o++ = '\0';
		if (p >= end)
			return n;
		p++;
	}
}

/* Room for need bytes in rec and in fbuf, which share reccap: it is theirs only once both
 * have grown.  -1 out of memory. */
static int room(struct jtl_reader *j, size_t need)
{
	size_t cap = j->reccap;

	if (buf_grow(&j->rec, &cap, need, 1, 4096) < 0)
		return -1;
	cap = j->reccap;
	if (buf_grow(&j->fbuf, &cap, need, 1, 4096) < 0)
		return -1;
	j->reccap = cap;
	return 0;
}

/* Reads the next record into fields: 1, 0 at the end, -1 with err. */
static int csv_record(struct jtl_reader *j, int *n, long *line, char *err, size_t errlen)
{
	char *l;
	size_t len;
	long no;
	int rc;

	j->reclen = 0;
	for (;;) {
		rc = ird_next_line(j->r, &l, &len, &no, err, errlen);
		if (rc < 0) {
			*line = no;
			return -1;
		}
		if (rc == 0) {
			if (j->reclen == 0)
				return 0;
			snprintf(err, errlen, "the file ends inside a quoted field");
			return -1;
		}
		if (j->reclen == 0) {
			*line = no;
			if (len == 0)
				continue; /* blank lines between records */
		}
		if (j->reclen + len + 2 > JTL_MAX_RECORD) {
			snprintf(err, errlen, "record longer than %d bytes", JTL_MAX_RECORD);
			return -1;
		}
		if (room(j, j->reclen + len + 2) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (j->reclen > 0)
			j->rec[j->reclen++] = '\n';
		memcpy(j->rec + j->reclen, l, len);
		j->reclen += len;
		j->rec[j->reclen] = '\0';
		*n = csv_split(j);
		if (*n == -1) {
			snprintf(err, errlen, "more than %d fields", JTL_MAX_FIELDS);
			return -1;
		}
		if (*n >= 0)
			return 1;
	}
}

static void map_columns(struct jtl_reader *j, const char *const *names, int n)
{
	for (int c = 0; c < C_NCOL; c++)
		j->col[c] = -1;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < C_NCOL; c++)
			if (j->col[c] < 0 && strcmp(names[i], csv_names[c]) == 0)
				j->col[c] = i;
	j->nfields = n;
}

static int csv_open(struct jtl_reader *j, char *err, size_t errlen, long *line)
{
	int n, rc;

	/* The header decides the delimiter: a tab-separated file has tabs and no comma. */
	{
		char *l;
		size_t len;
		rc = ird_next_line(j->r, &l, &len, line, err, errlen);
		if (rc <= 0) {
			if (rc == 0)
				snprintf(err, errlen, "empty file");
			return -1;
		}
		j->delim = strchr(l, '\t') && !strchr(l, ',') ? '\t' : ',';
		if (ird_rewind(j->r, err, errlen) < 0)
			return -1;
	}
	rc = csv_record(j, &n, line, err, errlen);
	if (rc <= 0)
		return -1;
	/* A byte-order mark (files saved by spreadsheet tools) is not part of the name. */
	if (strncmp(j->field[0], "\xEF\xBB\xBF", 3) == 0)
		j->field[0] += 3;
	for (int i = 0; i < n; i++)
		if (strcmp(j->field[i], "timeStamp") == 0)
			j->header = 1;
	if (j->header) {
		const char *names[JTL_MAX_FIELDS];
		for (int i = 0; i < n; i++)
			names[i] = j->field[i];
		map_columns(j, names, n);
		if (j->col[C_ELAPSED] < 0 || (j->col[C_SUCCESS] < 0 && j->col[C_CODE] < 0)) {
			snprintf(
			    err, errlen,
			    "the header has no '%s' column: soak needs timeStamp, elapsed, and "
			    "success or responseCode",
			    j->col[C_ELAPSED] < 0 ? "elapsed" : "success");
			return -1;
		}
	} else {
		if (n == (int)(sizeof default_2_13 / sizeof *default_2_13))
			map_columns(j, default_2_13, n);
		else if (n == (int)(sizeof default_2_13_fm / sizeof *default_2_13_fm))
			map_columns(j, default_2_13_fm, n);
		else if (n == (int)(sizeof default_5 / sizeof *default_5))
			map_columns(j, default_5, n);
		else {
			snprintf(err, errlen,
			         "no header row, and %d fields is none of JMeter's default layouts "
			         "(12 or 13 fields for 2.13, 17 for 3.1 to 5): save results with "
			         "jmeter.save.saveservice.print_field_names=true",
			         n);
			return -1;
		}
		if (ird_rewind(j->r, err, errlen) < 0)
			return -1;
	}
	j->has_threads = j->col[C_ALL] >= 0 || j->col[C_GRP] >= 0;
	return 0;
}

/* --- XML ------------------------------------------------------------------------------- */

/* Decodes XML entities and character references in s, in place (never longer). */
static void xml_unescape(char *s)
{
	static const struct {
		const char *name;
		char c;
	} ents[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
	char *o = s;

	while (*s) {
		if (*s != '&') {
			*o++ = *s++;
			continue;
		}
		int done = 0;
		for (size_t k = 0; k < sizeof ents / sizeof *ents && !done; k++)
			if (strncmp(s + 1, ents[k].name, strlen(ents[k].name)) == 0) {
				*o++ = ents[k].c;
				s += 1 + strlen(ents[k].name);
				done = 1;
			}
		if (!done && s[1] == '#') {
			char *end;
			int hex = s[2] == 'x' || s[2] == 'X';
			unsigned long cp = strtoul(s + (hex ? 3 : 2), &end, hex ? 16 : 10);
			if (*end == ';' && end > s + (hex ? 3 : 2) && cp > 0 && cp <= 0x10FFFF) {
				/* UTF-8: at most 4 bytes for at least 4 characters of reference. */
				if (cp < 0x80) {
					*o++ = (char)cp;
				} else if (cp < 0x800) {
					*o++ = (char)(0xC0 | (cp >> 6));
					*o++ = (char)(0x80 | (cp & 0x3F));
				} else if (cp < 0x10000) {
					*o++ = (char)(0xE0 | (cp >> 12));
					*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
					*o++ = (char)(0x80 | (cp & 0x3F));
				} else {
					*o++ = (char)(0xF0 | (cp >> 18));
					*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
					*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
					*o++ = (char)(0x80 | (cp & 0x3F));
				}
				s = end + 1;
				done = 1;
			}
		}
		if (!done)
			*o++ = *s++; /* a bare '&': kept as written */
	}
	*o = '\0';
}

/* Skips input up to and including `end` (at most 3 bytes: "?>", "-->", "]]>").  -1 at EOF
 * or error. */
static int skip_past(struct jtl_reader *j, const char *end, char *err, size_t errlen)
{
	size_t n = strlen(end), seen = 0;
	char last[4] = "";

	for (;;) {
		int c = ird_getc(j->r, err, errlen);
		if (c < 0) {
			if (c == -1)
				snprintf(err, errlen, "the file ends inside a markup declaration");
			return -1;
		}
		/* The last n bytes, compared whole: "--->" still ends a comment. */
		memmove(last, last + 1, 2);
		last[2] = (char)c;
		if (++seen >= n && memcmp(last + 3 - n, end, n) == 0)
			return 0;
	}
}

/* Reads a tag's text after '<' up to its '>' (quotes respected) into j->tag. */
static int read_tag(struct jtl_reader *j, int first, char *err, size_t errlen)
{
	int quote = 0, c = first;

	j->taglen = 0;
	for (;;) {
		if (c < 0) {
			if (c == -1)
				snprintf(
				    err, errlen,
				    "the file ends inside a tag (JMeter stopped while writing? "
				    "remove the incomplete last sample)");
			return -1;
		}
		if (!quote && c == '>')
			break;
		if (quote ? c == quote : (c == '"' || c == '\''))
			quote = quote ? 0 : c;
		if (j->taglen + 1 >= JTL_MAX_TAG) {
			snprintf(err, errlen, "tag longer than %d bytes", JTL_MAX_TAG);
			return -1;
		}
		j->tag[j->taglen++] = (char)c;
		c = ird_getc(j->r, err, errlen);
	}
	j->tag[j->taglen] = '\0';
	return 0;
}

/* The element name at the start of a tag's text: its length. */
static size_t name_len(const char *t)
{
	size_t n = 0;
	while (t[n] && !isspace((unsigned char)t[n]) && t[n] != '/' && t[n] != '>')
		n++;
	return n;
}

static int is_sample(const char *t, size_t n)
{
	return (n == 6 && strncmp(t, "sample", 6) == 0) ||
	       (n == 10 && strncmp(t, "httpSample", 10) == 0);
}

/* Parses the attributes of the top sample's tag (in j->top) into j->attr. */
static int parse_attrs(struct jtl_reader *j, char *err, size_t errlen)
{
	char *p = j->top + name_len(j->top);

	for (int c = 0; c < C_NCOL; c++)
		j->attr[c] = NULL;
	for (;;) {
		char *name, *val, q;
		size_t nl;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '/')
			return 0;
		name = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		nl = (size_t)(p - name);
		while (isspace((unsigned char)*p))
			p++;
		if (*p != '=')
			goto bad;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		q = *p;
		if (q != '"' && q != '\'')
			goto bad;
		val = ++p;
		while (*p && *p != q)
			p++;
		if (!*p)
			goto bad;
		*p++ = '\0';
		for (int c = 0; c < C_NCOL; c++)
			if (*xml_names[c] && strlen(xml_names[c]) == nl &&
			    strncmp(name, xml_names[c], nl) == 0) {
				xml_unescape(val);
				j->attr[c] = val;
			}
	}
bad:
	snprintf(err, errlen, "malformed attribute in <%.*s>", (int)name_len(j->top), j->top);
	return -1;
}

/* The end of the file: 0 when it may end here, -1 with err (and *line) when not. */
static int xml_eof(struct jtl_reader *j, char *err, size_t errlen, long *line)
{
	if (j->top_depth) {
		*line = j->top_line;
		snprintf(err, errlen,
		         "the file ends inside this sample (JMeter stopped "
		         "while writing? remove the incomplete last sample)");
		return -1;
	}
	if (!j->root_seen) {
		snprintf(err, errlen, "no <testResults> element: not a JMeter XML result file");
		return -1;
	}
	return 0; /* a missing </testResults>: JMeter was stopped between samples */
}

/* After "<" and c ('?' or '!'): skips a declaration, a comment, a CDATA section or a
 * DOCTYPE.  0, or -1 with err. */
static int skip_markup(struct jtl_reader *j, int c, char *err, size_t errlen)
{
	if (c == '?')
		return skip_past(j, "?>", err, errlen);
	c = ird_getc(j->r, err, errlen);
	if (c == '-')
		return skip_past(j, "-->", err, errlen);
	if (c == '[')
		return skip_past(j, "]]>", err, errlen);
	return skip_past(j, ">", err, errlen);
}

/* A start tag (in j->tag, read at line `at`): the root checked, a top-level sample made
 * j->top, a URL element inside it noted.  1 when it completes a sample (self-closing:
 * j->attr filled), 0 to read on, -1 with err. */
static int xml_start_tag(struct jtl_reader *j, long at, char *err, size_t errlen, long *line)
{
	size_t nl = name_len(j->tag);
	int self_closing = j->taglen > 0 && j->tag[j->taglen - 1] == '/';

	if (!j->root_seen) {
		if (nl != 11 || strncmp(j->tag, "testResults", 11) != 0) {
			snprintf(err, errlen,
			         "the root element is <%.*s>, not <testResults>: not a "
			         "JMeter XML result file",
			         (int)nl, j->tag);
			return -1;
		}
		j->root_seen = 1;
	}
	if (j->depth == 1 && is_sample(j->tag, nl)) {
		char *t = j->top;
		j->top = j->tag;
		j->tag = t;
		j->toplen = j->taglen;
		j->top_line = at;
		j->urllen = 0;
		j->url[0] = '\0';
		if (self_closing) {
			*line = at;
			return parse_attrs(j, err, errlen) < 0 ? -1 : 1;
		}
		j->depth++;
		j->top_depth = j->depth;
		return 0;
	}
	if (j->top_depth && j->depth == j->top_depth && nl == 12 &&
	    strncmp(j->tag, "java.net.URL", 12) == 0 && !self_closing)
		j->in_url = 1;
	if (!self_closing)
		j->depth++;
	return 0;
}

/* An end tag (in j->tag): 1 when it closes the top-level sample (j->attr filled), 0 to
 * read on, -1 with err. */
static int xml_end_tag(struct jtl_reader *j, char *err, size_t errlen, long *line)
{
	if (j->depth == 0) {
		snprintf(err, errlen, "end tag <%s> without a start", j->tag);
		return -1;
	}
	j->depth--;
	if (j->top_depth && j->depth + 1 == j->top_depth) {
		j->top_depth = 0;
		*line = j->top_line;
		return parse_attrs(j, err, errlen) < 0 ? -1 : 1;
	}
	return 0;
}

/* Advances to the end of the next top-level sample: 1 (j->top and j->attr filled), 0 at
 * the end of the file, -1. */
static int xml_sample(struct jtl_reader *j, char *err, size_t errlen, long *line)
{
	for (;;) {
		long at = ird_line_no(j->r);
		int c = ird_getc(j->r, err, errlen), rc;
		*line = at;
		if (c == -2)
			return -1;
		if (c == -1)
			return xml_eof(j, err, errlen, line);
		if (c != '<') {
			if (j->in_url && j->urllen + 1 < sizeof j->url)
				j->url[j->urllen++] = (char)c;
			continue;
		}
		if (j->in_url) {
			j->url[j->urllen] = '\0';
			xml_unescape(j->url);
			j->in_url = 0;
		}
		c = ird_getc(j->r, err, errlen);
		if (c == '?' || c == '!') {
			if (skip_markup(j, c, err, errlen) < 0)
				return -1;
			continue;
		}
		if (read_tag(j, c, err, errlen) < 0)
			return -1;
		rc = j->tag[0] == '/' ? xml_end_tag(j, err, errlen, line)
		                      : xml_start_tag(j, at, err, errlen, line);
		if (rc != 0)
			return rc;
	}
}

/* --- both ------------------------------------------------------------------------------- */

int jtl_open(struct jtl_reader **out, struct ireader *r, char *err, size_t errlen, long *line)
{
	struct jtl_reader *j = calloc(1, sizeof *j);
	int c;

	*out = NULL;
	*line = 1;
	if (!j) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	j->r = r;
	/* XML starts with '<' (after a byte-order mark or blanks); CSV never does. */
	do
		c = ird_getc(r, err, errlen);
	while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB ||
	       c == 0xBF);
	if (c == -2 || ird_rewind(r, err, errlen) < 0)
		goto fail;
	if (c == '<') {
		j->fmt = JTL_XML;
		j->tag = malloc(JTL_MAX_TAG);
		j->top = malloc(JTL_MAX_TAG);
		if (!j->tag || !j->top) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		j->top[0] = '\0';
		/* Attribute names tell whether thread counts were saved: seen on the first
		 * sample; assume so until then. */
		j->has_threads = 1;
	} else {
		j->fmt = JTL_CSV;
		if (c == -1) {
			snprintf(err, errlen, "empty file");
			goto fail;
		}
		if (csv_open(j, err, errlen, line) < 0)
			goto fail;
	}
	*out = j;
	return 0;
fail:
	jtl_free(j);
	return -1;
}

void jtl_free(struct jtl_reader *j)
{
	if (!j)
		return;
	free(j->rec);
	free(j->fbuf);
	free(j->tag);
	free(j->top);
	free(j);
}

enum jtl_format jtl_format(const struct jtl_reader *j)
{
	return j->fmt;
}
int jtl_has_threads(const struct jtl_reader *j)
{
	return j->has_threads;
}

int jtl_rewind(struct jtl_reader *j, char *err, size_t errlen)
{
	int n;
	long line;

	if (ird_rewind(j->r, err, errlen) < 0)
		return -1;
	j->depth = j->top_depth = j->root_seen = j->in_url = 0;
	if (j->fmt == JTL_CSV && j->header)
		return csv_record(j, &n, &line, err, errlen) < 0 ? -1 : 0;
	return 0;
}

/* Fills an integer field: required ones must be there, optional ones give -1 when empty. */
static int int_value(const char *v, const char *what, int required, int64_t *out, char *err,
                     size_t errlen)
{
	*out = -1;
	if (!v || !*v) {
		if (!required)
			return 0;
		snprintf(err, errlen, "no %s", what);
		return -1;
	}
	/* Bounded so sums of them never overflow: 100 years of milliseconds. */
	if (parse_i64(v, out) < 0 || *out < 0 || *out > JTL_MAX_MS) {
		int ts = strcmp(what, "timeStamp") == 0;
		snprintf(err, errlen, "%s '%.40s' is not a whole number%s", what, v,
		         ts ? " of milliseconds since 1970: save results with "
		              "jmeter.save.saveservice.timestamp_format=ms"
		            : " from 0 to 100 years of milliseconds");
		return -1;
	}
	return 0;
}

int jtl_next(struct jtl_reader *j, struct jtl_sample *s, char *err, size_t errlen, long *line)
{
	const char *v[C_NCOL];
	int64_t x;
	int rc;

	memset(s, 0, sizeof *s);
	if (j->fmt == JTL_CSV) {
		int n;
		rc = csv_record(j, &n, line, err, errlen);
		if (rc <= 0)
			return rc;
		if (n != j->nfields) {
			snprintf(err, errlen, "%d fields where the %s has %d", n,
			         j->header ? "header" : "first record", j->nfields);
			return -1;
		}
		for (int c = 0; c < C_NCOL; c++)
			v[c] = j->col[c] >= 0 ? j->field[j->col[c]] : NULL;
	} else {
		rc = xml_sample(j, err, errlen, line);
		if (rc <= 0)
			return rc;
		for (int c = 0; c < C_NCOL; c++)
			v[c] = j->attr[c];
		if (!v[C_ALL] && !v[C_GRP])
			j->has_threads = 0;
	}
	s->line = *line;
	if (int_value(v[C_TS], "timeStamp", 1, &s->ts, err, errlen) < 0 ||
	    int_value(v[C_ELAPSED], "elapsed", 1, &s->elapsed, err, errlen) < 0 ||
	    int_value(v[C_LATENCY], "Latency", 0, &s->latency, err, errlen) < 0 ||
	    int_value(v[C_BYTES], "bytes", 0, &s->bytes, err, errlen) < 0)
		return -1;
	if (int_value(v[C_ALL], "allThreads", 0, &x, err, errlen) < 0)
		return -1;
	s->all_threads = x > 1000000 ? 1000000 : (int)x;
	if (int_value(v[C_GRP], "grpThreads", 0, &x, err, errlen) < 0)
		return -1;
	s->grp_threads = x > 1000000 ? 1000000 : (int)x;
	if (int_value(v[C_COUNT], "SampleCount", 0, &x, err, errlen) < 0)
		return -1;
	if (x > 1) {
		snprintf(
		    err, errlen,
		    "SampleCount %lld: a row standing for several samples (JMeter's statistical "
		    "mode) has no latency of its own; import the full results",
		    (long long)x);
		return -1;
	}
	s->label = v[C_LABEL] ? v[C_LABEL] : "";
	s->code = v[C_CODE] ? v[C_CODE] : "";
	s->message = v[C_MSG] ? v[C_MSG] : "";
	s->host = v[C_HOST] ? v[C_HOST] : "";
	s->url = j->fmt == JTL_XML ? j->url : v[C_URL] ? v[C_URL] : "";
	if (v[C_SUCCESS] && *v[C_SUCCESS]) {
		if (strcasecmp(v[C_SUCCESS], "true") == 0)
			s->success = 1;
		else if (strcasecmp(v[C_SUCCESS], "false") == 0)
			s->success = 0;
		else {
			snprintf(err, errlen, "success '%.40s' is neither true nor false",
			         v[C_SUCCESS]);
			return -1;
		}
	} else {
		/* No verdict saved: JMeter's default assertion-free one, 1xx to 3xx pass. */
		int64_t code;
		s->success = parse_i64(s->code, &code) == 0 && code >= 100 && code < 400;
	}
	return 1;
}

/* Whether text holds word (a Java exception's simple or qualified name). */
static int has(const char *text, const char *word)
{
	return strstr(text, word) != NULL;
}

enum err_class jtl_classify(const struct jtl_sample *s, int *answered)
{
	int64_t code;
	const char *c = s->code, *m = s->message;

	if (parse_i64(c, &code) == 0 && code >= 100 && code <= 999) {
		*answered = 1;
		if (code >= 500 && code < 600)
			return ERR_HTTP_5XX;
		if (code >= 400 && code < 500)
			return ERR_HTTP_4XX;
		/* The status passed but an assertion failed: JMeter's checks are mostly on
		 * the body; a status that is not 2xx was the unexpected part. */
		return code >= 200 && code < 300 ? ERR_BODY_MISMATCH : ERR_STATUS_MISMATCH;
	}
	*answered = 0;
	if (has(c, "ConnectTimeoutException") ||
	    (has(c, "SocketTimeoutException") && has(m, "connect timed out")) ||
	    (has(c, "ConnectException") && has(m, "timed out")) || has(c, "NoRouteToHostException"))
		return ERR_CONNECT_TIMEOUT;
	if (has(c, "ConnectException")) /* also HttpHostConnectException */
		return ERR_CONNECT_REFUSED;
	if (has(c, "SocketTimeoutException") || has(c, "InterruptedIOException"))
		return ERR_TIMEOUT;
	if (has(c, "UnknownHostException"))
		return ERR_DNS;
	if (has(c, "BindException") || has(m, "Cannot assign requested address"))
		return ERR_CLIENT_PORTS;
	if (has(c, "NoHttpResponseException") || has(c, "ConnectionClosedException") ||
	    has(c, "TruncatedChunkException") || has(c, "EOFException") ||
	    (has(c, "SocketException") &&
	     (has(m, "reset") || has(m, "Broken pipe") || has(m, "closed"))))
		return ERR_RESET;
	if (has(c, "SSL") || has(c, "ProtocolException") || has(c, "MalformedChunkCodingException"))
		return ERR_PROTOCOL;
	return ERR_OTHER;
}
