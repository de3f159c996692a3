/* The figure table (report_figs.c): every row in its place, the figure indices the rows
 * span map back to their row and series, no two rows share a key or an until name, and a
 * figure's key, its until name and its words come from its row (rpt_fig_key,
 * rpt_fig_index, rpt_fig_what, rpt_fig_value), so that a new row is found by all of them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_int.h"
#include "report/judge/report_compare.h"
#include "report/write/report_fmt.h"

/* A report of two series, "app" and "db". */
static void two_series(struct report *r)
{
	memset(r, 0, sizeof *r);
	r->ncpu = 2;
	snprintf(r->cpu_names[0], sizeof r->cpu_names[0], "app");
	snprintf(r->cpu_names[1], sizeof r->cpu_names[1], "db");
}

static void rows_in_place(void **state)
{
	(void)state;
	for (int m = 0; m < RPT_NROWS; m++) {
		const struct rpt_figrow *w = &rpt_figrows[m];
		assert_int_equal(w->id, m);
		assert_true(w->key && w->until && w->head && w->what && w->up && w->down);
		assert_true(w->unit && (w->better == 1 || w->better == -1));
		assert_int_equal(w->src == RPT_SRC_REQUEST, m < RPT_NMETRIC);
		for (int k = 0; k < m; k++) {
			assert_string_not_equal(w->key, rpt_figrows[k].key);
			assert_string_not_equal(w->until, rpt_figrows[k].until);
		}
	}
}

static void indices_round_trip(void **state)
{
	int seen[RPT_NFIG] = {0}, order[RPT_NFIG];

	(void)state;
	for (int f = 0; f < RPT_NFIG; f++) {
		int s = rpt_fig_series(f);
		assert_int_equal(rpt_fig(rpt_fig_row(f)->id, s < 0 ? 0 : s), f);
		assert_int_equal(s < 0, rpt_fig_row(f)->src == RPT_SRC_REQUEST);
		assert_int_equal(rpt_fig_in(f, 2), s < 2);
	}
	int n = rpt_fig_order(2, order);
	assert_int_equal(n, RPT_NMETRIC + 2 * (RPT_NROWS - RPT_NMETRIC));
	for (int i = 0; i < n; i++) {
		assert_true(rpt_fig_in(order[i], 2));
		assert_int_equal(seen[order[i]]++, 0);
	}
	assert_int_equal(order[RPT_NMETRIC], RPT_FIG_CPU(0));
	assert_int_equal(order[RPT_NMETRIC + 1], RPT_FIG_MEM(0));
}

static void names_from_rows(void **state)
{
	struct report r;
	char key[96], until[96], buf[96];

	(void)state;
	two_series(&r);
	for (int f = 0; f < RPT_NFIG; f++) {
		int s = rpt_fig_series(f);
		if (!rpt_fig_in(f, r.ncpu))
			continue;
		snprintf(until, sizeof until, "%s%s%s", rpt_fig_row(f)->until, s < 0 ? "" : ".",
		         s < 0 ? "" : r.cpu_names[s]);
		assert_int_equal(rpt_fig_index(&r, until), f);
		rpt_fig_key(&r, f, key, sizeof key);
		assert_int_equal(strncmp(key, rpt_fig_row(f)->key, strlen(rpt_fig_row(f)->key)), 0);
	}
	assert_string_equal(rpt_fig_key(&r, RPT_FIG_MEM(1), key, sizeof key), "memory.db");
	assert_string_equal(rpt_fig_key(&r, RPT_M_ERR, key, sizeof key), "error");
	assert_int_equal(rpt_fig_index(&r, "cpu.db"), RPT_FIG_CPU(1));
	assert_int_equal(rpt_fig_index(&r, "cpu.web"), -1);
	assert_int_equal(rpt_fig_index(&r, "cpudb"), -1);
	assert_string_equal(rpt_fig_what(&r, RPT_FIG_CPU(0), buf, sizeof buf),
	                    "CPU per request on app");
	assert_string_equal(rpt_fig_what(&r, RPT_M_MEAN, buf, sizeof buf), "average latency");
	assert_string_equal(rpt_fig_value(RPT_M_TPS, 812.26, buf, sizeof buf), "812.3");
	assert_string_equal(rpt_fig_value(RPT_M_ERR, 0.25, buf, sizeof buf), "0.25%");
	assert_string_equal(rpt_fig_value(RPT_FIG_MEM(0), 310.44, buf, sizeof buf), "310.4 MB");
	assert_string_equal(rpt_fig_value(RPT_M_P99, 4.214, buf, sizeof buf), "4.21 ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_in_place),
	    cmocka_unit_test(indices_round_trip),
	    cmocka_unit_test(names_from_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
