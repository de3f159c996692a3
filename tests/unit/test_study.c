/* Study files: the plan, the schedule (interleaved, seeded random), the runs' scenarios
 * filled from a target's start output, and every mistake with its FILE:LINE message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario/study.h"

static char dir[] = "/tmp/soak-study.XXXXXX";

static const char scenario_one[] = "[scenario]\nname = one\nconcurrency = 5\nduration = 10s\n"
                                   "[request]\nurl = http://127.0.0.1:9/register\n"
                                   "[collect.app]\npid_match = java\ngc_log = /x/gc.log\n";
static const char scenario_two[] = "[scenario]\nname = two\nduration = 4s\n"
                                   "[request.login]\nurl = http://127.0.0.1:9/login?x=1\n"
                                   "[request.home]\nurl = http://127.0.0.1:9/\n";

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	write_file("one.ini", scenario_one);
	write_file("two.ini", scenario_two);
	return 0;
}

static int teardown(void **state)
{
	char path[256];
	(void)state;
	snprintf(path, sizeof path, "%s/one.ini", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/two.ini", dir);
	unlink(path);
	return rmdir(dir);
}

/* Parses `text` as the file DIR/study.ini (relative scenario paths resolve from DIR). */
static int parse(struct study *st, const char *text, char *err, size_t len)
{
	char name[256];
	snprintf(name, sizeof name, "%s/study.ini", dir);
	return study_parse_text(st, name, text, err, len);
}

static void full_study(void **state)
{
	struct study st;
	char err[512] = "";
	(void)state;
	assert_int_equal(parse(&st,
	                       "[study]\n"
	                       "name = upgrade\n"
	                       "scenario = one.ini\n"
	                       "scenario = two.ini\n"
	                       "rounds = 4\n"
	                       "order = random\n"
	                       "seed = 42\n"
	                       "before_each = psql -c 'truncate users'\n"
	                       "warmup_runs = 2\n"
	                       "keep_running = yes\n"
	                       "command_timeout = 30s\n"
	                       "[target.tomcat9]\n"
	                       "start = start.sh 9\n"
	                       "stop = stop.sh 9\n"
	                       "set = scenario.concurrency=7\n"
	                       "[target.tomcat10]\n"
	                       "url = http://127.0.0.1:8080/register\n"
	                       "pid = 1234\n",
	                       err, sizeof err),
	                 0);
	assert_string_equal(st.name, "upgrade");
	assert_int_equal(st.nscenarios, 2);
	assert_non_null(strstr(st.scenarios[1], "/two.ini"));
	assert_int_equal(st.rounds, 4);
	assert_int_equal(st.order, STUDY_RANDOM);
	assert_true(st.has_seed);
	assert_int_equal(st.seed, 42);
	assert_string_equal(st.before_each, "psql -c 'truncate users'");
	assert_int_equal(st.warmup_runs, 2);
	assert_int_equal(st.keep_running, 1);
	assert_int_equal(st.command_timeout_ms, 30000);
	assert_int_equal(st.ntargets, 2);
	assert_string_equal(st.targets[0].name, "tomcat9");
	assert_string_equal(st.targets[0].start, "start.sh 9");
	assert_int_equal(st.targets[0].nsets, 1);
	assert_null(st.targets[1].start);
	assert_string_equal(st.targets[1].given.url, "http://127.0.0.1:8080/register");
	assert_int_equal(st.targets[1].given.pid, 1234);
	assert_int_equal(study_nslots(&st), 16);
	{
		int warm, n = study_nruns(&st, &warm);
		/* Kept running: one start each, two warm-ups of each of the two scenarios. */
		assert_int_equal(warm, 8);
		assert_int_equal(n, 24);
	}
	study_release(&st);
}

