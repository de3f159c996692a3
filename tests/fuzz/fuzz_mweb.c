/*
 * The options after /metrics' address and the password file they name, on arbitrary
 * bytes: the first line is the spec (ADDR:PORT,users=...,cert=...,key=...), the rest the
 * users file (read through a memfd, as the file users= names).  mweb_parse must accept or
 * refuse with a message, mweb_load read or refuse the file with FILE:LINE, and a loaded
 * file must never let a user in with an empty or wrong password.  Any crash, leak or abort
 * is a bug.
 */
// fuzz-sources: soak/run/metrics_web.c common/buf.c
// fuzz-libs: -lcrypt
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run/metrics_web.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mweb w;
	char spec[400], err[512];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : size;
	int fd;

	if (size > 16 << 10 || n >= sizeof spec - 64)
		return 0;
	fd = memfd_create("users", 0);
	if (fd < 0 || (nl && write(fd, nl + 1, size - n - 1) < 0))
		abort();
	/* The spec as given, with users= pointing at the memfd when it names no file. */
	memcpy(spec, data, n);
	spec[n] = '\0';
	if (!memchr(spec, '\0', n) && !strstr(spec, "users="))
		snprintf(spec + n, sizeof spec - n, ",users=/dev/fd/%d", fd);
	if (mweb_parse(spec, &w, err, sizeof err) == 0 && mweb_load(&w, err, sizeof err) == 0) {
		if (w.nusers > 0 && (mweb_check(&w, w.users[0].name, "") ||
		                     mweb_check(&w, w.users[0].name, NULL) ||
		                     mweb_check(&w, NULL, "x")))
			abort(); /* an empty, missing or user-less password let in */
	}
	mweb_release(&w);
	close(fd);
	return 0;
}
