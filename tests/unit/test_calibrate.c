/* The report's estimator calibrated, one at a time: 1,000 A/A and 1,000 A/B simulated
 * container studies (calsim.h: the noise real Tomcat studies show) per design of runs made
 * each alone, judged by rpt_build; the promises checked, the findings (issue 43) listed.
 * The side-by-side designs are test_calibrate_side.c. */
#include "calsim.h" /* cmocka and the simulation */

static const struct design DESIGNS[] = {
    {"one at a time, 3 interleaved rounds, kept running", 0, 3, 1, 1, 0, "interleaved", RPT_BY_RUNS,
     0},
    {"one at a time, 5 random rounds, kept running", 0, 5, 1, 1, 0, "random", RPT_BY_RUNS, 0},
    {"one at a time, 8 rounds paired, kept running", 0, 8, 1, 1, 0, "interleaved", RPT_BY_ROUNDS,
     0},
    {"one at a time, 3 rounds, started for each run", 0, 3, 1, 1, 1, "interleaved", RPT_BY_RUNS, 0},
};

static void one_at_a_time_designs(void **state)
{
	(void)state;
	calsim_check(DESIGNS, sizeof DESIGNS / sizeof DESIGNS[0], 0xca1b0000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_at_a_time_designs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
