/*
 * The tcp-frame reply reader (soak/engine/frame.c) on hostile bytes, as the driver uses it: a
 * stream of frames read one after the other, each fed in pieces of varying sizes.
 * Input: 2 bytes expected type, 3 bytes cap, 1 byte keep size, 1 byte chunking seed,
 * then the stream.  Checked against a plain re-parse of the same bytes: type and length
 * as written, rejections exactly when the type differs or the length passes the cap, a
 * frame never consuming a byte past its end, kept bytes equal to the payload's prefix,
 * and the header writer reproducing every header read.
 */
// fuzz-sources: soak/engine/frame.c
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAMES 64 /* bounds the work per input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char keep[256];
	unsigned want, seed;
	uint32_t cap;
	size_t keep_cap, off = 7;

	if (size < 7)
		return 0;
	want = (unsigned)data[0] << 8 | data[1];
	cap = (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
	keep_cap = data[5];
	seed = data[6] | 1;
	for (int f = 0; f < MAX_FRAMES && off < size; f++) {
		struct frame_rd r;
		enum frame_status st = FRAME_MORE;
		size_t start = off;

		frame_rd_start(&r, want, cap, keep_cap ? keep : NULL, keep_cap);
		while (off < size && st == FRAME_MORE) {
			size_t need = frame_rd_need(&r), used;
			if (need == 0)
				abort(); /* MORE always needs a byte */
			seed = seed * 1103515245u + 12345u;
			size_t piece = 1 + (seed >> 16) % 97;
			if (piece > size - off)
				piece = size - off;
			st = frame_rd_feed(&r, data + off, piece, &used);
			if (used > piece || (st == FRAME_MORE && used != piece))
				abort();
			off += used;
		}
		if (st == FRAME_MORE)
			break; /* the stream ended inside a frame */
		/* The header as written, parsed independently. */
		const uint8_t *h = data + start;
		unsigned type = (unsigned)h[0] << 8 | h[1];
		uint32_t len = (uint32_t)h[2] << 24 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 8 | h[5];
		uint8_t again[FRAME_HDR];
		frame_put_header(again, type, len);
		if (memcmp(again, h, FRAME_HDR) != 0 || r.type != type || r.len != len)
			abort();
		if (st == FRAME_BAD_TYPE) {
			if (type == want || off - start != FRAME_HDR)
				abort();
			break; /* the driver drops the connection here */
		}
		if (st == FRAME_TOO_LONG) {
			if (type != want || (len <= cap && len <= FRAME_MAX_LEN) || off - start != FRAME_HDR)
				abort();
			break;
		}
		/* DONE: exactly one frame consumed, its prefix kept. */
		if (type != want || len > cap || off - start != FRAME_HDR + (size_t)len ||
		    frame_rd_bytes(&r) != FRAME_HDR + (uint64_t)len || frame_rd_need(&r) != 0)
			abort();
		size_t k = keep_cap ? (len < keep_cap - 1 ? len : keep_cap - 1) : 0;
		if (r.kept != k || (k && (memcmp(keep, h + FRAME_HDR, k) != 0 || keep[k] != '\0')))
			abort();
	}
	return 0;
}
