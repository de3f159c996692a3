/*
 * gcparse_int — what the three files of the gcparse module share (not a public header).
 *
 * gcparse.c owns the parser object, the line feeder, the patterns and the number/time
 * helpers; gcparse_unified.c reads JDK 9+ unified logging; gcparse_legacy.c reads the
 * JDK 1.4-8 formats; gcparse_j9.c reads IBM J9 / OpenJ9 verbose GC XML.  Everything here
 * is private to those files.
 */
#ifndef SOAK_GCPARSE_INT_H
#define SOAK_GCPARSE_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gcparse.h"

/* The compiled patterns, by index into the table in gcparse.c. */
enum gcp_pat {
	/* unified logging */
	PU_PAUSE,     /* [Y: ]Pause <Kind> (sub) (cause) [a->b(c)] N.NNNms */
	PU_CONC,      /* [Y: ]Concurrent <name> [a->b(c)] N.NNNms */
	PU_ZCYCLE,    /* Garbage Collection (cause) aM(p%)->bM(q%) [N.NNNs] */
	PU_GEN,       /* PSYoungGen: a(c)->b(d) / ParOldGen / DefNew / Tenured / CMS */
	PU_META,      /* Metaspace: a(c)->b(d) */
	PU_REGIONS,   /* Eden regions: a->b(c) */
	PU_REGSIZE,   /* Heap Region Size: 1M */
	PU_ZCAP,      /* ZGC heap table row ` Capacity:  128M (100%) ...` */
	PU_SAFEPOINT, /* JDK 17 Safepoint "op", ... Total: N ns */
	PU_START,     /* a start line or another non-event message of a GC id */
	/* both families */
	PX_STOPPED, /* Total time for which application threads were stopped: X seconds */
	/* pre-unified */
	PL_CONC,   /* [stamps][CMS-concurrent-x: a/b secs] or [GC concurrent-x-end, t secs] */
	PL_NESTED, /* a young GC nested in a CMS remark (CMSScavengeBeforeRemark) */
	PL_G1HEAD, /* [GC pause (cause) (young|mixed|partial) */
	PL_YOUNG,  /* [ParNew: a->b(c) / DefNew / PSYoungGen */
	PL_OLD,    /* [CMS: / [Tenured: / [ParOldGen: / [PSOldGen: a->b(c) */
	PL_META,   /* [PSPermGen: / [CMS Perm : / [Perm : / [Metaspace: a->b(c) */
	PL_HEAP,   /* the first whole-heap a->b(c) or a(c) of the top-level text */
	PL_PAUSE,  /* the last `, t secs]` / `, t ms]` of the top-level text */
	PL_EDEN,   /* G1 [Eden: a(b)->c(d) Survivors: e->f Heap: g(h)->i(j)] */
	PL_NOISE,  /* lines that are known not to be events */
	/* IBM J9 / OpenJ9 XML */
	PJ_TAG,   /* `<name` or `</name` at the start of a line */
	PJ_ISO,   /* 2014-09-24T15:57:32.116 (local time, no zone) */
	PJ_CTIME, /* [Mon ]Mar 25 22:40:24 2010 (local time, older releases) */
	GCP_PAT_COUNT
};

#define GCP_REC_MAX    16384 /* text of one open pre-unified record; past it: incomplete */
#define GCP_J9_TAG_MAX 4096  /* one J9 XML element split over lines; past it: unparsed */
#define GCP_SLOTS      8     /* unified: per-GC-id detail slots kept at once */

/* Per-generation figures of one unified GC id, gathered from gc,heap lines that precede
 * the summary line. */
struct gcp_slot {
	int64_t gc_id;         /* owner, or GCP_NONE when free */
	int64_t young[3];      /* before, after, capacity KB (GCP_NONE when unknown) */
	int64_t old[3];        /* likewise for the old generation */
	int64_t meta[3];       /* likewise for metaspace */
	int64_t regions[5][3]; /* G1 eden, survivor, old, archive, humongous: b, a, cap */
	int64_t zcap_kb;       /* ZGC capacity at relocate end */
	int tospace;           /* G1 `To-space exhausted` was logged for this id */
};

/* J9 memory figures of one snapshot, in bytes (-1 when not given): the whole heap, the
 * nursery and the tenure area, each free and total. */
struct gcp_j9mem {
	int64_t heap[2];  /* free, total (newer releases' <mem-info>) */
	int64_t young[2]; /* <nursery .../> or <mem type="nursery"> (balanced: "eden") */
	int64_t old[2];   /* <tenured .../> or <mem type="tenure"> */
};

/* IBM J9 / OpenJ9 verbose GC: the block being read.  Newer releases bracket each
 * stop-the-world collection in <exclusive-start> .. <exclusive-end durationms>; older ones
 * in <af> / <sys> / <con event="collection"> .. </af> with a <gc> inside.  Both are read
 * element by element with this bounded state. */
