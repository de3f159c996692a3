/* dur: durations, ranges, spans, percentages and sizes as people write them (dur.h).
 * Parsers take the whole string, allocate nothing and say in err what is wrong; the caller
 * adds FILE:LINE. */
#include "dur.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Length of s without trailing blanks. */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/* Parses a duration in s[0..len).  Components like `1h30m` add up. */
static int dur_parse_n(const char *s, size_t len, int64_t *ms, char *err, size_t errlen)
{
	const char *p = s, *end = s + len;
	double total = 0;
	int parts = 0;

	if (len == 0) {
		snprintf(err, errlen, "empty duration");
		return -1;
	}
	while (p < end) {
		char num[32], *q;
		size_t k = 0;
		double v, unit;

		while (p < end && (isdigit((unsigned char)*p) || *p == '.') && k < sizeof num - 1)
			num[k++] = *p++;
		num[k] = '\0';
		if (k == 0) {
			snprintf(err, errlen, "bad duration '%.*s': expected a number", (int)len,
			         s);
			return -1;
		}
		errno = 0;
		v = strtod(num, &q);
		if (*q || errno) {
			snprintf(err, errlen, "bad duration '%.*s'", (int)len, s);
			return -1;
		}
		if (p + 2 <= end && p[0] == 'm' && p[1] == 's') {
			unit = 1;
			p += 2;
		} else if (p < end && *p == 's') {
			unit = 1000, p++;
		} else if (p < end && *p == 'm') {
			unit = 60e3, p++;
		} else if (p < end && *p == 'h') {
			unit = 3600e3, p++;
		} else if (p < end && *p == 'd') {
			unit = 86400e3, p++;
		} else if (p == end && v == 0 && parts == 0) {
			unit = 0; /* a bare 0 needs no unit */
		} else if (p == end) {
			snprintf(err, errlen,
			         "bad duration '%.*s': missing unit (ms, s, m, h or d)", (int)len,
			         s);
			return -1;
		} else {
			snprintf(err, errlen,
			         "bad duration '%.*s': unknown unit '%c' (use ms, s, m, h or d)",
			         (int)len, s, *p);
			return -1;
		}
		total += v * unit;
		parts++;
	}
	if (total > (double)DUR_MAX_MS) {
		snprintf(err, errlen, "bad duration '%.*s': longer than a year", (int)len, s);
		return -1;
	}
	*ms = (int64_t)llround(total);
	return 0;
}

int dur_parse(const char *s, int64_t *ms, char *err, size_t errlen)
{
	s = skip_blank(s);
	return dur_parse_n(s, trimmed_len(s), ms, err, errlen);
}

char *dur_format(int64_t ms, char *buf, size_t len)
{
	static const struct {
		int64_t ms;
		const char *unit;
	} units[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (ms <= 0) {
		snprintf(buf, len, "%s", ms == 0 ? "0s" : "-");
		return buf;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0] && ms > 0; i++) {
		int64_t q = ms / units[i].ms;
		if (q == 0)
			continue;
		ms -= q * units[i].ms;
		int k = snprintf(buf + n, len - n, "%lld%s", (long long)q, units[i].unit);
		if (k < 0 || (size_t)k >= len - n)
			break;
		n += (size_t)k;
	}
	return buf;
}

int dur_span_parse(const char *s, int64_t *min_ms, int64_t *max_ms, char *err, size_t errlen)
{
	const char *dots;

	s = skip_blank(s);
	dots = strstr(s, "..");
	if (!dots) {
		if (dur_parse(s, min_ms, err, errlen) < 0)
			return -1;
		*max_ms = *min_ms;
		return 0;
	}
	size_t a = (size_t)(dots - s);
	while (a > 0 && (s[a - 1] == ' ' || s[a - 1] == '\t'))
		a--;
	const char *b = skip_blank(dots + 2);
	if (dur_parse_n(s, a, min_ms, err, errlen) < 0 ||
	    dur_parse_n(b, trimmed_len(b), max_ms, err, errlen) < 0)
		return -1;
	if (*max_ms < *min_ms) {
		snprintf(err, errlen, "bad range '%s': the end is before the start", s);
		return -1;
	}
	return 0;
}

