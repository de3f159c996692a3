/* metrics_feed: a run's /metrics snapshot, filled on the runner's thread (metrics_feed.h).
 * It reads what the runner has already collected: serving /metrics costs the engine
 * nothing per request. */
#include "metrics_feed.h"

#include <math.h>
#include <string.h>

#include "db.h"
#include "log.h"

/* The collectors' sample metrics shown, with their scale to base units. */
struct smetric {
	const char *name; /* samples.metric */
	int host;         /* 1: a host metric (host = yes); 0: of the processes */
	double scale;     /* to base units: % -> ratio, KB -> bytes */
	size_t field;     /* in struct msource */
};

#define F(x) offsetof(struct msource, x)
static const struct smetric smetrics[] = {
    {"cpu_pct", 0, 0.01, F(cpu_ratio)},
    {"rss_kb", 0, 1024, F(rss_bytes)},
    {"pss_kb", 0, 1024, F(pss_bytes)},
    {"threads", 0, 1, F(threads)},
    {"fds", 0, 1, F(fds)},
    {"procs", 0, 1, F(procs)},
    {"mem_limit_kb", 0, 1024, F(mem_limit_bytes)},
    {"cpu_user_pct", 1, 0.01, F(host_cpu[0])},
    {"cpu_sys_pct", 1, 0.01, F(host_cpu[1])},
    {"cpu_iowait_pct", 1, 0.01, F(host_cpu[2])},
    {"cpu_steal_pct", 1, 0.01, F(host_cpu[3])},
    {"mem_used_kb", 1, 1024, F(host_mem_used_bytes)},
    {"mem_avail_kb", 1, 1024, F(host_mem_avail_bytes)},
};
#undef F
#define NSMETRICS (sizeof smetrics / sizeof smetrics[0])

#define GC_ROWS_PER_READ 5000 /* a GC log read at once (a backlog) is taken over ticks */

static void source_unknown(struct msource *m)
{
	for (size_t i = 0; i < NSMETRICS; i++)
		*(double *)((char *)m + smetrics[i].field) = NAN;
	m->sample_s = NAN;
	m->heap_after_bytes = m->heap_capacity_bytes = NAN;
}

int mfeed_init(struct mfeed *f, struct metrics *srv, const struct scenario *s, sqlite3 *db,
               const struct mfeed_run *run, char *err, size_t errlen)
{
	struct msnap *n = &f->snap;

	memset(f, 0, sizeof *f);
	f->srv = srv;
	f->db = db;
	f->since_ms = run->since_ms;
	n->active = n->running = 1;
	n->run_id = run->run_id;
	snprintf(n->label, sizeof n->label, "%s", run->label);
	n->agent = run->agent > 0 ? run->agent : 1;
	n->agents = run->agents > 0 ? run->agents : 1;
	n->open = s->plan.model == PLAN_OPEN;
	snprintf(n->client, sizeof n->client, "%s", run->client);
	n->started_s = (double)run->started_ms / 1000;
	n->threads = run->threads;
	n->nsteps = s->nlevels;
	n->probe_s = NAN;
	for (int i = 0; i < s->ncollect && n->nsrc < SCN_MAX_COLLECT; i++) {
		const struct scn_collect *k = &s->collect[i];
		struct msource *m = &n->src[n->nsrc];
		f->proc[n->nsrc] = k->pid_match || k->pidfile || k->pid;
		f->host[n->nsrc] = k->host;
		snprintf(m->name, sizeof m->name, "%s", k->name);
		source_unknown(m);
		m->gc = k->gc_log != NULL;
		n->nsrc++;
	}
	if (n->nsrc > 0 &&
	    (db_prepare(db, &f->q_smp,
	                "SELECT value, t_ms FROM samples WHERE source = ?1 AND metric = ?2 AND "
	                "t_ms >= ?3 AND run_id = ?4 ORDER BY t_ms DESC LIMIT 1",
	                err, errlen) < 0 ||
	     db_prepare(db, &f->q_gc,
	                "SELECT id, source, pause_us, heap_after_kb, heap_total_kb FROM gc_events "
	                "WHERE id > ?1 AND run_id = ?2 ORDER BY id LIMIT ?3",
	                err, errlen) < 0)) {
		mfeed_release(f);
		return -1;
	}
	mfeed_publish(f);
	return 0;
}

void mfeed_step(struct mfeed *f, int k, int n, int vus, double rate, enum mphase phase)
{
	f->snap.step = k + 1;
	if (n > f->snap.nsteps)
		f->snap.nsteps = n;
	f->snap.step_vus = vus;
	f->snap.step_rate = rate;
	f->snap.phase = phase;
}

