/* Shared by the GC unit tests: parse corpus files into an array of events. */
#ifndef SOAK_TEST_GCTEST_H
#define SOAK_TEST_GCTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcparse.h"

/* The events and counters of one parse. */
struct gct {
	struct gcp_event *ev;   /* events in emission order */
	size_t n, cap;          /* used, allocated */
	struct gcp_stats st;    /* the parser's counters at the end */
	char format[64];        /* detected format */
};

static inline void gct_collect(const struct gcp_event *e, void *arg)
{
	struct gct *g = arg;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->ev = realloc(g->ev, g->cap * sizeof *g->ev);
		if (!g->ev)
			abort();
	}
	g->ev[g->n++] = *e;
}

/* Reads a corpus file (relative to tests/data/gc) into a malloc'ed buffer. */
static inline char *gct_slurp(const char *rel, size_t *len)
{
	char path[1024];
	const char *top = getenv("SOAK_TOP");
	snprintf(path, sizeof path, "%s/tests/data/gc/%s", top ? top : ".", rel);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Parses the files (NULL-terminated list, fed to one parser in order, as a rotated set)
 * with an optional JVM start anchor. */
static inline void gct_parse_anchored(struct gct *g, int64_t start, const char *const *files)
{
	char err[256];
	memset(g, 0, sizeof *g);
	struct gcparse *p = gcp_new(gct_collect, NULL, g, err, sizeof err);
	if (!p) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	gcp_set_jvm_start(p, start);
	for (; *files; files++) {
		size_t n;
		char *b = gct_slurp(*files, &n);
		gcp_buf(p, b, n);
		free(b);
	}
	gcp_flush(p);
	g->st = *gcp_stats_of(p);
	gcp_format(p, g->format, sizeof g->format);
	gcp_free(p);
}

static inline void gct_parse(struct gct *g, const char *file)
{
	const char *files[] = {file, NULL};
	gct_parse_anchored(g, GCP_NONE, files);
}

static inline void gct_free(struct gct *g) { free(g->ev); }

static inline size_t gct_count(const struct gct *g, enum gcp_kind k)
{
	size_t c = 0;
	for (size_t i = 0; i < g->n; i++)
		c += g->ev[i].kind == k;
	return c;
}

/* Sum of pauses of stop-the-world events (safepoint records apart). */
static inline int64_t gct_pause_total(const struct gct *g)
{
	int64_t s = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->ev[i].kind != GCP_SAFEPOINT && g->ev[i].kind != GCP_CONCURRENT)
			s += g->ev[i].pause_us;
	return s;
}

static inline int64_t gct_pause_max(const struct gct *g)
{
	int64_t m = 0;
	for (size_t i = 0; i < g->n; i++)
		if (g->ev[i].kind != GCP_SAFEPOINT && g->ev[i].pause_us > m)
			m = g->ev[i].pause_us;
	return m;
}

#endif
