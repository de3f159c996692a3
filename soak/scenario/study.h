/*
 * study — a study file turned into a validated plan, its schedule, and the scenario each of
 * its runs sends.
 *
 *   [study]                    name, scenario (repeatable, relative to the study file),
 *                              rounds, order = interleaved | random, seed, before_each,
 *                              warmup_runs (default 1), keep_running (default no: a
 *                              target is started before and stopped after each run),
 *                              command_timeout (default 2m); sequential: until = FIG PCT%,
 *                              ... (every named figure's interval that narrow) and budget
 *                              (the time it may take; rounds is then the most it runs)
 *   [target.NAME]              start, stop (shell commands; start prints key=value lines),
 *                              url, address, pid, gc_log (for a target already running, or
 *                              defaults the start output overrides), set (repeatable
 *                              SECTION.KEY=VALUE scenario overrides for its runs), cpus
 *                              (placement: its start command and its app processes run
 *                              on these CPUs)
 *
 * NAME is the label of the target's runs.  The schedule has rounds x targets x scenarios
 * measured runs ("slots"): each round runs every target once (its scenarios in file order);
 * interleaved rounds go in file order, then reversed (ABC CBA ABC ...), so that a drift of
 * the machine over the study falls on every target alike; random rounds are each shuffled
 * by a seeded generator, so the order can be replayed.
 *
 * Mistakes are `FILE:LINE: message` in err with nothing left allocated (the scenario
 * reader's rules: unknown sections and keys, bad numbers and durations).  A parsed study
 * owns its memory; study_release frees it.
 */
#ifndef SOAK_STUDY_H
#define SOAK_STUDY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

#define STUDY_MAX_TARGETS   16   /* [target.NAME] sections */
#define STUDY_MAX_SCENARIOS 8    /* scenario = lines */
#define STUDY_MAX_ROUNDS    1000 /* rounds */
#define STUDY_MAX_SETS      32   /* set = lines of one target */
#define STUDY_MAX_WARMUP    10   /* warmup_runs, warmup_max */
#define STUDY_WARMUP_MAX    5    /* warmup_max when warmup_steady is set alone */
#define STUDY_NAME_MAX      64   /* bytes of a target's name */
#define STUDY_MAX_UNTIL     8    /* figures an `until` names */
#define STUDY_SEQ_ROUNDS    100  /* a sequential study without rounds: at most this many */

enum study_order { STUDY_INTERLEAVED, STUDY_RANDOM };

/* What is known of a target's address and processes: given in its section, then what its
 * start command printed (key=value lines: url=, address=, pid=, gc_log=, version=). */
struct study_kv {
	char *url;     /* the scenario's request URL (or the origin of each request's URL) */
	char *address; /* tcp-frame: host:port */
	long pid;      /* the app collector's process (0: none given) */
	char *gc_log;  /* the app collector's GC log */
	char *version; /* recorded with each run */
};

struct study_target {
	char *name;                 /* [target.NAME]: the label of its runs */
	char *start;                /* shell command, or NULL: already running */
	char *stop;                 /* shell command, or NULL */
	char *start_shown;          /* start as written (${env:NAME} unexpanded), or NULL */
	char *stop_shown;           /* stop as written, or NULL */
	struct study_kv given;      /* url, address, pid, gc_log from the section */
	char *sets[STUDY_MAX_SETS]; /* SECTION.KEY=VALUE overrides for its scenarios */
	int nsets;                  /* entries in sets */
	char *cpus;                 /* placement: CPU list of its start command and app
	                             * processes (collect.app.cpus of its runs), or NULL */
	int line;                   /* of the section header, for messages */
};

/* One figure a sequential study runs until: its interval's half-width at most pct % of
 * the baseline, in every comparison. */
struct study_until {
	char fig[80]; /* "tps", "mean", "p99", "error", "cpu.SOURCE", "memory.SOURCE" */
	double pct;   /* > 0 */
};

