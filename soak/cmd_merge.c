/*
 * soak merge -o OUT.db DB... — folds the runs (with their steps, intervals and interval
 * errors), samples, GC events, events and studies of several soak databases into one, so that
 * collectors run on other hosts (or runs made on several load generators) end up in the
 * file a report reads.
 *
 * Idempotent: a run is recognised by runs.uuid, a sample by its primary key, a GC event
 * and an event by their identity indexes, so merging a file twice adds nothing.  Run ids
 * are renumbered in OUT and every child row's run_id follows through a map built from
 * the uuids; a sample, GC event or event whose run_id names no run of its own file gets
 * NULL (reports then match it to runs by time).  A run that was still `running` in OUT
 * takes the status, reason, end and heartbeat of a later copy, and a step that had not
 * ended takes its final figures: merging a snapshot and later the finished file works.
 * Columns are those OUT's table has and the input's has too, so a later migration that
 * adds a column needs no change here.
 *
 * Each input is ATTACHed and copied with INSERT OR IGNORE ... SELECT in one transaction:
 * an input is merged whole or not at all.  Inputs are only read.  Text that may hold a
 * secret (a scenario, a URL, a command line: see redacted_cols) is copied redacted, so a
 * merged file is fit to pass around whatever soak wrote its inputs.
 *
 * Agents: afterwards the runs of each agent group in OUT (`soak run --agent K/N --group
 * G`) are folded into one merged run (agent_merge.h), rebuilt from the parts OUT holds,
 * so merging the agents' files in any order or any number of times gives the same run.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/agent_merge.h"
#include "cmd.h"
#include "db.h"
#include "redact.h"

#define MERGE_MAX_COLS 64 /* columns of one table; the widest (runs) has 22 */
#define MERGE_COL_LEN  64 /* bytes of a column name */

/* The tables every soak database has (schema 1 on). */
static const char *const soak_tables[] = {"runs",    "steps",     "intervals", "interval_errors",
                                          "samples", "gc_events", "events"};

/* Text columns that may hold a secret (a file written before soak redacted what it
 * stored, or by hand): copied through soak_redact(kind, value). */
static const struct {
	const char *table, *col;
	const char *kind; /* "ini": a scenario or study file's text; "text": anything else */
} redacted_cols[] = {{"runs", "scenario", "ini"},
                     {"runs", "url", "text"},
                     {"runs", "reason", "text"},
                     {"run_env", "value", "text"},
                     {"interval_errors", "sample", "text"},
                     {"studies", "text", "ini"},
                     {"studies", "before_each", "text"}};

/* SQL soak_redact(kind, value): value redacted (redact.h); NULL stays NULL. */
static void sql_redact(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const char *kind = (const char *)sqlite3_value_text(argv[0]);
	const char *v = (const char *)sqlite3_value_text(argv[1]);
	char *out;

	(void)argc;
	if (!v) {
		sqlite3_result_null(cx);
		return;
	}
	out = kind && !strcmp(kind, "ini") ? redact_ini(NULL, v) : redact_text(NULL, v);
	if (!out)
		sqlite3_result_error_nomem(cx);
	else
		sqlite3_result_text(cx, out, -1, free);
}

/* The expression a column is copied with: s."col", or redacted. */
static void copy_expr(sqlite3_str *q, const char *table, const char *col)
{
	for (size_t i = 0; i < sizeof redacted_cols / sizeof *redacted_cols; i++)
		if (!strcmp(redacted_cols[i].table, table) && !strcmp(redacted_cols[i].col, col)) {
			sqlite3_str_appendf(q, "soak_redact('%s', s.\"%w\")", redacted_cols[i].kind,
			                    col);
			return;
		}
	sqlite3_str_appendf(q, "s.\"%w\"", col);
}

/* Column names of one table, in declaration order. */
struct merge_cols {
	int n;                                    /* valid entries of name */
	char name[MERGE_MAX_COLS][MERGE_COL_LEN]; /* column names */
};

