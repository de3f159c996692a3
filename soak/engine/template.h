/*
 * template — request templates with placeholders, compiled once, expanded per request
 * without allocation.
 *
 * Placeholders:
 *   ${seq}       unique in the run (1, 2, 3, ... across all threads; see tpl_ctx.seq)
 *   ${vu}        the virtual user's number (1-based)
 *   ${iter}      the virtual user's iteration (1-based)
 *   ${run}       the run id
 *   ${nonce}     random per run (so repeated runs never collide on unique names); each
 *                agent of a group draws its own
 *   ${agent}     K of `soak run --agent K/N` (1 when not an agent)
 *   ${random:N}  N random characters of [a-z0-9] (1 <= N <= 256)
 *   ${uuid}      a random version-4 UUID
 *   ${now_ms}    wall-clock epoch milliseconds
 *   ${csv:COL}   column COL of the current row of the scenario's CSV data set; the row
 *                advances with ${seq} (row = (seq - 1) mod rows), like JMeter's CSV Data Set
 *   $$           a literal '$'
 *
 * tpl_compile() parses the text into parts; an unknown placeholder, a bad ${random:N}, an
 * unknown CSV column or a text over TPL_MAX_PARTS parts is an error whose message names the
 * placeholder (the caller adds FILE:LINE).  tpl_expand() writes into a caller buffer and
 * fails cleanly past its size.  A compiled template owns its text copy; tpl_release() frees
 * it.  Expansion is thread-safe given a per-thread tpl_ctx.
 */
#ifndef SOAK_TEMPLATE_H
#define SOAK_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#define TPL_MAX_PARTS 256

enum tpl_kind {
	TPL_LIT,    /* literal text: off/len into text */
	TPL_SEQ,    /* ${seq} */
	TPL_VU,     /* ${vu} */
	TPL_ITER,   /* ${iter} */
	TPL_RUN,    /* ${run} */
	TPL_NONCE,  /* ${nonce} */
	TPL_RANDOM, /* ${random:N}: arg = N */
	TPL_UUID,   /* ${uuid} */
	TPL_NOW_MS, /* ${now_ms} */
	TPL_CSV,    /* ${csv:COL}: arg = column index */
	TPL_AGENT,  /* ${agent} */
};

struct tpl_part {
	enum tpl_kind kind; /* what this part expands to */
	uint32_t off;       /* TPL_LIT: offset of the literal in tpl.text */
	uint32_t len;       /* TPL_LIT: its length */
	int arg;            /* TPL_RANDOM: length; TPL_CSV: column index */
};

struct tpl {
	char *text;             /* owned copy of the source text (literals point into it) */
	struct tpl_part *parts; /* owned; nparts entries */
	int nparts;
	int dynamic;    /* 0 when the template is pure literal text (expand once, reuse) */
	size_t min_len; /* length of the literal parts: a lower bound of any expansion */
};

/* A CSV data set: a header row naming the columns, then rows.  Owned by the scenario. */
struct tpl_csv {
	char **cols; /* column names */
	int ncols;
	char **cells; /* rows * ncols cell strings, row-major */
	long nrows;
	char *storage; /* the file's text; cells point into it */
};

/* Everything a request's expansion may need; one per engine thread. */
struct tpl_ctx {
	uint64_t seq;              /* this request's ${seq} */
	uint64_t vu;               /* ${vu} */
	uint64_t iter;             /* ${iter} */
	int64_t run_id;            /* ${run} */
	const char *nonce;         /* ${nonce} */
	uint64_t agent;            /* ${agent} */
	uint64_t rng;              /* xorshift state for ${random:N} and ${uuid}; never 0 */
	const struct tpl_csv *csv; /* may be NULL when no template uses ${csv:...} */
};

int tpl_compile(struct tpl *t, const char *text, const struct tpl_csv *csv, char *err,
                size_t errlen);
void tpl_release(struct tpl *t);
/* Expands into buf[0..cap); returns the length (without NUL; buf is NUL-terminated) or -1
 * when the result would not fit in cap - 1 bytes. */
long tpl_expand(const struct tpl *t, struct tpl_ctx *ctx, char *buf, size_t cap);

/* An upper bound of any expansion's length for this context (nonce and CSV cells as
 * given), so callers can size buffers once and never fail on the request path. */
size_t tpl_max_len(const struct tpl *t, const struct tpl_ctx *ctx);

/* Loads a CSV file (comma-separated, optional double quotes, header row).  Caps: 64 MB,
 * 256 columns.  Errors name the file and line. */
int tpl_csv_load(struct tpl_csv *csv, const char *path, char *err, size_t errlen);
void tpl_csv_release(struct tpl_csv *csv);
int tpl_csv_column(const struct tpl_csv *csv, const char *name);

/* The next value of a xorshift64* generator (state must be non-zero). */
uint64_t tpl_rand(uint64_t *state);

#endif
