/*
 * ireader — reads an input file a line or a byte at a time, with the line number of where
 * it is, in bounded memory: the importers' common input.  A file may be plain or gzip
 * (zlib reads both), so archived `results.jtl.gz` and `host.nmon.gz` import as they are;
 * a memory buffer reads the same way (tests, fuzzing).  Lines end at '\n' (a '\r' before
 * it is dropped) or at the end of the input; a line longer than the reader's cap is an
 * error, never a silent truncation.
 *
 * One reader belongs to one caller at a time.  ird_close() releases everything; closing a
 * zeroed reader is a no-op.  Errors fill err (lower-case, no file name: the caller adds
 * FILE:LINE from ird_line_no()).
 */
#ifndef SOAK_IREADER_H
#define SOAK_IREADER_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define IRD_CHUNK (64 * 1024)

struct ireader {
	gzFile gz;       /* the file, or NULL when reading memory */
	const char *mem; /* the memory input (not owned), or NULL */
	size_t memlen;   /* its length */
	size_t mempos;   /* how much of it has been moved into buf */
	char *buf;       /* bytes read and not yet consumed: buf[pos..len) */
	size_t cap;      /* size of buf: the longest line plus a chunk */
	size_t len, pos;
	size_t max_line; /* longest line accepted, bytes */
	long line;       /* 1-based number of the line the next byte belongs to */
	int eof;         /* the source has no more bytes (buf may still hold some) */
	int last_nl;     /* the last line returned ended with '\n' (not at end of input) */
};

/* Opens a file (plain or gzip); max_line caps a line's length. */
int ird_open(struct ireader *r, const char *path, size_t max_line, char *err, size_t errlen);
/* Reads from buf[0..len) (not copied: it must outlive the reader). */
int ird_open_mem(struct ireader *r, const char *buf, size_t len, size_t max_line, char *err,
                 size_t errlen);
/* Starts again at the first byte, line 1. */
int ird_rewind(struct ireader *r, char *err, size_t errlen);
void ird_close(struct ireader *r);

/* The next line into *line (NUL-terminated, without its end of line; valid until the next
 * call) and its length.  Returns 1, 0 at the end of input, -1 on a read error or a line
 * over the cap.  *no gets the line's number. */
int ird_next_line(struct ireader *r, char **line, size_t *len, long *no, char *err, size_t errlen);

/* Byte access for tokenizers: the next byte (0..255), or -1 at the end of input, -2 on a
 * read error (err filled).  Counts lines as it passes '\n'. */
int ird_getc(struct ireader *r, char *err, size_t errlen);
/* The number of the line the next byte is on. */
static inline long ird_line_no(const struct ireader *r)
{
	return r->line;
}

#endif
