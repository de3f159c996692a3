/* Scenario files: a full good file, overrides, and every mistake with its FILE:LINE message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario/scenario.h"

static const char good[] =
    "; a registration soak\n"
    "[scenario]\n"
    "name        = tomcat soak\n"
    "label       = tomcat10            ; the system under test\n"
    "concurrency = 30\n"
    "duration    = 30m\n"
    "warmup      = 1m\n"
    "ramp_up     = 30s\n"
    "interval    = 10s\n"
    "connection  = keepalive\n"
    "think_time  = 100ms..300ms\n"
    "\n"
    "[request]\n"
    "method  = POST\n"
    "url     = http://127.0.0.1:8080/register\n"
    "header  = Content-Type: application/x-www-form-urlencoded\n"
    "header  = X-Run: ${run}\n"
    "body    = username=u${nonce}_${seq}&email=${seq}@example.test&password=${random:12}\n"
    "timeout = 5s\n"
    "expect_status = 201\n"
    "expect_body   = \"id\":\\s*\\d+\n"
    "\n"
    "[thresholds]\n"
    "p99 = 800ms\n"
    "error_rate = 1%\n"
    "tps_min = 50\n"
    "\n"
    "[collect.app]\n"
    "pid_match = org\\.apache\\.catalina\\.startup\\.Bootstrap\n"
    "gc_log    = /var/log/tomcat/gc.log\n"
    "every     = 5s\n"
    "\n"
    "[collect.db]\n"
    "pid_match = postgres|mysqld\n"
    "\n"
    "[collect.host]\n"
    "host = yes\n";

static void parses_the_design_example(void **state)
{
	struct scenario s;
	char err[512] = "";
	(void)state;
	assert_int_equal(scn_parse_text(&s, "soak.ini", good, NULL, 0, err, sizeof err), 0);
	assert_string_equal(s.name, "tomcat soak");
	assert_string_equal(s.label, "tomcat10");
	assert_int_equal(s.concurrency, 30);
	assert_int_equal(s.duration_ms, 1800000);
	assert_int_equal(s.warmup_ms, 60000);
	assert_int_equal(s.rampup_ms, 30000);
	assert_int_equal(s.plan.think_min_ms, 100);
	assert_int_equal(s.plan.think_max_ms, 300);
	assert_int_equal(s.nlevels, 1);
	assert_int_equal(s.levels[0], 30);
	assert_int_equal(s.sweep, 0);
	assert_int_equal(s.plan.nreqs, 1);
	assert_string_equal(s.plan.reqs[0].method, "POST");
	assert_int_equal(s.plan.reqs[0].nheaders, 2);
	assert_int_equal(s.plan.reqs[0].headers[1].dynamic, 1);
	assert_int_equal(s.plan.reqs[0].timeout_ms, 5000);
	assert_int_equal(s.plan.reqs[0].expect_status, 201);
	assert_non_null(s.plan.reqs[0].expect_body);
	assert_int_equal(s.thr.p99_us, 800000);
	assert_float_equal(s.thr.error_rate, 0.01, 1e-12);
	assert_float_equal(s.thr.tps_min, 50, 1e-12);
	assert_int_equal(s.thr.p95_us, -1);
	assert_int_equal(s.ncollect, 3);
	assert_string_equal(s.collect[0].name, "app");
	assert_string_equal(s.collect[0].gc_log, "/var/log/tomcat/gc.log");
	assert_int_equal(s.collect[2].host, 1);
	assert_int_equal(scn_total_ms(&s), 1800000);
	scn_release(&s);
}

static void sweep_and_overrides(void **state)
{
	struct scenario s;
	char err[512] = "";
	char *sets[] = {(char *)"sweep.concurrency=10..30 step 10",
	                (char *)"scenario.label=tomcat9", (char *)"request.header=X-Extra: 1"};
	(void)state;
	/* Without step_duration each step lasts the scenario's duration. */
	assert_int_equal(scn_parse_text(&s, "soak.ini", good, sets, 3, err, sizeof err), 0);
	assert_int_equal(s.nlevels, 3);
	assert_int_equal(scn_total_ms(&s), 3 * 1800000);
	scn_release(&s);
	char *sets2[] = {(char *)"sweep.concurrency=10..30 step 10",
	                 (char *)"sweep.step_duration=2m", (char *)"scenario.label=tomcat9",
	                 (char *)"request.header=X-Extra: 1"};
	assert_int_equal(scn_parse_text(&s, "soak.ini", good, sets2, 4, err, sizeof err), 0);
	assert_int_equal(s.sweep, 1);
	assert_int_equal(s.nlevels, 3);
	assert_int_equal(s.levels[2], 30);
	assert_int_equal(s.duration_ms, 120000);
	assert_int_equal(scn_total_ms(&s), 360000);
	assert_string_equal(s.label, "tomcat9");
	assert_int_equal(s.plan.reqs[0].nheaders,
	                 3); /* header is repeatable: an override adds one */
	/* The stored text says what was overridden. */
	assert_non_null(strstr(s.text, ";   --set scenario.label=tomcat9\n"));
	scn_release(&s);
}

