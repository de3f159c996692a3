/* The GC log parser against the corpus in tests/data/gc: every figure asserted here is
 * one of MANIFEST.md / jdk17/MANIFEST.md (upstream assertions or "computed here"), in
 * our kinds (see gcparse.h), with the reconciliation spelled out where the upstream tool
 * counts differently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gctest.h"

/* |got - want| <= tol: totals of per-event values rounded to the microsecond. */
#define assert_near(got, want, tol)                                                                \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want), t_ = (long long)(tol);    \
		if (g_ < w_ - t_ || g_ > w_ + t_)                                                  \
			fail_msg("%s = %lld, want %lld +- %lld", #got, g_, w_, t_);                \
	} while (0)

/* jdk17/MANIFEST.md "Per-log figures": completed pauses per kind, total and maximum. */
static const struct jdk17_case {
	const char *file;
	int young, mixed, full, remark, cleanup, other, concurrent; /* concurrent: -1 = any */
	int64_t total_us, max_us; /* max 0: not given by the manifest */
} jdk17[] = {
    /* 133 = Young(Normal) 90 + Young(Concurrent Start) 14 + Remark 14 + Cleanup 14 + Full 1 */
    {"jdk17/leak-g1-gcstar.log", 104, 0, 1, 14, 14, 0, 14, 316806, 12618},
    {"jdk17/leak-g1-gc.log", 104, 0, 1, 14, 14, 0, 14, 316806, 12618},
    {"jdk17/leak-parallel-gcstar.log", 235, 0, 1, 0, 0, 0, 0, 496102, 16818},
    {"jdk17/leak-parallel-gc.log", 235, 0, 1, 0, 0, 0, 0, 496102, 16818},
    {"jdk17/leak-serial-gcstar.log", 170, 0, 1, 0, 0, 0, 0, 131983, 7581},
    {"jdk17/leak-serial-gc.log", 170, 0, 1, 0, 0, 0, 0, 131983, 7581},
    /* ZGC: 114 cycles (concurrent); Mark Start 115 + Relocate Start 114 (other), Mark End
     * 114 (remark): 2.166 + 1.905 + 0.461 = 4.532 ms; -Xlog:gc has no pause lines. */
    {"jdk17/leak-zgc-gcstar.log", 0, 0, 0, 114, 0, 229, 114, 4532, 0},
    {"jdk17/leak-zgc-gc.log", 0, 0, 0, 0, 0, 0, 114, 0, 0},
    /* Shenandoah: Final Mark 94 (remark); Init Mark 94 + Final Roots 40 + Init UR 54 +
     * Final UR 54 = 242 (other); 336 pauses, 12.490 ms. */
    {"jdk17/leak-shenandoah-gcstar.log", 0, 0, 0, 94, 0, 242, -1, 12490, 0},
    {"jdk17/leak-shenandoah-gc.log", 0, 0, 0, 94, 0, 242, -1, 12490, 0},
    /* 361 = Normal 251 + Concurrent Start 12 + Prepare Mixed 12 + Mixed 61 + Remark 12 +
     * Cleanup 12 + Full 1; max GC(4) 14.697 ms */
    {"jdk17/stable-g1-gcstar.log", 275, 61, 1, 12, 12, 0, 12, 895270, 14697},
    {"jdk17/stable-g1-gc.log", 275, 61, 1, 12, 12, 0, 12, 895270, 14697},
    {"jdk17/stable-parallel-gcstar.log", 225, 0, 9, 0, 0, 0, 0, 701679, 36266},
    {"jdk17/stable-parallel-gc.log", 225, 0, 9, 0, 0, 0, 0, 701679, 36266},
    {"jdk17/stable-serial-gcstar.log", 184, 0, 11, 0, 0, 0, 0, 361121, 28259},
    {"jdk17/stable-serial-gc.log", 184, 0, 11, 0, 0, 0, 0, 361121, 28259},
    {"jdk17/stable-zgc-gcstar.log", 0, 0, 0, 107, 0, 214, 107, 2669, 0},
    {"jdk17/stable-zgc-gc.log", 0, 0, 0, 0, 0, 0, 107, 0, 0},
    /* Final Mark 128; Init Mark 128 + Init UR 126 + Final UR 126 + Final Roots 2 = 382 */
    {"jdk17/stable-shenandoah-gcstar.log", 0, 0, 0, 128, 0, 382, -1, 29403, 0},
    {"jdk17/stable-shenandoah-gc.log", 0, 0, 0, 128, 0, 382, -1, 29403, 0},
    {"jdk17/killed-parallel-gcstar.log", 74, 0, 2, 0, 0, 0, 0, 264839, 0},
    /* 78 = Normal 46 + Concurrent Start 4 + Prepare Mixed 4 + Mixed 15 + Remark 4 +
     * Cleanup 4 + Full 1; max GC(2) 83.696 ms */
    {"jdk17/stable-g1-safepoint-decorations.log", 54, 15, 1, 4, 4, 0, 4, 249059, 83696},
    /* rotation: .0 Young 40 + Full 1; .1 Young(Normal) 29 + Concurrent Start 5 + Remark 5 +
     * Cleanup 5; live: Young(Normal) 6 + Concurrent Start 7 + Remark 7 + Cleanup 7 */
    {"jdk17/leak-g1-rotating.log.0", 40, 0, 1, 0, 0, 0, 0, -1, 0},
    {"jdk17/leak-g1-rotating.log.1", 34, 0, 0, 5, 5, 0, -1, -1, 0},
    {"jdk17/leak-g1-rotating.log", 13, 0, 0, 7, 7, 0, -1, -1, 0},
};

