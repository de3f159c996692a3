/* frame: the framed TCP protocol's header written and frames read piece by piece
 * (frame.h), keeping at most keep_cap payload bytes whatever the peer sends. */
#include "frame.h"

#include <string.h>

void frame_put_header(uint8_t out[FRAME_HDR], unsigned type, uint32_t len)
{
	out[0] = (uint8_t)(type >> 8);
	out[1] = (uint8_t)type;
	out[2] = (uint8_t)(len >> 24);
	out[3] = (uint8_t)(len >> 16);
	out[4] = (uint8_t)(len >> 8);
	out[5] = (uint8_t)len;
}

void frame_rd_start(struct frame_rd *r, unsigned want_type, uint32_t max_len, char *keep,
                    size_t keep_cap)
{
	memset(r, 0, sizeof *r);
	r->want_type = want_type;
	r->max_len = max_len;
	r->keep = keep_cap ? keep : NULL;
	r->keep_cap = r->keep ? keep_cap : 0;
	if (r->keep)
		r->keep[0] = '\0';
}

size_t frame_rd_need(const struct frame_rd *r)
{
	if (r->nhdr < FRAME_HDR)
		return FRAME_HDR - r->nhdr;
	return r->len - r->got;
}

enum frame_status frame_rd_feed(struct frame_rd *r, const uint8_t *buf, size_t n, size_t *used)
{
	size_t off = 0;

	*used = 0;
	if (r->nhdr < FRAME_HDR) {
		size_t k = FRAME_HDR - r->nhdr;
		if (k > n)
			k = n;
		memcpy(r->hdr + r->nhdr, buf, k);
		r->nhdr += (unsigned)k;
		off = k;
		*used = off;
		if (r->nhdr < FRAME_HDR)
			return FRAME_MORE;
		r->type = (unsigned)r->hdr[0] << 8 | r->hdr[1];
		r->len = (uint32_t)r->hdr[2] << 24 | (uint32_t)r->hdr[3] << 16 |
		         (uint32_t)r->hdr[4] << 8 | r->hdr[5];
		if (r->type != r->want_type)
			return FRAME_BAD_TYPE;
		/* A length with the top bit set is a negative Java int: never valid. */
		if (r->len > r->max_len || r->len > FRAME_MAX_LEN)
			return FRAME_TOO_LONG;
	}
	size_t k = r->len - r->got;
	if (k > n - off)
		k = n - off;
	if (r->keep && r->kept + 1 < r->keep_cap) {
		size_t room = r->keep_cap - 1 - r->kept;
		size_t c = k < room ? k : room;
		memcpy(r->keep + r->kept, buf + off, c);
		r->kept += c;
		r->keep[r->kept] = '\0';
	}
	r->got += (uint32_t)k;
	*used = off + k;
	return r->got == r->len ? FRAME_DONE : FRAME_MORE;
}
