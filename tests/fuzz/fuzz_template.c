/*
 * Request templates on hostile text: tpl_compile() on arbitrary text (with a CSV data set
 * of cells of different lengths, some empty), then tpl_expand() into a buffer of exactly
 * tpl_max_len() bytes, as the HTTP driver sizes them once per run: the expansion must
 * fit, be NUL-terminated at the length returned and never be shorter than the template's
 * literal text.  A buffer one byte too small must be refused without a write past it.
 * The context (seq, vu, iter, run id, nonce, CSV or none) comes from the input too,
 * extremes included.  A failed compile must say why.  Any crash, leak or abort is a bug.
 */
// fuzz-sources: soak/engine/template.c common/clock.c common/buf.c
// fuzz-pkgs: zlib
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *cols[] = {(char *)"user", (char *)"password", (char *)"empty"};
static char *cells[] = {
	(char *)"alice", (char *)"x", (char *)"",
	(char *)"bob-with-a-much-longer-name@example.test", (char *)"", (char *)"",
	(char *)"", (char *)"s3cr3t-passw0rd-of-some-length", (char *)"",
};
static const struct tpl_csv csv = {.cols = cols, .ncols = 3, .cells = cells, .nrows = 3};

static uint64_t take_u64(const uint8_t **p, size_t *left)
{
	uint64_t v = 0;
	size_t n = *left < 8 ? *left : 8;
	memcpy(&v, *p, n);
	*p += n;
	*left -= n;
	return v;
}

/* Expands into exactly `cap` bytes of heap, so ASan sees any write past the end. */
static long expand_into(const struct tpl *t, struct tpl_ctx *ctx, size_t cap, char **out)
{
	*out = malloc(cap ? cap : 1);
	if (!*out)
		abort();
	return tpl_expand(t, ctx, *out, cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t left = size, cap, nonce_len;
	struct tpl t;
	struct tpl_ctx ctx = {0};
	char err[512] = "", nonce[65], *text, *buf;
	long n;

	if (size < 2 || size > 64 << 10)
		return 0;
	/* Header: flags, nonce length, then (flag-selected) numbers; the rest is the text. */
	uint8_t flags = *p++;
	left--;
	nonce_len = *p++ % sizeof nonce;
	left--;
	if (flags & 1) {
		ctx.seq = take_u64(&p, &left);
		ctx.vu = take_u64(&p, &left);
		ctx.iter = take_u64(&p, &left);
		ctx.run_id = (int64_t)take_u64(&p, &left);
	} else {
		ctx.seq = flags & 2 ? UINT64_MAX : 1;
		ctx.vu = ctx.iter = UINT64_MAX;
		ctx.run_id = flags & 4 ? INT64_MIN : INT64_MAX;
	}
	memset(nonce, 'n', nonce_len);
	nonce[nonce_len] = '\0';
	ctx.nonce = flags & 8 ? NULL : nonce;
	ctx.rng = 0x9E3779B97F4A7C15ULL;
	ctx.csv = flags & 16 ? NULL : &csv;

	text = malloc(left + 1);
	if (!text)
		return 0;
	memcpy(text, p, left);
	text[left] = '\0';
	if (tpl_compile(&t, text, flags & 32 ? NULL : &csv, err, sizeof err) < 0) {
		if (!err[0])
			abort();
		free(text);
		return 0;
	}
	if (t.nparts < 0 || t.nparts > TPL_MAX_PARTS || t.min_len > strlen(text))
		abort();
	cap = tpl_max_len(&t, &ctx);
	for (int round = 0; round < 2; round++) {
		n = expand_into(&t, &ctx, cap, &buf);
		if (n < 0 || (size_t)n >= cap || strlen(buf) != (size_t)n || (size_t)n < t.min_len)
			abort();
		/* A static template expands to its text with "$$" read as "$". */
		if (!t.dynamic && (size_t)n > strlen(text))
			abort();
		free(buf);
		ctx.seq++;
	}
	/* Too small by one byte (of the expansion's own length): refused, nothing written
	 * past the buffer. */
	n = expand_into(&t, &ctx, cap, &buf);
	free(buf);
	if (n > 0) {
		long m = expand_into(&t, &ctx, (size_t)n, &buf);
		free(buf);
		if (m >= 0)
			abort();
	}
	(void)expand_into(&t, &ctx, 0, &buf);
	free(buf);
	tpl_release(&t);
	free(text);
	return 0;
}
