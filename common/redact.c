/* redact: secrets kept out of what soak stores and writes (see redact.h).
 * The name stays and the value goes; a value that is only placeholders is kept.  A
 * struct redact is read-only after set-up, so threads share it. */
#include "redact.h"

#include "buf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WORD_MAX 64 /* a word's last WORD_MAX - 1 letters are compared */

/* Words that make a name secret-looking when a word is one of them, its plural, or ends
 * with one (dbpassword, accesstoken, jsessionid, oauth). */
static const char *const suffix_words[] = {
    "password", "passwd",        "passphrase", "secret", "token",     "credential", "apikey",
    "cookie",   "authorization", "sessionid",  "sessid", "signature", "key",        "auth"};
/* Words that do only as themselves (or their plural): as endings they would catch
 * ordinary words (compass, bypass). */
static const char *const exact_words[] = {"pass", "pwd", "pw", "sig", "otp"};
/* Last words that name something about a secret, not the secret: keyStore (a path),
 * ephemeralDHKeySize, --password-file, token_url, access_key_id. */
static const char *const about_words[] = {
    "file",   "path",  "dir",     "directory", "size",     "length",   "len",       "type",
    "alias",  "store", "name",    "timeout",   "ttl",      "policy",   "algorithm", "alg",
    "format", "url",   "uri",     "endpoint",  "id",       "field",    "param",     "prefix",
    "suffix", "mode",  "enabled", "required",  "location", "provider", "class",     "count",
    "max",    "min",   "expiry",  "expires",   "age",      "version",  "hint",      "domain"};

/* --- the output ----------------------------------------------------------------------- */

/* 1 when s[0..n) is nothing but placeholders (${env:X}, ${random:12}): no secret. */
static int only_placeholders(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0)
		return 0;
	while (i < n) {
		const char *close;
		if (i + 1 >= n || s[i] != '$' || s[i + 1] != '{')
			return 0;
		close = memchr(s + i + 2, '}', n - i - 2);
		if (!close)
			return 0;
		i = (size_t)(close - s) + 1;
	}
	return 1;
}

/* The value s[0..n), or REDACTED in its place. */
static void put_value(struct buf *o, const char *s, size_t n)
{
	if (only_placeholders(s, n))
		buf_put(o, s, n);
	else
		buf_puts(o, REDACTED);
}

/* --- names ---------------------------------------------------------------------------- */

void redact_init(struct redact *r)
{
	memset(r, 0, sizeof *r);
}

int redact_add(struct redact *r, const char *list, char *err, size_t errlen)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ", \t");
		if (n == 0) {
			p++;
			continue;
		}
		if (n >= REDACT_NAME_MAX) {
			snprintf(err, errlen, "name '%.*s...' is longer than %d characters", 20, p,
			         REDACT_NAME_MAX - 1);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			if (!isalnum((unsigned char)p[i]) && !strchr("_-.", p[i])) {
				snprintf(err, errlen,
				         "'%.*s' is not a name (letters, digits, '_', '-', '.')",
				         (int)n, p);
				return -1;
			}
		char name[REDACT_NAME_MAX];
		int seen = 0;
		for (size_t i = 0; i < n; i++)
			name[i] = (char)tolower((unsigned char)p[i]);
		name[n] = '\0';
		for (int i = 0; i < r->n && !seen; i++)
			seen = strcmp(r->names[i], name) == 0;
		if (!seen) {
			if (r->n >= REDACT_MAX_NAMES) {
				snprintf(err, errlen, "more than %d names", REDACT_MAX_NAMES);
				return -1;
			}
			memcpy(r->names[r->n++], name, n + 1);
		}
		p += n;
	}
	return 0;
}

int redact_option(const char *prog, struct redact *r, const char *list)
{
	char err[160];

	if (redact_add(r, list, err, sizeof err) == 0)
		return 0;
	fprintf(stderr, "%s: --redact: %s\n", prog, err);
	return -1;
}