/* Parses one integer at *p, advancing it. */
static int parse_int(const char **p, long *v)
{
	char *end;
	*p = skip_blank(*p);
	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno)
		return -1;
	*p = skip_blank(end);
	return 0;
}

/* Appends v to vals after checking its bounds and the count. */
static int range_push(const char *s, long v, int lo, int hi, int *vals, int max, int *n, char *err,
                      size_t errlen)
{
	if (v < lo || v > hi) {
		snprintf(err, errlen, "bad range '%s': %ld is outside %d..%d", s, v, lo, hi);
		return -1;
	}
	if (*n >= max) {
		snprintf(err, errlen, "bad range '%s': more than %d levels", s, max);
		return -1;
	}
	vals[(*n)++] = (int)v;
	return 0;
}

int dur_range_parse(const char *s, int lo, int hi, int *vals, int max, int *n, char *err,
                    size_t errlen)
{
	const char *p = skip_blank(s);
	long a, b, step = 1;

	*n = 0;
	if (parse_int(&p, &a) < 0)
		goto bad;
	if (p[0] == '.' && p[1] == '.') {
		p += 2;
		if (parse_int(&p, &b) < 0)
			goto bad;
		if (strncmp(p, "step", 4) == 0) {
			p += 4;
			if (parse_int(&p, &step) < 0 || step <= 0)
				goto bad;
		}
		if (*p)
			goto bad;
		if (b < a) {
			snprintf(err, errlen, "bad range '%s': the end is before the start", s);
			return -1;
		}
		if (range_push(s, b, lo, hi, vals, max, n, err, errlen) < 0)
			return -1; /* checks the end's bound once, before the loop */
		*n = 0;
		for (long v = a; v <= b; v += step)
			if (range_push(s, v, lo, hi, vals, max, n, err, errlen) < 0)
				return -1;
		return 0;
	}
	if (range_push(s, a, lo, hi, vals, max, n, err, errlen) < 0)
		return -1;
	while (*p == ',') {
		p++;
		if (parse_int(&p, &b) < 0)
			goto bad;
		if (range_push(s, b, lo, hi, vals, max, n, err, errlen) < 0)
			return -1;
	}
	if (*p)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad range '%s': expected N, A..B [step S] or A,B,C", s);
	return -1;
}

int dur_pct_parse(const char *s, double *frac, char *err, size_t errlen)
{
	char *end;
	double v;

	s = skip_blank(s);
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		goto bad;
	end = (char *)skip_blank(end);
	if (*end == '%') {
		end = (char *)skip_blank(end + 1);
		if (*end || v < 0 || v > 100)
			goto bad;
		*frac = v / 100.0;
		return 0;
	}
	if (*end || v < 0 || v > 1)
		goto bad;
	*frac = v;
	return 0;
bad:
	snprintf(err, errlen, "bad percentage '%s': expected e.g. 1%%, 0.5%% or a fraction 0..1",
	         s);
	return -1;
}

char *dur_format_us(double us, char *buf, size_t len)
{
	if (us < 1000)
		snprintf(buf, len, "%.0fus", us);
	else if (us < 1e6)
		snprintf(buf, len, "%.1fms", us / 1000);
	else
		snprintf(buf, len, "%.2fs", us / 1e6);
	return buf;
}

#define RATE_MAX 1e7 /* arrivals per second: far above what one machine sends */

/* Reads one rate at *p (a number and an optional /s, /m, /h) and moves *p past it. */
static int rate_token(const char **p, double *out)
{
	const char *q = skip_blank(*p), *e = q;
	char num[64];
	double v;

	/* Digits with at most one decimal point followed by a digit: "100..500" is a range,
	 * not 100.0 and ".500". */
	while (isdigit((unsigned char)*e))
		e++;
	if (*e == '.' && isdigit((unsigned char)e[1]))
		for (e++; isdigit((unsigned char)*e); e++)
			;
	if (e == q || (size_t)(e - q) >= sizeof num)
		return -1;
	memcpy(num, q, (size_t)(e - q));
	num[e - q] = '\0';
	v = strtod(num, NULL);
	if (!isfinite(v))
		return -1;
	q = e;
	if (*q == '/') {
		if (q[1] == 's')
			q += 2;
		else if (q[1] == 'm')
			v /= 60, q += 2;
		else if (q[1] == 'h')
			v /= 3600, q += 2;
		else
			return -1;
	}
	*out = v;
	*p = skip_blank(q);
	return 0;
}

