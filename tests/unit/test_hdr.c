/* The histogram: layout, equivalent values, percentiles (exact and against sorted random
 * data), merging, the V2 encoding (round trips, the real files' first interval byte by byte)
 * and hostile encoded input.  Expected figures come from tests/data/hdr/MANIFEST.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "hdr.h"

/* Line 5 of both reference logs: the first interval. */
static const char first_b64[] =
    "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekI"
    "LGZkKmcCAEf2CsI=";

static void init_ok(struct hdr *h, int64_t lo, int64_t hi, int digits)
{
	char err[160] = "";
	int rc = hdr_init(h, lo, hi, digits, err, sizeof err);
	if (rc != 0)
		fail_msg("hdr_init(%lld, %lld, %d): %s", (long long)lo, (long long)hi, digits, err);
}

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void assert_same_counts(const struct hdr *a, const struct hdr *b)
{
	assert_int_equal(a->lowest, b->lowest);
	assert_int_equal(a->highest, b->highest);
	assert_int_equal(a->digits, b->digits);
	assert_int_equal(a->counts_len, b->counts_len);
	assert_int_equal(a->total, b->total);
	for (int32_t i = 0; i < a->counts_len; i++)
		if (a->counts[i] != b->counts[i])
			fail_msg("count %d: %lld != %lld", i, (long long)a->counts[i],
			         (long long)b->counts[i]);
}

static void layout_facts(void **state)
{
	static const struct {
		int64_t lo, hi;
		int digits;
		int32_t sub_count, unit, buckets, counts_len;
	} cases[] = {
	    {1, 3600000000LL, 3, 2048, 0, 22, 23552},
	    {1, INT64_C(1) << 32, 3, 2048, 0, 23, 24576},
	    {1, 3600000000000LL, 3, 2048, 0, 32, 33792},
	    {20000000, 100000000, 5, 262144, 24, 1, 262144},
	    {20000, 3600000000000LL, 2, 256, 14, 21, 2816},
	};
	struct hdr h;
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		init_ok(&h, cases[i].lo, cases[i].hi, cases[i].digits);
		assert_int_equal(h.sub_count, cases[i].sub_count);
		assert_int_equal(h.sub_half, cases[i].sub_count / 2);
		assert_int_equal(h.unit_magnitude, cases[i].unit);
		assert_int_equal(h.bucket_count, cases[i].buckets);
		assert_int_equal(h.counts_len, cases[i].counts_len);
		assert_int_equal(h.max_index, -1);
		hdr_release(&h);
	}
	init_ok(&h, 1, 3600000000LL, 3);
	assert_int_equal(h.sub_half_magnitude, 10);
	hdr_release(&h);
	/* (1, 2^32, 3): value 3 is bucket 0 sub-bucket 3, 1027 is sub-bucket 1027 (index = sub). */
	init_ok(&h, 1, INT64_C(1) << 32, 3);
	assert_int_equal(hdr_index(&h, 3), 3);
	assert_int_equal(hdr_index(&h, 1027), 1027);
	assert_int_equal(hdr_index(&h, 2048), 2048); /* first of bucket 1: 2048/2 + 1024 */
	hdr_release(&h);

	char err[128];
	assert_int_equal(hdr_init_latency(&h, err, sizeof err), 0);
	assert_int_equal(h.lowest, 1);
	assert_int_equal(h.highest, 3600000000LL);
	assert_int_equal(h.digits, 3);
	assert_int_equal(h.counts_len, 23552);
	hdr_release(&h);
	hdr_release(&h); /* twice is fine */
}

static void init_errors(void **state)
{
	static const struct {
		int64_t lo, hi;
		int digits;
		const char *msg;
	} cases[] = {
	    {0, 1000, 3, "lowest discernible value must be at least 1, not 0"},
	    {1, 1000, 6, "significant digits must be 0 to 5, not 6"},
	    {1, 1000, -1, "significant digits must be 0 to 5, not -1"},
	    {10, 19, 3, "highest trackable value 19 must be at least twice the lowest (10)"},
	    {1, INT64_MAX, 3,
	     "highest trackable value 9223372036854775807 is above "
	     "4611686018427387903"},
	    {INT64_C(1) << 60, INT64_MAX / 2, 3,
	     "lowest 1152921504606846976 with 3 digits leaves no room for buckets"},
	};
	struct hdr h, *hp;
	char err[160];
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err[0] = '\0';
		assert_int_equal(
		    hdr_init(&h, cases[i].lo, cases[i].hi, cases[i].digits, err, sizeof err), -1);
		assert_string_equal(err, cases[i].msg);
		assert_null(h.counts);
		hdr_release(&h); /* a failed init leaves a releasable struct */
	}
	assert_null(hdr_new(0, 10, 3, err, sizeof err));
	hp = hdr_new(1, 1000, 0, err, sizeof err);
	assert_non_null(hp);
	assert_int_equal(hdr_record(hp, 999), 0);
	hdr_free(hp);
	hdr_free(NULL);
}