static void jdk17_counts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof jdk17 / sizeof jdk17[0]; i++) {
		const struct jdk17_case *c = &jdk17[i];
		struct gct g;
		gct_parse(&g, c->file);
		print_message("# %s: %zu events, %s\n", c->file, g.n, g.format);
		assert_int_equal(gct_count(&g, GCP_YOUNG), c->young);
		assert_int_equal(gct_count(&g, GCP_MIXED), c->mixed);
		assert_int_equal(gct_count(&g, GCP_FULL), c->full);
		assert_int_equal(gct_count(&g, GCP_REMARK), c->remark);
		assert_int_equal(gct_count(&g, GCP_CLEANUP), c->cleanup);
		assert_int_equal(gct_count(&g, GCP_OTHER), c->other);
		if (c->concurrent >= 0)
			assert_int_equal(gct_count(&g, GCP_CONCURRENT), c->concurrent);
		if (c->total_us >= 0)
			assert_int_equal(gct_pause_total(&g), c->total_us);
		if (c->max_us)
			assert_int_equal(gct_pause_max(&g), c->max_us);
		assert_int_equal(g.st.unparsed, 0);
		assert_true(strncmp(g.format, "unified/", 8) == 0);
		gct_free(&g);
	}
}

/* The -gc.log and -gcstar.log of one run: same ids, pauses and heap figures; and the
 * -gc.log anchored at the manifest's JVM start lands on the gcstar wall times (+-1 ms:
 * time and uptime decorations are rounded separately). */
static void jdk17_pairs_agree(void **state)
{
	static const struct {
		const char *run;
		int64_t anchor; /* epoch ms of the manifest's anchor */
	} runs[] = {{"leak-g1", 1796001727218LL},         {"leak-parallel", 1796001727226LL},
	            {"leak-serial", 1796001787362LL},     {"leak-zgc", 1796001787375LL},
	            {"leak-shenandoah", 1796001847493LL}, {"stable-g1", 1796001847721LL},
	            {"stable-parallel", 1796001907681LL}, {"stable-serial", 1796001907886LL},
	            {"stable-zgc", 1796001967900LL},      {"stable-shenandoah", 1796001968085LL}};
	(void)state;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		char a[128], b[128];
		snprintf(a, sizeof a, "jdk17/%s-gc.log", runs[r].run);
		snprintf(b, sizeof b, "jdk17/%s-gcstar.log", runs[r].run);
		const char *fa[] = {a, NULL}, *fb[] = {b, NULL};
		struct gct x, y;
		gct_parse_anchored(&x, runs[r].anchor, fa);
		gct_parse_anchored(&y, GCP_NONE, fb);
		size_t j = 0;
		for (size_t i = 0; i < x.n; i++) {
			/* -Xlog:gc lacks ZGC's phase lines: match each event to the next equal one
			 */
			while (j < y.n &&
			       (y.ev[j].kind != x.ev[i].kind || y.ev[j].gc_id != x.ev[i].gc_id))
				j++;
			assert_true(j < y.n);
			assert_int_equal(x.ev[i].pause_us, y.ev[j].pause_us);
			assert_int_equal(x.ev[i].conc_us, y.ev[j].conc_us);
			assert_int_equal(x.ev[i].heap_before_kb, y.ev[j].heap_before_kb);
			assert_int_equal(x.ev[i].heap_after_kb, y.ev[j].heap_after_kb);
			assert_int_equal(x.ev[i].uptime_ms, y.ev[j].uptime_ms);
			assert_near(x.ev[i].t_ms, y.ev[j].t_ms, 1);
			j++;
		}
		gct_free(&x);
		gct_free(&y);
	}
}

