/* resume: a stopped run read back and judged for --resume (resume.h); only a plain soak
 * run whose runner is gone and whose scenario is the same may continue. */
#include "resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "dur.h"
#include "redact.h"
#include "store/results.h"

/* The trailer scenario.c puts after a stored text to list the --set overrides. */
#define TRAILER  "; overrides given on the command line:\n"
#define SET_LINE ";   --set "
#define MAX_SETS 256

/* The run as read back. */
struct stored {
	char status[16];       /* as stored: running | done | interrupted | failed */
	struct res_runner rn;  /* the runner: alive? (heartbeat: or the start) */
	int64_t heartbeat_raw; /* heartbeat_ms as stored, -1 when NULL: the takeover's check */
	int64_t interval_ms;
	int64_t started_ms;
	char origin[32];   /* soak | jmeter */
	char mode[16];     /* fixed | sweep */
	int merged, agent; /* folded into a merged run; an agent's share */
	char *scenario;    /* the stored text (owned), or NULL */
	char *file;        /* the scenario file it came from (owned), or NULL */
	char client[16];   /* the HTTP client that sent: curl | lean, or "" (before 006) */
};

/* 1 with *r filled, 0 when there is no such run, -1 on a database failure. */
static int read_run(sqlite3 *db, int64_t id, struct stored *r, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (db_prepare(db, &q,
	               "SELECT status, host, IFNULL(pid, -1), IFNULL(pid_start, -1), boot_id, "
	               "IFNULL(heartbeat_ms, started_ms), IFNULL(heartbeat_ms, -1), interval_ms, "
	               "started_ms, scenario, scenario_file, IFNULL(origin, 'soak'), mode, "
	               "merged_into IS NOT NULL, agent_index IS NOT NULL, IFNULL(client, '') "
	               "FROM runs WHERE id = ?",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const char *sc = db_col_text(q, 9);
		const char *fl = db_col_text(q, 10);
		db_col_copy(q, 0, r->status, sizeof r->status);
		res_runner_read(q, 1, &r->rn);
		r->heartbeat_raw = sqlite3_column_int64(q, 6);
		r->interval_ms = sqlite3_column_int64(q, 7);
		r->started_ms = sqlite3_column_int64(q, 8);
		r->scenario = sc ? strdup(sc) : NULL;
		r->file = fl ? strdup(fl) : NULL;
		if ((sc && !r->scenario) || (fl && !r->file))
			rc = SQLITE_NOMEM;
		db_col_copy(q, 11, r->origin, sizeof r->origin);
		db_col_copy(q, 12, r->mode, sizeof r->mode);
		r->merged = sqlite3_column_int(q, 13);
		r->agent = sqlite3_column_int(q, 14);
		db_col_copy(q, 15, r->client, sizeof r->client);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_NOMEM) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return db_done(db, rc, "cannot read the run", err, errlen);
}

/* The scenario the run ran: its stored text parsed again with the --set overrides its
 * trailer lists, or the given file checked against it.  -2 (err) when neither works. */
static int scenario_of(const struct stored *r, int64_t id, const char *file, char *const *sets,
                       int nsets, struct scenario *s, char *err, size_t errlen)
{
	char name[64], e[1024];
	char *base = NULL, *tsets[MAX_SETS];
	int ntsets = 0, rc = -2;
	const char *t;

	if (!r->scenario) {
		snprintf(err, errlen, "run %lld has no scenario text: it cannot be resumed",
		         (long long)id);
		return -2;
	}
	if (file) {
		if (scn_load(s, file, sets, nsets, e, sizeof e) < 0) {
			snprintf(err, errlen, "%s", e);
			return -2;
		}
		if (strcmp(s->text, r->scenario) != 0) {
			scn_release(s);
			snprintf(err, errlen,
			         "%s (with these --set options) is not the scenario run %lld ran: "
			         "one run must not mix two tests; resume with the same file and "
			         "options, or with no file to take the run's own text",
			         file, (long long)id);
			return -2;
		}
		return 0;
	}
	if (nsets > 0) {
		snprintf(err, errlen,
		         "--set changes the scenario: without a file, --resume takes run %lld's "
		         "own text as it ran",
		         (long long)id);
		return -2;
	}
	if (strstr(r->scenario, REDACTED)) { /* it would send "[redacted]" */
		snprintf(err, errlen,
		         "run %lld's scenario was stored with its secrets redacted: give its file "
		         "(and the same --set options) to resume it",
		         (long long)id);
		return -2;
	}
	/* Split the trailer off and take its overrides back. */
	base = strdup(r->scenario);
	if (!base) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t = strstr(base, TRAILER);
	if (t && (t == base || t[-1] == '\n')) {
		char *p = (char *)t + strlen(TRAILER);
		*(char *)t = '\0';
		while (*p && ntsets < MAX_SETS && strncmp(p, SET_LINE, strlen(SET_LINE)) == 0) {
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			tsets[ntsets++] = p + strlen(SET_LINE);
			p = nl ? nl + 1 : p + strlen(p);
		}
	}
	snprintf(name, sizeof name, "(run %lld)", (long long)id);
	if (scn_parse_text(s, r->file ? r->file : name, base, tsets, ntsets, e, sizeof e) < 0) {
		snprintf(err, errlen,
		         "run %lld's scenario no longer parses here: %s (give its file)",
		         (long long)id, e);
		goto done;
	}
	if (strcmp(s->text, r->scenario) != 0) {
		scn_release(s);
		snprintf(err, errlen, "run %lld's scenario text cannot be rebuilt: give its file",
		         (long long)id);
		goto done;
	}
	rc = 0;
done:
	free(base);
	return rc;
}

/* Adds the steady intervals of run `id`'s step k into *st (initialised here for the
 * model); *seconds their summed length. */
static int steady_of(sqlite3 *db, int64_t id, int k, int open, struct istats *st, double *seconds,
                     char *err, size_t errlen)
{
	struct res_window w = {
	    .run_id = id, .step_idx = k, .phase = "steady", .from_ms = -1, .to_ms = -1};
	int n;

	if ((open ? istats_init_open(st, err, errlen) : istats_init(st, err, errlen)) < 0)
		return -1;
	if (res_collect(db, &w, st, seconds, &n, err, errlen) < 0) {
		istats_release(st);
		return -1;
	}
	return n;
}

/* Where the run stopped: the last step begun, the end of its last interval, and the
 * window its steady intervals cover before the stop.  -2 when nothing is left. */
static int where_stopped(sqlite3 *db, int64_t id, const struct stored *r, const struct scenario *s,
                         struct run_resume *st, char *err, size_t errlen)
{
	struct runner_resume *rr = &st->rr;
	sqlite3_stmt *q = NULL;
	int64_t last = -1, started = -1, planned = 0;
	int open = s->plan.model == PLAN_OPEN;
	double secs;

	if (db_prepare(db, &q,
	               "SELECT idx, started_ms, planned_ms FROM steps WHERE run_id = ? "
	               "ORDER BY idx DESC LIMIT 1",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		last = sqlite3_column_int64(q, 0);
		started = sqlite3_column_int64(q, 1);
		planned = sqlite3_column_int64(q, 2);
	}
	sqlite3_finalize(q);
	q = NULL;
	/* The gap starts where the last interval ended (or the last step, or the run, began). */
	if (db_prepare(db, &q, "SELECT MAX(start_ms + length_ms) FROM intervals WHERE run_id = ?",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	rr->gap_from_ms = started >= 0 ? started : r->started_ms;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		rr->gap_from_ms = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	q = NULL;

	if (last >= s->nlevels) {
		snprintf(err, errlen, "run %lld has %lld steps, its scenario %d", (long long)id,
		         (long long)last + 1, s->nlevels);
		return -2;
	}
	rr->step = 0;
	rr->step_started_ms = -1;
	if (last >= 0 && started + planned - rr->gap_from_ms > 1000) {
		/* The stop cut this step: it runs for what is left of it. */
		rr->step = (int)last;
		rr->step_started_ms = started;
		int n = steady_of(db, id, (int)last, open, &st->prior, &secs, err, errlen);
		if (n < 0)
			return -1;
		st->have_prior = 1;
		if (n > 0) {
			rr->prior = &st->prior;
			if (db_prepare(
			        db, &q,
			        "SELECT MIN(start_ms), MAX(start_ms + length_ms) FROM intervals "
			        "WHERE run_id = ? AND step_idx = ? AND phase = 'steady'",
			        err, errlen) < 0)
				return -1;
			sqlite3_bind_int64(q, 1, id);
			sqlite3_bind_int64(q, 2, last);
			if (sqlite3_step(q) == SQLITE_ROW) {
				rr->prior_from_ms = sqlite3_column_int64(q, 0);
				rr->prior_to_ms = sqlite3_column_int64(q, 1);
			}
			sqlite3_finalize(q);
			q = NULL;
		}
	} else if (last >= 0) {
		rr->step = (int)last + 1;
		if (rr->step >= s->nlevels) {
			snprintf(err, errlen,
			         "run %lld had run all its steps when it stopped: nothing is left "
			         "to run",
			         (long long)id);
			return -2;
		}
	}
	/* The steps before: their figures, for the summary at the end. */
	for (int k = 0; k < rr->step; k++) {
		struct istats one;
		int n = steady_of(db, id, k, open, &one, &secs, err, errlen);
		if (n < 0)
			return -1;
		istats_figures(&one, secs, &st->done[k]);
		istats_release(&one);
	}
	rr->done = st->done;
	return 0;
}

int resume_prepare(const char *db_path, int64_t id, const char *file, char *const *sets, int nsets,
                   struct scenario *s, struct run_resume *st, char *err, size_t errlen)
{
	struct stored r;
	sqlite3 *db = NULL;
	const char *status;
	int rc, have_scn = 0;
	char a[32];

	memset(&r, 0, sizeof r);
	memset(st, 0, sizeof *st);
	if (db_open(db_path, 0, &db, err, errlen) < 0)
		return -2;
	rc = read_run(db, id, &r, err, errlen);
	if (rc <= 0) {
		if (rc == 0)
			snprintf(err, errlen, "no run %lld in '%s'", (long long)id, db_path);
		rc = rc == 0 ? -2 : -1;
		goto done;
	}
	rc = -2;
	status = res_status(r.status, r.rn.host, r.rn.pid, r.rn.pid_start, r.rn.boot,
	                    r.rn.heartbeat, r.interval_ms, clock_wall_ms());
	if (strcmp(r.origin, "soak") != 0) {
		snprintf(err, errlen, "run %lld was imported from %s: there is nothing to resume",
		         (long long)id, r.origin);
		goto done;
	}
	if (r.merged || r.agent) {
		snprintf(
		    err, errlen,
		    "run %lld is one agent's share of a group (soak run --agent): resumed alone "
		    "it would leave the group's schedule",
		    (long long)id);
		goto done;
	}
	if (strcmp(status, "running") == 0) {
		snprintf(
		    err, errlen,
		    "run %lld is still running (pid %lld on %s, last heartbeat %s ago): only a "
		    "run whose runner is gone can be resumed",
		    (long long)id, (long long)r.rn.pid, r.rn.host,
		    dur_format((clock_wall_ms() - r.rn.heartbeat) / 1000 * 1000, a, sizeof a));
		goto done;
	}
	if (strcmp(status, "done") == 0) {
		snprintf(err, errlen, "run %lld is already done: there is nothing to resume",
		         (long long)id);
		goto done;
	}
	if ((rc = scenario_of(&r, id, file, sets, nsets, s, err, errlen)) < 0)
		goto done;
	have_scn = 1;
	/* The rest of the run goes out through the client that sent the first part (soak run
	 * --client may still choose another). */
	if (s->plan.protocol == PLAN_HTTP && plan_client_parse(r.client) > 0)
		s->plan.client = (enum plan_client)plan_client_parse(r.client);
	rc = -2;
	if (strcmp(r.mode, "sweep") == 0 && !s->sweep) {
		snprintf(err, errlen,
		         "run %lld was a capacity search (--find-max-rate): its steps depend on "
		         "each other's outcome, so it cannot be resumed",
		         (long long)id);
		goto done;
	}
	if ((rc = where_stopped(db, id, &r, s, st, err, errlen)) < 0)
		goto done;
	snprintf(st->status_was, sizeof st->status_was, "%s", r.status);
	st->rr.run_id = id;
	st->rr.status_was = st->status_was;
	st->rr.heartbeat_was = r.heartbeat_raw;
	rc = 0;
done:
	if (rc < 0) {
		resume_release(st);
		if (have_scn)
			scn_release(s);
	}
	free(r.scenario);
	free(r.file);
	db_close(db);
	return rc;
}

void resume_release(struct run_resume *st)
{
	if (st->have_prior)
		istats_release(&st->prior);
	st->have_prior = 0;
	st->rr.prior = NULL;
}
