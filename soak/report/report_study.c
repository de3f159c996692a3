/* report_study: what the report knows about studies (soak study, soak calibrate): each
 * run's study tags, the studies' designs, the stored calibrations, and the cold_start
 * validity items.  Reading is done database by database (report_read.h); the rest works on
 * the model alone. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "redact.h"
#include "dur.h"
#include "report_read.h"

#define DESIGN_MAX 1400 /* bytes of one study's design sentence */

static char *dup_col(sqlite3_stmt *q, int i)
{
	const unsigned char *s = sqlite3_column_text(q, i);
	return strdup(s ? (const char *)s : "");
}

static void copy_col(sqlite3_stmt *q, int i, char *dst, size_t len)
{
	const unsigned char *s = sqlite3_column_text(q, i);
	snprintf(dst, len, "%s", s ? (const char *)s : "");
}

/* Whether the database has the study tables (a read-only file of an older schema may not). */
static int has_tables(struct reader *rd)
{
	long long n = 0;
	char err[256];
	if (db_int(rd->db,
	           "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
	           "('studies', 'study_runs', 'calibrations')",
	           0, &n, err, sizeof err) < 0)
		return 0;
	return n == 3;
}

/* Index of study `id` of the current database in r->studies, loading it when new; -1 with
 * rd->err on failure. */
/* The studies row id's columns of sql, columns a later migration added (col is one of
 * them): 1 with the row in *q, 0 when the database predates col or has no row, -1 on
 * error. */
