/*
 * The lean driver's response glue (soak/engine/h1.c over Node's http-parser) on hostile
 * bytes, as the driver uses it: one connection's stream of responses, each read with
 * h1_resp_start/h1_resp_feed from pieces of varying sizes, the next response starting where
 * the last one ended while the connection stays usable.
 * Input: 1 byte flags (bit 0: the requests were HEAD; bit 1: the peer closes after the
 * bytes; bits 2..7: chunking seed), 1 byte choosing the keep buffer's size, the stream.
 * Checked: a piece is never over-consumed and MORE takes all of it; a complete response has
 * a final status, its header and body counts fit in the bytes it consumed, its kept prefix
 * is min(body, cap - 1) bytes and NUL-terminated, a HEAD answer has no body; and the same
 * stream fed whole gives the very same responses (status, counts, keep-alive, kept bytes,
 * bytes consumed) as fed in pieces.
 */
// fuzz-sources: soak/engine/h1.c soak/engine/httpclass.c soak/engine/template.c common/clock.c common/buf.c
// fuzz-libs: -lhttp_parser
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/h1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RESPONSES 64 /* bounds the work per input */

static const size_t keep_caps[] = {0, 1, 2, 17, HTTP_BODY_KEEP};

/* What one response came to. */
struct seen {
	enum h1_status st;
	int status, keep_alive;
	int64_t hdr, body;
	size_t kept, used;
	char keep[HTTP_BODY_KEEP];
};

/* Reads one response from s[0..n), in pieces when seed != 0. */
static void read_one(struct seen *o, const char *s, size_t n, int head, int eof, size_t keep_cap,
                     unsigned *seed)
{
	struct h1_resp r;
	size_t off = 0;

	h1_resp_start(&r, head, keep_cap ? o->keep : NULL, keep_cap);
	o->st = H1_MORE;
	while (off < n && o->st == H1_MORE) {
		size_t piece = n - off, used;
		if (*seed) {
			*seed = *seed * 1103515245u + 12345u;
			piece = 1 + (*seed >> 16) % 61;
			if (piece > n - off)
				piece = n - off;
		}
		o->st = h1_resp_feed(&r, s + off, piece, &used);
		if (used > piece || (o->st == H1_MORE && used != piece))
			abort();
		off += used;
	}
	if (o->st == H1_MORE && eof) {
		size_t used;
		o->st = h1_resp_feed(&r, s + n, 0, &used);
		if (used != 0)
			abort();
	}
	o->status = r.status;
	o->keep_alive = r.keep_alive;
	o->hdr = r.hdr_bytes;
	o->body = r.body_bytes;
	o->kept = r.kept;
	o->used = off;
	if (o->st == H1_BAD && !h1_resp_error(&r))
		abort();
	if (o->st != H1_DONE)
		return;
	if (r.status < 100 || r.status > 999 || (r.status < 200 && r.status != 101) ||
	    !r.headers_done)
		abort();
	if (r.hdr_bytes <= 0 || r.body_bytes < 0 || (uint64_t)(r.hdr_bytes + r.body_bytes) > off)
		abort();
	if (head && r.body_bytes != 0)
		abort();
	if (keep_cap) {
		size_t want =
		    (uint64_t)r.body_bytes < keep_cap - 1 ? (size_t)r.body_bytes : keep_cap - 1;
		if (r.kept != want || o->keep[r.kept] != '\0')
			abort();
	} else if (r.kept != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen a, b;
	unsigned seed;
	size_t keep_cap, off = 2;
	int head, eof;

	if (size < 2)
		return 0;
	head = data[0] & 1;
	eof = (data[0] >> 1) & 1;
	seed = (unsigned)(data[0] >> 2) | 1u;
	keep_cap = keep_caps[data[1] % (sizeof keep_caps / sizeof keep_caps[0])];
	const char *s = (const char *)data;
	for (int i = 0; i < MAX_RESPONSES && off < size; i++) {
		unsigned whole = 0;
		read_one(&a, s + off, size - off, head, eof, keep_cap, &seed);
		read_one(&b, s + off, size - off, head, eof, keep_cap, &whole);
		if (a.st != b.st || a.status != b.status || a.keep_alive != b.keep_alive ||
		    a.hdr != b.hdr || a.body != b.body || a.kept != b.kept ||
		    memcmp(a.keep, b.keep, a.kept) != 0)
			abort();
		/* A parse error may be found at another byte in pieces; a success may not. */
		if (a.st == H1_DONE && a.used != b.used)
			abort();
		if (a.st != H1_DONE || !a.keep_alive)
			break; /* the driver closes the connection here */
		off += a.used;
	}
	return 0;
}
