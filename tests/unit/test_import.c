/* The importers' parsers and rules, on the cases a real file seldom shows at once: JTL CSV
 * (quoted delimiters and line breaks, tabs, columns in any order, the default layouts),
 * JTL XML (entities, comments that end in "--->", CDATA, nested samples, a missing end),
 * error classes, the step rule on holds (ramps, sweeps, dips, threads stopping), the
 * intervals' layout (warm-up, remainders), JMeter's aggregate figures, nmon's
 * times, the reader's line cap, and the section names of an import's scenario text (a
 * small file imported into a database in a fresh folder).  test_import.sh does the real
 * JMeter and nmon output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>

#include "import/ireader.h"
#include "import/jmeter.h"
#include "import/jtl.h"
#include "import/nmon_db.h"
#include "testdir.h"

/* Reads every sample of text; fills up to max samples' key fields and returns how many,
 * or -1 with err and *line on the first error. */
struct got {
	int64_t ts, elapsed, latency, bytes;
	int threads, success;
	char label[64], code[96], message[96], url[96];
};

static int read_all(const char *text, struct got *g, int max, char *err, size_t errlen, long *line)
{
	struct ireader r;
	struct jtl_reader *j = NULL;
	struct jtl_sample s;
	int n = 0, rc;

	assert_int_equal(ird_open_mem(&r, text, strlen(text), 4096, err, errlen), 0);
	if (jtl_open(&j, &r, err, errlen, line) < 0) {
		ird_close(&r);
		return -1;
	}
	while ((rc = jtl_next(j, &s, err, errlen, line)) == 1) {
		if (n < max) {
			g[n].ts = s.ts;
			g[n].elapsed = s.elapsed;
			g[n].latency = s.latency;
			g[n].bytes = s.bytes;
			g[n].threads = s.all_threads;
			g[n].success = s.success;
			snprintf(g[n].label, sizeof g[n].label, "%s", s.label);
			snprintf(g[n].code, sizeof g[n].code, "%s", s.code);
			snprintf(g[n].message, sizeof g[n].message, "%s", s.message);
			snprintf(g[n].url, sizeof g[n].url, "%s", s.url);
		}
		n++;
	}
	/* A second pass reads the same samples. */
	if (rc == 0) {
		int again = 0;
		assert_int_equal(jtl_rewind(j, err, errlen), 0);
		while (jtl_next(j, &s, err, errlen, line) == 1)
			again++;
		assert_int_equal(again, n);
	}
	jtl_free(j);
	ird_close(&r);
	return rc < 0 ? -1 : n;
}

static void csv_header_any_order(void **state)
{
	/* Columns reordered, a subset, tabs; a quoted message with a tab, a quote and a line
	 * break; CRLF line ends. */
	const char *text = "success\tlabel\telapsed\tresponseMessage\ttimeStamp\tallThreads\r\n"
	                   "true\tlogin\t12\tOK\t1700000000000\t5\r\n"
	                   "false\t\"a\tb\"\t7\t\"say \"\"no\"\"\r\nthen\"\t1700000000100\t6\r\n";
	struct got g[4];
	char err[256];
	long line;
	(void)state;
	assert_int_equal(read_all(text, g, 4, err, sizeof err, &line), 2);
	assert_int_equal(g[0].ts, 1700000000000);
	assert_int_equal(g[0].elapsed, 12);
	assert_int_equal(g[0].threads, 5);
	assert_int_equal(g[0].latency, -1);
	assert_string_equal(g[0].label, "login");
	assert_int_equal(g[1].success, 0);
	assert_string_equal(g[1].label, "a\tb");
	assert_string_equal(g[1].message, "say \"no\"\nthen");
	assert_int_equal(g[1].threads, 6);
}