void mfeed_add(struct mfeed *f, const struct istats *p)
{
	struct msnap *n = &f->snap;
	const int64_t *lb = metrics_lat_bounds();

	for (int c = 0; c < ERR_NCLASS; c++)
		n->errors[c] += p->err_count[c];
	n->bytes += p->bytes;
	n->new_conns += p->new_conns;
	n->gen_cpu_s += (double)p->cpu_ns / 1e9;
	n->gen_wait_s += (double)p->wait_ns / 1e9;
	mhist_add_hdr(&n->latency, lb, MET_LAT_BOUNDS, &p->hist, p->lat_sum_us);
	/* The lag histogram keeps no exact sum: its values' midpoints, within 0.1 %. */
	if (p->open)
		mhist_add_hdr(&n->lag, lb, MET_LAT_BOUNDS, &p->lag,
		              (int64_t)(hdr_mean(&p->lag) * (double)hdr_total(&p->lag) + 0.5));
}

void mfeed_live(struct mfeed *f, const struct engine_live *lv)
{
	f->snap.requests = lv->requests;
	f->snap.vus = lv->vus;
	f->snap.inflight = lv->inflight;
}

void mfeed_probe(struct mfeed *f, double us)
{
	f->snap.probe_s = isfinite(us) && us > 0 ? us / 1e6 : NAN;
}

/* The newest GC events since the last read. */
static int read_gc(struct mfeed *f)
{
	struct msnap *n = &f->snap;
	const int64_t *gb = metrics_gc_bounds();
	int rows = 0, rc;

	sqlite3_bind_int64(f->q_gc, 1, f->gc_after);
	sqlite3_bind_int64(f->q_gc, 2, n->run_id);
	sqlite3_bind_int(f->q_gc, 3, GC_ROWS_PER_READ);
	while ((rc = sqlite3_step(f->q_gc)) == SQLITE_ROW) {
		const char *src = db_col_text(f->q_gc, 1);
		f->gc_after = sqlite3_column_int64(f->q_gc, 0);
		rows++;
		for (int i = 0; i < n->nsrc; i++) {
			struct msource *m = &n->src[i];
			if (!m->gc || !src || strcmp(m->name, src) != 0)
				continue;
			int64_t pause = sqlite3_column_int64(f->q_gc, 2);
			if (pause > 0)
				mhist_add(&m->pauses, gb, MET_GC_BOUNDS, pause);
			if (sqlite3_column_type(f->q_gc, 3) != SQLITE_NULL) {
				m->heap_after_bytes = sqlite3_column_double(f->q_gc, 3) * 1024;
				m->heap_capacity_bytes =
				    sqlite3_column_type(f->q_gc, 4) != SQLITE_NULL
				        ? sqlite3_column_double(f->q_gc, 4) * 1024
				        : NAN;
			}
			break;
		}
	}
	sqlite3_reset(f->q_gc);
	return rc == SQLITE_DONE ? rows : -1;
}

void mfeed_collectors(struct mfeed *f)
{
	struct msnap *n = &f->snap;
	int failed = 0;

	if (!f->q_smp)
		return;
	for (int i = 0; i < n->nsrc; i++) {
		struct msource *m = &n->src[i];
		for (size_t k = 0; k < NSMETRICS; k++) {
			const struct smetric *sm = &smetrics[k];
			int rc;
			if (sm->host ? !f->host[i] : !f->proc[i])
				continue;
			sqlite3_bind_text(f->q_smp, 1, m->name, -1, SQLITE_STATIC);
			sqlite3_bind_text(f->q_smp, 2, sm->name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(f->q_smp, 3, f->since_ms);
			sqlite3_bind_int64(f->q_smp, 4, n->run_id);
			rc = sqlite3_step(f->q_smp);
			if (rc == SQLITE_ROW) {
				double t = (double)sqlite3_column_int64(f->q_smp, 1) / 1000;
				*(double *)((char *)m + sm->field) =
				    sqlite3_column_double(f->q_smp, 0) * sm->scale;
				if (isnan(m->sample_s) || t > m->sample_s)
					m->sample_s = t;
			} else if (rc != SQLITE_DONE) {
				failed = 1;
			}
			sqlite3_reset(f->q_smp);
		}
	}
	if (read_gc(f) < 0)
		failed = 1;
	/* A busy database (a collector's commit) is tried again at the next tick. */
	if (failed)
		log_debug("metrics: the collectors' rows not read this time: %s",
		          sqlite3_errmsg(f->db));
}

void mfeed_publish(struct mfeed *f)
{
	if (f->srv)
		metrics_publish_run(f->srv, &f->snap);
}

void mfeed_end(struct mfeed *f)
{
	f->snap.running = 0;
	f->snap.inflight = 0;
	f->snap.vus = 0;
	mfeed_publish(f);
}

void mfeed_release(struct mfeed *f)
{
	sqlite3_finalize(f->q_smp);
	sqlite3_finalize(f->q_gc);
	f->q_smp = f->q_gc = NULL;
}