struct gcp_j9 {
	int open;                /* what opened the block: 0 none, 1 exclusive-start (newer),
	                          * 2 af, 3 sys, 4 con (older) */
	int in_gc;               /* older: inside the block's <gc> element */
	int gc_seen;             /* older: a <gc> was seen (the block is a collection) */
	int cycles;              /* newer: cycle-start / gc-start seen in the block */
	int snap;                /* where <mem> / <nursery> / <tenured> lines go: 0 nowhere,
	                          * 1 before, 2 after the collection, 3 after the allocation */
	int have_before;         /* newer: the first gc-start's figures are kept (percolate) */
	int rank;                /* strength of the kind so far: 0 none, 1 other, 2 young, 3 full */
	int failed;              /* the block percolated / failed (marks the cause) */
	struct gcp_event ev;     /* the event gathered (times, id, kind, cause, name, pause) */
	struct gcp_j9mem mem[3]; /* before, after the collection, after the allocation */
	int64_t inner_pause_us;  /* older: <time totalms> / <timesms total> inside <gc> */
	int64_t init_ms;         /* <initialized timestamp>: the JVM start, or GCP_NONE */
	int64_t last_ms;         /* wall time of the last timestamp seen, or GCP_NONE */
	int tag_open;            /* an element is being gathered over several lines */
	size_t tagn;             /* bytes in tag */
	char tag[GCP_J9_TAG_MAX]; /* that element so far (lines joined with a space) */
};

/* Leading stamps of a line (both families). */
struct gcp_stamp {
	int64_t t_ms;      /* date stamp / time decoration, or GCP_NONE */
	int64_t uptime_ms; /* uptime stamp / decoration, or GCP_NONE */
	int64_t gc_id;     /* #N / GC(N), or GCP_NONE */
};

struct gcparse {
	gcp_event_fn on_event;        /* the caller's sink */
	gcp_unparsed_fn on_unparsed;  /* the caller's sink for unplaced lines, or NULL */
	void *arg;                    /* passed back to both */
	int64_t jvm_start_ms;         /* anchor for uptime-only logs, or GCP_NONE */
	enum gcp_family family;       /* detected from the first recognisable line */
	enum gcp_collector collector; /* detected from banners and event names */
	struct gcp_stats st;          /* counters */

	pcre2_code *re[GCP_PAT_COUNT]; /* compiled once in gcp_new */
	pcre2_match_data *md;          /* shared by every match: sized for the largest */
	int jit;                       /* patterns were JIT-compiled */

	/* unified logging */
	struct gcp_slot slot[GCP_SLOTS]; /* details waiting for their summary line */
	int64_t region_kb;               /* G1 region size, or GCP_NONE */

	/* pre-unified: one open record (header seen, closing bracket not yet) */
	int rec_open;               /* a record is being gathered */
	size_t rec_len;             /* bytes in rec */
	struct gcp_stamp rec_stamp; /* stamps of its first line */
	char rec[GCP_REC_MAX];      /* its text, embedded records removed */
	/* pre-unified: a finished G1 record waiting for its size line and `[Times:` */
	int pend;                 /* pend_ev is valid */
	struct gcp_event pend_ev; /* the event */
	int table;                /* inside a statistics table or the exit heap summary:
	                           * unstamped lines there are not events */
	int64_t last_end_ms;      /* end of the last event (for unstamped stopped lines) */
	int64_t last_end_up;      /* likewise in uptime */

	/* IBM J9 XML */
	struct gcp_j9 j9; /* the block being read */

	char scratch[GCP_LINE_MAX + 1]; /* a working copy of the current line */
	char top[GCP_REC_MAX];          /* top-level text of a record */
};

/* Number helpers: fixed-point decimals ('.' or ','), sizes to KB, ISO dates to epoch ms.
 * They return -1 when the text is not a number of that shape. */
int gcp_fixed(const char *s, size_t n, int scale, int64_t *out);
int gcp_size_kb(const char *s, size_t n, int64_t *kb);
int gcp_iso_ms(const char *s, size_t n, int64_t *ms);

/* Runs pattern `pat` over s[0..n) from `start`; returns the number of pairs or <= 0. */
int gcp_match(struct gcparse *p, enum gcp_pat pat, const char *s, size_t n, size_t start);
/* Group g of the last match: pointer and length (NULL when the group did not match). */
const char *gcp_group(struct gcparse *p, const char *s, int g, size_t *len);
/* A group as a size in KB / fixed-point number; GCP_NONE when absent or malformed. */
int64_t gcp_group_kb(struct gcparse *p, const char *s, int g);
int64_t gcp_group_fixed(struct gcparse *p, const char *s, int g, int scale);
/* Copies a group into dst (cut to dstlen - 1). */
void gcp_group_str(struct gcparse *p, const char *s, int g, char *dst, size_t dstlen);

/* Emission and bookkeeping. */
void gcp_emit(struct gcparse *p, struct gcp_event *ev);
void gcp_unparsed(struct gcparse *p, const char *line, size_t len, const char *reason);
void gcp_set_collector(struct gcparse *p, enum gcp_collector c);
/* Appends "; what" to ev->cause (a collection that failed: to-space exhausted, promotion
 * failed, ...), so the mark survives the database's cause column; gcp_failed() finds it. */
void gcp_mark_failed(struct gcp_event *ev, const char *what);
/* Fills ev->t_ms from uptime and the anchor when the log gave no wall time. */
void gcp_anchor(struct gcparse *p, struct gcp_event *ev);
void gcp_copy(char *dst, size_t dstlen, const char *s, size_t n);

/* The readers: 1 when the line was theirs (placed or counted), 0 when not. */
int gcp_unified_line(struct gcparse *p, const char *s, size_t n);
void gcp_legacy_line(struct gcparse *p, const char *s, size_t n);
void gcp_legacy_flush(struct gcparse *p);
void gcp_unified_reset(struct gcparse *p);
/* J9: whether a line opens J9 XML (to detect the family); reading one line; a block left
 * open at the end is counted incomplete; reset for a new JVM. */
int gcp_j9_starts(const char *s, size_t n);
void gcp_j9_line(struct gcparse *p, const char *s, size_t n);
void gcp_j9_flush(struct gcparse *p);
void gcp_j9_reset(struct gcparse *p);

#endif
