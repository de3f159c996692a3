#include "scenario.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dur.h"
#include "scenario_frame.h"
#include "scenario_int.h"

#define SCN_MAX_ENTRIES 2048     /* key = value lines in one file */
#define SCN_MAX_FILE (4L << 20)  /* a scenario file larger than this is a mistake */
#define SCN_MAX_LINE 65536       /* one line (long bodies fit) */
#define SCN_MAX_LONG 256         /* lines longer than libinih's buffer in one file */

/* Parser state for one file. */
struct parse {
	const char *name;       /* file name for messages */
	const char *text;       /* whole text being read */
	const char *pos;        /* reader position */
	int line;               /* line the reader returned last */
	struct entry *ents;     /* SCN_MAX_ENTRIES */
	int nents;
	char *err;              /* first error wins */
	size_t errlen;
	int failed;
	char *const *sets;      /* --set overrides */
	int nsets;
	/* Debian's libinih reads lines into a fixed 200-byte buffer, whatever its run-time
	 * settings say.  A longer `key = value` line reaches it as `key = \001N`, and the
	 * value (trimmed, inline comment removed, as libinih would) waits in longv[N]. */
	char *longv[SCN_MAX_LONG];
	int nlong;
};

/* Records the first error as `FILE:LINE: message` (or `--set s.k: message`). */
void perr(struct parse *p, const struct entry *e, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (e && e->line == 0)
		snprintf(p->err, p->errlen, "--set %s.%s: %s", e->section, e->key, msg);
	else
		snprintf(p->err, p->errlen, "%s:%d: %s", p->name, e ? e->line : line, msg);
}

static int section_known(const char *sec)
{
	return strcmp(sec, "scenario") == 0 || strcmp(sec, "sweep") == 0 ||
	       strcmp(sec, "request") == 0 || strcmp(sec, "thresholds") == 0 ||
	       (strncmp(sec, "request.", 8) == 0 && sec[8]) ||
	       (strncmp(sec, "collect.", 8) == 0 && sec[8]) || strcmp(sec, "handshake") == 0 ||
	       (strncmp(sec, "frame.", 6) == 0 && sec[6]);
}

/* fgets-style reader over the in-memory text; counts lines and checks section headers
 * (inih reports only keys, so an unknown empty section would otherwise pass unseen). */
/* A line too long for libinih's buffer, as `key = \001N` with the value kept aside.  Returns
 * 0, or -1 after perr when the line cannot be carried so. */
