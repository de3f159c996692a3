/* report_junit: CI gates — a report's runs as JUnit XML (report.h, rpt_write_junit).
 *
 * The shape is the one the common CI systems read (Jenkins' JUnit plugin, Maven
 * Surefire's reports, GitLab, GitHub's test reporters): <testsuites> holding one
 * <testsuite> per run, with <properties> (the run's id, label, status, figures), then one
 * <testcase> per check:
 *   run       the run ended as planned; an <error> when it was interrupted, failed or
 *             crashed (soak run exits 3, 130 or 143 then)
 *   threshold one per threshold and step (thresholds table): a <failure> with the
 *             measured value and the limit when it failed (exit status 1)
 *   drift     the drift verdict; a <failure> when a drift threshold failed (the run's
 *             `threshold` events that start "drift:"), <skipped> when the window was too
 *             short to judge
 *   validity  one per validity warning that concerns the run: <skipped>, with the warning
 *             as its message.  Skipped, not flaky: a warning says the figures may not be
 *             trusted, not that a check failed and then passed on a second try (what
 *             Surefire's <flakyFailure> records), it never changes the exit status (a
 *             skipped case fails no build anywhere), and every JUnit reader shows a
 *             skipped case with its message, where most drop Surefire's flaky elements.
 *             Notes (severity info) are passed cases with the note as <system-out>.
 * A warm-up run of a study gates nothing (soak study's exit status leaves it out): its
 * threshold and drift cases are skipped, saying so.  Failures, errors and skipped cases
 * thus match the exit status: 1 when some case failed, 3 or 130/143 with an error.
 */
#include "report/report_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "db.h"
#include "outdir.h"
#include "report/read/report_read.h"
#include "report/report_text.h"
#include "report_drift_text.h"
#include "report_validity_text.h"
#include "safename.h"
#include "report/judge/report_drift.h"

#define JU_MAX_CASES 4096 /* test cases of one run: steps x thresholds, warnings */

/* One test case, before it is written. */
struct jcase {
	char classname[160];
	char name[320];
	double time_s;
	char kind;     /* 'p' passed, 'f' failure, 'e' error, 's' skipped */
	char type[32]; /* failure or error type */
	char *message; /* failure, error or skipped message (owned), or NULL */
	char *out;     /* system-out (owned), or NULL */
};

/* The cases of one suite. */
struct jsuite {
	struct jcase *c;
	int n;
	size_t cap;
	int failures, errors, skipped;
	double time_s;
};

static struct jcase *add_case(struct jsuite *s, const char *classname, char kind, double time_s,
                              const char *type, const char *message, const char *out,
                              const char *fmt, ...) __attribute__((format(printf, 8, 9)));

static struct jcase *add_case(struct jsuite *s, const char *classname, char kind, double time_s,
                              const char *type, const char *message, const char *out,
                              const char *fmt, ...)
{
	struct jcase *c;
	va_list ap;

	if (s->n >= JU_MAX_CASES)
		return NULL;
	if (buf_grow(&s->c, &s->cap, (size_t)s->n + 1, sizeof *s->c, 16) < 0)
		return NULL;
	c = &s->c[s->n++];
	memset(c, 0, sizeof *c);
	snprintf(c->classname, sizeof c->classname, "%s", classname);
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof c->name, fmt, ap);
	va_end(ap);
	c->time_s = time_s;
	c->kind = kind;
	snprintf(c->type, sizeof c->type, "%s", type ? type : "");
	c->message = message ? strdup(message) : NULL;
	c->out = out ? strdup(out) : NULL;
	s->failures += kind == 'f';
	s->errors += kind == 'e';
	s->skipped += kind == 's';
	return c;
}

static void suite_free(struct jsuite *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->c[i].message);
		free(s->c[i].out);
	}
	free(s->c);
	memset(s, 0, sizeof *s);
}

/* A measured value, "812.345 ms", "1.20 %", "45.20 req/s"; a limit as the scenario gave
 * it, "800 ms", "1 %" (limit 1). */
static void with_unit(char *buf, size_t len, double v, const char *unit, int limit)
{
	if (limit)
		snprintf(buf, len, "%g %s", v, unit);
	else
		snprintf(buf, len, "%.*f %s", !strcmp(unit, "ms") ? 3 : 2, v, unit);
}

