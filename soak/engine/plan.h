/*
 * plan — what the engine sends: the request kinds (HTTP) or the frames (tcp-frame), the
 * connection mode, think time and the data set their templates read.  The scenario module
 * compiles a scenario file into a plan (scenario.h embeds one); the engine only reads it,
 * so the engine never depends on the scenario format.
 *
 * A plan is filled once before the engine starts and read-only afterwards, so engine
 * threads share it without locks.  Its owner (the scenario) releases the templates, the
 * compiled patterns and the strings.
 */
#ifndef SOAK_PLAN_H
#define SOAK_PLAN_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#include "template.h"

#define PLAN_MAX_REQUESTS 16
#define PLAN_MAX_HEADERS  32
#define PLAN_MAX_FRAMES   16

enum plan_conn { PLAN_KEEPALIVE = 0, PLAN_CLOSE = 1 };
enum plan_proto { PLAN_HTTP = 0, PLAN_TCP_FRAME = 1 };
/* Closed: N users each send, wait, think, send again.  Open: requests start on a clock
 * (a fixed arrival rate) whether or not earlier ones were answered. */
enum plan_model { PLAN_CLOSED = 0, PLAN_OPEN = 1 };
enum plan_arrival { PLAN_CONSTANT = 0, PLAN_POISSON = 1 };
/* Which HTTP client sends: auto takes the lean driver when it can send the plan (plain
 * http://, nothing that needs libcurl: h1_plan_supported), libcurl otherwise. */
enum plan_client { PLAN_CLIENT_AUTO = 0, PLAN_CLIENT_CURL = 1, PLAN_CLIENT_LEAN = 2 };
/* The HTTP version: 1.1, or 2 (h2 over TLS by ALPN for https://, h2c with prior knowledge
 * for http://). */
enum plan_http { PLAN_HTTP1 = 0, PLAN_HTTP2 = 1 };

/* TLS versions a [tls] section may name (OpenSSL's numbers, so they pass straight through). */
#define PLAN_TLS_1_2 0x0303
#define PLAN_TLS_1_3 0x0304

/* How https:// requests are made ([tls]); read by every HTTP driver (lean.c through tls.h,
 * http.c as libcurl options) and by the Server-banner probe. */
struct plan_tls {
	int insecure;       /* 1: the server's certificate is not verified (a test certificate) */
	char *ca_file;      /* PEM file of the CAs to trust instead of the system's, or NULL */
	char *ca_dir;       /* a c_rehash'ed directory of CAs instead of the system's, or NULL */
	char *sni;          /* the name sent in SNI and verified; NULL: the URL's host ("" none) */
	char *alpn;         /* protocols offered, comma-separated; NULL: by HTTP version */
	char *cert;         /* the client's certificate (PEM), or NULL */
	char *key;          /* its private key (PEM), or NULL: in cert */
	int min_version;    /* PLAN_TLS_1_2 or PLAN_TLS_1_3; 0: the library's default */
	int max_version;    /* the same; 0: the newest */
	char *ciphers;      /* TLS 1.2 cipher list (OpenSSL syntax), or NULL */
	char *ciphersuites; /* TLS 1.3 cipher suites, or NULL */
	int no_resume;      /* 1: every handshake is a full one (no tickets, no session ids) */
};

/* One request kind ([request] or [request.NAME]). */
struct plan_request {
	char *name;                           /* "default" or NAME */
	int weight;                           /* relative share of iterations (default 1) */
	char *method;                         /* GET, POST, ... */
	struct tpl url;                       /* http(s)://... */
	struct tpl body;                      /* empty when no body */
	int has_body;                         /* body key given */
	struct tpl headers[PLAN_MAX_HEADERS]; /* "Name: value" lines */
	int nheaders;                         /* entries in headers */
	int64_t timeout_ms;                   /* whole-request timeout */
	int expect_status;                    /* 0 = any 1xx-3xx */
	pcre2_code *expect_body; /* NULL = no body check; compiled once, JIT when possible */
	char *expect_body_src;   /* its source text, for messages */
	int line;                /* first line of its section, for messages */
};

/* One frame of a tcp-frame iteration. */
struct plan_frame {
	struct tpl text;  /* payload template */
	int type;         /* frame type (2-byte big-endian) */
	int expect_reply; /* wait for one reply frame after this one */
};

struct plan {
	enum plan_proto protocol;
	enum plan_conn connection;
	enum plan_model model;
	enum plan_client client;                     /* HTTP: auto, curl or lean */
	enum plan_http http;                         /* HTTP/1.1 or HTTP/2 */
	int connections;                             /* HTTP/2: connections in all (their
	                                              * streams are the concurrency); 0: one
	                                              * per engine thread */
	enum plan_arrival arrival;                   /* open model: constant or Poisson gaps */
	int max_in_flight;                           /* open model: requests outstanding at most */
	int64_t max_lag_ms;                          /* open model: an arrival later than this
	                                              * behind the schedule is dropped */
	int64_t think_min_ms, think_max_ms;          /* think time after each request, a range */
	struct plan_request reqs[PLAN_MAX_REQUESTS]; /* HTTP request kinds */
	int nreqs;                                   /* entries in reqs */
	int total_weight;                            /* sum of reqs[].weight (> 0 when nreqs) */
	struct tpl_csv csv;                          /* the CSV data set, empty when none */
	struct plan_tls tls;                         /* how https:// requests are made */
	/* tcp-frame */
	char *address;                             /* host:port */
	struct plan_frame handshake;               /* frame sent after connect (has_handshake) */
	int has_handshake;                         /* a [handshake] was given */
	pcre2_code *handshake_expect;              /* the handshake reply's check, or NULL */
	struct plan_frame frames[PLAN_MAX_FRAMES]; /* an iteration's frames, in order */
	int nframes;                               /* entries in frames */
	int max_frame;                             /* reply length cap */
};

/* Splits "host:port" or "[v6]:port"; 0, or -1 with a reason in err. */
int plan_address_split(const char *addr, char *host, size_t hostlen, int *port, char *err,
                       size_t errlen);
/* A deep copy of src (its strings duplicated): 0, or -1 out of memory (dst released). */
int plan_tls_copy(struct plan_tls *dst, const struct plan_tls *src);
/* Frees the strings and zeroes t. */
void plan_tls_release(struct plan_tls *t);
/* A request kind for the next iteration, by the kinds' weights (rng: the caller's
 * tpl_rand state). */
int plan_pick_kind(const struct plan *p, uint64_t *rng);
/* Groups the request kinds by timeout, the drivers' deadline lists (dlist.h): list[k] is
 * kind k's; returns how many lists. */
int plan_timeout_lists(const struct plan *p, int list[PLAN_MAX_REQUESTS]);
/* Whether some request of an HTTP plan is https:// (its handshakes are counted). */
int plan_uses_tls(const struct plan *p);
/* "keepalive" / "close" */
const char *plan_conn_name(enum plan_conn c);
/* "auto" / "curl" / "lean", and back (-1 for another word). */
const char *plan_client_name(enum plan_client c);
int plan_client_parse(const char *s);

#endif