static void equivalent_values(void **state)
{
	static const struct {
		int64_t v, size, lowest, highest;
	} cases[] = {
	    {1, 1, 1, 1},
	    {1025, 1, 1025, 1025},
	    {2047, 1, 2047, 2047},
	    {2048, 2, 2048, 2049},
	    {2500, 2, 2500, 2501},
	    {8180, 4, 8180, 8183},
	    {8191, 4, 8188, 8191},
	    {8192, 8, 8192, 8199},
	    {8193, 8, 8192, 8199},
	    {9995, 8, 9992, 9999},
	    {10000, 8, 10000, 10007},
	    {10007, 8, 10000, 10007},
	    {10008, 8, 10008, 10015},
	    {10009, 8, 10008, 10015},
	};
	static const int64_t medians[][2] = {
	    {4, 4}, {5, 5}, {4000, 4001}, {8000, 8002}, {10007, 10004}};
	static const int64_t next[][2] = {{1, 2},       {2047, 2048},   {2048, 2050},
	                                  {8191, 8192}, {10007, 10008}, {10008, 10016}};
	static const int64_t scaled[][2] = {{8180, 8183}, {8191, 8191},   {8193, 8199},
	                                    {9995, 9999}, {10007, 10007}, {10008, 10015}};
	struct hdr h;
	(void)state;
	init_ok(&h, 1, 3600000000LL, 3);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(hdr_size_of_range(&h, cases[i].v), cases[i].size);
		assert_int_equal(hdr_lowest_equivalent(&h, cases[i].v), cases[i].lowest);
		assert_int_equal(hdr_highest_equivalent(&h, cases[i].v), cases[i].highest);
		assert_int_equal(hdr_value_at_index(&h, hdr_index(&h, cases[i].v)),
		                 cases[i].lowest);
	}
	for (size_t i = 0; i < sizeof medians / sizeof medians[0]; i++)
		assert_int_equal(hdr_median_equivalent(&h, medians[i][0]), medians[i][1]);
	for (size_t i = 0; i < sizeof next / sizeof next[0]; i++) {
		assert_int_equal(hdr_next_non_equivalent(&h, next[i][0]), next[i][1]);
		assert_int_equal(hdr_highest_equivalent(&h, next[i][0]), next[i][1] - 1);
	}
	hdr_release(&h);
	init_ok(&h, 1024, 3600000000LL * 1024, 3);
	for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
		assert_int_equal(hdr_highest_equivalent(&h, scaled[i][0] * 1024),
		                 scaled[i][1] * 1024 + 1023);
	assert_int_equal(hdr_highest_equivalent(&h, 8180 * 1024), 8380415);
	/* Everything below the unit is one bucket. */
	assert_int_equal(hdr_lowest_equivalent(&h, 1023), 0);
	assert_int_equal(hdr_highest_equivalent(&h, 0), 1023);
	hdr_release(&h);
}

static void record_and_reset(void **state)
{
	struct hdr h;
	(void)state;
	init_ok(&h, 1, 3600000000LL, 3);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_max(&h), 0);
	assert_true(hdr_mean(&h) == 0);
	assert_int_equal(hdr_value_at_percentile(&h, 50), 0);
	assert_int_equal(hdr_record(&h, -1), -1);
	assert_int_equal(hdr_record(&h, 3600000000LL), 0); /* the highest trackable value */
	/* The top bucket ends at 2048 << 21; anything from there is out. */
	assert_int_equal(hdr_record(&h, (INT64_C(2048) << 21) - 1), 0);
	assert_int_equal(hdr_record(&h, INT64_C(2048) << 21), -1);
	assert_int_equal(hdr_record(&h, INT64_MAX), -1);
	assert_int_equal(hdr_record_n(&h, 5, -2), -1);
	assert_int_equal(hdr_total(&h), 2);
	assert_int_equal(h.max_index, h.counts_len - 1);
	assert_int_equal(hdr_max(&h), (INT64_C(2048) << 21) - 1);

	hdr_reset(&h);
	assert_int_equal(hdr_total(&h), 0);
	assert_int_equal(h.max_index, -1);
	for (int32_t i = 0; i < h.counts_len; i++)
		assert_int_equal(h.counts[i], 0);

	assert_int_equal(hdr_record_n(&h, 1000, 7), 0);
	assert_int_equal(hdr_record(&h, 5), 0);
	assert_int_equal(hdr_record_n(&h, 0, 3), 0);
	assert_int_equal(hdr_total(&h), 11);
	assert_int_equal(hdr_count_at_value(&h, 1000), 7);
	assert_int_equal(hdr_count_at_value(&h, 5), 1);
	assert_int_equal(hdr_count_at_value(&h, -5), 0);
	assert_int_equal(hdr_count_at_value(&h, INT64_MAX), 0);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_max(&h), 1000);
	assert_int_equal(h.max_index, hdr_index(&h, 1000));
	hdr_reset(&h);
	assert_int_equal(hdr_count_at_value(&h, 1000), 0);
	assert_int_equal(hdr_record(&h, 7), 0);
	assert_int_equal(hdr_min(&h), 7);
	assert_int_equal(hdr_max(&h), 7);

	/* Only the bucket of 0 in a coarse layout: max reads 0, as in HdrHistogram_c. */
	hdr_release(&h);
	init_ok(&h, 20000, 3600000000000LL, 2);
	assert_int_equal(hdr_record(&h, 0), 0);
	assert_int_equal(hdr_max(&h), 0);
	assert_int_equal(hdr_value_at_percentile(&h, 100), 16383);
	hdr_release(&h);
}

