/*
 * scenario_tls — the [tls] section of a scenario file: how https:// requests are made,
 * for every HTTP client (plan.h: struct plan_tls).
 *
 *   [tls]
 *   insecure     = no             ; yes: do not verify the server's certificate (a test one)
 *   ca_file      = ca.pem         ; trust these CAs instead of the system's (PEM)
 *   ca_dir       = /etc/my-cas    ; or a c_rehash'ed directory of them
 *   sni          = app.example    ; the name sent in SNI and verified (default: the URL's
 *                                 ; host; empty: no SNI)
 *   alpn         = http/1.1       ; protocols offered (empty: no ALPN)
 *   cert         = client.pem     ; a client certificate (PEM) ...
 *   key          = client.key     ; ... and its key (default: in cert)
 *   min_version  = 1.2            ; 1.2 or 1.3
 *   max_version  = 1.3
 *   ciphers      = ECDHE-RSA-AES128-GCM-SHA256   ; TLS 1.2 cipher list (OpenSSL syntax)
 *   ciphersuites = TLS_AES_128_GCM_SHA256        ; TLS 1.3 suites
 *   resume       = yes            ; no: every handshake a full one (no tickets, no ids)
 *
 * Files are relative to the scenario file.  The section is checked as a TLS client would
 * take it (OpenSSL loads the CAs, the certificate and its key, the cipher lists), so a
 * mistake is `FILE:LINE: ...` at its key before anything runs.  libcurl cannot send an SNI
 * other than the URL's host, nor an ALPN list of its own, nor (before 8.0) h2c: a plan that
 * libcurl sends is refused with those keys (scn_tls_check_client, http_plan_supported).
 */
#ifndef SOAK_SCENARIO_TLS_H
#define SOAK_SCENARIO_TLS_H

#include <stdio.h>

#include "scenario.h"

struct scn_parse;

/* Reads [tls] into s->plan.tls (after the [request] sections: it needs to know whether any
 * URL is https://). */
void scn_parse_tls(struct scn_parse *p, struct scenario *s);
/* Once the client is known: refuses what libcurl cannot do when it sends the plan (the
 * [tls] keys and h2c). */
void scn_tls_check_client(struct scn_parse *p, struct scenario *s);
/* The TLS settings as `soak check` shows them (nothing without an https:// request). */
void scn_print_tls(const struct scenario *s, FILE *f);

#endif