/* gc* adds per-generation figures: Parallel's PSYoungGen/ParOldGen, G1 regions x 1M. */
static void jdk17_generations(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "jdk17/leak-parallel-gcstar.log");
	/* GC(5) PSYoungGen: 37312K(37376K)->5088K(37376K), ParOldGen: 16K(87552K)->104K(87552K),
	 * Metaspace: 135K(384K)->135K(384K), Pause Young 36M->5M(122M) 1.243ms */
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].gc_id == 5) {
			assert_int_equal(g.ev[i].young_before_kb, 37312);
			assert_int_equal(g.ev[i].young_after_kb, 5088);
			assert_int_equal(g.ev[i].young_total_kb, 37376);
			assert_int_equal(g.ev[i].old_after_kb, 104);
			assert_int_equal(g.ev[i].meta_total_kb, 384);
			assert_int_equal(g.ev[i].heap_before_kb, 36 * 1024);
			assert_int_equal(g.ev[i].pause_us, 1243);
			assert_string_equal(g.ev[i].cause, "Allocation Failure");
		}
	gct_free(&g);
	gct_parse(&g, "jdk17/leak-g1-gcstar.log");
	/* GC(3) Eden regions: 72->0(71), Survivor regions: 4->5(10) with 1M regions */
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].gc_id == 3) {
			assert_int_equal(g.ev[i].young_before_kb, 76 * 1024);
			assert_int_equal(g.ev[i].young_after_kb, 5 * 1024);
			assert_string_equal(g.ev[i].name, "Pause Young (Normal)");
			assert_string_equal(g.ev[i].cause, "G1 Evacuation Pause");
		}
	gct_free(&g);
}

/* Safepoint records (JDK 17 `Safepoint "..."`): 78, Total sum 252.142 ms (max 83.724),
 * never part of the pause total; decorations utctime,uptimemillis,pid,tid: uptime
 * 3..15202 ms, GC ids 0..73, wall = utctime. */
static void jdk17_safepoints(void **state)
{
	struct gct g;
	int64_t sum = 0, max = 0, idmax = 0;
	(void)state;
	gct_parse(&g, "jdk17/stable-g1-safepoint-decorations.log");
	assert_int_equal(gct_count(&g, GCP_SAFEPOINT), 78);
	for (size_t i = 0; i < g.n; i++) {
		if (g.ev[i].kind == GCP_SAFEPOINT) {
			sum += g.ev[i].pause_us;
			max = g.ev[i].pause_us > max ? g.ev[i].pause_us : max;
		} else if (g.ev[i].gc_id > idmax) {
			idmax = g.ev[i].gc_id;
		}
		assert_true(g.ev[i].t_ms != GCP_NONE);
		assert_near(g.ev[i].t_ms - g.ev[i].uptime_ms, 1796002461527LL, 1);
	}
	assert_near(sum, 252142, 39); /* 78 values rounded to the µs */
	assert_near(max, 83724, 1);
	assert_int_equal(idmax, 73);
	assert_int_equal(gct_pause_total(&g), 249059);
	gct_free(&g);
}

/* The rotated set read in order: 41 + 44 + 27 completed pauses, GC ids 0..99. */
static void jdk17_rotating_set(void **state)
{
	static const char *const files[] = {"jdk17/leak-g1-rotating.log.0",
	                                    "jdk17/leak-g1-rotating.log.1",
	                                    "jdk17/leak-g1-rotating.log", NULL};
	struct gct g;
	size_t pauses = 0;
	(void)state;
	gct_parse_anchored(&g, GCP_NONE, files);
	for (size_t i = 0; i < g.n; i++)
		pauses += g.ev[i].kind != GCP_CONCURRENT && g.ev[i].kind != GCP_SAFEPOINT;
	assert_int_equal(pauses, 41 + 44 + 27);
	assert_int_equal(g.ev[g.n - 1].gc_id, 99);
	assert_int_equal(g.st.unparsed, 0);
	gct_free(&g);
}

/* A: Sun 1.4.2 plain -verbose:gc, GCViewer testNoFullGC: 12 events, the first six. */
static void sun142(void **state)
{
	static const int64_t want[6][5] = {
	    {0, 511, 180, 1984, 9567},     {691, 433, 233, 1984, 5687},
	    {1030, 745, 242, 1984, 4343},  {1378, 753, 452, 1984, 9443},
	    {2499, 964, 690, 1984, 10806}, {2831, 1202, 856, 1984, 12260}};
	struct gct g;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_4_2NoFullGC.txt");
	assert_int_equal(g.n, 12);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(g.ev[i].uptime_ms, want[i][0]);
		assert_int_equal(g.ev[i].heap_before_kb, want[i][1]);
		assert_int_equal(g.ev[i].heap_after_kb, want[i][2]);
		assert_int_equal(g.ev[i].heap_total_kb, want[i][3]);
		assert_int_equal(g.ev[i].pause_us, want[i][4]);
	}
	gct_free(&g);
}

