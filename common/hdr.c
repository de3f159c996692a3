/* hdr: an HdrHistogram-compatible histogram and its V2 compressed encoding (hdr.h).
 * The bucket layout is HdrHistogram's, so counts and encodings travel both ways; recording
 * never allocates once the histogram is made. */
#include "hdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Cookies of the V2 format; bits 4-7 carry a word size that readers mask off. */
#define HDR_COOKIE_MASK          (~(uint32_t)0xF0)
#define HDR_COOKIE_V2            0x1c849303u           /* inflated header, V2 */
#define HDR_COOKIE_V2_COMPRESSED 0x1c849304u           /* compressed envelope, V2 */
#define HDR_COOKIE_WRITE_BITS    0x10u                 /* what writers put into bits 4-7 */
#define HDR_HEADER_LEN           40                    /* inflated V2 header */
#define HDR_ENVELOPE_LEN         8                     /* cookie + zlib length */
#define HDR_VARINT_MAX           9                     /* bytes of one LEB128 token at most */
#define HDR_RATIO_ONE            0x3FF0000000000000ULL /* IEEE-754 bits of 1.0 */
#define HDR_ZLIB_LEVEL           9                     /* what the Java writers use (`78 da`) */

/* Computes the layout fields of h for (lowest, highest, digits); allocates nothing. */
static int hdr_layout(struct hdr *h, int64_t lowest, int64_t highest, int digits, char *err,
                      size_t errlen)
{
	int64_t single_unit = 2, smallest_untrackable;
	int32_t magnitude = 0, buckets = 1;

	memset(h, 0, sizeof *h);
	h->max_index = -1;
	if (lowest < 1) {
		snprintf(err, errlen, "lowest discernible value must be at least 1, not %lld",
		         (long long)lowest);
		return -1;
	}
	if (digits < 0 || digits > HDR_DIGITS_MAX) {
		snprintf(err, errlen, "significant digits must be 0 to %d, not %d", HDR_DIGITS_MAX,
		         digits);
		return -1;
	}
	if (highest / 2 < lowest) {
		snprintf(err, errlen,
		         "highest trackable value %lld must be at least twice the lowest (%lld)",
		         (long long)highest, (long long)lowest);
		return -1;
	}
	if (highest > HDR_HIGHEST_MAX) {
		snprintf(err, errlen, "highest trackable value %lld is above %lld",
		         (long long)highest, (long long)HDR_HIGHEST_MAX);
		return -1;
	}
	for (int i = 0; i < digits; i++)
		single_unit *= 10;
	while ((INT64_C(1) << magnitude) < single_unit)
		magnitude++; /* ceil(log2(2 * 10^digits)) */
	h->lowest = lowest;
	h->highest = highest;
	h->digits = digits;
	h->sub_half_magnitude = (magnitude > 1 ? magnitude : 1) - 1;
	h->unit_magnitude = 63 - __builtin_clzll((uint64_t)lowest);
	if (h->unit_magnitude + h->sub_half_magnitude > 61) {
		snprintf(err, errlen, "lowest %lld with %d digits leaves no room for buckets",
		         (long long)lowest, digits);
		return -1;
	}
	h->sub_count = INT32_C(1) << (h->sub_half_magnitude + 1);
	h->sub_half = h->sub_count / 2;
	h->sub_mask = (int64_t)(h->sub_count - 1) << h->unit_magnitude;
	h->lz_base = 64 - h->unit_magnitude - h->sub_half_magnitude - 1;
	/* highest <= 2^62 - 1 and the first bucket ends at or below 2^62, so this never
	 * doubles past 2^62. */
	smallest_untrackable = (int64_t)h->sub_count << h->unit_magnitude;
	while (smallest_untrackable <= highest) {
		smallest_untrackable <<= 1;
		buckets++;
	}
	h->bucket_count = buckets;
	h->counts_len = (buckets + 1) * h->sub_half;
	return 0;
}

int hdr_init(struct hdr *h, int64_t lowest, int64_t highest, int digits, char *err, size_t errlen)
{
	if (hdr_layout(h, lowest, highest, digits, err, errlen) < 0)
		goto fail;
	h->counts = calloc((size_t)h->counts_len, sizeof *h->counts);
	if (!h->counts) {
		snprintf(err, errlen, "out of memory for %d histogram counts", h->counts_len);
		goto fail;
	}
	return 0;
fail:
	hdr_release(h);
	return -1;
}

