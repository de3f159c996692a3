/*
 * The nmon reader on hostile text: both passes over AAA, ZZZZ, UARG, CPU_ALL, MEM, NET and
 * TOP lines with a --match pattern, every sample it hands over checked for a known metric
 * and a finite value; an error must name the input and a line.
 */
// fuzz-sources: soak/import/ireader.c soak/import/nmon.c common/re.c common/buf.c
// fuzz-pkgs: zlib libpcre2-8
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/nmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int put(void *ctx, const char *metric, int64_t t_ms, double value, char *err,
	       size_t errlen)
{
	static const char *const known[] = {
		"cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_idle_pct", "cpu_steal_pct",
		"mem_used_kb",  "mem_avail_kb", "swap_used_kb",  "net_rx_bps",   "net_tx_bps",
		"cpu_pct",      "user_pct",     "sys_pct",       "rss_kb",       "procs"};
	size_t i;
	(void)ctx;
	(void)err;
	(void)errlen;
	for (i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(metric, known[i]) == 0)
			break;
	if (i == sizeof known / sizeof *known || isnan(value) || t_ms < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ireader r;
	struct nmon_opts o = {.path = "fuzz.nmon", .match = "java|soak-burner"};
	struct nmon_sink sink = {.put = put};
	struct nmon_result res;
	char err[512];

	if (ird_open_mem(&r, (const char *)data, size, 4096, err, sizeof err) < 0)
		return 0;
	if (nmon_read(&r, &o, &sink, &res, err, sizeof err) < 0 &&
	    strncmp(err, "fuzz.nmon", 9) != 0 && strncmp(err, "out of memory", 13) != 0)
		abort();
	ird_close(&r);
	return 0;
}