static void defaults(void **state)
{
	struct study st;
	char err[512] = "";
	(void)state;
	assert_int_equal(parse(&st,
	                       "[study]\nscenario = one.ini\nrounds = 2\n[target.a]\nstart = x\n",
	                       err, sizeof err),
	                 0);
	assert_string_equal(st.name, "study"); /* the file's base name */
	assert_int_equal(st.order, STUDY_INTERLEAVED);
	assert_int_equal(st.warmup_runs, 1);
	assert_int_equal(st.keep_running, 0);
	assert_int_equal(st.command_timeout_ms, 120000);
	{
		int warm, n = study_nruns(&st, &warm);
		assert_int_equal(warm, 2); /* restarted for each of its 2 runs */
		assert_int_equal(n, 4);
	}
	study_release(&st);
}

static void mistakes(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"[study]\nrounds = 2\n[target.a]\nurl = http://x/\n",
	     "study.ini:1: [study] needs scenario"},
	    {"[study]\nscenario = one.ini\n[target.a]\nurl = http://x/\n", "needs rounds"},
	    {"[study]\nscenario = one.ini\nrounds = 0\n[target.a]\nurl = http://x/\n",
	     "study.ini:3: rounds: 0 is outside 1..1000"},
	    {"[study]\nscenario = one.ini\nrounds = 2\norder = zigzag\n[target.a]\nurl = "
	     "http://x/\n",
	     "study.ini:4: order: expected interleaved or random, not 'zigzag'"},
	    {"[study]\nscenario = one.ini\nrounds = 2\norder = random\nseed = -3\n[target.a]\nurl "
	     "= "
	     "http://x/\n",
	     "study.ini:5: seed: '-3' is not a whole number"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nwarmup_runs = 51\n[target.a]\nurl = "
	     "http://x/\n",
	     "study.ini:4: warmup_runs: 51 is outside 0..50"},
	    {"[study]\nscenario = one.ini\nrounds = 2\ndesign = parallel\n[target.a]\nurl = x\n",
	     "study.ini:4: design: expected auto, side-by-side or one-at-a-time, not 'parallel'"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nreplicas = 9\n[target.a]\nurl = x\n",
	     "study.ini:4: replicas: 9 is outside 1..8"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nstarts = 2\nkeep_running = no\n"
	     "[target.a]\nurl = x\n",
	     "study.ini:5: keep_running: replicas and starts keep the targets running"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nprimary = cpu\n[target.a]\nurl = x\n",
	     "study.ini:4: primary: 'cpu': a figure is tps, mean, p99"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nwarmup_jit = lots\n[target.a]\nurl = x\n",
	     "study.ini:4: warmup_jit: expected a share such as 2%, or off, not 'lots'"},
	    {"[study]\nscenario = one.ini\nuntil = tps 3%\nbudget = 1m\ndesign = side-by-side\n"
	     "[target.a]\nurl = x\n",
	     "study.ini:5: design: side-by-side does not take until"},
	    {"[study]\nscenario = one.ini\nrounds = 2\nkeep_running = maybe\n[target.a]\nurl = "
	     "http://x/\n",
	     "study.ini:4: keep_running: expected yes or no"},
	    {"[study]\nscenario = one.ini\nrounds = 2\ncolour = red\n[target.a]\nurl = http://x/\n",
	     "study.ini:4: unknown key 'colour' in [study]"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n[targets.a]\nurl = http://x/\n",
	     "study.ini:4: unknown section [targets.a] (known: study, target.NAME)"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n", "no [target.NAME] section"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n[target.a]\nstop = x\n",
	     "study.ini:4: [target.a] needs start"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n[target.a/b]\nurl = http://x/\n",
	     "a target's name (its runs' label)"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n[target.a]\nurl = http://x/\nset = nodot\n",
	     "study.ini:6: set: expected SECTION.KEY=VALUE, not 'nodot'"},
	    {"[study]\nscenario = one.ini\nrounds = 2\n[target.a]\nurl = http://x/\npid = -1\n",
	     "study.ini:6: pid: -1 is outside"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct study st;
		char err[512] = "";
		if (parse(&st, cases[i].text, err, sizeof err) == 0) {
			study_release(&st);
			fail_msg("case %zu parsed", i);
		}
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' does not hold '%s'", i, err, cases[i].msg);
		assert_null(st.name); /* nothing partial left */
	}
}