int hdr_init_latency(struct hdr *h, char *err, size_t errlen)
{
	return hdr_init(h, HDR_LATENCY_LOWEST, HDR_LATENCY_HIGHEST, HDR_LATENCY_DIGITS, err,
	                errlen);
}

void hdr_release(struct hdr *h)
{
	free(h->counts);
	memset(h, 0, sizeof *h);
	h->max_index = -1;
}

struct hdr *hdr_new(int64_t lowest, int64_t highest, int digits, char *err, size_t errlen)
{
	struct hdr *h = malloc(sizeof *h);

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (hdr_init(h, lowest, highest, digits, err, errlen) < 0) {
		free(h);
		return NULL;
	}
	return h;
}

void hdr_free(struct hdr *h)
{
	if (!h)
		return;
	hdr_release(h);
	free(h);
}

void hdr_reset(struct hdr *h)
{
	if (h->max_index >= 0)
		memset(h->counts, 0, (size_t)(h->max_index + 1) * sizeof *h->counts);
	h->max_index = -1;
	h->total = 0;
}

int hdr_record_corrected(struct hdr *h, int64_t value, int64_t expected_interval)
{
	if (hdr_record(h, value) < 0)
		return -1;
	if (expected_interval <= 0)
		return 0;
	/* Every missing value is below value, so in range too. */
	for (int64_t missing = value - expected_interval; missing >= expected_interval;
	     missing -= expected_interval)
		hdr_record(h, missing);
	return 0;
}

/* --- equivalent values ------------------------------------------------------------------ */

int64_t hdr_value_at_index(const struct hdr *h, int32_t index)
{
	int32_t bucket = (index >> h->sub_half_magnitude) - 1;
	int32_t sub = (index & (h->sub_half - 1)) + h->sub_half;

	if (bucket < 0) {
		sub -= h->sub_half;
		bucket = 0;
	}
	return (int64_t)sub << (bucket + h->unit_magnitude);
}

int64_t hdr_size_of_range(const struct hdr *h, int64_t value)
{
	int32_t bucket = h->lz_base - __builtin_clzll((uint64_t)(value | h->sub_mask));
	int32_t sub = (int32_t)(value >> (bucket + h->unit_magnitude));

	if (sub >= h->sub_count)
		bucket++;
	return INT64_C(1) << (h->unit_magnitude + bucket);
}

int64_t hdr_lowest_equivalent(const struct hdr *h, int64_t value)
{
	int32_t bucket = h->lz_base - __builtin_clzll((uint64_t)(value | h->sub_mask));
	int32_t sub = (int32_t)(value >> (bucket + h->unit_magnitude));

	return (int64_t)sub << (bucket + h->unit_magnitude);
}

int64_t hdr_next_non_equivalent(const struct hdr *h, int64_t value)
{
	return hdr_lowest_equivalent(h, value) + hdr_size_of_range(h, value);
}

int64_t hdr_highest_equivalent(const struct hdr *h, int64_t value)
{
	return hdr_next_non_equivalent(h, value) - 1;
}

int64_t hdr_median_equivalent(const struct hdr *h, int64_t value)
{
	return hdr_lowest_equivalent(h, value) + (hdr_size_of_range(h, value) >> 1);
}

/* --- queries ---------------------------------------------------------------------------- */

int64_t hdr_total(const struct hdr *h)
{
	return h->total;
}

int64_t hdr_count_at_value(const struct hdr *h, int64_t value)
{
	int32_t idx;

	if (value < 0)
		return 0;
	idx = hdr_index(h, value);
	return idx < h->counts_len ? h->counts[idx] : 0;
}

int64_t hdr_min(const struct hdr *h)
{
	for (int32_t i = 0; i <= h->max_index; i++)
		if (h->counts[i] > 0)
			return hdr_value_at_index(h, i);
	return 0;
}

/* Highest index with a non-zero count, or -1. */
static int32_t hdr_top_index(const struct hdr *h)
{
	int32_t i = h->max_index;

	while (i >= 0 && h->counts[i] == 0)
		i--;
	return i;
}

