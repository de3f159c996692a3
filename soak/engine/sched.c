/*
 * The scheduler: the engine's virtual users and arrivals, one per worker thread
 * (engine_int.h).  Both workload models share it:
 *
 * Closed: VU j in [0, active) sends, waits for the answer, thinks, sends again.  A VU
 * that must wait (ramp, think time, back-off) sits in the heap by due time; one due at
 * once goes to the ready ring, so a request without think time costs no heap round trip.
 *
 * Open: an arrival clock (constant or Poisson) gives every request an intended start.  A
 * free slot takes the next arrival when its time has come.  With none free the arrival
 * waits for one; that wait is the server's (its answers hold every slot) and counts in
 * the request's latency, as wrk2 counts it, and an arrival more than max_lag behind is
 * dropped and counted (class dropped).  Any other delay between the intended start and
 * the send is the generator's own lateness (a late wake-up, a busy or stopped process):
 * it goes into the start-lag histogram, never into the latency, so a late generator can
 * not pass for a slow server.  The schedule is a clock, not a queue: a backlog costs no
 * memory.  Arrivals go out as soon as they are due and a slot is free: Poisson bursts
 * stay bursts, and a few milliseconds of lateness are caught up at once.  Only a backlog
 * the generator itself built (it stopped for longer than CATCHUP_S) is sent at most
 * CATCHUP times the rate after the first CATCHUP_S' worth, so a stopped generator does
 * not answer with a storm of new connections.
 *
 * Both: sched_finish() counts every finished request in one place (live totals and the
 * interval's stats) and decides what the slot does next.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dur.h"
#include "engine_int.h"

#define TURN_MAX_US 200000 /* longest wait of a loop turn (control is also woken) */
#define LATE_US     2000   /* an arrival this far behind the schedule is late... */
#define CATCHUP                                                                                    \
	2.0              /* ...and late ones beyond the allowance go out at most this x the        \
	                  * rate (a stopped generator's backlog drains in about as long as         \
	                  * it was stopped)... */
#define CATCHUP_S   0.25 /* ...after an allowance of this many seconds' worth at once */
#define CATCHUP_MIN 1.0  /* ...and never fewer than one */
#define RAMP_FLOOR  0.02 /* open-model ramp: the rate starts at this share of the target */

/* After an error, the slot waits before its next request (closed model).  One table for
 * every driver: connection-level failures back off so a dead target, a refused port or an
 * exhausted port range is not spun on; answers (any status, a body mismatch) and failures
 * that already waited (timeouts) do not. */
static const int64_t backoff_ms[ERR_NCLASS] = {
    [ERR_CONNECT_REFUSED] = 50, /* nobody listens: the target is down or restarting */
    [ERR_DNS] = 50,             /* the name does not resolve: nothing changes in a loop */
    [ERR_CLIENT_PORTS] = 250,   /* give TIME_WAIT ports time to free up */
    [ERR_PROTOCOL] = 50,        /* not the protocol we speak: a wrong port, most likely */
    [ERR_OTHER] = 50,           /* unknown: do not spin */
    [ERR_TLS_CERT] = 50,        /* an untrusted certificate stays untrusted */
    [ERR_TLS_ALERT] = 50,       /* no common version or cipher: the same next time */
};

int64_t sched_backoff_ms(enum err_class c)
{
	return (unsigned)c < ERR_NCLASS ? backoff_ms[c] : 0;
}

