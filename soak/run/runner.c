#include "runner.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "collect.h"
#include "dur.h"
#include "exitcode.h"
#include "log.h"
#include "recorder.h"

#define STATUS_EVERY_MS 1000

/* Everything one run needs while it goes. */
struct run {
	const struct scenario *s;
	const struct runner_opts *o;
	struct recorder rec;
	struct collectors coll;
	struct engine *eng;
	struct istats iv;             /* the interval being collected */
	struct istats acc;            /* the current step's measured window */
	struct figures steps[SCN_MAX_LEVELS];
	int step_done[SCN_MAX_LEVELS]; /* 1 when steps[i] holds figures */
	int64_t run_t0;               /* monotonic start of the first step */
	int64_t wall0;                /* wall time at run_t0 */
	int stopping;                 /* a signal asked us to stop */
	int failed;                   /* a runtime failure: status 3 */
	int breached;                 /* a threshold failed */
	char reason[512];
	/* status line */
	int64_t last_status_ms;
	struct engine_live last_live;
	int64_t last_p99;
};

static int64_t wall_of(const struct run *r, int64_t mono) { return r->wall0 + (mono - r->run_t0); }

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
		double errp = dreq > 0 ? 100.0 * (double)(lv.errors - r->last_live.errors) / (double)dreq : 0;
		double conns = (double)(lv.new_conns - r->last_live.new_conns) / secs;
		int fill = total > 0 ? (int)(20 * elapsed / total) : 0;
		for (int i = 0; i < 20; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[20] = '\0';
		(void)step_t0;
		fprintf(stderr,
			"\r\033[K step %d/%d %5d VUs [%s] %s/%s %9.1f req/s  p99 %s  err %.2f%%  conn %.1f/s",
			step + 1, s->nlevels, lv.vus, bar, dur_format(elapsed / 1000 * 1000, el, sizeof el),
			dur_format(total, tot, sizeof tot), tps,
			r->last_p99 ? dur_format_us((double)r->last_p99, p99, sizeof p99) : "-", errp, conns);
		fflush(stderr);
	}
	r->last_live = lv;
	r->last_status_ms = now;
}

/* Waits until `until` (monotonic ms), keeping the status line and collectors watched.
 * Returns -1 when a signal arrived. */
