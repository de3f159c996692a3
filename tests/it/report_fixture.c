/*
 * report_fixture — writes SQL (on stdout) that fills a soak database with rows whose
 * figures are known by construction, for tests/it/test_report.sh:
 *
 *   report_fixture golden                 two labels, fixed runs, sweeps, errors, collector
 *                                         samples, GC events of two real JDK 17 logs, an
 *                                         interrupted run and a crashed one
 *   report_fixture gc NAME=LOG[,LOG]...   one run per NAME holding the GC events of its
 *                                         logs (read in order through one parser)
 *   report_fixture validity               labels base and cand, built so that each validity
 *                                         code fires once (see validity() below); needs the
 *                                         columns intervals.gen_cpu_pct, lag_p99_us and
 *                                         runs.clock_offset_ms, merged_into
 *   report_fixture drift                  the drift verdict's cases: a stable run (with
 *                                         memory that levels off, one at its limit and a
 *                                         cache filling), one whose latency rises in steps
 *                                         (and memory that keeps rising, a backend's
 *                                         private memory among it), one warming up (improving),
 *                                         one too short to judge, and the degrading one
 *                                         again on a machine whose probe slowed with it
 *   report_fixture warmups                a study of two labels whose 44 warm-up runs come
 *                                         before its 6 compared ones
 *
 * Every number comes from integer arithmetic on a fixed-seed generator, so the SQL (and
 * the report made from it) is the same on every machine.  Histograms are encoded with
 * common/hdr.c as `soak run` stores them (V2, µs, 1..1h, 3 digits) and written as X'..'.
 * Built by the test with cc from this file, common/hdr.c and common/gcparse*.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcparse.h"
#include "hdr.h"

#define T0 1767607200000LL /* 2026-01-05T10:00:00Z */
#define IV 5000            /* interval length, ms */
#define MAX_EVENTS 200000

/* xorshift64: deterministic and integer-only. */
static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Uniform in [0, n). */
static int64_t below(int64_t n)
{
	return (int64_t)(next() % (uint64_t)n);
}

static void die(const char *what)
{
	fprintf(stderr, "report_fixture: %s\n", what);
	exit(1);
}

