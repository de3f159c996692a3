/* recorder: what soak run writes into the results database (recorder.h): one transaction
 * per call, so a crash loses at most the interval in flight; every text it stores goes
 * through its role's redaction (dbroles.h) with the run's own names. */
#include "recorder.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "dbroles.h"
#include "dur.h"
#include "hdr.h"
#include "procinfo.h"
#include "redact.h"

/* The statements every interval and event reuse, on r->db. */
static int prepare(struct recorder *r, char *err, size_t errlen)
{
	r->gen_cpus_busy_pct = NAN;
	if (gethostname(r->host, sizeof r->host) < 0)
		snprintf(r->host, sizeof r->host, "localhost");
	r->host[sizeof r->host - 1] = '\0';
	if (db_prepare(r->db, &r->ins_interval,
	               "INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, "
	               "requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, p50_us, "
	               "p90_us, p95_us, p99_us, p999_us, max_us, hist, dropped, svc_mean_us, "
	               "svc_p50_us, svc_p99_us, lag_p99_us, lag_max_us, svc_hist, lag_hist, "
	               "gen_cpu_pct, gen_saturated, gen_wait_pct, probe_us, gen_cpus_busy_pct) "
	               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	               err, errlen) < 0 ||
	    db_prepare(
	        r->db, &r->ins_error,
	        "INSERT INTO interval_errors(run_id, step_idx, start_ms, class, count, sample) "
	        "VALUES(?,?,?,?,?,?)",
	        err, errlen) < 0 ||
	    db_prepare(r->db, &r->heartbeat, "UPDATE runs SET heartbeat_ms = ? WHERE id = ?", err,
	               errlen) < 0 ||
	    db_prepare(r->db, &r->ins_event,
	               "INSERT OR IGNORE INTO events(source, host, t_ms, kind, detail, run_id) "
	               "VALUES(?,?,?,?,?,?)",
	               err, errlen) < 0) {
		rec_close(r);
		return -1;
	}
	return 0;
}

int rec_open(struct recorder *r, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (db_open(path, DB_CREATE, &r->db, err, errlen) < 0)
		return -1;
	r->own_db = 1;
	/* The runner writes a row per interval and reads nothing back: a small page cache
	 * keeps its memory flat over a 72-hour run (the default grows to about 2 MB). */
	sqlite3_exec(r->db, "PRAGMA cache_size = -256", NULL, NULL, NULL);
	return prepare(r, err, errlen);
}

int rec_attach(struct recorder *r, sqlite3 *db, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->db = db;
	return prepare(r, err, errlen);
}

void rec_close(struct recorder *r)
{
	sqlite3_finalize(r->ins_interval);
	sqlite3_finalize(r->ins_error);
	sqlite3_finalize(r->heartbeat);
	sqlite3_finalize(r->ins_event);
	if (r->own_db)
		db_close(r->db);
	memset(r, 0, sizeof *r);
}

/* Runs a prepared statement to completion and resets it. */
static int step_done(struct recorder *r, sqlite3_stmt *st, const char *what, char *err,
                     size_t errlen)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return db_done(r->db, rc, what, err, errlen);
}

static void random_hex(char *out, size_t bytes)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char buf[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (bytes > sizeof buf)
		bytes = sizeof buf;
	if (fd >= 0) {
		ssize_t n = read(fd, buf, bytes);
		got = n > 0 ? (size_t)n : 0;
		close(fd);
	}
	for (size_t i = got; i < bytes; i++) /* no urandom: still unique enough per host */
		buf[i] = (unsigned char)((uint64_t)clock_mono_ns() >> (i % 8 * 8)) ^
		         (unsigned char)getpid();
	for (size_t i = 0; i < bytes; i++) {
		out[2 * i] = hex[buf[i] >> 4];
		out[2 * i + 1] = hex[buf[i] & 15];
	}
	out[2 * bytes] = '\0';
}