static int wait_until(struct run *r, int step, int64_t until, int64_t step_t0)
{
	for (;;) {
		int64_t now = clock_mono_ms();
		if (signalled(r))
			return -1;
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

	istats_figures(iv, (double)len_ms / 1000.0, &f);
	if (f.p99_us)
		r->last_p99 = f.p99_us;
	if (r->o->quiet || r->o->tty)
		return;
	fprintf(stderr,
		"run %lld step %d/%d %d VUs %-7s +%s: %lld req %.1f/s p50 %s p99 %s err %.2f%% new conn %lld\n",
		(long long)r->rec.run_id, step + 1, r->s->nlevels, r->s->levels[step], phase,
		dur_format((start_mono - r->run_t0) / 1000 * 1000, a, sizeof a), (long long)f.requests,
		f.tps, dur_format_us((double)f.p50_us, b, sizeof b), dur_format_us((double)f.p99_us, c, sizeof c),
		f.error_pct, (long long)f.new_conns);
}

/* Collects and records the interval [start, now); returns -1 on a runtime failure. */
static int close_interval(struct run *r, int step, int64_t start, int64_t now, const char *phase,
			  int steady)
{
	char err[512];
	struct engine_live lv;

	if (engine_collect(r->eng, &r->iv, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	engine_live(r->eng, &lv);
	if (rec_interval(&r->rec, step, wall_of(r, start), now - start, phase, lv.vus, &r->iv, err,
			 sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	if (steady)
		istats_add(&r->acc, &r->iv);
	print_interval(r, step, phase, start, now - start, &r->iv);
	istats_reset(&r->iv);
	return 0;
}

static void check_thresholds(struct run *r, int step, const struct figures *f)
{
	const struct scn_thresholds *t = &r->s->thr;
	char msg[300], a[32], b[32], err[256];
	int n = 0;
	struct {
		char text[200];
	} br[5];

	if (t->p99_us >= 0 && f->requests > 0 && f->p99_us > t->p99_us) {
		snprintf(br[n++].text, 200, "p99 %s is above %s", dur_format_us((double)f->p99_us, a, sizeof a),
			 dur_format_us((double)t->p99_us, b, sizeof b));
	}
	if (t->p95_us >= 0 && f->requests > 0 && f->p95_us > t->p95_us) {
		snprintf(br[n++].text, 200, "p95 %s is above %s", dur_format_us((double)f->p95_us, a, sizeof a),
			 dur_format_us((double)t->p95_us, b, sizeof b));
	}
	if (t->mean_us >= 0 && f->requests > 0 && f->mean_us > (double)t->mean_us) {
		snprintf(br[n++].text, 200, "mean %s is above %s", dur_format_us(f->mean_us, a, sizeof a),
			 dur_format_us((double)t->mean_us, b, sizeof b));
	}
	if (t->error_rate >= 0 && f->error_pct > t->error_rate * 100) {
		snprintf(br[n++].text, 200, "error rate %.2f%% is above %g%%", f->error_pct,
			 t->error_rate * 100);
	}
	if (t->tps_min >= 0 && f->tps < t->tps_min) {
		snprintf(br[n++].text, 200, "%.1f requests/s is below %g", f->tps, t->tps_min);
	}
	for (int i = 0; i < n; i++) {
		snprintf(msg, sizeof msg, "step %d (%d VUs): %.200s", step + 1, r->s->levels[step], br[i].text);
		if (r->o->tty && !r->o->quiet)
			fputc('\n', stderr);
		fprintf(stderr, "soak run: threshold failed: %s\n", msg);
		if (rec_event(&r->rec, "soak", "threshold", msg, err, sizeof err) < 0)
			log_warn("%s", err);
		r->breached = 1;
	}
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

/* One step: ramp-up, warm-up, measured window, interval by interval. */
static int run_step(struct run *r, int k)
{
	const struct scenario *s = r->s;
	int64_t t0 = clock_mono_ms();
	int64_t ramp_end = t0 + s->rampup_ms, warm_end = ramp_end + s->warmup_ms;
	int64_t step_end = t0 + s->duration_ms;
	int64_t start = t0, win_start = -1, win_end = -1;
	char err[512];

	if (k == 0) {
		r->run_t0 = t0;
		r->wall0 = clock_wall_ms();
	}
	if (rec_step_begin(&r->rec, k, s->levels[k], wall_of(r, t0), s->duration_ms, err,
			   sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		return -1;
	}
	engine_set_vus(r->eng, s->levels[k], s->rampup_ms);
	istats_reset(&r->acc);
	for (;;) {
		/* Intervals are aligned on the step's start and cut at phase changes, so the
		 * measured window is made of whole intervals. */
		int64_t next = start + s->interval_ms - (start - t0) % s->interval_ms;
		if (start < ramp_end && next > ramp_end)
			next = ramp_end;
		if (start < warm_end && next > warm_end)
			next = warm_end;
		if (next > step_end)
			next = step_end;
		const char *phase = start < ramp_end ? "rampup" : start < warm_end ? "warmup" : "steady";
		int steady = start >= warm_end;
		int sig = wait_until(r, k, next, t0) < 0;
		if (sig) {
			/* Stop sending, let what is in flight finish, then record the partial
			 * interval.  A second SIGINT drops the requests in flight. */
			r->stopping = 1;
			drain(r);
		} else if (next >= step_end && k == s->nlevels - 1) {
			/* The run's end: no new requests from here; those in flight are recorded
			 * in a last `drain` interval, outside the measured window, so every
			 * request sent is accounted for. */
			engine_stop(r->eng, 0);
		}
		int64_t now = clock_mono_ms();
		if (close_interval(r, k, start, now, phase, steady) < 0)
			return -1;
		if (steady) {
			if (win_start < 0)
				win_start = start;
			win_end = now;
		}
		start = now;
		if (sig || now >= step_end)
			break;
	}
	if (k == s->nlevels - 1 && !r->stopping) {
		int64_t d0 = clock_mono_ms();
		drain(r);
		if (close_interval(r, k, d0, clock_mono_ms(), "drain", 0) < 0)
			return -1;
	}
	if (win_start >= 0) {
		istats_figures(&r->acc, (double)(win_end - win_start) / 1000.0, &r->steps[k]);
		r->step_done[k] = 1;
		if (rec_step_end(&r->rec, k, wall_of(r, win_start), wall_of(r, win_end), &r->acc, err,
				 sizeof err) < 0) {
			snprintf(r->reason, sizeof r->reason, "%s", err);
			return -1;
		}
		check_thresholds(r, k, &r->steps[k]);
	}
	return 0;
}

static void print_summary(const struct run *r)
{
	const struct scenario *s = r->s;
	char a[16], b[16], c[16], d[16], dur[32];

	printf("\nrun %lld: %s (label %s)\n", (long long)r->rec.run_id, s->name, s->label);
	printf("%-5s %7s %9s %10s %10s %9s %9s %9s %9s %8s %10s\n", "step", "VUs", "window", "requests",
	       "TPS", "avg", "90%", "95%", "99%", "error%", "new conns");
	for (int k = 0; k < s->nlevels; k++) {
		const struct figures *f = &r->steps[k];
		if (!r->step_done[k])
			continue;
		printf("%-5d %7d %9s %10lld %10.1f %9s %9s %9s %9s %8.2f %10lld\n", k + 1, s->levels[k],
		       dur_format((int64_t)(f->seconds * 1000 + 0.5), dur, sizeof dur), (long long)f->requests,
		       f->tps, dur_format_us(f->mean_us, a, sizeof a), dur_format_us((double)f->p90_us, b, sizeof b),
		       dur_format_us((double)f->p95_us, c, sizeof c), dur_format_us((double)f->p99_us, d, sizeof d),
		       f->error_pct, (long long)f->new_conns);
	}
	fflush(stdout);
}

int runner_run(const struct scenario *s, const struct runner_opts *o)
{
	struct run *r = calloc(1, sizeof *r);
	char err[512];
	int max_vus = 0, rc = 0;
	struct engine_opts eo = {0};
	char nonce[16];

	if (!r) {
		fprintf(stderr, "soak run: out of memory\n");
		return EXIT_RUNTIME;
	}
	r->s = s;
	r->o = o;
	if (engine_preflight(&s->plan, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s: %s\n", s->file, err);
		free(r);
		return EXIT_RUNTIME;
	}
	if (istats_init(&r->iv, err, sizeof err) < 0 || istats_init(&r->acc, err, sizeof err) < 0 ||
	    rec_open(&r->rec, o->db_path, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s\n", err);
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (rec_run_begin(&r->rec, s, curl_version(), clock_wall_ms(), err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s\n", err);
		rc = EXIT_RUNTIME;
		goto out;
	}
	if (o->on_begin && o->on_begin(o->on_begin_arg, r->rec.db, r->rec.run_id, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		r->failed = 1;
		goto close;
	}
	/* ${nonce}: random per run, so usernames never collide with an earlier run's. */
	{
		uint64_t x = (uint64_t)clock_mono_ns() ^ ((uint64_t)r->rec.run_id << 40) ^ (uint64_t)getpid();
		static const char a36[] = "abcdefghijklmnopqrstuvwxyz0123456789";
		for (int i = 0; i < 8; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			nonce[i] = a36[(x >> 33) % 36];
		}
		nonce[8] = '\0';
	}
	for (int k = 0; k < s->nlevels; k++)
		if (s->levels[k] > max_vus)
			max_vus = s->levels[k];
	if (!o->quiet)
		fprintf(stderr, "soak run: run %lld '%s' (label %s) into %s: %d step%s, %s\n",
			(long long)r->rec.run_id, s->name, s->label, o->db_path, s->nlevels,
			s->nlevels == 1 ? "" : "s", dur_format(scn_total_ms(s), (char[32]){0}, 32));
	if (coll_start(&r->coll, s, o->db_path, r->rec.run_id, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		r->failed = 1;
		goto close;
	}
	eo.plan = &s->plan;
	eo.run_id = r->rec.run_id;
	eo.nonce = nonce;
	eo.threads = o->threads > 0 ? o->threads : s->threads;
	eo.max_vus = max_vus;
	eo.loop = o->loop;
	if (engine_start(&r->eng, &eo, err, sizeof err) < 0) {
		snprintf(r->reason, sizeof r->reason, "%s", err);
		r->failed = 1;
		goto close;
	}
	log_info("engine: %d threads, %s loop", engine_threads(r->eng), engine_loop_name(r->eng));
	for (int k = 0; k < s->nlevels && !r->stopping; k++)
		if (run_step(r, k) < 0) {
			r->failed = 1;
			break;
		}
close:
	engine_free(r->eng);
	r->eng = NULL;
	if (o->tty && !o->quiet)
		fputc('\n', stderr);
	coll_poll(&r->coll, &r->rec);
	coll_stop(&r->coll, 5000);
	{
		const char *status = r->failed ? "failed" : r->stopping ? "interrupted" : "done";
		const char *why = r->failed ? r->reason
				  : r->stopping ? (*o->sigterm ? "SIGTERM" : "SIGINT")
						: NULL;
		if (r->failed)
			fprintf(stderr, "soak run: %s\n", r->reason);
		if (rec_run_end(&r->rec, status, why, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: %s\n", err);
			r->failed = 1;
		}
		if (!o->quiet)
			fprintf(stderr, "soak run: run %lld %s\n", (long long)r->rec.run_id, status);
	}
	print_summary(r);
	rc = r->failed     ? EXIT_RUNTIME
	     : r->stopping ? (*o->sigterm ? EXIT_SIGTERM : EXIT_SIGINT)
	     : r->breached ? EXIT_THRESHOLD
	                   : EXIT_OK;
out:
	rec_close(&r->rec);
	istats_release(&r->iv);
	istats_release(&r->acc);
	free(r);
	return rc;
}
