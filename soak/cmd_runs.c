/*
 * soak runs — lists the runs of a database with their figures; --json for pipelines.
 * Figures cover each step's measured window (steady intervals), merged from the stored
 * interval histograms, so they are right for runs that crashed before writing a step row.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "clock.h"
#include "cmd.h"
#include "db.h"
#include "dur.h"
#include "report/report.h"
#include "store/results.h"

/* `"key": number` with fixed decimals, as printf writes it. */
static void jfixed(struct jsonw *w, const char *key, double v, int decimals)
{
	jsonw_key(w, key);
	jsonw_fmt(w, "%.*f", decimals, v);
}

/* The figures of a window; duration_s is the run's length for a run, the measured window
 * for a step. */
static void json_figures(struct jsonw *w, const struct figures *g, double duration_s)
{
	jfixed(w, "duration_s", duration_s, 3);
	jfixed(w, "window_s", g->seconds, 3);
	jsonw_mint(w, "requests", g->requests);
	jsonw_mint(w, "errors", g->errors);
	jfixed(w, "error_pct", g->error_pct, 4);
	jfixed(w, "tps", g->tps, 3);
	jfixed(w, "mean_ms", g->mean_us / 1000, 3);
	jfixed(w, "p50_ms", (double)g->p50_us / 1000, 3);
	jfixed(w, "p90_ms", (double)g->p90_us / 1000, 3);
	jfixed(w, "p95_ms", (double)g->p95_us / 1000, 3);
	jfixed(w, "p99_ms", (double)g->p99_us / 1000, 3);
	jfixed(w, "max_ms", (double)g->max_us / 1000, 3);
	jsonw_mint(w, "new_connections", g->new_conns);
}

/* The open model's figures and the generator's own CPU (null where they do not apply). */
static void json_open(struct jsonw *w, int open, const struct figures *g, double gen_cpu)
{
	if (open) {
		jsonw_mint(w, "dropped", g->dropped);
		jfixed(w, "service_p50_ms", (double)g->svc_p50_us / 1000, 3);
		jfixed(w, "service_p99_ms", (double)g->svc_p99_us / 1000, 3);
		jfixed(w, "lag_p99_ms", (double)g->lag_p99_us / 1000, 3);
	} else {
		jsonw_mint(w, "dropped", 0);
		jsonw_mnull(w, "service_p50_ms");
		jsonw_mnull(w, "service_p99_ms");
		jsonw_mnull(w, "lag_p99_ms");
	}
	if (isnan(gen_cpu))
		jsonw_mnull(w, "gen_cpu_pct");
	else
		jfixed(w, "gen_cpu_pct", gen_cpu, 2);
}

/* The generator's CPU over a window's steady intervals (% of its engine threads), NAN when
 * not recorded. */
