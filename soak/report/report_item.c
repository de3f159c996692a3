/* report_item: what the report says about the runs, findings and validity items alike, as
 * one array of struct rpt_item (report_int.h) with one add and one free.  Calls nothing
 * else of report/, so that the judges that add items and the reader that frees them
 * depend on it and not on each other. */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

int rpt_item_add(struct rpt_item **v, int *n, int *cap, const struct rpt_item *it, const char *text)
{
	size_t c = (size_t)*cap;

	if (buf_grow(v, &c, (size_t)*n + 1, sizeof **v, 16) < 0)
		return -1;
	*cap = (int)c;
	(*v)[*n] = *it;
	(*v)[*n].text = NULL;
	if (text && !((*v)[*n].text = strdup(text)))
		return -1;
	(*n)++;
	return 0;
}

void rpt_items_free(struct rpt_item *v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
}

void rpt_items_sort(struct rpt_item *v, int n,
                    int (*cmp)(const struct rpt_item *, const struct rpt_item *))
{
	for (int i = 1; i < n; i++) {
		struct rpt_item x = v[i];
		int j = i;
		for (; j > 0 && cmp(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}
