/* plan: what the engine sends, built once before it starts and read-only afterwards
 * (plan.h), so engine threads share it without locks; its owner releases it. */
#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int plan_address_split(const char *addr, char *host, size_t hostlen, int *port, char *err,
                       size_t errlen)
{
	const char *colon, *h = addr;
	size_t hl;
	char *end;
	long v;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':') {
			snprintf(err, errlen, "'%s' is not [ADDRESS]:PORT", addr);
			return -1;
		}
		h = addr + 1;
		hl = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || strchr(addr, ':') != colon) {
			snprintf(err, errlen, "'%s' is not HOST:PORT", addr);
			return -1;
		}
		hl = (size_t)(colon - addr);
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(err, errlen, "'%s': %s host", addr, hl ? "too long a" : "no");
		return -1;
	}
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || errno || v < 1 || v > 65535) {
		snprintf(err, errlen, "'%s': the port must be 1..65535", addr);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (int)v;
	return 0;
}

/* The string fields of a plan_tls, for copying and freeing them alike. */
static char **tls_strings(struct plan_tls *t, int i)
{
	char **all[] = {&t->ca_file, &t->ca_dir, &t->sni,     &t->alpn,
	                &t->cert,    &t->key,    &t->ciphers, &t->ciphersuites};
	return i < (int)(sizeof all / sizeof all[0]) ? all[i] : NULL;
}

int plan_tls_copy(struct plan_tls *dst, const struct plan_tls *src)
{
	char **d;

	*dst = *src;
	for (int i = 0; (d = tls_strings(dst, i)); i++)
		*d = NULL;
	for (int i = 0; (d = tls_strings(dst, i)); i++) {
		const char *v = *tls_strings((struct plan_tls *)src, i);
		if (v && !(*d = strdup(v))) {
			plan_tls_release(dst);
			return -1;
		}
	}
	return 0;
}

void plan_tls_release(struct plan_tls *t)
{
	char **d;

	for (int i = 0; (d = tls_strings(t, i)); i++)
		free(*d);
	memset(t, 0, sizeof *t);
}

int plan_pick_kind(const struct plan *p, uint64_t *rng)
{
	if (p->nreqs == 1)
		return 0;
	long r = (long)(tpl_rand(rng) % (uint64_t)p->total_weight);
	for (int k = 0; k < p->nreqs; k++) {
		r -= p->reqs[k].weight;
		if (r < 0)
			return k;
	}
	return 0;
}

int plan_timeout_lists(const struct plan *p, int list[PLAN_MAX_REQUESTS])
{
	int64_t timeouts[PLAN_MAX_REQUESTS];
	int n = 0;

	for (int k = 0; k < p->nreqs; k++) {
		int l = 0;
		while (l < n && timeouts[l] != p->reqs[k].timeout_ms)
			l++;
		if (l == n)
			timeouts[n++] = p->reqs[k].timeout_ms;
		list[k] = l;
	}
	return n;
}

int plan_uses_tls(const struct plan *p)
{
	for (int i = 0; p->protocol == PLAN_HTTP && i < p->nreqs; i++)
		if (p->reqs[i].url.text && strncmp(p->reqs[i].url.text, "https://", 8) == 0)
			return 1;
	return 0;
}

const char *plan_conn_name(enum plan_conn c)
{
	return c == PLAN_CLOSE ? "close" : "keepalive";
}

const char *plan_client_name(enum plan_client c)
{
	return c == PLAN_CLIENT_CURL ? "curl" : c == PLAN_CLIENT_LEAN ? "lean" : "auto";
}

int plan_client_parse(const char *s)
{
	return !strcmp(s, "auto")   ? PLAN_CLIENT_AUTO
	       : !strcmp(s, "curl") ? PLAN_CLIENT_CURL
	       : !strcmp(s, "lean") ? PLAN_CLIENT_LEAN
	                            : -1;
}
