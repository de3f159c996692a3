/*
 * httpclass — how a finished HTTP request is classed, the one mapping both HTTP drivers use
 * (the libcurl driver, http.c, and the lean driver, lean.c over h1.c), so that the same
 * event gets the same error class whichever client sent the request.  Pure functions.
 */
#ifndef SOAK_HTTPCLASS_H
#define SOAK_HTTPCLASS_H

#include "plan.h"
#include "stats.h"

/* The body's first bytes an expect_body check sees: the buffer size, (cap - 1) bytes kept and
 * a NUL. */
#define HTTP_BODY_KEEP 8192

/* How a request failed below HTTP. */
enum http_fail {
	HTTP_FAIL_CONNECT,   /* connect() failed with os_errno (ETIMEDOUT: the kernel's time-out) */
	HTTP_FAIL_TIMEOUT,   /* the request's timeout passed; `connected` says where */
	HTTP_FAIL_CLOSED,    /* the peer closed before a complete response */
	HTTP_FAIL_IO,        /* send or recv failed with os_errno */
	HTTP_FAIL_PROTOCOL,  /* the answer is not HTTP */
	HTTP_FAIL_DNS,       /* the host name does not resolve */
	HTTP_FAIL_OTHER,     /* anything else (out of file descriptors, ...) */
	HTTP_FAIL_TLS_CERT,  /* the server's certificate failed verification */
	HTTP_FAIL_TLS_ALERT, /* the server sent a TLS alert */
	HTTP_FAIL_H2_RST,    /* HTTP/2: the server reset the stream (RST_STREAM) */
	HTTP_FAIL_H2_GOAWAY, /* HTTP/2: the server went away (GOAWAY) with the stream open */
};

/* Where a request was when it failed (http_fail_class's `connected`): 0 and 1 as before,
 * so that a plain "connected or not" still reads right. */
enum http_phase {
	HTTP_PHASE_CONNECT = 0, /* connecting (TCP) */
	HTTP_PHASE_REQUEST = 1, /* connected (and through TLS): the request and its answer */
	HTTP_PHASE_TLS = 2,     /* connected, in the TLS handshake */
};

/* The error class of a failure with the OS errno seen and where the request was
 * (connected: an enum http_phase; a time-out in the TLS handshake is tls_timeout). */
enum err_class http_fail_class(enum http_fail f, long os_errno, int connected);
/* The same for a transfer that ended with libcurl code `curl_code` (non-zero), the errno
 * libcurl saw (CURLINFO_OS_ERRNO) and its error text (its error buffer, may be NULL: a
 * TLS failure's text tells an alert from other failures). */
enum err_class http_transport_class(int curl_code, long os_errno, int connected, const char *text);
/* http_fail_class, and the failure's detail in http_judge's words: the request, then what
 * went wrong, e.g. "GET default: Connection refused" (the lean drivers' failures). */
enum err_class http_fail_detail(const struct plan_request *r, enum http_fail f, long os_errno,
                                int connected, const char *what, char *detail, size_t detail_len);
/* The class of an answered request with HTTP `status`, or -1 when the status passes
 * (expect = 0 accepts 1xx..3xx). */
int http_status_class(long status, int expect);
/* Judges an answer to request r with `status` and the body's first bytes (body[0..len),
 * NUL-terminated; NULL when none were kept): -1 when it passes, else its class with the
 * detail both drivers give, e.g. "POST default: HTTP 409 (expected 201)" or
 * "GET default: body does not match /re/: text...".  md: a match block for r's pattern. */
int http_judge(const struct plan_request *r, long status, const char *body, size_t len,
               pcre2_match_data *md, char *detail, size_t detail_len);

#endif
