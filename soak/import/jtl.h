/*
 * jtl — JMeter's result files (JTL), read one top-level sample at a time in bounded memory,
 * whatever their size:
 *   - CSV with a header row: columns by name (timeStamp, elapsed, label, responseCode,
 *     responseMessage, threadName, success, bytes, grpThreads, allThreads, Latency,
 *     Connect, URL, Hostname, SampleCount, ...) in any order and any subset holding at
 *     least timeStamp, elapsed and success or responseCode; other columns are ignored.
 *     The delimiter is ',' or, when the header has a tab and no comma, a tab.  Quoted
 *     fields (with "" inside) may hold delimiters and line breaks.
 *   - CSV without a header: JMeter 2.13's default columns (timeStamp, elapsed, label,
 *     responseCode, responseMessage, threadName, dataType, success, bytes, grpThreads,
 *     allThreads, Latency; 12 fields), or the default of JMeter 3.1 to 5 (17 fields, with
 *     failureMessage, sentBytes, URL, IdleTime and Connect).
 *   - XML (`<testResults>` of `<httpSample .../>` and `<sample .../>` elements, attributes
 *     t lt ct ts s lb rc rm tn by ng na hn sc): only top-level samples count, as in JMeter's
 *     own listeners; nested sub-samples (a transaction's children, redirects, embedded
 *     resources) are parts of their parent.  Entities and character references in
 *     attribute values are decoded; text, comments and CDATA are skipped unread.
 * Times are JMeter's: timeStamp in epoch milliseconds (a formatted timeStamp is refused
 * with the property to set), elapsed, Latency and Connect in milliseconds.
 *
 * Errors are `what is wrong` in err with the sample's line in *line; a sample standing for
 * several (SampleCount > 1, JMeter's statistical mode) is refused, not miscounted.
 */
#ifndef SOAK_JTL_H
#define SOAK_JTL_H

#include <stdint.h>

#include "ireader.h"
#include "engine/stats.h"

#define JTL_MAX_FIELD 4096 /* longest label, message, URL kept; longer ones are cut */

enum jtl_format { JTL_CSV, JTL_XML };

/* One top-level sample.  Strings are NUL-terminated and valid until the next jtl_next. */
struct jtl_sample {
	int64_t ts;          /* timeStamp, epoch ms */
	int64_t elapsed;     /* ms */
	int64_t latency;     /* time to first byte, ms; -1 when the file has none */
	int64_t bytes;       /* response bytes; -1 when none */
	int all_threads;     /* active threads of all groups; -1 when none */
	int grp_threads;     /* active threads of the sample's group; -1 when none */
	int success;         /* JMeter's verdict */
	const char *label;   /* sampler or transaction name; "" when none */
	const char *code;    /* responseCode: "200", "Non HTTP response code: ...", or "" */
	const char *message; /* responseMessage, or "" */
	const char *url;     /* URL, or "" */
	const char *host;    /* Hostname of the load generator, or "" */
	long line;           /* line where the sample starts */
};

struct jtl_reader;

/* Reads the first bytes of r to tell the format, then samples from the start. */
int jtl_open(struct jtl_reader **out, struct ireader *r, char *err, size_t errlen, long *line);
void jtl_free(struct jtl_reader *j);
enum jtl_format jtl_format(const struct jtl_reader *j);
/* Whether the file says how many threads were active (allThreads or grpThreads). */
int jtl_has_threads(const struct jtl_reader *j);
/* Starts again at the first sample (the reader's input is rewound). */
int jtl_rewind(struct jtl_reader *j, char *err, size_t errlen);
/* The next top-level sample: 1, 0 at the end, -1 with err and *line. */
int jtl_next(struct jtl_reader *j, struct jtl_sample *s, char *err, size_t errlen, long *line);

/* soak's error class of a failed sample (s->success == 0), as the engine would have named
 * it: 4xx, 5xx, other answered statuses (a failed assertion: body_mismatch), and JMeter's
 * "Non HTTP response code: EXCEPTION" by the exception and message (ConnectException:
 * connect_refused, SocketTimeoutException: timeout, UnknownHostException: dns, ...).
 * *answered is 1 when the server answered (a numeric code): its latency is a response's. */
enum err_class jtl_classify(const struct jtl_sample *s, int *answered);

#endif