static void csv_default_layouts(void **state)
{
	/* JMeter 2.13's 12 default columns, no header; a comma inside a quoted message. */
	const char *v213 =
	    "1700000000000,15,home,200,OK,tg 1-1,text,true,1234,3,4,9\n"
	    "1700000000020,30,home,\"Non HTTP response code: java.net.ConnectException\","
	    "\"Non HTTP response message: Connection refused, really\",tg 1-2,text,false,"
	    "2014,3,4,0\n";
	/* JMeter 5's 17 (URL, Connect ...). */
	const char *v5 = "1700000000000,15,home,404,Not Found,tg 1-1,text,false,,120,80,1,1,"
	                 "http://h/x,15,0,2\n";
	struct got g[2];
	char err[256];
	long line;
	(void)state;
	assert_int_equal(read_all(v213, g, 2, err, sizeof err, &line), 2);
	assert_int_equal(g[0].bytes, 1234);
	assert_int_equal(g[0].threads, 4);
	assert_int_equal(g[0].latency, 9);
	assert_string_equal(g[1].message, "Non HTTP response message: Connection refused, really");
	assert_int_equal(read_all(v5, g, 2, err, sizeof err, &line), 1);
	assert_string_equal(g[0].url, "http://h/x");
	assert_int_equal(g[0].threads, 1);
	assert_int_equal(g[0].latency, 15);
}

static void csv_errors(void **state)
{
	struct got g[2];
	char err[256];
	long line;
	(void)state;
	/* A formatted timeStamp: the property to set is named. */
	assert_int_equal(read_all("timeStamp,elapsed,success\n2026/12/01 10:00:00.000,5,true\n", g,
	                          2, err, sizeof err, &line),
	                 -1);
	assert_int_equal(line, 2);
	assert_non_null(strstr(err, "timestamp_format=ms"));
	/* A record with a field too many. */
	assert_int_equal(read_all("timeStamp,elapsed,success\n1,2,true\n3,4,true,x\n", g, 2, err,
	                          sizeof err, &line),
	                 -1);
	assert_int_equal(line, 3);
	assert_non_null(strstr(err, "4 fields where the header has 3"));
	/* An open quote at the end. */
	assert_int_equal(read_all("timeStamp,elapsed,success,label\n1,2,true,\"open\n", g, 2, err,
	                          sizeof err, &line),
	                 -1);
	assert_non_null(strstr(err, "ends inside a quoted field"));
	/* No elapsed column. */
	assert_int_equal(
	    read_all("timeStamp,label,success\n1,a,true\n", g, 2, err, sizeof err, &line), -1);
	assert_non_null(strstr(err, "'elapsed'"));
	/* A row standing for several samples. */
	assert_int_equal(read_all("timeStamp,elapsed,success,SampleCount\n1,2,true,50\n", g, 2, err,
	                          sizeof err, &line),
	                 -1);
	assert_non_null(strstr(err, "SampleCount 50"));
	/* No verdict saved: the code decides. */
	assert_int_equal(read_all("timeStamp,elapsed,responseCode\n1,2,302\n1,2,500\n", g, 2, err,
	                          sizeof err, &line),
	                 2);
	assert_int_equal(g[0].success, 1);
	assert_int_equal(g[1].success, 0);
}

static void xml_samples(void **state)
{
	const char *text =
	    "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<!DOCTYPE x>\n"
	    "<testResults version=\"1.2\">\n"
	    "<!-- a comment with <httpSample t=\"1\"/> in it --->\n"
	    "<sample t=\"48\" lt=\"0\" ts=\"1700000000000\" s=\"false\" lb=\"sign &amp; up\" "
	    "rc=\"503\" rm=\"a &lt;b&gt; &quot;c&quot; &#233;&#x263A;\" na=\"2\" by='223'>\n"
	    "  <httpSample t=\"34\" ts=\"1700000000001\" s=\"true\" lb=\"child\" rc=\"200\"/>\n"
	    "  <responseData class=\"java.lang.String\"><![CDATA[ <httpSample t=\"9\"/> "
	    "]]></responseData>\n"
	    "  <java.net.URL>http://h/a?x=1&amp;y=2</java.net.URL>\n"
	    "</sample>\n"
	    "<httpSample t=\"5\" lt=\"4\" ts=\"1700000000100\" s=\"true\" lb=\"b\" rc=\"200\" "
	    "rm=\"OK\" "
	    "na=\"3\"/>\n"; /* no </testResults>: JMeter stopped between samples */
	struct got g[3];
	char err[256];
	long line;
	(void)state;
	assert_int_equal(read_all(text, g, 3, err, sizeof err, &line), 2);
	assert_int_equal(g[0].elapsed, 48);
	assert_int_equal(g[0].bytes, 223);
	assert_int_equal(g[0].success, 0);
	assert_string_equal(g[0].label, "sign & up");
	assert_string_equal(g[0].message, "a <b> \"c\" \xC3\xA9\xE2\x98\xBA");
	assert_string_equal(g[0].url, "http://h/a?x=1&y=2");
	assert_int_equal(g[0].threads, 2);
	assert_string_equal(g[1].label, "b");
	assert_int_equal(g[1].latency, 4);
	assert_string_equal(g[1].url, "");
}

