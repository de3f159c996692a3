/*
 * jsonw — JSON writing: a string literal with the escapes RFC 8259 requires (quote,
 * backslash, control characters; bytes >= 0x80 pass through: soak's strings are UTF-8;
 * NULL writes ""), and an emitter that keeps track of the open objects and arrays, their
 * keys and commas, so a writer says what it writes and not where the commas go.
 *
 * The emitter writes items separated by ", " and keys as "key": .  A writer that lays its
 * output out on lines calls jsonw_br(w, "\n    ") before an item: that item is then
 * preceded by ",\n    " (by "\n    " when it is its container's first), and before a
 * closing bracket, the bracket by "\n    ".  jsonw_br(w, "") gives "," alone.
 * An emitter belongs to one writer; no global state.  Nesting deeper than JSONW_DEPTH is
 * a programming error (asserted).
 */
#ifndef SOAK_JSONW_H
#define SOAK_JSONW_H

#include <stdio.h>

void json_write_str(FILE *f, const char *s);

#define JSONW_DEPTH 16

struct jsonw {
	FILE *f;                          /* where it writes (not owned) */
	int depth;                        /* containers open */
	unsigned char items[JSONW_DEPTH]; /* per open container: items written so far (0/1) */
	char close[JSONW_DEPTH];          /* per open container: '}' or ']' */
	const char *br;                   /* the break before the next item or bracket, or NULL */
	int keyed;                        /* a key was written: its value comes next */
};

void jsonw_init(struct jsonw *w, FILE *f);
/* The break the next item (or closing bracket) gets, instead of the plain separator. */
void jsonw_br(struct jsonw *w, const char *br);
/* Opens an object or an array (as the next item). */
void jsonw_obj(struct jsonw *w);
void jsonw_arr(struct jsonw *w);
/* Closes the innermost object or array. */
void jsonw_end(struct jsonw *w);
/* A member's key; the next call writes its value. */
void jsonw_key(struct jsonw *w, const char *key);
/* Values. */
void jsonw_str(struct jsonw *w, const char *s);
/* s, or null when s is NULL or empty. */
void jsonw_str_or_null(struct jsonw *w, const char *s);
void jsonw_int(struct jsonw *w, long long v);
void jsonw_bool(struct jsonw *w, int v);
void jsonw_null(struct jsonw *w);
/* A number with `decimals` decimals ("%.*f", no "-0": a value that rounds to zero is 0),
 * or null when it is not finite. */
void jsonw_num(struct jsonw *w, double v, int decimals);
/* A value as printf writes it (a number in a format of its own). */
__attribute__((format(printf, 2, 3))) void jsonw_fmt(struct jsonw *w, const char *fmt, ...);
/* Members: the key and its value in one call. */
void jsonw_mstr(struct jsonw *w, const char *key, const char *s);
void jsonw_mint(struct jsonw *w, const char *key, long long v);
void jsonw_mbool(struct jsonw *w, const char *key, int v);
void jsonw_mnull(struct jsonw *w, const char *key);
void jsonw_mnum(struct jsonw *w, const char *key, double v, int decimals);

#endif