int64_t hdr_max(const struct hdr *h)
{
	int32_t i = hdr_top_index(h);

	return i > 0 ? hdr_highest_equivalent(h, hdr_value_at_index(h, i)) : 0;
}

double hdr_mean(const struct hdr *h)
{
	long double sum = 0;

	if (h->total == 0)
		return 0;
	for (int32_t i = 0; i <= h->max_index; i++)
		if (h->counts[i] > 0)
			sum += (long double)h->counts[i] *
			       (long double)hdr_median_equivalent(h, hdr_value_at_index(h, i));
	return (double)(sum / (long double)h->total);
}

int64_t hdr_value_at_percentile(const struct hdr *h, double p)
{
	int64_t rank, seen = 0;
	double r;

	if (h->total <= 0)
		return 0;
	if (!(p > 0)) /* also NaN */
		p = 0;
	if (p > 100)
		p = 100;
	r = p / 100 * (double)h->total + 0.5;
	rank = r >= (double)h->total ? h->total : (int64_t)r;
	if (rank < 1)
		rank = 1;
	for (int32_t i = 0; i <= h->max_index; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			int64_t v = hdr_value_at_index(h, i);
			return p == 0 ? v : hdr_highest_equivalent(h, v);
		}
	}
	return 0; /* not reached while total matches the counts */
}

int64_t hdr_add(struct hdr *dst, const struct hdr *src)
{
	int64_t dropped = 0;
	int same = dst->unit_magnitude == src->unit_magnitude &&
	           dst->sub_half_magnitude == src->sub_half_magnitude;

	/* An empty histogram adds nothing, and a released one (all zero) has no counts to
	 * read: a report on a running run merges steps that have no interval yet. */
	if (src->total == 0)
		return 0;
	for (int32_t i = 0; i <= src->max_index; i++) {
		int64_t n = src->counts[i];
		int32_t idx;

		if (n == 0)
			continue;
		/* Same layout: index i means the same bucket, no need to recompute it. */
		idx = same ? i : hdr_index(dst, hdr_value_at_index(src, i));
		if (idx >= dst->counts_len || n > INT64_MAX - dst->total) {
			dropped += n;
			continue;
		}
		dst->counts[idx] += n;
		dst->total += n;
		if (idx > dst->max_index)
			dst->max_index = idx;
	}
	return dropped;
}

/* --- V2 encoding -------------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ZigZag then LEB128, the 9th byte carrying a full 8 bits; returns bytes written (<= 9). */
static size_t put_token(uint8_t *p, int64_t v)
{
	uint64_t u = (uint64_t)v << 1 ^ (v < 0 ? ~UINT64_C(0) : 0);
	size_t n = 0;

	while (n < HDR_VARINT_MAX - 1) {
		if (u < 0x80) {
			p[n++] = (uint8_t)u;
			return n;
		}
		p[n++] = (uint8_t)(u & 0x7F) | 0x80;
		u >>= 7;
	}
	p[n++] = (uint8_t)u;
	return n;
}

