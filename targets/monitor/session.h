/*
 * session — the monitor server's agent sessions.  A `Connect` message opens one (its id
 * goes back in ConnectAck's CLIENT_SESSION) holding what the agent said about itself; it
 * lives until it has been unused for `ttl_ms` with no connection on it, or until the table
 * is full (then the least recently used idle one goes).  This is what a real monitor server
 * keeps per agent, and why one connection per batch costs memory: each reconnect's Connect
 * opens a session that outlives its connection.
 *
 * Sessions are kept in least-recently-used order (a doubly linked list), so expiry looks
 * only at the list's head.  One thread.  Memory is counted in `bytes` (structs and
 * strings as allocated).
 */
#ifndef MONITOR_SESSION_H
#define MONITOR_SESSION_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct session {
	uint64_t id;                             /* 1, 2, 3, ... */
	int64_t last_ms;                         /* last Connect or message (mono ms) */
	int conns;                               /* open connections using it */
	char *host, *tag, *version, *ips, *macs; /* the agent's own words (owned) */
	size_t bytes;                            /* memory of this session */
	struct session *prev, *next;             /* LRU order: head = least recently used */
};

struct sessions {
	struct session *head, *tail;
	int64_t count, peak;      /* live sessions, the most ever */
	size_t bytes, peak_bytes; /* their memory now, the most ever */
	int64_t opened, expired, evicted;
	uint64_t next_id;
	int64_t ttl_ms;
	int64_t max; /* cap on live sessions */
};

void sessions_init(struct sessions *t, int64_t ttl_ms, int64_t max);
/* Opens a session from a Connect message's fields; NULL when out of memory. */
struct session *session_open(struct sessions *t, json_t *connect, int64_t now_ms);
/* Marks s used now (moves it to the tail). */
void session_touch(struct sessions *t, struct session *s, int64_t now_ms);
/* Drops sessions idle past the ttl with no connection (at most `budget` of them). */
void sessions_expire(struct sessions *t, int64_t now_ms, int budget);
/* Frees every session. */
void sessions_release(struct sessions *t);

#endif
