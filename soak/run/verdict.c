/* verdict: a step's figures against its scenario's thresholds, each in the threshold's
 * own unit (verdict.h).  No allocation, no state. */
#include "verdict.h"

#include <stdio.h>

#include "dur.h"

/* Adds a latency bound (µs) as ms. */
static void latency(struct verdict *v, const char *metric, int64_t limit_us, double value_us,
                    int64_t answered)
{
	char a[32], b[32];

	v->metric = metric;
	v->unit = "ms";
	v->limit = (double)limit_us / 1000;
	v->value = value_us / 1000;
	v->passed = answered == 0 || value_us <= (double)limit_us;
	snprintf(v->text, sizeof v->text, "%s %s is above %s", metric,
	         dur_format_us(value_us, a, sizeof a),
	         dur_format_us((double)limit_us, b, sizeof b));
}

int verdict_check(const struct scn_thresholds *t, const struct figures *f,
                  struct verdict out[VERDICT_MAX])
{
	int n = 0;

	if (t->p99_us >= 0)
		latency(&out[n++], "p99", t->p99_us, (double)f->p99_us, f->requests);
	if (t->p95_us >= 0)
		latency(&out[n++], "p95", t->p95_us, (double)f->p95_us, f->requests);
	if (t->mean_us >= 0)
		latency(&out[n++], "mean", t->mean_us, f->mean_us, f->requests);
	if (t->error_rate >= 0) {
		struct verdict *v = &out[n++];
		v->metric = "error_rate";
		v->unit = "%";
		v->limit = t->error_rate * 100;
		v->value = f->error_pct;
		v->passed = f->error_pct <= t->error_rate * 100;
		snprintf(v->text, sizeof v->text, "error rate %.2f%% is above %g%%", f->error_pct,
		         t->error_rate * 100);
	}
	if (t->tps_min >= 0) {
		struct verdict *v = &out[n++];
		v->metric = "tps_min";
		v->unit = "req/s";
		v->limit = t->tps_min;
		v->value = f->tps;
		v->passed = f->tps >= t->tps_min;
		snprintf(v->text, sizeof v->text, "%.1f requests/s is below %g", f->tps,
		         t->tps_min);
	}
	return n;
}
