/*
 * slo — a service-level objective over a step's figures, as the capacity search uses it:
 * "p99<200ms,errors<1%,tps>=300".  Any figure of `soak runs` may appear: p50, p90, p95,
 * p99, p99.9 (or p999), max, mean (latencies, with a unit: us, ms, s), errors (error
 * rate, %), tps.  Operators <, <=, >, >=.
 */
#ifndef SOAK_SLO_H
#define SOAK_SLO_H

#include <stddef.h>

#include "engine/stats.h"

#define SLO_MAX 8

enum slo_metric {
	SLO_P50,
	SLO_P90,
	SLO_P95,
	SLO_P99,
	SLO_P999,
	SLO_MAX_LAT,
	SLO_MEAN,
	SLO_ERRORS,
	SLO_TPS
};

struct slo_term {
	enum slo_metric metric;
	int less;     /* 1: the figure must be below (or at, with `equal`) the bound */
	int equal;    /* the bound itself passes */
	double bound; /* µs for latencies, % for errors, requests/s for tps */
};

struct slo {
	struct slo_term t[SLO_MAX];
	int n;
	char text[256]; /* as given */
};

/* Parses "TERM,TERM,..."; 0, or -1 with err naming the bad term. */
int slo_parse(struct slo *s, const char *text, char *err, size_t errlen);
/* 1 when the figures meet every term; otherwise 0 and `why` names the first that fails,
 * with its value ("p99 130.2ms is not < 100ms"). */
int slo_check(const struct slo *s, const struct figures *f, char *why, size_t whylen);

#endif
