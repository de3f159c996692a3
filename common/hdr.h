/*
 * hdr — an HdrHistogram-compatible histogram of non-negative 64-bit integer values, and its
 * V2 compressed encoding (the `HISTF…` strings of .hlog files; raw bytes in SQLite BLOBs).
 *
 * Layout: the same buckets as HdrHistogram_c/Java for a given (lowest, highest, significant
 * digits), so a counts index means the same thing here as in every other implementation
 * and encoded histograms travel both ways.  Values are in whatever unit the caller records
 * (soak: microseconds; jHiccup logs: nanoseconds).  Within [0, highest] a value and the
 * others of its bucket differ by at most one part in 10^digits (and below
 * 2^unit_magnitude * sub_count by at most the unit, 2^unit_magnitude).
 *
 * Ownership and lifetime: a `struct hdr` may live by value inside another struct.
 * hdr_init() allocates its counts, hdr_release() frees them (and leaves a struct that is
 * safe to release again); hdr_new()/hdr_free() do the same for a heap struct, and
 * hdr_free(NULL) is a no-op.  Functions that fill a caller's struct (hdr_init, hdr_decode)
 * leave it released on failure, so the caller releases only after success.
 *
 * Threads: not thread-safe.  One writer at a time, and no reader while it writes; the load
 * engine keeps one histogram per thread and merges them (hdr_add) in the aggregator after
 * the interval is handed over.
 *
 * Cost: hdr_record()/hdr_record_n() are static inline: a count-leading-zeros, two shifts, an
 * add and a compare; no division, no allocation, no lock.  hdr_reset() clears only the
 * counts up to the highest used index.  Queries (percentiles, mean, min) walk the counts.
 *
 * Percentile rule (HdrHistogram_c's and Go's, chosen so figures match the C tools):
 *   rank = (int64)(p / 100 * total + 0.5), at least 1;  p is clamped to [0, 100];
 *   the result is the HIGHEST equivalent value of the first bucket whose running count
 *   reaches rank, except p == 0, which returns the LOWEST equivalent value of that bucket
 *   (the first non-empty one).  An empty histogram returns 0.
 * Java ranks with ceil(p / 100 * total) instead; the two differ only where p/100*total has
 * a fraction strictly between 0 and one half (1, 2, 2, 2, 2 recorded: Java p25 = 2, here 1).
 *
 * Errors: functions return 0 or -1 (or a count, as documented) and fill `err` with a
 * lower-case message; the caller adds context (file, line) and prints it.
 */
#ifndef SOAK_HDR_H
#define SOAK_HDR_H

#include <stddef.h>
#include <stdint.h>

/* soak's latency histograms: microseconds, 1 µs to 1 h, 3 significant digits. */
#define HDR_LATENCY_LOWEST  1
#define HDR_LATENCY_HIGHEST 3600000000LL
#define HDR_LATENCY_DIGITS  3

/* Limits of a layout: highest trackable values above this would overflow int64 arithmetic
 * in the top bucket; 5 digits is HdrHistogram's own maximum. */
#define HDR_HIGHEST_MAX (INT64_MAX / 2)
#define HDR_DIGITS_MAX  5

struct hdr {
	int64_t lowest;             /* lowest discernible value (>= 1), as given to hdr_init */
	int64_t highest;            /* highest trackable value (>= 2 * lowest), as given */
	int32_t digits;             /* significant value digits, 0..5, as given */
	int32_t unit_magnitude;     /* floor(log2(lowest)): index 0 covers [0, 2^unit_magnitude) */
	int32_t sub_half_magnitude; /* log2(sub_count / 2) */
	int32_t sub_count;          /* sub-buckets per bucket: 2^ceil(log2(2 * 10^digits)) */
	int32_t sub_half;     /* sub_count / 2: buckets after the first use only their top half */
	int32_t bucket_count; /* buckets needed to cover highest */
	int32_t counts_len;   /* (bucket_count + 1) * sub_half: length of counts */
	int32_t lz_base;      /* 64 - unit_magnitude - sub_half_magnitude - 1 (index arithmetic) */
	int64_t sub_mask;     /* (sub_count - 1) << unit_magnitude (index arithmetic) */
	int32_t max_index;    /* highest index whose count may be non-zero; -1 when empty.
	                       * Invariant: counts[max_index + 1 .. counts_len) are all zero. */
	int64_t total;        /* sum of all counts */
	int64_t *counts;      /* counts_len counters, owned; NULL after hdr_release */
};

/* Creates a histogram; fails (err) for lowest < 1, digits outside 0..5, highest < 2 * lowest
 * or above HDR_HIGHEST_MAX, or a layout whose unit and sub-bucket magnitudes exceed 61. */
int hdr_init(struct hdr *h, int64_t lowest, int64_t highest, int digits, char *err, size_t errlen);
/* hdr_init(h, HDR_LATENCY_LOWEST, HDR_LATENCY_HIGHEST, HDR_LATENCY_DIGITS, ...). */
int hdr_init_latency(struct hdr *h, char *err, size_t errlen);
/* Frees the counts and zeroes the struct; releasing twice, or a zeroed struct, is fine. */
void hdr_release(struct hdr *h);
/* hdr_init on the heap; NULL (and err) on failure. */
struct hdr *hdr_new(int64_t lowest, int64_t highest, int digits, char *err, size_t errlen);
/* hdr_release then free; NULL is a no-op. */
void hdr_free(struct hdr *h);

/* Counts index of a value >= 0 (may be >= counts_len when the value is out of range). */
static inline int32_t hdr_index(const struct hdr *h, int64_t value)
{
	int32_t bucket = h->lz_base - __builtin_clzll((uint64_t)(value | h->sub_mask));
	int32_t sub = (int32_t)(value >> (bucket + h->unit_magnitude));
	return ((bucket + 1) << h->sub_half_magnitude) + sub - h->sub_half;
}