static void interleaved_schedule(void **state)
{
	struct study st;
	struct study_slot s[12];
	char err[512] = "", got[64] = "";
	(void)state;
	assert_int_equal(
	    parse(&st,
	          "[study]\nscenario = one.ini\nrounds = 4\n[target.a]\nurl = http://x/\n"
	          "[target.b]\nurl = http://x/\n[target.c]\nurl = http://x/\n",
	          err, sizeof err),
	    0);
	assert_int_equal(study_nslots(&st), 12);
	study_schedule(&st, 0, s);
	for (int i = 0; i < 12; i++) {
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%s%s", s[i].position == 1 && i ? " " : "",
		         st.targets[s[i].target].name);
		assert_int_equal(s[i].round, i / 3 + 1);
		assert_int_equal(s[i].position, i % 3 + 1);
	}
	assert_string_equal(got, "abc cba abc cba");
	study_release(&st);
}

/* Two starts of two replicas of a and b: per start, the fixed-rate scenario's groups (one a
 * round), then per round the one-at-a-time scenario's instances alone (interleaved). */
static void grouped_schedule(void **state)
{
	struct study st;
	struct study_slot s[32];
	double rates[2] = {0, 600};
	char err[512] = "", got[256] = "";
	(void)state;
	assert_int_equal(parse(&st,
	                       "[study]\nscenario = cap.ini\nscenario = rate.ini\nrounds = 2\n"
	                       "starts = 2\nreplicas = 2\n[target.a]\nurl = http://x/\n"
	                       "[target.b]\nurl = http://x/\n",
	                       err, sizeof err),
	                 0);
	study_resolve_design(&st, rates);
	assert_int_equal(st.together[0], 0);
	assert_int_equal(st.together[1], 1);
	assert_true(study_grouped(&st));
	assert_int_equal(study_nslots(&st), 32);
	study_schedule(&st, 0, s);
	for (int i = 0; i < 32; i++) {
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%s%s%d%s",
		         i && s[i].round != s[i - 1].round ? " " : "", st.targets[s[i].target].name,
		         s[i].replica + 1, s[i].group ? "g" : "");
		assert_int_equal(s[i].start, (s[i].round - 1) / 2 + 1);
		if (s[i].group)
			assert_int_equal(s[i].group, s[i].round);
	}
	/* Each start: its groups first (right after its warm-up), then its runs alone. */
	assert_string_equal(got, "a1ga2gb1gb2g a1ga2gb1gb2g a1a2b1b2 b2b1a2a1 "
	                         "a1ga2gb1gb2g a1ga2gb1gb2g a1a2b1b2 b2b1a2a1");
	study_release(&st);
	/* A target's own replicas: b runs one process beside a's two. */
	assert_int_equal(parse(&st,
	                       "[study]\nscenario = cap.ini\nscenario = rate.ini\nrounds = 1\n"
	                       "replicas = 2\n[target.a]\nurl = http://x/\n"
	                       "[target.b]\nurl = http://x/\nreplicas = 1\n",
	                       err, sizeof err),
	                 0);
	rates[1] = 600;
	study_resolve_design(&st, rates);
	assert_int_equal(study_ninstances(&st), 3);
	assert_int_equal(study_instance(&st, 1, 0), 2);
	assert_int_equal(study_instance(&st, 1, 1), -1);
	study_schedule(&st, 0, s);
	got[0] = '\0';
	for (int i = 0; i < study_nslots(&st); i++) {
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%s%d%s", st.targets[s[i].target].name,
		         s[i].replica + 1, s[i].group ? "g" : "");
	}
	assert_string_equal(got, "a1ga2gb1ga1a2b1");
	/* Closed scenarios only, or an explicit one-at-a-time design: no groups. */
	rates[1] = 0;
	rates[1] = 0;
	study_resolve_design(&st, rates);
	assert_int_equal(st.together[1], 0);
	study_release(&st);
}