static void percentile_examples(void **state)
{
	struct hdr h;
	(void)state;
	/* C test_percentiles: 10000 x 1000 then 1 x 100000000. */
	init_ok(&h, 1, 3600000000LL, 3);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(hdr_record(&h, 1000), 0);
	assert_int_equal(hdr_record(&h, 100000000), 0);
	assert_int_equal(hdr_total(&h), 10001);
	assert_int_equal(hdr_min(&h), 1000);
	assert_int_equal(hdr_value_at_percentile(&h, 30), 1000);
	assert_int_equal(hdr_value_at_percentile(&h, 99), 1000);
	assert_int_equal(hdr_value_at_percentile(&h, 99.99), 1000);
	assert_int_equal(hdr_value_at_percentile(&h, 99.999), 100007935);
	assert_int_equal(hdr_value_at_percentile(&h, 100), 100007935);
	assert_int_equal(hdr_value_at_percentile(&h, 150), 100007935); /* clamped */
	assert_int_equal(hdr_value_at_percentile(&h, 0), 1000);        /* lowest equivalent */
	assert_int_equal(hdr_value_at_percentile(&h, -3), 1000);
	assert_int_equal(hdr_max(&h), 100007935);

	/* The same with coordinated-omission correction (expected interval 10000). */
	hdr_reset(&h);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(hdr_record_corrected(&h, 1000, 10000), 0);
	assert_int_equal(hdr_record_corrected(&h, 100000000, 10000), 0);
	assert_int_equal(hdr_total(&h), 20000);
	assert_int_equal(hdr_value_at_percentile(&h, 75), 50003967);
	assert_int_equal(hdr_value_at_percentile(&h, 90), 80019455);
	assert_int_equal(hdr_value_at_percentile(&h, 99), 98041855);
	assert_int_equal(hdr_record_corrected(&h, -1, 10000), -1);
	hdr_release(&h);

	/* Go TestValueAtQuantile: each of 0..999999 once in (1, 10000000, 3). */
	init_ok(&h, 1, 10000000, 3);
	for (int64_t v = 0; v < 1000000; v++)
		assert_int_equal(hdr_record(&h, v), 0);
	static const struct {
		double p;
		int64_t v;
	} go[] = {{50, 500223}, {75, 750079},   {90, 900095},   {95, 950271},
	          {99, 990207}, {99.9, 999423}, {99.99, 999935}};
	for (size_t i = 0; i < sizeof go / sizeof go[0]; i++)
		assert_int_equal(hdr_value_at_percentile(&h, go[i].p), go[i].v);
	assert_int_equal(hdr_max(&h), 1000447);
	assert_int_equal(hdr_min(&h), 0);
	hdr_release(&h);

	/* Java testGetValueAtPercentileExamples; our (C) rounding, Java's ceil differs twice. */
	init_ok(&h, 1, 3600000000LL, 3);
	hdr_record(&h, 1);
	hdr_record(&h, 2);
	assert_int_equal(hdr_value_at_percentile(&h, 50.0), 1);
	assert_int_equal(hdr_value_at_percentile(&h, 50.00000000000001), 1);
	assert_int_equal(hdr_value_at_percentile(&h, 50.0000000000001), 1); /* Java: 2 */
	hdr_record(&h, 2);
	hdr_record(&h, 2);
	hdr_record(&h, 2);
	assert_int_equal(hdr_value_at_percentile(&h, 25), 1); /* Java: 2 */
	assert_int_equal(hdr_value_at_percentile(&h, 30), 2);
	hdr_release(&h);

	/* C test_create_with_large_values. */
	init_ok(&h, 20000000, 100000000, 5);
	hdr_record(&h, 100000000);
	hdr_record(&h, 20000000);
	hdr_record(&h, 30000000);
	assert_int_equal(hdr_value_at_percentile(&h, 50), 33554431);
	assert_int_equal(hdr_value_at_percentile(&h, 83.33), 33554431);
	assert_int_equal(hdr_value_at_percentile(&h, 83.34), 100663295);
	assert_int_equal(hdr_value_at_percentile(&h, 99), 100663295);
	assert_true(hdr_lowest_equivalent(&h, 20000000) == hdr_lowest_equivalent(&h, 30000000));
	hdr_release(&h);
}

enum dist { UNIFORM, LOG_UNIFORM, TAILED, CONSTANT, SMALL };

static int64_t draw(enum dist d, uint64_t *s)
{
	switch (d) {
	case UNIFORM:
		return (int64_t)(rnd(s) % 1000000);
	case LOG_UNIFORM: /* 1 .. 2^31, even across magnitudes */
		return (int64_t)(rnd(s) % (UINT64_C(1) << (rnd(s) % 31 + 1)));
	case TAILED: /* mostly ~5 ms in µs, 1 % up to 2 s: a latency shape */
		return rnd(s) % 100 == 0 ? (int64_t)(rnd(s) % 2000000)
		                         : 4000 + (int64_t)(rnd(s) % 2000);
	case CONSTANT:
		return 123456;
	case SMALL:
		return (int64_t)(rnd(s) % 3000);
	}
	return 0;
}

