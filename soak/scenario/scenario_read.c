/*
 * The scenario file's reader (scenario_read.h): lines through libinih into entries, the
 * --set overrides after them, and the helpers the section interpreters share.
 */
#include "scenario_read.h"
#include "redact.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "dur.h"
#include "re.h"

/* msg with every value ${env:NAME} gave shown as ${env:NAME} again (values of three bytes
 * or more: a shorter one is no secret, and would mask ordinary text). */
static void mask_env(const struct scn_parse *p, char *msg, size_t len)
{
	for (int i = 0; i < p->nenv; i++) {
		const char *v = p->env[i].value;
		size_t vl = strlen(v), nl = strlen(p->env[i].name) + 7;
		char *at, *from = msg, tmp[512];

		if (vl < 3)
			continue;
		/* Searched on after each replacement: the name may hold the value. */
		while ((at = strstr(from, v)) != NULL) {
			snprintf(tmp, sizeof tmp, "%s", at + vl);
			snprintf(at, len - (size_t)(at - msg), "${env:%s}%s", p->env[i].name, tmp);
			if ((size_t)(at - msg) + nl >= len - 1)
				break; /* the message is cut there */
			from = at + nl;
		}
		/* A message cut in the middle of the value ends with its start. */
		size_t ml = strlen(msg);
		for (size_t k = vl - 1 < ml ? vl - 1 : ml; k >= 3; k--)
			if (!memcmp(msg + ml - k, v, k)) {
				msg[ml - k] = '\0';
				break;
			}
	}
}

/* Records the first error as `FILE:LINE: message` (or `--set s.k: message`). */
void scn_perr(struct scn_parse *p, const struct scn_entry *e, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	mask_env(p, msg, sizeof msg);
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
	       strcmp(sec, "tls") == 0 || (strncmp(sec, "frame.", 6) == 0 && sec[6]);
}

/* fgets-style reader over the in-memory text; counts lines and checks section headers
 * (inih reports only keys, so an unknown empty section would otherwise pass unseen). */
/* A line too long for libinih's buffer, as `key = \001N` with the value kept aside.  Returns
 * 0, or -1 after perr when the line cannot be carried so. */
static int long_line(struct scn_parse *p, const char *line, size_t n, char *str, int num)
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
		scn_perr(p, NULL, p->line,
		         "a line over %d bytes must be 'key = value' or a comment", num - 1);
		return -1;
	}
	if (p->nlong >= SCN_MAX_LONG) {
		scn_perr(p, NULL, p->line, "more than %d lines over %d bytes", SCN_MAX_LONG,
		         num - 1);
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
		scn_perr(p, NULL, p->line, "out of memory");
		return -1;
	}
	snprintf(str, (size_t)num, "%.*s= \001%d\n", (int)klen, line, p->nlong++);
	return 0;
}

/* fgets-style reader over the in-memory text; counts lines and checks section headers
 * (inih reports only keys, so an unknown empty section would otherwise pass unseen). */
static char *reader(char *str, int num, void *stream)
{
	struct scn_parse *p = stream;
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
			scn_perr(p, NULL, p->line, "control character 0x%02x in the line", c);
			snprintf(str, (size_t)num, ";\n");
			p->pos += n;
			return str;
		}
	}
	if (n >= (size_t)num) {
		if (n > SCN_MAX_LINE || long_line(p, p->pos, n, str, num) < 0) {
			scn_perr(p, NULL, p->line, "line longer than %d bytes", SCN_MAX_LINE);
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
			if (!(p->known ? p->known(sec) : section_known(sec)))
				scn_perr(p, NULL, p->line, "unknown section [%s] (known: %s)", sec,
				         p->known ? p->known_list
				                  : "scenario, sweep, request, request.NAME, tls, "
				                    "thresholds, "
				                    "collect.NAME, handshake, frame.NAME");
		}
	}
	return str;
}

/* Appends s[0..n) to b (every '$' doubled when dbl); -1 out of memory or past twice a
 * line's cap (the caller tells which by the length). */
static int env_put(struct buf *b, const char *s, size_t n, int dbl)
{
	for (size_t i = 0; i < n; i++) {
		if (b->n > 2 * (size_t)SCN_MAX_LINE)
			return -1;
		if (dbl && s[i] == '$')
			buf_put(b, "$", 1);
		buf_put(b, s + i, 1);
	}
	return b->oom ? -1 : 0;
}

/* ${env:NAME} in e's value: the variable's value (see struct scn_entry); a variable that
 * is not set is a mistake at the entry.  0, or -1 after perr. */