/* starts = auto's rule, on starts recorded by bench/calibrate.sh (two Tomcat 10s at 500/s,
 * budget 10 minutes): a sixth start after 481 s of starts of at most 98 s fits (the study
 * ended at 583 s); one after 492 s of starts of at most 106 s does not (it took 116 s and
 * the study 610 s, over its budget, before the margin). */
static void another_fits(void **state)
{
	(void)state;
	assert_true(study_another_fits(481000, 98000, 600000));
	assert_false(study_another_fits(492000, 106000, 600000));
	assert_true(study_another_fits(0, 0, 600000)); /* no start made yet */
	assert_true(study_another_fits(490000, 100000, 600000));  /* 490 + 110 = 600 s */
	assert_false(study_another_fits(490001, 100000, 600000)); /* a millisecond over */
}

/* Two targets the study starts, one at a fixed rate, no design chosen: starts = auto for
 * ten minutes, side by side.  Any key that chooses a design, a closed model alone, or a
 * target already running keeps the design as written. */
static void default_starts(void **state)
{
	static const struct {
		const char *keys, *target_b;
		double rate;
		int autos;
	} cases[] = {
	    {"", "start = x\n", 500, 1},
	    {"", "start = x\n", 0, 0},
	    {"", "url = http://x/\n", 500, 0},
	    {"keep_running = no\n", "start = x\n", 500, 0},
	    {"keep_running = yes\n", "start = x\n", 500, 0},
	    {"starts = 3\n", "start = x\n", 500, 0},
	    {"design = one-at-a-time\n", "start = x\n", 500, 0},
	    {"design = auto\n", "start = x\n", 500, 1},
	    {"starts = auto\nbudget = 90s\n", "start = x\n", 0, 1},
	};
	char text[512], err[512];
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct study st;
		double rates[1] = {cases[i].rate};
		snprintf(text, sizeof text,
		         "[study]\nscenario = rate.ini\nrounds = 3\n%s[target.a]\nstart = x\n"
		         "[target.b]\n%s",
		         cases[i].keys, cases[i].target_b);
		if (parse(&st, text, err, sizeof err) != 0)
			fail_msg("case %zu: %s", i, err);
		study_resolve_design(&st, rates);
		if (st.starts_auto != cases[i].autos)
			fail_msg("case %zu: starts_auto %d", i, st.starts_auto);
		if (cases[i].autos) {
			assert_int_equal(st.starts, STUDY_AUTO_STARTS);
			assert_true(st.keep_running);
			assert_int_equal(st.budget_ms, i == 8 ? 90000 : STUDY_AUTO_BUDGET_MS);
			assert_int_equal(st.together[0], cases[i].rate > 0);
			assert_true(study_grouped(&st));
		} else {
			assert_true(st.starts <= 3);
		}
		study_release(&st);
	}
	/* budget without until needs starts = auto. */
	assert_int_equal(parse(&(struct study){0},
	                       "[study]\nscenario = rate.ini\nrounds = 3\nbudget = 1m\n"
	                       "[target.a]\nstart = x\n",
	                       err, sizeof err),
	                 -1);
	assert_non_null(strstr(err, "study.ini:4: budget: only with until = FIG PCT% (what to "
	                            "run until) or starts = auto"));
}

static void random_schedule(void **state)
{
	struct study st;
	struct study_slot s1[400], s2[400], s3[400];
	char err[512] = "";
	int first[4] = {0}, differ = 0;
	(void)state;
	assert_int_equal(parse(&st,
	                       "[study]\nscenario = one.ini\nrounds = 100\norder = random\n"
	                       "[target.a]\nurl = http://x/\n[target.b]\nurl = http://x/\n"
	                       "[target.c]\nurl = http://x/\n[target.d]\nurl = http://x/\n",
	                       err, sizeof err),
	                 0);
	study_schedule(&st, 7, s1);
	study_schedule(&st, 7, s2);
	study_schedule(&st, 8, s3);
	assert_memory_equal(s1, s2, sizeof s1); /* a seed replays the order */
	for (int r = 0; r < 100; r++) {
		int seen = 0;
		for (int p = 0; p < 4; p++)
			seen |= 1 << s1[4 * r + p].target; /* every target once per round */
		assert_int_equal(seen, 15);
		first[s1[4 * r].target]++;
		differ += s1[4 * r].target != s3[4 * r].target;
	}
	for (int t = 0; t < 4; t++) /* each first about a quarter of the time */
		assert_in_range(first[t], 10, 45);
	assert_true(differ > 30); /* another seed, another order */
	study_release(&st);
}