/* Against the exact sorted data: the answer is the highest equivalent of the rank-th
 * smallest value, so within the histogram's resolution of it. */
static void percentiles_random(void **state)
{
	static const double ps[] = {0,  0.1, 1,  10, 25,   33.3, 50,    66.7,
	                            75, 90,  95, 99, 99.5, 99.9, 99.99, 100};
	enum { N = 20000 };
	int64_t *vals = malloc(N * sizeof *vals);
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	struct hdr h;
	(void)state;
	assert_non_null(vals);
	init_ok(&h, 1, 3600000000LL, 3);
	for (int d = UNIFORM; d <= SMALL; d++) {
		double exact_mean = 0;
		hdr_reset(&h);
		for (int i = 0; i < N; i++) {
			vals[i] = draw((enum dist)d, &seed);
			exact_mean += (double)vals[i] / N;
			assert_int_equal(hdr_record(&h, vals[i]), 0);
		}
		qsort(vals, N, sizeof *vals, cmp_i64);
		for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
			int64_t rank = (int64_t)(ps[k] / 100 * N + 0.5), exact, got;
			if (rank < 1)
				rank = 1;
			exact = vals[rank - 1];
			got = hdr_value_at_percentile(&h, ps[k]);
			if (ps[k] == 0)
				assert_int_equal(got, hdr_lowest_equivalent(&h, exact));
			else
				assert_int_equal(got, hdr_highest_equivalent(&h, exact));
			/* 3 digits: off by at most one part in a thousand (1 below 2048). */
			if ((double)(got > exact ? got - exact : exact - got) > exact * 1e-3 + 1e-9)
				fail_msg("dist %d p%g: got %lld, exact %lld", d, ps[k],
				         (long long)got, (long long)exact);
		}
		assert_int_equal(hdr_min(&h), hdr_lowest_equivalent(&h, vals[0]));
		assert_int_equal(hdr_max(&h), hdr_highest_equivalent(&h, vals[N - 1]));
		assert_true(hdr_mean(&h) >= exact_mean * (1 - 1e-3) - 1e-9);
		assert_true(hdr_mean(&h) <= exact_mean * (1 + 1e-3) + 1);
	}
	hdr_release(&h);
	free(vals);
}

static void merging(void **state)
{
	struct hdr a, b, all, fine, coarse, small;
	uint64_t seed = 42;
	(void)state;
	init_ok(&a, 1, 3600000000LL, 3);
	init_ok(&b, 1, 3600000000LL, 3);
	init_ok(&all, 1, 3600000000LL, 3);
	for (int i = 0; i < 5000; i++) {
		int64_t v = draw(TAILED, &seed);
		hdr_record(i % 3 ? &a : &b, v);
		hdr_record(&all, v);
	}
	assert_int_equal(hdr_add(&a, &b), 0);
	assert_same_counts(&a, &all);
	assert_int_equal(a.max_index, all.max_index);

	/* Across layouts: every bucket re-recorded at its lowest equivalent value. */
	init_ok(&coarse, 20000, 3600000000000LL, 2);
	init_ok(&fine, 1, 3600000000000LL, 3);
	for (int i = 0; i < 3000; i++)
		hdr_record(&coarse, draw(LOG_UNIFORM, &seed) * 100);
	assert_int_equal(hdr_add(&fine, &coarse), 0);
	assert_int_equal(hdr_total(&fine), hdr_total(&coarse));
	for (int32_t i = 0; i <= coarse.max_index; i++)
		if (coarse.counts[i])
			assert_true(hdr_count_at_value(&fine, hdr_value_at_index(&coarse, i)) >=
			            coarse.counts[i]);
	assert_int_equal(hdr_min(&fine), hdr_min(&coarse));

	/* Out of range in the destination: dropped and counted, the rest kept. */
	init_ok(&small, 1, 1000000, 3);
	int64_t above = 0;
	for (int32_t i = 0; i <= all.max_index; i++)
		if (hdr_value_at_index(&all, i) > hdr_highest_equivalent(&small, 1000000) &&
		    hdr_index(&small, hdr_value_at_index(&all, i)) >= small.counts_len)
			above += all.counts[i];
	assert_true(above > 0);
	assert_int_equal(hdr_add(&small, &all), above);
	assert_int_equal(hdr_total(&small) + above, hdr_total(&all));

	/* A total that would overflow is dropped, not wrapped. */
	hdr_reset(&a);
	hdr_reset(&b);
	hdr_record_n(&a, 10, INT64_MAX - 5);
	hdr_record_n(&b, 10, 100);
	hdr_record_n(&b, 20, 3);
	assert_int_equal(hdr_add(&a, &b), 100);
	assert_int_equal(hdr_total(&a), INT64_MAX - 2);

	hdr_release(&a);
	hdr_release(&b);
	hdr_release(&all);
	hdr_release(&fine);
	hdr_release(&coarse);
	hdr_release(&small);
}