/* What one input added to OUT. */
struct merge_counts {
	long long runs;          /* new runs */
	long long runs_updated;  /* running runs that a later copy brought further */
	long long steps;         /* new steps */
	long long steps_updated; /* unfinished steps that got their final figures */
	long long intervals;     /* new intervals */
	long long errors;        /* new interval_errors rows */
	long long samples;       /* new samples */
	long long gc_events;     /* new GC events */
	long long events;        /* new events */
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: soak merge -o OUT.db DB...\n"
	    "\n"
	    "Folds the runs (steps, intervals, interval errors), samples, GC events, events and\n"
	    "studies of each DB into OUT.db (created when missing).  Merging the same file again "
	    "adds\n"
	    "nothing; run ids are renumbered in OUT.  Prints what each input added.\n"
	    "The runs of each agent group (soak run --agent K/N --group G) are then folded\n"
	    "into one run: intervals added exactly, gaps and clock skew named, one line each.\n"
	    "\n"
	    "  -o, --output OUT.db   the database to merge into\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "exit status: 0 merged, 2 bad usage or input (missing, not a soak database, newer\n"
	    "schema, OUT among the inputs), 3 database failure while merging\n");
}

/*
 * Checks that path is a soak database this soak can read, without changing it.  With
 * allow_new (OUT) a missing or empty file is fine, and so is an older schema (opening
 * OUT for writing migrates it).  Returns 0, or -1 with err.
 */
static int check_soak_file(const char *path, int allow_new, char *err, size_t errlen)
{
	sqlite3 *raw = NULL, *db = NULL;
	struct stat st;
	long long ver = 0, tables = 0;
	char sql[256], inner[512];
	int rc = -1;

	if (stat(path, &st) < 0) {
		if (allow_new && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a file", path);
		return -1;
	}
	if (st.st_size == 0 && allow_new)
		return 0;
	if (sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		         raw ? sqlite3_errmsg(raw) : "out of memory");
		goto cleanup;
	}
	if (db_harden(raw, path, err, errlen) < 0)
		goto cleanup;
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
	         "('%s', '%s', '%s', '%s', '%s', '%s', '%s')",
	         soak_tables[0], soak_tables[1], soak_tables[2], soak_tables[3], soak_tables[4],
	         soak_tables[5], soak_tables[6]);
	if (db_int(raw, "PRAGMA user_version", 0, &ver, inner, sizeof inner) < 0 ||
	    db_int(raw, sql, 0, &tables, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "'%s' is not a soak database (%s)", path,
		         sqlite3_errmsg(raw));
		goto cleanup;
	}
	if (ver == 0 || tables < (long long)(sizeof soak_tables / sizeof soak_tables[0])) {
		snprintf(err, errlen, "'%s' is not a soak database (it lacks the soak tables)",
		         path);
		goto cleanup;
	}
	/* db_open states the schema rules (newer: upgrade soak; older: migrate first).  OUT
	 * is opened for writing later, which migrates an older one: only newer is refused. */
	if ((!allow_new || ver > db_schema_version()) &&
	    db_open(path, DB_READONLY, &db, err, errlen) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	db_close(db);
	sqlite3_close(raw);
	return rc;
}