/* A: Parallel with tenuring (3-line records), uptime-only and date-stamped. */
static void parallel_tenuring(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "gctoolkit__ps.cause.tenuring.details.v17051.log");
	assert_int_equal(gct_count(&g, GCP_YOUNG), 90); /* gctoolkit: 90 PSYoungGen */
	assert_int_equal(gct_count(&g, GCP_FULL), 4);   /* and 4 Full */
	assert_int_equal(gct_pause_total(&g), 1011510 + 3933168);
	assert_int_equal(gct_pause_max(&g), 1526177);
	assert_int_equal(g.ev[0].uptime_ms, 6561);
	assert_int_equal(g.ev[g.n - 1].uptime_ms, 38697);
	assert_string_equal(g.format, "jdk8/parallel");
	gct_free(&g);
	gct_parse(&g, "gctoolkit__ps.dates.cause.tenuring.details.v17051.log");
	assert_int_equal(gct_count(&g, GCP_YOUNG), 95);
	assert_int_equal(gct_count(&g, GCP_FULL), 3);
	assert_int_equal(gct_pause_total(&g), 960142 + 4528149);
	assert_int_equal(gct_pause_max(&g), 2411520);
	/* 2014-09-11T07:37:08.511-0100: 25.224: the first event, negative zone */
	assert_int_equal(g.ev[0].t_ms, 1410424628511LL);
	assert_int_equal(g.ev[0].uptime_ms, 25224);
	assert_int_equal(g.ev[0].heap_before_kb, 66048);
	assert_int_equal(g.ev[0].young_after_kb, 9007);
	assert_int_equal(g.ev[0].pause_us, 6244);
	assert_string_equal(g.ev[0].cause, "Allocation Failure");
	gct_free(&g);
}

/* B: CMS 1.6 with concurrent mode failures.  GCViewer's size 41 counts a concurrent
 * phase's start and end records; we emit one event per finished phase: 30 events + 11
 * start records.  Heap used min 80841 / max 209896; allocated 249088 / young 118016 /
 * tenured 131072 / perm 21248; 2 full GCs (concurrent mode failure) with max after 31297. */
static void cms16(void **state)
{
	struct gct g;
	int64_t hmin = INT64_MAX, hmax = 0, full_max = 0;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_6_0CMS.txt");
	assert_int_equal(g.n + 11, 41);
	assert_int_equal(gct_count(&g, GCP_FULL), 2);
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 11);
	for (size_t i = 0; i < g.n; i++) {
		const struct gcp_event *e = &g.ev[i];
		if (e->heap_before_kb == GCP_NONE)
			continue;
		hmin = e->heap_after_kb < hmin ? e->heap_after_kb : hmin;
		hmax = e->heap_before_kb > hmax ? e->heap_before_kb : hmax;
		assert_int_equal(e->heap_total_kb, 249088);
		if (e->young_total_kb != GCP_NONE)
			assert_int_equal(e->young_total_kb, 118016);
		if (e->old_total_kb != GCP_NONE)
			assert_int_equal(e->old_total_kb, 131072);
		if (e->meta_total_kb != GCP_NONE)
			assert_int_equal(e->meta_total_kb, 21248);
		if (e->kind == GCP_FULL && e->heap_after_kb > full_max)
			full_max = e->heap_after_kb;
	}
	assert_int_equal(hmax, 209896);
	assert_true(hmin <= 80841);
	assert_int_equal(full_max, 31297);
	assert_int_equal(g.st.unparsed, 0);
	gct_free(&g);
}

/* B: 1.7.0_51 PrintGCApplicationStoppedTime: size 14 = our 9 events + 5 start records;
 * 2 app-stopped (safepoint) records; event 0 the initial mark, 0.0002081 s; GCViewer's
 * total pause 0.0015562 s = the stopped times (0.0003502 + 0.0011523) plus the young GC
 * nested in the remark (0.0000537), which it counts apart. */
static void cms_stopped(void **state)
{
	struct gct g;
	int64_t stopped = 0, nested = 0;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_7_0_51_CMS_PrintApplStoppedTime.txt");
	assert_int_equal(g.n + 5, 14);
	assert_int_equal(gct_count(&g, GCP_SAFEPOINT), 2);
	assert_int_equal(g.ev[0].kind, GCP_OTHER);
	assert_string_equal(g.ev[0].name, "CMS-initial-mark");
	assert_int_equal(g.ev[0].pause_us, 208);
	assert_int_equal(g.ev[1].kind, GCP_SAFEPOINT);
	assert_int_equal(g.ev[1].pause_us, 350);
	for (size_t i = 0; i < g.n; i++) {
		if (g.ev[i].kind == GCP_SAFEPOINT)
			stopped += g.ev[i].pause_us;
		if (g.ev[i].kind == GCP_YOUNG)
			nested += g.ev[i].pause_us;
	}
	assert_near(stopped + nested, 1556, 1);
	gct_free(&g);
}