static double window_gen_cpu(sqlite3 *db, int64_t run, int step)
{
	sqlite3_stmt *q = NULL;
	double v = NAN;
	char err[256];
	if (db_prepare(db, &q,
	               "SELECT sum(gen_cpu_pct * length_ms) / sum(length_ms) FROM intervals "
	               "WHERE run_id = ? AND (? < 0 OR step_idx = ?) AND phase = 'steady' "
	               "AND gen_cpu_pct IS NOT NULL",
	               err, sizeof err) < 0)
		return NAN;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, step);
	sqlite3_bind_int(q, 3, step);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		v = sqlite3_column_double(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* Figures of a window; 0 or -1 with err. */
static int window_figures(sqlite3 *db, int64_t run, int step, int open, struct figures *out,
                          char *err, size_t errlen)
{
	struct istats st;
	struct res_window w = {
	    .run_id = run, .step_idx = step, .phase = "steady", .from_ms = -1, .to_ms = -1};
	double secs;
	int n, rc;

	if ((open ? istats_init_open(&st, err, errlen) : istats_init(&st, err, errlen)) < 0)
		return -1;
	rc = res_collect(db, &w, &st, &secs, &n, err, errlen);
	if (rc == 0)
		istats_figures(&st, secs, out);
	istats_release(&st);
	return rc;
}

/* The verdict of a run's thresholds: {"checks": [...], "pass": true|false|null}; pass is
 * null when no threshold was checked (none set, or no step finished).  Each check after
 * the break `item`. */
static int json_thresholds(sqlite3_stmt *ts, int64_t id, struct jsonw *w, const char *item,
                           char *err, size_t errlen)
{
	int n = 0, failed = 0, step;

	jsonw_key(w, "thresholds");
	jsonw_obj(w);
	jsonw_key(w, "checks");
	jsonw_arr(w);
	sqlite3_bind_int64(ts, 1, id);
	while ((step = sqlite3_step(ts)) == SQLITE_ROW) {
		int passed = sqlite3_column_int(ts, 5);
		jsonw_br(w, item);
		jsonw_obj(w);
		jsonw_mint(w, "step", sqlite3_column_int(ts, 0) + 1);
		jsonw_mstr(w, "metric", db_col_text(ts, 1));
		jsonw_mstr(w, "unit", db_col_text(ts, 2));
		jsonw_key(w, "limit");
		jsonw_fmt(w, "%.6g", sqlite3_column_double(ts, 3));
		jsonw_key(w, "value");
		jsonw_fmt(w, "%.6g", sqlite3_column_double(ts, 4));
		jsonw_key(w, "pass");
		jsonw_bool(w, passed);
		jsonw_end(w);
		failed |= !passed;
		n++;
	}
	sqlite3_reset(ts);
	if (db_done(sqlite3_db_handle(ts), step, "cannot read thresholds", err, errlen) < 0)
		return -1;
	jsonw_end(w);
	jsonw_key(w, "pass");
	if (n == 0)
		jsonw_null(w);
	else
		jsonw_bool(w, !failed);
	jsonw_end(w);
	return 0;
}

/* One row of the runs query, as listed (its text valid until the query's next step). */
struct run_row {
	int64_t id;
	const char *label, *name, *mode, *connection, *origin;
	const char *status;     /* as judged now: a run whose process is gone is crashed */
	int64_t started, ended; /* wall-clock ms; ended: now for a running run, else the last
	                         * heartbeat when it was never closed */
	int64_t gap_ms;         /* time without load between a stop and its resumption */
	int resumed;            /* times resumed */
	int open;               /* the open model */
	int agent;              /* an agent's own run: agent_k of agent_n */
	int merged;             /* a merged run: agent_m of agent_n agents took part */
	int agent_k, agent_n, agent_m;
	char agents[32]; /* the table's agents column */
};

static void read_row(sqlite3_stmt *st, int64_t now, struct run_row *r)
{
	int64_t hb = sqlite3_column_int64(st, 8);

	r->id = sqlite3_column_int64(st, 0);
	r->label = db_col_text(st, 1);
	r->mode = db_col_text(st, 2);
	r->name = db_col_text(st, 12);
	r->connection = db_col_text(st, 13);
	r->origin = db_col_text(st, 18);
	r->started = sqlite3_column_int64(st, 10);
	r->status = res_status(db_col_text(st, 3), db_col_text(st, 4), sqlite3_column_int64(st, 5),
	                       sqlite3_column_int64(st, 6), db_col_text(st, 7), hb,
	                       sqlite3_column_int64(st, 9), now);
	r->ended = sqlite3_column_type(st, 11) == SQLITE_NULL
	               ? (!strcmp(r->status, "running") ? now : hb)
	               : sqlite3_column_int64(st, 11);
	r->resumed = sqlite3_column_int(st, 19);
	r->gap_ms = sqlite3_column_int64(st, 20);
	r->open = !strcmp(db_col_text(st, 17), "open");
	r->agent = sqlite3_column_type(st, 14) != SQLITE_NULL;
	r->merged = sqlite3_column_type(st, 16) != SQLITE_NULL;
	r->agent_k = sqlite3_column_int(st, 14);
	r->agent_n = sqlite3_column_int(st, 15);
	r->agent_m = sqlite3_column_int(st, 16);
	/* merged: how many took part (of how many planned); an agent's own: K/N */
	snprintf(r->agents, sizeof r->agents, "-");
	if (r->agent)
		snprintf(r->agents, sizeof r->agents, "#%d/%d", r->agent_k, r->agent_n);
	else if (r->merged && r->agent_m == r->agent_n)
		snprintf(r->agents, sizeof r->agents, "%d", r->agent_m);
	else if (r->merged)
		snprintf(r->agents, sizeof r->agents, "%d/%d", r->agent_m, r->agent_n);
}

/* A run as a line of the table; a resumed run's note goes to notes (under the table). */
static void table_row(const struct run_row *r, const struct figures *all, FILE *notes)
{
	char iso[40], len[32], p99[32], st_text[16];

	clock_iso(r->started, iso, sizeof iso);
	iso[19] = '\0';
	iso[10] = ' ';
	/* A resumed run's status is starred; a note under the table says more. */
	snprintf(st_text, sizeof st_text, "%s%s", r->status, r->resumed ? "*" : "");
	if (r->resumed && notes)
		fprintf(notes,
		        "* run %lld was resumed %d time%s (soak run --resume): %s "
		        "without load, left out of every figure\n",
		        (long long)r->id, r->resumed, r->resumed == 1 ? "" : "s",
		        dur_format(r->gap_ms / 1000 * 1000, len, sizeof len));
	printf("%4lld  %-16.16s %-6s %-11s %-20s %9s %10lld %9.1f %9s %7.2f %7s\n",
	       (long long)r->id, r->label, r->mode, st_text, iso,
	       dur_format((r->ended - r->started - r->gap_ms) / 1000 * 1000, len, sizeof len),
	       (long long)all->requests, all->tps,
	       all->requests ? dur_format_us((double)all->p99_us, p99, sizeof p99) : "-",
	       all->error_pct, r->agents);
}

/* What the JSON listing reads beside the runs query. */
struct json_list {
	sqlite3 *db;
	sqlite3_stmt *ss; /* a run's steps: idx, concurrency, rate */
	sqlite3_stmt *ts; /* a run's thresholds */
	struct jsonw w;   /* on stdout */
	const char *run;  /* the break before a run of the list */
	const char *item; /* the break before a step or threshold of a run */
	/* each run's drift verdict, read and judged by the report's own code (rpt_read of
	 * that one run), so the two always agree */
	struct report *rr; /* rpt_new on the first run */
	struct rpt_opts ro;
	char idbuf[32]; /* ro.runs: the run's id */
};

/* The target rate: the first step's (a sweep's steps carry their own); NAN: none. */
static double first_rate(sqlite3_stmt *ss, int64_t id)
{
	double rate = NAN;

	sqlite3_bind_int64(ss, 1, id);
	if (sqlite3_step(ss) == SQLITE_ROW && sqlite3_column_type(ss, 2) != SQLITE_NULL)
		rate = sqlite3_column_double(ss, 2);
	sqlite3_reset(ss);
	return rate;
}

/* The "steps" list of a run's object, each step's drift verdict with it. */
static int json_steps(struct json_list *l, const struct run_row *r, char *err, size_t errlen)
{
	struct jsonw *w = &l->w;
	int rc = 0;

	jsonw_key(w, "steps");
	jsonw_arr(w);
	sqlite3_bind_int64(l->ss, 1, r->id);
	while (sqlite3_step(l->ss) == SQLITE_ROW) {
		struct figures f;
		int idx = sqlite3_column_int(l->ss, 0);
		if ((rc = window_figures(l->db, r->id, idx, r->open, &f, err, errlen)) < 0)
			break;
		jsonw_br(w, l->item);
		jsonw_obj(w);
		jsonw_mint(w, "step", idx + 1);
		jsonw_mint(w, "concurrency", sqlite3_column_int(l->ss, 1));
		if (sqlite3_column_type(l->ss, 2) != SQLITE_NULL)
			jfixed(w, "rate", sqlite3_column_double(l->ss, 2), 3);
		json_figures(w, &f, f.seconds);
		json_open(w, r->open, &f, window_gen_cpu(l->db, r->id, idx));
		rpt_run_drift_json(l->rr, idx, "drift", w);
		jsonw_end(w);
	}
	sqlite3_reset(l->ss);
	if (rc == 0)
		jsonw_end(w);
	return rc;
}

/* A run as a JSON object: an item of the list, or the one value of one line. */
static int json_row(struct json_list *l, const struct run_row *r, const struct figures *all,
                    char *err, size_t errlen)
{
	struct jsonw *w = &l->w;
	double rate = first_rate(l->ss, r->id);
	int usage;

	snprintf(l->idbuf, sizeof l->idbuf, "%lld", (long long)r->id);
	if (!l->rr && !(l->rr = rpt_new())) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rpt_free(l->rr);
	if (rpt_read(l->rr, &l->ro, &usage, err, errlen) < 0)
		return -1;
	jsonw_br(w, l->run);
	jsonw_obj(w);
	jsonw_mint(w, "id", r->id);
	jsonw_mstr(w, "label", r->label);
	jsonw_mstr(w, "name", r->name);
	jsonw_mstr(w, "mode", r->mode);
	jsonw_mstr(w, "connection", r->connection);
	jsonw_mstr(w, "status", r->status);
	jsonw_mstr(w, "origin", r->origin);
	jsonw_mint(w, "resumed", r->resumed);
	jfixed(w, "gap_s", (double)r->gap_ms / 1000, 3);
	jsonw_mstr(w, "model", r->open ? "open" : "closed");
	if (r->open && !isnan(rate))
		jfixed(w, "rate", rate, 3);
	else
		jsonw_mnull(w, "rate");
	jsonw_mint(w, "started_ms", r->started);
	if (r->agent) {
		jsonw_mint(w, "agent", r->agent_k);
		jsonw_mint(w, "agent_count", r->agent_n);
	} else if (r->merged) {
		jsonw_mint(w, "agents", r->agent_m);
		jsonw_mint(w, "agent_count", r->agent_n);
	}
	json_figures(w, all, (double)(r->ended - r->started - r->gap_ms) / 1000.0);
	json_open(w, r->open, all, window_gen_cpu(l->db, r->id, -1));
	if (json_steps(l, r, err, errlen) < 0)
		return -1;
	if (!rpt_run_drift_json(l->rr, -1, "drift", w))
		jsonw_mnull(w, "drift");
	if (json_thresholds(l->ts, r->id, w, l->item, err, errlen) < 0)
		return -1;
	jsonw_end(w);
	return 0;
}

/* Prints the runs (only_id >= 0: that one; all_runs: agents' parts of merged runs too) as
 * the table, or as JSON: a list, or with oneline a single object on one line. */
static int list_runs(sqlite3 *db, const char *path, int64_t only_id, int all_runs, int json,
                     int oneline, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *dbs[1] = {path};
	struct json_list l = {
	    .db = db, .run = oneline ? "" : "\n  ", .item = oneline ? "" : "\n    "};
	int first = 1, rc = -1;
	char *note_text = NULL;
	size_t note_len = 0;
	FILE *notes = json ? NULL : open_memstream(&note_text, &note_len); /* under the table */

	l.ro = (struct rpt_opts){.dbs = dbs, .ndbs = 1, .runs = l.idbuf};
	jsonw_init(&l.w, stdout);
	if (db_prepare(
	        db, &st,
	        "SELECT id, label, mode, status, host, pid, IFNULL(pid_start, -1), boot_id, "
	        "heartbeat_ms, interval_ms, started_ms, ended_ms, name, connection, agent_index, "
	        "agent_count, agents_merged, model, IFNULL(origin, 'soak'), resumed, "
	        "(SELECT IFNULL(SUM(g.to_ms - g.from_ms), 0) FROM gaps g WHERE g.run_id = runs.id) "
	        "FROM runs "
	        "WHERE (?1 OR merged_into IS NULL) AND (?2 < 0 OR id = ?2) ORDER BY id",
	        err, errlen) < 0 ||
	    db_prepare(db, &l.ss,
	               "SELECT idx, concurrency, rate FROM steps WHERE run_id = ? ORDER BY idx",
	               err, errlen) < 0 ||
	    db_prepare(db, &l.ts,
	               "SELECT step_idx, metric, unit, limit_val, value, passed FROM thresholds "
	               "WHERE run_id = ? ORDER BY step_idx, metric",
	               err, errlen) < 0)
		goto done;
	sqlite3_bind_int(st, 1, all_runs || only_id >= 0);
	sqlite3_bind_int64(st, 2, only_id);
	if (json && !oneline)
		jsonw_arr(&l.w);
	else if (!json)
		printf("%4s  %-16s %-6s %-11s %-20s %9s %10s %9s %9s %7s %7s\n", "id", "label",
		       "mode", "status", "started (UTC)", "length", "requests", "TPS", "p99",
		       "error%", "agents");
	int64_t now = clock_wall_ms();
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct run_row r;
		struct figures all;
		read_row(st, now, &r);
		if (window_figures(db, r.id, -1, r.open, &all, err, errlen) < 0)
			goto done;
		if (!json) {
			table_row(&r, &all, notes);
			continue;
		}
		if (json_row(&l, &r, &all, err, errlen) < 0)
			goto done;
		first = 0;
	}
	if (json && !oneline) {
		if (!first)
			jsonw_br(&l.w, "\n");
		jsonw_end(&l.w);
	}
	if (json)
		printf("\n");
	if (only_id >= 0 && first && json) {
		snprintf(err, errlen, "no run %lld", (long long)only_id);
		goto done;
	}
	rc = 0;
done:
	if (notes) {
		fclose(notes);
		if (rc == 0 && note_len)
			fputs(note_text, stdout);
		free(note_text);
	}
	rpt_delete(l.rr);
	sqlite3_finalize(st);
	sqlite3_finalize(l.ss);
	sqlite3_finalize(l.ts);
	return rc;
}

