/*
 * A worker's own allocator (mempool.h).
 */
#include "mempool.h"

#include <stdlib.h>
#include <string.h>

#define HEADER 16   /* before each block: its class (keeps the data 16-byte aligned) */
#define BIG    0xff /* the class mark of a block malloc'd on its own */

/* The class of n bytes, or BIG. */
static int class_of(size_t n)
{
	int c = 0;
	size_t size = 16;

	if (n > MEMPOOL_MAX)
		return BIG;
	while (size < n) {
		size <<= 1;
		c++;
	}
	return c;
}

static size_t class_size(int c)
{
	return (size_t)16 << c;
}

static uint8_t *header(void *p)
{
	return (uint8_t *)p - HEADER;
}

void *mempool_alloc(struct mempool *m, size_t n)
{
	int c = class_of(n);
	uint8_t *b;

	if (c != BIG && m->free[c]) {
		void *p = m->free[c];
		memcpy(&m->free[c], p, sizeof(void *)); /* the next free block */
		return p;
	}
	b = malloc(HEADER + (c == BIG ? n : class_size(c)));
	if (!b)
		return NULL;
	b[0] = (uint8_t)c;
	if (c != BIG)
		m->held += (int64_t)class_size(c);
	return b + HEADER;
}

void *mempool_calloc(struct mempool *m, size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > (size_t)-1 / size)
		return NULL;
	if ((p = mempool_alloc(m, nmemb * size)))
		memset(p, 0, nmemb * size);
	return p;
}

void mempool_free(struct mempool *m, void *p)
{
	int c;

	if (!p)
		return;
	c = header(p)[0];
	if (c == BIG) {
		free(header(p));
		return;
	}
	memcpy(p, &m->free[c], sizeof(void *));
	m->free[c] = p;
}

void *mempool_realloc(struct mempool *m, void *p, size_t n)
{
	int c;
	size_t had;
	void *q;

	if (!p)
		return mempool_alloc(m, n);
	c = header(p)[0];
	if (c != BIG && n <= class_size(c))
		return p;
	if (c == BIG) {
		uint8_t *b = realloc(header(p), HEADER + n);
		return b ? b + HEADER : NULL;
	}
	had = class_size(c);
	if (!(q = mempool_alloc(m, n)))
		return NULL;
	memcpy(q, p, had < n ? had : n);
	mempool_free(m, p);
	return q;
}

void mempool_release(struct mempool *m)
{
	for (int c = 0; c < MEMPOOL_CLASSES; c++)
		while (m->free[c]) {
			void *p = m->free[c];
			memcpy(&m->free[c], p, sizeof(void *));
			free(header(p));
		}
	m->held = 0;
}
