/*
 * Deadline lists of a driver's slots (dlist.h).
 */
#include "dlist.h"

#include <stdlib.h>

int dlist_init(struct dlist *d, int n)
{
	d->n = n > 0 ? n : 1;
	d->links = malloc((size_t)d->n * sizeof *d->links);
	if (!d->links)
		return -1;
	for (int j = 0; j < d->n; j++)
		d->links[j] = (struct dlink){.prev = -1, .next = -1, .list = -1};
	for (int i = 0; i < DLIST_MAX; i++)
		d->head[i] = d->tail[i] = -1;
	return 0;
}

void dlist_release(struct dlist *d)
{
	free(d->links);
	d->links = NULL;
}

void dlist_remove(struct dlist *d, int j)
{
	struct dlink *l = &d->links[j];
	if (l->list < 0)
		return;
	if (l->prev >= 0)
		d->links[l->prev].next = l->next;
	else
		d->head[l->list] = l->next;
	if (l->next >= 0)
		d->links[l->next].prev = l->prev;
	else
		d->tail[l->list] = l->prev;
	l->prev = l->next = -1;
	l->list = -1;
}

void dlist_arm(struct dlist *d, int j, int list, int64_t due)
{
	struct dlink *l = &d->links[j];
	int after;

	dlist_remove(d, j);
	/* Same timeout, so normally the latest deadline: after the tail. */
	after = d->tail[list];
	while (after >= 0 && d->links[after].due > due)
		after = d->links[after].prev;
	l->due = due;
	l->list = (int8_t)list;
	l->prev = after;
	l->next = after >= 0 ? d->links[after].next : d->head[list];
	if (after >= 0)
		d->links[after].next = j;
	else
		d->head[list] = j;
	if (l->next >= 0)
		d->links[l->next].prev = j;
	else
		d->tail[list] = j;
}

int dlist_first(const struct dlist *d)
{
	int best = -1;
	for (int i = 0; i < DLIST_MAX; i++) {
		int h = d->head[i];
		if (h >= 0 && (best < 0 || d->links[h].due < d->links[best].due))
			best = h;
	}
	return best;
}
