/*
 * study_int — what the parts of a study's run share (run/ only): the study's context, each
 * instance's state, the tags of the run being made, and the commands, runs and warm-ups
 * that study_run.c (the one-at-a-time path, the database), study_cmd.c (the targets'
 * commands) and study_group.c (the grouped path: starts, replicas, side by side) use.
 * An instance is a target's process: instance i is target st->inst_target[i], replica
 * st->inst_replica[i] (study_ninstances).
 */
#ifndef SOAK_STUDY_INT_H
#define SOAK_STUDY_INT_H

#include <sqlite3.h>
#include <stdint.h>

#include "run/metrics.h"
#include "run/study_run.h"

/* What the study knows of one instance (a target's process: its replica) while it runs. */
struct tstate {
	int up;             /* started by this process and not stopped since */
	int started;        /* 1 once this process started it (since_start counts from there) */
	int since_start;    /* runs since its last start */
	int warm;           /* warm-up runs done since its last start (or the beginning) */
	int steady;         /* warmup_steady: the last two warm-up runs agreed */
	double warm_fig;    /* warmup_steady: the last warm-up run's figure (NAN: none) */
	double jit_share;   /* the last warm-up run's JIT share of the app's CPU (NAN: no JVM) */
	int jit_quiet;      /* warm-up runs in a row, up to the last, with the JIT quiet */
	struct study_kv kv; /* its section's values, then its start's output */
};

/* The tags of the run being made, written by on_begin. */
struct tag {
	int slot;     /* 1-based, 0 for a warm-up */
	int round;    /* 1-based */
	int position; /* 1-based, 0 for a warm-up */
	int target;   /* index */
	int replica;  /* 0-based */
	int start;    /* 1-based start of the targets (0: not known, the one-at-a-time path) */
	int group;    /* side-by-side group (0: alone) */
	int member;   /* 0-based place in its side-by-side runs (a group's, or a side-by-side
	               * warm-up's): only the first (0, as a run alone) collects what they share */
	int64_t start_at_ms; /* > 0: the wall-clock instant its load starts (a group's) */
	int seq;             /* > 0: the study_runs.seq to write (a group's members, set before the
	                      * fork); 0: the next one */
	int warmup;          /* 1: not compared */
	int since_start;     /* 1: first run after the start; 0: not started by the study */
};

struct ctx {
	const struct study *st;               /* the plan */
	const struct study_run_opts *o;       /* the command's options */
	sqlite3 *db;                          /* the study's own connection */
	int64_t study_id;                     /* studies.id */
	struct tstate t[STUDY_MAX_INSTANCES]; /* per instance (study_instance) */
	int seq;                              /* last study_runs.seq written */
	struct tag tag;                       /* the run being made */
	int64_t run_id;                       /* the last run made (tag_run) */
	struct mstudy ms;                     /* the study as /metrics shows it (run.metrics) */
	char err[1024];                       /* the failure to report */
	int64_t t0_ms;                        /* when the study (this process) began, mono */
	int max_looks;                        /* sequential: K, fixed after the second round */
	int looks;                            /* sequential: looks taken */
	char stop[16];                        /* sequential: why it stopped */
	int skip_before_each;                 /* a group's members: before_each ran once for all */
};

/* The target and replica of instance i. */
#define SR_TARGET(c, i)  ((c)->st->inst_target[i])
#define SR_REPLICA(c, i) ((c)->st->inst_replica[i])

/* study_cmd.c: /metrics shows the study as it stands now (when served). */
void sr_publish(struct ctx *c);
/* 1 once SIGINT or SIGTERM came. */
int sr_signalled(const struct ctx *c);
/* Runs `cmd` for instance i (or -1) in round `round`; with `out`, its stdout is read into a
 * malloc'd string (else it goes to stderr).  A signal ends it when `interruptible`.  0 when
 * it exits 0; -1 with c->err. */
int sr_sh_run(struct ctx *c, const char *what, const char *cmd, int i, int round, char **out,
              int interruptible);
/* "tomcat9", or "tomcat9#2" for replica 2 of several: how messages name instance i. */
const char *sr_inst_name(const struct ctx *c, int i, char *buf, size_t len);
/* Starts instance i (its target's start command, SOAK_REPLICA set): 0, or -1 with c->err. */
int sr_start(struct ctx *c, int i, int round);
/* Stops instance i if this process started it; a failure is a warning. */
void sr_stop(struct ctx *c, int i, int round);

/* study_run.c: one run of scenario sc against instance i with its tags (nth of `of`, for
 * the progress line; 0 for a warm-up): the runner's status, or EXIT_RUNTIME / EXIT_USAGE
 * with c->err. */
int sr_one_run(struct ctx *c, int i, int sc, const struct tag *tag, int nth, int of);
/* The figure a warm-up run is judged steady on (TPS closed, mean latency open); NAN. */
double sr_warm_figure(struct ctx *c, int64_t run_id, int *open);
/* Judges instance i's warm-up run: its JIT's share of the app's CPU (recorded with the run)
 * and its figure against the last one's; sets its steady flag and says so. */
void sr_warm_judge(struct ctx *c, int i, int64_t run_id);
/* Whether instance i's warm-up is over: warmup_runs done and steady (or warmup_max). */
int sr_warm_done(const struct ctx *c, int i);
/* The warm-up runs instance i still needs, one at a time (the one-at-a-time path). */
int sr_warm_up(struct ctx *c, int i, int round);

/* study_group.c: the grouped path (study_grouped): start by start, the instances started
 * together and warmed up until steady, then the start's slots, a group's at once.  As
 * run_slots: EXIT_OK with *complete, else the status that stopped it. */
int sr_run_grouped(struct ctx *c, const struct study_slot *slots, int nslots, const char *done,
                   int left, int *breached, int *complete);

#endif