static void hex_blob(const struct hdr *h)
{
	uint8_t *buf;
	size_t len;
	char err[128];

	if (hdr_encode(h, &buf, &len, err, sizeof err) < 0)
		die(err);
	printf("X'");
	for (size_t i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("'");
	free(buf);
}

/* One interval's counters, and the step's running totals. */
struct acc {
	struct hdr h;     /* latencies */
	int64_t requests; /* completed */
	int64_t errors;
	int64_t new_conns;
	int64_t lat_sum;  /* exact sum of recorded latencies */
};

static void acc_init(struct acc *a)
{
	char err[128];
	memset(a, 0, sizeof *a);
	if (hdr_init(&a->h, 1, 3600000000LL, 3, err, sizeof err) < 0)
		die(err);
}

static void acc_add(struct acc *dst, const struct acc *src)
{
	hdr_add(&dst->h, &src->h);
	dst->requests += src->requests;
	dst->errors += src->errors;
	dst->new_conns += src->new_conns;
	dst->lat_sum += src->lat_sum;
}

/* Figures columns: mean_us, p50..max, hist (NULLs when nothing was answered). */
static void figures(const struct acc *a)
{
	int64_t n = hdr_total(&a->h);
	if (n == 0) {
		printf("NULL, NULL, NULL, NULL, NULL, NULL, NULL, ");
	} else {
		printf("%.6f, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
		       ", %" PRId64 ", ",
		       (double)a->lat_sum / (double)n, hdr_value_at_percentile(&a->h, 50),
		       hdr_value_at_percentile(&a->h, 90), hdr_value_at_percentile(&a->h, 95),
		       hdr_value_at_percentile(&a->h, 99), hdr_value_at_percentile(&a->h, 99.9),
		       hdr_max(&a->h));
	}
	hex_blob(&a->h);
}

/* What one run looks like. */
struct run {
	int id;
	const char *name, *label, *mode, *connection, *status, *reason, *host;
	int64_t start;         /* started_ms */
	int levels[8];         /* concurrency per step */
	int nlevels;
	int steady;            /* steady intervals per step (after one warm-up interval) */
	int partial_after;     /* >0: the run stops after this many steady intervals of the
				* last step: with a partial interval (interrupted), or
				* without (open: it crashed) */
	int open;              /* the row stays `running` (no ended_ms, no step window) */
	int64_t tps_per_user;  /* throughput of one user (requests/s) ... */
	int64_t cap;           /* ... up to this many users served at once */
	int64_t jitter_pct;    /* spread of per-interval TPS, % */
	int64_t err_per_mille; /* errors per 1000 requests */
	const char *err_class, *err_sample;
	int close;             /* one new connection per request */
	int64_t trend_pct;     /* TPS falls by this share over the steady window (0: flat) */
	/* Drift: the latency of the steady intervals is lat_pct0 % of Little's law's, moving
	 * by lat_step points every lat_every intervals, never below lat_floor % (the users
	 * stay, so TPS moves the other way).  lat_every 0: no drift. */
	int lat_every;
	int64_t lat_pct0, lat_step, lat_floor;
	int drain;             /* the run ends with a drain interval: this many requests that
				* were in flight, answered within 5 ms (as a rate: a spike) */
};

/* Latency of one request around mean_us: a triangular spread of +-40%, and one request in
 * 200 three times slower (a tail beyond the 99th percentile). */
static int64_t latency(int64_t mean_us)
{
	int64_t spread = mean_us * 40 / 100;
	int64_t v = mean_us - spread + (below(spread + 1) + below(spread + 1));
	if (below(200) == 0)
		v *= 3;
	return v < 1 ? 1 : v;
}

/* One interval of n requests at mean latency m (µs); errors of e of them. */
static void fill(struct acc *a, int64_t n, int64_t m, int64_t e, int close)
{
	for (int64_t i = 0; i < n - e; i++) {
		int64_t v = latency(m);
		hdr_record(&a->h, v);
		a->lat_sum += v;
	}
	a->requests = n;
	a->errors = e;
	a->new_conns = close ? n : 0;
}

static void emit_run(const struct run *r)
{
	int64_t t = r->start, end;
	int stop = 0;

	printf("INSERT INTO runs(id, uuid, name, label, scenario, mode, connection, url, host, "
	       "pid, pid_start, boot_id, soak_version, status, reason, interval_ms, started_ms) "
	       "VALUES (%d, 'fixture-%d', '%s', '%s', '[scenario]', '%s', '%s', "
	       "'http://127.0.0.1:8080/register', '%s', 1, 1, 'fixture-boot', '0.0.0', "
	       "'running', NULL, %d, %" PRId64 ");\n",
	       r->id, r->id, r->name, r->label, r->mode, r->connection, r->host, IV, r->start);
	for (int s = 0; s < r->nlevels && !stop; s++) {
		int64_t n_users = r->levels[s];
		int64_t served = n_users < r->cap ? n_users : r->cap;
		int64_t tps = r->tps_per_user * served;
		/* Little's law: N = X R. */
		int64_t mean_us = tps > 0 ? n_users * 1000000 / tps : 0;
		int64_t planned = (int64_t)(1 + r->steady) * IV;
		struct acc step;
		int64_t wfrom = 0, wto = 0;

		acc_init(&step);
		printf("INSERT INTO steps(run_id, idx, concurrency, started_ms, planned_ms) VALUES "
		       "(%d, %d, %d, %" PRId64 ", %" PRId64 ");\n",
		       r->id, s, r->levels[s], t, planned);
		for (int k = 0; k <= r->steady; k++) {
			const char *phase = k == 0 ? "warmup" : "steady";
			int64_t len = IV;
			struct acc a;
			if (r->partial_after && s == r->nlevels - 1 && k == r->partial_after + 1) {
				if (r->open) {
					stop = 1;
					break;
				}
				phase = "partial";
				len = IV / 2;
				stop = 1;
			}
			/* A trend lowers this interval's throughput; by Little's law the same
			 * users then wait longer.  A drift moves latency in steps (TPS the
			 * other way). */
			int64_t iv_tps = tps * (100 * r->steady - r->trend_pct * (k > 0 ? k - 1 : 0)) /
					 (100 * r->steady),
				iv_mean = mean_us;
			if (r->trend_pct && iv_tps > 0)
				iv_mean = n_users * 1000000 / iv_tps;
			if (r->lat_every > 0 && k > 0) {
				int64_t pct = r->lat_pct0 + r->lat_step * ((k - 1) / r->lat_every);
				if (pct < r->lat_floor)
					pct = r->lat_floor;
				iv_mean = mean_us * pct / 100;
				iv_tps = tps * 100 / pct;
			}
			int64_t n = (iv_tps * len / 1000) * (100 - r->jitter_pct + below(2 * r->jitter_pct + 1)) / 100;
			int64_t e = n * r->err_per_mille / 1000;
			if (e > 0)
				e = e * (50 + below(101)) / 100;
			acc_init(&a);
			fill(&a, n, iv_mean, e, r->close);
			if (k == 0 && !r->close)
				a.new_conns = n_users;
			printf("INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, "
			       "requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, p50_us, "
			       "p90_us, p95_us, p99_us, p999_us, max_us, hist) VALUES (%d, %d, %" PRId64
			       ", %" PRId64 ", '%s', %d, %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
			       ", NULL, NULL, ",
			       r->id, s, t, len, phase, r->levels[s], a.requests, a.errors,
			       a.requests * 120, a.new_conns);
			figures(&a);
			printf(");\n");
			if (a.errors > 0)
				printf("INSERT INTO interval_errors VALUES (%d, %d, %" PRId64 ", '%s', %" PRId64
				       ", '%s');\n",
				       r->id, s, t, r->err_class, a.errors, r->err_sample);
			if (!strcmp(phase, "steady")) {
				if (!wfrom)
					wfrom = t;
				wto = t + len;
				acc_add(&step, &a);
			}
			hdr_release(&a.h);
			t += len;
			if (stop)
				break;
		}
		if (!stop && !r->open) {
			printf("UPDATE steps SET window_start_ms = %" PRId64 ", window_end_ms = %" PRId64
			       ", requests = %" PRId64 ", errors = %" PRId64 ", new_conns = %" PRId64
			       ", tps = %.6f, hist = ",
			       wfrom, wto, step.requests, step.errors, step.new_conns,
			       (double)step.requests * 1000.0 / (double)(wto - wfrom));
			hex_blob(&step.h);
			printf(" WHERE run_id = %d AND idx = %d;\n", r->id, s);
		}
		hdr_release(&step.h);
	}
	if (r->drain && !stop) {
		struct acc a;
		acc_init(&a);
		fill(&a, r->drain, 4000, 0, 0);
		printf("INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, "
		       "requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, p50_us, "
		       "p90_us, p95_us, p99_us, p999_us, max_us, hist) VALUES (%d, %d, %" PRId64
		       ", 5, 'drain', 0, %d, 0, %d, 0, NULL, NULL, ",
		       r->id, r->nlevels - 1, t, r->drain, r->drain * 120);
		figures(&a);
		printf(");\n");
		hdr_release(&a.h);
		t += 5;
	}
	end = t;
	if (r->open)
		printf("UPDATE runs SET heartbeat_ms = %" PRId64 " WHERE id = %d;\n", end, r->id);
	else
		printf("UPDATE runs SET status = '%s', reason = %s%s%s, ended_ms = %" PRId64
		       ", heartbeat_ms = %" PRId64 " WHERE id = %d;\n",
		       r->status, r->reason ? "'" : "NULL", r->reason ? r->reason : "",
		       r->reason ? "'" : "", end, end, r->id);
}

/* Collector samples of a source every 5 s over [from, to]: value around base +- jitter,
 * growing by slope per sample. */
static void emit_samples(const char *source, const char *metric, int64_t from, int64_t to,
			 int64_t base, int64_t jitter, int64_t slope, const char *run_id)
{
	int64_t i = 0;
	for (int64_t t = from; t <= to; t += 5000, i++)
		printf("INSERT INTO samples VALUES ('%s', 'fixture-host', '%s', %" PRId64
		       ", %" PRId64 ".%02d, %s);\n",
		       source, metric, t, base + slope * i - jitter + below(2 * jitter + 1),
		       (int)below(100), run_id);
}

/* GC events: an array filled by the parser's callback. */
struct events {
	struct gcp_event *ev;
	size_t n;
};

static void on_event(const struct gcp_event *e, void *arg)
{
	struct events *a = arg;
	if (a->n >= MAX_EVENTS)
		die("too many GC events");
	a->ev[a->n++] = *e;
}

static void read_logs(struct events *a, char *files)
{
	char err[256], line[GCP_LINE_MAX + 2];
	struct gcparse *p = gcp_new(on_event, NULL, a, err, sizeof err);

	if (!p)
		die(err);
	gcp_set_jvm_start(p, T0);
	for (char *f = strtok(files, ","); f; f = strtok(NULL, ",")) {
		FILE *in = fopen(f, "r");
		if (!in)
			die(f);
		while (fgets(line, sizeof line, in)) {
			size_t n = strlen(line);
			while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				n--;
			gcp_line(p, line, n);
		}
		fclose(in);
	}
	gcp_flush(p);
	gcp_free(p);
}

static void opt_i64(int64_t v)
{
	if (v == GCP_NONE)
		printf(", NULL");
	else
		printf(", %" PRId64, v);
}

/* The events shifted so that the first starts at `at`; run_id NULL or a number. */
static void emit_gc(const struct events *a, const char *source, int64_t at, const char *run_id)
{
	int64_t first = a->n ? a->ev[0].t_ms : 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->ev[i].t_ms < first)
			first = a->ev[i].t_ms;
	for (size_t i = 0; i < a->n; i++) {
		const struct gcp_event *e = &a->ev[i];
		printf("INSERT OR IGNORE INTO gc_events(source, host, t_ms, uptime_ms, gc_id, kind, "
		       "cause, pause_us, conc_us, heap_before_kb, heap_after_kb, heap_total_kb, "
		       "young_before_kb, young_after_kb, young_total_kb, old_before_kb, "
		       "old_after_kb, old_total_kb, meta_before_kb, meta_after_kb, meta_total_kb, "
		       "run_id) VALUES ('%s', 'fixture-host', %" PRId64,
		       source, e->t_ms - first + at);
		opt_i64(e->uptime_ms);
		opt_i64(e->gc_id);
		printf(", '%s', '", gcp_kind_name(e->kind));
		for (const char *c = e->cause; *c; c++)
			printf(*c == '\'' ? "''" : "%c", *c);
		printf("', %" PRId64, e->pause_us);
		opt_i64(e->conc_us);
		int64_t figs[] = {e->heap_before_kb,  e->heap_after_kb,  e->heap_total_kb,
				  e->young_before_kb, e->young_after_kb, e->young_total_kb,
				  e->old_before_kb,   e->old_after_kb,   e->old_total_kb,
				  e->meta_before_kb,  e->meta_after_kb,  e->meta_total_kb};
		for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++)
			opt_i64(figs[k]);
		printf(", %s);\n", run_id);
	}
}