/* ${env:NAME} in values: expanded once, a '$' of the variable's sent as it is, the stored
 * text keeping the placeholder; an unset or bad variable named at its line; a message
 * never showing the value; `redact` names more values. */
static void env_values(void **state)
{
	static const char text[] = "[scenario]\n"
	                           "label = ${env:SCN_T_LABEL}\n"
	                           "duration = 1m\n"
	                           "redact = X-Tenant\n"
	                           "[request]\n"
	                           "url = http://${env:SCN_T_HOST}:8080/r\n"
	                           "header = Authorization: Bearer ${env:SCN_T_PW}\n"
	                           "header = X-Tenant: acme\n"
	                           "body = p=${env:SCN_T_PW}&x=$${env:SCN_T_NONE}\n";
	struct tpl_ctx ctx = {.seq = 7, .vu = 1, .iter = 1, .run_id = 1, .nonce = "n", .rng = 1};
	struct scenario s;
	char err[512] = "", buf[256];
	(void)state;
	setenv("SCN_T_LABEL", "lbl", 1);
	setenv("SCN_T_HOST", "127.0.0.1", 1);
	setenv("SCN_T_PW", "pa$$w${seq}rd", 1);
	unsetenv("SCN_T_NONE");
	assert_int_equal(scn_parse_text(&s, "e.ini", text, NULL, 0, err, sizeof err), 0);
	assert_string_equal(s.label, "lbl");
	assert_string_equal(s.plan.reqs[0].url.text, "http://127.0.0.1:8080/r");
	assert_true(tpl_expand(&s.plan.reqs[0].headers[0], &ctx, buf, sizeof buf) > 0);
	assert_string_equal(buf, "Authorization: Bearer pa$$w${seq}rd");
	assert_true(tpl_expand(&s.plan.reqs[0].body, &ctx, buf, sizeof buf) > 0);
	assert_string_equal(buf, "p=pa$$w${seq}rd&x=${env:SCN_T_NONE}");
	/* Stored: the placeholder as written, another header's value redacted by name. */
	assert_non_null(strstr(s.text, "header = Authorization: Bearer ${env:SCN_T_PW}\n"));
	assert_non_null(strstr(s.text, "header = X-Tenant: [redacted]\n"));
	assert_null(strstr(s.text, "pa$$w"));
	scn_release(&s);

	char *sets[] = {(char *)"scenario.label=${env:SCN_T_LABEL}-2"};
	assert_int_equal(scn_parse_text(&s, "e.ini", text, sets, 1, err, sizeof err), 0);
	assert_string_equal(s.label, "lbl-2");
	scn_release(&s);

	static const struct {
		const char *set, *msg;
	} bad[] = {
	    {"request.header=X-A: ${env:SCN_T_NONE}",
	     "--set request.header: header: ${env:SCN_T_NONE} is not set in the environment"},
	    {"request.body=${env:1X}", "--set request.body: body: '${env:1X}': a variable's name "
	                               "is letters, digits and '_', not starting with a digit"},
	    {"request.body=${env:SCN_T_PW", "--set request.body: body: unterminated '${env:' "
	                                    "(expected ${env:NAME})"},
	    {"request.method=${env:SCN_T_METH}", "--set request.method: method: "
	                                         "'${env:SCN_T_METH}' is not an HTTP method (GET, "
	                                         "POST, PUT, ...)"},
	    {"scenario.redact=a=b", "--set scenario.redact: redact: 'a=b' is not a name "
	                            "(letters, digits, '_', '-', '.')"},
	};
	setenv("SCN_T_METH", "s3cretmeth", 1);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *one[] = {(char *)bad[i].set};
		assert_int_equal(scn_parse_text(&s, "e.ini", text, one, 1, err, sizeof err), -1);
		assert_string_equal(err, bad[i].msg);
	}
	static const char unset[] = "[scenario]\nduration = 1m\n[request]\n"
	                            "url = http://h/\nbody = ${env:SCN_T_NONE}\n";
	assert_int_equal(scn_parse_text(&s, "u.ini", unset, NULL, 0, err, sizeof err), -1);
	assert_string_equal(err, "u.ini:5: body: ${env:SCN_T_NONE} is not set in the environment");
	unsetenv("SCN_T_METH");
}

