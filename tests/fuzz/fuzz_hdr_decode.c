/*
 * The histogram decoder on hostile bytes.  The first byte picks what the rest is:
 *   0  an encoded envelope, as stored in SQLite BLOBs (hdr_decode)
 *   1  inflated content (V2 header + payload), which the harness compresses and wraps, so
 *      the fuzzer reaches the header and payload checks without forging zlib checksums
 *   2  base64 text, as in .hlog lines (hdr_decode_base64)
 * Whatever decodes must survive the queries and round-trip: decode(encode(h)) == h and
 * encode(decode(encode(h))) == encode(h).  A rejection must come with a message.
 */
// fuzz-sources: common/hdr.c
// fuzz-pkgs: zlib
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_decoded(const struct hdr *h)
{
	uint8_t *enc = NULL, *enc2 = NULL;
	size_t len, len2;
	char err[256];
	struct hdr d;

	(void)hdr_value_at_percentile(h, 0);
	(void)hdr_value_at_percentile(h, 99.9);
	(void)hdr_value_at_percentile(h, 100);
	(void)hdr_mean(h);
	(void)hdr_min(h);
	(void)hdr_max(h);
	if (hdr_encode(h, &enc, &len, err, sizeof err) < 0)
		abort();
	if (hdr_decode(enc, len, &d, err, sizeof err) < 0)
		abort();
	if (d.total != h->total || d.counts_len != h->counts_len ||
	    memcmp(d.counts, h->counts, (size_t)h->counts_len * sizeof *h->counts) != 0)
		abort();
	if (hdr_encode(&d, &enc2, &len2, err, sizeof err) < 0 || len2 != len ||
	    memcmp(enc, enc2, len) != 0)
		abort();
	hdr_release(&d);
	free(enc);
	free(enc2);
}

/* Compresses raw into a V2 envelope (caller frees); NULL when it does not fit. */
static uint8_t *wrap(const uint8_t *raw, size_t n, size_t *outlen)
{
	uLongf zl = compressBound((uLong)n);
	uint8_t *buf = malloc(8 + zl);

	if (!buf || compress2(buf + 8, &zl, raw, (uLong)n, 9) != Z_OK) {
		free(buf);
		return NULL;
	}
	buf[0] = 0x1c, buf[1] = 0x84, buf[2] = 0x93, buf[3] = 0x14;
	buf[4] = (uint8_t)(zl >> 24), buf[5] = (uint8_t)(zl >> 16);
	buf[6] = (uint8_t)(zl >> 8), buf[7] = (uint8_t)zl;
	*outlen = 8 + zl;
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	struct hdr h;
	uint8_t *env = NULL;
	size_t envlen = 0;
	int rc;

	if (size < 1 || size > 1 << 20)
		return 0;
	switch (data[0] % 3) {
	case 0:
		rc = hdr_decode(data + 1, size - 1, &h, err, sizeof err);
		break;
	case 1:
		env = wrap(data + 1, size - 1, &envlen);
		if (!env)
			return 0;
		rc = hdr_decode(env, envlen, &h, err, sizeof err);
		free(env);
		break;
	default:
		rc = hdr_decode_base64((const char *)data + 1, size - 1, &h, err, sizeof err);
		break;
	}
	if (rc == 0) {
		check_decoded(&h);
		hdr_release(&h);
	} else if (err[0] == '\0' || h.counts != NULL) {
		abort(); /* a rejection says why and leaves nothing to free */
	}
	return 0;
}