/* Inflates an encoded envelope's zlib part into out; returns the inflated size. */
static size_t inflate_blob(const uint8_t *blob, size_t len, uint8_t *out, size_t cap)
{
	uLongf n = cap;
	assert_true(len >= 8);
	assert_int_equal(uncompress(out, &n, blob + 8, len - 8), Z_OK);
	return n;
}

static void first_interval_bytes(void **state)
{
	static const uint8_t inflated[73] = {
	    0x1c, 0x84, 0x93, 0x13, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4e, 0x20, 0x00, 0x00,
	    0x03, 0x46, 0x30, 0xb8, 0xa0, 0x00, 0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x18, 0x12, 0x12, 0x0a, 0x10, 0x16, 0x1c, 0x16, 0x08, 0x0a, 0x10, 0x1a,
	    0x12, 0x12, 0x0c, 0x42, 0x4a, 0x5c, 0x2e, 0x4e, 0x96, 0x02, 0xac, 0x01, 0xda,
	    0x02, 0x2c, 0x10, 0xa3, 0x01, 0x02, 0x77, 0x02};
	static const int64_t tokens[] = {12,  9,  9,   5,  8, 11,  14, 11,  4,  5,
	                                 8,   13, 9,   9,  6, 33,  37, 46,  23, 39,
	                                 139, 86, 173, 22, 8, -82, 1,  -60, 1};
	static const int64_t buckets[27][3] = {
	    {0, 0, 12},        {1, 16384, 9},     {2, 32768, 9},     {3, 49152, 5},
	    {4, 65536, 8},     {5, 81920, 11},    {6, 98304, 14},    {7, 114688, 11},
	    {8, 131072, 4},    {9, 147456, 5},    {10, 163840, 8},   {11, 180224, 13},
	    {12, 196608, 9},   {13, 212992, 9},   {14, 229376, 6},   {15, 245760, 33},
	    {16, 262144, 37},  {17, 278528, 46},  {18, 294912, 23},  {19, 311296, 39},
	    {20, 327680, 139}, {21, 344064, 86},  {22, 360448, 173}, {23, 376832, 22},
	    {24, 393216, 8},   {107, 1753088, 1}, {168, 2752512, 1}};
	uint8_t bin[128], out[256], *enc = NULL;
	size_t n, enclen, pos = 40, nt = 0;
	char err[160], *b64 = NULL;
	struct hdr h;
	int nonzero = 0;
	(void)state;

	assert_int_equal(
	    hdr_base64_decode(first_b64, strlen(first_b64), bin, sizeof bin, &n, err, sizeof err),
	    0);
	assert_int_equal(n, 77);
	static const uint8_t head[10] = {0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 0x45, 0x78, 0xda};
	assert_memory_equal(bin, head, sizeof head);
	assert_int_equal(inflate_blob(bin, n, out, sizeof out), 73);
	assert_memory_equal(out, inflated, 73);

	/* The payload's tokens, read here with a test-local ZigZag LEB128 reader. */
	while (pos < 73) {
		uint64_t u = 0;
		for (int sh = 0;; sh += 7) {
			u |= (uint64_t)(out[pos] & 0x7f) << sh;
			if (!(out[pos++] & 0x80))
				break;
		}
		assert_true(nt < sizeof tokens / sizeof tokens[0]);
		assert_int_equal((int64_t)(u >> 1) ^ -(int64_t)(u & 1), tokens[nt++]);
	}
	assert_int_equal(nt, sizeof tokens / sizeof tokens[0]);

	assert_int_equal(hdr_decode(bin, n, &h, err, sizeof err), 0);
	assert_int_equal(h.lowest, 20000);
	assert_int_equal(h.highest, 3600000000000LL);
	assert_int_equal(h.digits, 2);
	assert_int_equal(h.sub_count, 256);
	assert_int_equal(h.unit_magnitude, 14);
	assert_int_equal(h.bucket_count, 21);
	assert_int_equal(h.counts_len, 2816);
	assert_int_equal(hdr_total(&h), 741);
	for (int32_t i = 0; i < h.counts_len; i++)
		if (h.counts[i]) {
			assert_true(nonzero < 27);
			assert_int_equal(i, buckets[nonzero][0]);
			assert_int_equal(hdr_value_at_index(&h, i), buckets[nonzero][1]);
			assert_int_equal(h.counts[i], buckets[nonzero][2]);
			nonzero++;
		}
	assert_int_equal(nonzero, 27);
	assert_int_equal(hdr_max(&h), 2768895);
	assert_int_equal(hdr_min(&h), 0);
	assert_int_equal(hdr_value_at_percentile(&h, 50), 344063);
	assert_int_equal(hdr_value_at_percentile(&h, 90), 376831);
	assert_int_equal(hdr_value_at_percentile(&h, 99), 409599);
	assert_int_equal(hdr_value_at_percentile(&h, 99.9), 1769471); /* Java's ceil: 2768895 */
	assert_int_equal(hdr_value_at_percentile(&h, 100), 2768895);
	assert_true(hdr_mean(&h) > 301998.466 && hdr_mean(&h) < 301998.467);

	/* Our encoder writes the very bytes the Java writer did. */
	assert_int_equal(hdr_encode(&h, &enc, &enclen, err, sizeof err), 0);
	assert_int_equal(enclen, 77);
	assert_memory_equal(enc, bin, 77);
	assert_int_equal(hdr_encode_base64(&h, &b64, err, sizeof err), 0);
	assert_string_equal(b64, first_b64);
	free(b64);
	free(enc);
	hdr_release(&h);
}

