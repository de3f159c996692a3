/*
 * h2msg — HTTP/2 requests for the lean h2 driver (h2.c), without sockets: a request kind
 * compiled once into nghttp2 name/value pairs, built per request into a buffer sized once.
 *
 * A request carries what the HTTP/1.1 one does (h1.h), as HTTP/2 says it: :method, :scheme,
 * :authority (the URL's, or a plan Host header's value), :path, then user-agent soak/VERSION,
 * accept, the plan's headers in order (names lower-cased), content-length and the default
 * content-type when there is a body.  A plan header of the same name replaces user-agent,
 * accept, content-length or content-type, and an empty one removes it, as with HTTP/1.1;
 * headers HTTP/2 forbids (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding,
 * Upgrade, and TE other than "trailers") are not sent.
 *
 * Memory: nothing here allocates after h2_req_init.  Thread rules: an h2_req is read-only
 * once built; build into a caller's scratch.
 */
#ifndef SOAK_H2MSG_H
#define SOAK_H2MSG_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>

#include "h1.h"
#include "plan.h"

#define H2_MAX_NV (PLAN_MAX_HEADERS + 8) /* pseudo-headers, ours and the plan's */

/* One header of a request kind: fixed, or a template expanded per request. */
struct h2_hdr {
	const char *name, *value; /* fixed: in h2_req.lit; dynamic: NULL */
	size_t namelen, valuelen;
	const struct tpl *t; /* dynamic: the whole "Name: value" line's template, else NULL */
	int path;            /* the :path (dynamic: %-encoded after expansion) */
	int clen;            /* content-length of a dynamic body */
};

/* A request kind compiled for HTTP/2. */
struct h2_req {
	struct h1_msg m;              /* where it goes, its path and body (a dynamic body's
	                               * buffer must live until the body is sent) */
	char *lit;                    /* fixed names and values (owned) */
	struct h2_hdr hdr[H2_MAX_NV]; /* in the order sent */
	int nhdr;
	size_t scratch_cap; /* bytes h2_req_build needs for the headers */
};

/* Compiles request r (its URL must split: h1_url_split).  ctx gives the nonce and CSV data
 * the size bounds depend on; csv is the plan's data set.  0, or -1 with err. */
int h2_req_init(struct h2_req *q, const struct plan_request *r, const struct tpl_ctx *ctx,
                const struct tpl_csv *csv, char *err, size_t errlen);
void h2_req_release(struct h2_req *q);
/* Builds the request for ctx: nv gets the headers (H2_MAX_NV at most; *nnv their number),
 * expanded into scratch (q->scratch_cap bytes); *body and *blen the body (NULL, 0 when
 * none), a dynamic one expanded into bodybuf (q->body_cap bytes).  The pairs point into
 * scratch and q (nghttp2 copies what it must when the request is submitted); the body
 * into bodybuf or q. */
void h2_req_build(const struct h2_req *q, struct tpl_ctx *ctx, char *scratch, char *bodybuf,
                  nghttp2_nv *nv, size_t *nnv, const char **body, size_t *blen);

#endif