void redact_add_from_ini(struct redact *r, const char *text)
{
	char err[160];

	for (const char *line = text, *next; line && *line; line = next) {
		const char *p = line + strspn(line, " \t");
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		size_t n = strcspn(p, "\r\n");
		if (n < 6 || strncmp(p, "redact", 6) != 0)
			continue;
		const char *eq = p + 6 + strspn(p + 6, " \t");
		if (*eq != '=')
			continue;
		char list[512];
		size_t v = (size_t)(p + n - (eq + 1));
		snprintf(list, sizeof list, "%.*s", (int)(v < sizeof list ? v : sizeof list - 1),
		         eq + 1);
		list[strcspn(list, ";#")] = '\0'; /* an inline comment */
		redact_add(r, list, err, sizeof err);
	}
}

void redact_list(const struct redact *r, char *out, size_t len)
{
	size_t used = 0;

	if (len)
		out[0] = '\0';
	for (int i = 0; r && i < r->n && used < len; i++) {
		int k = snprintf(out + used, len - used, "%s%s", i ? "," : "", r->names[i]);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += (size_t)k;
	}
}

/* 1 when w (n lower-case letters) ends with word. */
static int ends_with(const char *w, size_t n, const char *word)
{
	size_t k = strlen(word);
	return n >= k && memcmp(w + n - k, word, k) == 0;
}

/* 1 when w (n lower-case letters) is one of words[], or its plural. */
static int word_in(const char *w, size_t n, const char *const *words, size_t nwords)
{
	size_t sing = n > 1 && w[n - 1] == 's' ? n - 1 : n;

	for (size_t i = 0; i < nwords; i++) {
		size_t k = strlen(words[i]);
		if ((n == k || sing == k) && memcmp(w, words[i], k) == 0)
			return 1;
	}
	return 0;
}

/* A built-in secret word (see redact.h). */
static int word_secret(const char *w, size_t n)
{
	/* The plural counts as the word: passwords, credentials, cookies. */
	size_t sing = n > 1 && w[n - 1] == 's' ? n - 1 : n;

	for (size_t i = 0; i < sizeof suffix_words / sizeof *suffix_words; i++)
		if (ends_with(w, n, suffix_words[i]) || ends_with(w, sing, suffix_words[i]))
			return 1;
	return word_in(w, n, exact_words, sizeof exact_words / sizeof *exact_words);
}

static int word_added(const struct redact *r, const char *w, size_t n)
{
	for (int i = 0; r && i < r->n; i++)
		if (strlen(r->names[i]) == n && memcmp(r->names[i], w, n) == 0)
			return 1;
	return 0;
}

int redact_is_secret(const struct redact *r, const char *name, size_t len)
{
	char w[WORD_MAX], lw[WORD_MAX]; /* the word being read; the last one read */
	size_t dashes = 0, n = 0, ln = 0;
	int any = 0, last = 0; /* a word is a secret one; the last word is */

	/* --db-password, -Ddb.password: the name is what follows the dashes and the D. */
	while (len > 0 && *name == '-') {
		name++;
		len--;
		dashes++;
	}
	if (dashes == 1 && len > 1 && *name == 'D') {
		name++;
		len--;
	}
	if (len == 0)
		return 0;
	for (int i = 0; r && i < r->n; i++)
		if (strlen(r->names[i]) == len && strncasecmp(r->names[i], name, len) == 0)
			return 1;
	for (size_t i = 0; i <= len; i++) {
		int letter = i < len && isalpha((unsigned char)name[i]);
		/* A word ends at a non-letter and where a lower-case letter meets an upper. */
		int boundary = !letter || (i > 0 && islower((unsigned char)name[i - 1]) &&
		                           isupper((unsigned char)name[i]));
		if (boundary && n > 0) {
			if (word_added(r, w, n))
				return 1;
			last = word_secret(w, n);
			any |= last;
			memcpy(lw, w, n);
			ln = n;
			n = 0;
		}
		if (!letter)
			continue;
		if (n == WORD_MAX - 1) { /* keep the word's end: that is what is compared */
			memmove(w, w + 1, n - 1);
			n--;
		}
		w[n++] = (char)tolower((unsigned char)name[i]);
	}
	/* secret_key_base is a secret; keyStore and --password-file name one. */
	return last ||
	       (any && !word_in(lw, ln, about_words, sizeof about_words / sizeof *about_words));
}

