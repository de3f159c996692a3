/* The report's estimator calibrated, side by side: 1,000 A/A and 1,000 A/B simulated
 * container studies (calsim.h) per design of runs made in groups (one process a side,
 * replicas, starts), judged by rpt_build; the promises checked, the findings (issue 43)
 * listed.  The one-at-a-time designs are test_calibrate.c. */
#include "calsim.h" /* cmocka and the simulation */

static const struct design DESIGNS[] = {
    {"side by side, 1 process a side, 8 groups", 1, 8, 1, 1, 0, "interleaved", RPT_BY_GROUPS, 0},
    {"side by side, 2 processes a side, 3 groups (make demo)", 1, 3, 2, 1, 0, "interleaved",
     RPT_BY_GROUPS, 0},
    {"side by side, 3 processes a side, 4 groups", 1, 4, 3, 1, 0, "interleaved", RPT_BY_GROUPS,
     0},
    {"side by side, 1 process a side, 3 starts of 2 groups", 1, 2, 1, 3, 0, "interleaved",
     RPT_BY_GROUPS, 0},
    /* the default of two targets at a fixed rate (starts = auto): what ten minutes hold of
     * two Tomcat 10s at 500/s with 3 rounds here, 5 starts (about 1.8 minutes each) */
    {"side by side, 1 process a side, 5 starts of 3 groups (the default)", 1, 3, 1, 5, 0,
     "interleaved", RPT_BY_GROUPS, 0},
};

static void side_by_side_designs(void **state)
{
	(void)state;
	calsim_check(DESIGNS, sizeof DESIGNS / sizeof DESIGNS[0], 0xca1b0004);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(side_by_side_designs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
