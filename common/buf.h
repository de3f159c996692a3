/*
 * buf — the one growing byte string and the one way an array grows.
 *
 * A struct buf starts zeroed ({0}) and grows by doubling from 256 bytes; its text is
 * NUL-terminated once anything was put.  An allocation that fails sets oom and keeps
 * nothing more, so a writer appends without checking each call and looks once at the end
 * (buf_done).  buf_grow gives any array room for one more element the same way.
 * Not thread-safe per buffer; no global state.
 */
#ifndef SOAK_BUF_H
#define SOAK_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *p;    /* the text so far, NUL-terminated when p != NULL; owned */
	size_t n;   /* its length */
	size_t cap; /* bytes allocated */
	int oom;    /* an allocation failed: nothing more is kept */
};

/* Appends s[0..n). */
void buf_put(struct buf *b, const char *s, size_t n);
/* Appends a string. */
void buf_puts(struct buf *b, const char *s);
/* Appends printf output. */
__attribute__((format(printf, 2, 3))) void buf_printf(struct buf *b, const char *fmt, ...);
/* The same with a va_list. */
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* The finished string, the caller's to free (an empty one when nothing was put), or NULL
 * when an allocation failed (the buffer is freed then). */
char *buf_done(struct buf *b);
/* Frees the text and zeroes the buffer; a zeroed buffer is a no-op. */
void buf_free(struct buf *b);

/* Room for `need` elements of `size` bytes in the array *arrp (a pointer to the array
 * pointer) of *cap elements: the capacity doubles, from `first`, until it holds need.
 * Returns 0, or -1 out of memory (*arrp and *cap unchanged). */
int buf_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first);

#endif
