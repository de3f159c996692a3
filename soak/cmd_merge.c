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
#include "dbroles.h"
#include "redact.h"

#define MERGE_MAX_COLS 64 /* columns of one table; the widest (runs) has 22 */
#define MERGE_COL_LEN  64 /* bytes of a column name */
#define MERGE_MAX_TABLES 32 /* tables a file may hold */

/* SQL soak_redact(kind, value, names): value redacted (redact.h), with the secret names the
 * `redact =` lines of names declare (the text of the value's run or study; NULL: none)
 * on top of the built-in ones; NULL stays NULL. */
static void sql_redact(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const char *kind = (const char *)sqlite3_value_text(argv[0]);
	const char *v = (const char *)sqlite3_value_text(argv[1]);
	const char *names = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
	struct redact r;
	char *out;

	if (!v) {
		sqlite3_result_null(cx);
		return;
	}
	redact_init(&r);
	if (names)
		redact_add_from_ini(&r, names);
	out = kind && !strcmp(kind, "ini") ? redact_ini(&r, v) : redact_text(&r, v);
	if (!out)
		sqlite3_result_error_nomem(cx);
	else
		sqlite3_result_text(cx, out, -1, free);
}

/* Column names of one table, in declaration order. */
struct merge_cols {
	int n;                                    /* valid entries of name */
	char name[MERGE_MAX_COLS][MERGE_COL_LEN]; /* column names */
};

/* What one input added to OUT, table by table in sql/roles.txt's order. */
struct merge_counts {
	int n;
	struct {
		const char *table;  /* a name of dbroles_lines (static) */
		long long added;    /* new rows */
		long long updated;  /* runs, studies, steps still going in OUT brought further */
	} t[MERGE_MAX_TABLES];
};

/* The counts of table in n (added when missing). */
static long long *count_of(struct merge_counts *n, const char *table, int updated)
{
	int i = 0;

	while (i < n->n && strcmp(n->t[i].table, table) != 0)
		i++;
	if (i == n->n && n->n < MERGE_MAX_TABLES) {
		n->t[n->n].table = table;
		n->t[n->n].added = n->t[n->n].updated = 0;
		n->n++;
	}
	i = i < MERGE_MAX_TABLES ? i : MERGE_MAX_TABLES - 1;
	return updated ? &n->t[i].updated : &n->t[i].added;
}

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
	char inner[512];
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
	/* soak's run table (sql/roles.txt) and a schema version: a file soak wrote. */
	if (db_int(raw, "PRAGMA user_version", 0, &ver, inner, sizeof inner) < 0 ||
	    db_int(raw,
	           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'", 0,
	           &tables, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "'%s' is not a soak database (%s)", path,
		         sqlite3_errmsg(raw));
		goto cleanup;
	}
	if (ver == 0 || tables == 0) {
		snprintf(err, errlen, "'%s' is not a soak database (it lacks the soak tables)",
		         path);
		goto cleanup;
	}
	if (db_harden(raw, path, err, errlen) < 0)
		goto cleanup;
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

/* The columns of main.table that src.table has too. */
static int load_cols(sqlite3 *db, const char *table, struct merge_cols *c, char *err,
                     size_t errlen)
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
		if (!name)
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

/* The column of table with role col (dbroles.h) among c, or NULL. */
static const char *col_with(const struct merge_cols *c, const char *table, enum dbrole_col col)
{
	for (int i = 0; i < c->n; i++)
		if (dbroles_col(table, c->name[i]) == col)
			return c->name[i];
	return NULL;
}

/* Where a row's secret names come from: the `redact =` lines of its run's scenario or its
 * study's text (SQL, appended to q). */
static void names_expr(sqlite3_str *q, const char *table, const struct merge_cols *c)
{
	const char *run = col_with(c, table, DBC_RUN_ID), *study = col_with(c, table, DBC_STUDY_ID);

	if (dbroles_table(table) == DBT_RUN)
		sqlite3_str_appendall(q, "s.scenario");
	else if (dbroles_table(table) == DBT_STUDY)
		sqlite3_str_appendall(q, "s.text");
	else if (run)
		sqlite3_str_appendf(q, "(SELECT x.scenario FROM src.runs x WHERE x.id = s.\"%w\")", run);
	else if (study)
		sqlite3_str_appendf(q, "(SELECT x.text FROM src.studies x WHERE x.id = s.\"%w\")",
		                    study);
	else
		sqlite3_str_appendall(q, "NULL");
}