static int64_t span(const struct events *a)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < a->n; i++) {
		if (a->ev[i].t_ms < lo)
			lo = a->ev[i].t_ms;
		if (a->ev[i].t_ms > hi)
			hi = a->ev[i].t_ms;
	}
	return a->n ? hi - lo : 0;
}

static void golden(const char *stable_log, const char *leak_log)
{
	char f1[4096], f2[4096];
	struct events gc = {calloc(MAX_EVENTS, sizeof(struct gcp_event)), 0};
	/* Two soak runs of 20 users for 65 s (one warm-up and 12 steady intervals). */
	struct run r1 = {.id = 1, .name = "tomcat9 soak 20 users", .label = "tomcat9",
			 .mode = "fixed", .connection = "keepalive", .status = "done",
			 .host = "fixture-host", .start = T0, .levels = {20}, .nlevels = 1,
			 .steady = 12, .tps_per_user = 10, .cap = 1000, .jitter_pct = 3,
			 .err_per_mille = 2, .err_class = "http_5xx",
			 .err_sample = "HTTP 503 Service Unavailable"};
	struct run r2 = r1;
	struct run r3 = {.id = 3, .name = "tomcat9 sweep", .label = "tomcat9", .mode = "sweep",
			 .connection = "keepalive", .status = "done", .host = "fixture-host",
			 .start = T0 + 3600000, .levels = {5, 10, 20, 40}, .nlevels = 4, .steady = 3,
			 .tps_per_user = 50, .cap = 10, .jitter_pct = 2};
	struct run r4 = r3;
	struct run r5 = {.id = 5, .name = "tomcat10 soak 50 users", .label = "tomcat10",
			 .mode = "fixed", .connection = "keepalive", .status = "interrupted",
			 .reason = "SIGINT", .host = "fixture-host", .start = T0 + 3 * 3600000,
			 .levels = {50}, .nlevels = 1, .steady = 12, .partial_after = 6,
			 .tps_per_user = 10, .cap = 1000, .jitter_pct = 3};
	struct run r6 = {.id = 6, .name = "tomcat9 soak 50 users, close", .label = "tomcat9",
			 .mode = "fixed", .connection = "close", .status = "running",
			 .host = "fixture-host", .start = T0 + 4 * 3600000, .levels = {50},
			 .nlevels = 1, .steady = 12, .partial_after = 9, .open = 1,
			 .tps_per_user = 8, .cap = 1000, .jitter_pct = 3, .close = 1};

	r2.id = 2;
	r2.name = "tomcat10 soak 20 users";
	r2.label = "tomcat10";
	r2.start = T0 + 1800000;
	r2.tps_per_user = 12; /* 20% more, and faster by Little's law */
	r2.err_class = "client_ports";
	r2.err_sample = "connect: Cannot assign requested address";
	r2.err_per_mille = 1;
	r4.id = 4;
	r4.name = "tomcat10 sweep";
	r4.label = "tomcat10";
	r4.start = T0 + 2 * 3600000;
	r4.cap = 20;

	printf("BEGIN;\n");
	emit_run(&r1);
	emit_run(&r2);
	emit_run(&r3);
	emit_run(&r4);
	emit_run(&r5);
	emit_run(&r6);
	/* Run 1: collectors started outside soak (run_id NULL, matched by time); run 2: by the
	 * run.  app is the JVM (with a GC log), db a database process, host the machine. */
	emit_samples("app", "cpu_pct", r1.start, r1.start + 65000, 150, 10, 0, "NULL");
	emit_samples("db", "cpu_pct", r1.start, r1.start + 65000, 40, 5, 0, "NULL");
	emit_samples("db", "rss_kb", r1.start, r1.start + 65000, 204800, 100, 0, "NULL");
	emit_samples("host", "cpu_user_pct", r1.start, r1.start + 65000, 30, 2, 0, "NULL");
	emit_samples("host", "cpu_sys_pct", r1.start, r1.start + 65000, 10, 1, 0, "NULL");
	emit_samples("app", "cpu_pct", r2.start, r2.start + 65000, 140, 10, 0, "2");
	emit_samples("db", "cpu_pct", r2.start, r2.start + 65000, 44, 5, 0, "2");
	emit_samples("db", "rss_kb", r2.start, r2.start + 65000, 204800, 100, 2048, "2");
	emit_samples("host", "cpu_user_pct", r2.start, r2.start + 65000, 33, 2, 0, "2");
	emit_samples("host", "cpu_sys_pct", r2.start, r2.start + 65000, 10, 1, 0, "2");
	snprintf(f1, sizeof f1, "%s", stable_log);
	read_logs(&gc, f1);
	emit_gc(&gc, "app", r1.start + 2000, "NULL");
	gc.n = 0;
	snprintf(f2, sizeof f2, "%s", leak_log);
	read_logs(&gc, f2);
	emit_gc(&gc, "app", r2.start + 2000, "2");
	printf("COMMIT;\n");
	free(gc.ev);
}