static void xml_errors(void **state)
{
	struct got g[2];
	char err[256];
	long line;
	(void)state;
	assert_int_equal(
	    read_all("<results>\n<httpSample t=\"1\" ts=\"2\" s=\"true\"/>\n</results>\n", g, 2,
	             err, sizeof err, &line),
	    -1);
	assert_non_null(strstr(err, "not <testResults>"));
	/* Cut inside a tag, on line 3. */
	assert_int_equal(read_all("<testResults>\n<httpSample t=\"1\" ts=\"2\" s=\"true\"/>\n"
	                          "<httpSample t=\"1\" ts=",
	                          g, 2, err, sizeof err, &line),
	                 -1);
	assert_int_equal(line, 3);
	assert_non_null(strstr(err, "ends inside a tag"));
	/* Cut inside a sample with children: the sample's line is named. */
	assert_int_equal(
	    read_all("<testResults>\n<sample t=\"1\" ts=\"2\" s=\"true\">\n<httpSample/>\n", g, 2,
	             err, sizeof err, &line),
	    -1);
	assert_int_equal(line, 2);
	/* A bad attribute, and a missing ts. */
	assert_int_equal(read_all("<testResults>\n<httpSample t=1/>\n</testResults>\n", g, 2, err,
	                          sizeof err, &line),
	                 -1);
	assert_non_null(strstr(err, "malformed attribute"));
	assert_int_equal(
	    read_all("<testResults>\n<httpSample t=\"1\" s=\"true\"/>\n</testResults>\n", g, 2, err,
	             sizeof err, &line),
	    -1);
	assert_non_null(strstr(err, "no timeStamp"));
}

