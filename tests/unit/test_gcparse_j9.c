/* IBM J9 / OpenJ9 verbose GC XML: the real samples of GCViewer's test resources (figures
 * from GCViewer's own assertions, and sizes computed here from the bytes the file holds:
 * used = total - free, rounded to KB), the synthetic logs of tests/data/gc/j9/synth.sh
 * (figures printed by the generator from the numbers it wrote), time zones, elements split
 * over lines, CRLF, and broken input.  Run with TZ=UTC (set in main): J9 writes local time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "gctest.h"

#define KB(bytes) (((int64_t)(bytes) + 512) / 1024)
#define NONE      GCP_NONE

/* One sample: its single (or first) event, field by field. */
struct sample {
	const char *file;
	const char *format;
	size_t events;
	enum gcp_kind kind;
	int64_t pause_us_total;
	int64_t t_ms, uptime_ms, gc_id;
	const char *cause;
	int64_t before, after, total;    /* heap KB */
	int64_t ybefore, yafter, ytotal; /* nursery KB */
	int64_t obefore, oafter, ototal; /* tenure KB */
};

static void real_samples(void **state)
{
	/* Pauses: GCViewer's getPause() (TestDataReaderIBM_J9_R26/R27/R28, IBMJ9_5_0). */
	static const struct sample s[] = {
	    {"gcviewer__SampleIBMJ9_R27_SR1_full_header.txt", "j9/gencon", 3, GCP_YOUNG,
	     42303 + 41268 + 34961, 1411574252116, 3898, 4, "allocation failure",
	     KB(1073741824 - 804158480), KB(1073741824 - 912835672), KB(1073741824), KB(268435456),
	     KB(268435456 - 108677192), KB(268435456), KB(805306368 - 804158480),
	     KB(805306368 - 804158480), KB(805306368)},
	    {"j9/gcviewer__SampleIBMJ9_R28_af_global.txt", "j9/unknown", 1, GCP_FULL, 1255648,
	     1470754738343, NONE, 9873, "allocation failure", KB(6442450944 - 322121728),
	     KB(6442450944 - 4911161608), KB(6442450944), NONE, NONE, NONE,
	     KB(6442450944 - 322121728), KB(6442450944 - 4911161608), KB(6442450944)},
	    {"j9/gcviewer__SampleIBMJ9_R28_sys_global.txt", "j9/unknown", 1, GCP_FULL, 97756,
	     1451575380646, NONE, 184, "System.gc()", KB(536870912 - 385392536),
	     KB(536870912 - 455745752), KB(536870912), KB(134217728 - 14905080),
	     KB(134217728 - 77293000), KB(134217728), KB(402653184 - 370487456),
	     KB(402653184 - 378452752), KB(402653184)},
	    {"j9/gcviewer__SampleIBMJ9_R28_concurrent_collection.txt", "j9/unknown", 1, GCP_FULL,
	     1182375, 1470755696110, NONE, 11388, "concurrent collection",
	     KB(6442450944 - 12883968), KB(6442450944 - 5069413376), KB(6442450944), NONE, NONE,
	     NONE, KB(6442450944 - 12883968), KB(6442450944 - 5069413376), KB(6442450944)},
	    /* a concurrent cycle's start alone: a pause, no collection (GCViewer: no event) */
	    {"j9/gcviewer__SampleIBMJ9_R28_concurrentMinimal.txt", "j9/unknown", 1, GCP_OTHER, 809,
	     1470756946051, NONE, 13400, "", NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE},
	    {"j9/gcviewer__SampleIBMJ9_R26_GAFP1_global.txt", "j9/unknown", 1, GCP_FULL, 36392,
	     1376565351945, NONE, 125, "System.gc()", KB(514064384 - 428417552),
	     KB(514064384 - 479900360), KB(514064384), KB(111411200 - 29431656),
	     KB(111411200 - 80831520), KB(111411200), KB(402653184 - 398985896),
	     KB(402653184 - 399068840), KB(402653184)},
	    /* older form, CRLF line ends; after = the snapshot inside <gc> (GCViewer takes the
	     * one after the allocation: 40481192 free) */
	    {"j9/gcviewer__SampleIBMJ9_5_0af-global-200811_07.txt", "j9/unknown", 1, GCP_FULL,
	     35912, 1269556824000, NONE, 1, "allocation failure", KB(52428800 - 2621440),
	     KB(52428800 - 40481224), KB(52428800), NONE, NONE, NONE, KB(52428800 - 2621440),
	     KB(52428800 - 40481224), KB(52428800)},
	    {"j9/gcviewer__SampleIBMJ9_5_0af-global-20090417_AA.txt", "j9/optavgpause", 1, GCP_FULL,
	     837024, 1349610383000, NONE, 14, "allocation failure", KB(12884901888 - 4626919608),
	     KB(12884901888 - 11283782480), KB(12884901888), NONE, NONE, NONE,
	     KB(12884901888 - 4626919608), KB(12884901888 - 11283782480), KB(12884901888)},
	};
	(void)state;
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		struct gct g;
		const struct gcp_event *e;
		gct_parse(&g, s[i].file);
		print_message("# %s: %zu events, %s\n", s[i].file, g.n, g.format);
		assert_int_equal(g.n, s[i].events);
		assert_string_equal(g.format, s[i].format);
		assert_int_equal(g.st.unparsed, 0);
		assert_int_equal(g.st.incomplete, 0);
		assert_int_equal(gct_pause_total(&g), s[i].pause_us_total);
		e = &g.ev[0];
		assert_int_equal(e->kind, s[i].kind);
		assert_int_equal(e->t_ms, s[i].t_ms);
		assert_int_equal(e->uptime_ms, s[i].uptime_ms);
		assert_int_equal(e->gc_id, s[i].gc_id);
		assert_string_equal(e->cause, s[i].cause);
		assert_int_equal(e->heap_before_kb, s[i].before);
		assert_int_equal(e->heap_after_kb, s[i].after);
		assert_int_equal(e->heap_total_kb, s[i].total);
		assert_int_equal(e->young_before_kb, s[i].ybefore);
		assert_int_equal(e->young_after_kb, s[i].yafter);
		assert_int_equal(e->young_total_kb, s[i].ytotal);
		assert_int_equal(e->old_before_kb, s[i].obefore);
		assert_int_equal(e->old_after_kb, s[i].oafter);
		assert_int_equal(e->old_total_kb, s[i].ototal);
		assert_false(gcp_failed(e));
		gct_free(&g);
	}
}