static int long_line(struct parse *p, const char *line, size_t n, char *str, int num)
{
	const char *eq = memchr(line, '=', n), *v, *end = line + n;
	size_t klen;

	for (v = line; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	if (v < end && (*v == ';' || *v == '#')) {
		snprintf(str, (size_t)num, ";\n"); /* a long comment */
		return 0;
	}
	if (!eq || *v == '[' || (size_t)(eq - line) > 100) {
		perr(p, NULL, p->line, "a line over %d bytes must be 'key = value' or a comment",
		     num - 1);
		return -1;
	}
	if (p->nlong >= SCN_MAX_LONG) {
		perr(p, NULL, p->line, "more than %d lines over %d bytes", SCN_MAX_LONG, num - 1);
		return -1;
	}
	klen = (size_t)(eq - line);
	for (v = eq + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	/* An inline comment starts at ';' after a blank, as libinih has it. */
	for (const char *c = v; c < end; c++)
		if (*c == ';' && c > v && (c[-1] == ' ' || c[-1] == '\t')) {
			end = c;
			break;
		}
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if (!(p->longv[p->nlong] = strndup(v, (size_t)(end - v)))) {
		perr(p, NULL, p->line, "out of memory");
		return -1;
	}
	snprintf(str, (size_t)num, "%.*s= \001%d\n", (int)klen, line, p->nlong++);
	return 0;
}

/* fgets-style reader over the in-memory text; counts lines and checks section headers
 * (inih reports only keys, so an unknown empty section would otherwise pass unseen). */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *nl, *s;
	size_t n;

	if (!*p->pos)
		return NULL;
	nl = strchr(p->pos, '\n');
	n = nl ? (size_t)(nl - p->pos) + 1 : strlen(p->pos);
	p->line++;
	/* Control characters have no business in a scenario (and \001 marks long lines). */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p->pos[i];
		if (c < 0x20 && c != '\t' && c != '\r' && c != '\n') {
			perr(p, NULL, p->line, "control character 0x%02x in the line", c);
			snprintf(str, (size_t)num, ";\n");
			p->pos += n;
			return str;
		}
	}
	if (n >= (size_t)num) {
		if (n > SCN_MAX_LINE || long_line(p, p->pos, n, str, num) < 0) {
			perr(p, NULL, p->line, "line longer than %d bytes", SCN_MAX_LINE);
			snprintf(str, (size_t)num, ";\n");
		}
		p->pos += n;
		return str;
	}
	memcpy(str, p->pos, n);
	str[n] = '\0';
	p->pos += n;
	for (s = str; *s == ' ' || *s == '\t'; s++)
		;
	if (*s == '[') {
		const char *close = strchr(s, ']');
		char sec[128];
		if (close && (size_t)(close - s - 1) < sizeof sec) {
			memcpy(sec, s + 1, (size_t)(close - s - 1));
			sec[close - s - 1] = '\0';
			if (!section_known(sec))
				perr(p, NULL, p->line,
				     "unknown section [%s] (known: scenario, sweep, request, request.NAME, "
				     "thresholds, collect.NAME, handshake, frame.NAME)",
				     sec);
		}
	}
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct entry *e;

	if (p->nents >= SCN_MAX_ENTRIES) {
		perr(p, NULL, p->line, "more than %d keys", SCN_MAX_ENTRIES);
		return 0;
	}
	if (!*section) {
		perr(p, NULL, p->line, "'%s' is outside any section (start with [scenario])", name);
		return 1;
	}
	e = &p->ents[p->nents++];
	e->section = strdup(section);
	e->key = strdup(name);
	if (value && value[0] == '\001' && isdigit((unsigned char)value[1])) {
		/* see struct parse; the file's own text may hold \001 too, so the marker is
		 * read strictly (atoi of "\t3333..." overflowed to -1: longv[-1]) */
		char *end;
		long n = strtol(value + 1, &end, 10);
		if (!*end && n < p->nlong && p->longv[n])
			value = p->longv[n];
	}
	e->value = strdup(value ? value : "");
	e->line = p->line;
	e->used = 0;
	return e->section && e->key && e->value;
}

/* Applies "section.key=value" overrides as entries with line 0. */
static void apply_sets(struct parse *p)
{
	for (int i = 0; i < p->nsets && !p->failed; i++) {
		const char *s = p->sets[i], *eq = strchr(s, '='), *dot;
		struct entry tmp = {0};
		if (!eq || eq == s) {
			snprintf(p->err, p->errlen, "--set %s: expected SECTION.KEY=VALUE", s);
			p->failed = 1;
			return;
		}
		dot = memrchr(s, '.', (size_t)(eq - s));
		if (!dot || dot == s || dot + 1 == eq) {
			snprintf(p->err, p->errlen, "--set %s: expected SECTION.KEY=VALUE", s);
			p->failed = 1;
			return;
		}
		if (p->nents >= SCN_MAX_ENTRIES)
			return;
		tmp.section = strndup(s, (size_t)(dot - s));
		tmp.key = strndup(dot + 1, (size_t)(eq - dot - 1));
		tmp.value = strdup(eq + 1);
		if (!section_known(tmp.section)) {
			snprintf(p->err, p->errlen, "--set %s: unknown section [%s]", s, tmp.section);
			p->failed = 1;
			free(tmp.section);
			free(tmp.key);
			free(tmp.value);
			return;
		}
		p->ents[p->nents++] = tmp;
	}
}

/* The last entry for section/key (an override beats the file), marking every one used. */
struct entry *find(struct parse *p, const char *section, const char *key)
{
	struct entry *last = NULL;
	for (int i = 0; i < p->nents; i++)
		if (strcmp(p->ents[i].section, section) == 0 && strcmp(p->ents[i].key, key) == 0) {
			p->ents[i].used = 1;
			last = &p->ents[i];
		}
	return last;
}

