/*
 * gcparse — a streaming parser for JVM garbage-collection logs.
 *
 * The caller feeds whole lines (without the newline) in file order; the parser keeps the
 * state that multi-line and interleaved records need (JDK 8 G1 blocks, 3-line Parallel
 * tenuring records, CMS records with a concurrent phase printed in their middle, ParNew
 * continuation lines starting with `:`, unified-logging per-generation lines that precede
 * their summary line) and hands each complete event to the caller's callback, in the order
 * the events complete.  Formats: HotSpot JDK 1.4-8 `-verbose:gc` / `-XX:+PrintGCDetails`
 * (Serial, Parallel, CMS, G1, Shenandoah 8u; date stamps, PrintGCID, PrintReferenceGC,
 * PrintAdaptiveSizePolicy, PrintGCApplicationStoppedTime) and JDK 9+ unified logging
 * (`-Xlog:gc`, `-Xlog:gc*`, any decorations; G1, Parallel, Serial, CMS, Shenandoah, ZGC
 * single and generational), and IBM J9 / Eclipse OpenJ9 `-verbose:gc` XML: the older
 * `<af>` / `<sys>` blocks (Java 5-6) and the newer `<exclusive-start>` .. `<exclusive-end>`
 * blocks with `<cycle-start>`, `<gc-start>` / `<gc-end>` and `<mem-info>` (J9 2.6 / IBM
 * Java 7.1 and later, OpenJ9), one element per line as the JVM writes them (an element
 * split over lines is joined, up to GCP_J9_TAG_MAX).
 *
 * Kinds (gc_events.kind), per collector:
 *   young       Serial/Parallel/ParNew `[GC` and `Pause Young`; G1 `(young)` pauses,
 *               including initial-mark / `Pause Young (Concurrent Start)` /
 *               `(Prepare Mixed)` and JDK 9 `Pause Initial Mark` (G1 marks during a young
 *               pause); a young GC nested in a CMS remark (CMSScavengeBeforeRemark)
 *   mixed       G1 `(mixed)`, JDK 6 `(partial)`, `Pause Young (Mixed)`, `Pause Mixed`
 *   full        `[Full GC`, `Pause Full`, and a young `[GC` that escalated into an
 *               old-generation collection (`[CMS:`, `[Tenured:` inside; GCViewer's rule)
 *   remark      CMS remark, G1 remark, Shenandoah `Pause Final Mark`, ZGC `Pause Mark End`
 *   cleanup     G1 cleanup pause
 *   concurrent  CMS `CMS-concurrent-*` phases, G1 `concurrent-*-end` / `Concurrent Mark
 *               Cycle`, Shenandoah `Concurrent *`, unified CMS `Concurrent *` (one event
 *               per finished phase: start records are not events), ZGC cycles
 *               (`Garbage Collection`, `Major/Minor Collection`: they carry the heap
 *               figures; their STW pauses are separate events)
 *   other       CMS initial mark, Shenandoah Init Mark / Init and Final Update Refs /
 *               Final Roots / Degenerated GC, ZGC Mark Start / Relocate Start
 *   safepoint   `Total time for which application threads were stopped` and JDK 17
 *               `Safepoint "..."` lines: whole safepoints, which overlap GC pauses, so they
 *               are never added to pause totals
 * J9: one event per stop-the-world block: young for a nursery / scavenge / partial GC
 * collection, full for a global one (allocation failure, System.gc(), or the final phase
 * of a concurrent global cycle: cause "concurrent collection"), other for a block that only
 * starts a concurrent cycle.  The pause is the exclusive-access time (`durationms` of
 * `<exclusive-end>`; older releases: the block's `<time totalms>`).  Sizes are bytes in the
 * log, free and total: used = total - free, rounded to KB.  Heap before is the first
 * collection's `<gc-start>` figures, after the last `<gc-end>`'s (older releases: the
 * snapshot before `<gc>` and the one inside it; the one after `</gc>` includes the
 * satisfied allocation and is used only when `<gc>` has none).  young = nursery (balanced:
 * eden), old = tenure.  gc_id is the cycle's id (older: `totalid`).  J9 timestamps carry
 * no zone: they are local time of the parsing process (TZ applies); uptime is counted from
 * `<initialized timestamp>` when the log has it.
 *
 * Failed collections: a G1 pause with `To-space exhausted` (JDK 9+) / `(to-space
 * exhausted)` (JDK 8) / `(Evacuation Failure...)` (JDK 21+), a ParNew `(promotion
 * failed)`, a CMS `(concurrent mode failure)` and a J9 scavenge that percolated to a global
 * collection carry the failure after their cause ("G1 Evacuation Pause; to-space
 * exhausted"), so it survives storage in a text column; gcp_failed() recognises it.
 *
 * Times: t_ms is the wall-clock start of the event: the date stamp / time decoration when
 * the log has one, else jvm_start + uptime (gcp_set_jvm_start), else GCP_NONE.
 * Unified summary lines are written when an event ends, so their duration is subtracted.
 *
 * Robustness: a line longer than GCP_LINE_MAX, binary garbage, or a record that never
 * completes is counted (gcp_stats_of) and never fatal.  After gcp_new() the parser
 * allocates nothing per line.  A parser belongs to one thread at a time.
 * Every public name carries the prefix gcp_; the parser is a struct gcparse.
 */
