/* vuheap: a driver's min-heap of scheduled virtual users by due time (vuheap.h), sized
 * once for the worker's VUs, so pushing never allocates.  One thread. */
#include "vuheap.h"

#include <stdlib.h>

int vuheap_init(struct vuheap *h, int cap)
{
	h->n = 0;
	h->cap = cap > 0 ? cap : 1;
	h->e = calloc((size_t)h->cap, sizeof *h->e);
	return h->e ? 0 : -1;
}

void vuheap_release(struct vuheap *h)
{
	free(h->e);
	h->e = NULL;
	h->n = h->cap = 0;
}

void vuheap_push(struct vuheap *h, int j, int64_t due)
{
	int i = h->n++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (h->e[p].due <= due)
			break;
		h->e[i] = h->e[p];
		i = p;
	}
	h->e[i] = (struct vuheap_ent){.due = due, .j = j};
}

int vuheap_pop(struct vuheap *h)
{
	int top = h->e[0].j, i = 0;
	struct vuheap_ent last = h->e[--h->n];
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->e[c + 1].due < h->e[c].due)
			c++;
		if (last.due <= h->e[c].due)
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	if (h->n > 0)
		h->e[i] = last;
	return top;
}