/* The first line of a section (for "missing key" messages), or 1. */
int section_line(struct parse *p, const char *section)
{
	for (int i = 0; i < p->nents; i++)
		if (strcmp(p->ents[i].section, section) == 0 && p->ents[i].line > 0)
			return p->ents[i].line - 1 > 0 ? p->ents[i].line - 1 : 1;
	return 1;
}

int get_dur(struct parse *p, const char *sec, const char *key, int64_t *out)
{
	struct entry *e = find(p, sec, key);
	char err[256];
	if (!e)
		return 0;
	if (dur_parse(e->value, out, err, sizeof err) < 0) {
		perr(p, e, 0, "%s: %s", key, err);
		return -1;
	}
	return 1;
}

int get_int(struct parse *p, struct entry *e, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(e->value, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == e->value || *end || errno) {
		perr(p, e, 0, "%s: '%s' is not a whole number", e->key, e->value);
		return -1;
	}
	if (v < lo || v > hi) {
		perr(p, e, 0, "%s: %ld is outside %ld..%ld", e->key, v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int get_bool(struct parse *p, struct entry *e, int *out)
{
	const char *v = e->value;
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
		*out = 0;
	else {
		perr(p, e, 0, "%s: expected yes or no, not '%s'", e->key, v);
		return -1;
	}
	return 0;
}

char *dup_or_die(struct parse *p, const char *s)
{
	char *d = strdup(s);
	if (!d)
		perr(p, NULL, 0, "out of memory");
	return d;
}

pcre2_code *compile_re(struct parse *p, struct entry *e, const char *what)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)e->value, PCRE2_ZERO_TERMINATED, 0, &code, &off,
				       NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		perr(p, e, 0, "bad %s pattern '%s': %s at offset %zu", what, e->value, (char *)msg,
		     (size_t)off);
		return NULL;
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter if no JIT */
	return re;
}

int compile_tpl(struct parse *p, struct scenario *s, struct entry *e, struct tpl *t)
{
	char err[512];
	if (tpl_compile(t, e->value, s->csv.ncols ? &s->csv : NULL, err, sizeof err) < 0) {
		perr(p, e, 0, "%s: %s", e->key, err);
		return -1;
	}
	return 0;
}

/* --- the sections --------------------------------------------------------------------- */

static void parse_scenario(struct parse *p, struct scenario *s)
{
	struct entry *e;
	long v;
	char err[256];
	const char *base = strrchr(s->file, '/');
	base = base ? base + 1 : s->file;

	e = find(p, "scenario", "name");
	if (e)
		s->name = dup_or_die(p, e->value);
	else {
		s->name = dup_or_die(p, base);
		if (s->name && strlen(s->name) > 4 && !strcmp(s->name + strlen(s->name) - 4, ".ini"))
			s->name[strlen(s->name) - 4] = '\0';
	}
	e = find(p, "scenario", "label");
	s->label = dup_or_die(p, e ? e->value : (s->name ? s->name : ""));
	if (e && !*e->value)
		perr(p, e, 0, "label: must not be empty");
	s->concurrency = 10;
	if ((e = find(p, "scenario", "concurrency")) && get_int(p, e, 1, SCN_MAX_VUS, &v) == 0)
		s->concurrency = (int)v;
	s->interval_ms = 10000;
	s->duration_ms = -1;
	get_dur(p, "scenario", "duration", &s->duration_ms);
	get_dur(p, "scenario", "warmup", &s->warmup_ms);
	get_dur(p, "scenario", "ramp_up", &s->rampup_ms);
	if (get_dur(p, "scenario", "interval", &s->interval_ms) > 0 &&
	    (s->interval_ms < 100 || s->interval_ms > 3600000))
		perr(p, find(p, "scenario", "interval"), 0, "interval: must be 100ms..1h");
	if ((e = find(p, "scenario", "connection"))) {
		if (!strcmp(e->value, "keepalive") || !strcmp(e->value, "keep-alive"))
			s->connection = SCN_KEEPALIVE;
		else if (!strcmp(e->value, "close"))
			s->connection = SCN_CLOSE;
		else
			perr(p, e, 0, "connection: expected keepalive or close, not '%s'", e->value);
	}
	if ((e = find(p, "scenario", "think_time")) &&
	    dur_span_parse(e->value, &s->think_min_ms, &s->think_max_ms, err, sizeof err) < 0)
		perr(p, e, 0, "think_time: %s", err);
	if ((e = find(p, "scenario", "threads")) && strcmp(e->value, "auto") != 0 &&
	    get_int(p, e, 1, 256, &v) == 0)
		s->threads = (int)v;
	if ((e = find(p, "scenario", "csv"))) {
		char path[4096];
		/* A relative CSV path is relative to the scenario file. */
		if (e->value[0] != '/' && strchr(s->file, '/'))
			snprintf(path, sizeof path, "%.*s/%s", (int)(strrchr(s->file, '/') - s->file),
				 s->file, e->value);
		else
			snprintf(path, sizeof path, "%s", e->value);
		if (tpl_csv_load(&s->csv, path, err, sizeof err) < 0)
			perr(p, e, 0, "csv: %s", err);
		s->csv_path = dup_or_die(p, path);
	}
}

static void parse_sweep(struct parse *p, struct scenario *s)
{
	struct entry *e = find(p, "sweep", "concurrency");
	char err[256];
	int64_t step;

	if (e) {
		s->sweep = 1;
		if (range_parse(e->value, 1, SCN_MAX_VUS, s->levels, SCN_MAX_LEVELS, &s->nlevels, err,
				sizeof err) < 0)
			perr(p, e, 0, "concurrency: %s", err);
	}
	if (get_dur(p, "sweep", "step_duration", &step) > 0) {
		if (!e)
			perr(p, find(p, "sweep", "step_duration"), 0,
			     "step_duration: [sweep] needs concurrency = A..B step S (or a list)");
		s->duration_ms = step;
	} else if (e && s->duration_ms < 0) {
		perr(p, e, 0, "[sweep] needs step_duration (or duration in [scenario])");
	}
	if (!s->sweep) {
		s->levels[0] = s->concurrency;
		s->nlevels = 1;
	} else if (s->nlevels > 0) {
		s->concurrency = s->levels[0];
	}
}

static int valid_method(const char *m)
{
	if (!*m)
		return 0;
	for (; *m; m++)
		if (!isupper((unsigned char)*m))
			return 0;
	return 1;
}

static int valid_header(const char *h)
{
	const char *c = strchr(h, ':');
	if (!c || c == h)
		return 0;
	for (const char *q = h; q < c; q++)
		if (!isalnum((unsigned char)*q) && !strchr("!#$%&'*+-.^_`|~", *q))
			return 0;
	return 1;
}

/* Checks a URL template by expanding it with sample values and asking libcurl. */
static void check_url(struct parse *p, struct entry *e, const struct tpl *t)
{
	char buf[8192];
	struct tpl_ctx ctx = {.seq = 1, .vu = 1, .iter = 1, .run_id = 1, .nonce = "n0nce", .rng = 42,
			       .agent = 1};
	CURLU *u;

	ctx.csv = NULL;
	if (t->dynamic) {
		/* CSV cells are not known here; other placeholders expand to sample values. */
		for (int i = 0; i < t->nparts; i++)
			if (t->parts[i].kind == TPL_CSV)
				return;
	}
	if (tpl_expand(t, &ctx, buf, sizeof buf) < 0) {
		perr(p, e, 0, "url: longer than %zu bytes", sizeof buf);
		return;
	}
	if (strncmp(buf, "http://", 7) != 0 && strncmp(buf, "https://", 8) != 0) {
		perr(p, e, 0, "url: '%s' must start with http:// or https://", e->value);
		return;
	}
	u = curl_url();
	if (!u) {
		perr(p, e, 0, "out of memory");
		return;
	}
	CURLUcode rc = curl_url_set(u, CURLUPART_URL, buf, 0);
	if (rc != CURLUE_OK)
		perr(p, e, 0, "url: bad URL '%s': %s", e->value, curl_url_strerror(rc));
	curl_url_cleanup(u);
}

static void parse_request(struct parse *p, struct scenario *s, const char *sec)
{
	struct scn_request *r;
	struct entry *e;
	long v;

	if (s->nreqs >= SCN_MAX_REQUESTS) {
		perr(p, NULL, section_line(p, sec), "more than %d request sections", SCN_MAX_REQUESTS);
		return;
	}
	r = &s->reqs[s->nreqs++];
	r->line = section_line(p, sec);
	r->name = dup_or_die(p, strcmp(sec, "request") == 0 ? "default" : sec + 8);
	r->weight = 1;
	r->timeout_ms = 30000;
	if ((e = find(p, sec, "weight")) && get_int(p, e, 0, 1000000, &v) == 0)
		r->weight = (int)v;
	if ((e = find(p, sec, "body"))) {
		r->has_body = 1;
		compile_tpl(p, s, e, &r->body);
	}
	e = find(p, sec, "method");
	if (e && !valid_method(e->value))
		perr(p, e, 0, "method: '%s' is not an HTTP method (GET, POST, PUT, ...)", e->value);
	r->method = dup_or_die(p, e ? e->value : r->has_body ? "POST" : "GET");
	e = find(p, sec, "url");
	if (!e) {
		if (s->protocol == SCN_HTTP)
			perr(p, NULL, r->line, "[%s] needs url = http://...", sec);
	} else if (compile_tpl(p, s, e, &r->url) == 0) {
		check_url(p, e, &r->url);
	}
	/* header is repeatable: every entry counts, in order. */
	for (int i = 0; i < p->nents; i++) {
		e = &p->ents[i];
		if (strcmp(e->section, sec) || strcmp(e->key, "header"))
			continue;
		e->used = 1;
		if (r->nheaders >= SCN_MAX_HEADERS) {
			perr(p, e, 0, "more than %d headers", SCN_MAX_HEADERS);
			break;
		}
		if (!valid_header(e->value)) {
			perr(p, e, 0, "header: expected 'Name: value', not '%s'", e->value);
			break;
		}
		compile_tpl(p, s, e, &r->headers[r->nheaders++]);
	}
	int64_t t;
	if (get_dur(p, sec, "timeout", &t) > 0) {
		if (t < 1)
			perr(p, find(p, sec, "timeout"), 0, "timeout: must be at least 1ms");
		r->timeout_ms = t;
	}
	if ((e = find(p, sec, "expect_status")) && get_int(p, e, 100, 599, &v) == 0)
		r->expect_status = (int)v;
	if ((e = find(p, sec, "expect_body"))) {
		r->expect_body_src = dup_or_die(p, e->value);
		r->expect_body = compile_re(p, e, "expect_body");
	}
}

static void parse_thresholds(struct parse *p, struct scenario *s)
{
	static const char *const durs[] = {"p99", "p95", "mean"};
	int64_t *outs[] = {&s->thr.p99_us, &s->thr.p95_us, &s->thr.mean_us};
	struct entry *e;
	char err[256];

	for (int i = 0; i < 3; i++) {
		int64_t ms;
		*outs[i] = -1;
		if (get_dur(p, "thresholds", durs[i], &ms) > 0)
			*outs[i] = ms * 1000;
	}
	s->thr.error_rate = -1;
	if ((e = find(p, "thresholds", "error_rate")) &&
	    pct_parse(e->value, &s->thr.error_rate, err, sizeof err) < 0)
		perr(p, e, 0, "error_rate: %s", err);
	s->thr.tps_min = -1;
	if ((e = find(p, "thresholds", "tps_min"))) {
		char *end;
		double v = strtod(e->value, &end);
		if (end == e->value || *end || v <= 0)
			perr(p, e, 0, "tps_min: expected a positive number, not '%s'", e->value);
		else
			s->thr.tps_min = v;
	}
}

static void parse_collect(struct parse *p, struct scenario *s, const char *sec)
{
	struct scn_collect *c;
	struct entry *e;
	long v;

	if (s->ncollect >= SCN_MAX_COLLECT) {
		perr(p, NULL, section_line(p, sec), "more than %d collect sections", SCN_MAX_COLLECT);
		return;
	}
	c = &s->collect[s->ncollect++];
	c->line = section_line(p, sec);
	c->name = dup_or_die(p, sec + 8);
	for (const char *q = sec + 8; *q; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-') {
			perr(p, NULL, c->line, "[%s]: a source name is letters, digits, '_' and '-'", sec);
			return;
		}
	c->every_ms = 5000;
	/* An empty value unsets a key (so `--set collect.app.pid_match=` can switch to pid). */
	if ((e = find(p, sec, "pid_match")) && *e->value) {
		pcre2_code *re = compile_re(p, e, "pid_match");
		pcre2_code_free(re);
		c->pid_match = dup_or_die(p, e->value);
	}
	if ((e = find(p, sec, "pidfile")) && *e->value)
		c->pidfile = dup_or_die(p, e->value);
	if ((e = find(p, sec, "pid")) && get_int(p, e, 1, 1L << 30, &v) == 0)
		c->pid = v;
	if ((e = find(p, sec, "host")))
		get_bool(p, e, &c->host);
	if ((e = find(p, sec, "gc_log")) && *e->value)
		c->gc_log = dup_or_die(p, e->value);
	if ((e = find(p, sec, "jvm_start")) && get_int(p, e, 0, 1L << 50, &v) == 0)
		c->jvm_start_ms = v;
	if (get_dur(p, sec, "every", &c->every_ms) > 0 && c->every_ms < 100)
		perr(p, find(p, sec, "every"), 0, "every: must be at least 100ms");
	if ((c->pid_match != NULL) + (c->pidfile != NULL) + (c->pid != 0) > 1)
		perr(p, NULL, c->line, "[%s]: give one of pid_match, pidfile or pid", sec);
	if (!c->pid_match && !c->pidfile && !c->pid && !c->host && !c->gc_log)
		perr(p, NULL, c->line, "[%s]: nothing to collect (pid_match, pidfile, pid, host or gc_log)",
		     sec);
}

/* The names of request/collect sections, each once, in file order. */
void each_section(struct parse *p, struct scenario *s, const char *prefix,
		  void (*fn)(struct parse *, struct scenario *, const char *))
{
	size_t pl = strlen(prefix);
	for (int i = 0; i < p->nents && !p->failed; i++) {
		const char *sec = p->ents[i].section;
		int seen = 0;
		if (strncmp(sec, prefix, pl) != 0 || (sec[pl] != '\0' && sec[pl] != '.'))
			continue;
		if (strcmp(prefix, "collect") == 0 && sec[pl] == '\0')
			continue;
		for (int j = 0; j < i; j++)
			if (strcmp(p->ents[j].section, sec) == 0)
				seen = 1;
		if (!seen)
			fn(p, s, sec);
	}
}

static void validate(struct parse *p, struct scenario *s)
{
	char a[32], b[32];

	if (p->failed)
		return;
	if (s->duration_ms < 0) {
		perr(p, NULL, section_line(p, "scenario"),
		     "[scenario] needs duration (e.g. duration = 30m)");
		return;
	}
	if (s->duration_ms < s->interval_ms / 10 || s->duration_ms == 0) {
		perr(p, find(p, "scenario", "duration"), section_line(p, "scenario"),
		     "duration: %s is too short", dur_format(s->duration_ms, a, sizeof a));
		return;
	}
	if (s->warmup_ms + s->rampup_ms >= s->duration_ms) {
		perr(p, find(p, "scenario", "warmup"), section_line(p, "scenario"),
		     "warmup (%s) plus ramp_up (%s) leave nothing of the %s step to measure",
		     dur_format(s->warmup_ms, a, sizeof a), dur_format(s->rampup_ms, b, sizeof b),
		     dur_format(s->duration_ms, (char[32]){0}, 32));
		return;
	}
	if (s->protocol == SCN_HTTP && s->nreqs == 0) {
		perr(p, NULL, p->line > 0 ? p->line : 1, "no [request] section: nothing to send");
		return;
	}
	for (int i = 0; i < s->nreqs; i++)
		s->total_weight += s->reqs[i].weight;
	if (s->nreqs > 0 && s->total_weight == 0)
		perr(p, NULL, s->reqs[0].line, "every request has weight 0");
	/* Leftover entries are keys nobody asked for. */
	for (int i = 0; i < p->nents && !p->failed; i++)
		if (!p->ents[i].used)
			perr(p, &p->ents[i], 0, "unknown key '%s' in [%s]", p->ents[i].key,
			     p->ents[i].section);
}

/* --- entry points --------------------------------------------------------------------- */


static int parse_all(struct scenario *s, struct parse *p)
{
	int rc;

	ini_allow_multiline = 0;
	ini_stop_on_first_error = 0;
	rc = ini_parse_stream(reader, p, handler, p);
	if (rc > 0 && !p->failed)
		perr(p, NULL, rc, "expected 'key = value', a [section] or a comment");
	if (rc == -2 && !p->failed)
		perr(p, NULL, 0, "out of memory");
	if (p->failed)
		return -1;
	apply_sets(p);
	if (p->failed)
		return -1;
	parse_scenario(p, s);
	parse_sweep(p, s);
	parse_thresholds(p, s);
	scn_parse_frames(p, s); /* protocol, address, [handshake], [frame.NAME]: before requests */
	if (!p->failed)
		each_section(p, s, "request", parse_request);
	if (!p->failed)
		each_section(p, s, "collect", parse_collect);
	validate(p, s);
	return p->failed ? -1 : 0;
}

/* Builds the stored scenario text: the file, then the overrides as a comment trailer. */
static char *stored_text(const char *text, char *const *sets, int nsets)
{
	size_t n = strlen(text) + 64;
	char *out, *q;

	for (int i = 0; i < nsets; i++)
		n += strlen(sets[i]) + 16;
	out = malloc(n);
	if (!out)
		return NULL;
	q = out + sprintf(out, "%s", text);
	if (nsets > 0) {
		if (q > out && q[-1] != '\n')
			*q++ = '\n';
		q += sprintf(q, "; overrides given on the command line:\n");
		for (int i = 0; i < nsets; i++)
			q += sprintf(q, ";   --set %s\n", sets[i]);
	}
	return out;
}

int scn_parse_text(struct scenario *s, const char *name, const char *text, char *const *sets,
		   int nsets, char *err, size_t errlen)
{
	struct parse p = {.name = name, .text = text, .pos = text, .err = err, .errlen = errlen,
			  .sets = sets, .nsets = nsets};
	int rc;

	memset(s, 0, sizeof *s);
	p.ents = calloc(SCN_MAX_ENTRIES, sizeof *p.ents);
	s->file = strdup(name);
	s->text = stored_text(text, sets, nsets);
	if (!p.ents || !s->file || !s->text) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		rc = parse_all(s, &p);
	}
	for (int i = 0; p.ents && i < p.nents; i++) {
		free(p.ents[i].section);
		free(p.ents[i].key);
		free(p.ents[i].value);
	}
	free(p.ents);
	for (int i = 0; i < p.nlong; i++)
		free(p.longv[i]);
	if (rc < 0)
		scn_release(s);
	return rc;
}

