/*
 * h1 — HTTP/1.1 on the wire for the lean driver, without sockets: a request kind compiled
 * once into pieces and built per request into a buffer sized once; a response parsed
 * incrementally from whatever pieces the socket yields.  The lean driver judges and classes
 * the outcome with httpclass.h, exactly as the libcurl driver does.
 *
 * Requests carry what libcurl's would, in its order: the request line, Host (the URL's
 * authority, port left out when it is 80), User-Agent soak/VERSION, Accept (any type), the
 * plan's headers in order, `Connection: close` in close mode, Content-Length and a default
 * Content-Type (application/x-www-form-urlencoded) when there is a body.  A plan header of
 * the same name replaces Host, User-Agent, Accept, Content-Length or Content-Type; one with
 * an empty value (`Accept:`) removes it.  The URL's fragment is not sent; bytes of an
 * expanded path that cannot appear in a request line (controls, space, non-ASCII) are sent
 * %-encoded.
 *
 * Responses are parsed with Node's http-parser 2.9 (Debian's libhttp-parser-dev, the parser
 * wrk uses).  Its successor llhttp has the same callback shape (on_status, on_header_field,
 * on_header_value, on_headers_complete returning 1 to skip a body, on_body,
 * on_message_complete, pause): moving means renaming http_parser -> llhttp_t,
 * http_parser_execute -> llhttp_execute (which returns an error code and reports the
 * position with llhttp_get_error_pos instead of a count), http_parser_pause ->
 * llhttp_pause/llhttp_resume and EOF (a zero-length execute) -> llhttp_finish, all in
 * h1.c's parser glue only (h1_resp_feed).
 *
 * What the parser handles for us: status line, Content-Length, chunked bodies (with
 * extensions and trailers), `Connection: close` / keep-alive by version, bodies that end
 * at close.  What we add: 1xx interim responses are skipped (their headers counted), a
 * HEAD request's answer has no body, header and body byte counts (the body after
 * de-chunking, as libcurl counts), the body's first bytes kept for expect_body.
 *
 * Memory: nothing here allocates after h1_req_init.  Thread rules: an h1_req is read-only
 * once built (a worker may share it between its connections); an h1_resp belongs to one
 * connection.
 */
#ifndef SOAK_H1_H
#define SOAK_H1_H

#include <http_parser.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "httpclass.h"
#include "plan.h"

/* The target of an http:// or https:// URL. */
struct h1_url {
	int tls;             /* https:// */
	char host[256];      /* host name or address, without an IPv6 literal's brackets */
	char port[6];        /* decimal, "80" (https: "443") when the URL names none */
	char authority[272]; /* the Host header's value: host[:port], the default port left
	                      * out */
	size_t path_off;     /* offset in the URL text where the path or query starts */
};

/* Splits a URL template's source text.  0 when it is http:// or https:// with a literal
 * authority (placeholders only in the path and query) and no user:password; otherwise -1
 * and `why` says what needs libcurl ("a placeholder in the host", ...). */
int h1_url_split(const char *text, struct h1_url *u, char *why, size_t whylen);

/* 0 when the lean driver can send every request of the plan (HTTP/2: all to one scheme,
 * host and port); otherwise -1 and `why` names the first request and what needs libcurl.
 * Plans of another protocol than HTTP: -1. */
int h1_plan_supported(const struct plan *p, char *why, size_t whylen);
/* The client that sends HTTP plan p: PLAN_CLIENT_CURL or PLAN_CLIENT_LEAN (its `client`,
 * auto resolved: lean when h1_plan_supported).  When auto leaves lean for libcurl, or lean
 * was asked for and cannot be, `why` (may be NULL) says what needs libcurl; otherwise it is
 * emptied. */
enum plan_client h1_client_for(const struct plan *p, char *why, size_t whylen);

/* What HTTP/1.1 and HTTP/2 requests share (h2msg.c builds the latter). */
#define H1_DEFAULT_CTYPE "application/x-www-form-urlencoded" /* libcurl's for a POST body */
/* Whether a header line ("Name: value") is named `name` (case-insensitive). */
int h1_header_is(const char *line, const char *name);
/* A header line whose value is empty: libcurl's way of removing a header it would send. */
int h1_header_empty(const struct tpl *t);
/* Compiles the path and query of URL template text split into u (fragment dropped; "/" when
 * empty) into path; 0, or -1 with err. */
int h1_path_compile(struct tpl *path, const struct h1_url *u, const char *url,
                    const struct tpl_csv *csv, char *err, size_t errlen);
/* %-encodes, in place, the bytes of s[0..n) that cannot go in a request line; the buffer
 * has room for 3 n bytes.  Returns the new length. */
size_t h1_path_encode(char *s, size_t n);