/* B: PrintGCID: size 18 = 14 events + 4 start records; event 0 ParNew 0.0106548 s, heap
 * before 8678 KB; concurrent phases keep their cycle's id #2 between young GCs #3, #4. */
static void cms_gcid(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_8_0CmsPrintGcId.txt");
	assert_int_equal(g.n + 4, 18);
	assert_int_equal(g.ev[0].pause_us, 10655);
	assert_int_equal(g.ev[0].heap_before_kb, 8678);
	assert_int_equal(g.ev[0].gc_id, 0);
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].kind == GCP_CONCURRENT)
			assert_int_equal(g.ev[i].gc_id, 2);
	gct_free(&g);
}

/* B: gctoolkit 1.7.0_cms.log: 603 ParNew, 13 initial marks, 13 remarks, 13 each of
 * five concurrent phases; the 629 STW events sum to 8.381684 s. */
static void cms17(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "gctoolkit__1.7.0_cms.log");
	assert_int_equal(gct_count(&g, GCP_YOUNG), 603);
	assert_int_equal(gct_count(&g, GCP_OTHER), 13);
	assert_int_equal(gct_count(&g, GCP_REMARK), 13);
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 5 * 13);
	assert_int_equal(gct_pause_total(&g), 8381684);
	gct_free(&g);
}

/* C: JDK 8 G1 with PrintAdaptiveSizePolicy: size 10 = 4 pauses + 3 phases x 2 records;
 * heap used after the cycle max 31949 KB (31.2M). */
static void g1_jdk8(void **state)
{
	struct gct g;
	int64_t after_max = 0;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_8_0G1_ConcurrentCycle.txt");
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 3);
	assert_int_equal(g.n - 3 + 2 * 3, 10);
	assert_int_equal(gct_count(&g, GCP_REMARK), 1);
	assert_int_equal(gct_count(&g, GCP_CLEANUP), 1);
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].heap_after_kb != GCP_NONE && g.ev[i].heap_after_kb > after_max &&
		    g.ev[i].uptime_ms > 302)
			after_max = g.ev[i].heap_after_kb;
	assert_int_equal(after_max, 31949);
	assert_int_equal(g.ev[0].pause_us, 11559);
	assert_int_equal(g.ev[0].heap_total_kb, 103 * 1024);
	assert_int_equal(g.st.unparsed, 0);
	gct_free(&g);
}

/* C: JDK 7 G1 with a concurrent record written into a pause header: size 3 = 2 pauses + 1
 * start record; max pause 0.28031200 s; max freed 700416 KB. */
static void g1_jdk7_interleaved(void **state)
{
	struct gct g;
	(void)state;
	gct_parse(&g, "gcviewer__SampleSun1_7_0G1_DateStamp_Detailed-mixedLine2.txt");
	assert_int_equal(g.n, 2);
	assert_int_equal(gct_pause_max(&g), 280312);
	assert_int_equal(g.ev[1].heap_before_kb - g.ev[1].heap_after_kb, 700416);
	assert_string_equal(g.ev[1].name, "GC pause (young) (initial-mark)");
	gct_free(&g);
}

/* D: unified G1 / CMS defaults, GCViewer's per-event table. */
static void ujl_defaults(void **state)
{
	static const struct {
		size_t idx; /* index among our stop-the-world events */
		enum gcp_kind kind;
		int64_t pause, b, a, t;
	} g1[] = {{0, GCP_YOUNG, 6529, 14336, 12288, 131072},
	          {1, GCP_YOUNG, 6187, 81920, 81920, 131072},
	          {4, GCP_REMARK, 837, 123904, 123904, 131072},
	          {7, GCP_FULL, 14918, 131072, 8192, 28672},
	          {8, GCP_CLEANUP, 1, 9216, 9216, 28672},
	          {9, GCP_MIXED, 2790, 29696, 28672, 125952}},
	  cms[] = {{0, GCP_YOUNG, 8822, 41984, 38912, 153600},
	           {1, GCP_OTHER, 136, 62464, 62464, 153600},
	           {4, GCP_REMARK, 859, 112640, 112640, 153600},
	           {5, GCP_FULL, 9775, 128000, 31744, 153600}};
	struct gct g;
	struct gcp_event stw[32];
	size_t n = 0;
	(void)state;
	gct_parse(&g, "gcviewer__sample-ujl-g1-gc-defaults.txt");
	for (size_t i = 0; i < g.n && n < 32; i++)
		if (g.ev[i].kind != GCP_CONCURRENT)
			stw[n++] = g.ev[i];
	assert_int_equal(n, 10); /* GCViewer: 12 GC pauses incl. 3 To-space exhausted, 1 full */
	for (size_t i = 0; i < sizeof g1 / sizeof g1[0]; i++) {
		assert_int_equal(stw[g1[i].idx].kind, g1[i].kind);
		assert_int_equal(stw[g1[i].idx].pause_us, g1[i].pause);
		assert_int_equal(stw[g1[i].idx].heap_before_kb, g1[i].b);
		assert_int_equal(stw[g1[i].idx].heap_after_kb, g1[i].a);
		assert_int_equal(stw[g1[i].idx].heap_total_kb, g1[i].t);
	}
	assert_int_equal(gct_pause_total(&g), 38150);
	gct_free(&g);
	n = 0;
	gct_parse(&g, "gcviewer__sample-ujl-cms-gc-defaults.txt");
	for (size_t i = 0; i < g.n && n < 32; i++)
		if (g.ev[i].kind != GCP_CONCURRENT)
			stw[n++] = g.ev[i];
	assert_int_equal(n, 6);        /* GCViewer: 5 GC pauses + 1 full */
	assert_int_equal(g.n + 5, 16); /* size 16: 5 concurrent phases print a start line too */
	for (size_t i = 0; i < sizeof cms / sizeof cms[0]; i++) {
		assert_int_equal(stw[cms[i].idx].kind, cms[i].kind);
		assert_int_equal(stw[cms[i].idx].pause_us, cms[i].pause);
		assert_int_equal(stw[cms[i].idx].heap_before_kb, cms[i].b);
		assert_int_equal(stw[cms[i].idx].heap_after_kb, cms[i].a);
		assert_int_equal(stw[cms[i].idx].heap_total_kb, cms[i].t);
	}
	gct_free(&g);
}

