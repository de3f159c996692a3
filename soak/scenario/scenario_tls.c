/*
 * The [tls] section (scenario_tls.h).
 */
#include "scenario_tls.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/h1.h"
#include "engine/http.h"
#include "engine/tls.h"
#include "scenario_read.h"

/* A file key's value, relative to the scenario file's folder; NULL when absent or empty. */
static char *file_key(struct scn_parse *p, struct scenario *s, const char *key)
{
	struct scn_entry *e = scn_find(p, "tls", key);
	char path[4096];

	if (!e || !*e->value)
		return NULL;
	scn_path(s, e->value, path, sizeof path);
	if (access(path, R_OK) < 0) {
		scn_perr(p, e, 0, "%s: cannot read '%s'", key, path);
		return NULL;
	}
	return scn_dup(p, path);
}

/* A text key's value (empty kept: it means "none" for sni and alpn), or NULL. */
static char *text_key(struct scn_parse *p, const char *key)
{
	struct scn_entry *e = scn_find(p, "tls", key);
	return e ? scn_dup(p, e->value) : NULL;
}

static void version_key(struct scn_parse *p, const char *key, int *out)
{
	struct scn_entry *e = scn_find(p, "tls", key);

	if (e && !(*out = tls_version_parse(e->value)))
		scn_perr(p, e, 0, "%s: expected 1.2 or 1.3, not '%s'", key, e->value);
}

/* OpenSSL takes the options as a client would; a refusal is the key's mistake. */
static void try_context(struct scn_parse *p, struct plan_tls *t)
{
	struct tls_client c;
	const char *key = NULL;
	char err[512];

	if (tls_client_init(&c, t, TLS_ALPN_H1, err, sizeof err, &key) == 0) {
		tls_client_release(&c);
		return;
	}
	struct scn_entry *e = key ? scn_find(p, "tls", key) : NULL;
	scn_perr(p, e, e ? 0 : scn_section_line(p, "tls"), "%s", err);
}

/* Whether the file (or a --set) has a key in [tls]. */
static int has_tls_keys(const struct scn_parse *p)
{
	for (int i = 0; i < p->nents; i++)
		if (!strcmp(p->ents[i].section, "tls"))
			return 1;
	return 0;
}

void scn_parse_tls(struct scn_parse *p, struct scenario *s)
{
	struct plan_tls *t = &s->plan.tls;
	struct scn_entry *e;
	int v;

	if (!has_tls_keys(p))
		return;
	if (!plan_uses_tls(&s->plan)) {
		scn_perr(p, NULL, scn_section_line(p, "tls"),
		         "[tls]: no request URL is https:// (the section would change nothing)");
		return;
	}
	if ((e = scn_find(p, "tls", "insecure")) && scn_get_bool(p, e, &v) == 0)
		t->insecure = v;
	if ((e = scn_find(p, "tls", "resume")) && scn_get_bool(p, e, &v) == 0)
		t->no_resume = !v;
	t->ca_file = file_key(p, s, "ca_file");
	t->ca_dir = file_key(p, s, "ca_dir");
	t->cert = file_key(p, s, "cert");
	t->key = file_key(p, s, "key");
	t->sni = text_key(p, "sni");
	t->alpn = text_key(p, "alpn");
	t->ciphers = text_key(p, "ciphers");
	t->ciphersuites = text_key(p, "ciphersuites");
	version_key(p, "min_version", &t->min_version);
	version_key(p, "max_version", &t->max_version);
	if (t->key && !t->cert)
		scn_perr(p, scn_find(p, "tls", "key"), 0,
		         "key: needs cert (the client certificate)");
	if (t->min_version && t->max_version && t->min_version > t->max_version)
		scn_perr(p, scn_find(p, "tls", "max_version"), 0, "max_version: below min_version");
	if (t->insecure && (t->ca_file || t->ca_dir))
		scn_perr(
		    p, scn_find(p, "tls", "insecure"), 0,
		    "insecure: nothing is verified, so ca_file and ca_dir would change nothing");
	if (!p->failed)
		try_context(p, t);
}

void scn_tls_check_client(struct scn_parse *p, struct scenario *s)
{
	char why[256], w[256];
	const char *key;

	if (p->failed || s->plan.protocol != PLAN_HTTP ||
	    h1_client_for(&s->plan, why, sizeof why) != PLAN_CLIENT_CURL ||
	    http_plan_supported(&s->plan, &key, w, sizeof w) == 0)
		return;
	scn_perr(p, scn_find(p, strcmp(key, "http_version") ? "tls" : "scenario", key),
	         s->client_set, "%s: %s, and it sends this run (%s)", key, w,
	         s->plan.client == PLAN_CLIENT_CURL ? "client = curl" : why);
}

void scn_print_tls(const struct scenario *s, FILE *f)
{
	const struct plan_tls *t = &s->plan.tls;

	if (!plan_uses_tls(&s->plan))
		return;
	if (t->insecure)
		fprintf(f, "  TLS: certificates NOT verified (insecure)");
	else
		fprintf(f, "  TLS: certificates verified against %s%s%s",
		        t->ca_file ? t->ca_file : "", t->ca_file && t->ca_dir ? " and " : "",
		        t->ca_dir    ? t->ca_dir
		        : t->ca_file ? ""
		                     : "the system's CAs");
	fprintf(f, "; resumption %s; versions %s..%s", t->no_resume ? "off" : "on",
	        t->min_version == PLAN_TLS_1_3 ? "1.3"
	        : t->min_version               ? "1.2"
	                                       : "default",
	        t->max_version == PLAN_TLS_1_2 ? "1.2"
	        : t->max_version               ? "1.3"
	                                       : "newest");
	if (t->sni)
		fprintf(f, "; SNI %s", *t->sni ? t->sni : "none");
	if (t->alpn)
		fprintf(f, "; ALPN %s", *t->alpn ? t->alpn : "none");
	if (t->cert)
		fprintf(f, "; client certificate %s", t->cert);
	if (t->ciphers)
		fprintf(f, "; ciphers %s", t->ciphers);
	if (t->ciphersuites)
		fprintf(f, "; TLS 1.3 suites %s", t->ciphersuites);
	fputc('\n', f);
}