/* Memory of a source every 5 s over [from, to]: from `low` KB it grows linearly to `high`
 * over `grow_ms`, then holds there (+- jitter KB). */
static void emit_levels(const char *source, const char *metric, int64_t from, int64_t to,
			int64_t low, int64_t high, int64_t grow_ms, int64_t jitter, const char *run_id)
{
	for (int64_t t = from; t <= to; t += 5000) {
		int64_t v = t - from >= grow_ms ? high : low + (high - low) * (t - from) / grow_ms;
		printf("INSERT INTO samples VALUES ('%s', 'fixture-host', '%s', %" PRId64
		       ", %" PRId64 ", %s);\n",
		       source, metric, t, v - jitter + below(2 * jitter + 1), run_id);
	}
}

/* Young GC events of a source every 2 s over [from, to]: pause0 µs, growing by `grow` µs
 * per event, +-10 %; heap after GC flat at 100 MB of 256 MB. */
static void emit_young(const char *source, int64_t from, int64_t to, int64_t pause0, int64_t grow,
		       const char *run_id)
{
	int64_t i = 0;
	for (int64_t t = from; t <= to; t += 2000, i++) {
		int64_t p = pause0 + grow * i;
		p = p - p / 10 + below(p / 5 + 1);
		printf("INSERT INTO gc_events(source, host, t_ms, uptime_ms, gc_id, kind, cause, "
		       "pause_us, heap_before_kb, heap_after_kb, heap_total_kb, run_id) VALUES "
		       "('%s', 'fixture-host', %" PRId64 ", %" PRId64 ", %" PRId64
		       ", 'young', 'G1 Evacuation Pause', %" PRId64 ", %d, %d, %d, %s);\n",
		       source, t, t - from + 1000, i, p, 150 * 1024, 100 * 1024 + (int)below(2048),
		       256 * 1024, run_id);
	}
}

