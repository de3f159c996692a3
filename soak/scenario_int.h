/*
 * scenario_int — what scenario.c shares with the parsers of its other files
 * (scenario_frame.c).  Not for other modules.
 *
 * The file's `key = value` lines are entries in file order, --set overrides last; an
 * interpreter looks keys up with find() (which marks them used: leftovers are unknown keys)
 * and reports the first mistake with perr() as `FILE:LINE: message`.  struct parse is
 * scenario.c's reader state, opaque here.
 */
#ifndef SOAK_SCENARIO_INT_H
#define SOAK_SCENARIO_INT_H

#include "scenario.h"

/* One `key = value` as read, in file order; --set overrides are appended with line 0. */
struct entry {
	char *section; /* as written, e.g. "request.login" */
	char *key;
	char *value;
	int line; /* 1-based; 0 for --set */
	int used; /* consumed by the interpreter (leftovers are unknown keys) */
};

struct parse;

/* Records the first error as `FILE:LINE: message` (or `--set s.k: message`); e names the
 * entry at fault (its line is used), or NULL with `line`. */
void perr(struct parse *p, const struct entry *e, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The last entry for section/key (an override beats the file), marking every one used. */
struct entry *find(struct parse *p, const char *section, const char *key);
/* The first line of a section (for "missing key" messages), or 1. */
int section_line(struct parse *p, const char *section);
/* 1 and *out when the key is given and valid, 0 when absent, -1 after perr. */
int get_dur(struct parse *p, const char *sec, const char *key, int64_t *out);
/* 0 and *out, or -1 after perr. */
int get_int(struct parse *p, struct entry *e, long lo, long hi, long *out);
int get_bool(struct parse *p, struct entry *e, int *out);
/* strdup, or NULL after perr. */
char *dup_or_die(struct parse *p, const char *s);
/* Compiled (JIT when possible) or NULL after perr; the caller frees it. */
pcre2_code *compile_re(struct parse *p, struct entry *e, const char *what);
/* Compiles e's value as a template into t; 0, or -1 after perr. */
int compile_tpl(struct parse *p, struct scenario *s, struct entry *e, struct tpl *t);
/* Calls fn once per section named `prefix` or `prefix.NAME`, in file order, until an
 * error. */
void each_section(struct parse *p, struct scenario *s, const char *prefix,
                  void (*fn)(struct parse *, struct scenario *, const char *));

#endif