static void weighted_requests_and_defaults(void **state)
{
	struct scenario s;
	char err[512] = "";
	const char *text =
	    "[scenario]\nduration = 10s\n"
	    "[request.login]\nurl = http://127.0.0.1:1/login\nbody = a=1\nweight = 3\n"
	    "[request.home]\nurl = http://127.0.0.1:1/\n";
	(void)state;
	assert_int_equal(scn_parse_text(&s, "dir/w.ini", text, NULL, 0, err, sizeof err), 0);
	assert_string_equal(s.name, "w"); /* the file name without .ini */
	assert_string_equal(s.label, "w");
	assert_int_equal(s.concurrency, 10);
	assert_int_equal(s.interval_ms, 10000);
	assert_int_equal(s.plan.nreqs, 2);
	assert_string_equal(s.plan.reqs[0].name, "login");
	assert_string_equal(s.plan.reqs[0].method, "POST"); /* a body makes it a POST */
	assert_string_equal(s.plan.reqs[1].method, "GET");
	assert_int_equal(s.plan.total_weight, 4);
	assert_int_equal(s.plan.connection, PLAN_KEEPALIVE);
	scn_release(&s);
}

/* Each bad scenario and the exact message it must produce. */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
    {"[scenario]\nduration = 1m\nconcurency = 3\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: unknown key 'concurency' in [scenario]"},
    {"[scenario]\nduration = 1m\n[requests]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: unknown section [requests] (known: scenario, sweep, request, request.NAME, "
     "tls, thresholds, collect.NAME, handshake, frame.NAME)"},
    {"[scenario]\nduration = 1m\n[request]\nmethod = GET\n",
     "bad.ini:3: [request] needs url = http://..."},
    {"[scenario]\nduration = 30x\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:2: duration: bad duration '30x': unknown unit 'x' (use ms, s, m, h or d)"},
    {"[scenario]\nduration = 1m\n[sweep]\nconcurrency = 10..\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:4: concurrency: bad range '10..': expected N, A..B [step S] or A,B,C"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\n[thresholds]\nerror_rate = "
     "5\n",
     "bad.ini:6: error_rate: bad percentage '5': expected e.g. 1%, 0.5% or a fraction 0..1"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nexpect_body = \"id\":(\\d+\n",
     "bad.ini:5: bad expect_body pattern '\"id\":(\\d+': missing closing parenthesis at offset 9"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nbody = user=${user}\n",
     "bad.ini:5: body: unknown placeholder '${user}' (known: seq, vu, iter, run, nonce, random:N, "
     "uuid, now_ms, agent, csv:COLUMN)"},
    {"[scenario]\nduration = 1m\nconnection = persistent\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: connection: expected keepalive or close, not 'persistent'"},
    {"[scenario]\nduration = 1m\nconcurrency = 0\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: concurrency: 0 is outside 1..100000"},
    {"[scenario]\nduration = 1m\nconcurrency = 200000\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: concurrency: 200000 is outside 1..100000"},
    {"[scenario]\nduration = 1m\ncsv = /nonexistent/users.csv\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:3: csv: cannot read CSV file '/nonexistent/users.csv': No such file or directory"},
    {"[scenario]\nduration = 1m\n[request]\nurl = ftp://127.0.0.1/\n",
     "bad.ini:4: url: 'ftp://127.0.0.1/' must start with http:// or https://"},
    /* the open model */
    {"[scenario]\nduration = 1m\nconcurrency = 5\nrate = 500/s\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:4: rate: give rate (the open model) or concurrency (the closed model), not both"},
    {"[scenario]\nduration = 1m\nrate = 500/d\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: rate: bad rate '500/d': expected a number per second, minute or hour (500/s, "
     "30/m, "
     "1200/h)"},
    {"[scenario]\nduration = 1m\nrate = 0/s\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: rate: bad rate '0/s': must be above 0 and at most 10000000/s"},
    {"[scenario]\nduration = 1m\nrate = 5\narrival = bursty\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:4: arrival: expected constant or poisson, not 'bursty'"},
    {"[scenario]\nduration = 1m\nconcurrency = 5\narrival = poisson\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:4: arrival: only for the open model (give rate = N/s)"},
    {"[scenario]\nduration = 1m\nmax_in_flight = 10\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: max_in_flight: only for the open model (give rate = N/s)"},
    {"[scenario]\nduration = 1m\nrate = 5\nmax_in_flight = 0\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:4: max_in_flight: 0 is outside 1..100000"},
    {"[scenario]\nduration = 1m\nrate = 5\nmax_lag = 0\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:4: max_lag: must be at least 1ms"},
    {"[scenario]\nduration = 1m\nrate = 5\nmax_lag = soon\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:4: max_lag: bad duration 'soon': expected a number"},
    {"[scenario]\nrate = 5\n[sweep]\nconcurrency = 1,2\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:4: concurrency: this scenario has a rate (the open model); sweep over rate = A..B "
     "step "
     "S instead"},
    {"[scenario]\nconcurrency = 5\n[sweep]\nrate = 1,2\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:4: rate: this scenario has a concurrency (the closed model); sweep over concurrency "
     "= "
     "A..B step S instead"},
    {"[scenario]\n[sweep]\nrate = 1,2\nconcurrency = 3\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:3: rate: a sweep is over concurrency (closed) or rate (open), not both"},
    {"[scenario]\n[sweep]\nrate = 100..50 step 10\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:3: rate: bad range '100..50 step 10': the end is before the start"},
    {"[scenario]\n[sweep]\nrate = 100..500\nstep_duration = 1m\n[request]\nurl = "
     "http://127.0.0.1/\n",
     "bad.ini:3: rate: bad rates '100..500': expected R, A..B step S or A,B,C (each R like 500/s, "
     "30/m)"},
    {"[scenario]\nconcurrency = 5\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:1: [scenario] needs duration (e.g. duration = 30m)"},
    {"[scenario]\nduration = 1m\nwarmup = 50s\nramp_up = 10s\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: warmup (50s) plus ramp_up (10s) leave nothing of the 1m step to measure"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nheader = NoColonHere\n",
     "bad.ini:5: header: expected 'Name: value', not 'NoColonHere'"},
    {"[scenario]\nduration = 1m\nthis line is not ini\n[request]\nurl = http://127.0.0.1/\n",
     "bad.ini:3: expected 'key = value', a [section] or a comment"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\n[collect.app]\npid_match = "
     "java(\n",
     "bad.ini:6: bad pid_match pattern 'java(': missing closing parenthesis at offset 5"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\n[collect.app]\nevery = 5s\n",
     "bad.ini:5: [collect.app]: nothing to collect (pid_match, pidfile, pid, host or gc_log)"},
    {"duration = 1m\n", "bad.ini:1: 'duration' is outside any section (start with [scenario])"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nbody = x=${random:0}\n",
     "bad.ini:5: body: bad placeholder '${random:0}': N must be 1..256"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nmethod = post\n",
     "bad.ini:5: method: 'post' is not an HTTP method (GET, POST, PUT, ...)"},
    {"[scenario]\nduration = 1m\n[request]\nurl = http://127.0.0.1/\nbody = \001"
     "3\n",
     "bad.ini:5: control character 0x01 in the line"},
};