/* decode(encode(h)) == h in every count, and encode(decode(x)) == x for our own x. */
static void roundtrip_one(const struct hdr *h)
{
	uint8_t *enc = NULL, *enc2 = NULL;
	size_t len, len2;
	char err[160], *b64 = NULL;
	struct hdr d, d2;

	if (hdr_encode(h, &enc, &len, err, sizeof err) < 0)
		fail_msg("encode: %s", err);
	if (hdr_decode(enc, len, &d, err, sizeof err) < 0)
		fail_msg("decode: %s", err);
	assert_same_counts(h, &d);
	assert_int_equal(hdr_max(&d), hdr_max(h));
	assert_int_equal(hdr_encode(&d, &enc2, &len2, err, sizeof err), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(enc2, enc, len);
	assert_int_equal(hdr_encode_base64(h, &b64, err, sizeof err), 0);
	assert_int_equal(strncmp(b64, "HISTF", 5), 0);
	assert_int_equal(hdr_decode_base64(b64, strlen(b64), &d2, err, sizeof err), 0);
	assert_same_counts(h, &d2);
	free(b64);
	free(enc);
	free(enc2);
	hdr_release(&d);
	hdr_release(&d2);
}

static void encode_roundtrips(void **state)
{
	static const struct {
		int64_t lo, hi;
		int digits;
	} layouts[] = {{1, 3600000000LL, 3},        {1, 3600000000000LL, 3},
	               {20000, 3600000000000LL, 2}, {1, 1000, 0},
	               {7, 100000000, 1},           {1, 1000000000, 5},
	               {1000, HDR_HIGHEST_MAX, 4}};
	uint64_t seed = 7;
	struct hdr h;
	(void)state;
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		init_ok(&h, layouts[l].lo, layouts[l].hi, layouts[l].digits);
		roundtrip_one(&h); /* empty */
		for (int round = 0; round < 6; round++) {
			int n = (int)(rnd(&seed) % 400) + 1;
			hdr_reset(&h);
			for (int i = 0; i < n; i++) {
				int64_t v = (int64_t)(rnd(&seed) % (uint64_t)layouts[l].hi);
				if (round % 2)
					v = draw(LOG_UNIFORM, &seed) % layouts[l].hi;
				/* Counts of every size, including ones needing all 9 bytes. */
				int64_t c = round == 5 ? (int64_t)(rnd(&seed) >> 4)
				                       : 1 + (int64_t)(rnd(&seed) % 1000);
				if (c > INT64_MAX / 512)
					c /= 512;
				hdr_record_n(&h, v, c);
			}
			roundtrip_one(&h);
		}
		/* Single zeros between counts, and runs of exactly two. */
		hdr_reset(&h);
		for (int32_t i = 0; i < h.counts_len && i < 40; i += (i % 3) + 2)
			h.counts[i] = i + 1, h.total += i + 1, h.max_index = i;
		roundtrip_one(&h);
		/* One huge value: the top of the range, alone. */
		hdr_reset(&h);
		assert_int_equal(hdr_record(&h, layouts[l].hi), 0);
		roundtrip_one(&h);
		hdr_reset(&h);
		hdr_record_n(&h, 0, INT64_MAX);
		roundtrip_one(&h);
		hdr_release(&h);
	}
}

/* Builds an envelope around a hand-made inflated header and payload. */
static size_t make_blob(uint8_t *out, size_t cap, uint32_t cookie, int32_t plen, int32_t offset,
                        int32_t digits, int64_t lo, int64_t hi, uint64_t ratio,
                        const uint8_t *payload, size_t paylen)
{
	uint8_t raw[4096];
	uLongf zl = cap - 8;
	uint32_t w[4] = {cookie, (uint32_t)plen, (uint32_t)offset, (uint32_t)digits};
	uint64_t q[3] = {(uint64_t)lo, (uint64_t)hi, ratio};

	assert_true(40 + paylen <= sizeof raw);
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			raw[i * 4 + b] = (uint8_t)(w[i] >> (24 - 8 * b));
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 8; b++)
			raw[16 + i * 8 + b] = (uint8_t)(q[i] >> (56 - 8 * b));
	memcpy(raw + 40, payload, paylen);
	assert_int_equal(compress2(out + 8, &zl, raw, 40 + paylen, 9), Z_OK);
	out[0] = 0x1c, out[1] = 0x84, out[2] = 0x93, out[3] = 0x14;
	out[4] = (uint8_t)(zl >> 24), out[5] = (uint8_t)(zl >> 16);
	out[6] = (uint8_t)(zl >> 8), out[7] = (uint8_t)zl;
	return 8 + zl;
}

static void expect_reject(const uint8_t *buf, size_t len, const char *want)
{
	struct hdr h;
	char err[200] = "";

	if (hdr_decode(buf, len, &h, err, sizeof err) == 0)
		fail_msg("decoded, wanted '%s'", want);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	assert_null(h.counts);
}