/* A PostgreSQL recorded by kind (after every other sample, so that theirs come from the
 * generator as before): in the stable run (from s1) the case, private and file
 * memory flat while its shared buffers fill at +300 MB/h, below the 165.4 MB it maps
 * (shared_buffers 128 MB); in the degrading run (from s2) a backend leaking private memory
 * at +60 MB/h beside a full cache. */
static void memory_by_kind(int64_t s1, int64_t s2, int64_t len)
{
	static const char *const bound[] = {"shmem_mapped_kb", "shared_buffers_kb"};
	static const int64_t kb[] = {169392, 131072};

	emit_samples("pg", "pss_kb", s1, s1 + len, 68608, 100, 427, "1");
	emit_samples("pg", "pss_anon_kb", s1, s1 + len, 25600, 100, 0, "1");
	emit_samples("pg", "pss_shmem_kb", s1, s1 + len, 30720, 100, 427, "1");
	emit_samples("pg", "pss_file_kb", s1, s1 + len, 12288, 100, 0, "1");
	emit_samples("pg", "pss_kb", s2, s2 + len, 195584, 100, 85, "2");
	emit_samples("pg", "pss_anon_kb", s2, s2 + len, 25600, 100, 85, "2");
	emit_samples("pg", "pss_shmem_kb", s2, s2 + len, 157696, 100, 0, "2");
	emit_samples("pg", "pss_file_kb", s2, s2 + len, 12288, 100, 0, "2");
	for (int i = 0; i < 2; i++) {
		emit_samples("pg", bound[i], s1, s1 + len, kb[i], 0, 0, "1");
		emit_samples("pg", bound[i], s2, s2 + len, kb[i], 0, 0, "2");
	}
}

/* The drift verdict's cases, 20 minutes each (a warm-up and 240 steady intervals of 5 s)
 * but the last: 30 users at 10 TPS each, latency by Little's law. */