static void bad_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct scenario s;
		char err[512] = "";
		int rc = scn_parse_text(&s, "bad.ini", bad[i].text, NULL, 0, err, sizeof err);
		if (rc != -1 || strcmp(err, bad[i].msg) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, bad[i].msg);
	}
}

/* The open model: rate with its units, arrivals, limits, and rate sweeps. */
static void open_model(void **state)
{
	struct scenario s;
	char err[512] = "";
	(void)state;
	assert_int_equal(
	    scn_parse_text(&s, "o.ini",
	                   "[scenario]\nduration = 1m\nrate = 30/m\narrival = poisson\n"
	                   "max_in_flight = 50\nmax_lag = 2s\n[request]\nurl = http://127.0.0.1/\n",
	                   NULL, 0, err, sizeof err),
	    0);
	assert_int_equal(s.plan.model, PLAN_OPEN);
	assert_int_equal(s.plan.arrival, PLAN_POISSON);
	assert_true(fabs(s.rate - 0.5) < 1e-12);
	assert_int_equal(s.nlevels, 1);
	assert_true(fabs(s.rates[0] - 0.5) < 1e-12);
	assert_int_equal(s.levels[0], 0);
	assert_int_equal(s.plan.max_in_flight, 50);
	assert_int_equal(s.plan.max_lag_ms, 2000);
	scn_release(&s);
	assert_int_equal(
	    scn_parse_text(&s, "o.ini",
	                   "[scenario]\n[sweep]\nrate = 100..1000 step 100\nstep_duration = 1m\n"
	                   "[request]\nurl = http://127.0.0.1/\n",
	                   NULL, 0, err, sizeof err),
	    0);
	assert_int_equal(s.plan.model, PLAN_OPEN);
	assert_int_equal(s.plan.arrival, PLAN_CONSTANT);
	assert_int_equal(s.plan.max_in_flight, 1000);
	assert_int_equal(s.plan.max_lag_ms, 10000);
	assert_int_equal(s.nlevels, 10);
	assert_true(fabs(s.rates[9] - 1000) < 1e-9);
	scn_release(&s);
	/* --set can switch a closed scenario to the open model. */
	char *sets[] = {(char *)"scenario.concurrency=", (char *)"scenario.rate=1200/h"};
	assert_int_equal(
	    scn_parse_text(&s, "o.ini",
	                   "[scenario]\nduration = 1m\nconcurrency = 5\n[request]\nurl = "
	                   "http://127.0.0.1/\n",
	                   sets, 2, err, sizeof err),
	    0);
	assert_int_equal(s.plan.model, PLAN_OPEN);
	assert_true(fabs(s.rate - 1200.0 / 3600) < 1e-12);
	scn_release(&s);
}