static void hostile_inputs(void **state)
{
	const uint64_t one = 0x3FF0000000000000ULL;
	const uint32_t ck = 0x1c849313;
	uint8_t real[128], blob[8192], pay[4000];
	size_t rlen, n;
	char err[200];
	struct hdr h;
	(void)state;

	assert_int_equal(hdr_base64_decode(first_b64, strlen(first_b64), real, sizeof real, &rlen,
	                                   err, sizeof err),
	                 0);
	/* Every truncation and every single-byte corruption: an answer, never a crash. */
	for (size_t k = 0; k < rlen; k++) {
		err[0] = '\0';
		assert_int_equal(hdr_decode(real, k, &h, err, sizeof err), -1);
		assert_true(err[0] != '\0');
	}
	for (size_t k = 0; k < rlen; k++)
		for (int bit = 0; bit < 8; bit++) {
			uint8_t copy[128];
			memcpy(copy, real, rlen);
			copy[k] ^= (uint8_t)(1 << bit);
			err[0] = '\0';
			if (hdr_decode(copy, rlen, &h, err, sizeof err) == 0)
				hdr_release(&h);
			else
				assert_true(err[0] != '\0');
		}
	expect_reject(real, 7, "7 bytes are too short");
	expect_reject(real, 40, "truncated: 69 bytes of zlib data announced, 32 present");
	memcpy(blob, real, rlen);
	blob[rlen] = 0;
	expect_reject(blob, rlen + 1, "1 bytes after the zlib data");
	blob[0] = 0x1d;
	expect_reject(blob, rlen, "bad cookie 0x1d849314");
	memcpy(blob, real, rlen);
	blob[3] = 0x13; /* the uncompressed cookie outside */
	expect_reject(blob, rlen, "bad cookie 0x1c849313");
	memcpy(blob, real, rlen);
	blob[rlen - 1] ^= 1; /* the Adler-32 trailer */
	expect_reject(blob, rlen, "zlib: incorrect data check");
	memcpy(blob, real, rlen);
	blob[8] = 0x79; /* the zlib header */
	expect_reject(blob, rlen, "zlib: incorrect header check");

	/* Hand-made: a valid one first, so the rejections below are about one field each. */
	pay[0] = 0x02; /* token 1: one count at index 0 */
	n = make_blob(blob, sizeof blob, ck, 1, 0, 3, 1, 1000000, one, pay, 1);
	assert_int_equal(hdr_decode(blob, n, &h, err, sizeof err), 0);
	assert_int_equal(hdr_total(&h), 1);
	hdr_release(&h);
	n = make_blob(blob, sizeof blob, 0x1c849323, 1, 0, 3, 1, 1000000, one, pay, 1);
	assert_int_equal(hdr_decode(blob, n, &h, err, sizeof err), 0); /* bits 4-7 ignored */
	hdr_release(&h);
	n = make_blob(blob, sizeof blob, 0x1c849314, 1, 0, 3, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "bad inner cookie 0x1c849314");
	n = make_blob(blob, sizeof blob, ck, -1, 0, 3, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "negative payload length -1");
	n = make_blob(blob, sizeof blob, ck, 1, 2, 3, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "unsupported normalizing index offset 2");
	n = make_blob(blob, sizeof blob, ck, 1, 0, 3, 1, 1000000, 0x4000000000000000ULL, pay, 1);
	expect_reject(blob, n, "conversion ratio");
	n = make_blob(blob, sizeof blob, ck, 1, 0, 9, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "bad header: significant digits must be 0 to 5, not 9");
	n = make_blob(blob, sizeof blob, ck, 1, 0, 3, 0, 1000000, one, pay, 1);
	expect_reject(blob, n, "bad header: lowest discernible value must be at least 1");
	n = make_blob(blob, sizeof blob, ck, 1, 0, 3, 1000, 1000, one, pay, 1);
	expect_reject(blob, n, "at least twice the lowest");
	n = make_blob(blob, sizeof blob, ck, 1, 0, 5, 1, HDR_HIGHEST_MAX, one, pay, 1);
	expect_reject(blob, n, "counts is above the cap");
	n = make_blob(blob, sizeof blob, ck, 2, 0, 3, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "payload truncated: 1 of 2 bytes");
	pay[1] = 0x02;
	n = make_blob(blob, sizeof blob, ck, 1, 0, 3, 1, 1000000, one, pay, 2);
	expect_reject(blob, n, "inflated data longer than the 41 bytes announced");
	n = make_blob(blob, sizeof blob, ck, 0, 0, 3, 1, 1000000, one, pay, 0);
	assert_int_equal(hdr_decode(blob, n, &h, err, sizeof err), 0); /* empty is fine */
	assert_int_equal(hdr_total(&h), 0);
	hdr_release(&h);
	n = make_blob(blob, sizeof blob, ck, 30000000, 0, 3, 1, 1000000, one, pay, 1);
	expect_reject(blob, n, "payload length 30000000 is too long for 11264 counts");
	/* A zlib stream shorter than the header: the first 20 bytes of a valid one. */
	n = make_blob(blob, sizeof blob, ck, 0, 0, 3, 1, 1000, one, pay, 0);
	uint8_t raw20[40];
	assert_int_equal(inflate_blob(blob, n, raw20, sizeof raw20), 40);
	uLongf zl = sizeof blob - 8;
	assert_int_equal(compress2(blob + 8, &zl, raw20, 20, 9), Z_OK);
	blob[4] = 0, blob[5] = 0, blob[6] = (uint8_t)(zl >> 8), blob[7] = (uint8_t)zl;
	expect_reject(blob, 8 + zl, "inflated data (20 bytes) too short for the header");

	/* Payloads that run past counts_len (layout (1, 1000, 0): counts_len 11). */
	struct hdr small;
	init_ok(&small, 1, 1000, 0);
	assert_int_equal(small.counts_len, 11);
	hdr_release(&small);
	for (int i = 0; i < 12; i++)
		pay[i] = 0x02; /* 12 counts of 1 */
	n = make_blob(blob, sizeof blob, ck, 12, 0, 0, 1, 1000, one, pay, 12);
	expect_reject(blob, n, "payload runs past the 11 counts (count at byte 11)");
	n = make_blob(blob, sizeof blob, ck, 11, 0, 0, 1, 1000, one, pay, 11);
	assert_int_equal(hdr_decode(blob, n, &h, err, sizeof err), 0); /* exactly full */
	assert_int_equal(hdr_total(&h), 11);
	assert_int_equal(h.max_index, 10);
	hdr_release(&h);
	pay[0] = 0x02, pay[1] = 0x15; /* 1, then a run of 11 zeros */
	n = make_blob(blob, sizeof blob, ck, 2, 0, 0, 1, 1000, one, pay, 2);
	expect_reject(blob, n, "payload runs past the 11 counts (zero run at byte 1)");
	/* A run of 2^63 zeros (token INT64_MIN): 9 bytes of 0xff. */
	memset(pay, 0xff, 9);
	n = make_blob(blob, sizeof blob, ck, 9, 0, 0, 1, 1000, one, pay, 9);
	expect_reject(blob, n, "payload runs past the 11 counts (zero run at byte 0)");
	pay[0] = 0x80;
	n = make_blob(blob, sizeof blob, ck, 1, 0, 0, 1, 1000, one, pay, 1);
	expect_reject(blob, n, "payload ends inside a token at byte 0");
	/* Two counts of INT64_MAX overflow the total. */
	memset(pay, 0xff, 9), pay[0] = 0xfe; /* ZigZag(INT64_MAX) = 2^64 - 2, LSB group first */
	memcpy(pay + 9, pay, 9);
	n = make_blob(blob, sizeof blob, ck, 18, 0, 0, 1, 1000, one, pay, 18);
	expect_reject(blob, n, "total count overflows at byte 9");
}