static void classes(void **state)
{
	static const struct {
		const char *code, *message;
		enum err_class want;
		int answered;
	} cases[] = {
	    {"404", "Not Found", ERR_HTTP_4XX, 1},
	    {"503", "Service Unavailable", ERR_HTTP_5XX, 1},
	    {"200", "OK", ERR_BODY_MISMATCH, 1}, /* an assertion failed */
	    {"302", "Found", ERR_STATUS_MISMATCH, 1},
	    {"Non HTTP response code: java.net.ConnectException",
	     "Non HTTP response message: Connection refused", ERR_CONNECT_REFUSED, 0},
	    {"Non HTTP response code: org.apache.http.conn.HttpHostConnectException",
	     "Non HTTP response message: Connection to http://h refused", ERR_CONNECT_REFUSED, 0},
	    {"Non HTTP response code: java.net.ConnectException",
	     "Non HTTP response message: Connection timed out", ERR_CONNECT_TIMEOUT, 0},
	    {"Non HTTP response code: org.apache.http.conn.ConnectTimeoutException", "",
	     ERR_CONNECT_TIMEOUT, 0},
	    {"Non HTTP response code: java.net.SocketTimeoutException",
	     "Non HTTP response message: Read timed out", ERR_TIMEOUT, 0},
	    {"Non HTTP response code: java.net.SocketTimeoutException",
	     "Non HTTP response message: connect timed out", ERR_CONNECT_TIMEOUT, 0},
	    {"Non HTTP response code: java.net.UnknownHostException", "", ERR_DNS, 0},
	    {"Non HTTP response code: java.net.BindException",
	     "Non HTTP response message: Cannot assign requested address", ERR_CLIENT_PORTS, 0},
	    {"Non HTTP response code: java.net.SocketException",
	     "Non HTTP response message: Connection reset", ERR_RESET, 0},
	    {"Non HTTP response code: org.apache.http.NoHttpResponseException", "", ERR_RESET, 0},
	    {"Non HTTP response code: javax.net.ssl.SSLHandshakeException", "", ERR_PROTOCOL, 0},
	    {"Non HTTP response code: java.lang.IllegalArgumentException", "", ERR_OTHER, 0},
	    {"", "", ERR_OTHER, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct jtl_sample s = {.code = cases[i].code, .message = cases[i].message};
		int answered = -1;
		enum err_class c = jtl_classify(&s, &answered);
		if (c != cases[i].want || answered != cases[i].answered)
			fail_msg("'%s' / '%s': %s answered %d, want %s answered %d", cases[i].code,
			         cases[i].message, err_class_name(c), answered,
			         err_class_name(cases[i].want), cases[i].answered);
	}
}

/* Holds from (level, end) pairs read in file order, finished at end_ms. */
static void holds_of(struct jm_holds *h, const int *lv, const int64_t *end, int n, int64_t end_ms)
{
	char err[256];
	jm_holds_init(h);
	for (int i = 0; i < n; i++)
		assert_int_equal(jm_holds_add(h, lv[i], end[i], err, sizeof err), 0);
	assert_int_equal(jm_holds_finish(h, end_ms, err, sizeof err), 0);
}

/* The steps of samples at levels lv, one every `every` ms from 0 (file ends after the
 * last); levels as "6,6,2" in out. */
static int steps_of(const int *lv, int n, int64_t every, struct jm_step *st, char *out)
{
	struct jm_holds h;
	int64_t end[256];
	int ns;

	for (int i = 0; i < n; i++)
		end[i] = every * (i + 1);
	holds_of(&h, lv, end, n, every * n + 1);
	ns = jm_find_steps(&h, 0, every * n + 1, st, 8);
	out[0] = '\0';
	for (int s = 0; s < ns; s++)
		sprintf(out + strlen(out), "%s%d", s ? "," : "", st[s].level);
	jm_holds_release(&h);
	return ns;
}

static void step_rule(void **state)
{
	struct jm_step st[8];
	char got[64];
	(void)state;
	/* The file: 6 threads, then two samples while threads stopped: one step. */
	{
		int lv[100];
		for (int i = 0; i < 100; i++)
			lv[i] = i < 98 ? 6 : 2;
		assert_int_equal(steps_of(lv, 100, 80, st, got), 1);
		assert_string_equal(got, "6");
		assert_int_equal(st[0].hold_from, 80);
		assert_int_equal(st[0].hold_to, 99 * 80);
	}
	/* A ramp-up of one thread a second over 6 s, a minute at 6, a ramp-down: one step. */
	{
		int lv[84];
		for (int i = 0; i < 84; i++)
			lv[i] = i < 6 ? i + 1 : i < 78 ? 6 : 83 - i;
		assert_int_equal(steps_of(lv, 84, 1000, st, got), 1);
		assert_string_equal(got, "6");
	}
	/* A sweep 10, 20, 30 with ramps between: three steps, the ramps in none. */
	{
		int lv[70], k = 0;
		for (int i = 0; i < 20; i++)
			lv[k++] = 10;
		lv[k++] = 15;
		for (int i = 0; i < 20; i++)
			lv[k++] = 20;
		lv[k++] = 24;
		lv[k++] = 27;
		for (int i = 0; i < 20; i++)
			lv[k++] = 30;
		assert_int_equal(steps_of(lv, k, 500, st, got), 3);
		assert_string_equal(got, "10,20,30");
	}
	/* Interleaved threads during a ramp (3, 4, 3, 4) and a brief dip: no steps. */
	{
		int lv[] = {1, 2, 3, 4, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4,
		            5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 3, 1};
		assert_int_equal(steps_of(lv, (int)(sizeof lv / sizeof *lv), 1000, st, got), 1);
		assert_string_equal(got, "5");
		/* The dip split the hold; the step is both halves. */
		assert_int_equal(st[0].hold_from, 7000);
		assert_int_equal(st[0].hold_to, 41000);
	}
	/* No thread counts in the file: one step of 0 over all of it. */
	{
		int lv[] = {-1, -1, -1, -1};
		assert_int_equal(steps_of(lv, 4, 1000, st, got), 1);
		assert_string_equal(got, "0");
		assert_int_equal(st[0].hold_from, 0);
		assert_int_equal(st[0].hold_to, 4001);
	}
	/* Out-of-order ends never run a hold backwards. */
	{
		struct jm_holds h;
		int lv[] = {2, 2, 4, 2, 4, 4, 4};
		int64_t end[] = {1000, 900, 1500, 1400, 1600, 1550, 20000};
		holds_of(&h, lv, end, 7, 20001);
		assert_int_equal(jm_find_steps(&h, 0, 20001, st, 8), 1);
		assert_int_equal(st[0].level, 4);
		assert_int_equal(st[0].hold_from, 1600);
		jm_holds_release(&h);
	}
	/* Levels each held about as long: more than max_steps of them is -1. */
	{
		int lv[12];
		for (int i = 0; i < 12; i++)
			lv[i] = i + 1;
		struct jm_holds h;
		int64_t end[12];
		for (int i = 0; i < 12; i++)
			end[i] = 1000 * (i + 1);
		holds_of(&h, lv, end, 12, 12001);
		assert_int_equal(jm_find_steps(&h, 0, 12001, st, 8), -1);
		jm_holds_release(&h);
	}
}

/* Lays out intervals of a file [0, end) and returns phases as letters (r w s d) with the
 * step index of each interval after them. */
static int64_t layout_of(struct jm_step *st, int ns, int64_t end, int64_t iv, int64_t warmup,
                         char *phases, char *idx)
{
	int step_of[64];
	unsigned char ph[64];
	int short_step;
	int64_t n = jm_layout(0, end, iv, warmup, st, ns, step_of, ph, &short_step);

	for (int64_t i = 0; i < n; i++) {
		phases[i] = "rwsd"[ph[i]];
		idx[i] = (char)('0' + step_of[i]);
	}
	phases[n > 0 ? n : 0] = idx[n > 0 ? n : 0] = '\0';
	return n < 0 ? -10 - short_step : n;
}

static void layout(void **state)
{
	char ph[64], ix[64];
	(void)state;
	/* One step held from 2.2 s (a ramp before it) to 9.7 s; the file ends at 10.3 s: the
	 * remainder (0.3 s) joins the last interval; with no warm-up every interval counts. */
	{
		struct jm_step st[1] = {{.level = 6, .hold_from = 2200, .hold_to = 9700}};
		assert_int_equal(layout_of(st, 1, 10300, 1000, 0, ph, ix), 10);
		assert_string_equal(ph, "ssssssssss");
		assert_int_equal(st[0].steady_first, 0);
		assert_int_equal(st[0].steady_last, 9);
		/* A 3 s warm-up: the ramp's intervals are ramp-up, the next warm-up. */
		assert_int_equal(layout_of(st, 1, 10300, 1000, 3000, ph, ix), 10);
		assert_string_equal(ph, "rrwsssssss");
		assert_int_equal(st[0].steady_first, 3);
		/* A remainder of half an interval or more stays its own. */
		assert_int_equal(layout_of(st, 1, 10500, 1000, 0, ph, ix), 11);
		assert_int_equal(jm_interval_of(0, 1000, 10, 10299), 9);
	}
	/* A sweep: each step starts at the interval in which the previous one's hold ended. */
	{
		struct jm_step st[3] = {{.level = 10, .hold_from = 0, .hold_to = 5500},
		                        {.level = 20, .hold_from = 6200, .hold_to = 11000},
		                        {.level = 30, .hold_from = 12500, .hold_to = 18000}};
		assert_int_equal(layout_of(st, 3, 18001, 1000, 1000, ph, ix), 18);
		assert_string_equal(ix, "000001111112222222");
		assert_string_equal(ph, "wssssrsssssrssssss");
		assert_int_equal(st[1].first, 5);
		assert_int_equal(st[1].last, 10);
		assert_int_equal(st[2].steady_first, 12);
	}
	/* An interval too long for a step: which step. */
	{
		struct jm_step st[2] = {{.level = 2, .hold_from = 0, .hold_to = 3000},
		                        {.level = 4, .hold_from = 3000, .hold_to = 30000}};
		assert_int_equal(layout_of(st, 2, 30001, 10000, 0, ph, ix), -10);
	}
	/* The chosen interval: thirty in the shortest step. */
	{
		struct jm_step a[1] = {{.hold_from = 0, .hold_to = 7900}};
		struct jm_step b[2] = {{.hold_from = 0, .hold_to = 3600000},
		                       {.hold_from = 3600000, .hold_to = 3750000}};
		struct jm_step c[1] = {{.hold_from = 0, .hold_to = 300}};
		assert_int_equal(jm_auto_interval(a, 1), 200);
		assert_int_equal(jm_auto_interval(b, 2), 5000);
		assert_int_equal(jm_auto_interval(c, 1), 100);
		b[1].hold_to = 3900000;
		assert_int_equal(jm_auto_interval(b, 2), 10000);
	}
}

/* JMeter 2.13's Aggregate Report rules: the float percents and Math.round's ties. */
static void aggregate(void **state)
{
	struct jmagg a;
	struct jmagg_row r;
	(void)state;
	/* 90f / 100f is just under 0.9: 5 * p rounds to 4, where 0.9 would give 5. */
	assert_true(jmagg_percent(90) < 0.9);
	assert_true(jmagg_percent(99) > 0.99);
	{
		int64_t v[] = {1, 2, 3, 4, 5}, c[] = {1, 1, 1, 1, 1};
		assert_int_equal(jmagg_percent_point(v, c, 5, 5, jmagg_percent(90)), 4);
		assert_int_equal(jmagg_percent_point(v, c, 5, 5, 0.9), 5);
		assert_int_equal(jmagg_percent_point(v, c, 5, 5, 0.5), 3); /* 2.5 rounds up */
		assert_int_equal(jmagg_percent_point(v, c, 5, 5, 1.0), 5);
		assert_int_equal(jmagg_percent_point(v, c, 5, 5, 0.01), 1); /* target 0 */
	}
	/* 10 samples: 95f/100f * 10 = 9.4999... rounds to 9. */
	jmagg_init(&a, NULL);
	for (int i = 1; i <= 10; i++)
		assert_int_equal(jmagg_add(&a, i * 10, i == 3, 1000 + i, 1000 + i * 20), 0);
	assert_int_equal(jmagg_row(&a, &r), 0);
	assert_int_equal(r.samples, 10);
	assert_int_equal(r.errors, 1);
	assert_int_equal(r.average, 55); /* 55.0 */
	assert_int_equal(r.median, 50);
	assert_int_equal(r.p90, 90);
	assert_int_equal(r.p95, 90);
	assert_int_equal(r.p99, 100);
	assert_int_equal(r.min, 10);
	assert_int_equal(r.max, 100);
	assert_true(r.exact);
	/* 10 samples from 1001 to 1200: 50/s. */
	assert_true(fabs(r.rate_per_s - 10.0 / 199 * 1000) < 1e-9);
	jmagg_release(&a);
	/* The mean is cut, not rounded: (1 + 2) / 2 = 1.5 shows 1. */
	jmagg_init(&a, NULL);
	jmagg_add(&a, 1, 0, 0, 1);
	jmagg_add(&a, 2, 0, 0, 2);
	assert_int_equal(jmagg_row(&a, &r), 0);
	assert_int_equal(r.average, 1);
	jmagg_release(&a);
	/* Past the shared allowance the row keeps no percentiles, and says so. */
	{
		int64_t budget = 3;
		jmagg_init(&a, &budget);
		for (int i = 0; i < 5; i++)
			jmagg_add(&a, i, 0, 0, 10);
		assert_int_equal(jmagg_row(&a, &r), 0);
		assert_false(r.exact);
		assert_int_equal(r.samples, 5);
		assert_int_equal(r.max, 4);
		jmagg_release(&a);
	}
}

static void nmon_times(void **state)
{
	int64_t a, b;
	(void)state;
	setenv("TZ", "UTC", 1);
	assert_int_equal(nmon_parse_time("04:09:09", "01-DEC-2026", &a), 0);
	assert_int_equal(a, 1796098149000LL);
	assert_int_equal(nmon_parse_time("04:09:09", "01-dec-2026", &b), 0);
	assert_int_equal(a, b);
	/* Local time: the same wall-clock reading an hour later in Paris' winter. */
	setenv("TZ", "Europe/Paris", 1);
	assert_int_equal(nmon_parse_time("05:09:09", "01-DEC-2026", &b), 0);
	assert_int_equal(b, a);
	setenv("TZ", "UTC", 1);
	assert_int_equal(nmon_parse_time("24:00:00", "01-DEC-2026", &a), -1);
	assert_int_equal(nmon_parse_time("04:09", "01-DEC-2026", &a), -1);
	assert_int_equal(nmon_parse_time("04:09:09", "01-DIC-2026", &a), -1);
	assert_int_equal(nmon_parse_time("04:09:09", "01-DEC-2026x", &a), -1);
}

static void reader_lines(void **state)
{
	struct ireader r;
	char err[128], *l;
	size_t len;
	long no;
	const char *text = "one\r\ntwo\n\nlast-without-newline";
	(void)state;
	assert_int_equal(ird_open_mem(&r, text, strlen(text), 32, err, sizeof err), 0);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 1);
	assert_string_equal(l, "one");
	assert_int_equal(no, 1);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 1);
	assert_string_equal(l, "two");
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 1);
	assert_int_equal(len, 0);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 1);
	assert_string_equal(l, "last-without-newline");
	assert_int_equal(no, 4);
	assert_int_equal(r.last_nl, 0);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 0);
	ird_close(&r);
	/* A line over the cap is an error, not a truncation. */
	assert_int_equal(ird_open_mem(&r, "short\n0123456789012345678901234567890123456789\n", 47,
	                              32, err, sizeof err),
	                 0);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), 1);
	assert_int_equal(ird_next_line(&r, &l, &len, &no, err, sizeof err), -1);
	assert_int_equal(no, 2);
	assert_non_null(strstr(err, "longer than 32 bytes"));
	ird_close(&r);
}