/* The columns of main.table that src.table has too, minus `skip` (may be NULL). */
static int load_cols(sqlite3 *db, const char *table, const char *skip, struct merge_cols *c,
                     char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	c->n = 0;
	if (db_prepare(db, &st,
	               "SELECT name FROM pragma_table_info(?1, 'main') WHERE name IN "
	               "(SELECT name FROM pragma_table_info(?1, 'src')) ORDER BY cid",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = db_col_text(st, 0);
		if (!name || (skip && strcmp(name, skip) == 0))
			continue;
		if (c->n >= MERGE_MAX_COLS || strlen(name) >= MERGE_COL_LEN) {
			sqlite3_finalize(st);
			snprintf(err, errlen, "table '%s' has too many or too long columns", table);
			return -1;
		}
		snprintf(c->name[c->n++], MERGE_COL_LEN, "%s", name);
	}
	sqlite3_finalize(st);
	if (db_done(db, rc, "cannot read the table layout", err, errlen) < 0)
		return -1;
	if (c->n == 0) {
		snprintf(err, errlen, "table '%s' has no columns in common", table);
		return -1;
	}
	return 0;
}

/* Runs the statement sql owns (an sqlite3_str result; freed here); *changes gets the
 * rows it inserted or updated. */
static int run_sql(sqlite3 *db, char *sql, long long *changes, char *err, size_t errlen)
{
	char *msg = NULL;
	int rc;

	if (!sql) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "database error: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	if (changes)
		*changes = sqlite3_changes64(db);
	return 0;
}

/* How a child table finds its run in the map. */
enum map_join {
	MAP_NONE,  /* no run_id (runs itself) */
	MAP_INNER, /* rows without a mapped run are dropped (steps, intervals: never happens) */
	MAP_LEFT,  /* rows keep coming, with NULL when their run is not in the file */
};

/*
 * INSERT OR IGNORE INTO main.T (cols) SELECT ... FROM src.T AS s, with run_id taken from
 * the run map.  `skip` is a column left for OUT to assign (id).
 */
static int copy_table(sqlite3 *db, const char *table, const char *skip, enum map_join join,
                      long long *added, char *err, size_t errlen)
{
	struct merge_cols c;
	sqlite3_str *q;

	if (load_cols(db, table, skip, &c, err, errlen) < 0)
		return -1;
	q = sqlite3_str_new(db);
	sqlite3_str_appendf(q, "INSERT OR IGNORE INTO main.\"%w\" (", table);
	for (int i = 0; i < c.n; i++)
		sqlite3_str_appendf(q, "%s\"%w\"", i ? ", " : "", c.name[i]);
	sqlite3_str_appendall(q, ") SELECT ");
	for (int i = 0; i < c.n; i++) {
		if (i)
			sqlite3_str_appendall(q, ", ");
		if (join != MAP_NONE && strcmp(c.name[i], "run_id") == 0)
			sqlite3_str_appendall(q, "r.new");
		else
			copy_expr(q, table, c.name[i]);
	}
	sqlite3_str_appendf(q, " FROM src.\"%w\" AS s", table);
	if (join != MAP_NONE)
		sqlite3_str_appendf(q, " %s JOIN temp.merge_run_map AS r ON r.old = s.run_id",
		                    join == MAP_LEFT ? "LEFT" : "");
	/* Keeps new ids in the input's order, so OUT lists runs as they happened. */
	if (skip)
		sqlite3_str_appendf(q, " ORDER BY s.\"%w\"", skip);
	return run_sql(db, sqlite3_str_finish(q), added, err, errlen);
}

/* A step OUT has unfinished takes the input's final figures. */
static int update_steps(sqlite3 *db, long long *updated, char *err, size_t errlen)
{
	struct merge_cols c;
	sqlite3_str *q;
	int first = 1;

	if (load_cols(db, "steps", NULL, &c, err, errlen) < 0)
		return -1;
	q = sqlite3_str_new(db);
	sqlite3_str_appendall(q, "UPDATE main.steps AS m SET ");
	for (int i = 0; i < c.n; i++) {
		if (strcmp(c.name[i], "run_id") == 0 || strcmp(c.name[i], "idx") == 0)
			continue;
		sqlite3_str_appendf(q, "%s\"%w\" = s.\"%w\"", first ? "" : ", ", c.name[i],
		                    c.name[i]);
		first = 0;
	}
	sqlite3_str_appendall(q, " FROM src.steps AS s JOIN temp.merge_run_map AS r "
	                         "ON r.old = s.run_id WHERE m.run_id = r.new AND m.idx = s.idx "
	                         "AND m.window_end_ms IS NULL AND s.window_end_ms IS NOT NULL");
	return run_sql(db, sqlite3_str_finish(q), updated, err, errlen);
}

/* The runs' environment facts (sql/005_env.sql), when the input has them: an older file
 * has none, and its runs simply show no environment. */
static int copy_env(sqlite3 *db, char *err, size_t errlen)
{
	long long have = 0, added;

	if (db_int(db,
	           "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND "
	           "name = 'run_env'",
	           0, &have, err, errlen) < 0)
		return -1;
	return have ? copy_table(db, "run_env", NULL, MAP_INNER, &added, err, errlen) : 0;
}

/* A table of a run's own that later migrations added (thresholds, gaps): copied like
 * steps when the input has it. */
static int copy_if_there(sqlite3 *db, const char *table, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	long long ignored;
	int there;

	if (db_prepare(db, &st, "SELECT 1 FROM src.sqlite_master WHERE type = 'table' AND name = ?",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	there = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return there ? copy_table(db, table, NULL, MAP_INNER, &ignored, err, errlen) : 0;
}

/* A study (recognised by its uuid) with its runs' tags, which follow the run map, and its
 * calibrations; a study OUT still has as running takes a later copy's state. */
static int merge_studies(sqlite3 *db, char *err, size_t errlen)
{
	long long ignored, n = 0;

	if (db_int(db, "SELECT count(*) FROM src.sqlite_master WHERE name = 'study_runs'", 0, &n,
	           err, errlen) < 0)
		return -1;
	if (n == 0)
		return 0;
	if (run_sql(db,
	            sqlite3_mprintf("UPDATE main.studies AS m SET status = s.status, "
	                            "ended_ms = s.ended_ms FROM src.studies AS s "
	                            "WHERE s.uuid = m.uuid AND m.status = 'running'"),
	            &ignored, err, errlen) < 0)
		return -1;
	if (copy_table(db, "studies", "id", MAP_NONE, &ignored, err, errlen) < 0)
		return -1;
	if (run_sql(db,
	            sqlite3_mprintf("INSERT OR IGNORE INTO main.study_runs (run_id, study_id, seq, "
	                            "slot, round, position, target, warmup, since_start, version) "
	                            "SELECT r.new, ms.id, s.seq, s.slot, s.round, s.position, "
	                            "s.target, s.warmup, s.since_start, s.version "
	                            "FROM src.study_runs AS s "
	                            "JOIN temp.merge_run_map AS r ON r.old = s.run_id "
	                            "JOIN src.studies AS ss ON ss.id = s.study_id "
	                            "JOIN main.studies AS ms ON ms.uuid = ss.uuid"),
	            &ignored, err, errlen) < 0)
		return -1;
	return run_sql(
	    db,
	    sqlite3_mprintf("INSERT OR IGNORE INTO main.calibrations (study_id, t_ms, "
	                    "host, scenario, label, kind, concurrency, planned_ms, metric, "
	                    "runs, mean, sd, cv) SELECT ms.id, c.t_ms, c.host, c.scenario, "
	                    "c.label, c.kind, c.concurrency, c.planned_ms, c.metric, c.runs, "
	                    "c.mean, c.sd, c.cv FROM src.calibrations AS c "
	                    "LEFT JOIN src.studies AS ss ON ss.id = c.study_id "
	                    "LEFT JOIN main.studies AS ms ON ms.uuid = ss.uuid"),
	    &ignored, err, errlen);
}

/* Copies the attached `src` into main; the caller holds the transaction. */
static int merge_attached(sqlite3 *db, struct merge_counts *n, char *err, size_t errlen)
{
	long long ignored;

	/* A run OUT still has as running takes the state of a later copy of its file. */
	if (run_sql(
	        db,
	        sqlite3_mprintf("UPDATE main.runs AS m SET status = s.status, "
	                        "reason = soak_redact('text', s.reason), "
	                        "ended_ms = s.ended_ms, heartbeat_ms = s.heartbeat_ms "
	                        "FROM src.runs AS s WHERE s.uuid = m.uuid AND m.status = 'running' "
	                        "AND (s.status <> 'running' OR "
	                        "IFNULL(s.heartbeat_ms, 0) > IFNULL(m.heartbeat_ms, 0))"),
	        &n->runs_updated, err, errlen) < 0 ||
	    copy_table(db, "runs", "id", MAP_NONE, &n->runs, err, errlen) < 0 ||
	    run_sql(db, sqlite3_mprintf("DELETE FROM temp.merge_run_map"), &ignored, err, errlen) <
	        0 ||
	    run_sql(db,
	            sqlite3_mprintf("INSERT INTO temp.merge_run_map (old, new) SELECT s.id, m.id "
	                            "FROM src.runs AS s JOIN main.runs AS m ON m.uuid = s.uuid"),
	            &ignored, err, errlen) < 0 ||
	    update_steps(db, &n->steps_updated, err, errlen) < 0 ||
	    copy_table(db, "steps", NULL, MAP_INNER, &n->steps, err, errlen) < 0 ||
	    copy_table(db, "intervals", NULL, MAP_INNER, &n->intervals, err, errlen) < 0 ||
	    copy_table(db, "interval_errors", NULL, MAP_INNER, &n->errors, err, errlen) < 0 ||
	    copy_table(db, "samples", NULL, MAP_LEFT, &n->samples, err, errlen) < 0 ||
	    copy_table(db, "gc_events", "id", MAP_LEFT, &n->gc_events, err, errlen) < 0 ||
	    copy_table(db, "events", "id", MAP_LEFT, &n->events, err, errlen) < 0 ||
	    copy_env(db, err, errlen) < 0 || copy_if_there(db, "thresholds", err, errlen) < 0 ||
	    copy_if_there(db, "gaps", err, errlen) < 0 || merge_studies(db, err, errlen) < 0)
		return -1;
	return 0;
}

/* ATTACH, copy in one transaction, DETACH. */
static int merge_one(sqlite3 *db, const char *path, struct merge_counts *n, char *err,
                     size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char inner[512];
	int rc;

	memset(n, 0, sizeof *n);
	if (db_prepare(db, &st, "ATTACH ?1 AS src", err, errlen) < 0)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "cannot attach '%s': %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if (db_begin(db, err, errlen) < 0)
		goto fail;
	if (merge_attached(db, n, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "cannot merge '%s': %s", path, inner);
		goto fail;
	}
	if (db_commit(db, err, errlen) < 0)
		goto fail;
	sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
	return 0;
fail:
	db_rollback(db);
	sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
	return -1;
}

/* Folds OUT's agent groups into merged runs, in one transaction; a line per group. */
static int fold_agents(sqlite3 *db, char *err, size_t errlen)
{
	struct agm_group *g = NULL;
	int n = 0;

	if (db_begin(db, err, errlen) < 0)
		return -1;
	if (agm_fold_all(db, &g, &n, err, errlen) < 0 || db_commit(db, err, errlen) < 0) {
		db_rollback(db);
		return -1;
	}
	for (int i = 0; i < n; i++)
		printf(
		    "group %s%s%.0d: run %lld holds %d of %d agents, %lld intervals, %lld notes; "
		    "%s\n",
		    g[i].group, g[i].seq ? "#" : "", g[i].seq ? g[i].seq + 1 : 0,
		    (long long)g[i].run_id, g[i].merged, g[i].planned, g[i].intervals, g[i].notes,
		    g[i].status);
	free(g);
	return 0;
}

/* Whether a and b are the same file (hard links and symlinks included). */
static int same_file(const struct stat *a, const char *b)
{
	struct stat sb;
	return stat(b, &sb) == 0 && a->st_dev == sb.st_dev && a->st_ino == sb.st_ino;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL;
	sqlite3 *db = NULL;
	struct stat out_st;
	char err[1024];
	int c, rc = EXIT_USAGE, out_exists;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return cmd_opt_error("merge", c, argv);
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "soak merge: %s\n",
		        !out ? "missing -o OUT.db" : "no input databases");
		cmd_usage("merge");
		return EXIT_USAGE;
	}
	/* Every input is checked before OUT is touched: a typo in the last one must not
	 * leave a half-merged OUT behind. */
	out_exists = stat(out, &out_st) == 0;
	for (int i = optind; i < argc; i++) {
		if (out_exists && same_file(&out_st, argv[i])) {
			fprintf(stderr,
			        "soak merge: '%s' is the output; it cannot be an input too\n",
			        argv[i]);
			return EXIT_USAGE;
		}
		if (check_soak_file(argv[i], 0, err, sizeof err) < 0) {
			fprintf(stderr, "soak merge: %s\n", err);
			return EXIT_USAGE;
		}
	}
	if (check_soak_file(out, 1, err, sizeof err) < 0) {
		fprintf(stderr, "soak merge: %s\n", err);
		return EXIT_USAGE;
	}
	rc = EXIT_RUNTIME;
	if (db_open(out, DB_CREATE, &db, err, sizeof err) < 0 ||
	    (sqlite3_create_function(db, "soak_redact", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	                             sql_redact, NULL, NULL) != SQLITE_OK &&
	     db_fail(db, "cannot set up the merge", err, sizeof err) < 0) ||
	    db_exec(
	        db,
	        "CREATE TEMP TABLE merge_run_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)",
	        err, sizeof err) < 0)
		goto fail;
	for (int i = optind; i < argc; i++) {
		struct merge_counts n;
		if (merge_one(db, argv[i], &n, err, sizeof err) < 0)
			goto fail;
		printf(
		    "%s: +%lld runs (%lld updated), +%lld steps (%lld updated), +%lld intervals, "
		    "+%lld interval_errors, +%lld samples, +%lld gc_events, +%lld events\n",
		    argv[i], n.runs, n.runs_updated, n.steps, n.steps_updated, n.intervals,
		    n.errors, n.samples, n.gc_events, n.events);
		fflush(stdout);
	}
	if (fold_agents(db, err, sizeof err) < 0)
		goto fail;
	rc = EXIT_OK;
	goto cleanup;
fail:
	fprintf(stderr, "soak merge: %s\n", err);
cleanup:
	db_close(db);
	return rc;
}