static void base64_vectors(void **state)
{
	static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
	                              "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	static const struct {
		const char *in, *msg;
	} bad[] = {{"Zg=", "base64 length 3 is not a multiple of 4"},
	           {"Zm9*", "bad base64 character '*' at offset 3"},
	           {"Z===", "misplaced base64 padding at offset 1"},
	           {"Zg==Zm8=", "misplaced base64 padding at offset 2"},
	           {"Zm=v", "misplaced base64 padding at offset 3"},
	           {"Zh==", "bad base64 padding at offset 0"},
	           {"Zm9=", "bad base64 padding at offset 0"},
	           {"Zm9v\n", "base64 length 5 is not a multiple of 4"},
	           {"Zm 9", "bad base64 character '?' at offset 2"}};
	char out[64], err[128];
	uint8_t bin[64];
	size_t n;
	struct hdr h;
	(void)state;
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		assert_int_equal(hdr_base64_size(strlen(plain[i])), strlen(coded[i]) + 1);
		assert_int_equal(
		    hdr_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), out, sizeof out),
		    0);
		assert_string_equal(out, coded[i]);
		assert_int_equal(hdr_base64_decode(coded[i], strlen(coded[i]), bin, sizeof bin, &n,
		                                   err, sizeof err),
		                 0);
		assert_int_equal(n, strlen(plain[i]));
		assert_memory_equal(bin, plain[i], n);
	}
	assert_int_equal(hdr_base64_encode((const uint8_t *)"foo", 3, out, 4), -1);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		assert_int_equal(hdr_base64_decode(bad[i].in, strlen(bad[i].in), bin, sizeof bin,
		                                   &n, err, sizeof err),
		                 -1);
		assert_string_equal(err, bad[i].msg);
	}
	assert_int_equal(hdr_decode_base64("HISTF*AA", 8, &h, err, sizeof err), -1);
	assert_string_equal(err, "bad base64 character '*' at offset 5");
	assert_null(h.counts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(layout_facts),
	    cmocka_unit_test(init_errors),
	    cmocka_unit_test(equivalent_values),
	    cmocka_unit_test(record_and_reset),
	    cmocka_unit_test(percentile_examples),
	    cmocka_unit_test(percentiles_random),
	    cmocka_unit_test(merging),
	    cmocka_unit_test(first_interval_bytes),
	    cmocka_unit_test(encode_roundtrips),
	    cmocka_unit_test(hostile_inputs),
	    cmocka_unit_test(base64_vectors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