/* The R27 sample's three scavenges 1.927 s and 3.982 s apart (GCViewer's timestamps). */
static void r27_times(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "gcviewer__SampleIBMJ9_R27_SR1_full_header.txt");
	assert_int_equal(g.n, 3);
	assert_int_equal(g.ev[1].t_ms - g.ev[0].t_ms, 1927);
	assert_int_equal(g.ev[2].t_ms - g.ev[0].t_ms, 3982);
	assert_int_equal(g.ev[2].heap_after_kb, KB(1073741824 - 909446776));
	gct_free(&g);
}

/* The generator's figures: events by kind, the pause sum (ms, 3 decimals), heap after GC
 * of the first and last collection, failed (percolated) collections.  (Their verdicts are
 * rows of test_gcanalysis's table.) */
static void synthetic(void **state)
{
	static const struct {
		const char *file;
		size_t young, full, other;
		int64_t pause_us, first_after, last_after;
		size_t failed;
		int64_t first_t;
	} s[] = {
	    {"j9/synthetic-old-stable.xml", 113, 7, 0, 4245613, 198656, 196608, 0, 1709632815000},
	    {"j9/synthetic-new-stable.xml", 120, 7, 6, 5554951, 228864, 227328, 0, 1709632815000},
	    {"j9/synthetic-new-exhaust.xml", 65, 21, 5, 9215443, 179200, 457856, 6, 1709632810000},
	};
	(void)state;
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		struct gct g;
		int64_t first = NONE, last = NONE;
		size_t failed = 0;
		gct_parse(&g, s[i].file);
		assert_string_equal(g.format, "j9/gencon");
		assert_int_equal(g.st.unparsed, 0);
		assert_int_equal(gct_count(&g, GCP_YOUNG), s[i].young);
		assert_int_equal(gct_count(&g, GCP_FULL), s[i].full);
		assert_int_equal(gct_count(&g, GCP_OTHER), s[i].other);
		assert_int_equal(g.n, s[i].young + s[i].full + s[i].other);
		assert_int_equal(gct_pause_total(&g), s[i].pause_us);
		assert_int_equal(g.ev[0].t_ms, s[i].first_t);
		for (size_t k = 0; k < g.n; k++) {
			failed += gcp_failed(&g.ev[k]);
			if (g.ev[k].heap_after_kb == NONE)
				continue;
			first = first == NONE ? g.ev[k].heap_after_kb : first;
			last = g.ev[k].heap_after_kb;
		}
		assert_int_equal(first, s[i].first_after);
		assert_int_equal(last, s[i].last_after);
		assert_int_equal(failed, s[i].failed);
		gct_free(&g);
	}
}

