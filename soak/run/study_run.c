/* study_run: a study carried out, run by run (study_run.h).
 * Each run is recorded as it ends, so an interrupted study resumes where it stopped; the
 * study's text is stored redacted. */
#include "run/study_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "cpus.h"
#include "db.h"
#include "dur.h"
#include "exitcode.h"
#include "redact.h"

/* --- the database ----------------------------------------------------------------------- */

/* The runner calls this once the run's row exists: the run's tags, in its connection. */
/* "WHO: MSG" on stderr, MSG redacted with the study's names too. */
static void say_redacted(const char *who, const struct redact *r, const char *msg)
{
	char *shown = redact_text(r, msg);
	fprintf(stderr, "%s: %s\n", who, shown ? shown : "(out of memory)");
	free(shown);
}

static int tag_run(void *arg, sqlite3 *db, int64_t run_id, char *err, size_t errlen)
{
	struct ctx *c = arg;
	const struct tag *g = &c->tag;
	const struct tstate *s = &c->t[study_instance(c->st, g->target, g->replica)];
	sqlite3_stmt *q = NULL;

	if (db_prepare(db, &q,
	               "INSERT INTO study_runs(run_id, study_id, seq, slot, round, position, "
	               "target, warmup, since_start, version, replica, start_no, grp) "
	               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	               err, errlen) < 0)
		return -1;
	c->run_id = run_id;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, c->study_id);
	sqlite3_bind_int(q, 3, g->seq > 0 ? g->seq : ++c->seq);
	if (g->slot > 0)
		sqlite3_bind_int(q, 4, g->slot);
	sqlite3_bind_int(q, 5, g->round);
	sqlite3_bind_int(q, 6, g->position);
	sqlite3_bind_text(q, 7, c->st->targets[g->target].name, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 8, g->warmup);
	sqlite3_bind_int(q, 9, g->since_start);
	if (s->kv.version)
		sqlite3_bind_text(q, 10, s->kv.version, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 11, g->replica + 1);
	if (g->start > 0)
		sqlite3_bind_int(q, 12, g->start);
	if (g->group > 0)
		sqlite3_bind_int(q, 13, g->group);
	return db_finish(db, q, "cannot tag the run with its study", err, errlen);
}

static uint64_t random_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &s, sizeof s) != (ssize_t)sizeof s)
		s = (uint64_t)clock_mono_ns() ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	return s >> 1; /* stored as a signed 64-bit integer */
}

double study_look_alpha(double alpha, int k, int K)
{
	if (K < 1 || k < 1 || k > K)
		return 0;
	double a = (double)k / K, b = (double)(k - 1) / K;
	return alpha * (a * a - b * b);
}

/* Writes the sequential columns of the studies row. */
static int record_look(struct ctx *c, double alpha)
{
	sqlite3_stmt *q = NULL;

	if (db_prepare(c->db, &q,
	               "UPDATE studies SET max_looks = ?, looks = ?, alpha = ?, stop = ? "
	               "WHERE id = ?",
	               c->err, sizeof c->err) < 0)
		return -1;
	sqlite3_bind_int(q, 1, c->max_looks);
	sqlite3_bind_int(q, 2, c->looks);
	sqlite3_bind_double(q, 3, alpha);
	if (c->stop[0])
		sqlite3_bind_text(q, 4, c->stop, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 5, c->study_id);
	return db_finish(c->db, q, "cannot record the study's look", c->err, sizeof c->err);
}

/* After round `round` of a sequential study: 1 to go on, 0 to stop (c->stop says why),
 * -1 with c->err. */
static int after_round(struct ctx *c, int round)
{
	const struct study *st = c->st;
	int64_t elapsed = clock_mono_ms() - c->t0_ms;
	double per_round = (double)elapsed / round;
	char why[512] = "", e[512];

	if (round >= 2) {
		if (c->max_looks == 0) {
			/* K from the budget, once: the rounds it allows, one look after each
			 * from the second. */
			int fit = (int)((double)st->budget_ms / per_round);
			c->max_looks = (fit < st->rounds ? fit : st->rounds) - 1;
			if (c->max_looks < 1)
				c->max_looks = 1;
		}
		if (c->looks < c->max_looks) {
			double alpha = study_look_alpha(0.05, ++c->looks, c->max_looks);
			if (record_look(c, alpha) < 0)
				return -1;
			int r = c->o->look(c->o->look_arg, c->o->db_path, c->study_id, st, why,
			                   sizeof why, e, sizeof e);
			if (r < 0) {
				snprintf(c->err, sizeof c->err, "look %d: %s", c->looks, e);
				return -1;
			}
			fprintf(stderr,
			        "%s: look %d of %d after round %d (error rate %.4f%%): %s\n",
			        c->o->who, c->looks, c->max_looks, round, 100 * alpha,
			        r ? "every figure resolved" : why);
			if (r) {
				snprintf(c->stop, sizeof c->stop, "precise");
				return 0;
			}
			if (c->looks == c->max_looks) {
				snprintf(c->stop, sizeof c->stop, "budget");
				return 0;
			}
		}
	}
	if (round >= st->rounds) {
		snprintf(c->stop, sizeof c->stop, "rounds");
		return 0;
	}
	if ((double)elapsed + per_round > (double)st->budget_ms) {
		snprintf(c->stop, sizeof c->stop, "budget");
		return 0;
	}
	return 1;
}