/* E: Shenandoah JDK 11 (4 pauses, 3.137 ms; size 11 = 4 + 7 concurrent) and the 8u332
 * backport (8 pauses 197.536 ms incl. Degenerated 184.489; 12 concurrent; max heap
 * capacity 4061184 KB). */
static void shenandoah(void **state)
{
	static const struct {
		const char *name;
		int64_t us;
	} conc[] = {{"Concurrent reset", 432},
	            {"Concurrent marking (process weakrefs) (unload classes)", 3064},
	            {"Concurrent precleaning", 148},
	            {"Concurrent evacuation", 1711},
	            {"Concurrent update references", 2384}};
	struct gct g;
	int64_t cap = 0;
	(void)state;
	gct_parse(&g, "gcviewer__Sample-ujl-shenandoah-jdk11.txt");
	assert_int_equal(g.n, 11);
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 7);
	assert_int_equal(gct_pause_total(&g), 3137);
	for (size_t k = 0; k < sizeof conc / sizeof conc[0]; k++) {
		int found = 0;
		for (size_t i = 0; i < g.n; i++)
			if (!strcmp(g.ev[i].name, conc[k].name)) {
				assert_int_equal(g.ev[i].conc_us, conc[k].us);
				found = 1;
			}
		assert_true(found);
	}
	gct_free(&g);
	gct_parse(&g, "gcviewer__SampleOpenJdk1_8_0-332.txt");
	assert_int_equal(g.n, 20);
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 12);
	assert_int_equal(gct_count(&g, GCP_FULL), 0);
	assert_int_equal(gct_pause_total(&g), 197536);
	assert_int_equal(gct_pause_max(&g), 184489);
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].heap_total_kb != GCP_NONE && g.ev[i].heap_total_kb > cap)
			cap = g.ev[i].heap_total_kb;
	assert_int_equal(cap, 4061184);
	assert_int_equal(g.st.unparsed, 0);
	assert_string_equal(g.format, "jdk8/shenandoah");
	gct_free(&g);
}

/* F: ZGC single-generation with decimal commas, and generational ZGC. */
static void zgc(void **state)
{
	static const int64_t want[5][2] = {{108544, 90112},
	                                   {212992, 167936},
	                                   {20279296, 20697088},
	                                   {514048, 733184},
	                                   {10366976, 5140480}};
	struct gct g;
	(void)state;
	gct_parse(&g, "gcviewer__sample-ujl-zgc-gc-default.txt");
	assert_int_equal(g.n, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(g.ev[i].heap_before_kb, want[i][0]);
		assert_int_equal(g.ev[i].heap_after_kb, want[i][1]);
	}
	assert_int_equal(g.ev[1].uptime_ms, 2048); /* [2,048s] */
	assert_string_equal(g.ev[4].cause, "System.gc()");
	gct_free(&g);
	gct_parse(&g, "garbagecat__dataset271.txt");
	assert_int_equal(gct_pause_total(&g), 31); /* 0.009 + 0.006 + 0.005 + 0.005 + 0.006 ms */
	assert_int_equal(gct_count(&g, GCP_CONCURRENT), 1);
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].kind == GCP_CONCURRENT) {
			assert_int_equal(g.ev[i].heap_before_kb,
			                 30720); /* maxima of the upstream test */
			assert_int_equal(g.ev[i].heap_after_kb, 26624);
			assert_int_equal(g.ev[i].conc_us, 36000); /* 0.036s */
		}
	assert_string_equal(g.format, "unified/zgc-generational");
	gct_free(&g);
	gct_parse(&g, "garbagecat__dataset278.txt");
	/* y Mark Start 0.234 ms @10:20:45.260, Mark End 0.147 @10:21:00.687, Relocate Start
	 * 0.039 @10:21:05.303 (+0200) */
	static const int64_t pz[3][2] = {
	    {234, 1702369245260LL}, {147, 1702369260687LL}, {39, 1702369265303LL}};
	size_t k = 0;
	for (size_t i = 0; i < g.n; i++)
		if (g.ev[i].kind != GCP_CONCURRENT && g.ev[i].kind != GCP_SAFEPOINT) {
			assert_true(k < 3);
			assert_int_equal(g.ev[i].pause_us, pz[k][0]);
			assert_int_equal(g.ev[i].t_ms, pz[k][1]);
			k++;
		}
	assert_int_equal(k, 3);
	gct_free(&g);
}