static int later_row(struct reader *rd, sqlite3_stmt **q, int64_t id, const char *col,
                     const char *sql)
{
	if (!rpt_rd_has(rd->db, "studies", col))
		return 0;
	if (db_prepare(rd->db, q, sql, rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(*q, 1, id);
	return sqlite3_step(*q) == SQLITE_ROW;
}

static int load_study(struct reader *rd, int64_t id)
{
	struct report *r = rd->r;
	struct rpt_study *st;
	sqlite3_stmt *q = NULL;
	int rc = -1;

	for (int i = 0; i < r->nstudies; i++)
		if (r->studies[i].db == rd->dbi && r->studies[i].id == id)
			return i;
	if (r->nstudies >= RPT_MAX_STUDIES) {
		snprintf(rd->err, rd->errlen,
		         "runs of more than %d studies: choose some with --runs", RPT_MAX_STUDIES);
		return -1;
	}
	if (!r->studies && !(r->studies = calloc(RPT_MAX_STUDIES, sizeof *r->studies)))
		return rpt_rd_oom(rd);
	if (db_prepare(rd->db, &q,
	               "SELECT name, order_kind, IFNULL(seed, 0), rounds, warmup_runs, "
	               "keep_running, IFNULL(before_each, ''), targets, slots, status, managed, "
	               "(SELECT COUNT(DISTINCT sr.slot) FROM study_runs sr JOIN runs ru "
	               "ON ru.id = sr.run_id WHERE sr.study_id = s.id AND sr.slot IS NOT NULL "
	               "AND ru.status = 'done') FROM studies s WHERE id = ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		snprintf(rd->err, rd->errlen, "study %lld of a run is missing from its database",
		         (long long)id);
		goto done;
	}
	st = &r->studies[r->nstudies];
	memset(st, 0, sizeof *st);
	st->db = rd->dbi;
	st->id = id;
	st->name = dup_col(q, 0);
	copy_col(q, 1, st->order, sizeof st->order);
	st->seed = sqlite3_column_int64(q, 2);
	st->rounds = sqlite3_column_int(q, 3);
	st->warmup_runs = sqlite3_column_int(q, 4);
	st->keep_running = sqlite3_column_int(q, 5);
	{ /* redacted again: an older soak stored it as given */
		const unsigned char *be = sqlite3_column_text(q, 6);
		st->before_each = redact_text(NULL, be ? (const char *)be : "");
	}
	st->targets = dup_col(q, 7);
	st->slots = sqlite3_column_int(q, 8);
	copy_col(q, 9, st->status, sizeof st->status);
	st->managed = sqlite3_column_int(q, 10);
	st->done_slots = sqlite3_column_int(q, 11);
	r->nstudies++;
	if (!st->name || !st->before_each || !st->targets) {
		rpt_rd_oom(rd);
		goto done;
	}
	rc = r->nstudies - 1;
	/* A sequential study (sql/009): what it ran until, and the looks it took. */
	sqlite3_finalize(q);
	q = NULL;
	switch (later_row(rd, &q, id, "alpha",
	                  "SELECT IFNULL(until, ''), IFNULL(budget_ms, 0), IFNULL(max_looks, 0), "
	                  "IFNULL(looks, 0), IFNULL(alpha, 0), IFNULL(stop, '') FROM studies "
	                  "WHERE id = ?")) {
	case -1:
		rc = -1;
		goto done;
	case 1:
		copy_col(q, 0, st->until, sizeof st->until);
		st->budget_ms = sqlite3_column_int64(q, 1);
		st->max_looks = sqlite3_column_int(q, 2);
		st->looks = sqlite3_column_int(q, 3);
		st->alpha = sqlite3_column_double(q, 4);
		copy_col(q, 5, st->stop, sizeof st->stop);
	}
	/* Warm-up until steady (sql/010). */
	sqlite3_finalize(q);
	q = NULL;
	switch (later_row(rd, &q, id, "warmup_steady",
	                  "SELECT IFNULL(warmup_steady, 0), IFNULL(warmup_max, 0) FROM studies "
	                  "WHERE id = ?")) {
	case -1:
		rc = -1;
		goto done;
	case 1:
		st->warmup_steady = sqlite3_column_double(q, 0);
		st->warmup_max = sqlite3_column_int(q, 1);
	}
done:
	sqlite3_finalize(q);
	return rc;
}

int rpt_read_study_run(struct reader *rd, struct rpt_run *run)
{
	sqlite3_stmt *q = NULL;
	int rc = -1, step;

	run->study = -1;
	run->compared = 1;
	if (!has_tables(rd))
		return 0;
	if (db_prepare(rd->db, &q,
	               "SELECT study_id, round, position, warmup, since_start FROM study_runs "
	               "WHERE run_id = ?",
	               rd->err, rd->errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	step = sqlite3_step(q);
	if (step == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(q, 0);
		run->round = sqlite3_column_int(q, 1);
		run->position = sqlite3_column_int(q, 2);
		run->warmup = sqlite3_column_int(q, 3) != 0;
		run->since_start = sqlite3_column_int(q, 4);
		/* A study's slot whose run was interrupted is run again on --resume: only
		 * finished runs are its evidence. */
		run->compared = !run->warmup && strcmp(run->status, "done") == 0;
		if ((run->study = load_study(rd, sid)) < 0)
			goto done;
	} else if (step != SQLITE_DONE) {
		db_fail(rd->db, "cannot read study_runs", rd->err, rd->errlen);
		goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

/* Calibrations: one row per metric in the database; one rpt_cal per measured cell. */
int rpt_read_studies(struct reader *rd)
{
	struct report *r = rd->r;
	sqlite3_stmt *q = NULL;
	int rc = -1, step;

	if (!has_tables(rd))
		return 0;
	if (db_prepare(rd->db, &q,
	               "SELECT MIN(id), MAX(t_ms), host, scenario, label, kind, concurrency, "
	               "planned_ms, MIN(runs), "
	               "MAX(CASE WHEN metric = 'tps' THEN cv END), "
	               "MAX(CASE WHEN metric = 'mean' THEN cv END), "
	               "MAX(CASE WHEN metric = 'p99' THEN cv END) "
	               "FROM calibrations GROUP BY IFNULL(study_id, -id), host, scenario, label, "
	               "kind, concurrency, planned_ms ORDER BY MIN(id)",
	               rd->err, rd->errlen) < 0)
		return -1;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct rpt_cal *k;
		if (r->ncals >= RPT_MAX_CALS)
			break; /* the most recent are not the first: see the ORDER BY (oldest kept)
			        */
		if (!r->cals && !(r->cals = calloc(RPT_MAX_CALS, sizeof *r->cals))) {
			rpt_rd_oom(rd);
			goto done;
		}
		k = &r->cals[r->ncals++];
		k->db = rd->dbi;
		k->id = sqlite3_column_int64(q, 0);
		k->t_ms = sqlite3_column_int64(q, 1);
		copy_col(q, 2, k->host, sizeof k->host);
		copy_col(q, 3, k->scenario, sizeof k->scenario);
		copy_col(q, 4, k->label, sizeof k->label);
		k->sweep = strcmp((const char *)sqlite3_column_text(q, 5), "sweep") == 0;
		k->concurrency = sqlite3_column_int(q, 6);
		k->planned_ms = sqlite3_column_int64(q, 7);
		k->runs = sqlite3_column_int(q, 8);
		k->cv[RPT_M_TPS] = rpt_rd_col(q, 9);
		k->cv[RPT_M_MEAN] = rpt_rd_col(q, 10);
		k->cv[RPT_M_P99] = rpt_rd_col(q, 11);
		k->cv[RPT_M_ERR] = NAN;
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW) {
		db_fail(rd->db, "cannot read calibrations", rd->err, rd->errlen);
		goto done;
	}
	rc = 0;
done:
	sqlite3_finalize(q);
	return rc;
}

/* --- designs ---------------------------------------------------------------------------- */

/* Appends to a bounded sentence. */
struct dbuf {
	char s[DESIGN_MAX];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void put(struct dbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (b->n >= sizeof b->s - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->n = (size_t)k < sizeof b->s - b->n ? b->n + (size_t)k : sizeof b->s - 1;
}

/* "ab ba ab": the rounds' orders as the report's runs show them (first four rounds). */
static void rounds_seen(const struct report *r, int si, struct dbuf *b)
{
	int shown = 0;
	for (int round = 1; round <= r->studies[si].rounds && shown < 4; round++) {
		int any = 0;
		for (int pos = 1; pos <= 4 * RPT_MAX_LABELS; pos++)
			for (int i = 0; i < r->nruns; i++) {
				const struct rpt_run *run = &r->runs[i];
				if (run->study != si || run->warmup || run->round != round ||
				    run->position != pos || !run->compared)
					continue;
				put(b, "%s%s", any ? " " : (shown ? "; " : ""),
				    r->labels[run->label].name);
				any = 1;
				break;
			}
		shown += any;
	}
	if (r->studies[si].rounds > shown && shown)
		put(b, "; ...");
}

/* "Placement: the generator on CPU 0; app on CPU 1 (tomcat9, tomcat10); db on CPU 1. ",
 * from the CPU lists the study's runs recorded (run_env cpu_list), when the generator's
 * CPUs differ from every source's; nothing when it was not placed. */
/* How many scenarios study si ran (the distinct names of its runs). */
static int study_scenarios(const struct report *r, int si)
{
	int n = 0;
	for (int i = 0; i < r->nruns; i++) {
		int seen = r->runs[i].study != si;
		for (int j = 0; j < i && !seen; j++)
			seen = r->runs[j].study == si && !strcmp(r->runs[j].name, r->runs[i].name);
		n += !seen;
	}
	return n;
}

/* Warm-up until steady: the rule, and per target how many warm-up runs its starts took and
 * whether the last two agreed (the study's own test, redone on the recorded figures). */
static void warmup_clause(const struct report *r, int si, struct dbuf *b)
{
	const struct rpt_study *st = &r->studies[si];
	const char *first = NULL; /* the scenario steadiness is judged on */
	int said = 0, open = 0, nsc = study_scenarios(r, si);

	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].study == si && r->runs[i].warmup && r->runs[i].nsteps > 0) {
			open = r->runs[i].steps[0].rate > 0;
			first = r->runs[i].name;
			break;
		}
	put(b,
	    "warm-up runs%s after each start went on until two in a row agreed within %g %% in "
	    "%s%s%s (at least %d, at most %d) and were not compared: ",
	    nsc > 1 ? " of each scenario" : "", 100 * st->warmup_steady,
	    open ? "mean latency" : "TPS", nsc > 1 && first ? " of " : "",
	    nsc > 1 && first ? first : "", st->warmup_runs < 2 ? 2 : st->warmup_runs,
	    st->warmup_max);
	for (int l = 0; l < r->nlabels; l++) {
		int n = 0, starts = 0, unsteady = 0, in = 0;
		double prev = NAN, last = NAN;
		for (int i = 0; i <= r->nruns; i++) {
			const struct rpt_run *run = i < r->nruns ? &r->runs[i] : NULL;
			if (run && (run->study != si || run->label != l))
				continue;
			if (run && run->warmup && first && strcmp(run->name, first) != 0)
				continue; /* another scenario's warm-up: judged on the first's */
			if (run && run->warmup) {
				if (!in || run->since_start == 1)
					starts++, prev = last = NAN;
				in = 1;
				n++;
				prev = last;
				last = open ? run->f.mean_us : run->f.tps;
				continue;
			}
			/* A sequence of warm-up runs ends: did its last two agree? */
			if (in && !(prev > 0 && fabs(last / prev - 1) <= st->warmup_steady + 1e-9))
				unsteady++;
			in = 0;
		}
		if (!starts)
			continue;
		put(b, "%s%s %d", said ? ", " : "", r->labels[l].name, n);
		if (unsteady)
			put(b,
			    " (not steady after %s: its compared runs may still have been "
			    "warming)",
			    starts > 1 ? "some starts" : "the last one");
		said = 1;
	}
	put(b, "%s. ", said ? "" : "none recorded");
}

static void placement_clause(const struct report *r, int si, struct dbuf *b)
{
	char gen[64] = "", srcs[8][RPT_NAME_MAX], lists[8][64], labels[8][160];
	int n = 0, mixed = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		const char *g;
		if (run->study != si || !(g = rpt_env_get(run, "", "cpu_list")))
			continue;
		if (!gen[0])
			snprintf(gen, sizeof gen, "%s", g);
		else if (strcmp(gen, g) != 0)
			mixed = 1;
		for (int k = 0; k < run->nenv; k++) {
			const struct rpt_env_fact *f = &run->env[k];
			int j = 0;
			if (!f->source[0] || strcmp(f->key, "cpu_list") != 0)
				continue;
			while (j < n && (strcmp(srcs[j], f->source) || strcmp(lists[j], f->value)))
				j++;
			if (j == n) {
				if (n == 8)
					continue;
				snprintf(srcs[n], sizeof srcs[n], "%s", f->source);
				snprintf(lists[n], sizeof lists[n], "%s", f->value);
				labels[n++][0] = '\0';
			}
			const char *l = r->labels[run->label].name;
			if (!strstr(labels[j], l)) {
				size_t u = strlen(labels[j]);
				snprintf(labels[j] + u, sizeof labels[j] - u, "%s%s", u ? ", " : "",
				         l);
			}
		}
	}
	int apart = gen[0] != '\0' && n > 0;
	for (int j = 0; j < n && apart; j++)
		apart = strcmp(lists[j], gen) != 0;
	if (!apart)
		return;
	put(b, "Placement: the generator on CPU%s %s", strpbrk(gen, ",-") ? "s" : "", gen);
	if (mixed)
		put(b, " (not in every run)");
	for (int j = 0; j < n; j++)
		put(b, "; %s on CPU%s %s (%s)", srcs[j], strpbrk(lists[j], ",-") ? "s" : "",
		    lists[j], labels[j]);
	put(b, ". ");
}

int rpt_study_designs(struct report *r, char *err, size_t errlen)
{
	for (int si = 0; si < r->nstudies; si++) {
		struct rpt_study *st = &r->studies[si];
		struct dbuf b = {.n = 0};
		int ntargets = 1, nscen = 0;
		char scen[256] = "";

		for (const char *c = st->targets; *c; c++)
			ntargets += *c == ',';
		for (int i = 0; i < r->nruns; i++) {
			const struct rpt_run *run = &r->runs[i];
			char quoted[160];
			snprintf(quoted, sizeof quoted, "'%s'", run->name);
			if (run->study != si || strstr(scen, quoted))
				continue;
			size_t used = strlen(scen);
			snprintf(scen + used, sizeof scen - used, "%s'%s'", nscen++ ? ", " : "",
			         run->name);
		}
		put(&b, "Study '%s': %d target%s (%s), %d round%s", st->name, ntargets,
		    ntargets == 1 ? "" : "s", st->targets, st->rounds, st->rounds == 1 ? "" : "s");
		if (ntargets > 1) {
			if (strcmp(st->order, "random") == 0)
				put(&b, " in random order (each round shuffled, seed %lld: ",
				    (long long)st->seed);
			else
				put(&b,
				    " in interleaved order (odd rounds in file order, even rounds "
				    "reversed: ");
			rounds_seen(r, si, &b);
			put(&b, ")");
		}
		put(&b, " of the scenario%s %s. ", nscen == 1 ? "" : "s", scen);
		if (*st->before_each)
			put(&b, "Before every run: `%s`. ", st->before_each);
		else
			put(&b, "Nothing was reset between runs. ");
		if (st->managed == 0)
			put(&b, "The targets were already running; ");
		else
			put(&b, "%s %s; ",
			    st->managed == ntargets ? "Targets" : "Targets the study started",
			    st->keep_running
			        ? "were kept running for the whole study"
			        : "were started before and stopped after each of their runs");
		if (st->warmup_steady > 0)
			warmup_clause(r, si, &b);
		else if (st->warmup_runs > 0)
			put(&b,
			    "the first %s%s of each target after %s %s recorded and not compared. ",
			    st->warmup_runs == 1 ? "run" : "runs",
			    study_scenarios(r, si) > 1 ? " of each scenario" : "",
			    st->managed ? "its start (or the study's, when already running)"
			                : "the study began",
			    st->warmup_runs == 1 ? "was" : "were");
		else
			put(&b, "no warm-up run: the first run after a start is compared. ");
		if (st->until[0]) {
			char d[32];
			put(&b,
			    "Sequential: rounds were added until %s (every comparison's interval "
			    "that "
			    "narrow) within %s; ",
			    st->until, dur_format(st->budget_ms, d, sizeof d));
			if (st->max_looks > 0)
				put(&b,
				    "it looked %d of the %d times its budget allowed and stopped "
				    "%s. ",
				    st->looks, st->max_looks,
				    !strcmp(st->stop, "precise")
				        ? "because every figure was resolved"
				    : !strcmp(st->stop, "rounds") ? "at its last round"
				                                  : "when its budget was spent");
			else
				put(&b, "it stopped before a second round, so it never looked. ");
		}
		placement_clause(r, si, &b);
		if (st->until[0])
			put(&b, "%d measured runs done (study %s).", st->done_slots, st->status);
		else
			put(&b, "%d of %d measured runs done (study %s).", st->done_slots,
			    st->slots, st->status);
		free(st->design);
		if (!(st->design = strdup(b.s))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* --- cold start ------------------------------------------------------------------------- */

/* A run's figure m (TPS or mean latency) at a cell key: the mean over its matching steps;
 * NAN when it has none. */
static double run_figure(const struct rpt_run *run, const struct rpt_cell *c, enum rpt_metric m)
{
	double sum = 0;
	int n = 0;

	if (strcmp(run->mode, "sweep") != 0 ? c->sweep : !c->sweep)
		return NAN;
	for (int j = 0; j < run->nsteps; j++) {
		const struct rpt_step *s = &run->steps[j];
		int answered = s->f.p50_us > 0 || s->f.max_us > 0;
		if (s->concurrency != c->concurrency || s->planned_ms != c->planned_ms ||
		    s->nintervals == 0)
			continue;
		if (m == RPT_M_TPS) {
			sum += s->f.tps;
			n++;
		} else if (answered) {
			sum += s->f.mean_us / 1000;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

int rpt_validity_add(struct rpt_validity_item **out, int *n, int *cap, const char *severity,
                     const char *name, const char *label, const char *run, const char *msg)
{
	struct rpt_validity_item *v;
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		struct rpt_validity_item *p = realloc(*out, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		*out = p;
		*cap = nc;
	}
	v = &(*out)[*n];
	memset(v, 0, sizeof *v);
	snprintf(v->severity, sizeof v->severity, "%s", severity);
	snprintf(v->name, sizeof v->name, "%s", name);
	snprintf(v->label, sizeof v->label, "%s", label);
	snprintf(v->run, sizeof v->run, "%s", run);
	if (!(v->message = strdup(msg)))
		return -1;
	(*n)++;
	return 0;
}

int rpt_cold_start(const struct report *r, struct rpt_validity_item **out, int *n)
{
	int cap = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->study < 0 || run->since_start != 1)
			continue;
		for (int c = 0; c < r->ncells; c++) {
			const struct rpt_cell *cell = &r->cells[c];
			double x[RPT_MAX_RUNS], rel[2], half[2], v[2];
			struct rpt_bm rest[2];
			int k = 0, out2[2] = {0, 0};
			struct dbuf b = {.n = 0};
			char d[32];
			if (cell->label != run->label || isnan(run_figure(run, cell, RPT_M_TPS)))
				continue;
			/* The label's other compared runs at this key: what the run should match.
			 */
			for (int f = 0; f < 2; f++) {
				enum rpt_metric m = f ? RPT_M_MEAN : RPT_M_TPS;
				k = 0;
				for (int j = 0; j < r->nruns; j++)
					if (j != i && r->runs[j].compared &&
					    r->runs[j].label == run->label)
						if (!isnan(x[k] = run_figure(&r->runs[j], cell, m)))
							k++;
				rpt_run_means(x, (size_t)k, &rest[f]);
				v[f] = run_figure(run, cell, m);
				/* Two figures tested: each at 2.5 %. */
				out2[f] =
				    rpt_outlier(&rest[f], v[f], RPT_ALPHA / 2, &rel[f], &half[f]);
			}
			if (!out2[0] && !out2[1])
				continue;
			put(&b, "Run %s (%s), the first after its target started, ", run->key,
			    r->labels[run->label].name);
			if (out2[0])
				put(&b, "served %.1f %% %s requests per second", fabs(rel[0]),
				    rel[0] < 0 ? "fewer" : "more");
			if (out2[0] && out2[1])
				put(&b, " and ");
			if (out2[1])
				put(&b, "answered %.1f %% %s on average", fabs(rel[1]),
				    rel[1] > 0 ? "slower" : "faster");
			put(&b, " than the label's %d other compared run%s at %d users (%s", k,
			    k == 1 ? "" : "s", cell->concurrency,
			    dur_format(cell->planned_ms, d, sizeof d));
			put(&b, "; 95 %% prediction interval +-%.1f %%",
			    out2[0] ? half[0] : half[1]);
			put(&b, "). %s",
			    run->warmup ? "It was a warm-up run and is not compared."
			                : "It is compared: a warm-up run (warmup_runs = 1) would "
			                  "leave it out.");
			/* A warm-up run is slow by design and left out: worth knowing, not a
			 * warning. */
			if (rpt_validity_add(out, n, &cap, run->warmup ? "info" : "warn",
			                     "cold_start", r->labels[run->label].name, run->key,
			                     b.s) < 0) {
				rpt_validity_free(*out, *n);
				*out = NULL;
				*n = 0;
				return -1;
			}
		}
	}
	return 0;
}

void rpt_validity_free(struct rpt_validity_item *v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i].message);
	free(v);
}

int rpt_methods(const struct report *r, const char **out, int max)
{
	int n = 0;
	for (int i = 0; i < r->ncmps && n < max; i++) {
		int seen = 0;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(out[k], r->cmps[i].method) == 0;
		if (!seen)
			out[n++] = r->cmps[i].method;
	}
	return n;
}
