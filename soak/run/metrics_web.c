/* metrics_web: the options after /metrics' address — a bcrypt password file for basic
 * authentication and a certificate for TLS (metrics_web.h). */
#include "metrics_web.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define PEM_MAX (1 << 20) /* a certificate or key file larger than this is refused */

/* Copies the value of "key=value" into out when word starts with key=; 1 when it did. */
static int take(const char *word, size_t n, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);

	if (n <= k || strncmp(word, key, k) != 0)
		return 0;
	snprintf(out, len, "%.*s", (int)(n - k), word + k);
	return 1;
}

int mweb_parse(const char *spec, struct mweb *w, char *err, size_t errlen)
{
	const char *comma = strchr(spec, ','), *p;

	memset(w, 0, sizeof *w);
	snprintf(w->addr, sizeof w->addr, "%.*s", (int)(comma ? comma - spec : (long)strlen(spec)),
	         spec);
	for (p = comma; p && *p; p = strchr(p + 1, ',')) {
		const char *word = p + 1, *end = strchr(word, ',');
		size_t n = end ? (size_t)(end - word) : strlen(word);
		if (!take(word, n, "users=", w->users_file, sizeof w->users_file) &&
		    !take(word, n, "cert=", w->cert_file, sizeof w->cert_file) &&
		    !take(word, n, "key=", w->key_file, sizeof w->key_file)) {
			snprintf(err, errlen,
			         "'%.*s' is not an option of the metrics address (users=FILE, "
			         "cert=FILE, key=FILE)",
			         (int)n, word);
			return -1;
		}
	}
	if (!w->cert_file[0] != !w->key_file[0]) {
		snprintf(err, errlen, "TLS for /metrics needs both cert=FILE and key=FILE");
		return -1;
	}
	return 0;
}

/* One line of a password file into w (comments and blank lines skipped); 0, or -1 with
 * err naming FILE:LINE. */
static int user_line(struct mweb *w, char *line, int lineno, char *err, size_t errlen)
{
	char *colon, *end = line + strcspn(line, "\r\n");

	*end = '\0';
	if (!*line || *line == '#')
		return 0;
	colon = strchr(line, ':');
	if (!colon || colon == line || (strncmp(colon + 1, "$2a$", 4) != 0 &&
	                                 strncmp(colon + 1, "$2b$", 4) != 0 &&
	                                 strncmp(colon + 1, "$2y$", 4) != 0)) {
		snprintf(err, errlen,
		         "%s:%d: expected USER:HASH with a bcrypt hash ($2y$..., as htpasswd -B "
		         "writes)",
		         w->users_file, lineno);
		return -1;
	}
	if (w->nusers == MWEB_MAX_USERS) {
		snprintf(err, errlen, "%s:%d: more than %d users", w->users_file, lineno,
		         MWEB_MAX_USERS);
		return -1;
	}
	*colon = '\0';
	w->users[w->nusers].name = strdup(line);
	w->users[w->nusers].hash = strdup(colon + 1);
	if (!w->users[w->nusers].name || !w->users[w->nusers].hash) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->nusers++;
	return 0;
}

static int load_users(struct mweb *w, char *err, size_t errlen)
{
	FILE *f = fopen(w->users_file, "r");
	char line[1024];
	int n = 0, rc = 0;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", w->users_file, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof line, f))
		rc = user_line(w, line, ++n, err, errlen);
	fclose(f);
	if (rc == 0 && w->nusers == 0) {
		snprintf(err, errlen, "%s: no user in it", w->users_file);
		rc = -1;
	}
	return rc;
}

/* A PEM file's text; NULL with err. */
static char *read_pem(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct buf b = {0};
	char chunk[4096];
	size_t k;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	while (b.n < PEM_MAX && (k = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_put(&b, chunk, k);
	fclose(f);
	if (b.n >= PEM_MAX || !b.n || !memmem(b.p, b.n, "-----BEGIN ", 11)) {
		snprintf(err, errlen, "%s: not a PEM file", path);
		buf_free(&b);
		return NULL;
	}
	return buf_done(&b);
}

int mweb_load(struct mweb *w, char *err, size_t errlen)
{
	if (w->users_file[0] && load_users(w, err, errlen) < 0)
		return -1;
	if (w->cert_file[0] && (!(w->cert_pem = read_pem(w->cert_file, err, errlen)) ||
	                        !(w->key_pem = read_pem(w->key_file, err, errlen))))
		return -1;
	return 0;
}

int mweb_check(struct mweb *w, const char *user, const char *password)
{
	char given[sizeof w->last_ok];
	struct crypt_data cd;

	if (w->nusers == 0)
		return 1;
	if (!user || !password ||
	    snprintf(given, sizeof given, "%s:%s", user, password) >= (int)sizeof given)
		return 0;
	if (w->last_ok[0] && strcmp(given, w->last_ok) == 0)
		return 1;
	for (int i = 0; i < w->nusers; i++) {
		if (strcmp(user, w->users[i].name) != 0)
			continue;
		memset(&cd, 0, sizeof cd);
		const char *h = crypt_r(password, w->users[i].hash, &cd);
		if (h && strcmp(h, w->users[i].hash) == 0) {
			snprintf(w->last_ok, sizeof w->last_ok, "%s", given);
			return 1;
		}
	}
	return 0;
}

void mweb_release(struct mweb *w)
{
	for (int i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	w->nusers = 0;
	free(w->cert_pem);
	free(w->key_pem);
	w->cert_pem = w->key_pem = NULL;
	memset(w->last_ok, 0, sizeof w->last_ok);
}
