/*
 * dur — durations, ranges and percentages as people write them in scenario files and
 * on command lines.
 *
 *   durations   250ms 30s 30m 2h 72h 3d 1.5h 1h30m, and 0     (units ms s m h d)
 *   ranges      10..100 step 10   10,20,50   30               (integer levels)
 *   spans       100ms..300ms                                   (think time)
 *   percentages 1%  0.5%  or a plain fraction 0.01            (result is a fraction)
 *   sizes       512M 2G 1.5G 300MB 64k 1048576                 (k M G T = 1024^n bytes)
 *
 * Parsers take the whole string (surrounding blanks allowed), return 0 or -1 and on error
 * write a lower-case reason into err (the caller adds FILE:LINE).  No allocation.
 */
#ifndef SOAK_DUR_H
#define SOAK_DUR_H

#include <stddef.h>
#include <stdint.h>

#define DUR_MAX_MS (366LL * 24 * 3600 * 1000) /* a year: anything longer is a typo */

int dur_parse(const char *s, int64_t *ms, char *err, size_t errlen);
/* Shortest exact form: 250ms, 45s, 1m30s, 2h, 1d12h; 0 -> "0s".  Returns buf. */
char *dur_format(int64_t ms, char *buf, size_t len);
/* A span `A..B` or a single duration (then min = max). */
int dur_span_parse(const char *s, int64_t *min_ms, int64_t *max_ms, char *err, size_t errlen);
/* Levels into vals[0..*n), at most max of them, each within [lo, hi]. */
int dur_range_parse(const char *s, int lo, int hi, int *vals, int max, int *n, char *err,
                    size_t errlen);
/* A percentage (`1%`) or a fraction in [0, 1]; *frac gets the fraction. */
int dur_pct_parse(const char *s, double *frac, char *err, size_t errlen);
/* A rate: "500/s", "30/m", "1200/h", "2.5" (per second when no unit), > 0 and at most
 * 10,000,000/s; 0 and *per_s, or -1 with err. */
int dur_rate_parse(const char *s, double *per_s, char *err, size_t errlen);
/* Rates as a list "100,200,500/s" or a range "100..1000 step 100" (each value may carry
 * its unit); at most `max` values into vals; 0, or -1 with err. */
int dur_rate_range_parse(const char *s, double *vals, int max, int *n, char *err, size_t errlen);

/* A size in bytes: a number with an optional unit k, M, G or T (powers of 1024; `B`,
 * `iB` after it allowed), > 0 and below 2^60; 0 and *bytes, or -1 with err. */
int dur_size_parse(const char *s, int64_t *bytes, char *err, size_t errlen);

/* A latency for people, in the unit that suits it: 850us, 12.3ms, 1.25s. */
char *dur_format_us(double us, char *buf, size_t len);

#endif