/* The expression a column is copied with: s."col", mapped, or redacted (its role). */
static void copy_expr(sqlite3_str *q, const char *table, const struct merge_cols *c, int i)
{
	const char *col = c->name[i];

	switch (dbroles_col(table, col)) {
	case DBC_RUN_ID:
		sqlite3_str_appendall(q, "r.new");
		break;
	case DBC_STUDY_ID:
		sqlite3_str_appendall(q, "ms.id");
		break;
	case DBC_SECRET_TEXT:
	case DBC_SECRET_INI:
		sqlite3_str_appendf(q, "soak_redact('%s', s.\"%w\", ",
		                    dbroles_col(table, col) == DBC_SECRET_INI ? "ini" : "text", col);
		names_expr(q, table, c);
		sqlite3_str_appendall(q, ")");
		break;
	default:
		sqlite3_str_appendf(q, "s.\"%w\"", col);
	}
}

/* FROM src.T AS s and the joins that map its run and study ids: inner for the rows of a
 * run or study (dropped without it), left for those that may have none. */
static void copy_from(sqlite3_str *q, const char *table, const struct merge_cols *c)
{
	enum dbrole_table role = dbroles_table(table);
	const char *how = role == DBT_RUN_ROWS_OPT || role == DBT_STUDY_ROWS_OPT ? "LEFT " : "";
	const char *run = col_with(c, table, DBC_RUN_ID), *study = col_with(c, table, DBC_STUDY_ID);

	sqlite3_str_appendf(q, " FROM src.\"%w\" AS s", table);
	if (run)
		sqlite3_str_appendf(q, " %sJOIN temp.merge_run_map AS r ON r.old = s.\"%w\"", how, run);
	if (study)
		sqlite3_str_appendf(q,
		                    " %sJOIN src.studies AS ss ON ss.id = s.\"%w\" %sJOIN main.studies "
		                    "AS ms ON ms.uuid = ss.uuid",
		                    how, study, how);
}

/*
 * INSERT OR IGNORE INTO main.T (cols) SELECT ... FROM src.T AS s: every column both have,
 * each by its role (sql/roles.txt): the row's id left for OUT, run and study ids mapped,
 * secret text redacted with its run's or study's names.  Nothing when src has no T (an
 * older file).
 */
static int copy_table(sqlite3 *db, const char *table, long long *added, char *err,
                      size_t errlen)
{
	struct merge_cols c;
	sqlite3_str *q;
	const char *id;
	long long there = 0;
	char *sql = sqlite3_mprintf(
	    "SELECT count(*) FROM src.sqlite_master WHERE type = 'table' AND name = %Q", table);

	if (!sql || db_int(db, sql, 0, &there, err, errlen) < 0) {
		sqlite3_free(sql);
		return -1;
	}
	sqlite3_free(sql);
	if (!there)
		return 0;
	if (load_cols(db, table, &c, err, errlen) < 0)
		return -1;
	id = col_with(&c, table, DBC_ID);
	q = sqlite3_str_new(db);
	sqlite3_str_appendf(q, "INSERT OR IGNORE INTO main.\"%w\" (", table);
	for (int i = 0, k = 0; i < c.n; i++)
		if (c.name[i] != id)
			sqlite3_str_appendf(q, "%s\"%w\"", k++ ? ", " : "", c.name[i]);
	sqlite3_str_appendall(q, ") SELECT ");
	for (int i = 0, k = 0; i < c.n; i++)
		if (c.name[i] != id) {
			sqlite3_str_appendall(q, k++ ? ", " : "");
			copy_expr(q, table, &c, i);
		}
	copy_from(q, table, &c);
	/* Keeps new ids in the input's order, so OUT lists runs as they happened. */
	if (id)
		sqlite3_str_appendf(q, " ORDER BY s.\"%w\"", id);
	return run_sql(db, sqlite3_str_finish(q), added, err, errlen);
}