void engine_error_text(enum err_class c, const char *target, const char *detail, char *buf,
                       size_t len)
{
	const char *d = detail && *detail ? detail : "failed";
	if (c == ERR_CLIENT_PORTS)
		snprintf(buf, len,
		         "%s%s%.110s (EADDRNOTAVAIL: the load generator ran out of "
		         "ephemeral ports)",
		         target ? target : "", target ? ": " : "", d);
	else
		snprintf(buf, len, "%s%s%s", target ? target : "", target ? ": " : "", d);
	for (char *q = buf; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
}

/* --- set-up --------------------------------------------------------------------------- */

int sched_init(struct ethread *t, char *err, size_t errlen)
{
	int n = t->max_slots > 0 ? t->max_slots : 1;

	t->slots = calloc((size_t)n, sizeof *t->slots);
	t->ready = calloc((size_t)n, sizeof *t->ready);
	t->free_stack = calloc((size_t)n, sizeof *t->free_stack);
	if (!t->slots || !t->ready || !t->free_stack || vuheap_init(&t->heap, n) < 0) {
		snprintf(err, errlen, "out of memory setting up a worker");
		return -1;
	}
	/* Open model: every slot free, slot 0 on top (the first used, the first reused). */
	if (t->eng->o.plan->model == PLAN_OPEN) {
		for (int j = 0; j < t->max_slots; j++) {
			t->free_stack[j] = t->max_slots - 1 - j;
			t->slots[j].state = SLOT_FREE;
		}
		t->nfree = t->max_slots;
	}
	t->starved_from_us = -1;
	return 0;
}

void sched_release(struct ethread *t)
{
	free(t->slots);
	free(t->ready);
	free(t->free_stack);
	vuheap_release(&t->heap);
	t->slots = NULL;
	t->ready = t->free_stack = NULL;
}

/* --- starting ---------------------------------------------------------------------------- */

static void start(struct ethread *t, int j, int64_t now_us)
{
	struct slot *s = &t->slots[j];
	t->ctx.seq = ethread_next_seq(t);
	t->ctx.vu = ethread_vu_id(t, j);
	t->ctx.iter = ++s->iter;
	s->state = SLOT_INFLIGHT;
	s->sent_us = now_us;
	t->inflight++;
	t->eng->drv->start(t, j);
}

static void ready_push(struct ethread *t, int j)
{
	t->ready[(t->ready_head + t->ready_n++) % t->max_slots] = j;
}

static int ready_pop(struct ethread *t)
{
	int j = t->ready[t->ready_head];
	t->ready_head = (t->ready_head + 1) % t->max_slots;
	t->ready_n--;
	return j;
}

/* Closed: VU j waits `delay_us` (0: ready at once). */
static void wait_vu(struct ethread *t, int j, int64_t due_us, int64_t now_us)
{
	t->slots[j].state = SLOT_WAITING;
	if (due_us <= now_us)
		ready_push(t, j);
	else
		vuheap_push(&t->heap, j, due_us);
}

/* Closed: VU j is not wanted any more. */
static void leave(struct ethread *t, int j)
{
	t->slots[j].state = SLOT_IDLE;
	t->eng->drv->idle(t, j);
}

/* Closed: the share grew or shrank; newly wanted VUs start spread over the ramp. */
static void apply_share(struct ethread *t, int64_t now_us)
{
	int want = t->share, from = t->active;

	t->active = want;
	for (int j = from; j < want; j++) {
		if (t->slots[j].state != SLOT_IDLE)
			continue; /* was leaving, still busy: it simply stays */
		int64_t due = t->ramp_ms > 0
		                  ? now_us + t->ramp_ms * 1000 * (j - from) / (want - from)
		                  : now_us;
		wait_vu(t, j, due, now_us);
	}
}

/* Open: the current rate at time `at`, with the ramp applied. */
static double rate_at(const struct ethread *t, int64_t at)
{
	if (t->ramp_ms > 0 && at - t->rate_t0_us < t->ramp_ms * 1000) {
		double f = (double)(at - t->rate_t0_us) / (double)(t->ramp_ms * 1000);
		return t->rate * (f < RAMP_FLOOR ? RAMP_FLOOR : f);
	}
	return t->rate;
}

/* Open: the gap after an arrival at `at`, µs. */
static int64_t next_gap(struct ethread *t, int64_t at)
{
	double r = rate_at(t, at), gap;
	if (t->eng->o.plan->arrival == PLAN_POISSON) {
		/* exponential inter-arrival times: u in (0, 1] */
		double u = (double)((tpl_rand(&t->rng) >> 11) + 1) / 9007199254740992.0;
		gap = -log(u) * 1e6 / r;
	} else {
		gap = 1e6 / r;
	}
	return gap < 1 ? 1 : (int64_t)(gap + 0.5);
}

/* Open: the catch-up allowance holds this many arrivals at most. */
static double token_cap(const struct ethread *t)
{
	double c = t->rate * CATCHUP_S;
	return c < CATCHUP_MIN ? CATCHUP_MIN : c;
}

/* Open: every slot became busy at `now_us`: arrivals due from here wait for the server. */
static void starve_begin(struct ethread *t, int64_t now_us)
{
	if (t->starved_from_us < 0)
		t->starved_from_us = now_us;
}

/* Open: a slot freed at `now_us` after every slot was busy: the period is kept until no
 * arrival it delayed is left to send.  A full ring merges its two oldest periods (the
 * generator's moment between them is then counted as the server's: the old, cautious
 * reading, and only past STARVE_MAX periods within one arrival's wait). */
static void starve_end(struct ethread *t, int64_t now_us)
{
	if (t->starved_from_us < 0)
		return;
	if (t->starve_n == STARVE_MAX) {
		int a = t->starve_head, b = (a + 1) % STARVE_MAX;
		t->starve[b].from_us = t->starve[a].from_us;
		t->starve_head = b;
		t->starve_n--;
	}
	int k = (t->starve_head + t->starve_n++) % STARVE_MAX;
	t->starve[k].from_us = t->starved_from_us;
	t->starve[k].to_us = now_us;
	t->starved_from_us = -1;
}

/* Open: how much of [from, to) every slot was busy: the server's share of an arrival's
 * wait.  Arrivals come in schedule order, so periods that ended before `from` can go. */
static int64_t starve_overlap(struct ethread *t, int64_t from, int64_t to)
{
	int64_t sum = 0;

	while (t->starve_n > 0 && t->starve[t->starve_head].to_us <= from) {
		t->starve_head = (t->starve_head + 1) % STARVE_MAX;
		t->starve_n--;
	}
	for (int i = 0; i < t->starve_n; i++) {
		const struct starve *p = &t->starve[(t->starve_head + i) % STARVE_MAX];
		int64_t a = p->from_us > from ? p->from_us : from,
		        b = p->to_us < to ? p->to_us : to;
		if (b > a)
			sum += b - a;
	}
	if (t->starved_from_us >= 0 && to > t->starved_from_us)
		sum += to - (t->starved_from_us > from ? t->starved_from_us : from);
	return sum;
}

/* Open: the new rate (per second, this worker's share) takes effect from t0_us, when it
 * was set.  Constant arrivals of the workers, and of the agents of a group (which share
 * the same aligned start), interleave: worker i of agent K starts
 * (i * N + K - 1) / (nthreads * N) of a gap late. */
static void apply_rate(struct ethread *t, double rate, int64_t t0_us)
{
	t->rate = rate;
	t->rate_t0_us = t0_us;
	if (rate <= 0)
		return;
	t->next_arrival_us = t0_us;
	if (t->eng->o.plan->arrival == PLAN_CONSTANT) {
		const struct engine_opts *o = &t->eng->o;
		double slots = (double)t->eng->nthreads * o->agent_count;
		double slot = (double)t->index * o->agent_count + (o->agent_index - 1);
		t->next_arrival_us += (int64_t)(1e6 / rate_at(t, t0_us) * slot / slots);
	}
	t->tokens = token_cap(t);
	t->tokens_us = t0_us;
}

/* Open: counts the arrival at the clock's head as dropped and moves the clock on. */
static void drop_arrival(struct ethread *t)
{
	struct istats *st = ethread_stats(t);
	char msg[ERR_SAMPLE_LEN], a[32];

	snprintf(msg, sizeof msg,
	         "an arrival more than %s behind the schedule was not sent "
	         "(max_in_flight %d reached; the generator's limit)",
	         dur_format(t->eng->o.plan->max_lag_ms, a, sizeof a),
	         t->eng->o.plan->max_in_flight);
	st->requests++;
	t->requests++;
	t->errors++;
	istats_error(st, ERR_DROPPED, msg);
	t->next_arrival_us += next_gap(t, t->next_arrival_us);
}

/* Open: starts every arrival whose time has come while slots and the catch-up allowance
 * last; returns when the next thing is due (µs). */
static int64_t start_arrivals(struct ethread *t, int64_t now_us)
{
	int64_t max_lag = t->eng->o.plan->max_lag_ms * 1000;
	int budget = 4 * t->max_slots + 64; /* at most this many a turn: control stays live */

	if (t->rate <= 0)
		return now_us + TURN_MAX_US;
	/* Top up the catch-up allowance. */
	t->tokens += (double)(now_us - t->tokens_us) * t->rate * CATCHUP / 1e6;
	if (t->tokens > token_cap(t))
		t->tokens = token_cap(t);
	t->tokens_us = now_us;
	while (t->next_arrival_us <= now_us && budget-- > 0) {
		if (now_us - t->next_arrival_us > max_lag) {
			drop_arrival(t);
			continue;
		}
		if (t->nfree == 0) {
			starve_begin(t, now_us);
			return t->next_arrival_us + max_lag + 1; /* a finish wakes us sooner */
		}
		/* The wait so far: the server's while every slot was busy, the rest ours. */
		int64_t waited = starve_overlap(t, t->next_arrival_us, now_us);
		int64_t late = now_us - t->next_arrival_us - waited;
		if (late > LATE_US) {
			if (t->tokens < 1) {
				/* Come back when a batch is allowed (a millisecond's worth, or
				 * one), not for each token: a wake-up a request would cap the
				 * catch-up below the rate itself at thousands a second. */
				double want = t->rate * CATCHUP / 1000;
				want = want < 1 ? 1 : want > token_cap(t) ? token_cap(t) : want;
				return now_us +
				       (int64_t)((want - t->tokens) * 1e6 / (t->rate * CATCHUP)) +
				       1;
			}
			t->tokens -= 1;
		}
		int j = t->free_stack[--t->nfree];
		struct slot *s = &t->slots[j];
		s->intended_us = t->next_arrival_us;
		s->wait_us = waited;
		t->lag_us = late;
		if (hdr_record(&ethread_stats(t)->lag, late) < 0)
			ethread_stats(t)->overflow++;
		t->next_arrival_us += next_gap(t, t->next_arrival_us);
		if (t->nfree == 0)
			starve_begin(t, now_us);
		start(t, j, now_us);
	}
	return t->next_arrival_us;
}

/* Closed: starts the VUs that are due; returns when the next one is (µs). */
static int64_t start_vus(struct ethread *t, int64_t now_us)
{
	/* Only the VUs ready now: one that fails at once is ready again, next turn. */
	for (int k = t->ready_n; k > 0; k--) {
		int j = ready_pop(t);
		if (j >= t->active)
			leave(t, j);
		else
			start(t, j, now_us);
	}
	for (int k = t->heap.n; k > 0 && t->heap.n > 0 && vuheap_top(&t->heap) <= now_us; k--) {
		int j = vuheap_pop(&t->heap);
		if (j >= t->active)
			leave(t, j);
		else
			start(t, j, now_us);
	}
	if (t->ready_n > 0)
		return now_us;
	return t->heap.n > 0 ? vuheap_top(&t->heap) : now_us + TURN_MAX_US;
}

/* --- finishing ---------------------------------------------------------------------------- */

void sched_finish(struct ethread *t, int j, const struct outcome *o)
{
	struct istats *st = ethread_stats(t);
	struct slot *s = &t->slots[j];
	const struct plan *p = t->eng->o.plan;
	int64_t now_us = -1;

	st->requests++;
	t->requests++;
	if (o->connect_us >= 0) {
		st->new_conns++;
		t->conns++;
		st->connect_sum_us += o->connect_us;
		st->connect_n++;
	}
	if (o->ttfb_us >= 0) {
		st->ttfb_sum_us += o->ttfb_us;
		st->ttfb_n++;
	}
	if (o->tls_us > 0) {
		if (o->tls_resumed)
			st->tls_resumed++;
		else
			st->tls_full++;
		st->tls_sum_us += o->tls_us;
		if (st->tls && hdr_record(&st->tls_hist, o->tls_us) < 0)
			st->overflow++;
	}
	st->bytes += o->bytes;
	if (o->answered) {
		int64_t lat = o->service_us;
		if (p->model == PLAN_OPEN) {
			/* The wait for a slot (every one busy: the server's) and everything the
			 * request took from its send (connect and handshake too); never the
			 * generator's own lateness, which is the start lag. */
			lat = o->service_us + s->wait_us;
			if (hdr_record(&st->svc, o->service_us) < 0)
				st->overflow++;
			st->svc_sum_us += o->service_us;
		}
		if (hdr_record(&st->hist, lat) < 0)
			st->overflow++;
		st->lat_sum_us += lat;
	}
	if (o->cls >= 0) {
		char msg[ERR_SAMPLE_LEN];
		/* The detail is the driver's; the wording around it is one per class. */
		engine_error_text((enum err_class)o->cls, NULL, o->detail, msg, sizeof msg);
		istats_error(st, (enum err_class)o->cls, msg);
		t->errors++;
	}
	t->inflight--;
	if (p->model == PLAN_OPEN) {
		s->state = SLOT_FREE;
		if (t->nfree == 0) {
			t->kick = 1; /* an arrival may be waiting for this slot */
			starve_end(t, engine_now_us(t->eng));
		}
		t->free_stack[t->nfree++] = j;
		return;
	}
	/* Closed: think (and back off), start again, or leave. */
	int stop = atomic_load_explicit(&t->eng->stop, memory_order_relaxed);
	if (stop != ENGINE_RUN || j >= t->active) {
		leave(t, j);
		return;
	}
	int64_t think = p->think_min_ms;
	if (p->think_max_ms > p->think_min_ms)
		think += (int64_t)(tpl_rand(&t->rng) %
		                   (uint64_t)(p->think_max_ms - p->think_min_ms + 1));
	if (o->cls >= 0 && think < backoff_ms[o->cls])
		think = backoff_ms[o->cls];
	if (think > 0)
		now_us = engine_now_us(t->eng);
	else
		t->kick = 1; /* due at once: the loop must come round without waiting */
	wait_vu(t, j, think > 0 ? now_us + think * 1000 : 0, think > 0 ? now_us : 0);
}

/* --- drain and abort -------------------------------------------------------------------- */

/* No new requests: waiting VUs leave, the arrival clock stops. */
static void stop_starting(struct ethread *t)
{
	while (t->ready_n > 0)
		leave(t, ready_pop(t));
	while (t->heap.n > 0)
		leave(t, vuheap_pop(&t->heap));
	t->rate = 0;
}

/* Drops every request in flight at once; each counts as a failed request, so every
 * request sent is accounted for. */
static void abort_all(struct ethread *t)
{
	stop_starting(t);
	for (int j = 0; j < t->max_slots; j++) {
		if (t->slots[j].state != SLOT_INFLIGHT)
			continue;
		struct istats *st = ethread_stats(t);
		t->eng->drv->cancel(t, j);
		t->inflight--;
		st->requests++;
		t->requests++;
		t->errors++;
		istats_error(st, ERR_OTHER, "dropped in flight: the run was stopped at once");
		t->slots[j].state = SLOT_IDLE;
	}
}

/* --- the loop ----------------------------------------------------------------------------- */

void sched_run(struct ethread *t)
{
	const struct plan *p = t->eng->o.plan;
	const struct driver *d = t->eng->drv;
	struct turn turn;
	double rate_seen = -1;

	for (;;) {
		engine_turn(t, &turn);
		if (turn.stop == ENGINE_ABORT) {
			abort_all(t);
			break;
		}
		t->kick = 0;
		int64_t now = engine_now_us(t->eng), due;
		if (p->model == PLAN_OPEN) {
			double rate =
			    (double)atomic_load_explicit(&t->eng->rate_mhz, memory_order_acquire) /
			    1000.0;
			if (turn.changed || rate != rate_seen) {
				/* This worker's share of the rate (agents and threads split it). */
				rate_seen = rate;
				t->ramp_ms =
				    atomic_load_explicit(&t->eng->ramp_ms, memory_order_relaxed);
				apply_rate(t, rate / t->eng->nthreads,
				           atomic_load_explicit(&t->eng->rate_t0_us,
				                                memory_order_relaxed));
			}
		} else if (turn.changed) {
			apply_share(t, now);
		}
		if (turn.stop == ENGINE_DRAIN) {
			stop_starting(t);
			if (t->inflight == 0)
				break;
			due = now + TURN_MAX_US;
		} else {
			due = p->model == PLAN_OPEN ? start_arrivals(t, now) : start_vus(t, now);
		}
		int64_t wait = due - engine_now_us(t->eng);
		if (wait > TURN_MAX_US)
			wait = TURN_MAX_US;
		d->poll(t, wait < 0 ? 0 : wait);
		engine_publish(
		    t, p->model == PLAN_OPEN ? t->inflight : t->inflight + t->heap.n + t->ready_n,
		    t->inflight);
	}
	for (int j = 0; j < t->max_slots; j++)
		d->idle(t, j);
	engine_publish(t, 0, t->inflight);
}