/* The study's design (sql/011): as written, and which scenarios run side by side. */
static int record_design(struct ctx *c)
{
	static const char *const word[] = {"auto", "one-at-a-time", "side-by-side"};
	const struct study *st = c->st;
	char together[2 * STUDY_MAX_SCENARIOS + 1] = "";
	sqlite3_stmt *q = NULL;

	for (int i = 0; i < st->nscenarios; i++)
		snprintf(together + strlen(together), sizeof together - strlen(together), "%s%d",
		         i ? "," : "", st->together[i]);
	if (db_prepare(c->db, &q,
	               "UPDATE studies SET design = ?, together = ?, replicas = ?, starts = ?, "
	               "primary_fig = NULLIF(?, ''), warmup_jit = NULLIF(?, 0) WHERE id = ?",
	               c->err, sizeof c->err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, word[st->design], -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, together, -1, SQLITE_STATIC);
	int most = 1; /* the most processes of one target */
	for (int t = 0; t < st->ntargets; t++)
		most = st->targets[t].replicas > most ? st->targets[t].replicas : most;
	sqlite3_bind_int(q, 3, most);
	sqlite3_bind_int(q, 4, st->starts);
	sqlite3_bind_text(q, 5, st->primary, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 6, st->warmup_jit);
	sqlite3_bind_int64(q, 7, c->study_id);
	return db_finish(c->db, q, "cannot record the study's design", c->err, sizeof c->err);
}

static int new_study(struct ctx *c, const char *text, uint64_t seed)
{
	const struct study *st = c->st;
	char targets[STUDY_MAX_TARGETS * STUDY_NAME_MAX] = "";
	sqlite3_stmt *q = NULL;
	size_t used = 0;
	int managed = 0;

	for (int t = 0; t < st->ntargets; t++)
		managed += st->targets[t].start != NULL;
	for (int t = 0; t < st->ntargets; t++)
		used += (size_t)snprintf(targets + used, sizeof targets - used, "%s%s",
		                         t ? ", " : "", st->targets[t].name);
	if (db_prepare(
	        c->db, &q,
	        "INSERT INTO studies(uuid, name, file, text, order_kind, seed, rounds, "
	        "warmup_runs, keep_running, before_each, targets, managed, slots, status, "
	        "started_ms, until, budget_ms, warmup_steady, warmup_max) "
	        "VALUES(lower(hex(randomblob(16))),?,?,?,?,?,?,?,?,?,?,?,?,'running',?,?,?,?,"
	        "?)",
	        c->err, sizeof c->err) < 0)
		return -1;
	sqlite3_bind_text(q, 1, st->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, st->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, st->order == STUDY_RANDOM ? "random" : "interleaved", -1,
	                  SQLITE_STATIC);
	if (st->order == STUDY_RANDOM)
		sqlite3_bind_int64(q, 5, (int64_t)seed);
	sqlite3_bind_int(q, 6, st->rounds);
	sqlite3_bind_int(q, 7, st->warmup_runs);
	sqlite3_bind_int(q, 8, st->keep_running);
	char *before =
	    st->before_each_shown ? redact_text(&st->redact, st->before_each_shown) : NULL;
	if (before)
		sqlite3_bind_text(q, 9, before, -1, SQLITE_TRANSIENT);
	free(before);
	sqlite3_bind_text(q, 10, targets, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 11, managed);
	sqlite3_bind_int(q, 12, study_nslots(st));
	sqlite3_bind_int64(q, 13, clock_wall_ms());
	if (st->nuntil > 0)
		sqlite3_bind_text(q, 14, st->until_text, -1, SQLITE_STATIC);
	if (st->nuntil > 0 || st->starts_auto)
		sqlite3_bind_int64(q, 15, st->budget_ms);
	if (st->warmup_steady > 0 || st->warmup_jit > 0) {
		if (st->warmup_steady > 0)
			sqlite3_bind_double(q, 16, st->warmup_steady);
		sqlite3_bind_int(q, 17, st->warmup_max);
	}
	if (db_finish(c->db, q, "cannot record the study", c->err, sizeof c->err) < 0)
		return -1;
	c->study_id = sqlite3_last_insert_rowid(c->db);
	return record_design(c);
}

/* Finds the study to resume: its id, seed and done slots.  Returns 0, 1 when it is already
 * done (nothing to do), or -1 with c->err and *usage set when the input is at fault. */
static int find_resume(struct ctx *c, const char *text, uint64_t *seed, char *done, int *usage)
{
	sqlite3_stmt *q = NULL;
	int rc = -1, step;

	*usage = 1;
	if (db_prepare(c->db, &q,
	               "SELECT id, text, IFNULL(seed, 0), status FROM studies WHERE name = ? "
	               "ORDER BY id DESC LIMIT 1",
	               c->err, sizeof c->err) < 0) {
		*usage = 0;
		return -1;
	}
	sqlite3_bind_text(q, 1, c->st->name, -1, SQLITE_STATIC);
	if ((step = sqlite3_step(q)) != SQLITE_ROW) {
		snprintf(c->err, sizeof c->err, "no study named '%s' in %s to resume", c->st->name,
		         c->o->db_path);
		goto done;
	}
	c->study_id = sqlite3_column_int64(q, 0);
	if (strcmp(db_col_text(q, 1), text) != 0) {
		snprintf(
		    c->err, sizeof c->err,
		    "study %lld '%s' was begun with another file or other --set overrides: "
		    "a resumed study must run the same plan (start a new one without --resume)",
		    (long long)c->study_id, c->st->name);
		goto done;
	}
	*seed = (uint64_t)sqlite3_column_int64(q, 2);
	if (strcmp(db_col_text(q, 3), "done") == 0) {
		rc = 1;
		goto done;
	}
	sqlite3_finalize(q);
	q = NULL;
	*usage = 0;
	if (db_prepare(c->db, &q,
	               "SELECT sr.slot FROM study_runs sr JOIN runs r ON r.id = sr.run_id "
	               "WHERE sr.study_id = ? AND sr.slot IS NOT NULL AND r.status = 'done'",
	               c->err, sizeof c->err) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, c->study_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int s = sqlite3_column_int(q, 0);
		if (s >= 1 && s <= study_nslots(c->st))
			done[s - 1] = 1;
	}
	if (db_done(c->db, step, "cannot read the study's runs", c->err, sizeof c->err) < 0)
		goto done;
	{
		long long seq = 0;
		char sql[96];
		snprintf(sql, sizeof sql,
		         "SELECT IFNULL(MAX(seq), 0) FROM study_runs WHERE study_id = %lld",
		         (long long)c->study_id);
		if (db_int(c->db, sql, 0, &seq, c->err, sizeof c->err) < 0)
			goto done;
		c->seq = (int)seq;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

static void set_status(struct ctx *c, const char *status)
{
	sqlite3_stmt *q = NULL;
	char err[256];

	if (db_prepare(c->db, &q, "UPDATE studies SET status = ?, ended_ms = ? WHERE id = ?", err,
	               sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", c->o->who, err);
		return;
	}
	sqlite3_bind_text(q, 1, status, -1, SQLITE_STATIC);
	if (strcmp(status, "running") != 0)
		sqlite3_bind_int64(q, 2, clock_wall_ms());
	sqlite3_bind_int64(q, 3, c->study_id);
	if (sqlite3_step(q) != SQLITE_DONE)
		fprintf(stderr, "%s: cannot record the study's status: %s\n", c->o->who,
		        sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
}

/* A cell of a calibration being summed: its key and its runs' figures. */
struct calib_group {
	char scenario[256], label[128], kind[16];
	int conc;
	int64_t planned;
	double x[3][STUDY_MAX_ROUNDS]; /* tps, mean, p99 of each run */
	int n;                         /* runs */
};

/* Stores a complete cell's spread per metric (tps, mean, p99) through ins: *stored counts
 * the rows.  0, or -1 with c->err. */
static int store_cell(struct ctx *c, sqlite3_stmt *ins, const char *host,
                      const struct calib_group *g, int *stored)
{
	static const char *const metric[3] = {"tps", "mean", "p99"};

	for (int m = 0; m < 3; m++) {
		double sum = 0, ss = 0, mean, sd;
		for (int i = 0; i < g->n; i++)
			sum += g->x[m][i];
		mean = sum / g->n;
		for (int i = 0; i < g->n; i++)
			ss += (g->x[m][i] - mean) * (g->x[m][i] - mean);
		sd = sqrt(ss / (g->n - 1));
		if (!(mean > 0))
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, c->study_id);
		sqlite3_bind_int64(ins, 2, clock_wall_ms());
		sqlite3_bind_text(ins, 3, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, g->scenario, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, g->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, g->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(ins, 7, g->conc);
		sqlite3_bind_int64(ins, 8, g->planned);
		sqlite3_bind_text(ins, 9, metric[m], -1, SQLITE_STATIC);
		sqlite3_bind_int(ins, 10, g->n);
		sqlite3_bind_double(ins, 11, mean);
		sqlite3_bind_double(ins, 12, sd);
		sqlite3_bind_double(ins, 13, sd / mean);
		if (db_done(c->db, sqlite3_step(ins), "cannot store the calibration", c->err,
		            sizeof c->err) < 0)
			return -1;
		(*stored)++;
	}
	return 0;
}

/* 1 when the step row q belongs to the cell g is summing. */
static int same_cell(const struct calib_group *g, sqlite3_stmt *q)
{
	return g->n > 0 && !strcmp(g->scenario, db_col_text(q, 0)) &&
	       !strcmp(g->label, db_col_text(q, 1)) && !strcmp(g->kind, db_col_text(q, 2)) &&
	       g->conc == sqlite3_column_int(q, 3) && g->planned == sqlite3_column_int64(q, 4);
}

/* Adds the step row q to g, which starts a new cell unless `same`. */
static void add_to_cell(struct calib_group *g, sqlite3_stmt *q, int same)
{
	if (!same) {
		db_col_copy(q, 0, g->scenario, sizeof g->scenario);
		db_col_copy(q, 1, g->label, sizeof g->label);
		db_col_copy(q, 2, g->kind, sizeof g->kind);
		g->conc = sqlite3_column_int(q, 3);
		g->planned = sqlite3_column_int64(q, 4);
		g->n = 0;
	}
	if (g->n < STUDY_MAX_ROUNDS) {
		for (int m = 0; m < 3; m++)
			g->x[m][g->n] = sqlite3_column_double(q, 5 + m);
		g->n++;
	}
}

/* A one-target study measured how much runs of one system differ: stored per cell and
 * metric (tps, mean, p99) from the steps of its done measured runs. */
static int store_calibration(struct ctx *c)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	char host[256];
	int rc = -1, step, stored = 0;
	struct calib_group *g = calloc(1, sizeof *g); /* the cell being summed */

	if (!g) {
		snprintf(c->err, sizeof c->err, "out of memory");
		return -1;
	}
	if (gethostname(host, sizeof host) < 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = '\0';
	if (db_prepare(c->db, &q,
	               "SELECT r.name, r.label, r.mode, s.concurrency, s.planned_ms, s.tps, "
	               "s.mean_us / 1000.0, s.p99_us / 1000.0 FROM study_runs sr "
	               "JOIN runs r ON r.id = sr.run_id JOIN steps s ON s.run_id = r.id "
	               "WHERE sr.study_id = ? AND sr.warmup = 0 AND r.status = 'done' "
	               "AND s.window_end_ms IS NOT NULL AND s.requests > 0 "
	               "ORDER BY r.name, r.label, r.mode, s.concurrency, s.planned_ms, r.id",
	               c->err, sizeof c->err) < 0 ||
	    db_prepare(c->db, &ins,
	               "INSERT OR REPLACE INTO calibrations(study_id, t_ms, host, scenario, label, "
	               "kind, concurrency, planned_ms, metric, runs, mean, sd, cv) "
	               "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	               c->err, sizeof c->err) < 0)
		goto done;
	sqlite3_bind_int64(q, 1, c->study_id);
	for (;;) {
		step = sqlite3_step(q);
		int same = step == SQLITE_ROW && same_cell(g, q);
		/* the cell before this row is complete */
		if (!same && g->n >= 2 && store_cell(c, ins, host, g, &stored) < 0)
			goto done;
		if (step != SQLITE_ROW)
			break;
		add_to_cell(g, q, same);
	}
	if (db_done(c->db, step, "cannot read the study's steps", c->err, sizeof c->err) < 0)
		goto done;
	if (stored)
		fprintf(stderr, "%s: run-to-run spread stored as a calibration (study %lld)\n",
		        c->o->who, (long long)c->study_id);
	rc = 0;
done:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	free(g);
	return rc;
}

/* --- runs -------------------------------------------------------------------------------- */

/* A warm-up run at a fixed rate holds at most 50 ms of its arrivals in flight (16 at the
 * least), the rest dropped: a cold JVM answers slowly, and several of them side by side,
 * each sent the full rate, queue up thousands of requests that saturate the CPUs their JIT
 * needs (four cold Tomcat 10 at 300/s each on one core answered almost nothing for eight
 * 18-s warm-up runs).  Dropped arrivals cost nothing; warm-up runs are not compared. */
static void warmup_in_flight(struct scenario *scn, const struct tag *tag)
{
	int cap = (int)(scn->rate / 20);

	if (cap < 16)
		cap = 16;
	if (tag->warmup && scn->rate > 0 && scn->plan.max_in_flight > cap)
		scn->plan.max_in_flight = cap;
}

/* A warm-up run is not compared, so nothing profiles it: a profile costs the server a
 * little CPU and soak-perf a JIT map per window, for frames no report would show. */
static void warmup_unprofiled(struct scenario *scn, struct runner_opts *ro, const struct tag *tag)
{
	if (!tag->warmup)
		return;
	ro->profile = 0;
	for (int k = 0; k < scn->ncollect; k++)
		scn->collect[k].profile = 0;
}

int sr_one_run(struct ctx *c, int i, int sc, const struct tag *tag, int nth, int of)
{
	const struct study *st = c->st;
	struct tstate *s = &c->t[i];
	struct runner_opts ro = c->o->run;
	struct scenario scn;
	char e[1024], name[STUDY_NAME_MAX + 8];
	int rc;

	sr_inst_name(c, i, name, sizeof name);
	if (st->before_each && !c->skip_before_each &&
	    sr_sh_run(c, "before_each", st->before_each, i, tag->round, NULL, 1) < 0)
		return sr_signalled(c) ? (*c->o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT)
		                       : EXIT_RUNTIME;
	if (study_scenario(st, SR_TARGET(c, i), sc, &s->kv, c->o->sets, c->o->nsets, &scn, e,
	                   sizeof e) < 0) {
		snprintf(c->err, sizeof c->err, "target %s: %.900s", name, e);
		return EXIT_USAGE;
	}
	if (tag->member > 0)
		scn_keep_collector(&scn, "app");
	warmup_in_flight(&scn, tag);
	warmup_unprofiled(&scn, &ro, tag);
	c->tag = *tag;
	c->tag.since_start = s->started ? s->since_start + 1 : 0;
	if (tag->warmup)
		fprintf(stderr, "%s: warm-up run of %s (round %d; recorded, not compared)\n",
		        c->o->who, name, tag->round);
	else
		fprintf(stderr, "%s: run %d/%d: round %d, position %d: %s ('%s')\n", c->o->who, nth,
		        of, tag->round, tag->position, name, scn.name);
	ro.db_path = c->o->db_path;
	ro.start_at_ms = tag->start_at_ms;
	ro.on_begin = tag_run;
	ro.on_begin_arg = c;
	rc = runner_run(&scn, &ro);
	scn_release(&scn);
	s->since_start++;
	if (rc == EXIT_RUNTIME)
		snprintf(c->err, sizeof c->err, "a run against %s failed (see above)", name);
	return rc;
}

/* The one figure `sql` (run_id its ?1) gives for a run: its last column, NAN when there
 * is no row or the figure is NULL (or the query fails: c->err); with `first`, the figure
 * is the second column and *first gets the first. */
static double run_figure(struct ctx *c, const char *sql, int64_t run_id, int *first)
{
	sqlite3_stmt *q = NULL;
	int col = first ? 1 : 0;
	double x = NAN;

	if (db_prepare(c->db, &q, sql, c->err, sizeof c->err) < 0)
		return NAN;
	sqlite3_bind_int64(q, 1, run_id);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, col) != SQLITE_NULL) {
		if (first)
			*first = sqlite3_column_int(q, 0);
		x = sqlite3_column_double(q, col);
	}
	sqlite3_finalize(q);
	return x;
}

double sr_warm_figure(struct ctx *c, int64_t run_id, int *open)
{
	*open = 0;
	return run_figure(c,
	                  "SELECT r.model = 'open', CASE WHEN r.model = 'open' THEN s.mean_us "
	                  "ELSE s.tps END FROM steps s JOIN runs r ON r.id = s.run_id "
	                  "WHERE s.run_id = ? AND s.requests > 0 ORDER BY s.idx LIMIT 1",
	                  run_id, open);
}

/* The share of the app's CPU its JIT compiler threads took in a run (soak-procstat's
 * thr_jit_pct over cpu_pct), recorded with the run; NAN when no JVM was seen. */
static double jit_share(struct ctx *c, int64_t run_id)
{
	sqlite3_stmt *q = NULL;
	double x = run_figure(
	    c,
	    "SELECT SUM(CASE WHEN metric = 'thr_jit_pct' THEN value END) / "
	    "NULLIF(SUM(CASE WHEN metric = 'cpu_pct' THEN value END), 0) FROM samples "
	    "WHERE run_id = ?1 AND source = 'app' AND metric IN ('cpu_pct', 'thr_jit_pct') "
	    "AND t_ms IN (SELECT t_ms FROM samples WHERE run_id = ?1 AND source = 'app' "
	    "AND metric = 'thr_jit_pct')",
	    run_id, NULL);

	if (!isnan(x) &&
	    db_prepare(c->db, &q, "UPDATE study_runs SET jit_share = ? WHERE run_id = ?", c->err,
	               sizeof c->err) == 0) {
		sqlite3_bind_double(q, 1, x);
		sqlite3_bind_int64(q, 2, run_id);
		sqlite3_step(q);
		sqlite3_finalize(q);
	}
	return x;
}

void sr_warm_judge(struct ctx *c, int i, int64_t run_id)
{
	const struct study *st = c->st;
	struct tstate *s = &c->t[i];
	double x, prev = s->warm_fig, jit = jit_share(c, run_id);
	int open, fig_ok = 1, jit_ok = !(st->warmup_jit > 0) || isnan(jit) || jit <= st->warmup_jit;
	char name[STUDY_NAME_MAX + 8], what[160] = "";

	x = sr_warm_figure(c, run_id, &open);
	s->warm_fig = x;
	s->jit_share = jit;
	/* Quiet twice in a row: a JIT compiles in bursts, and one run can fall between two. */
	s->jit_quiet = !isnan(jit) && jit <= st->warmup_jit ? s->jit_quiet + 1 : 0;
	if (!isnan(jit) && st->warmup_jit > 0)
		jit_ok = s->jit_quiet >= 2;
	if (st->warmup_steady > 0) {
		fig_ok = !isnan(x) && !isnan(prev) && prev > 0 &&
		         fabs(x / prev - 1) <= st->warmup_steady;
		if (!isnan(x) && !isnan(prev) && prev > 0)
			snprintf(what, sizeof what, "%s %+.1f%% on the one before",
			         open ? "mean latency" : "TPS", 100 * (x / prev - 1));
	}
	if (!isnan(jit) && st->warmup_jit > 0)
		snprintf(what + strlen(what), sizeof what - strlen(what),
		         "%sJIT %.1f%% of its CPU (quiet %d run%s in a row)", what[0] ? ", " : "",
		         100 * jit, s->jit_quiet, s->jit_quiet == 1 ? "" : "s");
	s->steady = fig_ok && jit_ok;
	if (!what[0])
		return;
	fprintf(stderr, "%s: %s: warm-up run %d: %s: %s\n", c->o->who,
	        sr_inst_name(c, i, name, sizeof name), s->warm, what,
	        s->steady                   ? "steady"
	        : s->warm >= st->warmup_max ? "not steady, but warmup_max is reached: "
	                                      "its compared runs may still be warming"
	                                    : "not yet steady");
}

/* Whether instance i's warm-up is over: warmup_runs done, and steady (JIT quiet, figure
 * agreeing) unless warmup_max runs were made. */
int sr_warm_done(const struct ctx *c, int i)
{
	const struct study *st = c->st;
	const struct tstate *s = &c->t[i];
	int need = st->warmup_runs;

	if (st->warmup_steady > 0 && need < 2)
		need = 2; /* two runs to compare */
	if (s->warm < need)
		return 0;
	if (need == 0)
		return 1; /* no warm-up asked: the JIT's quiet extends warm-ups, never adds one */
	return s->warm >= st->warmup_max || s->steady ||
	       !(st->warmup_steady > 0 || st->warmup_jit > 0);
}

int sr_warm_up(struct ctx *c, int i, int round)
{
	const struct study *st = c->st;
	struct tstate *s = &c->t[i];

	while (!sr_warm_done(c, i)) {
		/* A warm-up runs each scenario once: the first run of a scenario after a start is
		 * cold in its own ways (the demo's first run at 600/s cost 1.5 times the CPU per
		 * request of the later ones, after four warm-up runs at 30 users).  Steadiness is
		 * judged on the first scenario's runs. */
		int64_t judged = -1;
		for (int sc = 0; sc < st->nscenarios; sc++) {
			struct tag w = {.round = round,
			                .target = SR_TARGET(c, i),
			                .replica = SR_REPLICA(c, i),
			                .warmup = 1};
			int rc = sr_one_run(c, i, sc, &w, 0, 0);
			if (rc != EXIT_OK && rc != EXIT_THRESHOLD) {
				s->warm++;
				return rc;
			}
			if (sc == 0)
				judged = c->run_id;
		}
		s->warm++;
		sr_warm_judge(c, i, judged);
	}
	return EXIT_OK;
}

/* Begins the study: the one to resume (its seed and done slots, *resumed done: nothing
 * left) or a new one (its seed drawn when random and not given).  EXIT_OK, or the exit
 * status with c->err. */
static int begin_study(struct ctx *c, const char *text, uint64_t *seed, char *done, int *finished)
{
	const struct study *st = c->st;
	int usage = 0;

	*finished = 0;
	if (c->o->resume) {
		int r = find_resume(c, text, seed, done, &usage);
		if (r < 0)
			return usage ? EXIT_USAGE : EXIT_RUNTIME;
		if (r == 1) {
			fprintf(stderr, "%s: study %lld '%s' is done: nothing to resume\n",
			        c->o->who, (long long)c->study_id, st->name);
			*finished = 1;
			return EXIT_OK;
		}
		set_status(c, "running");
		return EXIT_OK;
	}
	if (st->order == STUDY_RANDOM && !st->has_seed)
		*seed = random_seed();
	return new_study(c, text, *seed) < 0 ? EXIT_RUNTIME : EXIT_OK;
}

/* Says what the study will do (left of nslots runs to go) and shows it on /metrics. */
static void announce(struct ctx *c, uint64_t seed, int left, int nslots)
{
	const struct study *st = c->st;

	fprintf(stderr, "%s: study %lld '%s' into %s: %d of %d runs to go, %d round%s, %s order",
	        c->o->who, (long long)c->study_id, st->name, c->o->db_path, left, nslots,
	        st->rounds, st->rounds == 1 ? "" : "s",
	        st->order == STUDY_RANDOM ? "random" : "interleaved");
	if (st->order == STUDY_RANDOM)
		fprintf(stderr, " (seed %llu)", (unsigned long long)seed);
	if (st->starts_auto) {
		char b[32];
		fprintf(stderr, "; the targets started again while a start fits in %s (at most %d)",
		        dur_format(st->budget_ms, b, sizeof b), st->starts);
	}
	fputc('\n', stderr);
	if (c->o->study_id)
		*c->o->study_id = c->study_id;
	c->ms = (struct mstudy){.active = 1,
	                        .study_id = c->study_id,
	                        .rounds = st->rounds,
	                        .runs = st->starts_auto ? nslots / st->starts : nslots,
	                        .done = nslots - left,
	                        .running = 1};
	sr_publish(c);
}

/* Slot i (the nth of `left` to run): its target started when it must be, its warm-up
 * runs, then the measured run.  EXIT_OK to go on (*breached set when a threshold
 * failed), else the status that stops the study. */
static int run_slot(struct ctx *c, int i, const struct study_slot *sl, int nth, int left,
                    int *breached)
{
	const struct study *st = c->st;
	int t = sl->target, rc; /* one replica a target here: its instance is t */

	c->ms.round = sl->round;
	sr_publish(c);
	if (!st->keep_running && st->targets[t].start && !c->t[t].up &&
	    sr_start(c, t, sl->round) < 0)
		return sr_signalled(c) ? EXIT_SIGINT : EXIT_RUNTIME;
	if ((rc = sr_warm_up(c, t, sl->round)) != EXIT_OK)
		return rc;
	struct tag m = {.slot = i + 1,
	                .round = sl->round,
	                .position = sl->position,
	                .target = t,
	                .start = st->keep_running ? 1 : 0};
	rc = sr_one_run(c, t, sl->scenario, &m, nth, left);
	if (rc == EXIT_OK || rc == EXIT_THRESHOLD) {
		c->ms.done++;
		sr_publish(c);
	}
	if (rc == EXIT_THRESHOLD) {
		*breached = 1;
		rc = EXIT_OK;
	}
	if (rc != EXIT_OK)
		return rc;
	if (!st->keep_running) /* each run on a fresh start: no state carried over */
		sr_stop(c, t, sl->round);
	return EXIT_OK;
}

/* A sequential study's look after round `round`: 1 to go on, 0 when it stops there (said
 * and recorded), -1 with c->err. */
static int look_after_round(struct ctx *c, int round)
{
	int go = after_round(c, round);

	if (go != 0)
		return go;
	fprintf(stderr, "%s: sequential study stops after round %d: %s\n", c->o->who, round,
	        !strcmp(c->stop, "precise")  ? "every figure resolved"
	        : !strcmp(c->stop, "rounds") ? "its rounds are done"
	                                     : "its budget is spent");
	if (record_look(c, c->looks ? study_look_alpha(0.05, c->looks, c->max_looks) : 0.05) < 0)
		return -1;
	return 0;
}

/* The schedule's slots not done yet, in order (the targets kept running started first).
 * EXIT_OK with *complete when the study got to its end (or a sequential study stopped),
 * else the status that stopped it. */
static int run_slots(struct ctx *c, const struct study_slot *slots, int nslots, const char *done,
                     int left, int *breached, int *complete)
{
	const struct study *st = c->st;
	int nth = 0, rc;

	*complete = 0;
	if (study_grouped(st))
		return sr_run_grouped(c, slots, nslots, done, left, breached, complete);
	if (st->keep_running)
		for (int t = 0; t < st->ntargets; t++)
			if (st->targets[t].start && sr_start(c, t, 1) < 0)
				return sr_signalled(c) ? EXIT_SIGINT : EXIT_RUNTIME;
	for (int i = 0; i < nslots; i++) {
		const struct study_slot *sl = &slots[i];
		if (done[i])
			continue;
		if ((rc = run_slot(c, i, sl, ++nth, left, breached)) != EXIT_OK)
			return rc;
		/* A sequential study looks after each whole round. */
		if (st->nuntil > 0 && (i + 1 == nslots || slots[i + 1].round != sl->round)) {
			int go = look_after_round(c, sl->round);
			if (go < 0)
				return EXIT_RUNTIME;
			if (!go)
				break;
		}
	}
	*complete = 1;
	return EXIT_OK;
}

/* The study's end, however it came: the targets stopped, its status recorded, a
 * one-target study's calibration stored, what happened said.  Returns the exit status. */
static int end_study(struct ctx *c, int rc, int complete, int breached)
{
	const struct study *st = c->st;
	const struct study_run_opts *o = c->o;
	const char *status = complete ? "done" : "interrupted";

	if (rc == EXIT_SIGINT || rc == EXIT_SIGTERM || sr_signalled(c)) {
		status = "interrupted";
		if (rc == EXIT_OK || rc == EXIT_RUNTIME)
			rc = *o->run.sigterm ? EXIT_SIGTERM : EXIT_SIGINT;
	} else if (rc != EXIT_OK) {
		status = "failed";
	}
	for (int i = study_ninstances(st) - 1; i >= 0; i--)
		sr_stop(c, i, 0);
	set_status(c, status);
	c->ms.running = 0;
	sr_publish(c);
	if (!strcmp(status, "done") && st->ntargets == 1 && store_calibration(c) < 0) {
		say_redacted(o->who, &st->redact, c->err);
		rc = EXIT_RUNTIME;
	}
	if (!strcmp(status, "done"))
		fprintf(stderr, "%s: study %lld '%s' done; `soak report %s` compares its labels\n",
		        o->who, (long long)c->study_id, st->name, o->db_path);
	else if (rc != EXIT_SIGINT && rc != EXIT_SIGTERM)
		say_redacted(o->who, &st->redact, c->err); /* it may quote a command and its output */
	if (strcmp(status, "done"))
		fprintf(stderr, "%s: study %lld %s; the same command with --resume continues it\n",
		        o->who, (long long)c->study_id, status);
	if (rc == EXIT_OK && breached)
		rc = EXIT_THRESHOLD;
	c->err[0] = '\0';
	return rc;
}

int study_run_all(const struct study *st, const struct study_run_opts *o)
{
	struct ctx *c = calloc(1, sizeof *c);
	int nslots = study_nslots(st), rc = EXIT_OK, breached = 0, left = 0, finished, complete;
	struct study_slot *slots = calloc((size_t)nslots, sizeof *slots);
	char *done = calloc((size_t)nslots, 1),
	     *whole = scn_text_with_sets(st->text, o->sets, o->nsets),
	     *text = whole ? redact_ini(&st->redact, whole) : NULL; /* what studies.text stores */
	uint64_t seed = st->has_seed ? st->seed : 0;

	if (o->study_id)
		*o->study_id = -1;
	free(whole);
	if (!c || !slots || !done || !text) {
		fprintf(stderr, "%s: out of memory\n", o->who);
		free(c);
		free(slots);
		free(done);
		free(text);
		return EXIT_RUNTIME;
	}
	c->st = st;
	c->o = o;
	c->t0_ms = clock_mono_ms();
	if (st->nuntil > 0 && !o->look) {
		snprintf(c->err, sizeof c->err, "%s cannot run a sequential study (until)", o->who);
		rc = EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < study_ninstances(st); i++)
		if (study_kv_copy(&c->t[i].kv, &st->targets[SR_TARGET(c, i)].given) < 0) {
			snprintf(c->err, sizeof c->err, "out of memory");
			rc = EXIT_RUNTIME;
			goto out;
		}
	if (db_open(o->db_path, DB_CREATE, &c->db, c->err, sizeof c->err) < 0) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if ((rc = begin_study(c, text, &seed, done, &finished)) != EXIT_OK || finished)
		goto out;
	study_schedule(st, seed, slots);
	for (int i = 0; i < nslots; i++)
		left += !done[i];
	announce(c, seed, left, nslots);
	rc = run_slots(c, slots, nslots, done, left, &breached, &complete);
	rc = end_study(c, rc, complete, breached);
out:
	if (c->err[0])
		fprintf(stderr, "%s: %s\n", o->who, c->err);
	for (int i = 0; i < study_ninstances(st); i++)
		study_kv_release(&c->t[i].kv);
	db_close(c->db);
	free(c);
	free(slots);
	free(done);
	free(text);
	return rc;
}
