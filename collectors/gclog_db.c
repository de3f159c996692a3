/* soak-gclog: the rows it writes (gc_events, events), one transaction per batch.
 * Re-importing adds nothing (the identity indexes), and an event's detail is redacted. */
#include "gclog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "db.h"

static const char ins_gc_sql[] =
    "INSERT OR IGNORE INTO gc_events(source, host, t_ms, uptime_ms, gc_id, kind, cause, "
    "pause_us, conc_us, heap_before_kb, heap_after_kb, heap_total_kb, young_before_kb, "
    "young_after_kb, young_total_kb, old_before_kb, old_after_kb, old_total_kb, "
    "meta_before_kb, meta_after_kb, meta_total_kb, run_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
    "?18, ?19, ?20, ?21, ?22)";
static const char ins_ev_sql[] =
    "INSERT OR IGNORE INTO events(source, host, t_ms, kind, detail, run_id) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

int gl_db_open(struct gl *g, char *err, size_t errlen)
{
	if (db_open(g->db_path, DB_CREATE, &g->db, err, errlen) < 0)
		return -1;
	/* A bulk import walks the gc_events identity index at random: a 64 MB page cache
	 * keeps it in memory (the default 2 MB made a 200 MB import disk-bound). */
	if (db_exec(g->db, "PRAGMA cache_size = -65536", err, errlen) < 0)
		return -1;
	if (db_prepare(g->db, &g->ins_gc, ins_gc_sql, err, errlen) < 0 ||
	    db_prepare(g->db, &g->ins_ev, ins_ev_sql, err, errlen) < 0)
		return -1;
	return 0;
}

void gl_db_close(struct gl *g)
{
	sqlite3_finalize(g->ins_gc);
	sqlite3_finalize(g->ins_ev);
	g->ins_gc = g->ins_ev = NULL;
	db_close(g->db);
	g->db = NULL;
}

static int begin(struct gl *g)
{
	if (g->in_tx || g->db_failed)
		return g->db_failed ? -1 : 0;
	if (db_begin(g->db, g->db_err, sizeof g->db_err) < 0) {
		g->db_failed = 1;
		return -1;
	}
	g->in_tx = 1;
	g->batch = 0;
	return 0;
}

int gl_db_commit(struct gl *g)
{
	if (!g->in_tx)
		return g->db_failed ? -1 : 0;
	g->in_tx = 0;
	if (db_commit(g->db, g->db_err, sizeof g->db_err) < 0) {
		g->db_failed = 1;
		return -1;
	}
	return 0;
}

static void bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == GCP_NONE)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static void step(struct gl *g, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	/* The first failure is the one kept. */
	if (!g->db_failed && db_done(g->db, rc, what, g->db_err, sizeof g->db_err) < 0)
		g->db_failed = 1;
	sqlite3_reset(st);
}

void gl_db_event(struct gl *g, int64_t t_ms, const char *kind, const char *detail)
{
	sqlite3_stmt *st = g->ins_ev;
	if (!g->db || begin(g) < 0)
		return;
	sqlite3_bind_text(st, 1, g->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, g->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, t_ms);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	/* A detail names files and quotes lines: redacted as everything stored is. */
	char *shown = redact_text(&g->redact, detail);
	sqlite3_bind_text(st, 5, shown ? shown : "", -1, SQLITE_TRANSIENT);
	free(shown);
	bind_opt(st, 6, g->run_id < 0 ? GCP_NONE : g->run_id);
	step(g, st, "cannot store an event");
}

void gl_db_gc(struct gl *g, const struct gcp_event *e)
{
	sqlite3_stmt *st = g->ins_gc;
	if (!g->db || begin(g) < 0)
		return;
	sqlite3_bind_text(st, 1, g->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, g->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, e->t_ms);
	bind_opt(st, 4, e->uptime_ms);
	bind_opt(st, 5, e->gc_id);
	sqlite3_bind_text(st, 6, gcp_kind_name(e->kind), -1, SQLITE_STATIC);
	if (e->cause[0])
		sqlite3_bind_text(st, 7, e->cause, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, e->pause_us);
	bind_opt(st, 9, e->conc_us);
	const int64_t v[12] = {e->heap_before_kb,  e->heap_after_kb,  e->heap_total_kb,
	                       e->young_before_kb, e->young_after_kb, e->young_total_kb,
	                       e->old_before_kb,   e->old_after_kb,   e->old_total_kb,
	                       e->meta_before_kb,  e->meta_after_kb,  e->meta_total_kb};
	for (int i = 0; i < 12; i++)
		bind_opt(st, 10 + i, v[i]);
	bind_opt(st, 22, g->run_id < 0 ? GCP_NONE : g->run_id);
	step(g, st, "cannot store a gc event");
	g->written++;
	if (!g->following && ++g->batch >= GL_BATCH)
		gl_db_commit(g);
}
