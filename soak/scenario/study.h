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
 *                              (the time it may take; rounds is then the most it runs);
 *                              design = auto | side-by-side | one-at-a-time, replicas
 *                              (processes of each target at once), starts (times the
 *                              targets are started, each start warmed up and then measured
 *                              for `rounds` rounds; auto: as many as fit in budget),
 *                              primary (the figure the verdict leads with), warmup_jit (a
 *                              JVM's JIT share under which it is warm)
 *   [target.NAME]              start, stop (shell commands; start prints key=value lines),
 *                              url, address, pid, gc_log (for a target already running, or
 *                              defaults the start output overrides), set (repeatable
 *                              SECTION.KEY=VALUE scenario overrides for its runs), cpus
 *                              (placement: its start command and its app processes run
 *                              on these CPUs)
 *
 * NAME is the label of the target's runs.  The schedule has starts x rounds x targets x
 * replicas x scenarios measured runs ("slots"): each round runs every process ("instance":
 * a target's replica) once, its one-at-a-time scenarios in file order, each instance alone;
 * interleaved rounds go in file order, then reversed (ABC CBA ABC ...), so that a drift of
 * the machine over the study falls on every target alike; random rounds are each shuffled
 * by a seeded generator, so the order can be replayed.  Then each side-by-side scenario
 * runs every instance at once, in the same seconds, each at the scenario's load: one group
 * of slots, whose figures share the machine's noise (Bulej et al., "Duet benchmarking").
 *
 * Designs.  design = auto (the default) runs a scenario side by side when it runs at a
 * fixed rate (the open model: every instance gets the same arrivals) and the study has two
 * instances or more, kept running, without `until` (and a study of two targets or more it
 * starts, at a fixed rate, that writes no key choosing a design, runs starts = auto); one
 * at a time otherwise (a closed model measures capacity: saturated servers sharing CPUs
 * would split them by the scheduler, not by their efficiency).  replicas = K starts each target K times at once
 * (its commands see SOAK_REPLICA=1..K): K processes a side, whose spread measures how
 * much two processes of one server differ (their JITs choose differently).  starts = S
 * stops and starts them again S - 1 times, each start warmed up until steady; starts =
 * auto starts them again while another start fits in `budget` (10 minutes when not given),
 * and is what a study of two targets or more at a fixed rate that chooses no design does.
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
#define STUDY_MAX_WARMUP    50   /* warmup_runs, warmup_max */
#define STUDY_MAX_REPLICAS  8    /* replicas */
#define STUDY_MAX_STARTS    100  /* starts */
#define STUDY_AUTO_STARTS   20   /* starts = auto: at most this many */
#define STUDY_AUTO_BUDGET_MS                                                                       \
	(10 * 60 * 1000) /* starts = auto without budget (and so the default design of two         \
	                  * targets or more at a fixed rate): ten minutes */
#define STUDY_AUTO_MARGIN                                                                          \
	10 /* starts = auto: a start is taken to last the longest so far and this % more (a        \
	    * start's JIT warm-up varies: 90 to 162 s for two Tomcat 10s at 500/s here) */
#define STUDY_MAX_INSTANCES (STUDY_MAX_TARGETS * STUDY_MAX_REPLICAS)
#define STUDY_WARMUP_JIT                                                                           \
	0.02 /* warmup_jit's default: a JVM is warm once its JIT's                                 \
	      * threads take under 2 % of its CPU in a warm-up run */
#define STUDY_WARMUP_JIT_MAX                                                                       \
	20                   /* warmup_max when warmup_jit applies (a JVM's JIT works              \
	                      * for 20k requests or more) */
#define STUDY_WARMUP_MAX 5   /* warmup_max when warmup_steady is set alone */
#define STUDY_NAME_MAX   64  /* bytes of a target's name */
#define STUDY_MAX_UNTIL  8   /* figures an `until` names */
#define STUDY_SEQ_ROUNDS 100 /* a sequential study without rounds: at most this many */

enum study_order { STUDY_INTERLEAVED, STUDY_RANDOM };

enum study_design {
	STUDY_AUTO,          /* side by side where it fits (see above), else one at a time */
	STUDY_ONE_AT_A_TIME, /* every run alone */
	STUDY_SIDE_BY_SIDE,  /* the fixed-rate scenarios' runs of all instances at once */
};

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
	int replicas;               /* its processes at once (its section's replicas, else the
	                             * study's) */
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
	int warmup_runs;          /* runs of each scenario after each start, not compared */
	double warmup_steady;     /* > 0: more warm-up runs until two in a row agree within this
	                           * share (0.05 = 5 %) in TPS (closed) or mean latency (open) */
	double warmup_jit;        /* > 0: warm-up runs go on until a JVM's JIT threads take
	                           * under this share of its CPU (where the app collector sees
	                           * a JVM's threads); 0: off */
	int warmup_max;           /* with warmup_steady or warmup_jit: at most this many warm-up
	                           * runs a start */
	enum study_design design; /* as written (STUDY_AUTO unless given) */
	int together[STUDY_MAX_SCENARIOS]; /* per scenario: 1 side by side, 0 one at a time
	                                    * (study_resolve_design) */
	int replicas;                      /* processes of each target at once (>= 1) */
	int starts;       /* times the targets are started (>= 1): rounds per start; with
	                   * starts_auto the most it may be */
	int starts_auto;  /* 1: start again while another start fits in budget_ms (starts =
	                   * auto, or the default for two targets or more at a fixed rate) */
	int design_given; /* 1: a key that chooses the design was written (keep_running,
	                   * replicas, starts, until, budget, design other than auto) */
	char primary[80]; /* the figure the verdict leads with ("cpu.app"), or "" */
	int ninst;        /* instances: every target's processes, in target order */
	int inst_target[STUDY_MAX_INSTANCES];  /* instance i's target ... */
	int inst_replica[STUDY_MAX_INSTANCES]; /* ... and 0-based replica */
	int keep_running;                      /* 1: start all at the beginning, stop at the end */
	int64_t command_timeout_ms;            /* start, stop and before_each each get this */
	struct study_until until[STUDY_MAX_UNTIL]; /* sequential: the precision to run until */
	int nuntil;                                /* entries in until (0: fixed rounds) */
	char *until_text;                          /* its text as given, or NULL */
	int64_t budget_ms;    /* sequential or starts_auto: the time it may take */
	struct redact redact; /* [study] redact: more secret names, for what the study stores and
	                       * prints (its text, commands, their output) and for its runs */
	struct study_target targets[STUDY_MAX_TARGETS]; /* in file order */
	int ntargets;                                   /* entries in targets */
};

/* One measured run of the schedule. */
struct study_slot {
	int round;    /* 1-based, over the whole study (start s has rounds (s-1)R+1 .. sR) */
	int position; /* 1-based place in the round (the slots of a group share it) */
	int target;   /* index into study.targets */
	int replica;  /* 0-based: which of the target's processes */
	int scenario; /* index into study.scenarios */
	int start;    /* 1-based: the start of the targets it runs in */
	int group;    /* 0 alone; else the 1-based id of the slots run in the same seconds */
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

/* Measured runs in the schedule: starts x rounds x targets x replicas x scenarios. */
int study_nslots(const struct study *st);
/* Sets st->together from the scenarios' models (rates[i]: scenario i's fixed rate as a
 * target would run it, 0 for the closed model) and the design: side by side where it fits.
 * A study that chose no design, of two targets or more that it starts, with a scenario at
 * a fixed rate, starts them again and again side by side (starts_auto) for its budget: one
 * start cannot tell two processes of one server apart, several can. */
void study_resolve_design(struct study *st, const double *rates);
/* starts = auto: 1 when another start, as long as the longest so far and STUDY_AUTO_MARGIN
 * % more, fits in what is left of the budget after elapsed_ms. */
int study_another_fits(int64_t elapsed_ms, int64_t longest_ms, int64_t budget_ms);
/* Instances (processes run at once): each target's replicas, in target order
 * (st->inst_target, st->inst_replica). */
int study_ninstances(const struct study *st);
/* The instance of target t's replica r (0-based), or -1. */
int study_instance(const struct study *st, int t, int r);
/* 1 when the study runs anything side by side, or more than one start or replica: its
 * runs are carried out start by start (run/study_run.c's grouped path). */
int study_grouped(const struct study *st);
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

/* Whether fig names a figure (tps, mean, p99, error, cpu.SOURCE, memory.SOURCE): 0, or -1
 * with err. */
int study_until_fig(const char *fig, char *err, size_t errlen);

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