int scn_load(struct scenario *s, const char *path, char *const *sets, int nsets, char *err,
	     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *text;
	int rc;

	memset(s, 0, sizeof *s);
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_MAX_FILE) {
		snprintf(err, errlen, "'%s' is not a scenario file (%s)", path,
			 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file under 4 MB");
		fclose(f);
		return -1;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t n = fread(text, 1, (size_t)st.st_size, f);
	text[n] = '\0';
	fclose(f);
	if (memchr(text, '\0', n)) {
		snprintf(err, errlen, "%s:1: not a text file (contains NUL bytes)", path);
		free(text);
		return -1;
	}
	rc = scn_parse_text(s, path, text, sets, nsets, err, errlen);
	free(text);
	return rc;
}

void scn_release(struct scenario *s)
{
	for (int i = 0; i < s->nreqs; i++) {
		struct scn_request *r = &s->reqs[i];
		free(r->name);
		free(r->method);
		tpl_release(&r->url);
		tpl_release(&r->body);
		for (int h = 0; h < r->nheaders; h++)
			tpl_release(&r->headers[h]);
		pcre2_code_free(r->expect_body);
		free(r->expect_body_src);
	}
	for (int i = 0; i < s->ncollect; i++) {
		free(s->collect[i].name);
		free(s->collect[i].pid_match);
		free(s->collect[i].pidfile);
		free(s->collect[i].gc_log);
	}
	tpl_csv_release(&s->csv);
	free(s->csv_path);
	free(s->file);
	free(s->text);
	free(s->name);
	free(s->label);
	free(s->address);
	pcre2_code_free(s->handshake_expect);
	tpl_release(&s->handshake.text);
	for (int i = 0; i < s->nframes; i++)
		tpl_release(&s->frames[i].text);
	memset(s, 0, sizeof *s);
}

int64_t scn_total_ms(const struct scenario *s) { return s->duration_ms * s->nlevels; }

const char *scn_conn_name(enum scn_conn c) { return c == SCN_CLOSE ? "close" : "keepalive"; }

void scn_print_plan(const struct scenario *s, FILE *f)
{
	char a[32], b[32], c[32], d[32];
	int64_t lead = s->rampup_ms + s->warmup_ms;

	fprintf(f, "%s: '%s', label '%s'\n", s->file, s->name, s->label);
	fprintf(f, "  %s, %d step%s, %s in all; interval %s; connection %s; threads %s\n",
		s->sweep ? "sweep" : "fixed", s->nlevels, s->nlevels == 1 ? "" : "s",
		dur_format(scn_total_ms(s), a, sizeof a), dur_format(s->interval_ms, b, sizeof b),
		scn_conn_name(s->connection), s->threads ? (snprintf(c, sizeof c, "%d", s->threads), c) : "auto");
	for (int i = 0; i < s->nlevels; i++)
		fprintf(f, "  step %d: %d VUs for %s (ramp-up %s, warm-up %s, measured %s)\n", i + 1,
			s->levels[i], dur_format(s->duration_ms, a, sizeof a),
			dur_format(s->rampup_ms, b, sizeof b), dur_format(s->warmup_ms, c, sizeof c),
			dur_format(s->duration_ms - lead, d, sizeof d));
	if (s->think_max_ms > 0)
		fprintf(f, "  think time %s..%s\n", dur_format(s->think_min_ms, a, sizeof a),
			dur_format(s->think_max_ms, b, sizeof b));
	scn_print_frames(s, f); /* tcp-frame: address, handshake, frames */
	for (int i = 0; i < s->nreqs && s->protocol == SCN_HTTP; i++) {
		const struct scn_request *r = &s->reqs[i];
		fprintf(f, "  request %s (weight %d): %s %s", r->name, r->weight, r->method, r->url.text);
		if (r->has_body)
			fprintf(f, " body %zu+ bytes", r->body.min_len);
		fprintf(f, "; %d header%s; timeout %s; expect %s", r->nheaders,
			r->nheaders == 1 ? "" : "s", dur_format(r->timeout_ms, a, sizeof a),
			r->expect_status ? (snprintf(b, sizeof b, "status %d", r->expect_status), b)
					 : "2xx/3xx");
		if (r->expect_body_src)
			fprintf(f, " and body /%s/", r->expect_body_src);
		fputc('\n', f);
	}
	if (s->csv_path)
		fprintf(f, "  csv %s: %ld rows, %d columns\n", s->csv_path, s->csv.nrows, s->csv.ncols);
	for (int i = 0; i < s->ncollect; i++) {
		const struct scn_collect *k = &s->collect[i];
		fprintf(f, "  collect %s every %s:%s%s%s%s%s%s\n", k->name,
			dur_format(k->every_ms, a, sizeof a), k->pid_match ? " processes /" : "",
			k->pid_match ? k->pid_match : "", k->pid_match ? "/" : "",
			k->host ? " host" : "", k->gc_log ? " gc log " : "", k->gc_log ? k->gc_log : "");
	}
	if (s->thr.p99_us >= 0 || s->thr.p95_us >= 0 || s->thr.mean_us >= 0 ||
	    s->thr.error_rate >= 0 || s->thr.tps_min >= 0) {
		fprintf(f, "  thresholds per step:");
		if (s->thr.p99_us >= 0)
			fprintf(f, " p99 <= %s", dur_format(s->thr.p99_us / 1000, a, sizeof a));
		if (s->thr.p95_us >= 0)
			fprintf(f, " p95 <= %s", dur_format(s->thr.p95_us / 1000, a, sizeof a));
		if (s->thr.mean_us >= 0)
			fprintf(f, " mean <= %s", dur_format(s->thr.mean_us / 1000, a, sizeof a));
		if (s->thr.error_rate >= 0)
			fprintf(f, " errors <= %g%%", s->thr.error_rate * 100);
		if (s->thr.tps_min >= 0)
			fprintf(f, " tps >= %g", s->thr.tps_min);
		fputc('\n', f);
	}
}
