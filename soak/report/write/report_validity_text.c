/* report_validity_text: the sentences of the validity items judge/ returned as data (a
 * kind and what it found), worded when the files are written, as the findings are. */
#include "report_validity_text.h"
#include "report/report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"

#define COLD_MAX 1400 /* bytes of one cold-start sentence */

/* cold_start: "Run 5 (tomcat9), the first after its target started, served ...". */
static void cold_words(const struct report *r, const struct rpt_cold *f, struct sbuf *b)
{
	const struct rpt_run *run = &r->runs[f->run];
	const struct rpt_cell *cell = &r->cells[f->cell];
	char d[32], lv[48];

	rpt_sb_printf(b, "Run %s (%s), the first after its target started, ", run->key,
	              r->labels[run->label].name);
	if (f->out[0])
		rpt_sb_printf(b, "served %.1f %% %s requests per second", fabs(f->rel[0]),
		              f->rel[0] < 0 ? "fewer" : "more");
	if (f->out[0] && f->out[1])
		rpt_sb_printf(b, " and ");
	if (f->out[1])
		rpt_sb_printf(b, "answered %.1f %% %s on average", fabs(f->rel[1]),
		              f->rel[1] > 0 ? "slower" : "faster");
	rpt_sb_printf(b, " than the label's %d other compared run%s at %s (%s", f->others,
	              f->others == 1 ? "" : "s",
	              rpt_level_text(cell->concurrency, cell->rate, lv, sizeof lv),
	              dur_format(cell->planned_ms, d, sizeof d));
	rpt_sb_printf(b, "; 95 %% prediction interval +-%.1f %%",
	              f->out[0] ? f->half[0] : f->half[1]);
	rpt_sb_printf(b, "). %s",
	              run->warmup ? "It was a warm-up run and is not compared."
	                          : "It is compared: a warm-up run (warmup_runs = 1) would "
	                            "leave it out.");
}

int rpt_validity_words(struct report *r)
{
	for (int i = 0; i < r->nvalidity; i++) {
		struct rpt_item *v = &r->validity[i];
		struct sbuf b = {.n = 0};
		if (v->text || v->kind == RPT_V_WORDED)
			continue;
		if (v->kind == RPT_V_COLD) {
			b.cap = COLD_MAX;
			cold_words(r, &v->cold, &b);
		}
		if (!(v->text = strdup(b.s)))
			return -1;
	}
	return 0;
}