/* The scenario text an import stores: each label's section keeps letters, digits, '_',
 * '-' and '.' and puts '_' for the rest (a UTF-8 character's every byte); the label itself
 * stands in the comment.  Two threads for 20 s, two labels. */
static void section_names(void **state)
{
	char jtl[128], db[128], err[512];
	struct jmeter_opts o = {.label = "jm", .connection = "keepalive", .interval_ms = 1000};
	struct jmeter_result res;
	sqlite3 *h;
	sqlite3_stmt *st;
	FILE *f;

	(void)state;
	snprintf(jtl, sizeof jtl, "%s/names.jtl", testdir);
	snprintf(db, sizeof db, "%s/names.db", testdir);
	f = fopen(jtl, "w");
	assert_non_null(f);
	fprintf(f, "timeStamp,elapsed,label,success,allThreads\n");
	for (int i = 0; i < 400; i++)
		fprintf(f, "%lld,%d,%s,true,2\n", 1700000000000LL + 50LL * i, 5 + i % 7,
		        i % 2 ? "GET v1.2/login" : "caf\xc3\xa9 1.0");
	fclose(f);
	o.path = jtl;
	o.db_path = db;
	assert_int_equal(jmeter_import(&o, &res, err, sizeof err), 0);
	jmeter_result_release(&res);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT scenario FROM runs", -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	const char *sc = (const char *)sqlite3_column_text(st, 0);
	assert_non_null(strstr(sc, "\n[request.GET_v1.2_login]\n; label \"GET v1.2/login\": "));
	assert_non_null(strstr(sc, "\n[request.caf___1.0]\n; label \"caf\xc3\xa9 1.0\": "));
	sqlite3_finalize(st);
	sqlite3_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(csv_header_any_order),
	    cmocka_unit_test(csv_default_layouts),
	    cmocka_unit_test(csv_errors),
	    cmocka_unit_test(xml_samples),
	    cmocka_unit_test(xml_errors),
	    cmocka_unit_test(classes),
	    cmocka_unit_test(step_rule),
	    cmocka_unit_test(layout),
	    cmocka_unit_test(aggregate),
	    cmocka_unit_test(nmon_times),
	    cmocka_unit_test(reader_lines),
	    cmocka_unit_test(section_names),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
