/*
 * store — the registered users, in SQLite: one connection behind one mutex, with its
 * statements prepared once.
 *
 * Table: users(id INTEGER PRIMARY KEY, username TEXT UNIQUE, email, created_ms).  The
 * password is validated by the caller and never stored: this is a load target, not an
 * authentication service, and hashing it (as the servlet does) would make the latency a
 * function of the CPU instead of the --latency knob.
 *
 * Path ":memory:" (the default) keeps everything in the process; a file is opened in WAL
 * mode with synchronous=NORMAL (a crash may lose the last commits, never corrupt the file)
 * and a busy timeout, and users already in it count.
 *
 * max_users bounds memory for long benchmarks: when the store holds max_users users, the
 * next store_add() first deletes them all (one DELETE, SQLite's truncate path) and starts
 * over, so ids and usernames start afresh.  0 means never.
 *
 * Thread rules: every function but store_open()/store_free() may be called from any
 * thread; the mutex serializes them (a :memory: database cannot be shared between
 * connections, and an insert takes microseconds, so one connection is also the fastest).
 * Functions return 0 or -1 and fill err with a lower-case message.
 */
#ifndef REGSERVER_STORE_H
#define REGSERVER_STORE_H

#include <stddef.h>

#define STORE_TAKEN 1 /* store_add(): the username is already registered */

struct store;

int store_open(const char *path, long long max_users, struct store **out, char *err, size_t errlen);
/* Adds a user: 0 with *id set, STORE_TAKEN, or -1 on a database error.  Strings need not be
 * NUL-terminated. */
int store_add(struct store *s, const char *username, size_t ulen, const char *email, size_t elen,
              long long *id, char *err, size_t errlen);
/* Users held now, and how many times the store started over because of max_users. */
void store_stats(struct store *s, long long *users, long long *resets);
/* Finalizes, closes.  NULL is a no-op. */
void store_free(struct store *s);

#endif
