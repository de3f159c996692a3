/* regform: the body of POST /register parsed (form or flat JSON) and its three fields
 * validated (regform.h), in bounded memory. */
#include "regform.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

enum { F_USERNAME, F_EMAIL, F_PASSWORD, F_COUNT };

static const char *const field_names[F_COUNT] = {"username", "email", "password"};

/* The fields as the parser finds them, before validation. */
struct slots {
	char *val[F_COUNT];  /* decoded value inside the body, NULL when absent */
	size_t len[F_COUNT]; /* its length in bytes */
	int bad[F_COUNT];    /* given twice, or (JSON) not a string */
};

static int field_of(const char *key, size_t len)
{
	for (int i = 0; i < F_COUNT; i++)
		if (strlen(field_names[i]) == len && memcmp(field_names[i], key, len) == 0)
			return i;
	return -1;
}

/* Records a string value for key; unknown keys are ignored. */
static void slot_take(struct slots *sl, const char *key, size_t klen, char *val, size_t vlen)
{
	int f = field_of(key, klen);

	if (f < 0)
		return;
	if (sl->val[f])
		sl->bad[f] = 1;
	sl->val[f] = val;
	sl->len[f] = vlen;
}

/* Records a non-string value for key: bad when the key is one of ours. */
static void slot_mark_bad(struct slots *sl, const char *key, size_t klen)
{
	int f = field_of(key, klen);

	if (f >= 0)
		sl->bad[f] = 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* --- application/x-www-form-urlencoded ------------------------------------------------- */

/* Decodes s[0..n) in place ('+' and %XX); returns the new length, or -1 on a bad escape. */
static long form_decode(char *s, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		if (s[r] == '+') {
			s[w++] = ' ';
			r++;
		} else if (s[r] == '%') {
			int hi, lo;
			if (r + 2 >= n || (hi = hexval((unsigned char)s[r + 1])) < 0 ||
			    (lo = hexval((unsigned char)s[r + 2])) < 0)
				return -1;
			s[w++] = (char)(hi * 16 + lo);
			r += 3;
		} else {
			s[w++] = s[r++];
		}
	}
	return (long)w;
}

static int parse_form(char *body, size_t len, struct slots *sl)
{
	size_t i = 0;

	while (i <= len) {
		size_t end = i;
		while (end < len && body[end] != '&')
			end++;
		if (end > i) {
			char *key = body + i, *eq = memchr(key, '=', end - i);
			char *val = eq ? eq + 1 : body + end;
			long klen = form_decode(key, eq ? (size_t)(eq - key) : end - i);
			long vlen = form_decode(val, (size_t)(body + end - val));
			if (klen < 0 || vlen < 0)
				return -1;
			slot_take(sl, key, (size_t)klen, val, (size_t)vlen);
		}
		i = end + 1;
	}
	return 0;
}

/* --- application/json ---------------------------------------------------------------- */

struct jp {
	char *s;  /* the body, decoded in place */
	size_t n; /* its length */
	size_t i; /* read position */
};

static void jp_blank(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
	                       p->s[p->i] == '\r'))
		p->i++;
}

static int jp_hex4(const struct jp *p, size_t at, unsigned *cp)
{
	unsigned v = 0;

	if (at + 4 > p->n)
		return -1;
	for (size_t k = 0; k < 4; k++) {
		int h = hexval((unsigned char)p->s[at + k]);
		if (h < 0)
			return -1;
		v = v * 16 + (unsigned)h;
	}
	*cp = v;
	return 0;
}