/* --- the forms ------------------------------------------------------------------------ */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A character of an option, property, parameter or variable name. */
static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '[' ||
	       c == ']';
}

/* `Name: value` at a token's start (i): a header whose name is secret-looking.  The value
 * runs to the line's end (or to the quote that opened the token); an authorization's scheme
 * word stays.  Returns the bytes consumed (output written), or 0. */
static size_t header(struct buf *o, const struct redact *r, const char *s, size_t n, size_t i)
{
	size_t k = i, v, e;
	char quote = i > 0 && (s[i - 1] == '\'' || s[i - 1] == '"') ? s[i - 1] : 0;

	while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '-' || s[k] == '_'))
		k++;
	if (k == i || k >= n || s[k] != ':' || (k + 1 < n && s[k + 1] != ' ' && s[k + 1] != '\t'))
		return 0;
	if (!redact_is_secret(r, s + i, k - i))
		return 0;
	for (v = k + 1; v < n && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	for (e = v; e < n && s[e] != '\n' && s[e] != '\r' && s[e] != quote; e++)
		;
	if (e == v)
		return 0;
	buf_put(o, s + i, v - i);
	if (k - i >= 13 && strncasecmp(s + k - 13, "authorization", 13) == 0) {
		size_t w = v; /* Bearer, Basic, Digest: the scheme is no secret */
		while (w < e && isalpha((unsigned char)s[w]))
			w++;
		if (w > v && w < e && s[w] == ' ') {
			buf_put(o, s + v, w + 1 - v);
			v = w + 1;
		}
	}
	put_value(o, s + v, e - v);
	return e - i;
}

/* The end of a value starting at v: its closing quote's end when quoted (*q the quote),
 * else the first blank, '&' or quote. */
static size_t value_end(const char *s, size_t n, size_t v, char *q)
{
	size_t e = v;

	*q = 0;
	if (v < n && (s[v] == '"' || s[v] == '\'')) {
		const char *close = memchr(s + v + 1, s[v], n - v - 1);
		if (close) {
			*q = s[v];
			return (size_t)(close - s) + 1;
		}
	}
	while (e < n && !is_blank(s[e]) && !strchr("&\"'<>", s[e]))
		e++;
	return e;
}

/* Writes the value s[v..e), quoted by q or not, redacted. */
static void put_quoted(struct buf *o, const char *s, size_t v, size_t e, char q)
{
	if (q) {
		buf_put(o, &q, 1);
		put_value(o, s + v + 1, e - v - 2);
		buf_put(o, &q, 1);
	} else {
		put_value(o, s + v, e - v);
	}
}

/* `--name value` at a token's start (i, a '-'): a secret-looking option without '='
 * whose value is the next word.  Returns the bytes consumed, or 0. */
