/*
 * perf_fold — `perf script` output folded into stacks and counted, in bounded memory: what
 * soak-perf keeps of a measured window's samples.
 *
 * Input: the lines of `perf script -F comm,tid,time,ip,sym,dso` (a header line per sample,
 * ending in its time "SECONDS.MICROS:", then one line per frame, leaf first: "\t ADDR
 * SYMBOL (DSO)", then a blank line).  A sample before from_us (perf's clock) is skipped.  A sample
 * becomes one stack, "root;...;leaf", its frames named by their symbols: "[unknown]" where
 * perf had no name, "[jit]" where the address is a JIT's and no symbol map named it
 * (/tmp/perf-PID.map), ';' in a name replaced by ':'.  A stack keeps its FOLD_MAX_DEPTH
 * frames nearest the leaf (the rest is counted as cut).  Identical stacks share one entry;
 * past max_stacks distinct ones, a new stack's samples go to `other` (also counted).
 * Not thread-safe; nothing is allocated per line once a stack is known.
 */
#ifndef SOAK_PERF_FOLD_H
#define SOAK_PERF_FOLD_H

#include <stddef.h>
#include <stdint.h>

#define FOLD_MAX_DEPTH 128  /* frames of a stack kept, nearest the leaf */
#define FOLD_NAME_MAX  512  /* bytes of one frame's name kept */

struct fold_entry {
	char *stack;   /* "root;...;leaf" (owned) */
	int64_t count; /* samples */
};

struct fold_map {
	struct fold_entry *e; /* open addressing; stack NULL: free */
	size_t cap;           /* slots (a power of two, twice max_stacks) */
	size_t n;             /* stacks held */
	size_t max_stacks;    /* stacks held at most */
	int64_t samples;      /* every sample fed */
	int64_t other;        /* samples of stacks that found no room */
	int64_t unnamed;      /* samples whose leaf had no name ([unknown] or [jit]) */
	int64_t jit_unnamed;  /* ... of those, JIT code no map named */
	int64_t cut;          /* samples whose stack was deeper than FOLD_MAX_DEPTH */
	int64_t from_us;      /* samples before this time (perf's clock, µs) are skipped; 0: none */
	int64_t early;        /* samples skipped so */
	/* the sample being read */
	char *frame[FOLD_MAX_DEPTH]; /* its frames so far, leaf first (owned, reused) */
	int nframes;                 /* frames in it */
	int deep;                    /* it had more than FOLD_MAX_DEPTH frames */
	int in_sample;               /* a header line came, its frames follow */
};

/* A map for at most max_stacks distinct stacks; 0, or -1 out of memory. */
int fold_init(struct fold_map *m, size_t max_stacks);
/* One line of perf script's output (without its newline).  0, or -1 out of memory. */
int fold_line(struct fold_map *m, const char *line);
/* The end of the input: the last sample counted.  0, or -1 out of memory. */
int fold_end(struct fold_map *m);
/* The stacks, most samples first, into a new array of m->n entries pointing into m (valid
 * until fold_release); NULL when out of memory (or none). */
struct fold_entry **fold_sorted(const struct fold_map *m);
void fold_release(struct fold_map *m);

#endif
