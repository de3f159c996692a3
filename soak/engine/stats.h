/*
 * stats — what one engine thread counts during one interval, and the error classes.
 *
 * An istats is written by exactly one thread while the interval runs and read by the
 * aggregator only after the thread has handed it over (engine.c's epoch protocol), so it
 * needs no locks.  Error classes have fixed names stored as text in the database.
 */
#ifndef SOAK_STATS_H
#define SOAK_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "hdr.h"

enum err_class {
	ERR_HTTP_4XX,
	ERR_HTTP_5XX,
	ERR_STATUS_MISMATCH, /* an answer, but not the expected status (and not 4xx/5xx) */
	ERR_BODY_MISMATCH,   /* expected status, body does not match expect_body */
	ERR_TIMEOUT,         /* connected, no (complete) answer within the request timeout */
	ERR_CONNECT_REFUSED,
	ERR_CONNECT_TIMEOUT,
	ERR_RESET,        /* connection reset or closed before an answer */
	ERR_CLIENT_PORTS, /* EADDRNOTAVAIL: the generator ran out of ephemeral ports */
	ERR_DNS,
	ERR_PROTOCOL, /* not HTTP, or a bad frame */
	ERR_OTHER,
	ERR_DROPPED,     /* open model: an arrival more than max_lag behind the schedule,
	                  * never sent (the generator's limit, not the server's) */
	ERR_TLS_CERT,    /* the server's certificate was not trusted (chain, name, dates) */
	ERR_TLS_TIMEOUT, /* connected, the TLS handshake not complete within the timeout */
	ERR_TLS_ALERT,   /* the server ended the TLS session with an alert (no common
	                  * version or cipher, a client certificate required, ...) */
	ERR_H2_RST,      /* HTTP/2: the server reset the request's stream (RST_STREAM) */
	ERR_H2_GOAWAY,   /* HTTP/2: the server went away (GOAWAY) before answering */
	ERR_NCLASS
};

#define ERR_SAMPLE_LEN 200

/* Counters of one interval (or, merged, of a window). */
struct istats {
	struct hdr hist;        /* latency of answered requests, µs: in the closed model from
	                         * the request's start, in the open model from its intended
	                         * start on the schedule (so queueing in the generator counts) */
	int open;               /* 1: svc and lag are allocated (istats_init_open) */
	struct hdr svc;         /* open model: service time of answered requests (sent ->
	                         * answered), µs */
	struct hdr lag;         /* open model: start lag of every request sent (sent -
	                         * intended), µs */
	int64_t svc_sum_us;     /* open model: sum of the service times in svc */
	int64_t cpu_ns;         /* CPU time the engine threads spent in the interval */
	int64_t wait_ns;        /* time they were ready to run but waited for a core */
	int64_t requests;       /* completed: answered or failed */
	int64_t errors;         /* failed or rejected by the checks */
	int64_t bytes;          /* response bytes received (headers and body) */
	int64_t new_conns;      /* TCP connections opened */
	int64_t lat_sum_us;     /* sum of latencies in hist (exact mean) */
	int64_t connect_sum_us; /* connect time of requests that opened a connection */
	int64_t connect_n;
	int64_t ttfb_sum_us; /* time to first byte of answered requests */
	int64_t ttfb_n;
	int tls;             /* 1: tls_hist is allocated (istats_init_tls) */
	struct hdr tls_hist; /* TLS handshake times (connection up -> handshake complete), µs:
	                      * apart from the requests' latency, which includes them */
	int64_t tls_full;    /* full TLS handshakes completed */
	int64_t tls_resumed; /* handshakes that resumed a session */
	int64_t tls_sum_us;  /* sum of both kinds' times */
	int64_t h2_rst;      /* HTTP/2: RST_STREAM frames received */
	int64_t h2_goaway;   /* HTTP/2: GOAWAY frames received */
	int64_t overflow;    /* latencies outside a histogram's range (not recorded) */
	int64_t err_count[ERR_NCLASS];
	char err_sample[ERR_NCLASS][ERR_SAMPLE_LEN]; /* first message of each class */
};

/* The figures a table shows, derived from counters over `seconds` of wall time. */
struct figures {
	int64_t requests, errors, bytes, new_conns;
	double seconds;    /* length of the window */
	double tps;        /* completed requests per second */
	double error_pct;  /* 100 * errors / requests */
	double mean_us;    /* exact mean of answered requests' latency; 0 when none */
	double connect_us; /* mean connect time of new connections; 0 when none */
	double ttfb_us;    /* mean time to first byte; 0 when none */
	int64_t p50_us, p90_us, p95_us, p99_us, p999_us, max_us;
	/* open model (0 otherwise): service time and start lag */
	int64_t svc_p50_us, svc_p99_us, lag_p99_us, lag_max_us;
	double svc_mean_us;
	int64_t dropped; /* arrivals dropped (class dropped) */
	/* TLS: handshakes of each kind and their time (0 when none) */
	int64_t tls_full, tls_resumed;
	double tls_mean_us;
	int64_t tls_p50_us, tls_p99_us;
	int64_t h2_rst, h2_goaway; /* HTTP/2: RST_STREAM and GOAWAY frames received */
};

void istats_figures(const struct istats *s, double seconds, struct figures *f);

/* Initialises (allocates the histogram); 0 or -1 with err. */
int istats_init(struct istats *s, char *err, size_t errlen);
/* The same with the open model's service and lag histograms. */
int istats_init_open(struct istats *s, char *err, size_t errlen);
/* Adds the TLS handshake histogram to an initialised s (the counters are always there);
 * 0 or -1 with err. */
int istats_init_tls(struct istats *s, char *err, size_t errlen);
void istats_release(struct istats *s);
/* Zeroes every counter and the histogram (cheap when few buckets were used). */
void istats_reset(struct istats *s);
/* Adds src into dst (histograms merged, first samples kept); the open model's and the TLS
 * histograms only when both have them. */
void istats_add(struct istats *dst, const struct istats *src);
/* Counts one error of class c with its message (kept when it is the class's first). */
void istats_error(struct istats *s, enum err_class c, const char *msg);

/* "http_4xx", ... */
const char *err_class_name(enum err_class c);
/* Client-side classes are the load generator's own limits, not the server's fault. */
int err_class_client_side(enum err_class c);
/* Index of a class name, or -1. */
int err_class_parse(const char *name);

#endif
