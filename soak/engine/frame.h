/*
 * frame — the framed TCP protocol of monitoring agents: a 2-byte big-endian type, a 4-byte
 * big-endian length, then `length` payload bytes (what Java's DataOutputStream.writeShort,
 * writeInt and write produce).  Type 1 is UTF-8 JSON text.
 *
 * frame_put_header() writes a header; struct frame_rd reads one frame incrementally from
 * whatever pieces the socket yields, keeping at most `keep_cap` payload bytes (for a
 * pattern check) and skipping the rest, so its memory is fixed whatever the peer sends.
 * A frame of another type than the one expected, or longer than the cap, is rejected as
 * soon as its header is complete.  No allocation; thread-safe per reader.
 */
#ifndef SOAK_FRAME_H
#define SOAK_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_HDR       6           /* header bytes */
#define FRAME_TYPE_JSON 1           /* UTF-8 JSON text */
#define FRAME_MAX_LEN   0x7fffffffu /* Java's writeInt of a byte[] length: never negative */

/* Writes the 6-byte header of a frame of `type` carrying `len` payload bytes. */
void frame_put_header(uint8_t out[FRAME_HDR], unsigned type, uint32_t len);

enum frame_status {
	FRAME_MORE = 0,      /* the frame is not complete: feed more bytes */
	FRAME_DONE = 1,      /* a whole frame was read; bytes after it were left unconsumed */
	FRAME_BAD_TYPE = -1, /* the header names another type than the one expected */
	FRAME_TOO_LONG = -2, /* the header announces more than the cap */
};

/* An incremental reader of one frame.  frame_rd_start() before each frame. */
struct frame_rd {
	uint8_t hdr[FRAME_HDR]; /* header bytes gathered so far */
	unsigned nhdr;          /* 0..FRAME_HDR */
	unsigned type;          /* valid once nhdr == FRAME_HDR */
	uint32_t len;           /* payload length, valid once nhdr == FRAME_HDR */
	uint32_t got;           /* payload bytes consumed */
	char *keep;             /* caller's buffer for the payload's first bytes, or NULL */
	size_t keep_cap;        /* its size; keep stays NUL-terminated (keep_cap - 1 bytes kept) */
	size_t kept;            /* bytes now in keep */
	unsigned want_type;     /* the type a frame must have */
	uint32_t max_len;       /* the largest payload accepted */
};

/* Prepares r for a new frame.  keep may be NULL (keep_cap 0): nothing is kept. */
void frame_rd_start(struct frame_rd *r, unsigned want_type, uint32_t max_len, char *keep,
                    size_t keep_cap);
/* How many bytes the frame still needs at least (header remainder or payload remainder);
 * a caller that reads no more than this never takes bytes of the next frame. */
size_t frame_rd_need(const struct frame_rd *r);
/* Consumes bytes of buf[0..n) into the frame; *used gets how many were taken. */
enum frame_status frame_rd_feed(struct frame_rd *r, const uint8_t *buf, size_t n, size_t *used);
/* Header bytes plus payload bytes consumed so far. */
static inline uint64_t frame_rd_bytes(const struct frame_rd *r)
{
	return r->nhdr + (uint64_t)r->got;
}

#endif