/* The threshold cases of one run, from its database's thresholds table. */
static int thresholds(sqlite3 *db, const struct rpt_run *run, const char *cls, int gate,
                      struct jsuite *s, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (!rpt_rd_has(db, "thresholds", NULL))
		return 0;
	if (db_prepare(db, &q,
	               "SELECT t.step_idx, t.metric, t.unit, t.limit_val, t.value, t.passed, "
	               "s.concurrency, s.rate, "
	               "IFNULL(s.window_end_ms - s.window_start_ms, 0) FROM thresholds t "
	               "LEFT JOIN steps s ON s.run_id = t.run_id AND s.idx = t.step_idx "
	               "WHERE t.run_id = ? ORDER BY t.step_idx, t.metric",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(q, 1, run->id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int step = sqlite3_column_int(q, 0) + 1;
		const char *metric = db_col_text(q, 1);
		const char *unit = db_col_text(q, 2);
		double limit = sqlite3_column_double(q, 3), value = sqlite3_column_double(q, 4);
		int passed = sqlite3_column_int(q, 5), lower = !strcmp(metric, "tps_min");
		char level[48], l[48], v[48], msg[320];
		if (sqlite3_column_type(q, 7) != SQLITE_NULL && sqlite3_column_double(q, 7) > 0)
			snprintf(level, sizeof level, "%.1f/s", sqlite3_column_double(q, 7));
		else
			snprintf(level, sizeof level, "%d VUs", sqlite3_column_int(q, 6));
		with_unit(l, sizeof l, limit, unit, 1);
		with_unit(v, sizeof v, value, unit, 0);
		const char *what = lower ? "tps" : metric;
		char kind = !gate ? 's' : passed ? 'p' : 'f';
		/* a failure says what was measured against what was allowed; a pass keeps
		 * the measured value in its output */
		if (kind == 'f')
			snprintf(msg, sizeof msg, "step %d (%s): %s %s is %s the limit %s", step,
			         level, what, v, lower ? "below" : "above", l);
		else if (kind == 's')
			snprintf(
			    msg, sizeof msg,
			    "a warm-up run of a study: its thresholds gate nothing (%s %s, limit "
			    "%s)",
			    what, v, l);
		else
			snprintf(msg, sizeof msg, "%s %s, limit %s", what, v, l);
		if (!add_case(s, cls, kind, sqlite3_column_double(q, 8) / 1000, "threshold",
		              kind == 'p' ? NULL : msg, kind == 'p' ? msg : NULL,
		              "step %d (%s): %s %s %s", step, level, what,
		              lower ? ">=" : "<=", l)) {
			sqlite3_finalize(q);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	sqlite3_finalize(q);
	return db_done(db, rc, "cannot read thresholds", err, errlen);
}

/* The drift threshold breaches soak run recorded for the run, joined by "; " (NULL: none
 * or no table); the caller frees. */
static char *drift_breaches(sqlite3 *db, int64_t run_id)
{
	sqlite3_stmt *q = NULL;
	char *text = NULL, err[64];
	size_t len = 0;
	FILE *f;

	if (db_prepare(db, &q,
	               "SELECT detail FROM events WHERE run_id = ? AND kind = 'threshold' AND "
	               "(detail LIKE 'drift:%' OR detail LIKE 'step %: drift:%') ORDER BY id",
	               err, sizeof err) < 0)
		return NULL;
	if (!(f = open_memstream(&text, &len))) {
		sqlite3_finalize(q);
		return NULL;
	}
	sqlite3_bind_int64(q, 1, run_id);
	for (int n = 0; sqlite3_step(q) == SQLITE_ROW; n++)
		fprintf(f, "%s%s", n ? "; " : "", db_col_text(q, 0));
	sqlite3_finalize(q);
	fclose(f);
	if (text && !*text) {
		free(text);
		text = NULL;
	}
	return text;
}

/* The drift case(s): a fixed run's verdict, or each step's of a sweep. */
static int drift_cases(sqlite3 *db, const struct rpt_run *run, const char *cls, int gate,
                       struct jsuite *s)
{
	char *breach = drift_breaches(db, run->id);
	int ok = 1;

	for (int k = -1; k < (run->step_drift ? run->nsteps : 0); k++) {
		const struct rpt_drift *d = k < 0 ? &run->drift : &run->step_drift[k];
		char kind = 'p', of[32] = "";
		struct sbuf ds = {0};
		const char *msg = NULL;
		if (k >= 0)
			snprintf(of, sizeof of, " of step %d", k + 1);
		else if (run->step_drift)
			snprintf(of, sizeof of, " over the steps");
		if (k < 0)
			rpt_drift_run_sentence(&ds, run);
		else
			rpt_drift_sentence(&ds, d);
		if (!gate) {
			kind = 's';
			msg = "a warm-up run of a study: its drift gates nothing";
		} else if (breach && k < 0) {
			kind = 'f';
			msg = breach;
		} else if (d->verdict == RPT_DRIFT_TOO_SHORT) {
			kind = 's';
			msg = rpt_sb_str(&ds);
		}
		ok = ok && add_case(s, cls, kind, d->window_s, "drift", msg,
		                    kind == 'p' || kind == 'f' ? rpt_sb_str(&ds) : NULL,
		                    "drift%s: %s", of, rpt_drift_name(d->verdict));
		rpt_sb_release(&ds);
	}
	free(breach);
	return ok ? 0 : -1;
}

/* 1 when run key `key` is among the comma-separated `keys`. */
static int key_in(const char *key, const char *keys)
{
	size_t n = strlen(key);
	for (const char *p = keys; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		while (l && p[0] == ' ')
			p++, l--;
		if (l == n && !strncmp(p, key, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* The validity items about a run (by key, or about its label as a whole). */
static int validity_cases(const struct report *r, const struct rpt_run *run, const char *cls,
                          struct jsuite *s)
{
	for (int i = 0; i < r->nvalidity; i++) {
		const struct rpt_item *v = &r->validity[i];
		int warn = !strcmp(v->severity, "warn");
		if (v->run.n ? !key_in(run->key, rpt_item_runs(v)) : v->label != run->label)
			continue;
		if (!add_case(s, cls, warn ? 's' : 'p', 0, NULL, warn ? v->text : NULL,
		              warn ? NULL : v->text, "validity: %s", v->code))
			return -1;
	}
	return 0;
}

static void write_case(FILE *f, const struct jcase *c)
{
	fputs("    <testcase classname=\"", f);
	rpt_xml_esc(f, c->classname);
	fputs("\" name=\"", f);
	rpt_xml_esc(f, c->name);
	fprintf(f, "\" time=\"%.3f\"", isfinite(c->time_s) && c->time_s > 0 ? c->time_s : 0.0);
	if (c->kind == 'p' && !c->out) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (c->kind == 's') {
		fputs("      <skipped message=\"", f);
		rpt_xml_esc(f, c->message);
		fputs("\"/>\n", f);
	} else if (c->kind == 'f' || c->kind == 'e') {
		const char *el = c->kind == 'f' ? "failure" : "error";
		fprintf(f, "      <%s type=\"", el);
		rpt_xml_esc(f, c->type);
		fputs("\" message=\"", f);
		rpt_xml_esc(f, c->message);
		fputs("\">", f);
		rpt_xml_esc(f, c->message);
		fprintf(f, "</%s>\n", el);
	}
	if (c->out) {
		fputs("      <system-out>", f);
		rpt_xml_esc(f, c->out);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static void property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	rpt_xml_esc(f, value);
	fputs("\"/>\n", f);
}

/* Everything about one run: its cases, then the suite. */
static int write_run(FILE *f, const struct report *r, const struct rpt_run *run, int id,
                     sqlite3 *db, struct jsuite *tot, char *err, size_t errlen)
{
	struct jsuite s = {0};
	char lbl[96], key[64], cls[200], ts[40], num[64], *reason = NULL;
	const char *label = r->labels[run->label].name, *status = run->status;
	int gate = !run->warmup, rc = -1, ok;
	double secs =
	    run->end_ms > run->started_ms ? (double)(run->end_ms - run->started_ms) / 1000 : 0;

	/* soak.LABEL.runID: a CI system shows a package per label, a class per run */
	safe_name(lbl, sizeof lbl, label, "-_", '_');
	safe_name(key, sizeof key, run->key, "-_", '_');
	snprintf(cls, sizeof cls, "soak.%s.run%s", lbl, key);
	if (strcmp(status, "done") != 0 &&
	    asprintf(&reason, "the run %s%s%s", status, run->reason && *run->reason ? ": " : "",
	             run->reason ? run->reason : "") < 0)
		reason = NULL;
	ok = add_case(&s, cls, reason ? 'e' : 'p', secs, status, reason, NULL,
	              "run %s ended as planned", run->key) != NULL;
	free(reason);
	if (!ok || thresholds(db, run, cls, gate, &s, err, errlen) < 0 ||
	    drift_cases(db, run, cls, gate, &s) < 0 || validity_cases(r, run, cls, &s) < 0) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		goto done;
	}
	clock_iso(run->started_ms, ts, sizeof ts);
	ts[19] = '\0'; /* the schema's xs:dateTime without a zone: UTC here */
	fprintf(f, "  <testsuite name=\"");
	fprintf(f, "run %s (", run->key);
	rpt_xml_esc(f, label);
	fputs("): ", f);
	rpt_xml_esc(f, run->name);
	fprintf(f,
	        "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" "
	        "timestamp=\"%s\" hostname=\"",
	        s.n, s.failures, s.errors, s.skipped, secs, ts);
	rpt_xml_esc(f, run->host && *run->host ? run->host : "localhost");
	fprintf(f, "\" id=\"%d\" package=\"soak.", id);
	rpt_xml_esc(f, lbl);
	fputs("\">\n    <properties>\n", f);
	snprintf(num, sizeof num, "%lld", (long long)run->id);
	property(f, "run", num);
	property(f, "database", r->dbs[run->db]);
	property(f, "label", label);
	property(f, "status", status);
	if (run->warmup)
		property(f, "warmup", "1");
	snprintf(num, sizeof num, "%.3f", run->f.tps);
	property(f, "tps", num);
	snprintf(num, sizeof num, "%.3f", run->f.mean_us / 1000);
	property(f, "mean_ms", num);
	snprintf(num, sizeof num, "%.3f", (double)run->f.p99_us / 1000);
	property(f, "p99_ms", num);
	snprintf(num, sizeof num, "%.4f", run->f.error_pct);
	property(f, "error_pct", num);
	property(f, "drift", rpt_drift_name(run->drift.verdict));
	fputs("    </properties>\n", f);
	for (int i = 0; i < s.n; i++)
		write_case(f, &s.c[i]);
	fputs("  </testsuite>\n", f);
	tot->n += s.n;
	tot->failures += s.failures;
	tot->errors += s.errors;
	tot->skipped += s.skipped;
	tot->time_s += secs;
	rc = 0;
done:
	suite_free(&s);
	return rc;
}

int rpt_write_junit(struct report *r, const char *const *dbs, const struct rpt_junit_miss *miss,
                    int nmiss, const char *path, char *err, size_t errlen)
{
	char *body = NULL;
	size_t blen = 0;
	FILE *b = NULL;
	struct outdir dir = {.fd = -1};
	struct outfile out = {.f = NULL};
	const char *base;
	sqlite3 *db = NULL;
	int dbi = -1, rc = -1;
	struct jsuite tot = {0}, none = {0};

	err[0] = '\0';
	if (rpt_validity_words(r) < 0 || !(b = open_memstream(&body, &blen)))
		goto oom;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->db != dbi) {
			db_close(db);
			db = NULL;
			dbi = run->db;
			if (db_open(dbs[dbi], DB_READONLY, &db, err, errlen) < 0)
				goto done;
		}
		if (write_run(b, r, run, i, db, &tot, err, errlen) < 0)
			goto done;
	}
	/* Scenarios that never became a run (the target was unreachable at the start). */
	if (nmiss > 0) {
		for (int i = 0; i < nmiss; i++)
			if (!add_case(&none, "soak.scenarios", 'e', 0, "not_started",
			              miss[i].message, NULL, "%s started", miss[i].name))
				goto oom;
		fprintf(b,
		        "  <testsuite name=\"scenarios that did not start\" tests=\"%d\" "
		        "failures=\"0\" errors=\"%d\" skipped=\"0\" time=\"0.000\" id=\"%d\" "
		        "package=\"soak\">\n",
		        none.n, none.errors, r->nruns);
		for (int i = 0; i < none.n; i++)
			write_case(b, &none.c[i]);
		fputs("  </testsuite>\n", b);
		tot.n += none.n;
		tot.errors += none.errors;
	}
	if (fclose(b) != 0) {
		b = NULL;
		goto oom;
	}
	b = NULL;
	/* Through a temporary name in a checked folder, 0600 as every output (outdir.h). */
	if (outdir_of(&dir, path, &base, err, errlen) < 0 ||
	    outfile_open(&out, &dir, base, err, errlen) < 0)
		goto done;
	fprintf(out.f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<testsuites name=\"soak\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
	        "time=\"%.3f\">\n",
	        tot.n, tot.failures, tot.errors, tot.time_s);
	fwrite(body, 1, blen, out.f);
	fputs("</testsuites>\n", out.f);
	if (outfile_commit(&out, err, errlen) < 0)
		goto done;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "out of memory");
done:
	if (b)
		fclose(b);
	if (out.f)
		outfile_abort(&out);
	outdir_close(&dir);
	free(body);
	suite_free(&none);
	db_close(db);
	return rc;
}

int rpt_junit_runs(const char *db_path, const int64_t *ids, int n,
                   const struct rpt_junit_miss *miss, int nmiss, const char *path, char *err,
                   size_t errlen)
{
	struct report r;
	const char *dbs[1] = {db_path};
	struct rpt_opts o = {.dbs = dbs, .ndbs = 1, .plots = 0};
	char *runs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&runs, &len);
	int usage, rc = -1, any = 0;

	memset(&r, 0, sizeof r);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (ids[i] > 0)
			fprintf(f, "%s%lld", any++ ? "," : "", (long long)ids[i]);
	fclose(f);
	o.runs = runs;
	if (any &&
	    (rpt_read(&r, &o, &usage, err, errlen) < 0 || rpt_build(&r, &o, err, errlen) < 0))
		goto done;
	rc = rpt_write_junit(&r, dbs, miss, nmiss, path, err, errlen);
done:
	rpt_free(&r);
	free(runs);
	return rc;
}