/* Adds n (>= 0) occurrences of value.  Returns 0, or -1 when value is negative or above
 * the range (the histogram is then unchanged: the caller counts what it dropped). */
static inline int hdr_record_n(struct hdr *h, int64_t value, int64_t n)
{
	int32_t idx;

	if (value < 0 || n < 0)
		return -1;
	idx = hdr_index(h, value);
	if (idx >= h->counts_len)
		return -1;
	h->counts[idx] += n;
	h->total += n;
	if (idx > h->max_index)
		h->max_index = idx;
	return 0;
}

static inline int hdr_record(struct hdr *h, int64_t value)
{
	return hdr_record_n(h, value, 1);
}

/* Records value and, when it exceeds expected_interval (> 0), the values a closed-loop
 * measurement missed meanwhile: value - k * expected_interval for k = 1, 2, ... while they
 * stay >= expected_interval (HdrHistogram's coordinated-omission correction; costs
 * value / expected_interval records).  Returns 0, or -1 when value is out of range. */
int hdr_record_corrected(struct hdr *h, int64_t value, int64_t expected_interval);

/* Sets every count to zero; costs O(max_index), not O(counts_len). */
void hdr_reset(struct hdr *h);

/* Adds every count of src into dst, re-recording each non-zero bucket's lowest equivalent
 * value (in src's layout) into dst's layout; works across layouts.  Returns the number of
 * counts dropped because their value is outside dst's range (0 when all fit). */
int64_t hdr_add(struct hdr *dst, const struct hdr *src);

/* Total count, i.e. the number of recorded values. */
int64_t hdr_total(const struct hdr *h);
/* Lowest equivalent value of the lowest non-empty bucket; 0 when empty. */
int64_t hdr_min(const struct hdr *h);
/* Highest equivalent value of the highest non-empty bucket; 0 when empty or when only the
 * bucket holding 0 is used (as HdrHistogram_c reports it). */
int64_t hdr_max(const struct hdr *h);
/* Mean of the median equivalent values weighted by count; 0 when empty. */
double hdr_mean(const struct hdr *h);
/* Value at percentile p (0..100) under the rule in the contract above. */
int64_t hdr_value_at_percentile(const struct hdr *h, double p);
/* Count in the bucket holding value (0 when out of range). */
int64_t hdr_count_at_value(const struct hdr *h, int64_t value);

/* Equivalent-value arithmetic: values in the same bucket are equivalent.  value >= 0 and
 * within the layout's range (the arithmetic does not check). */
int64_t hdr_value_at_index(const struct hdr *h, int32_t index); /* lowest value of a bucket */
int64_t hdr_size_of_range(const struct hdr *h, int64_t value);
int64_t hdr_lowest_equivalent(const struct hdr *h, int64_t value);
int64_t hdr_highest_equivalent(const struct hdr *h, int64_t value);
int64_t hdr_median_equivalent(const struct hdr *h, int64_t value);
int64_t hdr_next_non_equivalent(const struct hdr *h, int64_t value);

/* --- V2 compressed encoding ------------------------------------------------------------
 * Envelope: cookie 0x1c849314 (base 0x1c849304), int32 zlib length N, N bytes of zlib.
 * Inflated: 40-byte header (cookie 0x1c849313, payload length, normalizing offset 0, digits,
 * lowest, highest, conversion ratio 1.0; big-endian) then the counts payload as ZigZag
 * LEB128 tokens up to the highest non-zero index, zero runs of two or more as one negative
 * token.  Deflate level 9.  Decoding needs the histogram's own layout, so the decoder
 * creates the histogram from the header. */

/* Cap on a decoded histogram's counts: 32 MiB of counters.  It admits every layout up to
 * 5 digits over [1, 2^48) (1 h in ns needs 2^42); a hostile header cannot ask for more. */
#define HDR_DECODE_MAX_COUNTS (1 << 22)

/* Encodes h into a malloc'ed buffer (*out, *outlen; the caller frees it). */
int hdr_encode(const struct hdr *h, uint8_t **out, size_t *outlen, char *err, size_t errlen);
/* Decodes buf[0..len) (exactly one envelope, nothing after it) into h, which it initialises;
 * on success the caller owns h (hdr_release).  Rejects with a message: a bad or unsupported
 * cookie, lengths that disagree, zlib errors, a header whose layout is invalid or larger than
 * HDR_DECODE_MAX_COUNTS, a non-zero normalizing offset, a conversion ratio other than 1.0, a
 * truncated varint, a payload running past counts_len, a total overflowing. */
int hdr_decode(const uint8_t *buf, size_t len, struct hdr *h, char *err, size_t errlen);

/* Standard base64 with '=' padding, one line.  Encoded size of n bytes, including the
 * terminating NUL. */
size_t hdr_base64_size(size_t n);
/* Writes the encoding of in[0..n) and a NUL into out (cap bytes); -1 if cap is too small. */
int hdr_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap);
/* Decodes in[0..n) into out (cap bytes, at least n / 4 * 3); *outlen gets the size.  Rejects
 * a length that is not a multiple of 4, characters outside the alphabet, misplaced padding,
 * and non-zero bits in the padding. */
int hdr_base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *outlen, char *err,
                      size_t errlen);
/* hdr_encode then base64: a malloc'ed NUL-terminated string the caller frees. */
int hdr_encode_base64(const struct hdr *h, char **out, char *err, size_t errlen);
/* base64 then hdr_decode. */
int hdr_decode_base64(const char *in, size_t n, struct hdr *h, char *err, size_t errlen);

#endif