static void drift_runs(void)
{
	struct run base = {.label = "drift", .mode = "fixed", .connection = "keepalive",
			   .status = "done", .host = "fixture-host", .levels = {30}, .nlevels = 1,
			   .steady = 240, .tps_per_user = 10, .cap = 1000, .jitter_pct = 3};
	struct run stable = base, degrading = base, improving = base, little = base, slowed;
	int64_t len = 241 * (int64_t)IV;

	stable.id = 1;
	stable.name = "stable";
	stable.start = T0;
	stable.drain = 30; /* 30 requests in 5 ms: 6,000/s if it were a rate */
	/* Latency up 15 points every 40 intervals: 100, 115, ... 175 % of the start. */
	degrading.id = 2;
	degrading.name = "degrading in steps";
	degrading.start = T0 + 3600000;
	degrading.lat_every = 40;
	degrading.lat_pct0 = 100;
	degrading.lat_step = 15;
	/* Warming up: 160 % of the settled latency, 20 points less every 20 intervals. */
	improving.id = 3;
	improving.name = "warming up";
	improving.start = T0 + 2 * 3600000;
	improving.lat_every = 20;
	improving.lat_pct0 = 160;
	improving.lat_step = -20;
	improving.lat_floor = 100;
	/* Twelve steady intervals: four a third, ten needed. */
	little.id = 4;
	little.name = "too short";
	little.start = T0 + 3 * 3600000;
	little.steady = 12;
	/* The degrading run again, on a machine that slowed with it: its probe time rises in
	 * the same steps as the latency. */
	slowed = degrading;
	slowed.id = 5;
	slowed.name = "degrading, machine slowed";
	slowed.start = T0 + 4 * 3600000;

	printf("BEGIN;\n");
	emit_run(&stable);
	emit_run(&degrading);
	emit_run(&improving);
	emit_run(&little);
	/* Stable: the application's CPU flat; the database fills its buffers for four
	 * minutes, then holds at 198 MB (the levels-off case); a cache held at its limit. */
	emit_samples("app", "cpu_pct", stable.start, stable.start + len, 150, 5, 0, "1");
	emit_levels("db", "pss_kb", stable.start, stable.start + len, 12288, 202752, 240000, 200,
		    "1");
	emit_samples("cache", "rss_kb", stable.start, stable.start + len, 258048, 300, 0, "1");
	emit_samples("cache", "mem_limit_kb", stable.start, stable.start + len, 262144, 0, 0, "1");
	/* Degrading: the same CPU for fewer requests (more per request); the database's
	 * memory keeps rising, 512 KB every 5 s. */
	emit_samples("app", "cpu_pct", degrading.start, degrading.start + len, 150, 5, 0, "2");
	emit_samples("db", "pss_kb", degrading.start, degrading.start + len, 204800, 200, 512, "2");
	emit_samples("app", "cpu_pct", improving.start, improving.start + len, 150, 5, 0, "3");
	/* The JVM's young pauses: flat in the stable run, four times longer by the end of the
	 * degrading one. */
	emit_young("app", stable.start, stable.start + len, 8000, 0, "1");
	emit_young("app", degrading.start, degrading.start + len, 8000, 50, "2");
	/* Last, so that the other runs' numbers come from the generator as before. */
	emit_run(&slowed);
	emit_samples("app", "cpu_pct", slowed.start, slowed.start + len, 150, 5, 0, "5");
	/* The machine probe: 180..188 µs on a steady machine; on the slowed one 15 % more
	 * every 40 intervals, as the latency. */
	printf("UPDATE intervals SET probe_us = 180 + (start_ms / %d) %% 9 WHERE run_id < 5;\n", IV);
	printf("UPDATE intervals SET probe_us = (180 + (start_ms / %d) %% 9) * (100 + 15 * "
	       "MAX(0, (start_ms - %" PRId64 ") / %d - 1) / 40) / 100.0 WHERE run_id = 5;\n",
	       IV, slowed.start, IV);
	memory_by_kind(stable.start, degrading.start, len);
	printf("COMMIT;\n");
}

/* One run per NAME=LOG[,LOG...], an hour apart, each long enough for its log. */
static void gc_runs(int argc, char **argv)
{
	struct events gc = {calloc(MAX_EVENTS, sizeof(struct gcp_event)), 0};

	printf("BEGIN;\n");
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		struct run r = {.id = i + 1, .label = "jdk17", .mode = "fixed",
				.connection = "keepalive", .status = "done", .host = "fixture-host",
				.start = T0 + (int64_t)i * 3600000, .levels = {20}, .nlevels = 1,
				.tps_per_user = 10, .cap = 1000, .jitter_pct = 3};
		char run_id[16];
		if (!eq)
			die("gc: expected NAME=LOG[,LOG...]");
		*eq = '\0';
		r.name = argv[i];
		gc.n = 0;
		read_logs(&gc, eq + 1);
		r.steady = (int)((span(&gc) + 2000) / IV) + 1;
		emit_run(&r);
		snprintf(run_id, sizeof run_id, "%d", r.id);
		emit_gc(&gc, "app", r.start + 1000, i % 2 ? run_id : "NULL");
	}
	printf("COMMIT;\n");
	free(gc.ev);
}