/* Failed collections carry the failure after their cause (gcp_failed): G1 `To-space
 * exhausted` (JDK 9+ line before the pause; 3 in the G1 sample, on GC(11), (12), (13)),
 * JDK 21's `(Evacuation Failure: ...)` group, JDK 8 G1 `(to-space exhausted)`, CMS
 * `(concurrent mode failure)` (the 2 full GCs of the CMS 1.6 sample) and the 33
 * `To-space exhausted` lines of the generated G1 OutOfMemoryError run. */
static void failed(void **state)
{
	struct gct g;
	size_t n = 0;
	(void)state;
	gct_parse(&g, "gcviewer__sample-ujl-g1-gc-defaults.txt");
	for (size_t i = 0; i < g.n; i++) {
		if (!gcp_failed(&g.ev[i]))
			continue;
		assert_int_equal(g.ev[i].gc_id, 11 + (int64_t)n++);
		assert_int_equal(g.ev[i].kind, GCP_YOUNG);
		assert_string_equal(g.ev[i].cause, "G1 Evacuation Pause; to-space exhausted");
	}
	assert_int_equal(n, 3);
	gct_free(&g);

	gct_parse(&g, "gcviewer__SampleSun1_6_0CMS.txt");
	n = 0;
	for (size_t i = 0; i < g.n; i++)
		if (gcp_failed(&g.ev[i])) {
			n++;
			assert_int_equal(g.ev[i].kind, GCP_FULL);
			assert_string_equal(g.ev[i].cause, "concurrent mode failure");
		}
	assert_int_equal(n, 2);
	gct_free(&g);

	gct_parse(&g, "gen/oom-g1-gc.log");
	n = 0;
	for (size_t i = 0; i < g.n; i++)
		n += gcp_failed(&g.ev[i]);
	assert_int_equal(n, 33); /* grep -c 'To-space exhausted' gen/oom-g1-gc.log */
	gct_free(&g);

	char err[128];
	memset(&g, 0, sizeof g);
	struct gcparse *p = gcp_new(gct_collect, NULL, &g, err, sizeof err);
	assert_non_null(p);
	const char *lines[] = {
	    "[5.1s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) (Evacuation "
	    "Failure: Allocation) 90M->92M(96M) 5.000ms",
	    "2024-01-01T00:00:01.000+0000: 1.000: [GC pause (G1 Evacuation Pause) (young) "
	    "(to-space exhausted), 0.0123000 secs]",
	    "   [Eden: 10.0M(10.0M)->0.0B(4096.0K) Survivors: 1024.0K->0.0B Heap: "
	    "90.0M(96.0M)->93.0M(96.0M)]",
	    " [Times: user=0.01 sys=0.00, real=0.01 secs] ",
	};
	gcp_line(p, lines[0], strlen(lines[0]));
	gcp_flush(p);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.ev[0].cause, "G1 Evacuation Pause; Evacuation Failure");
	assert_true(gcp_failed(&g.ev[0]));
	gcp_free(p);
	gct_free(&g);

	memset(&g, 0, sizeof g);
	p = gcp_new(gct_collect, NULL, &g, err, sizeof err);
	assert_non_null(p);
	for (size_t i = 1; i < sizeof lines / sizeof lines[0]; i++)
		gcp_line(p, lines[i], strlen(lines[i]));
	gcp_flush(p);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.ev[0].cause, "G1 Evacuation Pause; to-space exhausted");
	assert_int_equal(g.ev[0].heap_after_kb, 93 * 1024);
	gcp_free(p);
	gct_free(&g);
}

/* H: the rotated JDK 8 series (71, 93, 93, 92, 92, 89 ParNew; 3 CMS cycles in Part1;
 * uptimes without overlap) and the truncated bbvc.log.32.current. */