static int env_expand(struct scn_parse *p, struct scn_entry *e)
{
	const char *v = e->value;
	struct buf plain = {0}, tpl = {0};
	char name[sizeof p->env[0].name];
	size_t i = 0;
	int oom = 0, differ = 0;

	if (!strstr(v, "${env:"))
		return 0;
	while (v[i] && !oom) {
		const char *val, *nm = v + i + 6, *close;
		size_t n;
		if (v[i] == '$' && v[i + 1] == '$') { /* a literal '$' stays as written */
			oom |= env_put(&plain, "$$", 2, 0) | env_put(&tpl, "$$", 2, 0);
			i += 2;
			continue;
		}
		if (strncmp(v + i, "${env:", 6) != 0) {
			oom |= env_put(&plain, v + i, 1, 0) | env_put(&tpl, v + i, 1, 0);
			i++;
			continue;
		}
		close = strchr(nm, '}');
		n = close ? (size_t)(close - nm) : 0;
		if (!close) {
			scn_perr(p, e, 0, "%s: unterminated '${env:' (expected ${env:NAME})",
			         e->key);
			goto fail;
		}
		int ok = n > 0 && n < sizeof name && !isdigit((unsigned char)nm[0]);
		for (size_t k = 0; k < n && ok; k++)
			ok = isalnum((unsigned char)nm[k]) || nm[k] == '_';
		if (!ok) {
			scn_perr(p, e, 0,
			         "%s: '${env:%.*s}': a variable's name is letters, digits and '_', "
			         "not starting with a digit",
			         e->key, (int)(n < 60 ? n : 60), nm);
			goto fail;
		}
		memcpy(name, nm, n);
		name[n] = '\0';
		if (!(val = getenv(name))) {
			scn_perr(p, e, 0, "%s: ${env:%s} is not set in the environment", e->key,
			         name);
			goto fail;
		}
		oom |= env_put(&plain, val, strlen(val), 0) | env_put(&tpl, val, strlen(val), 1);
		differ |= strchr(val, '$') != NULL;
		int seen = 0;
		for (int k = 0; k < p->nenv && !seen; k++)
			seen = !strcmp(p->env[k].name, name);
		if (!seen && p->nenv < SCN_MAX_ENV && (p->env[p->nenv].value = strdup(val))) {
			memcpy(p->env[p->nenv].name, name, n + 1);
			p->nenv++;
		}
		i = (size_t)(close - v) + 1;
	}
	if (plain.n > SCN_MAX_LINE) {
		scn_perr(p, e, 0, "%s: longer than %d bytes with its ${env:...} values", e->key,
		         SCN_MAX_LINE);
		goto fail;
	}
	if (oom || !plain.p || !tpl.p) {
		scn_perr(p, e, 0, "out of memory");
		goto fail;
	}
	e->raw = e->value;
	e->value = plain.p;
	if (differ)
		e->tvalue = tpl.p;
	else
		buf_free(&tpl);
	return 0;
fail:
	buf_free(&plain);
	buf_free(&tpl);
	return -1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct scn_parse *p = user;
	struct scn_entry *e;

	if (p->nents >= SCN_MAX_ENTRIES) {
		scn_perr(p, NULL, p->line, "more than %d keys", SCN_MAX_ENTRIES);
		return 0;
	}
	if (!*section) {
		scn_perr(p, NULL, p->line, "'%s' is outside any section (start with [scenario])",
		         name);
		return 1;
	}
	e = &p->ents[p->nents++];
	e->section = strdup(section);
	e->key = strdup(name);
	if (value && value[0] == '\001' && isdigit((unsigned char)value[1])) {
		/* see struct scn_parse; the file's own text may hold \001 too, so the marker is
		 * read strictly (atoi of "\t3333..." overflowed to -1: longv[-1]) */
		char *end;
		long n = strtol(value + 1, &end, 10);
		if (!*end && n < p->nlong && p->longv[n])
			value = p->longv[n];
	}
	e->value = strdup(value ? value : "");
	e->tvalue = e->raw = NULL;
	e->line = p->line;
	e->used = 0;
	if (!e->section || !e->key || !e->value)
		return 0;
	env_expand(p, e);
	return 1;
}

/* Applies "section.key=value" overrides as entries with line 0. */
static void apply_sets(struct scn_parse *p)
{
	for (int i = 0; i < p->nsets && !p->failed; i++) {
		const char *s = p->sets[i], *eq = strchr(s, '='), *dot;
		struct scn_entry tmp = {0};
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
		if (!(p->known ? p->known(tmp.section) : section_known(tmp.section))) {
			snprintf(p->err, p->errlen, "--set %s: unknown section [%s]", s,
			         tmp.section);
			p->failed = 1;
			free(tmp.section);
			free(tmp.key);
			free(tmp.value);
			return;
		}
		p->ents[p->nents++] = tmp;
		env_expand(p, &p->ents[p->nents - 1]);
	}
}