/* A step OUT has unfinished takes the input's final figures. */
static int update_steps(sqlite3 *db, long long *updated, char *err, size_t errlen)
{
	struct merge_cols c;
	sqlite3_str *q;
	int first = 1;

	if (load_cols(db, "steps", &c, err, errlen) < 0)
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

/* What copy_role hands each table of a role. */
struct copy_ctx {
	sqlite3 *db;
	struct merge_counts *n;
	char *err;
	size_t errlen;
};

static int copy_one(void *arg, const char *table)
{
	struct copy_ctx *x = arg;
	if (!strcmp(table, "steps") &&
	    update_steps(x->db, count_of(x->n, table, 1), x->err, x->errlen) < 0)
		return -1;
	return copy_table(x->db, table, count_of(x->n, table, 0), x->err, x->errlen);
}

/* Copies every table of a role (sql/roles.txt). */
static int copy_role(sqlite3 *db, enum dbrole_table role, struct merge_counts *n, char *err,
                     size_t errlen)
{
	struct copy_ctx x = {db, n, err, errlen};
	return dbroles_each_table(role, copy_one, &x);
}

/* The studies, recognised by their uuids; a study OUT still has as running takes a later
 * copy's state; then their runs' tags and calibrations (sql/roles.txt's study roles). */
static int merge_studies(sqlite3 *db, struct merge_counts *n, char *err, size_t errlen)
{
	long long there = 0;

	if (db_int(db, "SELECT count(*) FROM src.sqlite_master WHERE name = 'studies'", 0, &there,
	           err, errlen) < 0)
		return -1;
	if (there &&
	    run_sql(db,
	            sqlite3_mprintf("UPDATE main.studies AS m SET status = s.status, "
	                            "ended_ms = s.ended_ms FROM src.studies AS s "
	                            "WHERE s.uuid = m.uuid AND m.status = 'running'"),
	            count_of(n, "studies", 1), err, errlen) < 0)
		return -1;
	return copy_role(db, DBT_STUDY, n, err, errlen) < 0 ||
	               copy_role(db, DBT_STUDY_ROWS, n, err, errlen) < 0 ||
	               copy_role(db, DBT_STUDY_ROWS_OPT, n, err, errlen) < 0
	           ? -1
	           : 0;
}

/* Copies the attached `src` into main; the caller holds the transaction.  A run (a study)
 * OUT still has as running first takes the state of a later copy of its file. */
static int merge_attached(sqlite3 *db, struct merge_counts *n, char *err, size_t errlen)
{
	long long ignored;

	if (run_sql(
	        db,
	        sqlite3_mprintf("UPDATE main.runs AS m SET status = s.status, "
	                        "reason = soak_redact('text', s.reason, s.scenario), "
	                        "ended_ms = s.ended_ms, heartbeat_ms = s.heartbeat_ms "
	                        "FROM src.runs AS s WHERE s.uuid = m.uuid AND m.status = 'running' "
	                        "AND (s.status <> 'running' OR "
	                        "IFNULL(s.heartbeat_ms, 0) > IFNULL(m.heartbeat_ms, 0))"),
	        count_of(n, "runs", 1), err, errlen) < 0 ||
	    copy_role(db, DBT_RUN, n, err, errlen) < 0 ||
	    run_sql(db, sqlite3_mprintf("DELETE FROM temp.merge_run_map"), &ignored, err, errlen) <
	        0 ||
	    run_sql(db,
	            sqlite3_mprintf("INSERT INTO temp.merge_run_map (old, new) SELECT s.id, m.id "
	                            "FROM src.runs AS s JOIN main.runs AS m ON m.uuid = s.uuid"),
	            &ignored, err, errlen) < 0 ||
	    copy_role(db, DBT_RUN_ROWS, n, err, errlen) < 0 ||
	    copy_role(db, DBT_RUN_ROWS_OPT, n, err, errlen) < 0)
		return -1;
	return merge_studies(db, n, err, errlen);
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

/* "FILE: +N runs (M updated), +N steps (M updated), +N intervals, ...": what FILE added to
 * each table, in sql/roles.txt's order. */
static void print_counts(const char *path, const struct merge_counts *n)
{
	printf("%s:", path);
	for (int i = 0; i < n->n; i++) {
		printf("%s +%lld %s", i ? "," : "", n->t[i].added, n->t[i].table);
		if (!strcmp(n->t[i].table, "runs") || !strcmp(n->t[i].table, "steps") ||
		    !strcmp(n->t[i].table, "studies"))
			printf(" (%lld updated)", n->t[i].updated);
	}
	putchar('\n');
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
	    (sqlite3_create_function(db, "soak_redact", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
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
		print_counts(argv[i], &n);
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
