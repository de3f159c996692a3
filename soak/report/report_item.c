/* report_item: what the report says about the runs, findings and validity items alike, as
 * one array of struct rpt_item (report_int.h) with one add and one free.  Calls nothing
 * else of report/, so that the judges that add items and the reader that frees them
 * depend on it and not on each other. */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

int rpt_item_add(struct rpt_item **v, int *n, int *cap, struct rpt_item *it, const char *text)
{
	size_t c = (size_t)*cap;

	if (it->run.oom || buf_grow(v, &c, (size_t)*n + 1, sizeof **v, 16) < 0) {
		buf_free(&it->run);
		return -1;
	}
	*cap = (int)c;
	(*v)[*n] = *it;
	it->run = (struct buf){0}; /* moved */
	(*v)[*n].text = NULL;
	(*n)++; /* counted before the copy of text: rpt_items_free frees its run list */
	return text && !((*v)[*n - 1].text = strdup(text)) ? -1 : 0;
}

void rpt_runs_add(struct buf *runs, const char *key)
{
	buf_printf(runs, "%s%s", runs->n ? "," : "", key);
}

const char *rpt_item_runs(const struct rpt_item *it)
{
	return it->run.p ? it->run.p : "";
}

void rpt_items_free(struct rpt_item *v, int n)
{
	for (int i = 0; v && i < n; i++) {
		free(v[i].text);
		buf_free(&v[i].run);
	}
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
