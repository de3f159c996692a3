/* slo: a service-level objective over a step's figures, parsed and judged (slo.h), as
 * the capacity search uses it.  No state. */
#include "slo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"

static const struct {
	const char *name;
	enum slo_metric m;
} names[] = {
    {"p50", SLO_P50},   {"p90", SLO_P90},       {"p95", SLO_P95},           {"p99.9", SLO_P999},
    {"p999", SLO_P999}, {"p99", SLO_P99},       {"max", SLO_MAX_LAT},       {"mean", SLO_MEAN},
    {"avg", SLO_MEAN},  {"errors", SLO_ERRORS}, {"error_rate", SLO_ERRORS}, {"tps", SLO_TPS},
};

static int is_latency(enum slo_metric m)
{
	return m <= SLO_MEAN;
}

/* A latency bound: a number and a unit (us, ms, s); µs into *us. */
static int parse_latency(const char *v, double *us)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || x < 0)
		return -1;
	if (!strcmp(end, "us"))
		*us = x;
	else if (!strcmp(end, "ms"))
		*us = x * 1000;
	else if (!strcmp(end, "s"))
		*us = x * 1e6;
	else
		return -1;
	return 0;
}

int slo_parse(struct slo *s, const char *text, char *err, size_t errlen)
{
	char buf[256], *save = NULL;

	memset(s, 0, sizeof *s);
	if (strlen(text) >= sizeof buf) {
		snprintf(err, errlen, "--slo: longer than %zu characters", sizeof buf - 1);
		return -1;
	}
	snprintf(s->text, sizeof s->text, "%s", text);
	snprintf(buf, sizeof buf, "%s", text);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct slo_term *t;
		size_t k;
		char *op;

		while (isspace((unsigned char)*tok))
			tok++;
		if (s->n >= SLO_MAX) {
			snprintf(err, errlen, "--slo: more than %d terms", SLO_MAX);
			return -1;
		}
		t = &s->t[s->n];
		for (k = 0; k < sizeof names / sizeof names[0]; k++)
			if (!strncmp(tok, names[k].name, strlen(names[k].name)) &&
			    strchr("<> ", tok[strlen(names[k].name)]))
				break;
		if (k == sizeof names / sizeof names[0]) {
			snprintf(err, errlen,
			         "--slo: '%s': expected p50, p90, p95, p99, p99.9, max, mean, "
			         "errors or tps, then <, <=, > or >= and a bound",
			         tok);
			return -1;
		}
		t->metric = names[k].m;
		op = tok + strlen(names[k].name);
		while (*op == ' ')
			op++;
		if (*op != '<' && *op != '>') {
			snprintf(err, errlen, "--slo: '%s': expected <, <=, > or >= after %s", tok,
			         names[k].name);
			return -1;
		}
		t->less = *op == '<';
		op++;
		if (*op == '=') {
			t->equal = 1;
			op++;
		}
		while (*op == ' ')
			op++;
		char *end = op + strlen(op);
		while (end > op && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (is_latency(t->metric)) {
			if (parse_latency(op, &t->bound) < 0) {
				snprintf(
				    err, errlen,
				    "--slo: '%s': a latency bound needs a unit (200ms, 1s, 800us)",
				    tok);
				return -1;
			}
		} else if (t->metric == SLO_ERRORS) {
			double frac;
			char e2[128];
			if (dur_pct_parse(op, &frac, e2, sizeof e2) < 0) {
				snprintf(err, errlen, "--slo: '%s': %s", tok, e2);
				return -1;
			}
			t->bound = frac * 100;
		} else {
			char *e3;
			t->bound = strtod(op, &e3);
			if (e3 == op || *e3 || t->bound < 0) {
				snprintf(err, errlen,
				         "--slo: '%s': expected a number of requests per second",
				         tok);
				return -1;
			}
		}
		s->n++;
	}
	if (s->n == 0) {
		snprintf(err, errlen, "--slo: no terms (e.g. 'p99<200ms,errors<1%%')");
		return -1;
	}
	return 0;
}

static double value_of(enum slo_metric m, const struct figures *f)
{
	switch (m) {
	case SLO_P50:
		return (double)f->p50_us;
	case SLO_P90:
		return (double)f->p90_us;
	case SLO_P95:
		return (double)f->p95_us;
	case SLO_P99:
		return (double)f->p99_us;
	case SLO_P999:
		return (double)f->p999_us;
	case SLO_MAX_LAT:
		return (double)f->max_us;
	case SLO_MEAN:
		return f->mean_us;
	case SLO_ERRORS:
		return f->error_pct;
	case SLO_TPS:
		return f->tps;
	}
	return 0;
}

int slo_check(const struct slo *s, const struct figures *f, char *why, size_t whylen)
{
	for (int i = 0; i < s->n; i++) {
		const struct slo_term *t = &s->t[i];
		double v = value_of(t->metric, f);
		int ok = t->less ? (v < t->bound || (t->equal && v == t->bound))
		                 : (v > t->bound || (t->equal && v == t->bound));
		/* A step where nothing was answered meets no latency objective. */
		if (is_latency(t->metric) && f->requests - f->errors <= 0 && f->p99_us == 0)
			ok = 0;
		if (ok)
			continue;
		const char *op = t->less ? (t->equal ? "<=" : "<") : (t->equal ? ">=" : ">");
		const char *name = "";
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (names[k].m == t->metric) {
				name = names[k].name;
				break;
			}
		if (is_latency(t->metric)) {
			char a[32], b[32];
			snprintf(why, whylen, "%s %s is not %s %s", name,
			         dur_format_us(v, a, sizeof a), op,
			         dur_format_us(t->bound, b, sizeof b));
		} else if (t->metric == SLO_ERRORS) {
			snprintf(why, whylen, "errors %.2f%% is not %s %g%%", v, op, t->bound);
		} else {
			snprintf(why, whylen, "tps %.1f is not %s %g", v, op, t->bound);
		}
		return 0;
	}
	if (whylen)
		why[0] = '\0';
	return 1;
}
