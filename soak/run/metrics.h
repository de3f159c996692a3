/*
 * metrics — the live run in Prometheus' text exposition format (version 0.0.4) on
 * http://ADDR:PORT/metrics (`soak run --metrics`, `soak study --metrics`, a scenario's
 * `metrics = ADDR:PORT`).
 *
 * What it owns: a libmicrohttpd listener (one thread of its own) and the last published
 * snapshot of a run (struct msnap) and of a study (struct mstudy).  Publishing copies a
 * snapshot in under a mutex that only the publisher and the listener take; a scrape copies
 * it out and writes the text on the listener's thread.  The engine's threads never see any
 * of this: the run's aggregating thread fills the snapshot from what it collects anyway
 * (metrics_feed.h) and publishes it, so serving /metrics costs nothing per request.
 *
 * Names follow Prometheus' conventions: a `soak_` prefix, base units (seconds, bytes,
 * ratios), `_total` on counters; every series of a run carries the labels run (its id),
 * label (the system under test) and agent (K of --agent K/N, else 1).  soak-run(1) lists
 * them all; the bucket bounds are chosen in metrics.c.
 *
 * Lifetime: metrics_start() -> metrics_publish_*()... -> metrics_free().  Publishing is
 * for one thread at a time (a run's or a study's own thread); the listener may serve at
 * any moment in between.
 */
#ifndef SOAK_RUN_METRICS_H
#define SOAK_RUN_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/stats.h"
#include "scenario/scenario.h"

/* Bucket bounds (µs) of the latency and start-lag histograms, and of GC pauses. */
#define MET_LAT_BOUNDS 169 /* 24 a decade (IEC 60063's E24 series), 10 µs .. 100 s */
#define MET_GC_BOUNDS  37  /* 6 a decade (E6), 100 µs .. 100 s */

/* A cumulative histogram in Prometheus' shape: counts[i] holds the values <= bound i
 * (not yet summed up: the writer adds them), counts[n] those above the last bound. */
struct mhist {
	uint64_t counts[MET_LAT_BOUNDS + 1];
	double sum_s;   /* sum of the values, seconds */
	uint64_t count; /* values in all */
};

/* The latest samples of one collector source ([collect.NAME]); NAN: not sampled (yet). */
struct msource {
	char name[64];
	double cpu_ratio;            /* cpu_pct / 100: 1 = one core busy, processes summed */
	double rss_bytes, pss_bytes; /* resident and proportional set size */
	double threads, fds, procs;  /* of the processes, summed; procs: how many matched */
	double mem_limit_bytes;      /* the configured memory_limit */
	double host_cpu[4];          /* host-wide user, system, iowait, steal: of all cores */
	double host_mem_used_bytes, host_mem_avail_bytes;
	double sample_s; /* wall time of the newest sample (epoch seconds), NAN: none */
	/* GC (a gc_log): the newest collection's heap, and every pause of the run */
	int gc;                     /* 1: the source follows a GC log */
	double heap_after_bytes;    /* heap left after the newest collection that said so */
	double heap_capacity_bytes; /* the heap's size then */
	struct mhist pauses;        /* stop-the-world pauses (MET_GC_BOUNDS buckets) */
};

enum mphase { MPH_RAMPUP, MPH_WARMUP, MPH_STEADY, MPH_DRAIN, MPH_N };

/* A run as /metrics shows it.  Counters are totals since the run began. */
struct msnap {
	int active;        /* a run has published (else no run series are written) */
	int running;       /* 1 while the run sends; 0 once it has ended */
	int64_t run_id;    /* label run */
	char label[128];   /* label label */
	int agent;         /* label agent: K of --agent K/N, 1 when not an agent */
	int agents;        /* N (1 when not an agent) */
	int open;          /* the open model (rate, lag); else closed (VUs) */
	char client[16];   /* the driver: curl, lean or tcp-frame */
	double started_s;  /* wall time the run began, epoch seconds */
	int step, nsteps;  /* the current step (1-based) and the steps planned */
	int step_vus;      /* closed: the step's virtual users (this agent's share) */
	double step_rate;  /* open: the step's arrivals per second (this agent's share) */
	enum mphase phase; /* of the interval being counted */
	int threads;       /* engine threads */
	/* live: the engine's own running totals, read at each publication */
	int64_t requests; /* completed: answered or failed (dropped arrivals included) */
	int vus;          /* closed: VUs running */
	int inflight;     /* requests in flight */
	/* collected: from the intervals' counters, at most a second old */
	int64_t errors[ERR_NCLASS];
	int64_t bytes, new_conns;
	double gen_cpu_s, gen_wait_s; /* engine threads' CPU time, and their wait for a core */
	double probe_s;               /* the machine probe's latest time (probe.h), NAN: none */
	struct mhist latency;         /* answered requests (open: from the intended start) */
	struct mhist lag;             /* open: start lag of every request sent */
	struct msource src[SCN_MAX_COLLECT];
	int nsrc;
};

/* A study (soak study) as /metrics shows it. */
struct mstudy {
	int active;       /* a study publishes */
	int64_t study_id; /* label study */
	int rounds;       /* planned */
	int round;        /* of the run going now (0 before the first) */
	int runs;         /* measured runs planned (slots) */
	int done;         /* measured runs done, from earlier sessions (resume) too */
	int running;      /* 1 until the study ends */
};

struct metrics;

/* Parses ADDR:PORT ([ADDR]:PORT for IPv6; PORT 0: any free port) into host and port. */
int metrics_listen_parse(const char *spec, char *host, size_t hostlen, int *port, char *err,
                         size_t errlen);
/* Listens on spec; 0, or -1 with err ("cannot listen on ..."). */
int metrics_start(struct metrics **out, const char *spec, char *err, size_t errlen);
/* The port it listens on (the kernel's choice for port 0), and the address as given. */
int metrics_port(const struct metrics *m);
const char *metrics_spec(const struct metrics *m);
/* "http://HOST:PORT/metrics" into buf. */
char *metrics_url(const struct metrics *m, char *buf, size_t len);
/* Stops listening and frees; NULL is a no-op. */
void metrics_free(struct metrics *m);
/* Replaces the run's or the study's snapshot by a copy of *s. */
void metrics_publish_run(struct metrics *m, const struct msnap *s);
void metrics_publish_study(struct metrics *m, const struct mstudy *s);

/* The exposition text of a run (may be inactive) and a study (may be NULL). */
void metrics_write(FILE *f, const struct msnap *run, const struct mstudy *study);

/* Bucket bounds in µs: the latency (and lag) histogram's and GC pauses'. */
const int64_t *metrics_lat_bounds(void);
const int64_t *metrics_gc_bounds(void);
/* Adds a histogram of µs into h over bounds[0..n) (values at a bound's HDR bucket count
 * under it), with sum_us its exact sum. */
void mhist_add_hdr(struct mhist *h, const int64_t *bounds, int n, const struct hdr *src,
                   int64_t sum_us);
/* Adds one value (µs) into h. */
void mhist_add(struct mhist *h, const int64_t *bounds, int n, int64_t us);

#endif
