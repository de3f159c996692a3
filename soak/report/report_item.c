/* report_item: what the report says about the runs, findings and validity items alike, as
 * one array of struct rpt_item (report_int.h) with one add and one free.  Calls nothing
 * else of report/, so that the judges that add items and the reader that frees them
 * depend on it and not on each other. */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

int rpt_item_add(struct rpt_item **v, int *n, int *cap, const struct rpt_item *it, const char *text)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 16;
		struct rpt_item *p = realloc(*v, (size_t)nc * sizeof *p);
		if (!p)
			return -1;
		*v = p;
		*cap = nc;
	}
	(*v)[*n] = *it;
	if (!((*v)[*n].text = strdup(text)))
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