static void kv_lines(void **state)
{
	struct study_kv kv = {0};
	char err[256] = "";
	(void)state;
	assert_int_equal(
	    study_kv_parse(&kv,
	                   "starting...\npid=4321\nport=8080\r\n"
	                   "url=http://127.0.0.1:8080/register\ngc_log=/b/logs/gc.log\n"
	                   "version=Tomcat 10.1.60.0\nnoise\n",
	                   err, sizeof err),
	    0);
	assert_int_equal(kv.pid, 4321);
	assert_string_equal(kv.url, "http://127.0.0.1:8080/register");
	assert_string_equal(kv.gc_log, "/b/logs/gc.log");
	assert_string_equal(kv.version, "Tomcat 10.1.60.0");
	assert_null(kv.address);
	assert_int_equal(study_kv_parse(&kv, "url=http://h:1/x\n", err, sizeof err), 0);
	assert_string_equal(kv.url, "http://h:1/x"); /* a later value wins */
	assert_int_equal(study_kv_parse(&kv, "pid=12x\n", err, sizeof err), -1);
	assert_non_null(strstr(err, "line 1: pid=12x is not a process id"));
	study_kv_release(&kv);
}

/* The target's start output becomes the run's URL, label and app collector. */
static void run_scenario_filled(void **state)
{
	struct study st;
	struct scenario s;
	char url[] = "http://127.0.0.1:5555/register", gc[] = "/t/gc.log";
	struct study_kv kv = {.url = url, .pid = 77, .gc_log = gc};
	char err[512] = "";
	(void)state;
	assert_int_equal(parse(&st,
	                       "[study]\nscenario = one.ini\nscenario = two.ini\nrounds = 1\n"
	                       "[target.t9]\nstart = x\nset = scenario.concurrency=9\n",
	                       err, sizeof err),
	                 0);
	assert_int_equal(study_scenario(&st, 0, 0, &kv, NULL, 0, &s, err, sizeof err), 0);
	assert_string_equal(s.label, "t9");
	assert_int_equal(s.concurrency, 9);
	assert_string_equal(s.plan.reqs[0].url.text, "http://127.0.0.1:5555/register");
	assert_int_equal(s.ncollect, 1);
	assert_null(s.collect[0].pid_match); /* the pid replaces the pattern */
	assert_int_equal(s.collect[0].pid, 77);
	assert_string_equal(s.collect[0].gc_log, "/t/gc.log");
	scn_release(&s);
	/* Several requests: each keeps its path and query on the target's origin. */
	assert_int_equal(study_scenario(&st, 0, 1, &kv, NULL, 0, &s, err, sizeof err), 0);
	assert_string_equal(s.plan.reqs[0].url.text, "http://127.0.0.1:5555/login?x=1");
	assert_string_equal(s.plan.reqs[1].url.text, "http://127.0.0.1:5555/");
	scn_release(&s);
	/* Before the start: the scenario's own URL, still checked; a bad override is named. */
	{
		char set[] = "scenario.duration=soon", *bad[] = {set};
		assert_int_equal(study_scenario(&st, 0, 0, NULL, bad, 1, &s, err, sizeof err), -1);
		assert_non_null(strstr(err, "--set scenario.duration"));
	}
	study_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(full_study),
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(mistakes),
	    cmocka_unit_test(interleaved_schedule),
	    cmocka_unit_test(grouped_schedule),
	    cmocka_unit_test(default_starts),
	    cmocka_unit_test(another_fits),
	    cmocka_unit_test(random_schedule),
	    cmocka_unit_test(kv_lines),
	    cmocka_unit_test(run_scenario_filled),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
