/*
 * dlist — the deadlines of a driver's slots when every deadline is "now + a fixed
 * timeout": arming appends at the tail of that timeout's list, so each list stays sorted
 * and its head is its earliest deadline — O(1) per request where a heap is O(log n).  A
 * driver whose requests have several timeouts (one per HTTP request kind) keeps one list
 * per timeout in the same dlist (DLIST_MAX of them); the earliest deadline is the least of
 * the heads.  Arming with an earlier deadline than the tail's still keeps the list sorted
 * (it walks back from the tail), only slower.
 *
 * The links live in an array of one entry per slot, owned by the dlist.  A slot is on at
 * most one list.  Units are the caller's (ms or µs), the same for every call.  One thread.
 */
#ifndef SOAK_DLIST_H
#define SOAK_DLIST_H

#include <stdint.h>

#define DLIST_MAX 16 /* lists in one dlist (PLAN_MAX_REQUESTS timeouts at most) */

/* One slot's place. */
struct dlink {
	int prev, next; /* neighbours on its list, -1 = none */
	int64_t due;    /* its deadline */
	int8_t list;    /* the list it is on, -1 = none */
};

struct dlist {
	struct dlink *links; /* one per slot (owned) */
	int n;               /* slots */
	int head[DLIST_MAX]; /* earliest of each list, -1 when empty */
	int tail[DLIST_MAX]; /* latest of each list */
};

/* Sets up n slots, none on a list; 0, or -1 out of memory. */
int dlist_init(struct dlist *d, int n);
void dlist_release(struct dlist *d);
/* Puts slot j on list `list` with deadline `due` (off any list it was on first). */
void dlist_arm(struct dlist *d, int j, int list, int64_t due);
/* Takes slot j off its list (no-op when it is on none). */
void dlist_remove(struct dlist *d, int j);
/* The slot with the earliest deadline of all lists, or -1 when every list is empty. */
int dlist_first(const struct dlist *d);

static inline int64_t dlist_due(const struct dlist *d, int j)
{
	return d->links[j].due;
}

static inline int dlist_armed(const struct dlist *d, int j)
{
	return d->links[j].list >= 0;
}

#endif
