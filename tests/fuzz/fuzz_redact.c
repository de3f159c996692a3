/*
 * Redaction on hostile text: redact_text(), redact_ini() and redact_argv() on arbitrary
 * bytes, each with a known secret planted after the input (a line `password=SECRET`, or
 * the arguments `--db-password SECRET`).  Whatever came before, the planted secret must
 * not come out (a construct the input opens — a quote, a header, a URL — must not carry it
 * through), the output must be a string no longer than the redactions can make it, and
 * the names a `redact` key adds must not break that.  Any crash, leak or abort is a bug.
 */
// fuzz-sources: common/redact.c common/buf.c
// fuzz-pkgs: zlib
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SECRET "ZQ9SECRETZQ9"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct redact r;
	char err[200], *in, *out = NULL;
	size_t n, len = 0;

	if (size < 1 || size > 64 << 10)
		return 0;
	uint8_t mode = data[0] % 3, names = data[0] & 0x80;
	data++;
	size--;
	redact_init(&r);
	if (names)
		redact_add(&r, "x-tenant, sid", err, sizeof err);
	/* The input as text (NULs ended it where a C string ends), then the planted secret. */
	in = malloc(size + 64);
	if (!in)
		abort();
	memcpy(in, data, size);
	in[size] = '\0';
	if (mode == 2) { /* arguments: the input's NULs separate them */
		n = size;
		memcpy(in + n, "\0--db-password\0" SECRET, sizeof "\0--db-password\0" SECRET);
		n += sizeof "\0--db-password\0" SECRET - 1;
		out = redact_argv(names ? &r : NULL, in, n);
	} else {
		n = strlen(in);
		strcpy(in + n, "\npassword=" SECRET "\n");
		n = strlen(in);
		out = mode == 0 ? redact_text(names ? &r : NULL, in)
		                : redact_ini(names ? &r : NULL, in);
	}
	if (!out)
		abort();
	len = strlen(out);
	/* Each redaction puts 10 bytes where at least one was: ten times, at the most. */
	if (len > 10 * n + 10)
		abort();
	if (!memmem(data, size, SECRET, sizeof SECRET - 1) && strstr(out, SECRET))
		abort();
	free(out);
	free(in);
	return 0;
}