/* ?1 and ?2 of a statement about a step's rows: this run, and the step (its index). */
static void bind_step(const struct recorder *r, sqlite3_stmt *st, int idx)
{
	sqlite3_bind_int64(st, 1, r->run_id);
	sqlite3_bind_int(st, 2, idx);
}

/* Text or NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

/* Texts (or NULLs) v[0..n) into the parameters from i on, in the statement's order. */
static void bind_texts(sqlite3_stmt *st, int i, const char *const *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		bind_text(st, i + (int)k, v[k]);
}

int rec_run_insert(struct recorder *r, const struct rec_run *run, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char uuid[33];
	int rc;
	/* The text columns from 2 on and from 13 on, in the statement's order. */
	const char *const at2[] = {
	    run->name,       run->label, run->scenario_file,
	    run->scenario,   run->mode,  run->protocol ? run->protocol : "http",
	    run->connection, run->url,   run->host};
	const char *const at13[] = {run->boot_id, run->soak_version, run->curl_version,
	                            run->status ? run->status : "running"};

	/* A row whose uuid is there already stays as it is (a merged run folded again). */
	if (db_prepare(
	        r->db, &st,
	        "INSERT INTO runs(uuid, name, label, scenario_file, scenario, mode, protocol, "
	        "connection, url, host, pid, pid_start, boot_id, soak_version, curl_version, "
	        "status, interval_ms, started_ms, ended_ms, heartbeat_ms, model, arrival, "
	        "max_in_flight, max_lag_ms, origin, agent_group, agent_seq, agent_count) "
	        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
	        "ON CONFLICT(uuid) DO NOTHING",
	        err, errlen) < 0)
		return -1;
	if (!run->uuid)
		random_hex(uuid, 16);
	sqlite3_bind_text(st, 1, run->uuid ? run->uuid : uuid, -1, SQLITE_TRANSIENT);
	bind_texts(st, 2, at2, sizeof at2 / sizeof at2[0]);
	if (run->pid > 0) {
		sqlite3_bind_int64(st, 11, run->pid);
		sqlite3_bind_int64(st, 12, run->pid_start);
	}
	bind_texts(st, 13, at13, sizeof at13 / sizeof at13[0]);
	sqlite3_bind_int64(st, 17, run->interval_ms);
	sqlite3_bind_int64(st, 18, run->started_ms);
	if (run->ended_ms > 0)
		sqlite3_bind_int64(st, 19, run->ended_ms);
	sqlite3_bind_int64(st, 20, run->heartbeat_ms);
	bind_text(st, 21, run->model ? run->model : "closed");
	if (run->arrival) {
		sqlite3_bind_text(st, 22, run->arrival, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 23, run->max_in_flight);
		sqlite3_bind_int64(st, 24, run->max_lag_ms);
	}
	bind_text(st, 25, run->origin);
	if (run->agent_group) {
		sqlite3_bind_text(st, 26, run->agent_group, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 27, run->agent_seq);
		sqlite3_bind_int(st, 28, run->agent_count);
	}
	if (db_finish(r->db, st, "cannot record the run", err, errlen) < 0)
		return -1;
	if (sqlite3_changes(r->db) == 1) {
		r->run_id = sqlite3_last_insert_rowid(r->db);
		return 0;
	}
	if (db_prepare(r->db, &st, "SELECT id FROM runs WHERE uuid = ?", err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, run->uuid ? run->uuid : uuid, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	r->run_id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail(r->db, "cannot find the run", err, errlen);
	return 0;
}

int rec_run_begin(struct recorder *r, const struct scenario *s, const char *curl_version,
                  int64_t started_ms, char *err, size_t errlen)
{
	char boot[64], *url = NULL;
	int open = s->plan.model == PLAN_OPEN, rc;

	r->redact = s->redact;
	if (s->plan.protocol != PLAN_TCP_FRAME && s->plan.nreqs > 0)
		url = redact_text(&s->redact, s->plan.reqs[0].url.text); /* its userinfo and
		                                                          * secret query
		                                                          * parameters redacted */
	struct rec_run run = {
	    .name = s->name,
	    .label = s->label,
	    .scenario_file = s->file,
	    .scenario = s->text,
	    .mode = s->sweep ? "sweep" : "fixed",
	    .protocol = s->plan.protocol == PLAN_TCP_FRAME ? "tcp-frame" : "http",
	    .connection = plan_conn_name(s->plan.connection),
	    .url = s->plan.protocol == PLAN_TCP_FRAME ? s->plan.address : url,
	    .host = r->host,
	    .pid = getpid(),
	    .pid_start = proc_start_ticks(getpid()),
	    .boot_id = boot,
	    .soak_version = SOAK_VERSION,
	    .curl_version = curl_version,
	    .interval_ms = s->interval_ms,
	    .started_ms = started_ms,
	    .heartbeat_ms = started_ms,
	    .model = open ? "open" : "closed",
	    .arrival = !open                             ? NULL
	               : s->plan.arrival == PLAN_POISSON ? "poisson"
	                                                 : "constant",
	    .max_in_flight = s->plan.max_in_flight,
	    .max_lag_ms = s->plan.max_lag_ms,
	};

	proc_boot_id(boot, sizeof boot);
	rc = rec_run_insert(r, &run, err, errlen);
	free(url);
	if (rc < 0)
		return -1;
	r->open = open;
	r->h2 = s->plan.protocol == PLAN_HTTP && s->plan.http == PLAN_HTTP2;
	return 0;
}

int rec_run_resume(struct recorder *r, const struct scenario *s, int64_t run_id,
                   const char *status_was, int64_t heartbeat_was, int64_t gap_from_ms, char *err,
                   size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char boot[64], detail[200], a[32], b[40];
	int64_t now = clock_wall_ms();

	r->redact = s->redact;
	proc_boot_id(boot, sizeof boot);
	if (db_begin(r->db, err, errlen) < 0)
		return -1;
	if (db_prepare(
	        r->db, &st,
	        "UPDATE runs SET status = 'running', reason = NULL, ended_ms = NULL, host = ?, "
	        "pid = ?, pid_start = ?, boot_id = ?, heartbeat_ms = ?, soak_version = ?, "
	        "resumed = resumed + 1 "
	        "WHERE id = ? AND status = ? AND IFNULL(heartbeat_ms, -1) = ?",
	        err, errlen) < 0)
		goto fail;
	sqlite3_bind_text(st, 1, r->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, getpid());
	sqlite3_bind_int64(st, 3, proc_start_ticks(getpid()));
	sqlite3_bind_text(st, 4, boot, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, now);
	sqlite3_bind_text(st, 6, SOAK_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, run_id);
	sqlite3_bind_text(st, 8, status_was, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, heartbeat_was);
	if (db_done(r->db, sqlite3_step(st), "cannot take the run over", err, errlen) < 0)
		goto fail;
	if (sqlite3_changes(r->db) != 1) {
		snprintf(err, errlen,
		         "run %lld changed while it was being resumed (resumed by another "
		         "soak run?)",
		         (long long)run_id);
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	r->run_id = run_id;
	r->open = s->plan.model == PLAN_OPEN;
	r->h2 = s->plan.protocol == PLAN_HTTP && s->plan.http == PLAN_HTTP2;
	if (db_prepare(r->db, &st, "INSERT INTO gaps(run_id, from_ms, to_ms) VALUES(?,?,?)", err,
	               errlen) < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, gap_from_ms);
	sqlite3_bind_int64(st, 3, now);
	if (db_done(r->db, sqlite3_step(st), "cannot record the gap", err, errlen) < 0)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	snprintf(detail, sizeof detail, "no load for %s, until %s: the run was resumed",
	         dur_format((now - gap_from_ms) / 1000 * 1000, a, sizeof a),
	         clock_iso(now, b, sizeof b));
	if (rec_event_at(r, "soak", r->host, gap_from_ms, "gap", detail, err, errlen) < 0)
		goto fail;
	return db_commit(r->db, err, errlen);
fail:
	sqlite3_finalize(st);
	db_rollback(r->db);
	r->run_id = 0;
	return -1;
}

int rec_run_import(struct recorder *r, const struct rec_import *im, char *err, size_t errlen)
{
	/* An imported file's URLs (a JMeter sampler's) and messages may carry a key: redacted,
	 * with the names --redact gave too (they go into the stored text, as a scenario's
	 * redact line, so that what reads the run later knows them). */
	if (im->redact)
		r->redact = *im->redact;
	char names[REDACT_MAX_NAMES * REDACT_NAME_MAX], *text = NULL;
	redact_list(&r->redact, names, sizeof names);
	if (im->description && *names &&
	    asprintf(&text, "%sredact = %s\n", im->description, names) < 0)
		text = NULL;
	char *desc = im->description ? dbroles_shown(&r->redact, "runs", "scenario",
	                                             text ? text : im->description)
	                             : NULL,
	     *url = im->url && *im->url ? dbroles_shown(&r->redact, "runs", "url", im->url) : NULL;
	free(text);
	struct rec_run run = {
	    .name = im->name,
	    .label = im->label,
	    .scenario_file = im->file,
	    .scenario = desc,
	    .mode = im->sweep ? "sweep" : "fixed",
	    .protocol = "http",
	    .connection = im->connection,
	    .url = url,
	    .host = im->host && *im->host ? im->host : "unknown",
	    .soak_version = SOAK_VERSION,
	    .status = "done",
	    .interval_ms = im->interval_ms,
	    .started_ms = im->started_ms,
	    .ended_ms = im->ended_ms,
	    .heartbeat_ms = im->ended_ms,
	    .origin = im->origin,
	};
	int rc = rec_run_insert(r, &run, err, errlen);

	free(desc);
	free(url);
	if (rc < 0)
		return -1;
	r->imported = 1;
	return 0;
}

int rec_step_begin(struct recorder *r, int idx, int concurrency, double rate, int64_t started_ms,
                   int64_t planned_ms, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (db_prepare(r->db, &st,
	               "INSERT INTO steps(run_id, idx, concurrency, started_ms, planned_ms, rate) "
	               "VALUES(?,?,?,?,?,?)",
	               err, errlen) < 0)
		return -1;
	bind_step(r, st, idx);
	sqlite3_bind_int(st, 3, concurrency);
	sqlite3_bind_int64(st, 4, started_ms);
	sqlite3_bind_int64(st, 5, planned_ms);
	if (rate > 0)
		sqlite3_bind_double(st, 6, rate);
	return db_finish(r->db, st, "cannot record a step", err, errlen);
}

/* The TLS handshake and HTTP/2 frame columns of an interval (step < 0: start_ms names it)
 * or a step (its idx): the TLS ones when s counts handshakes (a run with https://
 * requests), the HTTP/2 ones in an HTTP/2 run. */
static int rec_tls(struct recorder *r, int step, int64_t start_ms, const struct istats *s,
                   char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct figures f;
	uint8_t *blob = NULL;
	size_t len = 0;
	int rc = -1;

	if (!s->tls && !r->h2)
		return 0;
	istats_figures(s, 1, &f);
	if ((s->tls && hdr_encode(&s->tls_hist, &blob, &len, err, errlen) < 0) ||
	    db_prepare(r->db, &st,
	               step < 0
	                   ? "UPDATE intervals SET tls_full = ?, tls_resumed = ?, "
	                     "tls_mean_us = ?, tls_p50_us = ?, tls_p99_us = ?, tls_hist = ?, "
	                     "h2_rst = ?, h2_goaway = ? WHERE run_id = ? AND start_ms = ?"
	                   : "UPDATE steps SET tls_full = ?, tls_resumed = ?, tls_mean_us = ?, "
	                     "tls_p50_us = ?, tls_p99_us = ?, tls_hist = ?, h2_rst = ?, "
	                     "h2_goaway = ? WHERE run_id = ? AND idx = ?",
	               err, errlen) < 0)
		goto done;
	if (s->tls) {
		sqlite3_bind_int64(st, 1, f.tls_full);
		sqlite3_bind_int64(st, 2, f.tls_resumed);
		sqlite3_bind_blob(st, 6, blob, (int)len, SQLITE_STATIC);
	}
	if (f.tls_full + f.tls_resumed > 0) {
		sqlite3_bind_double(st, 3, f.tls_mean_us);
		sqlite3_bind_int64(st, 4, f.tls_p50_us);
		sqlite3_bind_int64(st, 5, f.tls_p99_us);
	}
	if (r->h2) {
		sqlite3_bind_int64(st, 7, f.h2_rst);
		sqlite3_bind_int64(st, 8, f.h2_goaway);
	}
	sqlite3_bind_int64(st, 9, r->run_id);
	sqlite3_bind_int64(st, 10, step < 0 ? start_ms : step);
	rc = db_done(r->db, sqlite3_step(st), "cannot record the TLS handshakes", err, errlen);
done:
	sqlite3_finalize(st);
	free(blob);
	return rc;
}

/* The histograms an interval or step row binds, encoded: bound SQLITE_STATIC, they live
 * until the statement ran, then row_blobs_free.  NULL: not encoded. */
struct row_blobs {
	uint8_t *hist, *svc, *lag;
};

static void row_blobs_free(struct row_blobs *b)
{
	free(b->hist);
	free(b->svc);
	free(b->lag);
}

/* Binds the figure columns shared by intervals and steps, starting at parameter `at`:
 * requests, errors, bytes, new_conns, connect_us, ttfb_us, mean_us, p50, p90, p95, p99,
 * p999, max, hist (f: istats_figures of s; the histogram encoded into b->hist). */
static int bind_figures(sqlite3_stmt *st, int at, const struct istats *s, const struct figures *f,
                        struct row_blobs *b, char *err, size_t errlen)
{
	size_t len = 0;
	if (hdr_encode(&s->hist, &b->hist, &len, err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, at, f->requests);
	sqlite3_bind_int64(st, at + 1, f->errors);
	sqlite3_bind_int64(st, at + 2, f->bytes);
	sqlite3_bind_int64(st, at + 3, f->new_conns);
	if (s->connect_n)
		sqlite3_bind_double(st, at + 4, f->connect_us);
	if (s->ttfb_n)
		sqlite3_bind_double(st, at + 5, f->ttfb_us);
	if (hdr_total(&s->hist) > 0) {
		sqlite3_bind_double(st, at + 6, f->mean_us);
		sqlite3_bind_int64(st, at + 7, f->p50_us);
		sqlite3_bind_int64(st, at + 8, f->p90_us);
		sqlite3_bind_int64(st, at + 9, f->p95_us);
		sqlite3_bind_int64(st, at + 10, f->p99_us);
		sqlite3_bind_int64(st, at + 11, f->p999_us);
		sqlite3_bind_int64(st, at + 12, f->max_us);
	}
	sqlite3_bind_blob(st, at + 13, b->hist, (int)len, SQLITE_STATIC);
	return 0;
}

/* Binds dropped, the open model's service and lag figures and histograms (when r->open),
 * and the generator's CPU (when r->threads), from parameter `at` (9 parameters): dropped,
 * svc_mean_us, svc_p50_us, svc_p99_us, lag_p99_us, lag_max_us, svc_hist, lag_hist,
 * gen_cpu_pct (the histograms encoded into b->svc and b->lag). */
static int bind_open(const struct recorder *r, sqlite3_stmt *st, int at, const struct istats *s,
                     const struct figures *f, double seconds, struct row_blobs *b, char *err,
                     size_t errlen)
{
	size_t ls = 0, ll = 0;
	sqlite3_bind_int64(st, at, f->dropped);
	if (r->open && s->open) {
		if (hdr_encode(&s->svc, &b->svc, &ls, err, errlen) < 0 ||
		    hdr_encode(&s->lag, &b->lag, &ll, err, errlen) < 0)
			return -1;
		if (hdr_total(&s->svc) > 0) {
			sqlite3_bind_double(st, at + 1, f->svc_mean_us);
			sqlite3_bind_int64(st, at + 2, f->svc_p50_us);
			sqlite3_bind_int64(st, at + 3, f->svc_p99_us);
		}
		if (hdr_total(&s->lag) > 0) {
			sqlite3_bind_int64(st, at + 4, f->lag_p99_us);
			sqlite3_bind_int64(st, at + 5, f->lag_max_us);
		}
		sqlite3_bind_blob(st, at + 6, b->svc, (int)ls, SQLITE_STATIC);
		sqlite3_bind_blob(st, at + 7, b->lag, (int)ll, SQLITE_STATIC);
	}
	if (r->threads > 0 && seconds > 0)
		sqlite3_bind_double(st, at + 8, rec_gen_cpu_pct(s, seconds, r->threads));
	return 0;
}

double rec_gen_cpu_pct(const struct istats *s, double seconds, int threads)
{
	return threads > 0 && seconds > 0 ? 100.0 * (double)s->cpu_ns / (seconds * 1e9 * threads)
	                                  : 0;
}

double rec_gen_wait_pct(const struct istats *s, double seconds, int threads)
{
	return threads > 0 && seconds > 0 ? 100.0 * (double)s->wait_ns / (seconds * 1e9 * threads)
	                                  : 0;
}

int rec_interval_row(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
                     const char *phase, int vus, const struct istats *s, int gen_flags, char *err,
                     size_t errlen)
{
	struct figures f;
	struct row_blobs b = {0};
	double secs = (double)length_ms / 1000.0;
	int rc = -1;

	istats_figures(s, secs, &f);
	bind_step(r, r->ins_interval, step_idx);
	sqlite3_bind_int64(r->ins_interval, 3, start_ms);
	sqlite3_bind_int64(r->ins_interval, 4, length_ms);
	sqlite3_bind_text(r->ins_interval, 5, phase, -1, SQLITE_STATIC);
	sqlite3_bind_int(r->ins_interval, 6, vus);
	if (bind_figures(r->ins_interval, 7, s, &f, &b, err, errlen) < 0 ||
	    bind_open(r, r->ins_interval, 21, s, &f, secs, &b, err, errlen) < 0) {
		sqlite3_clear_bindings(r->ins_interval);
		goto done;
	}
	sqlite3_bind_int(r->ins_interval, 30, gen_flags);
	if (r->threads > 0 && secs > 0)
		sqlite3_bind_double(r->ins_interval, 31, rec_gen_wait_pct(s, secs, r->threads));
	if (r->probe_us > 0)
		sqlite3_bind_double(r->ins_interval, 32, r->probe_us);
	r->probe_us = 0;
	if (isfinite(r->gen_cpus_busy_pct))
		sqlite3_bind_double(r->ins_interval, 33, r->gen_cpus_busy_pct);
	r->gen_cpus_busy_pct = NAN;
	if (step_done(r, r->ins_interval, "cannot record an interval", err, errlen) < 0 ||
	    rec_tls(r, -1, start_ms, s, err, errlen) < 0)
		goto done;
	for (int c = 0; c < ERR_NCLASS; c++) {
		if (!s->err_count[c])
			continue;
		bind_step(r, r->ins_error, step_idx);
		sqlite3_bind_int64(r->ins_error, 3, start_ms);
		sqlite3_bind_text(r->ins_error, 4, err_class_name((enum err_class)c), -1,
		                  SQLITE_STATIC);
		sqlite3_bind_int64(r->ins_error, 5, s->err_count[c]);
		/* A sample may quote an answer's body (a token in it) or a URL: redacted. */
		char *sample = dbroles_shown(&r->redact, "interval_errors", "sample", s->err_sample[c]);
		sqlite3_bind_text(r->ins_error, 6, sample ? sample : "", -1, SQLITE_TRANSIENT);
		free(sample);
		if (step_done(r, r->ins_error, "cannot record interval errors", err, errlen) < 0)
			goto done;
	}
	rc = 0;
done:
	row_blobs_free(&b);
	return rc;
}

int rec_interval(struct recorder *r, int step_idx, int64_t start_ms, int64_t length_ms,
                 const char *phase, int vus, const struct istats *s, struct rec_gen *gen, char *err,
                 size_t errlen)
{
	struct figures f;
	double secs = (double)length_ms / 1000.0;
	struct rec_gen g = {0};

	istats_figures(s, secs, &f);
	if (r->threads > 0) {
		g.cpu_pct = rec_gen_cpu_pct(s, secs, r->threads);
		g.wait_pct = rec_gen_wait_pct(s, secs, r->threads);
		if (g.cpu_pct >= REC_GEN_CPU_SATURATED)
			g.flags |= REC_GEN_BUSY;
		else if (g.cpu_pct + g.wait_pct >= REC_GEN_CPU_SATURATED)
			g.flags |= REC_GEN_STARVED;
	}
	if (r->open) {
		g.lag_p99_us = f.lag_p99_us;
		g.lag_max_us = f.lag_max_us;
		if (f.lag_p99_us > REC_GEN_LAG_SATURATED && !g.flags)
			g.flags |= REC_GEN_LATE;
	}
	if (gen)
		*gen = g;

	if (db_begin(r->db, err, errlen) < 0)
		return -1;
	if (rec_interval_row(r, step_idx, start_ms, length_ms, phase, vus, s, g.flags, err,
	                     errlen) < 0)
		goto fail;
	if (!r->imported) {
		sqlite3_bind_int64(r->heartbeat, 1, clock_wall_ms());
		sqlite3_bind_int64(r->heartbeat, 2, r->run_id);
		if (step_done(r, r->heartbeat, "cannot update the heartbeat", err, errlen) < 0)
			goto fail;
	}
	return db_commit(r->db, err, errlen);
fail:
	db_rollback(r->db);
	return -1;
}

int rec_step_end(struct recorder *r, int idx, int64_t window_start_ms, int64_t window_end_ms,
                 const struct istats *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct figures f;
	struct row_blobs b = {0};
	double secs = (double)(window_end_ms - window_start_ms - r->unmeasured_ms) / 1000.0;
	int rc = -1;

	r->unmeasured_ms = 0;
	istats_figures(s, secs, &f);
	if (db_prepare(r->db, &st,
	               "UPDATE steps SET window_start_ms = ?, window_end_ms = ?, tps = ?, "
	               "requests = ?, errors = ?, bytes = ?, new_conns = ?, connect_us = ?, "
	               "ttfb_us = ?, mean_us = ?, p50_us = ?, p90_us = ?, p95_us = ?, p99_us = ?, "
	               "p999_us = ?, max_us = ?, hist = ?, dropped = ?, svc_mean_us = ?, "
	               "svc_p50_us = ?, svc_p99_us = ?, lag_p99_us = ?, lag_max_us = ?, "
	               "svc_hist = ?, lag_hist = ?, gen_cpu_pct = ? WHERE run_id = ? AND idx = ?",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, window_start_ms);
	sqlite3_bind_int64(st, 2, window_end_ms);
	sqlite3_bind_double(st, 3, f.tps);
	if (bind_figures(st, 4, s, &f, &b, err, errlen) < 0 ||
	    bind_open(r, st, 18, s, &f, secs, &b, err, errlen) < 0)
		goto done;
	sqlite3_bind_int64(st, 27, r->run_id);
	sqlite3_bind_int(st, 28, idx);
	if (db_done(r->db, sqlite3_step(st), "cannot record the step's figures", err, errlen) < 0)
		goto done;
	rc = rec_tls(r, idx, 0, s, err, errlen);
done:
	sqlite3_finalize(st);
	row_blobs_free(&b);
	return rc;
}

int rec_threshold(struct recorder *r, int step_idx, const char *metric, const char *unit,
                  double limit, double value, int passed, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (db_prepare(
	        r->db, &st,
	        "INSERT OR REPLACE INTO thresholds(run_id, step_idx, metric, unit, limit_val, "
	        "value, passed) VALUES(?,?,?,?,?,?,?)",
	        err, errlen) < 0)
		return -1;
	bind_step(r, st, step_idx);
	sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, unit, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, limit);
	sqlite3_bind_double(st, 6, value);
	sqlite3_bind_int(st, 7, passed != 0);
	return db_finish(r->db, st, "cannot record a threshold's verdict", err, errlen);
}

int rec_set_mode(struct recorder *r, const char *mode, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (db_prepare(r->db, &st, "UPDATE runs SET mode = ? WHERE id = ?", err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, mode, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, r->run_id);
	return db_finish(r->db, st, "cannot record the run's mode", err, errlen);
}

int rec_set_engine(struct recorder *r, int threads, const char *client, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	r->threads = threads;
	if (db_prepare(r->db, &st, "UPDATE runs SET threads = ?, client = ? WHERE id = ?", err,
	               errlen) < 0)
		return -1;
	sqlite3_bind_int(st, 1, threads);
	sqlite3_bind_text(st, 2, client, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->run_id);
	return db_finish(r->db, st, "cannot record the engine", err, errlen);
}

int rec_event_at(struct recorder *r, const char *source, const char *host, int64_t t_ms,
                 const char *kind, const char *detail, char *err, size_t errlen)
{
	sqlite3_bind_text(r->ins_event, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(r->ins_event, 2, host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(r->ins_event, 3, t_ms);
	sqlite3_bind_text(r->ins_event, 4, kind, -1, SQLITE_STATIC);
	/* A detail may quote a command line or a message that holds a secret. */
	char *shown = dbroles_shown(&r->redact, "events", "detail", detail ? detail : "");
	int rc;
	sqlite3_bind_text(r->ins_event, 5, shown ? shown : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(r->ins_event, 6, r->run_id);
	rc = step_done(r, r->ins_event, "cannot record an event", err, errlen);
	free(shown);
	return rc;
}

int rec_event(struct recorder *r, const char *source, const char *kind, const char *detail,
              char *err, size_t errlen)
{
	return rec_event_at(r, source, r->host, clock_wall_ms(), kind, detail, err, errlen);
}

int rec_run_end(struct recorder *r, const char *status, const char *reason, char *err,
                size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t now = clock_wall_ms();
	if (db_prepare(r->db, &st,
	               "UPDATE runs SET status = ?, reason = ?, ended_ms = ?, heartbeat_ms = ? "
	               "WHERE id = ?",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
	/* A reason quotes what failed: a URL, a server's answer, a command. */
	char *shown = reason ? dbroles_shown(&r->redact, "runs", "reason", reason) : NULL;
	if (shown)
		sqlite3_bind_text(st, 2, shown, -1, SQLITE_TRANSIENT);
	free(shown);
	sqlite3_bind_int64(st, 3, now);
	sqlite3_bind_int64(st, 4, now);
	sqlite3_bind_int64(st, 5, r->run_id);
	return db_finish(r->db, st, "cannot close the run", err, errlen);
}