int cmd_runs_json(const char *db_path, int64_t run_id, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	if (db_open(db_path, 0, &db, err, errlen) < 0)
		return -1;
	rc = list_runs(db, db_path, run_id, 0, 1, 1, err, errlen);
	fflush(stdout);
	db_close(db);
	return rc;
}

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},
	    {"all", no_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *path = db_default_path();
	int json = 0, all_runs = 0, c, rc = EXIT_RUNTIME;
	sqlite3 *db = NULL;
	char err[512];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'a':
			all_runs = 1;
			break;
		case 'h':
			printf("usage: soak runs [--db FILE] [--json] [--all]\n"
			       "Lists runs: id, label, mode, status (crashed when a run was never "
			       "closed\n"
			       "and its process is gone), start, length, requests, TPS, p99, error "
			       "%%,\n"
			       "agents (of a merged run, or K/N of one agent's run).  Agents' runs "
			       "folded\n"
			       "into a merged run by `soak merge` are listed only with --all.  "
			       "--json adds\n"
			       "each run's drift verdict (as in soak report).\n");
			return EXIT_OK;
		default:
			return cmd_opt_error("runs", c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "soak runs: unexpected argument '%s'\n", argv[optind]);
		cmd_usage("runs");
		return EXIT_USAGE;
	}
	/* Opened for writing so an older file is migrated (reading needs the current schema). */
	if (db_open(path, 0, &db, err, sizeof err) < 0) {
		fprintf(stderr, "soak runs: %s\n", err);
		return EXIT_USAGE;
	}
	if (list_runs(db, path, -1, all_runs, json, 0, err, sizeof err) < 0)
		fprintf(stderr, "soak runs: %s\n", err);
	else
		rc = EXIT_OK;
	db_close(db);
	return rc;
}
