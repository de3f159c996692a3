/*
 * soak runs — lists the runs of a database with their figures; --json for pipelines.
 * Figures cover each step's measured window (steady intervals), merged from the stored
 * interval histograms, so they are right for runs that crashed before writing a step row.
 * --json adds each run's drift verdict (and each sweep step's), read and judged by the
 * report's own code (rpt_read of that one run), so both always agree.
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
#include "report/results.h"

/* The figures of a window; duration_s is the run's length for a run, the measured window
 * for a step. */
static void json_figures(FILE *f, const struct figures *g, double duration_s)
{
	fprintf(f,
		"\"duration_s\": %.3f, \"window_s\": %.3f, \"requests\": %lld, \"errors\": %lld, \"error_pct\": %.4f, "
		"\"tps\": %.3f, \"mean_ms\": %.3f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, "
		"\"p95_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"new_connections\": %lld",
		duration_s, g->seconds, (long long)g->requests, (long long)g->errors, g->error_pct, g->tps,
		g->mean_us / 1000, (double)g->p50_us / 1000, (double)g->p90_us / 1000,
		(double)g->p95_us / 1000, (double)g->p99_us / 1000, (double)g->max_us / 1000,
		(long long)g->new_conns);
}

/* The open model's figures and the generator's own CPU (null where they do not apply). */
static void json_open(FILE *f, int open, const struct figures *g, double gen_cpu)
{
	if (open)
		fprintf(f, ", \"dropped\": %lld, \"service_p50_ms\": %.3f, \"service_p99_ms\": %.3f, "
			   "\"lag_p99_ms\": %.3f",
			(long long)g->dropped, (double)g->svc_p50_us / 1000, (double)g->svc_p99_us / 1000,
			(double)g->lag_p99_us / 1000);
	else
		fprintf(f, ", \"dropped\": 0, \"service_p50_ms\": null, \"service_p99_ms\": null, "
			   "\"lag_p99_ms\": null");
	if (isnan(gen_cpu))
		fprintf(f, ", \"gen_cpu_pct\": null");
	else
		fprintf(f, ", \"gen_cpu_pct\": %.2f", gen_cpu);
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
	struct res_window w = {.run_id = run, .step_idx = step, .phase = "steady", .from_ms = -1, .to_ms = -1};
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

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path = db_default_path();
	int json = 0, c, rc = EXIT_RUNTIME, first = 1;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *ss = NULL;
	char err[512], idbuf[32];
	struct report rr = {0};
	const char *dbs[1];
	struct rpt_opts ro = {.dbs = dbs, .ndbs = 1, .runs = idbuf};
	int usage;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': path = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			printf("usage: soak runs [--db FILE] [--json]\n"
			       "Lists runs: id, label, mode, status (crashed when a run was never closed\n"
			       "and its process is gone), start, length, requests, TPS, p99, error %%;\n"
			       "--json adds each run's drift verdict (as in soak report).\n");
			return EXIT_OK;
		default:
			if (c == ':')
				fprintf(stderr, "soak runs: option '%s' needs a value\n", argv[optind - 1]);
			else
				fprintf(stderr, "soak runs: unknown option '%s'\n", argv[optind - 1]);
			cmd_usage("runs");
			return EXIT_USAGE;
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
	if (db_prepare(db, &st,
		       "SELECT id, label, mode, status, host, pid, IFNULL(pid_start, -1), boot_id, "
		       "heartbeat_ms, interval_ms, started_ms, ended_ms, name, connection, model, "
		       "max_in_flight FROM runs ORDER BY id",
		       err, sizeof err) < 0 ||
	    db_prepare(db, &ss, "SELECT idx, concurrency, rate FROM steps WHERE run_id = ? ORDER BY idx",
		       err, sizeof err) < 0) {
		fprintf(stderr, "soak runs: %s\n", err);
		goto done;
	}
	if (json)
		printf("[");
	else
		printf("%4s  %-16s %-6s %-11s %-20s %9s %10s %9s %9s %7s\n", "id", "label", "mode", "status",
		       "started (UTC)", "length", "requests", "TPS", "p99", "error%");
	int64_t now = clock_wall_ms();
	dbs[0] = path;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *label = (const char *)sqlite3_column_text(st, 1);
		const char *mode = (const char *)sqlite3_column_text(st, 2);
		int64_t started = sqlite3_column_int64(st, 10);
		int64_t hb = sqlite3_column_int64(st, 8);
		const char *status = res_status((const char *)sqlite3_column_text(st, 3),
						(const char *)sqlite3_column_text(st, 4),
						sqlite3_column_int64(st, 5), sqlite3_column_int64(st, 6),
						(const char *)sqlite3_column_text(st, 7), hb,
						sqlite3_column_int64(st, 9), now);
		int64_t ended = sqlite3_column_type(st, 11) == SQLITE_NULL
					? (!strcmp(status, "running") ? now : hb)
					: sqlite3_column_int64(st, 11);
		struct figures all;
		char iso[40], len[32], p99[32];
		int open = !strcmp((const char *)sqlite3_column_text(st, 14), "open");

		snprintf(idbuf, sizeof idbuf, "%lld", (long long)id);
		if (window_figures(db, id, -1, open, &all, err, sizeof err) < 0) {
			fprintf(stderr, "soak runs: %s\n", err);
			goto done;
		}
		if (!json) {
			clock_iso(started, iso, sizeof iso);
			iso[19] = '\0';
			iso[10] = ' ';
			printf("%4lld  %-16.16s %-6s %-11s %-20s %9s %10lld %9.1f %9s %7.2f\n", (long long)id,
			       label, mode, status, iso, dur_format((ended - started) / 1000 * 1000, len, sizeof len),
			       (long long)all.requests, all.tps,
			       all.requests ? dur_format_us((double)all.p99_us, p99, sizeof p99) : "-", all.error_pct);
			continue;
		}
		if (rpt_read(&rr, &ro, &usage, err, sizeof err) < 0) {
			fprintf(stderr, "soak runs: run %lld: %s\n", (long long)id, err);
			goto done;
		}
		printf("%s\n  {\"id\": %lld, \"label\": ", first ? "" : ",", (long long)id);
		first = 0;
		json_write_str(stdout, label);
		printf(", \"name\": ");
		json_write_str(stdout, (const char *)sqlite3_column_text(st, 12));
		printf(", \"mode\": ");
		json_write_str(stdout, mode);
		printf(", \"connection\": ");
		json_write_str(stdout, (const char *)sqlite3_column_text(st, 13));
		printf(", \"status\": ");
		json_write_str(stdout, status);
		printf(", \"model\": \"%s\"", open ? "open" : "closed");
		/* The target rate: the first step's (a sweep's steps carry their own). */
		double rate = NAN;
		sqlite3_bind_int64(ss, 1, id);
		if (sqlite3_step(ss) == SQLITE_ROW && sqlite3_column_type(ss, 2) != SQLITE_NULL)
			rate = sqlite3_column_double(ss, 2);
		sqlite3_reset(ss);
		if (open && !isnan(rate))
			printf(", \"rate\": %.3f", rate);
		else
			printf(", \"rate\": null");
		printf(", \"started_ms\": %lld, ", (long long)started);
		json_figures(stdout, &all, (double)(ended - started) / 1000.0);
		json_open(stdout, open, &all, window_gen_cpu(db, id, -1));
		printf(", \"steps\": [");
		sqlite3_bind_int64(ss, 1, id);
		int fs = 1;
		while (sqlite3_step(ss) == SQLITE_ROW) {
			struct figures f;
			int idx = sqlite3_column_int(ss, 0);
			if (window_figures(db, id, idx, open, &f, err, sizeof err) < 0) {
				fprintf(stderr, "soak runs: %s\n", err);
				goto done;
			}
			printf("%s\n    {\"step\": %d, \"concurrency\": %d, ", fs ? "" : ",", idx + 1,
			       sqlite3_column_int(ss, 1));
			if (sqlite3_column_type(ss, 2) != SQLITE_NULL)
				printf("\"rate\": %.3f, ", sqlite3_column_double(ss, 2));
			json_figures(stdout, &f, f.seconds);
			json_open(stdout, open, &f, window_gen_cpu(db, id, idx));
			if (rr.runs[0].step_drift && idx < rr.runs[0].nsteps) {
				printf(", \"drift\": ");
				rpt_drift_json(&rr.runs[0].step_drift[idx], stdout);
			}
			printf("}");
			fs = 0;
		}
		sqlite3_reset(ss);
		printf("], \"drift\": ");
		rpt_drift_json(&rr.runs[0].drift, stdout);
		printf("}");
		rpt_free(&rr);
	}
	if (json)
		printf("%s]\n", first ? "" : "\n");
	rc = EXIT_OK;
done:
	rpt_free(&rr);
	sqlite3_finalize(st);
	sqlite3_finalize(ss);
	db_close(db);
	return rc;
}
