/*
 * report_gen — fills a soak database (schema already in place) with one 72-hour fixed run
 * the size `soak report` must handle: 10 s intervals with histograms (25,920 rows), three
 * collector sources of 20 metrics sampled every 5 s (3.1 million rows) and 100,000 GC
 * events.  Histograms are 16 templates encoded once and reused.  For bench/report.sh.
 *   report_gen DB [HOURS]
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdr.h"

#define T0 1767607200000LL
#define IV_MS 10000
#define SAMPLE_MS 5000
#define GC_EVENTS 100000
#define TEMPLATES 16

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "report_gen: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static void exec(sqlite3 *db, const char *sql)
{
	check(sqlite3_exec(db, sql, NULL, NULL, NULL), db, sql);
}

static const char *const proc_metrics[20] = {
	"cpu_pct", "user_pct", "sys_pct", "rss_kb", "vsz_kb", "threads", "fds", "procs",
	"majflt_ps", "ctxsw_vol_ps", "ctxsw_invol_ps", "read_bps", "write_bps", "x_heap_kb",
	"x_gc_ps", "x_q_len", "x_conns", "x_hits", "x_misses", "x_lat_us"};
static const char *const host_metrics[20] = {
	"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_steal_pct", "cpu_idle_pct",
	"load1", "load5", "load15", "mem_used_kb", "mem_avail_kb", "swap_used_kb", "net_rx_bps",
	"net_tx_bps", "tcp_inuse", "tcp_tw", "x_disk_r", "x_disk_w", "x_irq", "x_softirq",
	"x_procs"};

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	uint8_t *blob[TEMPLATES];
	size_t blen[TEMPLATES];
	double mean[TEMPLATES];
	int64_t p50[TEMPLATES], p90[TEMPLATES], p99[TEMPLATES], mx[TEMPLATES];
	char err[128];
	int64_t hours = argc > 2 ? atoll(argv[2]) : 72;
	int64_t span = hours * 3600000, nint = span / IV_MS;

	if (argc < 2 || hours < 1) {
		fprintf(stderr, "usage: report_gen DB [HOURS]\n");
		return 2;
	}
	for (int t = 0; t < TEMPLATES; t++) {
		struct hdr h;
		int64_t sum = 0;
		if (hdr_init_latency(&h, err, sizeof err) < 0)
			return 1;
		for (int i = 0; i < 5000; i++) {
			int64_t v = 15000 + (int64_t)(next() % 20000);
			if (next() % 200 == 0)
				v += (int64_t)(next() % 400000);
			hdr_record(&h, v);
			sum += v;
		}
		if (hdr_encode(&h, &blob[t], &blen[t], err, sizeof err) < 0)
			return 1;
		mean[t] = (double)sum / 5000;
		p50[t] = hdr_value_at_percentile(&h, 50);
		p90[t] = hdr_value_at_percentile(&h, 90);
		p99[t] = hdr_value_at_percentile(&h, 99);
		mx[t] = hdr_max(&h);
		hdr_release(&h);
	}
	check(sqlite3_open(argv[1], &db), db, "open");
	exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN");
	exec(db, "INSERT INTO runs(id, uuid, name, label, mode, connection, host, status, "
		 "interval_ms, started_ms, ended_ms, heartbeat_ms) VALUES (1, 'bench-72h', "
		 "'72 h soak', 'tomcat10', 'fixed', 'keepalive', 'bench-host', 'done', 10000, "
		 "1767607200000, 1767866400000, 1767866400000)");
	{
		char sql[256];
		snprintf(sql, sizeof sql,
			 "INSERT INTO steps(run_id, idx, concurrency, started_ms, window_start_ms, "
			 "window_end_ms, planned_ms) VALUES (1, 0, 50, %lld, %lld, %lld, %lld)",
			 (long long)T0, (long long)(T0 + IV_MS), (long long)(T0 + span),
			 (long long)span);
		exec(db, sql);
		snprintf(sql, sizeof sql, "UPDATE runs SET ended_ms = %lld, heartbeat_ms = %lld",
			 (long long)(T0 + span), (long long)(T0 + span));
		exec(db, sql);
	}
	check(sqlite3_prepare_v2(db,
				 "INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, "
				 "requests, errors, bytes, new_conns, mean_us, p50_us, p90_us, p95_us, "
				 "p99_us, p999_us, max_us, hist) VALUES (1, 0, ?, 10000, ?, 50, 5000, 0, "
				 "600000, 0, ?, ?, ?, ?, ?, ?, ?, ?)",
				 -1, &st, NULL),
	      db, "prepare intervals");
	for (int64_t i = 0; i < nint; i++) {
		int t = (int)(next() % TEMPLATES);
		sqlite3_bind_int64(st, 1, T0 + i * IV_MS);
		sqlite3_bind_text(st, 2, i == 0 ? "warmup" : "steady", -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, mean[t]);
		sqlite3_bind_int64(st, 4, p50[t]);
		sqlite3_bind_int64(st, 5, p90[t]);
		sqlite3_bind_int64(st, 6, p90[t]);
		sqlite3_bind_int64(st, 7, p99[t]);
		sqlite3_bind_int64(st, 8, mx[t]);
		sqlite3_bind_int64(st, 9, mx[t]);
		sqlite3_bind_blob(st, 10, blob[t], (int)blen[t], SQLITE_STATIC);
		check(sqlite3_step(st), db, "insert interval");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	check(sqlite3_prepare_v2(db, "INSERT INTO samples VALUES (?, 'bench-host', ?, ?, ?, 1)", -1,
				 &st, NULL),
	      db, "prepare samples");
	for (int s = 0; s < 3; s++) {
		const char *src = s == 0 ? "app" : s == 1 ? "db" : "host";
		const char *const *m = s == 2 ? host_metrics : proc_metrics;
		for (int k = 0; k < 20; k++)
			for (int64_t t = T0; t < T0 + span; t += SAMPLE_MS) {
				double v = (double)(next() % 10000) / 100.0;
				if (!strcmp(m[k], "rss_kb"))
					v = 500000 + (double)(next() % 1000);
				sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
				sqlite3_bind_text(st, 2, m[k], -1, SQLITE_STATIC);
				sqlite3_bind_int64(st, 3, t);
				sqlite3_bind_double(st, 4, v);
				check(sqlite3_step(st), db, "insert sample");
				sqlite3_reset(st);
			}
	}
	sqlite3_finalize(st);
	check(sqlite3_prepare_v2(db,
				 "INSERT INTO gc_events(source, host, t_ms, gc_id, kind, cause, pause_us, "
				 "heap_before_kb, heap_after_kb, heap_total_kb, run_id) VALUES ('app', "
				 "'bench-host', ?, ?, ?, 'Allocation Failure', ?, ?, ?, 4194304, 1)",
				 -1, &st, NULL),
	      db, "prepare gc");
	for (int64_t i = 0; i < GC_EVENTS; i++) {
		int full = i % 1000 == 999;
		int64_t after = 1000000 + (int64_t)(next() % 200000) + (full ? 0 : 800000);
		sqlite3_bind_int64(st, 1, T0 + i * span / GC_EVENTS);
		sqlite3_bind_int64(st, 2, i);
		sqlite3_bind_text(st, 3, full ? "full" : "young", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, full ? 300000 + (int64_t)(next() % 200000)
					       : 5000 + (int64_t)(next() % 40000));
		sqlite3_bind_int64(st, 5, after + 2000000);
		sqlite3_bind_int64(st, 6, after);
		check(sqlite3_step(st), db, "insert gc event");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	exec(db, "COMMIT");
	sqlite3_close(db);
	for (int t = 0; t < TEMPLATES; t++)
		free(blob[t]);
	return 0;
}
