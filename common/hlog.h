/*
 * hlog — HdrHistogram interval logs (.hlog, format 1.2/1.3, and 1.01's EndTimestamp column):
 * a reader that returns one interval at a time and a writer that HdrHistogram tools read.
 *
 *   #[Histogram log format version 1.3]                       comments start with '#'
 *   #[StartTime: 1441812279.474 (seconds since epoch), ...]
 *   #[BaseTime: 1441812279.474 (seconds since epoch)]         optional
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   [Tag=NAME,]START,LENGTH,MAX,HISTFAAAA...                   seconds, 3 decimals; base64 V2
 *
 * Timestamps: with a BaseTime line, START is relative to it.  Otherwise the first interval
 * decides for the whole file, as the Java and JS readers do: a START more than a year before
 * StartTime is relative to StartTime, anything else is absolute (epoch seconds).  The reader
 * returns absolute epoch milliseconds.
 *
 * Reader: hlog_open() (or hlog_open_stream() on a FILE the caller owns), hlog_next() until it
 * returns 0, hlog_close().  An interval is a caller's struct (HLOG_INTERVAL_INIT) that
 * hlog_next() refills, releasing the histogram of the previous call; the caller ends with
 * hlog_interval_release().  Errors come back in err as `FILE:LINE: what is wrong` (opening:
 * `cannot open 'FILE': reason`); the caller prints them.  After an error the reader is only
 * good for hlog_close().  Lines are capped at HLOG_LINE_MAX bytes, tags at HLOG_TAG_MAX - 1.
 *
 * Writer: hlog_writer_init() writes the header lines (StartTime and a BaseTime equal to it,
 * so readers never have to guess), hlog_write() one interval line per histogram with the
 * start relative to StartTime and the max column = hdr_max / max_ratio.
 *
 * Neither side is thread-safe; each reader or writer belongs to one thread.
 */
#ifndef SOAK_HLOG_H
#define SOAK_HLOG_H

#include <stdint.h>
#include <stdio.h>

#include "hdr.h"

#define HLOG_LINE_MAX (1 << 20) /* bytes in one line, newline excluded */
#define HLOG_TAG_MAX  128       /* bytes of a tag name, NUL included */
#define HLOG_NAME_MAX 512       /* bytes of the file name kept for messages */

struct hlog_reader {
	FILE *f;                  /* the log */
	int owns_f;               /* 1 when hlog_close() must fclose(f) */
	char name[HLOG_NAME_MAX]; /* file name as given, for messages (truncated if longer) */
	long line;                /* number of the last line read, 1-based; 0 before any */
	char *buf;                /* the current line, NUL-terminated; owned */
	size_t cap;               /* bytes allocated for buf (at most 2 * HLOG_LINE_MAX) */
	int has_start;            /* a StartTime line was seen */
	int64_t start_ms;         /* StartTime, epoch ms (valid when has_start) */
	int has_base;             /* the timestamp base is known: a BaseTime line, or decided
	                           * by the first interval line */
	int64_t base_ms;          /* added to every START (0: absolute timestamps) */
	int end_timestamps;       /* the legend names EndTimestamp: column 2 is an end time */
	char version[16];         /* "1.2" from the format-version line; "" when absent */
};

struct hlog_interval {
	char tag[HLOG_TAG_MAX]; /* the Tag= name; "" for an untagged line */
	int64_t start_ms;       /* absolute start, epoch ms */
	int64_t length_ms;      /* interval length, ms */
	double max_column;      /* the Interval_Max column as written (max / unit ratio) */
	long line;              /* line of the file it came from */
	struct hdr hist;        /* the decoded histogram in its own layout; owned, released by
	                         * the next hlog_next() or by hlog_interval_release() */
};

#define HLOG_INTERVAL_INIT                                                                         \
	{                                                                                          \
		.hist = {.max_index = -1 }                                                         \
	}

/* Opens path for reading; err gets `cannot open 'PATH': reason`. */
int hlog_open(struct hlog_reader *r, const char *path, char *err, size_t errlen);
/* Reads from f, which stays the caller's; name is used in messages. */
int hlog_open_stream(struct hlog_reader *r, FILE *f, const char *name, char *err, size_t errlen);
/* Next interval: 1 with *iv filled, 0 at the end of the file, -1 on an error (err). */
int hlog_next(struct hlog_reader *r, struct hlog_interval *iv, char *err, size_t errlen);
/* Frees the reader's buffer and closes the file if it owns it; a zeroed reader is fine. */
void hlog_close(struct hlog_reader *r);
/* Releases the interval's histogram; the struct may then be reused. */
void hlog_interval_release(struct hlog_interval *iv);

struct hlog_writer {
	FILE *f;          /* where lines go; the caller's */
	int64_t start_ms; /* StartTime = BaseTime, epoch ms: interval starts are relative to it */
	double max_ratio; /* max column = hdr_max / max_ratio (1e6: ns -> ms; 1e3: µs -> ms) */
};

/* Writes the header: `#[comment]` when comment is non-NULL, the format version (1.3),
 * StartTime, BaseTime and the legend line. */
int hlog_writer_init(struct hlog_writer *w, FILE *f, int64_t start_ms, double max_ratio,
                     const char *comment, char *err, size_t errlen);
/* Writes one interval line; tag NULL or "" for untagged (a tag may not contain commas,
 * blanks or line breaks); start_ms absolute, not before StartTime. */
int hlog_write(struct hlog_writer *w, const char *tag, int64_t start_ms, int64_t length_ms,
               const struct hdr *h, char *err, size_t errlen);

#endif
