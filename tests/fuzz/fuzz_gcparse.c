/*
 * The GC log parser on hostile text (HotSpot logs of every family and J9 / OpenJ9 XML).  The input is fed as a log (lines split on '\n')
 * to a fresh parser, then line by line to a parser that lives across inputs, so record
 * state left over from earlier inputs is exercised too.  Every emitted event must be sane: a known
 * kind, pauses and sizes not negative, concurrent phases without pauses; the counters
 * must add up.  Any crash, leak or abort is a bug.
 */
// fuzz-sources: common/gcparse.c common/gcparse_unified.c common/gcparse_legacy.c common/gcparse_j9.c
// fuzz-pkgs: libpcre2-8
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gcparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_event(const struct gcp_event *e, void *arg)
{
	size_t *n = arg;
	(*n)++;
	if ((unsigned)e->kind >= GCP_KIND_COUNT || e->pause_us < 0)
		abort();
	if (e->kind == GCP_CONCURRENT && e->pause_us != 0)
		abort();
	const int64_t sizes[] = {e->heap_before_kb, e->heap_after_kb, e->heap_total_kb,
				 e->young_before_kb, e->young_after_kb, e->young_total_kb,
				 e->old_before_kb,   e->old_after_kb,   e->old_total_kb,
				 e->meta_before_kb, e->meta_after_kb, e->meta_total_kb};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (sizes[i] != GCP_NONE && sizes[i] < 0)
			abort();
	if (strlen(e->cause) >= GCP_CAUSE_MAX || strlen(e->name) >= GCP_CAUSE_MAX)
		abort();
}

static void check_unparsed(const char *line, const char *reason, void *arg)
{
	(void)arg;
	if (!reason || strlen(line) >= GCP_KEEP_LEN)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gcparse *whole; /* lives across inputs */
	static size_t whole_events;   /* its events */
	char err[256];
	size_t n1 = 0;

	if (!whole) {
		whole = gcp_new(check_event, check_unparsed, &whole_events, err, sizeof err);
		if (!whole)
			abort();
	}
	struct gcparse *p = gcp_new(check_event, check_unparsed, &n1, err, sizeof err);
	if (!p)
		abort();
	gcp_set_jvm_start(p, size ? (int64_t)data[0] * 1000 : GCP_NONE);
	gcp_buf(p, (const char *)data, size);
	gcp_flush(p);
	const struct gcp_stats *s = gcp_stats_of(p);
	if (s->events != (int64_t)n1 || s->unparsed < s->binary + s->too_long ||
	    s->kept > GCP_KEEP_UNPARSED)
		abort();
	gcp_free(p);

	/* The same lines, line by line, through the long-lived parser; every few inputs its
	 * state is reset as for a new JVM. */
	if (size && data[size - 1] == '\n')
		gcp_reset(whole);
	const char *b = (const char *)data;
	size_t left = size;
	while (left) {
		const char *nl = memchr(b, '\n', left);
		size_t k = nl ? (size_t)(nl - b) : left;
		gcp_line(whole, b, k);
		if (!nl)
			break;
		b += k + 1, left -= k + 1;
	}
	return 0;
}
