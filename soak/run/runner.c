/* runner: one scenario from start to end (runner.h): every interval is committed as it
 * closes, so a run that is interrupted, killed or loses its target keeps every interval
 * written so far, and its row always ends done, interrupted or failed. */
#include "runner.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "collect.h"
#include "cpus.h"
#include "dur.h"
#include "env.h"
#include "exitcode.h"
#include "hdr.h"
#include "log.h"
#include "metrics_feed.h"
#include "place.h"
#include "probe.h"
#include "store/recorder.h"
#include "verdict.h"

#define STATUS_EVERY_MS  1000
#define METRICS_EVERY_MS 1000 /* /metrics: the engine's counters collected this often */
#define RUN_MEANS_MAX    4096 /* steady intervals of a step kept for the search's trend check */

/* Everything one run needs while it goes. */
struct run {
	const struct scenario *s;
	const struct runner_opts *o;
	struct recorder rec;
	struct collectors coll;
	struct collectors prof; /* the step's soak-perf profilers, while its window runs */
	struct engine *eng;
	struct istats iv;          /* the interval being collected */
	struct istats acc;         /* the current step's measured window */
	struct env_banner *banner; /* the target's Server banner being asked for, or NULL */
	struct figures steps[SCN_MAX_LEVELS];
	int step_done[SCN_MAX_LEVELS]; /* 1 when steps[i] holds figures */
	int64_t run_t0;                /* monotonic start of the first step */
	int64_t wall0;                 /* wall time at run_t0 */
	int aligned;                   /* an agent: steps and intervals on the group's agreed
	                                * schedule (agent_begin) */
	int stopping;                  /* a signal asked us to stop */
	int failed;                    /* a runtime failure: status 3 */
	int breached;                  /* a threshold failed */
	int open;                      /* the open model */
	int levels[SCN_MAX_LEVELS];    /* closed: VUs per step (the scenario's, or the search's) */
	double rates[SCN_MAX_LEVELS];  /* open: arrivals per second per step */
	int nsteps;                    /* steps planned (a capacity search adds them as it goes) */
	int64_t step_ms;               /* each step's length, warm-up included */
	double max_rate;               /* capacity search: the highest passing rate (0: none) */
	double step_means[RUN_MEANS_MAX];    /* the current step's steady intervals' mean latency */
	int nmeans;                          /* entries in step_means */
	char max_rate_msg[640];              /* its sentence */
	int steady_intervals;                /* measured intervals in all */
	int gen_busy, gen_starved, gen_late; /* measured intervals with each REC_GEN_* flag */
	double gen_cpu_max;                  /* in those intervals: the busiest share of the
	                                      * engine threads' time, % */
	double gen_wait_max;                 /* the longest run-queue wait, % */
	double gen_cpu_late;                 /* in the late ones: the busiest share */
	double gen_wait_late;                /* and the longest run-queue wait */
	int64_t gen_lag_p99_us;              /* the worst start lag p99 of an interval */
	cpu_set_t gen_cpus;                  /* the CPUs the generator may run on (placed) */
	struct cpus_stat gen_mark;           /* their counters at the last interval's close */
	char reason[512];
	/* /metrics (metrics_feed.h) */
	int feeding;             /* 1: a server shows this run */
	struct mfeed feed;       /* what it shows */
	struct metrics *own_srv; /* the scenario's own server (metrics = ADDR:PORT), or NULL */
	struct istats part;      /* counters collected within an interval, fed, then added to iv */
	int64_t last_feed_ms;    /* monotonic time of the last collect for the feed */
	/* status line */
	int64_t last_status_ms;
	struct engine_live last_live;
	int64_t last_p99;
};

/* This process's SIGINT and SIGTERM, as runner_prepare_process counts them. */
static volatile sig_atomic_t sigint_seen, sigterm_seen;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		sigint_seen++;
	else
		sigterm_seen = 1;
}

