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
	enum plan_arrival arrival;                   /* open model: constant or Poisson gaps */
	int max_in_flight;                           /* open model: requests outstanding at most */
	int64_t max_lag_ms;                          /* open model: an arrival later than this
	                                              * behind the schedule is dropped */
	int64_t think_min_ms, think_max_ms;          /* think time after each request, a range */
	struct plan_request reqs[PLAN_MAX_REQUESTS]; /* HTTP request kinds */
	int nreqs;                                   /* entries in reqs */
	int total_weight;                            /* sum of reqs[].weight (> 0 when nreqs) */
	struct tpl_csv csv;                          /* the CSV data set, empty when none */
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
/* "keepalive" / "close" */
const char *plan_conn_name(enum plan_conn c);
/* "auto" / "curl" / "lean", and back (-1 for another word). */
const char *plan_client_name(enum plan_client c);
int plan_client_parse(const char *s);

#endif
