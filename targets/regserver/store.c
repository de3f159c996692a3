/* store: the registered users in SQLite behind one mutex (store.h); passwords are
 * validated, never stored. */
#include "store.h"

#include "clock.h"
#include "db.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store {
	pthread_mutex_t lock; /* serializes every use of db and the fields below */
	sqlite3 *db;          /* opened with SQLITE_OPEN_NOMUTEX: the lock above guards it */
	sqlite3_stmt *insert; /* INSERT INTO users ..., prepared once */
	sqlite3_stmt *wipe;   /* DELETE FROM users, for max_users */
	long long users;      /* rows in users, kept in step with every insert and wipe */
	long long max_users;  /* start over at this many users; 0 = never */
	long long resets;     /* how many times the table was emptied because of max_users */
};

static const char schema_sql[] = "CREATE TABLE IF NOT EXISTS users ("
                                 " id INTEGER PRIMARY KEY,"
                                 " username TEXT NOT NULL UNIQUE,"
                                 " email TEXT NOT NULL,"
                                 " created_ms INTEGER NOT NULL)";

static int is_memory(const char *path)
{
	return strcmp(path, ":memory:") == 0 || !*path;
}

int store_open(const char *path, long long max_users, struct store **out, char *err, size_t errlen)
{
	struct store *s;
	char inner[512];

	*out = NULL;
	s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->max_users = max_users;
	if (sqlite3_open_v2(path, &s->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                    NULL) != SQLITE_OK) {
		snprintf(inner, sizeof inner, "%s",
		         s->db ? sqlite3_errmsg(s->db) : "out of memory");
		snprintf(err, errlen, "cannot open '%s': %s", path, inner);
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, DB_BUSY_TIMEOUT_MS);
	if (!is_memory(path) &&
	    (db_exec(s->db, "PRAGMA journal_mode=WAL", inner, sizeof inner) < 0 ||
	     db_exec(s->db, "PRAGMA synchronous=NORMAL", inner, sizeof inner) < 0))
		goto fail_inner;
	if (db_exec(s->db, schema_sql, inner, sizeof inner) < 0 ||
	    db_int(s->db, "SELECT count(*) FROM users", 0, &s->users, inner, sizeof inner) < 0 ||
	    db_prepare(s->db, &s->insert,
	               "INSERT INTO users (username, email, created_ms) VALUES (?1, ?2, ?3)", inner,
	               sizeof inner) < 0 ||
	    db_prepare(s->db, &s->wipe, "DELETE FROM users", inner, sizeof inner) < 0)
		goto fail_inner;
	*out = s;
	return 0;
fail_inner:
	snprintf(err, errlen, "cannot use '%s' as the user store: %s", path, inner);
fail:
	store_free(s);
	return -1;
}

/* Empties the table; caller holds the lock. */
static int store_wipe(struct store *s, char *err, size_t errlen)
{
	int rc = sqlite3_step(s->wipe);

	sqlite3_reset(s->wipe);
	if (rc != SQLITE_DONE)
		return db_fail(s->db, "cannot empty the user store", err, errlen);
	s->users = 0;
	s->resets++;
	return 0;
}

int store_add(struct store *s, const char *username, size_t ulen, const char *email, size_t elen,
              long long *id, char *err, size_t errlen)
{
	int rc, ret = -1;

	pthread_mutex_lock(&s->lock);
	if (s->max_users > 0 && s->users >= s->max_users && store_wipe(s, err, errlen) < 0)
		goto cleanup;
	sqlite3_bind_text(s->insert, 1, username, (int)ulen, SQLITE_STATIC);
	sqlite3_bind_text(s->insert, 2, email, (int)elen, SQLITE_STATIC);
	sqlite3_bind_int64(s->insert, 3, clock_wall_ms());
	rc = sqlite3_step(s->insert);
	if (rc == SQLITE_DONE) {
		*id = sqlite3_last_insert_rowid(s->db);
		s->users++;
		ret = 0;
	} else if (rc == SQLITE_CONSTRAINT_UNIQUE) {
		ret = STORE_TAKEN;
	} else {
		db_fail(s->db, "cannot add a user", err, errlen);
	}
	sqlite3_reset(s->insert);
	/* The bound strings belong to the caller's request buffer. */
	sqlite3_clear_bindings(s->insert);
cleanup:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void store_stats(struct store *s, long long *users, long long *resets)
{
	pthread_mutex_lock(&s->lock);
	*users = s->users;
	*resets = s->resets;
	pthread_mutex_unlock(&s->lock);
}

void store_free(struct store *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->wipe);
	sqlite3_finalize(s->insert);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