static void rotated_series(void **state)
{
	static const struct {
		int young;
		int64_t first, last; /* uptime ms of the first and last young GC */
	} part[6] = {{71, 1053, 434135},    {93, 436981, 692450},   {93, 695673, 944698},
	             {92, 949295, 1205030}, {92, 1207818, 1469084}, {89, 1471865, 1751531}};
	struct gct g;
	(void)state;
	for (int i = 0; i < 6; i++) {
		char f[128];
		int64_t first = -1, last = -1;
		snprintf(f, sizeof f, "gcviewer__SampleSun1_8_0Series-Part%d.txt", i + 1);
		gct_parse(&g, f);
		assert_int_equal(gct_count(&g, GCP_YOUNG), part[i].young);
		assert_int_equal(gct_count(&g, GCP_REMARK), i == 0 ? 3 : 0);
		for (size_t k = 0; k < g.n; k++) {
			if (first < 0)
				first = g.ev[k].uptime_ms;
			last = g.ev[k].uptime_ms > last ? g.ev[k].uptime_ms : last;
		}
		assert_int_equal(first, part[i].first);
		assert_int_equal(last, part[i].last);
		assert_int_equal(g.st.unparsed, 0);
		gct_free(&g);
	}
	gct_parse(&g, "gcviewer__SampleSun1_8_0Series-Part7.txt");
	assert_int_equal(g.n, 0);
	gct_free(&g);

	gct_parse(&g, "gctoolkit__bbvc.log.32.current");
	assert_int_equal(gct_count(&g, GCP_YOUNG), 183);
	assert_int_equal(gct_count(&g, GCP_FULL), 177); /* the 178th is cut off */
	assert_int_equal(g.st.incomplete, 1);
	assert_int_equal(gct_count(&g, GCP_SAFEPOINT), 767);
	int64_t young = 0, full = 0, stop = 0, fmax = 0;
	for (size_t i = 0; i < g.n; i++) {
		const struct gcp_event *e = &g.ev[i];
		if (e->kind == GCP_YOUNG)
			young += e->pause_us;
		else if (e->kind == GCP_FULL)
			full += e->pause_us, fmax = e->pause_us > fmax ? e->pause_us : fmax;
		else if (e->kind == GCP_SAFEPOINT)
			stop += e->pause_us;
	}
	assert_near(young, 13984756, 92);
	assert_near(full, 510527336, 89);
	assert_near(fmax, 11463822, 1);
	assert_near(stop, 578080398, 384);
	gct_free(&g);
}

/* Robustness: binary garbage, over-long lines, lines cut anywhere: counted, never fatal. */
static void garbage(void **state)
{
	struct gct g;
	char err[128];
	static char big[GCP_LINE_MAX + 10];
	(void)state;
	memset(&g, 0, sizeof g);
	struct gcparse *p = gcp_new(gct_collect, NULL, &g, err, sizeof err);
	assert_non_null(p);
	const char bin[] = "\x7f"
	                   "ELF\x02\x01\x01\0\0\0[GC\0\xff\xfe";
	gcp_line(p, bin, sizeof bin - 1);
	memset(big, 'x', sizeof big);
	gcp_line(p, big, sizeof big);
	const char *cut_unified = "[0.1s][info][gc] GC(1) Pause Young (Normal) 1M->";
	const char *cut_legacy = "0.5: [GC [ParNew: 1K->";
	gcp_line(p, cut_unified, strlen(cut_unified));
	gcp_line(p, cut_legacy, strlen(cut_legacy));
	gcp_flush(p);
	assert_int_equal(gcp_stats_of(p)->binary, 1);
	assert_int_equal(gcp_stats_of(p)->too_long, 1);
	assert_int_equal(gcp_stats_of(p)->incomplete, 1);
	assert_int_equal(gcp_stats_of(p)->unparsed, 4);
	assert_int_equal(g.n, 0);
	gcp_free(p);
	gct_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(jdk17_counts),
	    cmocka_unit_test(jdk17_pairs_agree),
	    cmocka_unit_test(jdk17_generations),
	    cmocka_unit_test(jdk17_safepoints),
	    cmocka_unit_test(jdk17_rotating_set),
	    cmocka_unit_test(sun142),
	    cmocka_unit_test(parallel_tenuring),
	    cmocka_unit_test(cms16),
	    cmocka_unit_test(cms_stopped),
	    cmocka_unit_test(cms_gcid),
	    cmocka_unit_test(cms17),
	    cmocka_unit_test(g1_jdk8),
	    cmocka_unit_test(g1_jdk7_interleaved),
	    cmocka_unit_test(ujl_defaults),
	    cmocka_unit_test(shenandoah),
	    cmocka_unit_test(zgc),
	    cmocka_unit_test(failed),
	    cmocka_unit_test(rotated_series),
	    cmocka_unit_test(garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