struct lines {
	struct gct g;
	struct gcparse *p;
};

static void feed(struct lines *l, const char *text)
{
	gcp_buf(l->p, text, strlen(text));
}

static void open_lines(struct lines *l)
{
	char err[128];
	memset(&l->g, 0, sizeof l->g);
	l->p = gcp_new(gct_collect, NULL, &l->g, err, sizeof err);
	assert_non_null(l->p);
}

static void close_lines(struct lines *l)
{
	gcp_free(l->p);
	gct_free(&l->g);
}

/* A scavenge block written by hand: CRLF, an element over three lines, no header. */
static const char block[] =
    "<exclusive-start id=\"2\" timestamp=\"2020-01-01T00:00:10.000\" intervalms=\"1.0\">\r\n"
    "</exclusive-start>\r\n"
    "<af-start id=\"3\" totalBytesRequested=\"64\" timestamp=\"2020-01-01T00:00:10.000\" />\r\n"
    "<cycle-start id=\"4\" type=\"scavenge\"\r\n"
    "   contextid=\"0\" timestamp=\"2020-01-01T00:00:10.000\"\r\n"
    "   intervalms=\"1.0\" />\r\n"
    "<gc-start id=\"5\" type=\"scavenge\" contextid=\"4\" "
    "timestamp=\"2020-01-01T00:00:10.000\">\r\n"
    "  <mem-info id=\"6\" free=\"0\" total=\"2097152\" percent=\"0\">\r\n"
    "    <mem type=\"nursery\" free=\"0\" total=\"1048576\" percent=\"0\" />\r\n"
    "    <mem type=\"tenure\" free=\"0\" total=\"1048576\" percent=\"0\" />\r\n"
    "  </mem-info>\r\n"
    "</gc-start>\r\n"
    "<gc-end id=\"8\" type=\"scavenge\" contextid=\"4\" durationms=\"1.5\" "
    "timestamp=\"2020-01-01T00:00:10.002\">\r\n"
    "  <mem-info id=\"9\" free=\"1048576\" total=\"2097152\" percent=\"50\">\r\n"
    "    <mem type=\"nursery\" free=\"1048576\" total=\"1048576\" percent=\"100\" />\r\n"
    "    <mem type=\"tenure\" free=\"0\" total=\"1048576\" percent=\"0\" />\r\n"
    "  </mem-info>\r\n"
    "</gc-end>\r\n"
    "<cycle-end id=\"10\" type=\"scavenge\" contextid=\"4\" timestamp=\"2020-01-01T00:00:10.002\" "
    "/>\r\n"
    "<exclusive-end id=\"13\" timestamp=\"2020-01-01T00:00:10.002\" durationms=\"2.250\" />\r\n";