/* run_env rows: the generator's facts, then the app's (heap max as given). */
static void emit_env(int run, const char *heap_max)
{
	static const char *const gen[][2] = {
	    {"host", "gen-host"},        {"kernel", "Linux 6.1.0-18-amd64"},
	    {"cpu_model", "Fixture CPU"}, {"cores", "2"},
	    {"cpus", "2"},               {"memory", "7936 MB"},
	    {"soak_version", "0.0.0"},   {"curl_version", "libcurl/7.88.1"},
	    {"threads", "2"},            {"loop", "epoll"},
	    {"nofile", "1024"},          {"ip_local_port_range", "32768-60999"},
	    {"tcp_tw_reuse", "2"},       {"somaxconn", "4096"},
	    {"think_time", "0"},         {"timeout", "30s"},
	    {"server_banner", "Apache-Coyote/1.1"},
	};
	for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
		printf("INSERT INTO run_env VALUES (%d, '', '%s', '%s');\n", run, gen[i][0],
		       gen[i][1]);
	printf("INSERT INTO run_env VALUES (%d, 'app', 'exe', "
	       "'/usr/lib/jvm/java-17-openjdk-amd64/bin/java');\n"
	       "INSERT INTO run_env VALUES (%d, 'app', 'cmdline', '/usr/lib/jvm/java-17-openjdk-"
	       "amd64/bin/java -Xms%s -Xmx%s -XX:+UseG1GC -Dsoak.target=fixture "
	       "org.apache.catalina.startup.Bootstrap start');\n"
	       "INSERT INTO run_env VALUES (%d, 'app', 'jvm_version', '17.0.15+6-Debian-1deb12u1');\n"
	       "INSERT INTO run_env VALUES (%d, 'app', 'gc', 'G1');\n"
	       "INSERT INTO run_env VALUES (%d, 'app', 'heap_max', '%s');\n"
	       "INSERT INTO run_env VALUES (%d, 'app', 'pids', '1');\n",
	       run, run, heap_max, heap_max, run, run, run, heap_max, run);
}

/* Young GCs every 2 s over [from, to) whose heap after GC cycles 60, 70, .. 100 MB: the
 * top exactly on a round tic (a picture that leaves no room above it cuts those points). */
static void emit_gc_sawtooth(const char *source, const char *host, int64_t from, int64_t to,
			     int run)
{
	int64_t k = 0;
	for (int64_t t = from; t < to; t += 2000, k++) {
		int64_t after = (60 + (k % 5) * 10) * 1024;
		printf("INSERT INTO gc_events(source, host, t_ms, uptime_ms, gc_id, kind, cause, "
		       "pause_us, heap_before_kb, heap_after_kb, heap_total_kb, run_id) VALUES "
		       "('%s', '%s', %" PRId64 ", %" PRId64 ", %" PRId64 ", 'young', "
		       "'G1 Evacuation Pause', %" PRId64 ", %" PRId64 ", %" PRId64 ", 262144, %d);\n",
		       source, host, t, t - from + 1000, k, 2000 + below(3000), after + 40960, after,
		       run);
	}
}

/* Each validity code once:
 *   run 1 base, 20 users, 2 min: steady, generator alone on its host; a GC log whose
 *     memory verdict covers 2 min (short_window)
 *   run 2 cand, 20 users, 2 min: 10% more TPS (real); 3% http_5xx (errors); the app on the
 *     generator's host at 95% host CPU (host_saturated); generator CPU 91% of 2 threads
 *     (generator_saturated: busy); heap max 512M against 256M (confounded)
 *   run 3 cand, 30 users, 2 min: TPS falls 30% through the window (not_steady); its
 *     generator busy 56% and waiting for a core 40% (generator_saturated: starved); merged
 *     from agents 4 and 5 whose clocks differ by 900 ms, over a tenth of 5 s (clock_skew)
 *   runs 6, 7 base and cand, 50 users, 3 steady intervals: a comparison on 3 batches
 *     (short_window)
 * Report it with --runs 1,2,3,6,7 (4 and 5 are the agents' own runs). */
