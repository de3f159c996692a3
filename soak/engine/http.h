/*
 * http — the engine's HTTP driver on libcurl's multi interface (see engine_int.h for the
 * driver contract).  How a finished transfer is classed lives in httpclass.h, shared with
 * the lean driver.
 */
#ifndef SOAK_HTTP_H
#define SOAK_HTTP_H

#include <curl/curl.h>

#include "httpclass.h"
#include "plan.h"

/* Sets the plan's [tls] options on an easy handle (what libcurl can take: all but sni and
 * an alpn list of its own; the scenario refuses those for libcurl).  The engine's handles
 * and the Server-banner probe both use it, so a test certificate works for both. */
void http_tls_setopt(CURL *e, const struct plan_tls *o);
/* 0 when libcurl can send plan p as it asks; otherwise -1, `why` says what it cannot and
 * *key names the scenario key ("sni", "alpn": [tls]; "http_version": h2c, which libcurl
 * before 8.0 breaks on a reused connection, curl issue 10634). */
int http_plan_supported(const struct plan *p, const char **key, char *why, size_t whylen);

#endif
