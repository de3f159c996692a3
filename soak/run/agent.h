/*
 * agent — one load generator's share of a study that several drive together
 * (`soak run --agent K/N --group G --start-at T`), and the plan that makes the agents'
 * intervals line up, so that `soak merge` can add them exactly (agent_merge.h).
 *
 * What it owns:
 *   - where K and N come from: --agent K/N, or --agent auto from a Slurm job array
 *     (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT/_MAX, _STEP), an
 *     srun step (SLURM_PROCID, SLURM_NTASKS) or a Kubernetes Indexed Job
 *     (JOB_COMPLETION_INDEX, with N from --agents);
 *   - the share of a step an agent runs (agent_share(): VUs K, K+N, K+2N, ...; agent_id.h
 *     numbers ${vu} and ${seq} the same way);
 *   - the start: --start-at (RFC 3339 or epoch seconds) or --start-in D, and for each
 *     scenario of a queue (`soak run a.ini b.ini`) an instant every agent computes alike;
 *   - the alignment: interval boundaries on wall-clock multiples of the interval, phase
 *     changes at the same offsets from the common start;
 *   - what an agent records about itself (sql/003_agents.sql), including its clock's
 *     offset against the file system that holds its database.
 *
 * ${nonce} stays per agent (each draws its own, as any run does): a shared nonce would
 * make two agents that expand the same text — the same CSV row, a template without
 * ${seq}/${vu}/${agent} — register the same name; a per-agent nonce keeps every template
 * exactly as collision-free as on one machine.  ${run} is the agent's own run id, equal
 * on every agent's fresh file: use ${nonce}, ${seq} or ${agent} for unique names.
 *
 * All functions are single-threaded; the time and share functions are pure.  Errors: 0 or
 * -1 with a lower-case message in err, naming the option or variable at fault.
 */
#ifndef SOAK_AGENT_H
#define SOAK_AGENT_H

#include <signal.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

#define AGENT_MAX       10000 /* agents of one group */
#define AGENT_GROUP_MAX 128   /* bytes of a group name, NUL included */
/* A scenario of a queue starts this long after the previous one's planned end (its
 * longest request timeout on top), so every agent has drained and closed its run. */
#define AGENT_QUEUE_GAP_MS 10000

struct agent {
	int index;                   /* K, 1..count */
	int count;                   /* N, 1..AGENT_MAX */
	const char *source;          /* where K/N came from, for messages (static text) */
	char group[AGENT_GROUP_MAX]; /* --group: ties the agents of one study together */
	int64_t start_at_ms;         /* --start-at, wall-clock epoch ms; -1: not given */
	int64_t start_in_ms;         /* --start-in; -1: not given */
	const char *clock_dir;       /* --clock-dir: the folder whose file system's clock the
	                              * agent's is compared with; NULL: the database's folder */
	int seq;                     /* 0-based place of the current scenario in the queue */
	int64_t next_start_ms;       /* agreed start of the next scenario of the queue; -1
	                              * before the first */
};

/* What one agent runs of one step: its VUs (closed), or its share of the rate (open:
 * rate / N, Poisson streams drawn independently, constant schedules offset by agent). */
struct agent_share {
	int vus;     /* VUs of this agent: those numbered K, K+N, ... up to the step's level */
	double rate; /* open model: this agent's arrivals per second, the step's rate / N */
};

/* Reads an environment variable (getenv, or a table in tests); NULL when unset. */
typedef const char *(*agent_getenv_fn)(const char *name, void *ctx);

/* Everything `soak run` was told about its agent role, as given on the command line
 * (NULL / 0 when not given). */
struct agent_args {
	const char *agent;     /* --agent K/N | auto */
	int agents;            /* --agents N (0: not given) */
	const char *group;     /* --group NAME */
	const char *start_at;  /* --start-at TIME */
	const char *start_in;  /* --start-in D */
	const char *clock_dir; /* --clock-dir DIR */
};

/* Fills a from args, reading K/N from the environment (getenv) for --agent auto.  A group
 * is required unless the scheduler gives one (a Slurm job).  The start options are for
 * agents only, and only one of them.  Returns 0, or -1 with err. */
int agent_setup(struct agent *a, const struct agent_args *args, char *err, size_t errlen);

