/*
 * The JMeter result reader on hostile bytes: CSV (header or default layouts, quotes, line
 * breaks inside fields) and XML (tags, entities, comments, CDATA, nesting).  Every sample it
 * returns is classified and read again after a rewind, which must give the same count; an
 * error must come with a line number inside the input.
 */
// fuzz-sources: soak/import/ireader.c soak/import/jtl.c common/buf.c
// fuzz-pkgs: zlib
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/jtl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SAMPLES 20000 /* bounds the work per input */

/* Reads every sample; returns how many, or -1 after an error (checked here). */
static long read_all(struct jtl_reader *j, long lines)
{
	struct jtl_sample s;
	char err[512];
	long n = 0, line = 0;
	int rc;

	while (n < MAX_SAMPLES && (rc = jtl_next(j, &s, err, sizeof err, &line)) == 1) {
		int answered;
		enum err_class c;
		if (s.line < 1 || s.line > lines || s.ts < 0 || s.elapsed < 0)
			abort();
		if (!s.success) {
			c = jtl_classify(&s, &answered);
			if ((unsigned)c >= ERR_NCLASS)
				abort();
		}
		n++;
	}
	if (n < MAX_SAMPLES && rc < 0) {
		if (!err[0] || line < 0 || line > lines + 1)
			abort();
		return -1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ireader r;
	struct jtl_reader *j = NULL;
	char err[512];
	long line, lines = 1, first, again;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (ird_open_mem(&r, (const char *)data, size, 4096, err, sizeof err) < 0)
		return 0;
	if (jtl_open(&j, &r, err, sizeof err, &line) == 0) {
		first = read_all(j, lines);
		if (jtl_rewind(j, err, sizeof err) == 0) {
			again = read_all(j, lines);
			if (again != first)
				abort();
		}
		jtl_free(j);
	} else if (!err[0]) {
		abort();
	}
	ird_close(&r);
	return 0;
}
