/*
 * metrics_web — who may read /metrics, and over what: the options after the address in
 * `--metrics ADDR:PORT[,users=FILE][,cert=FILE,key=FILE]` (and a scenario's `metrics =`).
 *
 * users=FILE is a password file as `htpasswd -B` writes it: one `user:HASH` a line, HASH a
 * bcrypt hash ($2a$, $2b$ or $2y$), comments (#) and blank lines allowed; every scrape then
 * needs HTTP basic authentication against it, as Prometheus exporters' web configuration
 * does.  cert= and key= (PEM files) serve /metrics over TLS instead of plain HTTP.  Both are
 * read once, at the start; a bad file is `FILE:LINE: what is wrong`.
 *
 * Thread rules: mweb_check() is called from the listener's one thread only (it keeps the
 * last password that passed, so that a scrape every few seconds does not pay for bcrypt
 * each time).
 */
#ifndef SOAK_RUN_METRICS_WEB_H
#define SOAK_RUN_METRICS_WEB_H

#include <stddef.h>

#define MWEB_MAX_USERS 64

struct mweb_user {
	char *name; /* owned */
	char *hash; /* bcrypt, owned */
};

/* The listener's options. */
struct mweb {
	char addr[300];                       /* ADDR:PORT, the part before the options */
	char users_file[1024];                /* users=, or "" */
	char cert_file[1024], key_file[1024]; /* cert= and key=, or "" */
	struct mweb_user users[MWEB_MAX_USERS];
	int nusers;
	char *cert_pem, *key_pem; /* the files' contents (owned), NULL without TLS */
	char last_ok[512];        /* "user:password" of the last scrape that passed, or "" */
};

/* Splits spec into the address and the options (names only, nothing read); 0, or -1 with
 * err ("'x' is not an option of --metrics: ..."). */
int mweb_parse(const char *spec, struct mweb *w, char *err, size_t errlen);
/* Reads the files the options name; 0, or -1 with err (FILE:LINE: ...). */
int mweb_load(struct mweb *w, char *err, size_t errlen);
/* 1 when user and password (either may be NULL: none given) may read, else 0; always 1
 * without users=. */
int mweb_check(struct mweb *w, const char *user, const char *password);
/* Releases what mweb_load read. */
void mweb_release(struct mweb *w);

#endif