/* Writes code point cp as UTF-8 at out; returns the byte count (1..4). */
static size_t utf8_put(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decodes the string starting at the '"' under the read position, in place: the result
 * starts right after the opening quote (an escape is never shorter than what it stands
 * for, so writing never overtakes reading). */
static int jp_string(struct jp *p, char **out, size_t *len)
{
	char *s = p->s;
	size_t r = p->i + 1, w = r;

	*out = s + w;
	for (;;) {
		unsigned char c;
		unsigned cp, lo;

		if (r >= p->n)
			return -1;
		c = (unsigned char)s[r];
		if (c == '"')
			break;
		if (c < 0x20)
			return -1;
		if (c != '\\') {
			s[w++] = s[r++];
			continue;
		}
		if (r + 1 >= p->n)
			return -1;
		r += 2;
		switch (s[r - 1]) {
		case '"':
			s[w++] = '"';
			break;
		case '\\':
			s[w++] = '\\';
			break;
		case '/':
			s[w++] = '/';
			break;
		case 'b':
			s[w++] = '\b';
			break;
		case 'f':
			s[w++] = '\f';
			break;
		case 'n':
			s[w++] = '\n';
			break;
		case 'r':
			s[w++] = '\r';
			break;
		case 't':
			s[w++] = '\t';
			break;
		case 'u':
			if (jp_hex4(p, r, &cp) < 0)
				return -1;
			r += 4;
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return -1; /* a low surrogate alone */
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (r + 2 > p->n || s[r] != '\\' || s[r + 1] != 'u' ||
				    jp_hex4(p, r + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
					return -1;
				r += 6;
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			}
			w += utf8_put(s + w, cp);
			break;
		default:
			return -1;
		}
	}
	*len = w - (size_t)(*out - s);
	p->i = r + 1;
	return 0;
}

static int jp_digits(struct jp *p)
{
	size_t start = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > start ? 0 : -1;
}

/* A number, true, false or null (skipped: only keys we ignore may hold them). */
static int jp_scalar(struct jp *p)
{
	static const char *const words[] = {"true", "false", "null"};
	char c = p->s[p->i];

	for (size_t k = 0; k < 3; k++) {
		size_t wl = strlen(words[k]);
		if (p->n - p->i >= wl && memcmp(p->s + p->i, words[k], wl) == 0) {
			p->i += wl;
			return 0;
		}
	}
	if (c != '-' && (c < '0' || c > '9'))
		return -1;
	if (c == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (jp_digits(p) < 0)
		return -1;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (jp_digits(p) < 0)
			return -1;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (jp_digits(p) < 0)
			return -1;
	}
	return 0;
}

static int parse_json(char *body, size_t len, struct slots *sl)
{
	struct jp p = {.s = body, .n = len, .i = 0};

	jp_blank(&p);
	if (p.i >= p.n || p.s[p.i] != '{')
		return -1;
	p.i++;
	jp_blank(&p);
	if (p.i < p.n && p.s[p.i] == '}') {
		p.i++;
		goto end;
	}
	for (;;) {
		char *key, *val;
		size_t klen, vlen;

		jp_blank(&p);
		if (p.i >= p.n || p.s[p.i] != '"' || jp_string(&p, &key, &klen) < 0)
			return -1;
		jp_blank(&p);
		if (p.i >= p.n || p.s[p.i] != ':')
			return -1;
		p.i++;
		jp_blank(&p);
		if (p.i >= p.n)
			return -1;
		if (p.s[p.i] == '"') {
			if (jp_string(&p, &val, &vlen) < 0)
				return -1;
			slot_take(sl, key, klen, val, vlen);
		} else {
			if (jp_scalar(&p) < 0)
				return -1; /* also objects and arrays: the object is flat */
			slot_mark_bad(sl, key, klen);
		}
		jp_blank(&p);
		if (p.i < p.n && p.s[p.i] == ',') {
			p.i++;
			continue;
		}
		if (p.i < p.n && p.s[p.i] == '}') {
			p.i++;
			break;
		}
		return -1;
	}
end:
	jp_blank(&p);
	return p.i == p.n ? 0 : -1;
}

/* --- validation ---------------------------------------------------------------------- */

/* Code points in s[0..n), or -1 when it is not valid UTF-8 (overlong forms, surrogates and
 * values past U+10FFFF are invalid). */
static long utf8_count(const unsigned char *s, size_t n)
{
	long count = 0;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			count++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			k = 1, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			k = 2, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			k = 3, cp = c & 0x07;
		else
			return -1;
		if (i + k >= n)
			return -1; /* truncated sequence */
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xC0) != 0x80)
				return -1;
			cp = (cp << 6) | (s[i + j] & 0x3F);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return -1;
		i += k + 1;
		count++;
	}
	return count;
}

static int valid_username(const char *s, size_t n)
{
	if (n < 3 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

static int valid_email(const char *s, size_t n)
{
	const char *at, *domain;
	size_t dlen;

	if (n < 3 || n > 254 || utf8_count((const unsigned char *)s, n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7F)
			return 0;
	at = memchr(s, '@', n);
	if (!at || at == s || memchr(at + 1, '@', n - (size_t)(at + 1 - s)))
		return 0;
	domain = at + 1;
	dlen = n - (size_t)(domain - s);
	for (size_t i = 1; i + 1 < dlen; i++)
		if (domain[i] == '.')
			return 1;
	return 0;
}

static int valid_password(const char *s, size_t n)
{
	long chars = utf8_count((const unsigned char *)s, n);

	return chars >= 8 && chars <= 128 && !memchr(s, '\0', n);
}

int regform_kind_of(const char *ct, enum regform_kind *kind)
{
	static const char form[] = "application/x-www-form-urlencoded";
	static const char json[] = "application/json";
	size_t n;

	if (!ct)
		return -1;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	n = strcspn(ct, "; \t");
	if (n == sizeof form - 1 && strncasecmp(ct, form, n) == 0)
		*kind = REGFORM_URLENCODED;
	else if (n == sizeof json - 1 && strncasecmp(ct, json, n) == 0)
		*kind = REGFORM_JSON;
	else
		return -1;
	return 0;
}

enum regform_verdict regform_read(enum regform_kind kind, char *body, size_t len, struct regform *f)
{
	struct slots sl;

	memset(&sl, 0, sizeof sl);
	memset(f, 0, sizeof *f);
	if ((kind == REGFORM_JSON ? parse_json(body, len, &sl) : parse_form(body, len, &sl)) < 0)
		return REGFORM_MALFORMED;
	if (!sl.val[F_USERNAME] || sl.bad[F_USERNAME] ||
	    !valid_username(sl.val[F_USERNAME], sl.len[F_USERNAME]))
		return REGFORM_BAD_USERNAME;
	if (!sl.val[F_EMAIL] || sl.bad[F_EMAIL] || !valid_email(sl.val[F_EMAIL], sl.len[F_EMAIL]))
		return REGFORM_BAD_EMAIL;
	if (!sl.val[F_PASSWORD] || sl.bad[F_PASSWORD] ||
	    !valid_password(sl.val[F_PASSWORD], sl.len[F_PASSWORD]))
		return REGFORM_BAD_PASSWORD;
	f->username = sl.val[F_USERNAME];
	f->username_len = sl.len[F_USERNAME];
	f->email = sl.val[F_EMAIL];
	f->email_len = sl.len[F_EMAIL];
	f->password = sl.val[F_PASSWORD];
	f->password_len = sl.len[F_PASSWORD];
	return REGFORM_VALID;
}