/* Reads one token from p[*pos..len); -1 when the input ends inside it. */
static int get_token(const uint8_t *p, size_t len, size_t *pos, int64_t *v)
{
	uint64_t u = 0;

	for (int i = 0; i < HDR_VARINT_MAX; i++) {
		uint8_t b;

		if (*pos >= len)
			return -1;
		b = p[(*pos)++];
		if (i == HDR_VARINT_MAX - 1) {
			u |= (uint64_t)b << 56;
			break;
		}
		u |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

int hdr_encode(const struct hdr *h, uint8_t **out, size_t *outlen, char *err, size_t errlen)
{
	int32_t top = hdr_top_index(h);
	size_t plen = 0, rawlen;
	uLongf zlen;
	uint8_t *raw = NULL, *buf = NULL;
	double one = 1.0;
	uint64_t ratio_bits;
	int rc = -1;

	*out = NULL;
	*outlen = 0;
	rawlen = HDR_HEADER_LEN + (size_t)(top + 1) * HDR_VARINT_MAX;
	raw = malloc(rawlen);
	if (!raw) {
		snprintf(err, errlen, "out of memory encoding a histogram");
		goto cleanup;
	}
	for (int32_t i = 0; i <= top;) {
		int32_t zeros = 0;

		while (i <= top && h->counts[i] == 0) {
			zeros++;
			i++;
		}
		/* A lone zero is written as a count, as the Java writer does. */
		if (zeros > 0)
			plen += put_token(raw + HDR_HEADER_LEN + plen, zeros > 1 ? -zeros : 0);
		if (i <= top)
			plen += put_token(raw + HDR_HEADER_LEN + plen, h->counts[i++]);
	}
	memcpy(&ratio_bits, &one, sizeof ratio_bits);
	put32(raw, HDR_COOKIE_V2 | HDR_COOKIE_WRITE_BITS);
	put32(raw + 4, (uint32_t)plen);
	put32(raw + 8, 0); /* normalizing index offset */
	put32(raw + 12, (uint32_t)h->digits);
	put64(raw + 16, (uint64_t)h->lowest);
	put64(raw + 24, (uint64_t)h->highest);
	put64(raw + 32, ratio_bits);

	zlen = compressBound((uLong)(HDR_HEADER_LEN + plen));
	buf = malloc(HDR_ENVELOPE_LEN + zlen);
	if (!buf) {
		snprintf(err, errlen, "out of memory encoding a histogram");
		goto cleanup;
	}
	if (compress2(buf + HDR_ENVELOPE_LEN, &zlen, raw, (uLong)(HDR_HEADER_LEN + plen),
	              HDR_ZLIB_LEVEL) != Z_OK ||
	    zlen > INT32_MAX) {
		snprintf(err, errlen, "zlib failed to compress a histogram");
		goto cleanup;
	}
	put32(buf, HDR_COOKIE_V2_COMPRESSED | HDR_COOKIE_WRITE_BITS);
	put32(buf + 4, (uint32_t)zlen);
	*out = buf;
	*outlen = HDR_ENVELOPE_LEN + zlen;
	buf = NULL;
	rc = 0;
cleanup:
	free(buf);
	free(raw);
	return rc;
}

/* Inflates until out[0..n) is full.  Returns 0 when full, 1 when the stream ended before
 * (*got says how much came), -1 on a zlib error (err filled). */
static int inflate_into(z_stream *zs, uint8_t *out, size_t n, size_t *got, char *err, size_t errlen)
{
	int zrc = Z_OK;

	zs->next_out = out;
	zs->avail_out = (uInt)n;
	while (zs->avail_out > 0) {
		zrc = inflate(zs, Z_NO_FLUSH);
		if (zrc == Z_STREAM_END)
			break;
		if (zrc == Z_BUF_ERROR && zs->avail_in == 0) {
			snprintf(err, errlen, "zlib data truncated");
			return -1;
		}
		if (zrc != Z_OK) {
			snprintf(err, errlen, "zlib: %s", zs->msg ? zs->msg : zError(zrc));
			return -1;
		}
	}
	*got = n - zs->avail_out;
	return zrc == Z_STREAM_END && zs->avail_out > 0 ? 1 : 0;
}

/* Parses the 40-byte inflated header and creates h (allocated, zeroed) from it. */
static int decode_header(const uint8_t *p, struct hdr *h, size_t *plen, char *err, size_t errlen)
{
	uint32_t cookie = get32(p);
	int32_t payload = (int32_t)get32(p + 4), offset = (int32_t)get32(p + 8);
	int32_t digits = (int32_t)get32(p + 12);
	int64_t lowest = (int64_t)get64(p + 16), highest = (int64_t)get64(p + 24);
	char why[160];

	if ((cookie & HDR_COOKIE_MASK) != HDR_COOKIE_V2) {
		snprintf(err, errlen, "bad inner cookie 0x%08x (want 0x%08x)", cookie,
		         HDR_COOKIE_V2 | HDR_COOKIE_WRITE_BITS);
		return -1;
	}
	if (payload < 0) {
		snprintf(err, errlen, "negative payload length %d", payload);
		return -1;
	}
	if (offset != 0) {
		snprintf(err, errlen, "unsupported normalizing index offset %d", offset);
		return -1;
	}
	if (get64(p + 32) != HDR_RATIO_ONE) {
		snprintf(err, errlen, "unsupported integer-to-double conversion ratio (not 1.0)");
		return -1;
	}
	if (hdr_layout(h, lowest, highest, digits, why, sizeof why) < 0) {
		snprintf(err, errlen, "bad header: %s", why);
		return -1;
	}
	if (h->counts_len > HDR_DECODE_MAX_COUNTS) {
		snprintf(err, errlen, "layout of %d counts is above the cap of %d", h->counts_len,
		         HDR_DECODE_MAX_COUNTS);
		return -1;
	}
	if ((size_t)payload > (size_t)h->counts_len * HDR_VARINT_MAX) {
		snprintf(err, errlen, "payload length %d is too long for %d counts", payload,
		         h->counts_len);
		return -1;
	}
	if (hdr_init(h, lowest, highest, digits, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	*plen = (size_t)payload;
	return 0;
}

/* Fills h's counts from the token payload. */
static int decode_payload(const uint8_t *p, size_t len, struct hdr *h, char *err, size_t errlen)
{
	size_t pos = 0;
	int64_t idx = 0;

	while (pos < len) {
		size_t at = pos;
		int64_t v;

		if (get_token(p, len, &pos, &v) < 0) {
			snprintf(err, errlen, "payload ends inside a token at byte %zu", at);
			return -1;
		}
		if (v < 0) {
			uint64_t run = -(uint64_t)v;
			if (run > (uint64_t)(h->counts_len - idx)) {
				snprintf(err, errlen,
				         "payload runs past the %d counts (zero run at byte %zu)",
				         h->counts_len, at);
				return -1;
			}
			idx += (int64_t)run;
			continue;
		}
		if (idx >= h->counts_len) {
			snprintf(err, errlen, "payload runs past the %d counts (count at byte %zu)",
			         h->counts_len, at);
			return -1;
		}
		if (v > INT64_MAX - h->total) {
			snprintf(err, errlen, "total count overflows at byte %zu", at);
			return -1;
		}
		h->counts[idx] = v;
		h->total += v;
		if (v > 0)
			h->max_index = (int32_t)idx;
		idx++;
	}
	return 0;
}

int hdr_decode(const uint8_t *buf, size_t len, struct hdr *h, char *err, size_t errlen)
{
	uint8_t head[HDR_HEADER_LEN], extra;
	uint8_t *payload = NULL;
	size_t zlen, plen = 0, got;
	uint32_t cookie;
	z_stream zs;
	int zinit = 0, rc = -1, r;

	memset(h, 0, sizeof *h);
	h->max_index = -1;
	memset(&zs, 0, sizeof zs);
	if (len < HDR_ENVELOPE_LEN) {
		snprintf(err, errlen, "%zu bytes are too short for a histogram", len);
		goto cleanup;
	}
	cookie = get32(buf);
	if ((cookie & HDR_COOKIE_MASK) != HDR_COOKIE_V2_COMPRESSED) {
		snprintf(err, errlen, "bad cookie 0x%08x (want 0x%08x, V2 compressed)", cookie,
		         HDR_COOKIE_V2_COMPRESSED | HDR_COOKIE_WRITE_BITS);
		goto cleanup;
	}
	zlen = get32(buf + 4);
	if (zlen > len - HDR_ENVELOPE_LEN) {
		snprintf(err, errlen, "truncated: %zu bytes of zlib data announced, %zu present",
		         zlen, len - HDR_ENVELOPE_LEN);
		goto cleanup;
	}
	if (zlen < len - HDR_ENVELOPE_LEN) {
		snprintf(err, errlen, "%zu bytes after the zlib data",
		         len - HDR_ENVELOPE_LEN - zlen);
		goto cleanup;
	}
	if (inflateInit(&zs) != Z_OK) {
		snprintf(err, errlen, "zlib: cannot initialise");
		goto cleanup;
	}
	zinit = 1;
	zs.next_in = (Bytef *)(uintptr_t)(buf + HDR_ENVELOPE_LEN);
	zs.avail_in = (uInt)zlen;
	r = inflate_into(&zs, head, sizeof head, &got, err, errlen);
	if (r < 0)
		goto cleanup;
	if (r > 0) {
		snprintf(err, errlen, "inflated data (%zu bytes) too short for the header", got);
		goto cleanup;
	}
	if (decode_header(head, h, &plen, err, errlen) < 0)
		goto cleanup;
	payload = malloc(plen ? plen : 1);
	if (!payload) {
		snprintf(err, errlen, "out of memory for a %zu-byte payload", plen);
		goto cleanup;
	}
	r = inflate_into(&zs, payload, plen, &got, err, errlen);
	if (r < 0)
		goto cleanup;
	if (r > 0) {
		snprintf(err, errlen, "payload truncated: %zu of %zu bytes", got, plen);
		goto cleanup;
	}
	/* The stream must end exactly here: one more byte of output is an error. */
	r = inflate_into(&zs, &extra, 1, &got, err, errlen);
	if (r < 0)
		goto cleanup;
	if (r == 0) {
		snprintf(err, errlen, "inflated data longer than the %zu bytes announced",
		         HDR_HEADER_LEN + plen);
		goto cleanup;
	}
	if (zs.avail_in > 0) {
		snprintf(err, errlen, "%u bytes after the end of the zlib stream", zs.avail_in);
		goto cleanup;
	}
	if (decode_payload(payload, plen, h, err, errlen) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	if (zinit)
		inflateEnd(&zs);
	free(payload);
	if (rc < 0)
		hdr_release(h);
	return rc;
}

/* --- base64 ------------------------------------------------------------------------------- */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t hdr_base64_size(size_t n)
{
	return (n + 2) / 3 * 4 + 1;
}

int hdr_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	if (cap < hdr_base64_size(n))
		return -1;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = n - i;

		if (left > 1)
			v |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[o++] = b64_alphabet[v >> 18 & 63];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = left > 1 ? b64_alphabet[v >> 6 & 63] : '=';
		out[o++] = left > 2 ? b64_alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return 0;
}

/* Value of a base64 character, -1 for anything else (including '='). */
static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int hdr_base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *outlen, char *err,
                      size_t errlen)
{
	size_t o = 0;

	*outlen = 0;
	if (n % 4 != 0) {
		snprintf(err, errlen, "base64 length %zu is not a multiple of 4", n);
		return -1;
	}
	if (cap < n / 4 * 3) {
		snprintf(err, errlen, "base64 output buffer too small");
		return -1;
	}
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		uint32_t w;

		for (int k = 0; k < 4; k++) {
			char c = in[i + k];

			v[k] = b64_value(c);
			if (v[k] >= 0 && pad == 0)
				continue;
			if (c == '=' && i + 4 == n && k >= 2) {
				pad++;
				v[k] = 0;
				continue;
			}
			if (v[k] >= 0 || c == '=')
				snprintf(err, errlen, "misplaced base64 padding at offset %zu",
				         i + k);
			else
				snprintf(err, errlen, "bad base64 character '%c' at offset %zu",
				         c > 0x20 && c < 0x7f ? c : '?', i + k);
			return -1;
		}
		w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
		    (uint32_t)v[3];
		if ((pad == 1 && (w & 0xFF)) || (pad == 2 && (w & 0xFFFF))) {
			snprintf(err, errlen, "bad base64 padding at offset %zu", i);
			return -1;
		}
		out[o++] = (uint8_t)(w >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(w >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)w;
	}
	*outlen = o;
	return 0;
}

int hdr_encode_base64(const struct hdr *h, char **out, char *err, size_t errlen)
{
	uint8_t *bin = NULL;
	size_t len, size;
	int rc = -1;

	*out = NULL;
	if (hdr_encode(h, &bin, &len, err, errlen) < 0)
		goto cleanup;
	size = hdr_base64_size(len);
	*out = malloc(size);
	if (!*out) {
		snprintf(err, errlen, "out of memory encoding a histogram");
		goto cleanup;
	}
	hdr_base64_encode(bin, len, *out, size);
	rc = 0;
cleanup:
	free(bin);
	return rc;
}

int hdr_decode_base64(const char *in, size_t n, struct hdr *h, char *err, size_t errlen)
{
	uint8_t *bin = NULL;
	size_t len;
	int rc = -1;

	memset(h, 0, sizeof *h);
	h->max_index = -1;
	bin = malloc(n / 4 * 3 + 1);
	if (!bin) {
		snprintf(err, errlen, "out of memory decoding a histogram");
		goto cleanup;
	}
	if (hdr_base64_decode(in, n, bin, n / 4 * 3 + 1, &len, err, errlen) < 0)
		goto cleanup;
	rc = hdr_decode(bin, len, h, err, errlen);
cleanup:
	free(bin);
	return rc;
}