/* The last entry for section/key (an override beats the file), marking every one used. */
struct scn_entry *scn_find(struct scn_parse *p, const char *section, const char *key)
{
	struct scn_entry *last = NULL;
	for (int i = 0; i < p->nents; i++)
		if (strcmp(p->ents[i].section, section) == 0 && strcmp(p->ents[i].key, key) == 0) {
			p->ents[i].used = 1;
			last = &p->ents[i];
		}
	return last;
}

/* The first line of a section (for "missing key" messages), or 1. */
int scn_section_line(struct scn_parse *p, const char *section)
{
	for (int i = 0; i < p->nents; i++)
		if (strcmp(p->ents[i].section, section) == 0 && p->ents[i].line > 0)
			return p->ents[i].line - 1 > 0 ? p->ents[i].line - 1 : 1;
	return 1;
}

int scn_get_dur(struct scn_parse *p, const char *sec, const char *key, int64_t *out)
{
	struct scn_entry *e = scn_find(p, sec, key);
	char err[256];
	if (!e)
		return 0;
	if (dur_parse(e->value, out, err, sizeof err) < 0) {
		scn_perr(p, e, 0, "%s: %s", key, err);
		return -1;
	}
	return 1;
}

int scn_get_int(struct scn_parse *p, struct scn_entry *e, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(e->value, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == e->value || *end || errno) {
		scn_perr(p, e, 0, "%s: '%s' is not a whole number", e->key, e->value);
		return -1;
	}
	if (v < lo || v > hi) {
		scn_perr(p, e, 0, "%s: %ld is outside %ld..%ld", e->key, v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int scn_get_bool(struct scn_parse *p, struct scn_entry *e, int *out)
{
	const char *v = e->value;
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
		*out = 0;
	else {
		scn_perr(p, e, 0, "%s: expected yes or no, not '%s'", e->key, v);
		return -1;
	}
	return 0;
}

void scn_path(const struct scenario *s, const char *value, char *path, size_t len)
{
	if (value[0] != '/' && strchr(s->file, '/'))
		snprintf(path, len, "%.*s/%s", (int)(strrchr(s->file, '/') - s->file), s->file,
		         value);
	else
		snprintf(path, len, "%s", value);
}

char *scn_dup(struct scn_parse *p, const char *s)
{
	char *d = strdup(s);
	if (!d)
		scn_perr(p, NULL, 0, "out of memory");
	return d;
}

pcre2_code *scn_compile_re(struct scn_parse *p, struct scn_entry *e, const char *what)
{
	char why[300];
	pcre2_code *re = re_compile(e->value, why, sizeof why);
	if (!re)
		scn_perr(p, e, 0, "bad %s pattern '%s': %s", what, e->value, why);
	return re;
}

int scn_compile_tpl(struct scn_parse *p, struct scenario *s, struct scn_entry *e, struct tpl *t)
{
	char err[512];
	if (tpl_compile(t, e->tvalue ? e->tvalue : e->value,
	                s->plan.csv.ncols ? &s->plan.csv : NULL, err, sizeof err) < 0) {
		scn_perr(p, e, 0, "%s: %s", e->key, err);
		return -1;
	}
	return 0;
}

/* The names of request/collect sections, each once, in file order. */
void scn_each_section(struct scn_parse *p, struct scenario *s, const char *prefix,
                      void (*fn)(struct scn_parse *, struct scenario *, const char *))
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

void scn_parse_release(struct scn_parse *p)
{
	for (int i = 0; p->ents && i < p->nents; i++) {
		free(p->ents[i].section);
		free(p->ents[i].key);
		free(p->ents[i].value);
		free(p->ents[i].tvalue);
		free(p->ents[i].raw);
	}
	free(p->ents);
	p->ents = NULL;
	for (int i = 0; i < p->nenv; i++)
		free(p->env[i].value);
	p->nenv = 0;
	for (int i = 0; i < p->nlong; i++)
		free(p->longv[i]);
	p->nlong = 0;
}

int scn_read(struct scn_parse *p)
{
	int rc;

	ini_allow_multiline = 0;
	ini_stop_on_first_error = 0;
	rc = ini_parse_stream(reader, p, handler, p);
	if (rc > 0 && !p->failed)
		scn_perr(p, NULL, rc, "expected 'key = value', a [section] or a comment");
	if (rc == -2 && !p->failed)
		scn_perr(p, NULL, 0, "out of memory");
	if (p->failed)
		return -1;
	apply_sets(p);
	return p->failed ? -1 : 0;
}

void scn_get_redact(struct scn_parse *p, const char *section, struct redact *r)
{
	char err[200];

	redact_init(r);
	for (int i = 0; i < p->nents; i++) {
		struct scn_entry *e = &p->ents[i];
		if (strcmp(e->section, section) || strcmp(e->key, "redact"))
			continue;
		e->used = 1;
		if (redact_add(r, e->value, err, sizeof err) < 0)
			scn_perr(p, e, 0, "redact: %s", err);
	}
}
