/*
 * store — the monitor server's SQLite file: one row per message received, one row per
 * measurement item in it, written in batches (one transaction per `batch` messages or per
 * `flush_ms`, whichever comes first), so a crash loses at most one batch and the loop never
 * waits for a commit per message.
 *
 *   messages(id, session, kind, s, mid, ts, nitems, bytes, received_ms)
 *   items(message, name, value, text)      ; value for numbers, text for anything else
 *
 * One thread.  Functions return 0 or -1 with a message in err.
 */
#ifndef MONITOR_STORE_H
#define MONITOR_STORE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct store {
	sqlite3 *db;
	sqlite3_stmt *ins_msg, *ins_item;
	int items;         /* store item rows (0: message rows only) */
	int batch;         /* messages per transaction */
	int64_t flush_ms;  /* longest a batch stays open */
	int open_tx;       /* a transaction is open */
	int pending;       /* messages in the open transaction */
	int64_t opened_ms; /* when it was opened (mono ms) */
	int64_t commits;   /* transactions committed */
};

int store_open(struct store *st, const char *path, int items, int batch, int64_t flush_ms,
               char *err, size_t errlen);
/* Adds a message row; *id gets its rowid for the items. */
int store_message(struct store *st, int64_t session, const char *kind, int64_t s, int64_t mid,
                  int64_t ts, int nitems, int64_t bytes, int64_t *id, char *err, size_t errlen);
/* Adds an item of message `id`: a number (is_num) or a text. */
int store_item(struct store *st, int64_t id, const char *name, int is_num, double value,
               const char *text, char *err, size_t errlen);
/* Ends the message; commits when the batch is full. */
int store_message_done(struct store *st, char *err, size_t errlen);
/* Commits the open batch when it is older than flush_ms (force: whatever its age). */
int store_flush(struct store *st, int force, char *err, size_t errlen);
/* Milliseconds until the open batch is due, or -1 when none is open. */
int64_t store_due_in(const struct store *st);
/* Flushes and closes (commits stays readable).  A closed or zeroed store is a no-op. */
int store_close(struct store *st, char *err, size_t errlen);

#endif