static void by_hand(void **state)
{
	struct lines l;
	(void)state;
	open_lines(&l);
	feed(&l, block);
	assert_int_equal(l.g.n, 1);
	assert_int_equal(l.g.ev[0].kind, GCP_YOUNG);
	assert_int_equal(l.g.ev[0].gc_id, 4);
	assert_int_equal(l.g.ev[0].pause_us, 2250);
	assert_int_equal(l.g.ev[0].t_ms, 1577836810000); /* 2020-01-01T00:00:10Z */
	assert_int_equal(l.g.ev[0].heap_before_kb, 2048);
	assert_int_equal(l.g.ev[0].heap_after_kb, 1024);
	assert_int_equal(l.g.ev[0].young_after_kb, 0);
	assert_int_equal(l.g.ev[0].old_after_kb, 1024);
	assert_int_equal(gcp_stats_of(l.p)->unparsed, 0);
	close_lines(&l);

	/* J9 writes local time: the same log read in another zone moves by its offset. */
	setenv("TZ", "UTC-2", 1); /* POSIX: two hours east of UTC */
	tzset();
	open_lines(&l);
	feed(&l, block);
	assert_int_equal(l.g.ev[0].t_ms, 1577836810000 - 2 * 3600000);
	close_lines(&l);
	setenv("TZ", "UTC", 1);
	tzset();
}

/* Broken input is counted, never fatal, and never yields a half event. */
static void broken(void **state)
{
	struct lines l;
	char big[2000]; /* three lines of it pass the 4 KB an element may take */
	(void)state;

	/* a block cut at the end of the input */
	open_lines(&l);
	feed(&l, "<?xml version=\"1.0\" ?>\n<verbosegc version=\"x\">\n");
	feed(&l, "<exclusive-start id=\"2\" timestamp=\"2020-01-01T00:00:10.000\">\n");
	feed(&l, "<cycle-start id=\"4\" type=\"global\" contextid=\"0\" />\n");
	gcp_flush(l.p);
	assert_int_equal(l.g.n, 0);
	assert_int_equal(gcp_stats_of(l.p)->incomplete, 1);
	close_lines(&l);

	/* a block opened inside another, one without durationms, text that is not XML, an
	 * exclusive access that held no collection */
	open_lines(&l);
	feed(&l, "<exclusive-start id=\"2\" timestamp=\"2020-01-01T00:00:10.000\">\n"
	         "<cycle-start id=\"4\" type=\"global\" contextid=\"0\" />\n"
	         "<exclusive-start id=\"5\" timestamp=\"2020-01-01T00:00:11.000\">\n"
	         "<cycle-start id=\"6\" type=\"global\" contextid=\"0\" />\n"
	         "<exclusive-end id=\"7\" timestamp=\"2020-01-01T00:00:11.000\" />\n"
	         "Calculated native library name as: am_ibm_16\n"
	         "<exclusive-start id=\"8\" timestamp=\"2020-01-01T00:00:12.000\">\n"
	         "<exclusive-end id=\"9\" timestamp=\"2020-01-01T00:00:12.000\" durationms=\"0.1\" "
	         "/>\n");
	assert_int_equal(l.g.n, 0);
	assert_int_equal(gcp_stats_of(l.p)->incomplete, 2);
	assert_int_equal(gcp_stats_of(l.p)->unparsed, 3);
	close_lines(&l);

	/* an element that never closes, longer than the gathering buffer */
	open_lines(&l);
	feed(&l, "<exclusive-start id=\"2\"\n");
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	for (int i = 0; i < 3; i++)
		gcp_line(l.p, big, strlen(big));
	assert_int_equal(gcp_stats_of(l.p)->unparsed, 1);
	/* the parser is usable afterwards */
	feed(&l, block);
	assert_int_equal(l.g.n, 1);
	close_lines(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_samples), cmocka_unit_test(r27_times),
	    cmocka_unit_test(synthetic),    cmocka_unit_test(by_hand),
	    cmocka_unit_test(broken),
	};
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