#ifndef SOAK_GCPARSE_H
#define SOAK_GCPARSE_H

#include <stddef.h>
#include <stdint.h>

#define GCP_NONE          INT64_MIN /* an absent figure or time */
#define GCP_LINE_MAX      65536     /* longer lines are counted as unparsed */
#define GCP_CAUSE_MAX     64        /* causes and names are cut to this (with the NUL) */
#define GCP_KEEP_UNPARSED 5         /* first unparsed lines kept in the stats */
#define GCP_KEEP_LEN      200       /* of each, at most this many bytes */

enum gcp_kind {
	GCP_YOUNG,
	GCP_MIXED,
	GCP_FULL,
	GCP_REMARK,
	GCP_CLEANUP,
	GCP_CONCURRENT,
	GCP_OTHER,
	GCP_SAFEPOINT,
	GCP_KIND_COUNT
};

enum gcp_family { GCP_FAM_UNKNOWN, GCP_FAM_JDK8, GCP_FAM_UNIFIED, GCP_FAM_J9 };

enum gcp_collector {
	GCP_COL_UNKNOWN,
	GCP_COL_SERIAL,
	GCP_COL_PARALLEL,
	GCP_COL_CMS,
	GCP_COL_G1,
	GCP_COL_SHENANDOAH,
	GCP_COL_ZGC,
	GCP_COL_ZGC_GEN,
	GCP_COL_J9_GENCON, /* J9 policies, from the header's gcPolicy or the events */
	GCP_COL_J9_OPTTHRUPUT,
	GCP_COL_J9_OPTAVGPAUSE,
	GCP_COL_J9_BALANCED,
	GCP_COL_J9_METRONOME
};

/* One event.  Sizes are KB; every figure the log does not give is GCP_NONE. */
struct gcp_event {
	int64_t t_ms;              /* wall-clock start, epoch ms UTC, or GCP_NONE */
	int64_t uptime_ms;         /* JVM uptime at the start, or GCP_NONE */
	int64_t gc_id;             /* GC(N) / #N, or GCP_NONE */
	enum gcp_kind kind;        /* see the table above */
	char cause[GCP_CAUSE_MAX]; /* "Allocation Failure", "System.gc()", ... or "" */
	char name[GCP_CAUSE_MAX];  /* what the log calls it: "Pause Young", "ParNew", ... */
	int64_t pause_us;          /* stop-the-world time; 0 for concurrent phases */
	int64_t conc_us;           /* duration of a concurrent phase, or GCP_NONE */
	int64_t heap_before_kb, heap_after_kb, heap_total_kb;    /* whole heap */
	int64_t young_before_kb, young_after_kb, young_total_kb; /* young generation */
	int64_t old_before_kb, old_after_kb, old_total_kb;       /* old generation */
	int64_t meta_before_kb, meta_after_kb, meta_total_kb;    /* metaspace / perm gen */
};

