/* results: a run's windows and status read back (results.h): a window's percentiles come
 * from merging its intervals' histograms, never from averaging percentiles.  Read-only. */
#include "results.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "hdr.h"
#include "dbroles.h"
#include "procinfo.h"
#include "redact.h"

int res_add_row(sqlite3_stmt *st, sqlite3_stmt *es, int64_t run_id, const struct redact *rd,
                struct istats *into, char *err, size_t errlen)
{
	struct istats one;
	const void *blob = sqlite3_column_blob(st, 9);
	int len = sqlite3_column_bytes(st, 9);
	int64_t answered;

	memset(&one, 0, sizeof one);
	if (blob && len > 0) {
		char e2[256];
		if (hdr_decode(blob, (size_t)len, &one.hist, e2, sizeof e2) < 0) {
			snprintf(err, errlen, "run %lld, interval at %lld: bad histogram: %s",
			         (long long)run_id, (long long)sqlite3_column_int64(st, 0), e2);
			return -1;
		}
	}
	/* The open model's service and lag histograms (columns 10 and 11, svc_mean_us 12),
	 * when the caller wants them and the query has them. */
	if (into->open && sqlite3_column_count(st) > 12) {
		for (int k = 0; k < 2; k++) {
			const void *b = sqlite3_column_blob(st, 10 + k);
			int bl = sqlite3_column_bytes(st, 10 + k);
			char e2[256];
			if (!b || bl <= 0)
				continue;
			if (hdr_decode(b, (size_t)bl, k ? &one.lag : &one.svc, e2, sizeof e2) < 0) {
				snprintf(
				    err, errlen, "run %lld, interval at %lld: bad histogram: %s",
				    (long long)run_id, (long long)sqlite3_column_int64(st, 0), e2);
				hdr_release(&one.hist);
				hdr_release(&one.svc);
				return -1;
			}
		}
		one.open = one.svc.counts_len > 0 && one.lag.counts_len > 0;
		one.svc_sum_us =
		    (int64_t)(sqlite3_column_double(st, 12) * (double)hdr_total(&one.svc) + 0.5);
	}
	answered = hdr_total(&one.hist);
	one.requests = sqlite3_column_int64(st, 2);
	one.errors = sqlite3_column_int64(st, 3);
	one.bytes = sqlite3_column_int64(st, 4);
	one.new_conns = sqlite3_column_int64(st, 5);
	/* Means were stored per interval: weight them back into sums. */
	one.connect_n = sqlite3_column_type(st, 6) == SQLITE_NULL ? 0 : one.new_conns;
	one.connect_sum_us = (int64_t)(sqlite3_column_double(st, 6) * (double)one.connect_n + 0.5);
	one.ttfb_n = sqlite3_column_type(st, 7) == SQLITE_NULL ? 0 : answered;
	one.ttfb_sum_us = (int64_t)(sqlite3_column_double(st, 7) * (double)one.ttfb_n + 0.5);
	one.lat_sum_us = (int64_t)(sqlite3_column_double(st, 8) * (double)answered + 0.5);
	if (one.errors > 0) {
		sqlite3_bind_int64(es, 1, run_id);
		sqlite3_bind_int64(es, 2, sqlite3_column_int64(st, 0));
		while (sqlite3_step(es) == SQLITE_ROW) {
			int c = err_class_parse(db_col_text(es, 0));
			if (c < 0)
				c = ERR_OTHER;
			const char *sample = db_col_text(es, 2);
			if (one.err_count[c] == 0 && sample) { /* an older file's, as stored */
				char *red = dbroles_shown(rd, "interval_errors", "sample", sample);
				snprintf(one.err_sample[c], ERR_SAMPLE_LEN, "%s", red ? red : "");
				free(red);
			}
			one.err_count[c] += sqlite3_column_int64(es, 1);
		}
		sqlite3_reset(es);
	}
	istats_add(into, &one);
	hdr_release(&one.hist);
	hdr_release(&one.svc);
	hdr_release(&one.lag);
	return 0;
}

int res_collect(sqlite3 *db, const struct res_window *w, struct istats *into, double *seconds,
                int *n, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL, *es = NULL;
	int rc = -1, step;

	*seconds = 0;
	*n = 0;
	if (db_prepare(
	        db, &st,
	        "SELECT start_ms, length_ms, requests, errors, bytes, new_conns, connect_us, "
	        "ttfb_us, mean_us, hist, svc_hist, lag_hist, svc_mean_us FROM intervals "
	        "WHERE run_id = ?1 "
	        "AND start_ms >= ?4 AND start_ms < ?5 "
	        "AND (?2 < 0 OR step_idx = ?2) AND (?3 IS NULL OR phase = ?3) ORDER BY start_ms",
	        err, errlen) < 0 ||
	    db_prepare(db, &es,
	               "SELECT class, count, sample FROM interval_errors WHERE run_id = ? AND "
	               "start_ms = ?",
	               err, errlen) < 0)
		goto done;
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int(st, 2, w->step_idx);
	if (w->phase)
		sqlite3_bind_text(st, 3, w->phase, -1, SQLITE_STATIC);
	/* Plain bounds (no "no bound" test in SQL) let SQLite use the primary key's range. */
	sqlite3_bind_int64(st, 4, w->from_ms < 0 ? INT64_MIN : w->from_ms);
	sqlite3_bind_int64(st, 5, w->to_ms < 0 ? INT64_MAX : w->to_ms);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		*seconds += (double)sqlite3_column_int64(st, 1) / 1000.0;
		if (res_add_row(st, es, w->run_id, w->redact, into, err, errlen) < 0)
			goto done;
		(*n)++;
	}
	rc = db_done(db, step, "cannot read intervals", err, errlen);
done:
	sqlite3_finalize(st);
	sqlite3_finalize(es);
	return rc;
}

void res_runner_read(sqlite3_stmt *q, int i, struct res_runner *r)
{
	db_col_copy(q, i, r->host, sizeof r->host);
	r->pid = sqlite3_column_int64(q, i + 1);
	r->pid_start = sqlite3_column_int64(q, i + 2);
	db_col_copy(q, i + 3, r->boot, sizeof r->boot);
	r->heartbeat = sqlite3_column_int64(q, i + 4);
}

const char *res_status(const char *stored, const char *host, int64_t pid, int64_t pid_start,
                       const char *boot_id, int64_t heartbeat_ms, int64_t interval_ms,
                       int64_t now_ms)
{
	char me[256], boot[64];

	if (!stored || strcmp(stored, "running") != 0)
		return stored ? stored : "unknown";
	if (gethostname(me, sizeof me) == 0 && host && strcmp(me, host) == 0) {
		proc_boot_id(boot, sizeof boot);
		if (boot_id && *boot_id && *boot && strcmp(boot, boot_id) != 0)
			return "crashed"; /* the machine rebooted since */
		return proc_alive((pid_t)pid, pid_start) ? "running" : "crashed";
	}
	if (interval_ms < 1000)
		interval_ms = 1000;
	return now_ms - heartbeat_ms > 3 * interval_ms ? "crashed" : "running";
}
