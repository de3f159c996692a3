#!/usr/bin/env bash
# Cost of the histogram on the engine's hot path and per interval: ns per hdr_record (values
# shaped like latencies in µs), per hdr_reset of a one-interval histogram, and per
# encode/decode of it.  Prints figures; never fails on them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
mkdir -p "$out"
cat >"$out/hdr_bench.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hdr.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(void)
{
	enum { NV = 1 << 16, ROUNDS = 1000 };
	static int64_t vals[NV];
	uint64_t s = 88172645463325252ULL;
	struct hdr h, d;
	char err[128];
	uint8_t *enc;
	size_t len;
	double t;
	int n;

	for (int i = 0; i < NV; i++) { /* ~5 ms with a 1 % tail up to 2 s, in µs */
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		vals[i] = s % 100 ? 4000 + (int64_t)(s >> 20) % 2000 : (int64_t)(s >> 20) % 2000000;
	}
	if (hdr_init_latency(&h, err, sizeof err) < 0)
		return 1;
	t = now_ns();
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NV; i++)
			hdr_record(&h, vals[i]);
	t = now_ns() - t;
	printf("hdr_record          %6.2f ns/value  (%lld values)\n", t / ((double)NV * ROUNDS),
	       (long long)hdr_total(&h));

	/* One interval: 10 s at ~2,000 requests/s. */
	n = 20000;
	t = now_ns();
	for (int r = 0; r < 2000; r++) {
		hdr_reset(&h);
		for (int i = 0; i < 16; i++)
			hdr_record(&h, vals[i]);
	}
	t = now_ns() - t;
	printf("hdr_reset+16 values %6.0f ns\n", t / 2000);
	hdr_reset(&h);
	for (int i = 0; i < n; i++)
		hdr_record(&h, vals[i]);
	t = now_ns();
	for (int r = 0; r < 200; r++) {
		if (hdr_encode(&h, &enc, &len, err, sizeof err) < 0)
			return 1;
		free(enc);
	}
	t = now_ns() - t;
	hdr_encode(&h, &enc, &len, err, sizeof err);
	printf("hdr_encode          %6.1f us/interval (%d values, %zu bytes)\n", t / 200 / 1e3, n,
	       len);
	t = now_ns();
	for (int r = 0; r < 200; r++) {
		if (hdr_decode(enc, len, &d, err, sizeof err) < 0)
			return 1;
		hdr_release(&d);
	}
	t = now_ns() - t;
	printf("hdr_decode          %6.1f us/interval\n", t / 200 / 1e3);
	free(enc);
	hdr_release(&h);
	return 0;
}
C
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$top/common" -o "$out/hdr_bench" "$out/hdr_bench.c" \
  "$top/common/hdr.c" -lz
"$out/hdr_bench"
