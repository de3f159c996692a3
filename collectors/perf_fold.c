/* perf_fold: perf script's samples folded into counted stacks (perf_fold.h).  The map
 * never holds more than max_stacks stacks; a sample is counted exactly once, in its
 * stack's entry or in `other`. */
#include "perf_fold.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int fold_init(struct fold_map *m, size_t max_stacks)
{
	memset(m, 0, sizeof *m);
	m->max_stacks = max_stacks ? max_stacks : 1;
	m->cap = 16;
	while (m->cap < 2 * m->max_stacks)
		m->cap *= 2;
	m->e = calloc(m->cap, sizeof *m->e);
	return m->e ? 0 : -1;
}

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

/* Adds one sample of stack s (the map takes a copy when it keeps it). */
static int count_stack(struct fold_map *m, const char *s)
{
	size_t i = hash(s) & (m->cap - 1);

	while (m->e[i].stack && strcmp(m->e[i].stack, s) != 0)
		i = (i + 1) & (m->cap - 1);
	if (!m->e[i].stack) {
		if (m->n >= m->max_stacks) {
			m->other++;
			return 0;
		}
		if (!(m->e[i].stack = strdup(s)))
			return -1;
		m->n++;
	}
	m->e[i].count++;
	return 0;
}

/* The sample read so far, counted; the frames are kept for the next one. */
static int flush(struct fold_map *m)
{
	struct buf b = {0};
	int rc;

	if (!m->in_sample)
		return 0;
	m->in_sample = 0;
	if (m->nframes == 0)
		return 0;
	m->samples++;
	m->cut += m->deep;
	if (!strcmp(m->frame[0], "[unknown]") || !strcmp(m->frame[0], "[jit]")) {
		m->unnamed++;
		m->jit_unnamed += !strcmp(m->frame[0], "[jit]");
	}
	for (int i = m->nframes - 1; i >= 0; i--) {
		buf_puts(&b, m->frame[i]);
		if (i)
			buf_puts(&b, ";");
	}
	rc = b.oom ? -1 : count_stack(m, b.p);
	buf_free(&b);
	m->nframes = m->deep = 0;
	return rc;
}

/* A frame line's name: its symbol, or [unknown] / [jit] where perf had none. */
static void frame_name(const char *line, char *out, size_t len)
{
	const char *p = line, *open, *end;
	size_t n;

	while (isspace((unsigned char)*p))
		p++;
	while (isxdigit((unsigned char)*p)) /* the address */
		p++;
	while (*p == ' ')
		p++;
	open = strrchr(p, '(');
	end = open && open > p ? open - 1 : p + strlen(p);
	while (end > p && end[-1] == ' ')
		end--;
	n = (size_t)(end - p);
	if (n == 0 || (n == 9 && !strncmp(p, "[unknown]", 9))) {
		int jit = open && strstr(open, "perf-") && strstr(open, ".map");
		snprintf(out, len, "%s", jit ? "[jit]" : "[unknown]");
		return;
	}
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
	for (char *c = out; *c; c++)
		if (*c == ';')
			*c = ':';
}

/* A header line's time ("... 12345.678901:"), µs; -1 when it has none. */
static int64_t header_us(const char *line)
{
	const char *end = strrchr(line, ':'), *p;
	long long s = 0, us = 0;

	if (!end)
		return -1;
	for (p = end; p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'); p--)
		;
	if (sscanf(p, "%lld.%6lld", &s, &us) != 2)
		return -1;
	return s * 1000000 + us;
}

int fold_line(struct fold_map *m, const char *line)
{
	char name[FOLD_NAME_MAX];

	if (!*line)
		return flush(m);
	if (!isspace((unsigned char)line[0])) { /* a sample's header: comm, tid, time */
		if (flush(m) < 0)
			return -1;
		m->in_sample = !m->from_us || header_us(line) >= m->from_us;
		m->early += !m->in_sample;
		return 0;
	}
	if (!m->in_sample)
		return 0;
	if (m->nframes == FOLD_MAX_DEPTH) { /* deeper than kept: the leaf's side stays */
		m->deep = 1;
		return 0;
	}
	frame_name(line, name, sizeof name);
	char *f = m->frame[m->nframes];
	if (!f && !(f = m->frame[m->nframes] = malloc(FOLD_NAME_MAX)))
		return -1;
	memcpy(f, name, strlen(name) + 1);
	m->nframes++;
	return 0;
}

int fold_end(struct fold_map *m)
{
	return flush(m);
}

static int by_count(const void *a, const void *b)
{
	const struct fold_entry *x = *(struct fold_entry *const *)a, *y = *(struct fold_entry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->stack, y->stack); /* the same order every time */
}

struct fold_entry **fold_sorted(const struct fold_map *m)
{
	struct fold_entry **v = m->n ? malloc(m->n * sizeof *v) : NULL;
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].stack)
			v[k++] = &m->e[i];
	qsort(v, k, sizeof *v, by_count);
	return v;
}

void fold_release(struct fold_map *m)
{
	for (size_t i = 0; m->e && i < m->cap; i++)
		free(m->e[i].stack);
	free(m->e);
	for (int i = 0; i < FOLD_MAX_DEPTH; i++)
		free(m->frame[i]);
	memset(m, 0, sizeof *m);
}