static size_t option(struct buf *o, const struct redact *r, const char *s, size_t n, size_t i)
{
	size_t k = i, v, e;
	char q;

	while (k < n && name_char(s[k]))
		k++;
	if (k == i || (k < n && !is_blank(s[k])) || !redact_is_secret(r, s + i, k - i))
		return 0;
	for (v = k; v < n && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	if (v == k || v >= n || s[v] == '-' || is_blank(s[v]))
		return 0;
	e = value_end(s, n, v, &q);
	if (!q) /* a command line's word ends at a blank only */
		while (e < n && !is_blank(s[e]))
			e++;
	buf_put(o, s + i, v - i);
	put_quoted(o, s, v, e, q);
	return e - i;
}

/* `name=value` at the '=' (i) of a secret-looking name (written already).  Returns the
 * bytes consumed, or 0. */
static size_t pair(struct buf *o, const struct redact *r, const char *s, size_t n, size_t i)
{
	size_t j = i, e;
	char q;

	while (j > 0 && name_char(s[j - 1]))
		j--;
	if (j == i || !redact_is_secret(r, s + j, i - j))
		return 0;
	e = value_end(s, n, i + 1, &q);
	if (e == i + 1)
		return 0;
	buf_put(o, "=", 1);
	put_quoted(o, s, i + 1, e, q);
	return e - i;
}

/* The end of a JSON string opened at s[i] (the index past its closing quote), or 0. */
static size_t json_string(const char *s, size_t n, size_t i)
{
	for (size_t k = i + 1; k < n; k++) {
		if (s[k] == '\\')
			k++;
		else if (s[k] == '"')
			return k + 1;
	}
	return 0;
}

/* `"name": value` at the '"' (i) of a secret-looking member's name.  Returns the bytes
 * consumed, or 0. */
static size_t json(struct buf *o, const struct redact *r, const char *s, size_t n, size_t i)
{
	size_t k = json_string(s, n, i), m, e;

	if (!k || !redact_is_secret(r, s + i + 1, k - i - 2))
		return 0;
	for (m = k; m < n && is_blank(s[m]); m++)
		;
	if (m >= n || s[m] != ':')
		return 0;
	for (m++; m < n && is_blank(s[m]); m++)
		;
	if (m >= n || s[m] == '{' || s[m] == '[')
		return 0; /* an object's members are judged one by one */
	if (s[m] == '"') {
		if (!(e = json_string(s, n, m)))
			return 0;
		buf_put(o, s + i, m + 1 - i);
		put_value(o, s + m + 1, e - m - 2);
		buf_put(o, "\"", 1);
		return e - i;
	}
	for (e = m; e < n && !is_blank(s[e]) && !strchr(",}]", s[e]); e++)
		;
	if (e == m)
		return 0;
	buf_put(o, s + i, m - i);
	put_value(o, s + m, e - m);
	return e - i;
}

/* `scheme://user:password@host` at the ':' (i): the password (the whole userinfo when it
 * has no ':').  Returns the bytes consumed, or 0. */
static size_t userinfo(struct buf *o, const char *s, size_t n, size_t i)
{
	size_t a = i + 3, e, at = 0;
	const char *colon;

	if (i == 0 || i + 2 >= n || s[i + 1] != '/' || s[i + 2] != '/' ||
	    !isalpha((unsigned char)s[i - 1]))
		return 0;
	for (e = a; e < n && !is_blank(s[e]) && !strchr("/?#\"'<>", s[e]); e++)
		if (s[e] == '@')
			at = e;
	if (!at || at == a)
		return 0;
	buf_put(o, "://", 3);
	colon = memchr(s + a, ':', at - a);
	if (colon) {
		size_t c = (size_t)(colon - s);
		buf_put(o, s + a, c + 1 - a);
		if (c + 1 < at)
			put_value(o, s + c + 1, at - c - 1);
	} else {
		put_value(o, s + a, at - a);
	}
	buf_put(o, "@", 1);
	return at + 1 - i;
}

/* Redacts s[0..n) into o: every form of redact.h. */
static void scan(struct buf *o, const struct redact *r, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && !o->oom) {
		int start = i == 0 || is_blank(s[i - 1]) || strchr("'\"=", s[i - 1]);
		size_t used = 0;

		if (start && (isalnum((unsigned char)s[i]) || s[i] == '_'))
			used = header(o, r, s, n, i);
		if (!used && start && s[i] == '-')
			used = option(o, r, s, n, i);
		if (!used && s[i] == '"')
			used = json(o, r, s, n, i);
		if (!used && s[i] == ':')
			used = userinfo(o, s, n, i);
		if (!used && s[i] == '=')
			used = pair(o, r, s, n, i);
		if (used) {
			i += used;
			continue;
		}
		buf_put(o, s + i, 1);
		i++;
	}
}