int dur_size_parse(const char *s, int64_t *bytes, char *err, size_t errlen)
{
	static const char units[] = "kmgt";
	const char *p = skip_blank(s), *u;
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(p, &end);
	if (end == p || errno || !isfinite(v) || v <= 0)
		goto bad;
	if (*end && (u = strchr(units, tolower((unsigned char)*end))) != NULL) {
		mul = pow(1024, (double)(u - units + 1));
		end++;
		if (*end == 'i')
			end++;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	end = (char *)skip_blank(end);
	if (*end || v * mul >= 0x1p60 || v * mul < 1)
		goto bad;
	*bytes = (int64_t)llround(v * mul);
	return 0;
bad:
	snprintf(err, errlen, "bad size '%s': expected e.g. 512M, 2G or 1.5G (k M G T = 1024^n)",
	         s);
	return -1;
}

int dur_rate_parse(const char *s, double *per_s, char *err, size_t errlen)
{
	const char *p = s;
	double v;
	if (rate_token(&p, &v) < 0 || *p) {
		snprintf(err, errlen,
		         "bad rate '%s': expected a number per second, minute or hour "
		         "(500/s, 30/m, 1200/h)",
		         s);
		return -1;
	}
	if (v <= 0 || v > RATE_MAX) {
		snprintf(err, errlen, "bad rate '%s': must be above 0 and at most %.0f/s", s,
		         RATE_MAX);
		return -1;
	}
	*per_s = v;
	return 0;
}

static int rate_push(const char *s, double v, double *vals, int max, int *n, char *err,
                     size_t errlen)
{
	if (v <= 0 || v > RATE_MAX) {
		snprintf(err, errlen, "bad rate in '%s': each must be above 0 and at most %.0f/s",
		         s, RATE_MAX);
		return -1;
	}
	if (*n >= max) {
		snprintf(err, errlen, "'%s' gives more than %d rates", s, max);
		return -1;
	}
	vals[(*n)++] = v;
	return 0;
}

int dur_rate_range_parse(const char *s, double *vals, int max, int *n, char *err, size_t errlen)
{
	const char *p = s;
	double a, b, step;

	*n = 0;
	if (rate_token(&p, &a) < 0)
		goto bad;
	if (p[0] == '.' && p[1] == '.') {
		p += 2;
		if (rate_token(&p, &b) < 0 || strncmp(p, "step", 4) != 0)
			goto bad;
		p += 4;
		if (rate_token(&p, &step) < 0 || step <= 0 || *p)
			goto bad;
		if (b < a) {
			snprintf(err, errlen, "bad range '%s': the end is before the start", s);
			return -1;
		}
		if ((b - a) / step + 1 > max) {
			snprintf(err, errlen, "'%s' gives more than %d rates", s, max);
			return -1;
		}
		/* The end is included when the steps land on it (within rounding). */
		for (int i = 0; a + i * step <= b * (1 + 1e-9); i++)
			if (rate_push(s, a + i * step, vals, max, n, err, errlen) < 0)
				return -1;
		return 0;
	}
	if (rate_push(s, a, vals, max, n, err, errlen) < 0)
		return -1;
	while (*p == ',') {
		p++;
		if (rate_token(&p, &b) < 0)
			goto bad;
		if (rate_push(s, b, vals, max, n, err, errlen) < 0)
			return -1;
	}
	if (*p)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen,
	         "bad rates '%s': expected R, A..B step S or A,B,C (each R like "
	         "500/s, 30/m)",
	         s);
	return -1;
}
