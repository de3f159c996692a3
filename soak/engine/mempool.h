/*
 * mempool — a worker's own allocator for a library that allocates per request (nghttp2
 * allocates a stream, its header block and its frames for each request): blocks of a few
 * size classes go on free lists when freed and are handed out again, so that once a
 * worker is warm its requests reach malloc no more, and its memory stays at what its
 * busiest moment needed.
 *
 * Blocks of up to MEMPOOL_MAX bytes come from their class (the next power of two from 16);
 * larger ones go to malloc and back to free at once.  Every block carries a 16-byte header
 * with its class, so free and realloc need no size; blocks are 16-byte aligned.
 *
 * Threads: a pool belongs to one thread.  mempool_release frees the free lists: every
 * block must have been freed first (the library's objects deleted).
 */
#ifndef SOAK_MEMPOOL_H
#define SOAK_MEMPOOL_H

#include <stddef.h>
#include <stdint.h>

#define MEMPOOL_CLASSES 11                                    /* 16 B .. 16 KB */
#define MEMPOOL_MAX     ((size_t)16 << (MEMPOOL_CLASSES - 1)) /* the largest pooled block */

struct mempool {
	void *free[MEMPOOL_CLASSES]; /* freed blocks of each class, linked through their data */
	int64_t held;                /* bytes of pooled blocks, in use or free */
};

/* NULL when out of memory (n == 0 gives a block of the smallest class). */
void *mempool_alloc(struct mempool *m, size_t n);
void *mempool_calloc(struct mempool *m, size_t nmemb, size_t size);
/* p NULL: mempool_alloc; the block grows or moves as realloc would. */
void *mempool_realloc(struct mempool *m, void *p, size_t n);
/* p NULL: no-op. */
void mempool_free(struct mempool *m, void *p);
void mempool_release(struct mempool *m);

#endif