/* What a compiled request takes from the plan's request alike in HTTP/1.1 and HTTP/2
 * (h1_req, h2_req): where it goes, its path and its body. */
struct h1_msg {
	struct h1_url url;      /* where it goes */
	int head;               /* HEAD: the answer has no body */
	struct tpl path;        /* the path-and-query template (owned) */
	const struct tpl *body; /* the plan's body template when it is dynamic, else NULL */
	char *body_fixed;       /* the body when it is static (owned), else NULL */
	size_t body_len;        /* its length */
	size_t body_cap;        /* bytes a dynamic body may take at most, NUL included */
};

/* Fills m from request r: its URL split (one h1_url_split refuses needs libcurl), its path
 * compiled, a static body expanded once for ctx (whose nonce and CSV data also bound a
 * dynamic one).  0, or -1 with err; m wants h1_msg_release either way. */
int h1_msg_init(struct h1_msg *m, const struct plan_request *r, const struct tpl_ctx *ctx,
                const struct tpl_csv *csv, char *err, size_t errlen);
void h1_msg_release(struct h1_msg *m);

/* One piece of a request being built: literal text, a template, or the body's length. */
struct h1_piece {
	uint8_t kind;        /* H1P_* in h1.c */
	uint32_t off, len;   /* literal: offset and length in h1_req.lit */
	const struct tpl *t; /* template pieces */
};

/* A request kind compiled for building. */
struct h1_req {
	struct h1_msg m;         /* where it goes, its path and body */
	char *lit;               /* literal texts the pieces point into (owned) */
	struct h1_piece *pieces; /* the head of the request, in order (owned) */
	int npieces;
	char *fixed; /* the whole request when nothing in it changes (owned) */
	size_t fixed_len;
	size_t head_cap; /* bytes the head may take at most, NUL included */
};

/* Compiles request r for `close_mode` (PLAN_CLOSE adds `Connection: close`).  ctx gives
 * the nonce and CSV data the size bounds depend on; csv is the plan's data set (for the
 * path's ${csv:...}).  0, or -1 with err (a URL h1_url_split refuses, out of memory). */
int h1_req_init(struct h1_req *q, const struct plan_request *r, int close_mode,
                const struct tpl_ctx *ctx, const struct tpl_csv *csv, char *err, size_t errlen);
void h1_req_release(struct h1_req *q);
/* Bytes of scratch h1_req_build needs (0: the request is fixed and needs none). */
size_t h1_req_scratch(const struct h1_req *q);
/* Builds the request for ctx (${seq} etc. as set) into scratch (h1_req_scratch bytes) and
 * points iov[0] at the head, iov[1] at the body; returns how many iovecs are used (1 or 2).
 * The iovecs point into scratch or into q, so they stay valid until the next build. */
int h1_req_build(const struct h1_req *q, struct tpl_ctx *ctx, char *scratch, struct iovec iov[2]);

enum h1_status {
	H1_MORE = 0, /* the response is not complete: feed more bytes (or EOF) */
	H1_DONE = 1, /* a final response is complete; bytes after it were left unconsumed */
	H1_BAD = -1, /* not HTTP/1.x, or the peer closed before the response was complete */
};

/* One response being read. */
struct h1_resp {
	http_parser p;      /* the parser's state; p.data points back here */
	int head;           /* the request was HEAD: the answer has no body */
	int status;         /* the final response's status, 0 until its headers are in */
	int keep_alive;     /* at H1_DONE: the connection may carry another request */
	int started;        /* some byte of the response arrived */
	int headers_done;   /* the final response's headers are complete */
	int complete;       /* H1_DONE was reached */
	int closed;         /* at H1_BAD: the peer closed early (not a parse error) */
	int64_t hdr_bytes;  /* status lines and headers, interim responses included */
	int64_t body_bytes; /* the final body's bytes, after de-chunking */
	char *keep;         /* caller's buffer for the body's first bytes, or NULL */
	size_t keep_cap;    /* its size; keep stays NUL-terminated (keep_cap - 1 bytes kept) */
	size_t kept;        /* bytes now in keep */
	int64_t msg_bytes;  /* bytes of the current message consumed before this feed */
};

/* Prepares r for the answer to a request; head: it was HEAD.  keep may be NULL. */
void h1_resp_start(struct h1_resp *r, int head, char *keep, size_t keep_cap);
/* Consumes bytes of data[0..n) (n == 0: the peer closed the connection); *used gets how
 * many were taken.  Once H1_DONE or H1_BAD is returned, feed no more until the next
 * h1_resp_start. */
enum h1_status h1_resp_feed(struct h1_resp *r, const char *data, size_t n, size_t *used);
/* What went wrong at H1_BAD, for messages: "Empty reply from server", the parser's
 * description, ... */
const char *h1_resp_error(const struct h1_resp *r);

#endif