/* "K/N" (1 <= K <= N <= AGENT_MAX) -> 0 with *k, *n; "auto" -> 1; else -1. */
int agent_parse_spec(const char *s, int *k, int *n, char *err, size_t errlen);

/*
 * --agent auto: K and N from the scheduler's environment, first match wins:
 *   Slurm job array  K = (SLURM_ARRAY_TASK_ID - MIN) / STEP + 1, N = SLURM_ARRAY_TASK_COUNT
 *                    (or (MAX - MIN) / STEP + 1); the default group is
 *                    "slurm-$SLURM_ARRAY_JOB_ID";
 *   Kubernetes       K = JOB_COMPLETION_INDEX + 1, N = agents (--agents, required);
 *   srun step        K = SLURM_PROCID + 1, N = SLURM_NTASKS (when SLURM_STEP_ID is set);
 *                    the default group is "slurm-$SLURM_JOB_ID".
 * agents (> 0) must agree with N where the environment gives N too.  *group_default gets
 * a default group or "".  *source names what was used.
 */
int agent_from_env(agent_getenv_fn get, void *ctx, int agents, int *k, int *n, const char **source,
                   char *group_default, size_t grouplen, char *err, size_t errlen);

/* RFC 3339 ("2026-05-01T12:00:00Z", "...T14:00:00.5+02:00", a space for the T) or epoch
 * seconds ("1777636800", "1777636800.25") -> wall-clock epoch ms. */
int agent_parse_time(const char *s, int64_t *ms, char *err, size_t errlen);

/* The first wall-clock multiple of interval_ms at or after wall_ms. */
int64_t agent_boundary_at_or_after(int64_t wall_ms, int64_t interval_ms);

/* The agreed start of the queue's current scenario s (wall-clock ms), given the time now:
 * the first scenario starts at --start-at as given, or at the first boundary of s's
 * interval at least --start-in (default 0) from now; a later one at the first boundary
 * at or after the previous one's planned end plus the gap (agent_plan_next). */
int64_t agent_plan_start(const struct agent *a, const struct scenario *s, int64_t now_ms);
/* Moves the plan past scenario s, which started (by agreement) at t0_ms. */
void agent_plan_next(struct agent *a, const struct scenario *s, int64_t t0_ms);

/* Agent a's share of a step of `level` VUs (closed) or `rate` per second (open); a NULL
 * agent runs the whole step. */
void agent_share(const struct agent *a, int level, double rate, struct agent_share *out);

/* Sleeps until the wall clock reads t0_ms and returns in *t0_mono the monotonic instant
 * that corresponds to it (in the past when t0_ms has passed), so the caller schedules on
 * the monotonic clock from there.  Returns -1 as soon as *sigint or *sigterm is non-zero. */
int agent_wait(int64_t t0_ms, const volatile sig_atomic_t *sigint,
               const volatile sig_atomic_t *sigterm, int64_t *t0_mono);

/* This host's wall clock against the clock of the file system that holds a->clock_dir, or
 * else db_path's folder (the modification time the file system gives a file created
 * there): positive when this clock is ahead.  On NFS and other network file systems that
 * is the server's clock, so agents that all probe one shared folder are compared against
 * one clock; on a local disk it is this host's own (about 0).  Returns -1 (err) when no
 * file could be made there or the round trip took longer than AGENT_PROBE_MAX_MS (nothing
 * to conclude). */
#define AGENT_PROBE_MAX_MS 200
int agent_clock_offset(const struct agent *a, const char *db_path, int64_t *offset_ms, char *err,
                       size_t errlen);

/* Records a's place in the run row run_id: group, queue place, K, N, the agreed start,
 * how late the agent really started (its run's start becomes start_at_ms + lag_ms), and
 * the clock offset (NULL when offset is NULL). */
int agent_record_run(sqlite3 *db, int64_t run_id, const struct agent *a, int64_t start_at_ms,
                     int64_t lag_ms, const int64_t *offset_ms, char *err, size_t errlen);
/* Records the whole group's concurrency of step idx on the agent's own step row. */
int agent_record_step(sqlite3 *db, int64_t run_id, int idx, int group_level, char *err,
                      size_t errlen);

#endif