static void bad_overrides(void **state)
{
	struct scenario s;
	char err[512] = "";
	char *a[] = {(char *)"scenario.duration=forever"};
	char *b[] = {(char *)"nodot=1"};
	char *c[] = {(char *)"scenari.duration=1m"};
	char *d[] = {(char *)"scenario.nosuchkey=1"};
	(void)state;
	assert_int_equal(scn_parse_text(&s, "x.ini", good, a, 1, err, sizeof err), -1);
	assert_string_equal(
	    err, "--set scenario.duration: duration: bad duration 'forever': expected a number");
	assert_int_equal(scn_parse_text(&s, "x.ini", good, b, 1, err, sizeof err), -1);
	assert_string_equal(err, "--set nodot=1: expected SECTION.KEY=VALUE");
	assert_int_equal(scn_parse_text(&s, "x.ini", good, c, 1, err, sizeof err), -1);
	assert_string_equal(err, "--set scenari.duration=1m: unknown section [scenari]");
	assert_int_equal(scn_parse_text(&s, "x.ini", good, d, 1, err, sizeof err), -1);
	assert_string_equal(err, "--set scenario.nosuchkey: unknown key 'nosuchkey' in [scenario]");
}

static void files(void **state)
{
	char dir[] = "/tmp/soak-scn.XXXXXX", path[128], csv[128], err[512] = "";
	struct scenario s;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/absent.ini", dir);
	assert_int_equal(scn_load(&s, path, NULL, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open '"));
	assert_non_null(strstr(err, "No such file or directory"));
	assert_int_equal(scn_load(&s, dir, NULL, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, "is not a scenario file (a directory)"));
	/* A CSV data set: path relative to the scenario, columns checked at parse time. */
	snprintf(csv, sizeof csv, "%s/users.csv", dir);
	f = fopen(csv, "w");
	fputs("name,mail\nann,a@x.test\n\"bo, b\",b@x.test\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/csv.ini", dir);
	f = fopen(path, "w");
	fputs("[scenario]\nduration = 1m\ncsv = users.csv\n[request]\nurl = http://127.0.0.1/\n"
	      "body = n=${csv:name}&m=${csv:mail}\n",
	      f);
	fclose(f);
	if (scn_load(&s, path, NULL, 0, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(s.plan.csv.nrows, 2);
	assert_string_equal(s.plan.csv.cells[2], "bo, b");
	scn_release(&s);
	f = fopen(path, "w");
	fputs("[scenario]\nduration = 1m\ncsv = users.csv\n[request]\nurl = http://127.0.0.1/\n"
	      "body = n=${csv:nom}\n",
	      f);
	fclose(f);
	assert_int_equal(scn_load(&s, path, NULL, 0, err, sizeof err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:6: body: unknown CSV column 'nom' in '${csv:nom}'", path);
	assert_string_equal(err, want);
	unlink(path);
	unlink(csv);
	rmdir(dir);
}

/* Writes text into out with each '@' replaced by dir. */
static void put_dir(char *out, size_t len, const char *text, const char *dir)
{
	size_t n = 0;
	for (const char *t = text; *t && n + 1 < len; t++) {
		if (*t != '@') {
			out[n++] = *t;
			continue;
		}
		n += (size_t)snprintf(out + n, len - n, "%s", dir);
		if (n >= len)
			n = len - 1;
	}
	out[n] = '\0';
}

/* [tls]: the options, files relative to the scenario (the fixtures of tests/data/tls),
 * and each mistake at its key, as OpenSSL would take the options. */
static void tls_section(void **state)
{
	const char *top = getenv("SOAK_TOP");
	char dir[1024], file[1100], text[4096], err[1200] = "", want[1200];
	struct scenario s;
	static const struct {
		const char *req;  /* more [request] keys */
		const char *keys; /* [tls]'s keys */
		const char *msg;  /* the message after "FILE:" ('@': the fixtures' folder) */
	} cases[] = {
	    {"", "min_version = 1.1\n", "7: min_version: expected 1.2 or 1.3, not '1.1'"},
	    {"", "min_version = 1.3\nmax_version = 1.2\n", "8: max_version: below min_version"},
	    {"", "key = client.key\n", "7: key: needs cert (the client certificate)"},
	    {"", "ca_file = nope.pem\n", "7: ca_file: cannot read '@/nope.pem'"},
	    {"", "insecure = yes\nca_file = ca.pem\n",
	     "7: insecure: nothing is verified, so ca_file and ca_dir would change nothing"},
	    {"", "insecure = maybe\n", "7: insecure: expected yes or no, not 'maybe'"},
	    {"", "ciphers = NO-SUCH-CIPHER\n",
	     "7: ciphers: no cipher OpenSSL knows in 'NO-SUCH-CIPHER' (no cipher match)"},
	    {"", "cert = client.pem\nkey = server.key\n",
	     "8: key: '@/server.key' does not belong to the certificate in '@/client.pem'"},
	    {"", "ca_file = server.key\n",
	     "7: ca_file: cannot load CA certificates from '@/server.key': no certificate or crl "
	     "found"},
	    {"", "alpn = h2,,http/1.1\n",
	     "7: alpn: 'h2,,http/1.1' is not a list of protocol names (h2,http/1.1)"},
	    {"client = curl\n", "sni = app.example\n",
	     "8: sni: libcurl cannot send an SNI other than the URL's host, and it sends this run "
	     "(client = curl)"},
	    {"client = curl\n", "alpn = h2\n",
	     "8: alpn: libcurl cannot offer an ALPN list of its own, and it sends this run (client "
	     "= "
	     "curl)"},
	};
	(void)state;

	snprintf(dir, sizeof dir, "%s/tests/data/tls", top ? top : ".");
	snprintf(file, sizeof file, "%s/t.ini", dir);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(
		    text, sizeof text,
		    "[scenario]\nduration = 1m\n[request]\nurl = https://127.0.0.1/\n%s\n[tls]\n%s",
		    cases[i].req, cases[i].keys);
		put_dir(want, sizeof want, cases[i].msg, dir);
		char full[2400];
		snprintf(full, sizeof full, "%s:%s", file, want);
		int rc = scn_parse_text(&s, file, text, NULL, 0, err, sizeof err);
		if (rc != -1 || strcmp(err, full) != 0)
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err, full);
	}
	/* No https:// request: [tls] would change nothing. */
	assert_int_equal(scn_parse_text(&s, "t.ini",
	                                "[scenario]\nduration = 1m\n[request]\nurl = http://h/\n"
	                                "[tls]\ninsecure = yes\n",
	                                NULL, 0, err, sizeof err),
	                 -1);
	assert_string_equal(err, "t.ini:5: [tls]: no request URL is https:// (the section would "
	                         "change nothing)");
	/* Everything at once, relative paths resolved against the scenario's folder. */
	snprintf(text, sizeof text,
	         "[scenario]\nduration = 1m\n[request]\nurl = https://127.0.0.1/\n[tls]\n"
	         "ca_file = ca.pem\ncert = client.pem\nkey = client.key\nsni = localhost\n"
	         "alpn = http/1.1\nmin_version = 1.2\nmax_version = 1.3\n"
	         "ciphers = ECDHE-ECDSA-AES128-GCM-SHA256\nciphersuites = TLS_AES_128_GCM_SHA256\n"
	         "resume = no\n");
	if (scn_parse_text(&s, file, text, NULL, 0, err, sizeof err) != 0)
		fail_msg("%s", err);
	snprintf(want, sizeof want, "%s/ca.pem", dir);
	assert_string_equal(s.plan.tls.ca_file, want);
	snprintf(want, sizeof want, "%s/client.key", dir);
	assert_string_equal(s.plan.tls.key, want);
	assert_string_equal(s.plan.tls.sni, "localhost");
	assert_int_equal(s.plan.tls.min_version, PLAN_TLS_1_2);
	assert_int_equal(s.plan.tls.max_version, PLAN_TLS_1_3);
	assert_int_equal(s.plan.tls.no_resume, 1);
	assert_int_equal(s.plan.tls.insecure, 0);
	scn_release(&s);
	/* --set reaches [tls] as any section. */
	char *sets[] = {(char *)"tls.insecure=yes"};
	assert_int_equal(scn_parse_text(&s, "t.ini",
	                                "[scenario]\nduration = 1m\n[request]\nurl = https://h/\n",
	                                sets, 1, err, sizeof err),
	                 0);
	assert_int_equal(s.plan.tls.insecure, 1);
	scn_release(&s);
}

/* Lines longer than libinih's 200-byte buffer: values, headers, comments. */
static void long_lines(void **state)
{
	struct scenario s;
	char err[512] = "";
	char *text = malloc(20000), *body = malloc(6001);
	(void)state;
	memset(body, 'b', 6000);
	body[6000] = '\0';
	snprintf(text, 20000,
	         "[scenario]\nduration = 10s\n; %s\n[request]\nurl = http://127.0.0.1:1/\n"
	         "body = %s ; an inline comment\nheader = X-Long: %s\nmethod = PUT\n",
	         body + 5700, body, body + 5500);
	assert_int_equal(scn_parse_text(&s, "long.ini", text, NULL, 0, err, sizeof err), 0);
	assert_int_equal(strlen(s.plan.reqs[0].body.text), 6000);
	assert_int_equal(strlen(s.plan.reqs[0].headers[0].text), strlen("X-Long: ") + 500);
	assert_string_equal(s.plan.reqs[0].method,
	                    "PUT"); /* lines after the long ones still count */
	scn_release(&s);
	/* A long line that is no key = value is an error with its line. */
	snprintf(text, 20000, "[scenario]\nduration = 10s\n%s\n", body);
	assert_int_equal(scn_parse_text(&s, "long.ini", text, NULL, 0, err, sizeof err), -1);
	assert_string_equal(err,
	                    "long.ini:3: a line over 199 bytes must be 'key = value' or a comment");
	free(text);
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parses_the_design_example),
	    cmocka_unit_test(sweep_and_overrides),
	    cmocka_unit_test(weighted_requests_and_defaults),
	    cmocka_unit_test(bad_scenarios),
	    cmocka_unit_test(bad_overrides),
	    cmocka_unit_test(open_model),
	    cmocka_unit_test(files),
	    cmocka_unit_test(long_lines),
	    cmocka_unit_test(env_values),
	    cmocka_unit_test(tls_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
