/*
 * vuheap — a driver's queue of scheduled virtual users: a binary min-heap of (due time,
 * VU index), so the VU due first is at the top.  Sized once for a worker's VUs (a VU is
 * in it at most once), so pushing never allocates.  One thread.
 */
#ifndef SOAK_VUHEAP_H
#define SOAK_VUHEAP_H

#include <stdint.h>

struct vuheap_ent {
	int64_t due; /* when the VU should start (monotonic ms) */
	int j;       /* the VU's local index */
};

struct vuheap {
	struct vuheap_ent *e; /* cap entries */
	int n;                /* entries in use */
	int cap;
};

/* 0, or -1 when out of memory. */
int vuheap_init(struct vuheap *h, int cap);
void vuheap_release(struct vuheap *h);
/* Adds VU j due at `due`; the caller guarantees n < cap. */
void vuheap_push(struct vuheap *h, int j, int64_t due);
/* Removes and returns the VU due first; n must be > 0. */
int vuheap_pop(struct vuheap *h);
/* The earliest due time; n must be > 0. */
static inline int64_t vuheap_top(const struct vuheap *h)
{
	return h->e[0].due;
}

#endif
