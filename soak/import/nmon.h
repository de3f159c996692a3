/*
 * nmon — an nmon recording (the spreadsheet format of `nmon -f`, `-F FILE`, `-t`/`-T`)
 * becomes collector samples, named as soak-procstat names them, so the report reads an
 * old study's host and application figures beside its runs:
 *   CPU_ALL  User% Sys% Wait% Idle% Steal%   -> cpu_user_pct cpu_sys_pct cpu_iowait_pct
 *                                               cpu_idle_pct cpu_steal_pct (% of all CPUs)
 *   MEM      MB: memtotal memfree cached buffers swaptotal swapfree (memavailable when
 *            the file has it)                -> mem_used_kb, mem_avail_kb (free + cached
 *                                               + buffers without memavailable),
 *                                               swap_used_kb
 *   NET      every interface's read and write KB/s, lo included
 *                                            -> net_rx_bps, net_tx_bps
 *   TOP      with a match pattern: %CPU %Usr %Sys ResSet of the processes whose command
 *            line (the UARG line of `nmon -T`, else TOP's command name) matches, summed
 *                                            -> cpu_pct user_pct sys_pct (100 = one core),
 *                                               rss_kb, procs
 * Times come from the ZZZZ lines (local time of the recording host: set TZ when the file
 * comes from another zone); a data line is placed by its snapshot tag (T0001 ...), so a
 * file sorted by `sort`, as nmon's own notes suggest, imports the same.  nmon lists only
 * processes above its CPU threshold in TOP: a snapshot where none matched gets cpu_pct 0
 * (the matched processes were idle) but no rss_kb or procs (their size is unknown then).
 *
 * Two passes in bounded memory: the first reads AAA, ZZZZ and UARG lines, the second the
 * data, handing each sample to a sink (nmon_db.h's writes them to a database).  Any
 * malformed line of these sections is FILE:LINE; the last line alone may be cut short
 * (nmon was stopped while writing) and is then skipped with a warning.  Other sections are
 * ignored.
 */
#ifndef SOAK_NMON_H
#define SOAK_NMON_H

#include <stddef.h>
#include <stdint.h>

#include "ireader.h"

#define NMON_MAX_SNAPSHOTS 1000000 /* a snapshot a second for over eleven days */

struct nmon_opts {
	const char *path;      /* the .nmon file (plain or gzip), as messages name it */
	const char *db_path;   /* the target database (nmon_import) */
	const char *source;    /* samples.source (nmon_import) */
	const char *match;     /* PCRE2 over process command lines; NULL: no TOP figures */
	const char *host_name; /* samples.host; NULL: the file's AAA,host */
};

struct nmon_result {
	int64_t snapshots; /* ZZZZ lines */
	int64_t samples;   /* rows written */
	int64_t first_ms, last_ms;
	int64_t matched;   /* snapshots where a matching process was listed */
	int top;           /* the file has a TOP section */
	char host[256];    /* samples.host used */
	char warning[300]; /* "FILE:LINE: ..." of a skipped last line, or "" */
};

/* Where the samples go: put() returns 0, or -1 with err (the reading stops). */
struct nmon_sink {
	int (*put)(void *ctx, const char *metric, int64_t t_ms, double value, char *err,
	           size_t errlen);
	void *ctx;
};

/* Reads the file in `in` (from its start); res->host is known before the first put.
 * Returns 0, -1 when the sink failed (its err) or memory ran out, -2 on bad input or
 * options; err holds "FILE:LINE: what is wrong". */
int nmon_read(struct ireader *in, const struct nmon_opts *o, const struct nmon_sink *sink,
              struct nmon_result *res, char *err, size_t errlen);

/* "HH:MM:SS" and "DD-MON-YYYY" in local time -> epoch ms; -1 when malformed. */
int nmon_parse_time(const char *hms, const char *date, int64_t *ms);

#endif