void runner_prepare_process(struct runner_opts *o)
{
	struct sigaction sa = {0};
	struct rlimit rl;

	/* Every VU may hold a socket: take the hard limit on open files. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	o->sigint_count = &sigint_seen;
	o->sigterm = &sigterm_seen;
}

static int64_t wall_of(const struct run *r, int64_t mono)
{
	return r->wall0 + (mono - r->run_t0);
}

static int signalled(const struct run *r)
{
	return *r->o->sigint_count > 0 || *r->o->sigterm;
}

static void status_line(struct run *r, int step, int64_t now, int64_t step_t0)
{
	const struct scenario *s = r->s;
	struct engine_live lv;
	char el[32], tot[32], p99[32], bar[21];
	int64_t elapsed = now - r->run_t0, total = scn_total_ms(s);
	double secs = (double)(now - r->last_status_ms) / 1000.0;

	engine_live(r->eng, &lv);
	if (r->last_status_ms && secs > 0) {
		double tps = (double)(lv.requests - r->last_live.requests) / secs;
		int64_t dreq = lv.requests - r->last_live.requests;
		double errp =
		    dreq > 0 ? 100.0 * (double)(lv.errors - r->last_live.errors) / (double)dreq : 0;
		double conns = (double)(lv.new_conns - r->last_live.new_conns) / secs;
		int fill = total > 0 ? (int)(20 * elapsed / total) : 0;
		for (int i = 0; i < 20; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[20] = '\0';
		(void)step_t0;
		if (r->open) {
			char lag[32];
			fprintf(
			    stderr,
			    "\r\033[K step %d/%d %.1f/s [%s] %s/%s %9.1f req/s  p99 %s  lag %s  "
			    "in flight %d  err %.2f%%",
			    step + 1, r->nsteps, r->rates[step], bar,
			    dur_format(elapsed / 1000 * 1000, el, sizeof el),
			    dur_format(total, tot, sizeof tot), tps,
			    r->last_p99 ? dur_format_us((double)r->last_p99, p99, sizeof p99) : "-",
			    dur_format_us((double)lv.lag_us, lag, sizeof lag), lv.inflight, errp);
		} else {
			fprintf(stderr,
			        "\r\033[K step %d/%d %5d VUs [%s] %s/%s %9.1f req/s  p99 %s  err "
			        "%.2f%%  "
			        "conn %.1f/s",
			        step + 1, r->nsteps, lv.vus, bar,
			        dur_format(elapsed / 1000 * 1000, el, sizeof el),
			        dur_format(total, tot, sizeof tot), tps,
			        r->last_p99 ? dur_format_us((double)r->last_p99, p99, sizeof p99)
			                    : "-",
			        errp, conns);
		}
		fflush(stderr);
	}
	r->last_live = lv;
	r->last_status_ms = now;
}

/* /metrics: the engine's live totals at each turn of the wait; each second also what it
 * counted since the last collect (into r->part, then the interval's r->iv) and the
 * collectors' newest rows.  -1 when the engine did not hand its counters over. */
static int feed_tick(struct run *r, int64_t now)
{
	struct engine_live lv;
	char err[256];

	if (now - r->last_feed_ms >= METRICS_EVERY_MS) {
		r->last_feed_ms = now;
		if (engine_collect(r->eng, &r->part, err, sizeof err) < 0) {
			snprintf(r->reason, sizeof r->reason, "%s", err);
			return -1;
		}
		mfeed_add(&r->feed, &r->part);
		istats_add(&r->iv, &r->part);
		istats_reset(&r->part);
		mfeed_collectors(&r->feed);
	}
	engine_live(r->eng, &lv);
	mfeed_live(&r->feed, &lv);
	mfeed_publish(&r->feed);
	return 0;
}

/* Waits until `until` (monotonic ms), keeping the status line, the collectors and
 * /metrics watched.  Returns -1 when a signal arrived, -2 on a runtime failure (reason). */
static int wait_until(struct run *r, int step, int64_t until, int64_t step_t0)
{
	for (;;) {
		int64_t now = clock_mono_ms();
		if (signalled(r))
			return -1;
		if (r->feeding && feed_tick(r, now) < 0)
			return -2;
		if (now >= until)
			return 0;
		if (now - r->last_status_ms >= STATUS_EVERY_MS) {
			if (r->o->tty && !r->o->quiet)
				status_line(r, step, now, step_t0);
			else
				r->last_status_ms = now;
			coll_poll(&r->coll, &r->rec);
		}
		int64_t nap = until - now;
		int64_t to_status = r->last_status_ms + STATUS_EVERY_MS - now;
		if (to_status < nap)
			nap = to_status;
		if (nap > 100)
			nap = 100;
		clock_sleep_ms(nap > 0 ? nap : 1, NULL);
	}
}

static void print_interval(struct run *r, int step, const char *phase, int64_t start_mono,
                           int64_t len_ms, const struct istats *iv)
{
	struct figures f;
	char a[32], b[32], c[32];

	struct agent_share share; /* an agent shows its own VUs */

	istats_figures(iv, (double)len_ms / 1000.0, &f);
	if (f.p99_us)
		r->last_p99 = f.p99_us;
	if (r->o->quiet || r->o->tty)
		return;
	if (!strcmp(phase, "drain")) {
		/* The requests in flight when sending stopped: a count, never a rate (a few
		 * answered in milliseconds would read as thousands per second). */
		fprintf(stderr,
		        "run %lld step %d/%d drain   +%s: %lld requests in flight answered in %s, "
		        "p99 %s err %.2f%%\n",
		        (long long)r->rec.run_id, step + 1, r->nsteps,
		        dur_format((start_mono - r->run_t0) / 1000 * 1000, a, sizeof a),
		        (long long)f.requests, dur_format(len_ms, b, sizeof b),
		        dur_format_us((double)f.p99_us, c, sizeof c), f.error_pct);
		return;
	}
	if (r->open) {
		char d[32], e[32];
		fprintf(stderr,
		        "run %lld step %d/%d %.1f/s %-7s +%s: %lld req %.1f/s p50 %s p99 %s "
		        "(service p99 %s, lag p99 %s) dropped %lld err %.2f%%\n",
		        (long long)r->rec.run_id, step + 1, r->nsteps, r->rates[step], phase,
		        dur_format((start_mono - r->run_t0) / 1000 * 1000, a, sizeof a),
		        (long long)f.requests, f.tps, dur_format_us((double)f.p50_us, b, sizeof b),
		        dur_format_us((double)f.p99_us, c, sizeof c),
		        dur_format_us((double)f.svc_p99_us, d, sizeof d),
		        dur_format_us((double)f.lag_p99_us, e, sizeof e), (long long)f.dropped,
		        f.error_pct);
		return;
	}
	agent_share(r->o->agent, r->levels[step], r->rates[step], &share);
	fprintf(stderr,
	        "run %lld step %d/%d %d VUs %-7s +%s: %lld req %.1f/s p50 %s p99 %s err %.2f%% new "
	        "conn %lld\n",
	        (long long)r->rec.run_id, step + 1, r->nsteps, share.vus, phase,
	        dur_format((start_mono - r->run_t0) / 1000 * 1000, a, sizeof a),
	        (long long)f.requests, f.tps, dur_format_us((double)f.p50_us, b, sizeof b),
	        dur_format_us((double)f.p99_us, c, sizeof c), f.error_pct, (long long)f.new_conns);
}

/* Adds a measured interval's generator figures to the run's tally. */
static void tally_generator(struct run *r, const struct rec_gen *g)
{
	if (g->flags & (REC_GEN_BUSY | REC_GEN_STARVED)) {
		r->gen_busy += !!(g->flags & REC_GEN_BUSY);
		r->gen_starved += !!(g->flags & REC_GEN_STARVED);
		r->gen_cpu_max = fmax(r->gen_cpu_max, g->cpu_pct);
		r->gen_wait_max = fmax(r->gen_wait_max, g->wait_pct);
	}
	if (g->flags & REC_GEN_LATE) {
		r->gen_late++;
		r->gen_cpu_late = fmax(r->gen_cpu_late, g->cpu_pct);
		r->gen_wait_late = fmax(r->gen_wait_late, g->wait_pct);
		if (g->lag_p99_us > r->gen_lag_p99_us)
			r->gen_lag_p99_us = g->lag_p99_us;
	}
}

/* The end-of-run warning about the generator, one sentence per cause, each with what was
 * measured and the advice that follows from it. */
static void warn_generator(const struct run *r)
{
	if (r->o->quiet)
		return;
	if (r->gen_busy > 0)
		fprintf(stderr,
		        "soak run: warning: the load generator was busy in %d of %d measured "
		        "intervals (its %d engine thread%s up to %.0f%% busy): it may have set the "
		        "pace, and its own queueing is in those latencies; give it more threads "
		        "(--threads) or more agents\n",
		        r->gen_busy, r->steady_intervals, r->rec.threads,
		        r->rec.threads == 1 ? "" : "s", r->gen_cpu_max);
	if (r->gen_starved > 0)
		fprintf(
		    stderr,
		    "soak run: warning: the load generator waited for a core in %d of %d "
		    "measured intervals (busy %.0f%% at most, but ready and waiting up to "
		    "%.0f%% of the time): other processes on this machine took its CPUs; give "
		    "it CPUs of its own (placement) or another machine; more threads would only "
		    "compete for the same cores\n",
		    r->gen_starved, r->steady_intervals, r->gen_cpu_max, r->gen_wait_max);
	if (r->gen_late > 0) {
		char lag[32];
		fprintf(stderr,
		        "soak run: note: requests went out late in %d of %d measured intervals "
		        "(start lag p99 up to %s) while the generator was only %.0f%% busy and "
		        "waited %.0f%% for a core: the machine woke or ran it late (timer "
		        "wake-ups, a virtual machine's pause, a stopped process), which more "
		        "threads would not change; that lateness is the start lag, never in the "
		        "latency figures, but arrivals bunched as it caught up, and the server's "
		        "answers to the bunch are in those intervals' figures\n",
		        r->gen_late, r->steady_intervals,
		        dur_format_us((double)r->gen_lag_p99_us, lag, sizeof lag), r->gen_cpu_late,
		        r->gen_wait_late);
	}
}

/* Collects what was counted since the last collect and records it as the interval
 * [start, now) (monotonic); returns -1 on a runtime failure. */
static int close_interval(struct run *r, int step, int64_t start, int64_t now, const char *phase,
                          int steady)
{
	char err[512];
	struct engine_live lv;

	/* With /metrics the counters go through r->part, so that the feed sees each once. */
	if (engine_collect(r->eng, r->feeding ? &r->part : &r->iv, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	engine_live(r->eng, &lv);
	/* The machine's speed now, on this thread, never an engine thread's time. */
	double probe = probe_us();
	r->rec.probe_us = isfinite(probe) ? probe : 0;
	/* How busy the generator's CPUs were, by anyone: with placement, a flaw when full. */
	{
		struct cpus_stat mark;
		if (cpus_sample(&r->gen_cpus, &mark) == 0) {
			r->rec.gen_cpus_busy_pct = cpus_busy_pct(&r->gen_mark, &mark);
			r->gen_mark = mark;
		}
	}
	if (r->feeding) {
		mfeed_add(&r->feed, &r->part);
		istats_add(&r->iv, &r->part);
		istats_reset(&r->part);
		mfeed_live(&r->feed, &lv);
		mfeed_probe(&r->feed, probe);
		mfeed_publish(&r->feed);
	}
	struct rec_gen gen;
	if (rec_interval(&r->rec, step, wall_of(r, start), now - start, phase, lv.vus, &r->iv, &gen,
	                 err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	if (steady) {
		istats_add(&r->acc, &r->iv);
		r->steady_intervals++;
		tally_generator(r, &gen);
		int64_t answered = hdr_total(&r->iv.hist);
		if (r->nmeans < RUN_MEANS_MAX && answered > 0)
			r->step_means[r->nmeans++] = (double)r->iv.lat_sum_us / (double)answered;
	}
	print_interval(r, step, phase, start, now - start, &r->iv);
	istats_reset(&r->iv);
	return 0;
}

/* Checks the step's figures against the thresholds: each verdict is recorded, each
 * failure printed and recorded as an event, and any makes the exit status 1. */
static void check_thresholds(struct run *r, int step, const struct figures *f)
{
	struct scn_thresholds t = r->s->thr;
	struct verdict v[VERDICT_MAX];
	char msg[300], err[256];
	int n;

	/* An agent answers for its share of the load: tps_min is the whole group's. */
	if (r->o->agent && t.tps_min > 0) {
		struct agent_share share;
		agent_share(r->o->agent, r->levels[step], r->rates[step], &share);
		if (r->open && r->rates[step] > 0)
			t.tps_min = t.tps_min * share.rate / r->rates[step];
		else if (r->levels[step] > 0)
			t.tps_min = t.tps_min * share.vus / r->levels[step];
	}
	n = verdict_check(&t, f, v);
	for (int i = 0; i < n; i++) {
		if (rec_threshold(&r->rec, step, v[i].metric, v[i].unit, v[i].limit, v[i].value,
		                  v[i].passed, err, sizeof err) < 0)
			log_warn("%s", err);
		if (v[i].passed)
			continue;
		if (r->open)
			snprintf(msg, sizeof msg, "step %d (%.1f/s): %.200s", step + 1,
			         r->rates[step], v[i].text);
		else
			snprintf(msg, sizeof msg, "step %d (%d VUs): %.200s", step + 1,
			         r->levels[step], v[i].text);
		if (r->o->tty && !r->o->quiet)
			fputc('\n', stderr);
		fprintf(stderr, "soak run: threshold failed: %s\n", msg);
		if (rec_event(&r->rec, "soak", "threshold", msg, err, sizeof err) < 0)
			log_warn("%s", err);
		r->breached = 1;
	}
}

#define DRIFT_MSGS 16 /* drift breaches reported at most */

/* The drift thresholds, once the run is closed: the run read back as `soak report` reads
 * it (o->drift_check), its verdict printed, each breach an event and exit status 1.  A
 * window too short to judge breaches nothing (its verdict says so).  Returns -1 when the
 * run could not be judged. */
static int check_drift(struct run *r)
{
	const struct scn_thresholds *t = &r->s->thr;
	char msgs[DRIFT_MSGS][300], err[512];
	struct buf verdict = {0}; /* the sentence, however long */
	int n;

	if (!r->o->drift_check || (t->drift_tps < 0 && t->drift_mean < 0 && t->drift_p99 < 0))
		return 0;
	n = r->o->drift_check(r->o->db_path, r->rec.run_id, t->drift_tps, t->drift_mean,
	                      t->drift_p99, &msgs[0][0], sizeof msgs[0], DRIFT_MSGS, &verdict, err,
	                      sizeof err);
	if (n < 0) {
		buf_free(&verdict);
		fprintf(stderr, "soak run: drift thresholds not judged: %s\n", err);
		return -1;
	}
	if (!r->o->quiet)
		fprintf(stderr, "soak run: run %lld drift: %s\n", (long long)r->rec.run_id,
		        verdict.oom ? "(out of memory)" : verdict.p ? verdict.p : "");
	buf_free(&verdict);
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "soak run: threshold failed: %s\n", msgs[i]);
		if (rec_event(&r->rec, "soak", "threshold", msgs[i], err, sizeof err) < 0)
			log_warn("%s", err);
		r->breached = 1;
	}
	return 0;
}

/* Stops sending and waits for the requests in flight: at most the longest request
 * timeout plus a second; a second SIGINT drops them at once. */
static void drain(struct run *r)
{
	const struct scenario *s = r->s;
	int64_t limit = clock_mono_ms() + 1000;
	int aborted = 0;

	for (int i = 0; i < s->plan.nreqs; i++)
		if (clock_mono_ms() + s->plan.reqs[i].timeout_ms + 1000 > limit)
			limit = clock_mono_ms() + s->plan.reqs[i].timeout_ms + 1000;
	engine_stop(r->eng, 0);
	while (engine_wait(r->eng, 50) < 0 && clock_mono_ms() < limit) {
		if (*r->o->sigint_count > 1 && !aborted) {
			engine_stop(r->eng, 1);
			aborted = 1;
		}
	}
	engine_stop(r->eng, 1);
}

/* A step's timeline (monotonic ms) and the measured window it has made so far. */
struct step {
	int k;                      /* the step's index */
	int last;                   /* the run ends with it (its requests in flight go in a
	                             * drain interval) */
	int cont;                   /* a resumed run's step that the stop cut, run for what was
	                             * left of it */
	int64_t t0;                 /* the step's start */
	int64_t load0;              /* where its load starts */
	int64_t ramp_end, warm_end; /* where its ramp-up and warm-up end */
	int64_t end;                /* where it ends */
	int64_t base;               /* interval boundaries fall on multiples of the interval
	                             * counted from here */
	struct agent_share share;   /* what this agent runs of it */
	int64_t win_start, win_end; /* the steady intervals' span; -1: none yet */
	int profiling;              /* its window's profilers are running (r->prof) */
};

static const char *const phase_name[] = {
    [MPH_RAMPUP] = "rampup", [MPH_WARMUP] = "warmup", [MPH_STEADY] = "steady"};

static void plan_step(const struct run *r, int k, int last, struct step *st)
{
	const struct scenario *s = r->s;
	const struct runner_resume *rs = r->o->resume;
	int64_t now0 = clock_mono_ms();

	st->k = k;
	st->last = last;
	/* The step a resumed run's stop cut runs what was left of it: it counts as begun as
	 * long before now as it had run before the gap (the gap moves its end, not shortens
	 * it), the load starting again from a new ramp-up and warm-up. */
	st->cont = rs && k == rs->step && rs->step_started_ms >= 0;
	int64_t ran = st->cont && rs->gap_from_ms > rs->step_started_ms
	                  ? rs->gap_from_ms - rs->step_started_ms
	                  : 0;
	/* agents: the step begins on the group's schedule, not when the last one ended */
	st->t0 = r->aligned ? r->run_t0 + k * s->duration_ms : now0 - ran;
	st->load0 = st->cont ? now0 : st->t0;
	st->ramp_end = st->load0 + s->rampup_ms;
	st->warm_end = st->ramp_end + s->warmup_ms;
	st->end = st->t0 + r->step_ms;
	/* Interval boundaries fall on multiples of the interval counted from `base`: the
	 * step's start, or for agents the wall clock's, so every agent's coincide. */
	st->base = r->aligned ? r->run_t0 - r->wall0 % s->interval_ms : st->t0;
	st->win_start = st->win_end = -1;
	st->profiling = 0;
	agent_share(r->o->agent, r->levels[k], r->rates[k], &st->share);
}

/* The step's row (a continued step has one), the engine set to its load, the window's
 * figures started (a continued step's from its part before the gap).  0, or -1 with
 * r->reason. */
static int begin_step(struct run *r, const struct step *st)
{
	const struct runner_resume *rs = r->o->resume;
	char err[512];

	if ((!st->cont && rec_step_begin(&r->rec, st->k, st->share.vus, st->share.rate,
	                                 wall_of(r, st->t0), r->step_ms, err, sizeof err) < 0) ||
	    (r->o->agent && agent_record_step(r->rec.db, r->rec.run_id, st->k, r->levels[st->k],
	                                      err, sizeof err) < 0)) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	int64_t ramp = r->aligned
	                   ? (st->ramp_end > clock_mono_ms() ? st->ramp_end - clock_mono_ms() : 0)
	                   : r->s->rampup_ms;
	if (r->open)
		engine_set_rate(r->eng, st->share.rate, ramp);
	else
		engine_set_vus(r->eng, st->share.vus, ramp);
	istats_reset(&r->acc);
	if (st->cont && rs->prior)
		istats_add(&r->acc, rs->prior); /* the window's part before the gap */
	r->nmeans = 0;
	return 0;
}

/* Where the interval that begins at `from` ends: the next boundary, a phase change or
 * the step's end, whichever comes first. */
static int64_t interval_end(const struct run *r, const struct step *st, int64_t from)
{
	int64_t next = from + r->s->interval_ms - (from - st->base) % r->s->interval_ms;

	if (from < st->ramp_end && next > st->ramp_end)
		next = st->ramp_end;
	if (from < st->warm_end && next > st->warm_end)
		next = st->warm_end;
	if (next > st->end)
		next = st->end;
	return next;
}

/* Profilers start this long before the measured window: perf takes a second or more to
 * attach on a busy machine, and what it samples before the window is not counted. */
#define PROFILE_LEAD_MS 5000

/* The step's measured window is near: its profilers (soak-perf) start, counting samples
 * from the window's start on, never the warm-up's.  One that cannot start is a warning:
 * the run goes on without its profile. */
static void profile_window(struct run *r, struct step *st)
{
	char err[256];

	st->profiling = 1;
	if (coll_profile(&r->prof, r->s, r->o->db_path, r->rec.run_id, st->k, st->warm_end,
	                 r->o->profile, err, sizeof err) < 0)
		log_warn("no CPU profile of step %d: %s", st->k + 1, err);
}

/* The step's window is over: its profilers store what they sampled (a fold of a few
 * thousand stacks: well within the time given). */
static void profile_done(struct run *r, struct step *st)
{
	if (st->profiling)
		coll_stop(&r->prof, 60000);
	st->profiling = 0;
}

/* The step's intervals until its end or a signal.  Intervals are aligned on st->base and
 * cut at phase changes, so the measured window is made of whole intervals.  An agent
 * counts on its planned boundaries (the few ms a close takes are not its interval's
 * business).  0, or -1 on a failure (r->reason). */
static int step_intervals(struct run *r, struct step *st)
{
	int64_t start = st->load0;
	int64_t pstart = st->t0; /* agents: the planned start of the interval being counted */

	for (;;) {
		int64_t from = r->aligned ? pstart : start;
		int64_t next = interval_end(r, st, from);
		enum mphase ph = from < st->ramp_end   ? MPH_RAMPUP
		                 : from < st->warm_end ? MPH_WARMUP
		                                       : MPH_STEADY;
		if (r->aligned && next <= clock_mono_ms() && next < st->end) {
			pstart = next; /* a late agent skips the intervals already over */
			continue;
		}
		if (r->feeding)
			mfeed_step(&r->feed, st->k, r->nsteps, st->share.vus, st->share.rate, ph);
		if (!st->profiling && st->warm_end < st->end && next > st->warm_end - PROFILE_LEAD_MS)
			profile_window(r, st);
		int w = wait_until(r, st->k, next, st->t0);
		if (w == -2)
			return -1;
		int sig = w < 0;
		if (sig) {
			/* Stop sending, let what is in flight finish, then record the partial
			 * interval.  A second SIGINT drops the requests in flight. */
			r->stopping = 1;
			drain(r);
		} else if (next >= st->end && st->last) {
			/* The run's end: no new requests from here; those in flight are recorded
			 * in a last `drain` interval, outside the measured window, so every
			 * request sent is accounted for. */
			engine_stop(r->eng, 0);
		}
		int64_t now = clock_mono_ms();
		int64_t to = r->aligned && !sig ? next : now;
		if (close_interval(r, st->k, from, to, phase_name[ph], ph == MPH_STEADY) < 0)
			return -1;
		if (ph == MPH_STEADY) {
			if (st->win_start < 0)
				st->win_start = from;
			st->win_end = to;
		}
		start = now;
		pstart = next;
		if (sig || now >= st->end)
			return 0;
	}
}

/* The run's last step: the requests in flight when it ended, as a drain interval. */
static int drain_step(struct run *r, const struct step *st)
{
	int64_t d0 = r->aligned ? st->end : clock_mono_ms();

	if (r->feeding) {
		mfeed_step(&r->feed, st->k, r->nsteps, st->share.vus, st->share.rate, MPH_DRAIN);
		mfeed_publish(&r->feed);
	}
	drain(r);
	return close_interval(r, st->k, d0, clock_mono_ms(), "drain", 0);
}

/* The step's figures over its measured window, recorded and checked against the
 * thresholds.  A resumed step's window spans the gap and the new ramp-up and warm-up:
 * they are left out of its seconds.  0, or -1 with r->reason. */
static int close_window(struct run *r, const struct step *st)
{
	const struct runner_resume *rs = r->o->resume;
	int before = st->cont && rs->prior, after = st->win_start >= 0;
	int k = st->k;
	char err[512];

	if (!before && !after)
		return 0;
	int64_t wfrom = before ? rs->prior_from_ms : wall_of(r, st->win_start);
	int64_t wto = after ? wall_of(r, st->win_end) : rs->prior_to_ms;
	r->rec.unmeasured_ms = before && after ? wall_of(r, st->win_start) - rs->prior_to_ms : 0;
	istats_figures(&r->acc, (double)(wto - wfrom - r->rec.unmeasured_ms) / 1000.0,
	               &r->steps[k]);
	r->step_done[k] = 1;
	if (rec_step_end(&r->rec, k, wfrom, wto, &r->acc, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	check_thresholds(r, k, &r->steps[k]);
	return 0;
}

/* One step: ramp-up, warm-up, measured window, interval by interval.  `last`: the run ends
 * with it (its requests in flight go in a drain interval). */
static int run_step(struct run *r, int k, int last)
{
	struct step st;

	plan_step(r, k, last, &st);
	if (k == 0 && !r->aligned && !r->o->resume) {
		r->run_t0 = st.t0;
		r->wall0 = clock_wall_ms();
	}
	if (r->aligned && st.end <= clock_mono_ms())
		return 0; /* a late agent joins the group where it is: this step is over */
	if (begin_step(r, &st) < 0 || step_intervals(r, &st) < 0) {
		profile_done(r, &st);
		return -1;
	}
	profile_done(r, &st);
	if (last && !r->stopping && drain_step(r, &st) < 0)
		return -1;
	return close_window(r, &st);
}

/* Agents: records the agent's place in the group, waits for the group's agreed start and
 * takes it as the run's origin (agent.h).  -1 when a signal came first (r->stopping) or
 * the run cannot go on (r->failed, r->reason). */
static int agent_begin(struct run *r)
{
	struct agent *a = r->o->agent;
	int64_t now = clock_wall_ms(), t0 = agent_plan_start(a, r->s, now), off, mono;
	int64_t late = now > t0 ? now - t0 : 0;
	char err[512], when[40];
	int have_off = agent_clock_offset(a, r->o->db_path, &off, err, sizeof err) == 0;

	if (!have_off)
		log_warn("agent %d/%d: clock not compared with the database's file system: %s",
		         a->index, a->count, err);
	if (late >= scn_total_ms(r->s)) {
		snprintf(r->reason, sizeof r->reason,
		         "agent %d/%d came %.1f s after the group's start: its run is over",
		         a->index, a->count, (double)late / 1000);
		agent_plan_next(a, r->s, t0);
		r->failed = 1;
		return -1;
	}
	int rc = agent_record_run(r->rec.db, r->rec.run_id, a, t0, late, have_off ? &off : NULL,
	                          err, sizeof err);
	agent_plan_next(a, r->s, t0); /* the queue's next scenario starts after this one */
	if (rc < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		r->failed = 1;
		return -1;
	}
	if (!r->o->quiet)
		fprintf(stderr, "soak run: agent %d/%d (%s) of group '%s': %s %s%s\n", a->index,
		        a->count, a->source, a->group,
		        late ? "late: joining the run that started" : "starting at",
		        clock_iso(t0, when, sizeof when), late ? " where it is now" : "");
	if (agent_wait(t0, r->o->sigint_count, r->o->sigterm, &mono) < 0) {
		r->stopping = 1;
		return -1;
	}
	r->run_t0 = mono;
	r->wall0 = t0;
	r->aligned = 1;
	return 0;
}

/* A side-by-side run: waits for the instant its group starts at and counts its intervals
 * from it, as its partners do.  -1 when a signal came first. */
static int start_together(struct run *r)
{
	int64_t mono;

	if (agent_wait(r->o->start_at_ms, r->o->sigint_count, r->o->sigterm, &mono) < 0) {
		r->stopping = 1;
		return -1;
	}
	r->run_t0 = mono;
	r->wall0 = r->o->start_at_ms;
	r->aligned = 1;
	return 0;
}

static void print_summary(const struct run *r)
{
	FILE *out = r->o->json ? stderr : stdout;
	const struct scenario *s = r->s;
	char a[16], b[16], c[16], d[16], dur[32], lv[32];

	fprintf(out, "\nrun %lld: %s (label %s)\n", (long long)r->rec.run_id, s->name, s->label);
	fprintf(out, "%-5s %7s %9s %10s %10s %9s %9s %9s %9s %8s %10s\n", "step",
	        r->open ? "rate/s" : "VUs", "window", "requests", "TPS", "avg", "90%", "95%", "99%",
	        "error%", r->open ? "dropped" : "new conns");
	for (int k = 0; k < r->nsteps; k++) {
		const struct figures *f = &r->steps[k];
		if (!r->step_done[k])
			continue;
		if (r->open)
			snprintf(lv, sizeof lv, "%.1f", r->rates[k]);
		else
			snprintf(lv, sizeof lv, "%d", r->levels[k]);
		fprintf(out, "%-5d %7s %9s %10lld %10.1f %9s %9s %9s %9s %8.2f %10lld\n", k + 1, lv,
		        dur_format((int64_t)(f->seconds * 1000 + 0.5), dur, sizeof dur),
		        (long long)f->requests, f->tps, dur_format_us(f->mean_us, a, sizeof a),
		        dur_format_us((double)f->p90_us, b, sizeof b),
		        dur_format_us((double)f->p95_us, c, sizeof c),
		        dur_format_us((double)f->p99_us, d, sizeof d), f->error_pct,
		        (long long)(r->open ? f->dropped : f->new_conns));
	}
	if (r->open)
		for (int k = 0; k < r->nsteps; k++) {
			const struct figures *f = &r->steps[k];
			if (!r->step_done[k])
				continue;
			fprintf(
			    out,
			    "step %d: latency from the intended start; service time p50 %s p99 %s, "
			    "start lag p99 %s\n",
			    k + 1, dur_format_us((double)f->svc_p50_us, a, sizeof a),
			    dur_format_us((double)f->svc_p99_us, b, sizeof b),
			    dur_format_us((double)f->lag_p99_us, c, sizeof c));
		}
	for (int k = 0; k < r->nsteps; k++) {
		const struct figures *f = &r->steps[k];
		if (!r->step_done[k] || f->tls_full + f->tls_resumed == 0)
			continue;
		fprintf(out,
		        "step %d: TLS handshakes %lld full, %lld resumed; handshake mean %s p50 %s "
		        "p99 %s%s\n",
		        k + 1, (long long)f->tls_full, (long long)f->tls_resumed,
		        dur_format_us(f->tls_mean_us, a, sizeof a),
		        dur_format_us((double)f->tls_p50_us, b, sizeof b),
		        dur_format_us((double)f->tls_p99_us, c, sizeof c),
		        s->plan.tls.insecure ? " (certificates not verified: insecure)" : "");
	}
	fflush(out);
}

#define SEARCH_BISECT     4    /* bisections after the first failing rate... */
#define SEARCH_RESOLUTION 0.03 /* ...or fewer, once the bracket is this narrow */
#define SEARCH_LINEAR     8    /* steps from --from to --to */
#define SEARCH_DOUBLINGS  16   /* without --to: the rate doubles at most this often */

/* After an overloaded step: no arrivals until the requests in flight are answered (at most
 * the longest request timeout), recorded as the step's drain interval, so the next step
 * does not start behind a backlog the last one left. */
static int settle(struct run *r, int k)
{
	int64_t d0 = clock_mono_ms(), limit = d0 + 1000;
	struct engine_live lv;

	for (int i = 0; i < r->s->plan.nreqs; i++)
		if (d0 + r->s->plan.reqs[i].timeout_ms + 1000 > limit)
			limit = d0 + r->s->plan.reqs[i].timeout_ms + 1000;
	engine_set_rate(r->eng, 0, 0);
	for (engine_live(r->eng, &lv); lv.inflight > 0 && clock_mono_ms() < limit && !signalled(r);
	     engine_live(r->eng, &lv))
		clock_sleep_ms(20, NULL);
	return close_interval(r, k, d0, clock_mono_ms(), "drain", 0);
}

/* A rate the server does not keep up with builds a queue: the latency still rises at the
 * end of the step, though a short step may end before it crosses the SLO.  1 when the
 * last third's mean latency is within SUSTAIN_RISE of the first third's (or within
 * SUSTAIN_US of it); else 0 and why. */
#define SUSTAIN_RISE 1.5
#define SUSTAIN_US   5000
static int sustained(const struct run *r, char *why, size_t whylen)
{
	int third = r->nmeans / 3;
	double a = 0, b = 0;
	char x[32], y[32];

	if (third < 1)
		return 1; /* too few intervals to see a trend */
	for (int i = 0; i < third; i++) {
		a += r->step_means[i];
		b += r->step_means[r->nmeans - third + i];
	}
	a /= third;
	b /= third;
	if (b <= a * SUSTAIN_RISE || b - a <= SUSTAIN_US)
		return 1;
	snprintf(why, whylen,
	         "latency still rising within the step (mean %s in its first third, %s "
	         "in its last): the server does not keep up with this rate",
	         dur_format_us(a, x, sizeof x), dur_format_us(b, y, sizeof y));
	return 0;
}

/* Runs step k at `rate`; 1 when it met the SLO, 0 when not, -1 on a failure or a signal.
 * `why` says what failed. */
static int search_step(struct run *r, int k, double rate, char *why, size_t whylen)
{
	int ok;
	r->rates[k] = rate;
	r->levels[k] = 0;
	r->nsteps = k + 1;
	if (run_step(r, k, 0) < 0 || r->stopping)
		return -1;
	if (!r->step_done[k]) {
		snprintf(why, whylen, "no measured window");
		ok = 0;
	} else {
		ok = slo_check(r->o->search.slo, &r->steps[k], why, whylen) &&
		     sustained(r, why, whylen);
	}
	if (!ok && settle(r, k) < 0)
		return -1;
	return ok;
}

/* The capacity search: up from --from (linearly to --to, or doubling), then bisection
 * between the highest passing and the lowest failing rate.  Records the answer as a
 * `max_rate` event and prints it. */
static int search(struct run *r)
{
	const struct runner_search *q = &r->o->search;
	double from = q->from > 0 ? q->from : r->s->rate, pass = 0, fail = 0;
	double step = q->to > from ? (q->to - from) / SEARCH_LINEAR : 0;
	char why[256] = "", fail_why[256] = "", msg[640], err[256], a[32], b[32];
	int k = 0, rc;

	for (double rate = from; k < SCN_MAX_LEVELS;) {
		rc = search_step(r, k++, rate, why, sizeof why);
		if (rc < 0)
			goto end;
		if (!rc) {
			fail = rate;
			snprintf(fail_why, sizeof fail_why, "%s", why);
			break;
		}
		pass = rate;
		if (step > 0 ? rate >= q->to - step / 2 : k > SEARCH_DOUBLINGS)
			break;
		rate = step > 0 ? rate + step : rate * 2;
	}
	for (int i = 0; fail > 0 && pass > 0 && i < SEARCH_BISECT && k < SCN_MAX_LEVELS &&
	                (fail - pass) / pass > SEARCH_RESOLUTION;
	     i++) {
		double mid = (pass + fail) / 2;
		rc = search_step(r, k++, mid, why, sizeof why);
		if (rc < 0)
			goto end;
		if (rc)
			pass = mid;
		else {
			fail = mid;
			snprintf(fail_why, sizeof fail_why, "%s", why);
		}
	}
end:
	/* The last step's requests in flight, as a drain interval. */
	if (!r->stopping && !r->failed && k > 0) {
		int64_t d0 = clock_mono_ms();
		drain(r);
		if (close_interval(r, k - 1, d0, clock_mono_ms(), "drain", 0) < 0)
			return -1;
	}
	if (r->stopping || r->reason[0])
		return r->reason[0] ? -1 : 0;
	snprintf(a, sizeof a, "%.1f/s", pass);
	snprintf(b, sizeof b, "%.1f/s", fail);
	if (pass > 0 && fail > 0)
		snprintf(msg, sizeof msg, "highest rate meeting %s: %s (%s failed: %.200s)",
		         q->slo->text, a, b, fail_why);
	else if (pass > 0)
		snprintf(msg, sizeof msg,
		         "highest rate meeting %s: at least %s (the highest tried)", q->slo->text,
		         a);
	else
		snprintf(msg, sizeof msg, "no rate tried meets %s: %s failed: %.200s", q->slo->text,
		         b, fail_why);
	if (rec_event(&r->rec, "soak", "max_rate", msg, err, sizeof err) < 0)
		log_warn("%s", err);
	r->max_rate = pass;
	snprintf(r->max_rate_msg, sizeof r->max_rate_msg, "%s", msg);
	return 0;
}

/* Before anything is recorded: the target answers, the scenario's own /metrics listens
 * (a port in use fails the run here, not after its row exists), the interval counters
 * exist; then the run's row (new, or the resumed one taken over).  EXIT_OK, or
 * EXIT_RUNTIME after saying why. */
static int open_run(struct run *r)
{
	const struct scenario *s = r->s;
	const struct runner_opts *o = r->o;
	char err[512];

	if (engine_preflight(&s->plan, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s: %s\n", s->file, err);
		return EXIT_RUNTIME;
	}
	if (!o->metrics && s->metrics) {
		if (metrics_start(&r->own_srv, s->metrics, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: %s: metrics: %s\n", s->file, err);
			return EXIT_RUNTIME;
		}
		fprintf(stderr, "soak run: live metrics on %s\n",
		        metrics_url(r->own_srv, (char[320]){0}, 320));
	}
	if ((r->open ? istats_init_open(&r->iv, err, sizeof err) < 0 ||
	                   istats_init_open(&r->acc, err, sizeof err) < 0 ||
	                   istats_init_open(&r->part, err, sizeof err) < 0
	             : istats_init(&r->iv, err, sizeof err) < 0 ||
	                   istats_init(&r->acc, err, sizeof err) < 0 ||
	                   istats_init(&r->part, err, sizeof err) < 0) ||
	    (plan_uses_tls(&s->plan) && (istats_init_tls(&r->iv, err, sizeof err) < 0 ||
	                                 istats_init_tls(&r->acc, err, sizeof err) < 0 ||
	                                 istats_init_tls(&r->part, err, sizeof err) < 0)) ||
	    rec_open(&r->rec, o->db_path, err, sizeof err) < 0 ||
	    (o->resume
	         ? rec_run_resume(&r->rec, s, o->resume->run_id, o->resume->status_was,
	                          o->resume->heartbeat_was, o->resume->gap_from_ms, err,
	                          sizeof err) < 0
	         : rec_run_begin(&r->rec, s, curl_version(), clock_wall_ms(), err, sizeof err) <
	                   0 ||
	               (o->search.slo && rec_set_mode(&r->rec, "sweep", err, sizeof err) < 0))) {
		fprintf(stderr, "soak run: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (o->resume) {
		/* The run's clock restarts here; its steps keep their wall-clock places. */
		r->run_t0 = clock_mono_ms();
		r->wall0 = clock_wall_ms();
		for (int k = 0; o->resume->done && k < o->resume->step; k++) {
			r->steps[k] = o->resume->done[k];
			r->step_done[k] = o->resume->done[k].seconds > 0;
		}
	}
	return EXIT_OK;
}

/* ${nonce}: random per run, so usernames never collide with an earlier run's. */
static void make_nonce(const struct run *r, char nonce[9])
{
	static const char a36[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t x =
	    (uint64_t)clock_mono_ns() ^ ((uint64_t)r->rec.run_id << 40) ^ (uint64_t)getpid();

	for (int i = 0; i < 8; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		nonce[i] = a36[(x >> 33) % 36];
	}
	nonce[8] = '\0';
}

/* The run's first line: what it is, where it goes, how long it takes (a resumed run: how
 * long it was stopped and what is left). */
static void announce(const struct run *r)
{
	const struct scenario *s = r->s;
	const struct runner_opts *o = r->o;
	const struct runner_resume *rs = o->resume;

	if (o->quiet)
		return;
	if (rs) {
		int64_t ran = rs->step_started_ms >= 0 && rs->gap_from_ms > rs->step_started_ms
		                  ? rs->gap_from_ms - rs->step_started_ms
		                  : 0;
		int64_t left = r->step_ms - ran;
		left += (int64_t)(s->nlevels - rs->step - 1) * r->step_ms;
		fprintf(stderr,
		        "soak run: resuming run %lld '%s' (label %s) in %s after %s without load: "
		        "step %d of %d, %s left\n",
		        (long long)r->rec.run_id, s->name, s->label, o->db_path,
		        dur_format((r->wall0 - rs->gap_from_ms) / 1000 * 1000, (char[32]){0}, 32),
		        rs->step + 1, s->nlevels,
		        dur_format(left / 1000 * 1000, (char[32]){0}, 32));
	} else {
		fprintf(stderr,
		        "soak run: run %lld '%s' (label %s) into %s: %d step%s, %s, client %s\n",
		        (long long)r->rec.run_id, s->name, s->label, o->db_path, s->nlevels,
		        s->nlevels == 1 ? "" : "s", dur_format(scn_total_ms(s), (char[32]){0}, 32),
		        engine_client(&s->plan, NULL, 0));
	}
	if (plan_uses_tls(&s->plan) && s->plan.tls.insecure)
		fprintf(stderr,
		        "soak run: TLS: the server's certificate is NOT verified (insecure)\n");
}

/* The run cannot go on: why, for its row and the last line. */
static int fail(struct run *r, const char *why)
{
	snprintf(r->reason, sizeof r->reason, "%s", why);
	r->failed = 1;
	return -1;
}

/* The engine's threads, with VUs enough for the busiest step of this agent's share.
 * 0, or -1 (fail). */
static int start_engine(struct run *r, const char *nonce)
{
	const struct scenario *s = r->s;
	const struct runner_opts *o = r->o;
	struct engine_opts eo = {0};
	char err[512];
	int max_vus = 0;

	for (int k = 0; k < s->nlevels; k++) {
		struct agent_share share;
		agent_share(o->agent, s->levels[k], s->rates[k], &share);
		if (share.vus > max_vus)
			max_vus = share.vus;
	}
	eo.plan = &s->plan;
	eo.run_id = r->rec.run_id;
	eo.nonce = nonce;
	eo.threads = o->threads > 0 ? o->threads : s->threads;
	eo.max_vus = max_vus;
	eo.loop = o->loop;
	eo.agent_index = o->agent ? o->agent->index : 1;
	eo.agent_count = o->agent ? o->agent->count : 1;
	if (engine_start(&r->eng, &eo, err, sizeof err) < 0)
		return fail(r, err);
	log_info("engine: %d threads, %s loop", engine_threads(r->eng), engine_loop_name(r->eng));
	if (rec_set_engine(&r->rec, engine_threads(r->eng), engine_client_name(r->eng), err,
	                   sizeof err) < 0)
		return fail(r, err);
	return 0;
}

/* /metrics, when the command or the scenario serves it: the collectors started just now,
 * so it shows their rows from here on (a resumed run's older rows are from before its
 * gap).  0, or -1 (fail). */
static int start_feed(struct run *r)
{
	const struct runner_opts *o = r->o;
	struct mfeed_run fr = {.run_id = r->rec.run_id,
	                       .label = r->s->label,
	                       .agent = o->agent ? o->agent->index : 1,
	                       .agents = o->agent ? o->agent->count : 1,
	                       .client = engine_client_name(r->eng),
	                       .threads = engine_threads(r->eng),
	                       .started_ms = o->resume ? r->wall0 : clock_wall_ms(),
	                       .since_ms = clock_wall_ms() - 1000};
	char err[512], why[512];

	if (!o->metrics && !r->own_srv)
		return 0;
	if (mfeed_init(&r->feed, o->metrics ? o->metrics : r->own_srv, r->s, r->rec.db, &fr, err,
	               sizeof err) < 0) {
		snprintf(why, sizeof why, "metrics: %.400s", err);
		return fail(r, why);
	}
	r->feeding = 1;
	r->last_feed_ms = clock_mono_ms();
	return 0;
}

/* Everything the load needs, in order: the placement (the collectors and the engine's
 * threads inherit it), the collectors, the engine, /metrics, and the record of what ran
 * (a report needs it to say whether two labels differ in more than the label; missing
 * facts never stop a run).  0, or -1 (fail). */
static int start_load(struct run *r, const char *nonce)
{
	const struct scenario *s = r->s;
	char said[512], err[512];
	int erc;

	if (place_apply(s, &r->gen_cpus, said, sizeof said, err, sizeof err) < 0)
		return fail(r, err);
	if (said[0] && !r->o->quiet)
		fprintf(stderr, "soak run: placed: %s\n", said);
	cpus_sample(&r->gen_cpus, &r->gen_mark);
	if (coll_start(&r->coll, s, r->o->db_path, r->rec.run_id, err, sizeof err) < 0)
		return fail(r, err);
	if (start_engine(r, nonce) < 0 || start_feed(r) < 0)
		return -1;
	struct env_run er = {.s = s,
	                     .threads = engine_threads(r->eng),
	                     .loop = engine_loop_name(r->eng),
	                     .curl_version = curl_version()};
	r->banner = env_capture(r->rec.db, r->rec.run_id, &er, &erc, err, sizeof err);
	if (erc < 0)
		log_warn("cannot record the run's environment: %s", err);
	return 0;
}

/* The load itself: an agent waits for its group's start; then the capacity search, or
 * the steps (a resumed run from the step its stop cut). */
static void drive(struct run *r)
{
	const struct runner_opts *o = r->o;

	if (o->agent && agent_begin(r) < 0)
		return;
	if (o->start_at_ms > 0 && !o->agent && start_together(r) < 0)
		return;
	if (o->search.slo) {
		if (search(r) < 0)
			r->failed = 1;
		return;
	}
	for (int k = o->resume ? o->resume->step : 0; k < r->nsteps && !r->stopping; k++)
		if (run_step(r, k, k == r->nsteps - 1) < 0) {
			r->failed = 1;
			break;
		}
}

/* Stops the load and closes the run's row as done, interrupted or failed; the drift
 * thresholds, the step table, the search's answer and the generator's warnings follow.
 * Returns the exit status. */
static int end_run(struct run *r)
{
	const struct runner_opts *o = r->o;
	const char *status, *why;
	int drift_unjudged = 0;
	char err[512];
	struct engine_facts facts = {0};

	if (r->eng)
		engine_facts(r->eng, &facts);
	engine_free(r->eng);
	r->eng = NULL;
	if (r->feeding) {
		mfeed_collectors(&r->feed);
		mfeed_end(&r->feed);
		mfeed_release(&r->feed);
		r->feeding = 0;
	}
	if (o->tty && !o->quiet)
		fputc('\n', stderr);
	coll_poll(&r->coll, &r->rec);
	coll_stop(&r->coll, 5000);
	status = r->failed ? "failed" : r->stopping ? "interrupted" : "done";
	why = r->failed ? r->reason : r->stopping ? (*o->sigterm ? "SIGTERM" : "SIGINT") : NULL;
	if (r->failed) { /* as it is stored: it may quote a URL or an answer */
		char *shown = redact_text(&r->rec.redact, r->reason);
		fprintf(stderr, "soak run: %s\n", shown ? shown : "(out of memory)");
		free(shown);
	}
	if (env_finish(r->rec.db, r->rec.run_id, r->banner, &facts, err, sizeof err) < 0)
		log_warn("cannot record the target's Server banner: %s", err);
	r->banner = NULL;
	if (rec_run_end(&r->rec, status, why, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s\n", err);
		r->failed = 1;
	}
	if (!o->quiet)
		fprintf(stderr, "soak run: run %lld %s\n", (long long)r->rec.run_id, status);
	if (!r->failed && check_drift(r) < 0)
		drift_unjudged = 1;
	print_summary(r);
	if (r->max_rate_msg[0] && !o->quiet)
		printf("%s\n", r->max_rate_msg);
	warn_generator(r);
	return r->failed || drift_unjudged ? EXIT_RUNTIME
	       : r->stopping               ? (*o->sigterm ? EXIT_SIGTERM : EXIT_SIGINT)
	       : r->breached               ? EXIT_THRESHOLD
	                                   : EXIT_OK;
}

int runner_run(const struct scenario *s, const struct runner_opts *o)
{
	struct run *r = calloc(1, sizeof *r);
	char err[512], nonce[16];
	int rc;

	if (!r) {
		fprintf(stderr, "soak run: out of memory\n");
		return EXIT_RUNTIME;
	}
	r->s = s;
	r->o = o;
	if (o->run_id)
		*o->run_id = -1;
	r->open = s->plan.model == PLAN_OPEN;
	r->nsteps = s->nlevels;
	memcpy(r->levels, s->levels, sizeof r->levels);
	memcpy(r->rates, s->rates, sizeof r->rates);
	r->step_ms = o->search.step_ms > 0 ? o->search.step_ms : s->duration_ms;
	if ((rc = open_run(r)) != EXIT_OK)
		goto out;
	if (o->run_id)
		*o->run_id = r->rec.run_id;
	if (o->on_begin &&
	    o->on_begin(o->on_begin_arg, r->rec.db, r->rec.run_id, err, sizeof err) < 0)
		fail(r, err);
	else {
		make_nonce(r, nonce);
		announce(r);
		if (start_load(r, nonce) == 0)
			drive(r);
	}
	rc = end_run(r);
out:
	rec_close(&r->rec);
	istats_release(&r->iv);
	istats_release(&r->acc);
	istats_release(&r->part);
	metrics_free(r->own_srv);
	free(r);
	return rc;
}