/* Counters since gcp_new(); they only grow. */
struct gcp_stats {
	int64_t lines;          /* lines fed */
	int64_t bytes;          /* bytes fed (newlines included, as 1 each) */
	int64_t events;         /* events emitted */
	int64_t unparsed;       /* lines that could not be placed (incl. the three below) */
	int64_t too_long;       /* lines over GCP_LINE_MAX */
	int64_t binary;         /* lines holding NUL or other control bytes */
	int64_t incomplete;     /* records started but never finished (dropped) */
	int64_t last_uptime_ms; /* largest uptime seen, or GCP_NONE */
	int64_t last_t_ms;      /* wall time of the last stamped line, or GCP_NONE */
	int kept;               /* number of entries in keep[] */
	char keep[GCP_KEEP_UNPARSED][GCP_KEEP_LEN]; /* the first unparsed lines, cut */
};

struct gcparse;

/* Receives each complete event; the pointer is valid during the call only. */
typedef void (*gcp_event_fn)(const struct gcp_event *ev, void *arg);
/* Receives each unplaced line (cut to GCP_KEEP_LEN) with its reason; may be NULL. */
typedef void (*gcp_unparsed_fn)(const char *line, const char *reason, void *arg);

/* A parser, or NULL with err filled (a pattern that does not compile, out of memory).
 * on_event must not be NULL; on_unparsed may be. */
struct gcparse *gcp_new(gcp_event_fn on_event, gcp_unparsed_fn on_unparsed, void *arg, char *err,
                        size_t errlen);
/* Frees the parser; NULL is a no-op.  Pending records are dropped: call flush first. */
void gcp_free(struct gcparse *p);
/* Anchor for logs without wall-clock stamps: epoch ms of the JVM start (or GCP_NONE). */
void gcp_set_jvm_start(struct gcparse *p, int64_t start_ms);
int64_t gcp_jvm_start(const struct gcparse *p);
/* Feeds one line, without its newline (a trailing '\r' is ignored).  len may exceed
 * GCP_LINE_MAX: the line is then counted, not parsed.  The line need not be NUL-ended. */
void gcp_line(struct gcparse *p, const char *line, size_t len);
/* Feeds a buffer of whole lines ('\n'-separated; a last line without '\n' is fed too). */
void gcp_buf(struct gcparse *p, const char *buf, size_t len);
/* Emits what is pending and complete enough (a record waiting for its `[Times:` line),
 * counts an unfinished record as incomplete.  Call at end of file / before stopping. */
void gcp_flush(struct gcparse *p);
/* Forgets the multi-line state (not the counters, format or anchor): for a new JVM. */
void gcp_reset(struct gcparse *p);

const struct gcp_stats *gcp_stats_of(const struct gcparse *p);
enum gcp_family gcp_family_of(const struct gcparse *p);
enum gcp_collector gcp_collector_of(const struct gcparse *p);
/* "unified/g1", "jdk8/cms", "j9/gencon", "unknown" ...: family/collector. */
const char *gcp_format(const struct gcparse *p, char *buf, size_t len);

/* "young", "mixed", ..., "safepoint"; gcp_kind_parse returns -1 when unknown. */
const char *gcp_kind_name(enum gcp_kind k);
int gcp_kind_parse(const char *s);
const char *gcp_family_name(enum gcp_family f);
const char *gcp_collector_name(enum gcp_collector c);
/* Clears an event: every figure GCP_NONE, strings empty, pause 0. */
void gcp_event_clear(struct gcp_event *ev);
/* 1 when the event's cause names a failed collection (see "Failed collections" above);
 * works on causes read back from the database too. */
int gcp_failed(const struct gcp_event *ev);

#endif
