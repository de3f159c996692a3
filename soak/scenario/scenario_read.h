/*
 * scenario_read — the scenario file's reader (scenario_read.c) and what the section
 * interpreters (scenario.c, scenario_frame.c) share.  Not for other modules.
 *
 * The file's `key = value` lines are entries in file order, --set overrides last; an
 * interpreter looks keys up with scn_find() (which marks them used: leftovers are unknown
 * keys) and reports the first mistake with scn_perr() as `FILE:LINE: message`.
 */
#ifndef SOAK_SCENARIO_READ_H
#define SOAK_SCENARIO_READ_H

#include "scenario.h"

/* One `key = value` as read, in file order; --set overrides are appended with line 0.
 * ${env:NAME} in a value is the environment variable's value (a secret need never sit in
 * a file): value has it as it is, tvalue (what a template compiles) with each of its '$'
 * doubled, so that a password holding "$" or "${seq}" is sent as it is. */
struct scn_entry {
	char *section; /* as written, e.g. "request.login" */
	char *key;
	char *value;  /* the value, ${env:NAME} replaced */
	char *tvalue; /* for templates, when it differs from value; else NULL */
	char *raw;    /* as written, when it held ${env:NAME}; else NULL */
	int line;     /* 1-based; 0 for --set */
	int used;     /* consumed by the interpreter (leftovers are unknown keys) */
};

#define SCN_MAX_ENV 64 /* ${env:NAME} values whose text messages never show */

#define SCN_MAX_ENTRIES 2048       /* key = value lines in one file */
#define SCN_MAX_FILE    (4L << 20) /* a scenario file larger than this is a mistake */
#define SCN_MAX_LINE    65536      /* one line (long bodies fit) */
#define SCN_MAX_LONG    256        /* lines longer than libinih's buffer in one file */

/* Parser state for one file. */
struct scn_parse {
	const char *name;       /* file name for messages */
	const char *text;       /* whole text being read */
	const char *pos;        /* reader position */
	int line;               /* line the reader returned last */
	struct scn_entry *ents; /* SCN_MAX_ENTRIES */
	int nents;
	char *err; /* first error wins */
	size_t errlen;
	int failed;
	char *const *sets; /* --set overrides */
	int nsets;
	/* Debian's libinih reads lines into a fixed 200-byte buffer, whatever its run-time
	 * settings say.  A longer `key = value` line reaches it as `key = \001N`, and the
	 * value (trimmed, inline comment removed, as libinih would) waits in longv[N]. */
	char *longv[SCN_MAX_LONG];
	int nlong;
	/* The values ${env:NAME} gave, which scn_perr shows as ${env:NAME}: a message quoting
	 * a value must not print a secret. */
	struct {
		char name[128]; /* the variable */
		char *value;    /* its value (owned copy) */
	} env[SCN_MAX_ENV];
	int nenv;
	/* Another kind of file (a study) names its own sections: NULL means a scenario's. */
	int (*known)(const char *section); /* 1 when the section is one of the file's */
	const char *known_list;            /* the known sections, for the message */
};

/* Reads p->text into p->ents (file order, then the --set overrides); 0, or -1 after
 * scn_perr.  p->ents must have room for SCN_MAX_ENTRIES. */
int scn_read(struct scn_parse *p);

/* Frees what reading left in p: the entries (and p->ents itself) and the long values. */
void scn_parse_release(struct scn_parse *p);

/* Records the first error as `FILE:LINE: message` (or `--set s.k: message`); e names the
 * entry at fault (its line is used), or NULL with `line`. */
void scn_perr(struct scn_parse *p, const struct scn_entry *e, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The last entry for section/key (an override beats the file), marking every one used. */
struct scn_entry *scn_find(struct scn_parse *p, const char *section, const char *key);
struct redact;
/* Every `redact = LIST` of section (repeatable: each adds names, the file's and --set's
 * alike) into r (initialised here); a bad name is an error of its line. */
void scn_get_redact(struct scn_parse *p, const char *section, struct redact *r);
/* The first line of a section (for "missing key" messages), or 1. */
int scn_section_line(struct scn_parse *p, const char *section);
/* 1 and *out when the key is given and valid, 0 when absent, -1 after perr. */
int scn_get_dur(struct scn_parse *p, const char *sec, const char *key, int64_t *out);
/* 0 and *out, or -1 after perr. */
int scn_get_int(struct scn_parse *p, struct scn_entry *e, long lo, long hi, long *out);
int scn_get_bool(struct scn_parse *p, struct scn_entry *e, int *out);
/* A file a scenario names (csv, a frame's file, [tls]'s): relative paths are relative to
 * the scenario file's folder.  Into path (len bytes). */
void scn_path(const struct scenario *s, const char *value, char *path, size_t len);
/* strdup, or NULL after perr. */
char *scn_dup(struct scn_parse *p, const char *s);
/* Compiled (JIT when possible) or NULL after perr; the caller frees it. */
pcre2_code *scn_compile_re(struct scn_parse *p, struct scn_entry *e, const char *what);
/* Compiles e's value (its tvalue when it has one) as a template into t; 0, or -1 after
 * perr. */
int scn_compile_tpl(struct scn_parse *p, struct scenario *s, struct scn_entry *e, struct tpl *t);
/* Calls fn once per section named `prefix` or `prefix.NAME`, in file order, until an
 * error. */
void scn_each_section(struct scn_parse *p, struct scenario *s, const char *prefix,
                      void (*fn)(struct scn_parse *, struct scenario *, const char *));

#endif
