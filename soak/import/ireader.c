/* ireader: an input file (plain or gzip) or a buffer read a line or a byte at a time
 * with its line number (ireader.h), in bounded memory: a line past the cap is an error. */
#include "ireader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

static int init(struct ireader *r, size_t max_line, char *err, size_t errlen)
{
	r->max_line = max_line;
	r->cap = max_line + IRD_CHUNK + 1;
	r->buf = malloc(r->cap);
	r->line = 1;
	if (!r->buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int ird_open(struct ireader *r, const char *path, size_t max_line, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->gz = gzopen(path, "rb");
	if (!r->gz) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
		         errno ? strerror(errno) : "out of memory");
		return -1;
	}
	gzbuffer(r->gz, IRD_CHUNK);
	if (init(r, max_line, err, errlen) < 0) {
		ird_close(r);
		return -1;
	}
	return 0;
}

int ird_open_mem(struct ireader *r, const char *buf, size_t len, size_t max_line, char *err,
                 size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->mem = buf;
	r->memlen = len;
	return init(r, max_line, err, errlen);
}

int ird_rewind(struct ireader *r, char *err, size_t errlen)
{
	if (r->gz && gzrewind(r->gz) < 0) {
		snprintf(err, errlen, "cannot rewind: %s", gzerror(r->gz, NULL));
		return -1;
	}
	r->mempos = 0;
	r->len = r->pos = 0;
	r->line = 1;
	r->eof = 0;
	r->last_nl = 0;
	return 0;
}

void ird_close(struct ireader *r)
{
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	memset(r, 0, sizeof *r);
}

/* Moves the unconsumed bytes to the front and reads more after them.  Returns the number
 * of bytes added (0 at the end of input) or -1. */
static long fill(struct ireader *r, char *err, size_t errlen)
{
	size_t room, got = 0;

	if (r->eof)
		return 0;
	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	room = r->cap - 1 - r->len;
	if (room > IRD_CHUNK)
		room = IRD_CHUNK;
	if (room == 0)
		return 0;
	if (r->gz) {
		int n = gzread(r->gz, r->buf + r->len, (unsigned)room);
		if (n < 0) {
			int zerr;
			const char *m = gzerror(r->gz, &zerr);
			snprintf(err, errlen, "read error: %s",
			         zerr == Z_ERRNO ? strerror(errno) : m);
			return -1;
		}
		got = (size_t)n;
	} else {
		got = r->memlen - r->mempos < room ? r->memlen - r->mempos : room;
		memcpy(r->buf + r->len, r->mem + r->mempos, got);
		r->mempos += got;
	}
	if (got == 0)
		r->eof = 1;
	r->len += got;
	return (long)got;
}

int ird_next_line(struct ireader *r, char **line, size_t *len, long *no, char *err, size_t errlen)
{
	size_t scanned = 0;

	for (;;) {
		char *start = r->buf + r->pos;
		char *nl = memchr(start + scanned, '\n', r->len - r->pos - scanned);
		if (nl || (r->eof && r->len > r->pos)) {
			size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
			if (n > r->max_line)
				break;
			*no = r->line;
			r->pos += n + (nl ? 1 : 0);
			r->last_nl = nl != NULL;
			if (nl)
				r->line++;
			if (n > 0 && start[n - 1] == '\r')
				n--;
			start[n] = '\0';
			*line = start;
			*len = n;
			return 1;
		}
		if (r->eof)
			return 0;
		scanned = r->len - r->pos;
		if (scanned > r->max_line)
			break;
		if (fill(r, err, errlen) < 0)
			return -1;
	}
	*no = r->line;
	snprintf(err, errlen, "line longer than %zu bytes", r->max_line);
	return -1;
}

int ird_getc(struct ireader *r, char *err, size_t errlen)
{
	unsigned char c;

	if (r->pos >= r->len) {
		long n = fill(r, err, errlen);
		if (n < 0)
			return -2;
		if (n == 0)
			return -1;
	}
	c = (unsigned char)r->buf[r->pos++];
	if (c == '\n')
		r->line++;
	return c;
}