char *redact_text(const struct redact *r, const char *text)
{
	struct buf o = {0};

	scan(&o, r, text, strlen(text));
	return buf_done(&o);
}

/* One argument of a command line: `--x=v`, `-Dx=v` and `NAME=v` of a secret-looking
 * name up to the argument's end, else the forms of free text. */
static void arg_one(struct buf *o, const struct redact *r, const char *a, size_t n)
{
	size_t k = 0;

	while (k < n && name_char(a[k]))
		k++;
	if (k > 0 && k < n && a[k] == '=' && redact_is_secret(r, a, k)) {
		buf_put(o, a, k + 1);
		put_value(o, a + k + 1, n - k - 1);
		return;
	}
	scan(o, r, a, n);
}

char *redact_argv(const struct redact *r, const char *args, size_t len)
{
	struct buf o = {0};
	size_t i = 0;
	int pending = 0; /* the argument before was a secret-looking --x without a value */

	while (len > 0 && args[len - 1] == '\0')
		len--;
	while (i < len) {
		const char *a = args + i, *nul = memchr(a, '\0', len - i);
		size_t n = nul ? (size_t)(nul - a) : len - i, k = 0;

		if (i > 0)
			buf_put(&o, " ", 1);
		if (pending && n > 0 && a[0] != '-') {
			put_value(&o, a, n);
			pending = 0;
		} else {
			while (k < n && name_char(a[k]))
				k++;
			pending = n > 1 && a[0] == '-' && k == n && redact_is_secret(r, a, n);
			arg_one(&o, r, a, n);
		}
		i += n + 1;
	}
	return buf_done(&o);
}

/* One `key = value` (or `section.key=value`) line's rest from p (a key, not a section):
 * a secret-looking key's whole value, else the value's forms. */
static void ini_setting(struct buf *o, const struct redact *r, const char *p, size_t n)
{
	const char *eq = memchr(p, '=', n);
	size_t k, v, e = n;

	if (!eq) {
		scan(o, r, p, n);
		return;
	}
	k = (size_t)(eq - p);
	while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t'))
		k--;
	for (v = (size_t)(eq - p) + 1; v < n && (p[v] == ' ' || p[v] == '\t'); v++)
		;
	while (e > v && (p[e - 1] == '\r' || p[e - 1] == ' ' || p[e - 1] == '\t'))
		e--;
	/* The key's last part names the value: [request] header, `request.password=`. */
	size_t last = k;
	while (last > 0 && p[last - 1] != '.')
		last--;
	buf_put(o, p, v);
	if (k > 0 && e > v && redact_is_secret(r, p + last, k - last))
		put_value(o, p + v, e - v);
	else
		scan(o, r, p + v, e - v);
	buf_put(o, p + e, n - e);
}

char *redact_ini(const struct redact *r, const char *text)
{
	struct buf o = {0};
	const char *p = text;

	while (*p && !o.oom) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), k = 0;

		while (k < n && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (k < n && p[k] == '[') {
			buf_put(&o, p, n);
		} else {
			/* A comment may be a setting put aside, or the --set trailer: the same. */
			while (k < n && (p[k] == ';' || p[k] == '#' || p[k] == ' ' || p[k] == '\t'))
				k++;
			if (n - k > 6 && strncmp(p + k, "--set ", 6) == 0)
				k += 6;
			buf_put(&o, p, k);
			ini_setting(&o, r, p + k, n - k);
		}
		if (nl)
			buf_put(&o, "\n", 1);
		p += n + (nl != NULL);
	}
	return buf_done(&o);
}