static void validity(void)
{
	struct run base = {.id = 1, .name = "base soak 20 users", .label = "base", .mode = "fixed",
			   .connection = "keepalive", .status = "done", .host = "gen-host",
			   .start = T0, .levels = {20}, .nlevels = 1, .steady = 24,
			   .tps_per_user = 10, .cap = 1000, .jitter_pct = 3};
	struct run cand = base, drift = base, b50 = base, c50 = base;
	int64_t end = T0 + 25 * IV;

	cand.id = 2;
	cand.name = "cand soak 20 users";
	cand.label = "cand";
	cand.start = T0 + 3600000;
	cand.tps_per_user = 11;
	cand.err_per_mille = 30;
	cand.err_class = "http_5xx";
	cand.err_sample = "HTTP 503 Service Unavailable";
	drift.id = 3;
	drift.name = "cand soak 30 users, merged";
	drift.label = "cand";
	drift.start = T0 + 2 * 3600000;
	drift.levels[0] = 30;
	drift.steady = 30; /* ten intervals a third: enough for the drift verdict to judge */
	drift.trend_pct = 30;
	b50.id = 6;
	b50.name = "base 50 users, short";
	b50.start = T0 + 3 * 3600000;
	b50.levels[0] = 50;
	b50.steady = 3;
	c50 = b50;
	c50.id = 7;
	c50.name = "cand 50 users, short";
	c50.label = "cand";
	c50.start = T0 + 4 * 3600000;
	c50.tps_per_user = 11;

	printf("BEGIN;\n");
	emit_run(&base);
	emit_run(&cand);
	emit_run(&drift);
	emit_run(&b50);
	emit_run(&c50);
	printf("UPDATE intervals SET gen_cpu_pct = 25 + (start_ms / 5000) %% 4, gen_wait_pct = 1, "
	       "lag_p99_us = 400 WHERE run_id NOT IN (2, 3);\n"
	       "UPDATE intervals SET gen_cpu_pct = 90 + (start_ms / 5000) %% 3, gen_wait_pct = 5, "
	       "lag_p99_us = 600 WHERE run_id = 2;\n"
	       "UPDATE intervals SET gen_cpu_pct = 55 + (start_ms / 5000) %% 3, gen_wait_pct = 40, "
	       "lag_p99_us = 700 WHERE run_id = 3;\n");
	/* The agents whose runs were merged into run 3. */
	for (int a = 0; a < 2; a++)
		printf("INSERT INTO runs(id, uuid, name, label, mode, connection, host, status, "
		       "interval_ms, started_ms, ended_ms, merged_into, clock_offset_ms) VALUES "
		       "(%d, 'fixture-agent-%d', 'cand soak 30 users, agent %d', 'cand', 'fixed', "
		       "'keepalive', 'agent-%d', 'done', %d, %" PRId64 ", %" PRId64 ", 3, %d);\n",
		       4 + a, a, a + 1, a + 1, IV, drift.start, drift.start + 25 * IV, a ? 900 : 0);
	emit_env(1, "256M");
	emit_env(2, "512M");
	emit_env(3, "512M");
	emit_env(6, "256M");
	emit_env(7, "512M");
	/* Run 1: the app on its own host, the generator's host at 40%. */
	emit_samples("app", "cpu_pct", base.start, end, 120, 10, 0, "1");
	printf("UPDATE samples SET host = 'app-host' WHERE source = 'app';\n");
	emit_samples("host", "cpu_user_pct", base.start, end, 30, 3, 0, "1");
	emit_samples("host", "cpu_sys_pct", base.start, end, 10, 1, 0, "1");
	emit_gc_sawtooth("app", "app-host", base.start + 5000, end, 1);
	/* Run 2: the app beside the generator, the host at 95%. */
	emit_samples("app", "cpu_pct", cand.start, cand.start + 25 * IV, 110, 10, 0, "2");
	emit_samples("host", "cpu_user_pct", cand.start, cand.start + 25 * IV, 80, 2, 0, "2");
	emit_samples("host", "cpu_sys_pct", cand.start, cand.start + 25 * IV, 15, 1, 0, "2");
	printf("UPDATE samples SET host = 'gen-host' WHERE host = 'fixture-host';\n");
	printf("COMMIT;\n");
}

/* A study whose warm-up runs come first and outnumber the runs the report draws pictures
 * of (RPT_MAX_RUN_PICTURES, 40): two targets, 22 warm-up runs each, then three rounds of
 * one compared run each, a run every 25 s. */
static void warmup_study(void)
{
	struct run r = {.mode = "fixed", .connection = "keepalive", .status = "done",
			.host = "fixture-host", .levels = {10}, .nlevels = 1, .steady = 3,
			.tps_per_user = 10, .cap = 1000, .jitter_pct = 3};
	const int nwarm = 44, nruns = 50;

	printf("BEGIN;\n");
	printf("INSERT INTO studies(id, uuid, name, order_kind, rounds, warmup_runs, keep_running, "
	       "targets, slots, status, started_ms, ended_ms) VALUES (1, 'fixture-study', "
	       "'warm-ups first', 'interleaved', 3, 22, 1, 'a,b', 6, 'done', %" PRId64
	       ", %" PRId64 ");\n",
	       T0, T0 + (int64_t)nruns * 5 * IV);
	for (int k = 0; k < nruns; k++) {
		int warm = k < nwarm, m = k - nwarm;
		char slot[16];
		r.id = k + 1;
		r.label = k % 2 ? "b" : "a";
		r.name = warm ? "warm-up" : "compared";
		r.start = T0 + (int64_t)k * 5 * IV;
		emit_run(&r);
		snprintf(slot, sizeof slot, warm ? "NULL" : "%d", m + 1);
		printf("INSERT INTO study_runs(run_id, study_id, seq, slot, round, position, target, "
		       "warmup) VALUES (%d, 1, %d, %s, %d, %d, '%s', %d);\n",
		       r.id, k + 1, slot, warm ? 1 : m / 2 + 1, warm ? 0 : m % 2 + 1, r.label, warm);
	}
	printf("COMMIT;\n");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "warmups")) {
		warmup_study();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "validity")) {
		validity();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "golden")) {
		golden(argv[2], argv[3]);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "drift")) {
		drift_runs();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "gc")) {
		gc_runs(argc - 2, argv + 2);
		return 0;
	}
	fprintf(stderr, "usage: report_fixture golden STABLE.log LEAK.log | gc NAME=LOG[,LOG]... | "
			"validity | drift | warmups\n");
	return 2;
}
