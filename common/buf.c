/* buf: a growing string and a growing array (see buf.h).
 * Each grows by doubling; a failed allocation sets buf.oom and keeps what was there, so a
 * cut string is never used as if whole (buf_done returns NULL). */
#include "buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int buf_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	if (c > SIZE_MAX / size)
		return -1;
	/* arrp points at a T *; copied through memcpy, not cast to void **. */
	memcpy(&p, arrp, sizeof p);
	p = realloc(p, c * size);
	if (!p)
		return -1;
	memcpy(arrp, &p, sizeof p);
	*cap = c;
	return 0;
}

void buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (buf_grow(&b->p, &b->cap, b->n + n + 1, 1, 256) < 0) {
		b->oom = 1;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int k;

	va_copy(again, ap);
	k = vsnprintf(NULL, 0, fmt, ap);
	if (k < 0 || b->oom) {
		va_end(again);
		return;
	}
	/* Room for the text and its NUL, then the text printed in place. */
	if (buf_grow(&b->p, &b->cap, b->n + (size_t)k + 1, 1, 256) < 0) {
		b->oom = 1;
		va_end(again);
		return;
	}
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, again);
	va_end(again);
	b->n += (size_t)k;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *buf_done(struct buf *b)
{
	char *p;

	buf_put(b, "", 0);
	if (b->oom) {
		buf_free(b);
		return NULL;
	}
	p = b->p;
	*b = (struct buf){0};
	return p;
}

void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){0};
}