struct study {
	char *file;                           /* path as given */
	char *text;                           /* the file's text */
	char *name;                           /* [study] name, or the file's base name */
	char *scenarios[STUDY_MAX_SCENARIOS]; /* scenario paths (relative to the file's
	                                       * directory when not absolute) */
	int nscenarios;                       /* entries in scenarios */
	int rounds;                           /* >= 1 */
	enum study_order order;               /* interleaved | random */
	int has_seed;                         /* seed given in the file */
	uint64_t seed;                        /* random order's seed when given */
	char *before_each;                    /* shell command before every run, or NULL */
	char *before_each_shown;              /* as written (${env:NAME} unexpanded), or NULL */
	int warmup_runs;            /* runs of each scenario after each start, not compared */
	double warmup_steady;       /* > 0: more warm-up runs until two in a row agree within this
	                             * share (0.05 = 5 %) in TPS (closed) or mean latency (open) */
	int warmup_max;             /* with warmup_steady: at most this many warm-up runs a start */
	int keep_running;           /* 1: start all at the beginning, stop at the end */
	int64_t command_timeout_ms; /* start, stop and before_each each get this */
	struct study_until until[STUDY_MAX_UNTIL];      /* sequential: the precision to run until */
	int nuntil;                                     /* entries in until (0: fixed rounds) */
	char *until_text;                               /* its text as given, or NULL */
	int64_t budget_ms;                              /* sequential: the time it may take */
	struct study_target targets[STUDY_MAX_TARGETS]; /* in file order */
	int ntargets;                                   /* entries in targets */
};

/* One measured run of the schedule. */
struct study_slot {
	int round;    /* 1-based */
	int position; /* 1-based place in the round */
	int target;   /* index into study.targets */
	int scenario; /* index into study.scenarios */
};

/* Parses a study file; 0, or -1 with `FILE:LINE: message` in err. */
int study_load(struct study *st, const char *path, char *err, size_t errlen);
/* Parses text as if read from `name`. */
int study_parse_text(struct study *st, const char *name, const char *text, char *err,
                     size_t errlen);
void study_release(struct study *st);
/* 1 when the file starts a [study] section before any other (soak check tells study files
 * from scenarios so); 0 otherwise, also when it cannot be read. */
int study_is_file(const char *path);

/* Measured runs in the schedule: rounds x targets x scenarios. */
int study_nslots(const struct study *st);
/* The schedule into out[0..study_nslots) for a seed (ignored when interleaved). */
void study_schedule(const struct study *st, uint64_t seed, struct study_slot *out);
/* Runs the whole study makes when nothing fails: its slots plus the warm-ups (after each
 * start, or once at the beginning for a target the study does not start). */
int study_nruns(const struct study *st, int *warmups);

/* Parses scenario `sc` for target `t`: the user's overrides (sets/nsets, from the command
 * line), then the target's `set =` lines, then scenario.label = the target's name and
 * what kv says: url (the only request's URL, or the origin of each request's), address,
 * and the app collector (pid replaces pid_match/pidfile; gc_log).  kv may be NULL (the
 * scenario's own URL stays: a check before the targets start).  0, or -1 with err. */
int study_scenario(const struct study *st, int t, int sc, const struct study_kv *kv,
                   char *const *sets, int nsets, struct scenario *out, char *err, size_t errlen);

/* Parses an `until` value ("tps 3%, cpu.app 3%") into u[0..max); how many, or -1 with
 * "'x': ..." in err. */
int study_until_parse(const char *text, struct study_until *u, int max, char *err, size_t errlen);

/* Parses key=value lines (a start command's output) into kv, over what it held: unknown
 * keys are ignored, a bad pid is an error.  Strings are owned by kv; study_kv_release. */
int study_kv_parse(struct study_kv *kv, const char *text, char *err, size_t errlen);
/* Copies a into kv (strings duplicated); 0 or -1 out of memory. */
int study_kv_copy(struct study_kv *kv, const struct study_kv *a);
void study_kv_release(struct study_kv *kv);

/* Prints the plan and schedule for `soak check`: targets, scenarios, the rounds' orders
 * and the total time (runs x their planned length; starting and stopping not included). */
void study_print_plan(const struct study *st, const struct scenario *scns, FILE *f);

#endif
