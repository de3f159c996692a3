/*
 * gclog — the parts of soak-gclog shared by its files (not a library header).
 *
 * gclog.c parses the command line and runs --summary; gclog_db.c writes gc_events and
 * events rows; gclog_tail.c reads files line by line (import and follow, across rotation
 * and truncation) and anchors uptime-only logs.  One struct gl per process, passed down;
 * the only global is the stop flag set by the signal handler.
 */
#ifndef SOAK_GCLOG_H
#define SOAK_GCLOG_H

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/types.h>

#include "gcparse.h"
#include "redact.h"

#define GL_UNPARSED_KEEP 5         /* unparsed lines stored as events rows per run */
#define GL_BATCH         50000     /* import: events per transaction */
#define GL_CHUNK         (1 << 20) /* bytes read at once */

extern volatile sig_atomic_t gl_stop;

struct gl {
	/* options */
	const char *db_path;   /* --db */
	const char *source;    /* --source */
	char host[256];        /* --host or gethostname() */
	int64_t run_id;        /* --run, or -1 */
	int64_t jvm_start_ms;  /* --jvm-start, or GCP_NONE */
	const char *pid_match; /* --pid-match pattern, or NULL */
	void *pid_re;          /* its compiled pcre2_code, or NULL */
	int64_t every_ms;      /* --every */
	int64_t for_ms;        /* --for, or 0 for no limit */
	int die_with_parent;   /* --die-with-parent */
	struct redact redact;  /* --redact: secret names beyond the built-in ones */
	pid_t parent;          /* parent pid at start */

	/* database */
	sqlite3 *db;          /* the results file */
	sqlite3_stmt *ins_gc; /* INSERT OR IGNORE INTO gc_events */
	sqlite3_stmt *ins_ev; /* INSERT OR IGNORE INTO events */
	int in_tx;            /* a transaction is open */
	int64_t batch;        /* events written in the open transaction */
	int db_failed;        /* a write failed: stop with status 3 */
	char db_err[512];     /* its message */

	/* parsing */
	struct gcparse *parser; /* one parser for the files of one invocation */
	const char *cur_file;   /* file being read (for event details) */
	int64_t anchor_ms;      /* JVM start for uptime-only logs, or GCP_NONE */
	int64_t fallback_ms;    /* time for events with neither time nor uptime */
	int64_t last_uptime;    /* largest uptime seen since the anchor was set */
	int following;          /* follow mode: anchors come from the clock */
	int64_t written;        /* events handed to the database */
	int64_t unparsed_kept;  /* unparsed lines stored so far */
};

/* gclog_db.c */
int gl_db_open(struct gl *g, char *err, size_t errlen);
void gl_db_close(struct gl *g);
/* Writes an events row (kind, detail) at t_ms. */
void gl_db_event(struct gl *g, int64_t t_ms, const char *kind, const char *detail);
void gl_db_gc(struct gl *g, const struct gcp_event *ev);
/* Commits the open batch (if any); 0 or -1 (then g->db_failed is set). */
int gl_db_commit(struct gl *g);

/* gclog_tail.c */
/* The parser whose events go to the database through g. */
struct gcparse *gl_parser_new(struct gl *g, char *err, size_t errlen);
int gl_import(struct gl *g, const char *path, char *err, size_t errlen);
int gl_follow(struct gl *g, const char *path, char *err, size_t errlen);
/* Start time (epoch ms) of the newest process whose cmdline matches g->pid_re, or
 * GCP_NONE. */
int64_t gl_pid_start(struct gl *g);
/* Reads a whole file through the parser p (summary and pre-scans). */
int gl_read_all(struct gcparse *p, const char *path, char *err, size_t errlen);

#endif
