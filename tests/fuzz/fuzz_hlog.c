/*
 * The .hlog reader on hostile text: every interval it returns is merged and queried (as
 * `soak hlog` does) and written back with the writer, and the re-read copy must match;
 * every error must read `fuzz.hlog:LINE: ...`.
 */
// fuzz-sources: common/hdr.c common/hlog.c common/clock.c common/buf.c
// fuzz-pkgs: zlib
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hdr.h"
#include "hlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INTERVALS 200 /* bounds the work per input */
#define MAX_ROUNDTRIPS 4  /* intervals written back and re-read per input */

/* Writes iv with the writer and reads it back; the copy must be identical. */
static void roundtrip(const struct hlog_interval *iv)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *w = open_memstream(&text, &len), *r;
	struct hlog_writer hw;
	struct hlog_reader hr;
	struct hlog_interval back = HLOG_INTERVAL_INIT;

	if (!w)
		return;
	if (hlog_writer_init(&hw, w, 0, 1e6, "fuzz", err, sizeof err) < 0 ||
	    hlog_write(&hw, iv->tag, iv->start_ms, iv->length_ms, &iv->hist, err, sizeof err) < 0)
		abort();
	fclose(w);
	r = fmemopen(text, len, "r");
	if (!r)
		abort();
	if (hlog_open_stream(&hr, r, "back.hlog", err, sizeof err) < 0 ||
	    hlog_next(&hr, &back, err, sizeof err) != 1)
		abort();
	if (strcmp(back.tag, iv->tag) != 0 || back.start_ms != iv->start_ms ||
	    back.length_ms != iv->length_ms || back.hist.counts_len != iv->hist.counts_len ||
	    back.hist.total != iv->hist.total ||
	    memcmp(back.hist.counts, iv->hist.counts,
		   (size_t)iv->hist.counts_len * sizeof *iv->hist.counts) != 0)
		abort();
	if (hlog_next(&hr, &back, err, sizeof err) != 0)
		abort();
	hlog_interval_release(&back);
	hlog_close(&hr);
	fclose(r);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	struct hdr acc;
	char err[512] = "";
	FILE *f;
	int rc = 0, n = 0;

	if (size == 0 || size > 4 << 20)
		return 0;
	f = fmemopen((void *)(uintptr_t)data, size, "r");
	if (!f)
		return 0;
	if (hdr_init(&acc, 1, 3600000000000LL, 3, err, sizeof err) < 0 ||
	    hlog_open_stream(&r, f, "fuzz.hlog", err, sizeof err) < 0)
		abort();
	while (n < MAX_INTERVALS && (rc = hlog_next(&r, &iv, err, sizeof err)) > 0) {
		(void)hdr_add(&acc, &iv.hist);
		if (n < MAX_ROUNDTRIPS)
			roundtrip(&iv);
		n++;
	}
	if (n < MAX_INTERVALS && rc < 0 && strncmp(err, "fuzz.hlog:", 10) != 0)
		abort();
	/* What `soak hlog` prints, once per input (each walks the accumulator). */
	(void)hdr_value_at_percentile(&acc, 99.9);
	(void)hdr_mean(&acc);
	(void)hdr_min(&acc);
	(void)hdr_max(&acc);
	hlog_interval_release(&iv);
	hlog_close(&r);
	hdr_release(&acc);
	fclose(f);
	return 0;
}
