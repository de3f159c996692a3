/* report_validity_text: the sentences of the validity items judge/ returned as data (a
 * kind and what it found), worded when the files are written, as the findings are. */
#include "report_validity_text.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"
#include "report_fmt.h"

/* "served 59.5 % fewer requests per second and answered ×373 slower on average": the
 * TPS change lo0..hi0 and the mean latency's lo1..hi1 (%), each when out[] is set. */
static void cold_change(struct sbuf *b, double lo0, double hi0, double lo1, double hi1,
                        const int *out)
{
	if (out[0]) {
		rpt_sb_printf(b, "served ");
		rpt_sb_change(b, lo0, hi0, "more", "fewer");
		rpt_sb_printf(b, " requests per second");
	}
	if (out[0] && out[1])
		rpt_sb_printf(b, " and ");
	if (out[1]) {
		rpt_sb_printf(b, "answered ");
		rpt_sb_change(b, lo1, hi1, "slower", "faster");
		rpt_sb_printf(b, " on average");
	}
}

/* cold_start: "Run 5 (tomcat9), the first after its target started, served ...". */
static void cold_words(const struct report *r, const struct rpt_cold *f, struct sbuf *b)
{
	const struct rpt_run *run = &r->runs[f->run];
	const struct rpt_cell *cell = &r->cells[f->cell];
	char d[32], lv[48];

	rpt_sb_printf(b, "Run %s (%s), the first after its target started, ", run->key,
	              r->labels[run->label].name);
	cold_change(b, f->rel[0], f->rel[0], f->rel[1], f->rel[1], f->out);
	rpt_sb_printf(b, " than the label's %d other compared run%s at %s (%s", f->others,
	              f->others == 1 ? "" : "s",
	              rpt_level_text(cell->concurrency, cell->rate, lv, sizeof lv),
	              dur_format(cell->planned_ms, d, sizeof d));
	rpt_sb_printf(b, "; 95 %% prediction interval +-%.1f %%",
	              f->out[0] ? f->half[0] : f->half[1]);
	rpt_sb_printf(b, "). %s",
	              run->warmup ? "It was a warm-up run and is not compared."
	                          : "It is compared: a warm-up run (warmup_runs = 1) would "
	                            "leave it out.");
}

/* The range of the cold starts' changes of figure k (those where it stood out). */
static void cold_range(const struct report *r, int k, double *lo, double *hi, int *out)
{
	*lo = INFINITY, *hi = -INFINITY, *out = 0;
	for (int i = 0; i < r->nvalidity; i++) {
		const struct rpt_cold *f = &r->validity[i].cold;
		if (r->validity[i].kind != RPT_V_COLD || !f->out[k])
			continue;
		*lo = fmin(*lo, f->rel[k]);
		*hi = fmax(*hi, f->rel[k]);
		*out = 1;
	}
}

int rpt_cold_once(const struct report *r, struct sbuf *b)
{
	int n = 0, warm = 0, out[2], said = 0;
	double lo[2], hi[2];

	for (int i = 0; i < r->nvalidity; i++)
		if (r->validity[i].kind == RPT_V_COLD) {
			n++;
			warm += r->runs[r->validity[i].cold.run].warmup != 0;
		}
	if (n < 2)
		return n;
	rpt_sb_printf(b, "%d runs, each the first after its target started (", n);
	for (int l = 0; l < r->nlabels; l++) {
		struct sbuf keys = {0};
		for (int i = 0; i < r->nvalidity; i++)
			if (r->validity[i].kind == RPT_V_COLD &&
			    r->runs[r->validity[i].cold.run].label == l)
				rpt_sb_printf(&keys, "%s%s", rpt_sb_len(&keys) ? "," : "",
				              r->runs[r->validity[i].cold.run].key);
		if (rpt_sb_len(&keys)) {
			rpt_sb_printf(b, "%s%s ", said++ ? "; " : "", r->labels[l].name);
			rpt_sb_runs(b, rpt_sb_str(&keys));
		}
		rpt_sb_release(&keys);
	}
	rpt_sb_printf(b, "), ");
	cold_range(r, 0, &lo[0], &hi[0], &out[0]);
	cold_range(r, 1, &lo[1], &hi[1], &out[1]);
	cold_change(b, lo[0], hi[0], lo[1], hi[1], out);
	rpt_sb_printf(b, " than their label's other compared runs at the same point (beyond "
	                 "their 95 %% prediction intervals; each run's figures are in "
	                 "report.json). ");
	if (warm == n)
		rpt_sb_printf(b, "All were warm-up runs and are not compared.");
	else
		rpt_sb_printf(b,
		              "%d of them %s compared: a warm-up run (warmup_runs = 1) would "
		              "leave %s out.",
		              n - warm, n - warm == 1 ? "is" : "are",
		              n - warm == 1 ? "it" : "them");
	return n;
}

/* A figure in words (its row's, but mean latency as the trend says it), and its value
 * with its unit. */
static void fig_words(const struct report *r, int f, char *name, size_t len)
{
	if (f == RPT_M_MEAN)
		snprintf(name, len, "mean latency");
	else
		rpt_fig_what(r, f, name, len);
}

static void put_value(struct sbuf *b, int f, double v)
{
	if (f == RPT_M_TPS)
		rpt_sb_printf(b, "%.0f", v);
	else if (f == RPT_M_MEAN)
		rpt_sb_printf(b, "%.2f ms", v);
	else
		rpt_sb_printf(b, "%.3f ms", v);
}

/* rounds_trend: the level and its trending figures, each label's first run to its last,
 * and the advice. */
static void trend_words(const struct report *r, const struct rpt_trend *t, struct sbuf *b)
{
	char at[96], name[RPT_NAME_MAX + 32];

	rpt_sb_printf(b, "At %s, the compared runs moved with the order they ran in: ",
	              rpt_cell_text(&r->cells[t->cell[0]], at, sizeof at));
	for (int k = 0; k < t->nfig; k++) {
		int f = t->fig[k], first = 1;
		fig_words(r, f, name, sizeof name);
		rpt_sb_printf(b, "%s%s %s %.1f %% on average from the first run to the last (",
		              k ? "; " : "", name, t->rel[k] > 0 ? "rose" : "fell",
		              100 * fabs(t->rel[k]));
		for (int i = 0; i < t->ncells; i++) {
			const struct rpt_cell *c = &r->cells[t->cell[i]];
			if (c->run[f].n < 2)
				continue;
			rpt_sb_printf(b, "%s%s ", first ? "" : ", ", r->labels[c->label].name);
			put_value(b, f, c->first[f]);
			rpt_sb_printf(b, " to ");
			put_value(b, f, c->last[f]);
			first = 0;
		}
		rpt_sb_printf(b, "; Mann-Kendall over the labels' runs, p = %.2g)", t->p[k]);
	}
	rpt_sb_printf(
	    b, ". Servers still warming up (a JIT still compiling, caches filling) or other work "
	       "on the machine that changed while the study ran move every label with time: "
	       "interleaved rounds share such a trend among the labels, so it invents no "
	       "difference, but it is run-to-run noise that more rounds only average. Warm up "
	       "longer after each start (warmup_steady = 5%%, or a longer warm-up run) and keep "
	       "other work off the machine.");
}

/* How each cause of a generator warning is said: the lead before the label's own part
 * (gen_own) and the advice after it; by enum rpt_gen_cause. */
static const struct gen_words {
	const char *lead, *tail;
} gen_words[] = {
    [RPT_GEN_BUSY] = {"the load generator was busy: ",
                      ". The generator, not the server, may have set the pace, and its own "
                      "queueing is in the latencies: give it more threads (--threads) or more "
                      "agents."},
    [RPT_GEN_STARVED] = {"the load generator waited for a core: ",
                         ". Other work on its machine (the server, the database) took its CPUs, "
                         "so it may have set the pace: give it CPUs of its own (placement) or "
                         "another host; more threads would compete for the same cores."},
    [RPT_GEN_LATE] = {"requests went out late: ",
                      ". The machine woke or ran it late (timer wake-ups, a virtual machine's "
                      "pause, a stopped process), which more threads would not change. Latency "
                      "never holds that lateness (it counts from the send, and from the "
                      "intended start only while every connection was busy: the server's "
                      "wait); but as it caught up its arrivals bunched, and the server's "
                      "answers to the bunch are in those intervals' figures."},
};

/* The label's own part of a generator warning: its runs and the figures that show it. */
static void gen_own(struct sbuf *b, const char *label, const char *runs, const struct rpt_gen *t)
{
	rpt_sb_printf(b, "%s in ", label);
	rpt_sb_runs(b, runs);
	if (t->cause == RPT_GEN_BUSY) {
		rpt_sb_printf(b, ", its %d engine thread%s busy %.0f%% of the time", t->threads,
		              t->threads == 1 ? " was" : "s were", t->cpu);
		return;
	}
	if (t->cause == RPT_GEN_STARVED) {
		rpt_sb_printf(b,
		              ", its threads busy %.0f%% of the time and ready but waiting "
		              "for a core %.0f%% more",
		              t->cpu, isnan(t->wait) ? 0 : t->wait);
		return;
	}
	rpt_sb_printf(b, ", start lag p99 up to %.1f ms", t->lag);
	if (t->late > 0)
		rpt_sb_printf(b, ", over %.0f ms in %d of %d measured intervals", RPT_GEN_LAG_MS,
		              t->late, t->steady);
	rpt_sb_printf(b,
	              ", while the generator was busy %.0f%% of the time and waited "
	              "%.0f%% for a core",
	              isnan(t->cpu) ? 0 : t->cpu, isnan(t->wait) ? 0 : t->wait);
}

/* A sentence of three parts, the lead, the label's own part and the tail: v's own part is
 * marked (own_from, own_to), so that the items of a code whose lead and tail agree are
 * said as one (report_doc.c). */
static void parts(struct rpt_item *v, struct sbuf *b, const char *lead, struct sbuf *own,
                  const char *tail)
{
	rpt_sb_printf(b, "%s", lead);
	v->own_from = (int)rpt_sb_len(b);
	rpt_sb_printf(b, "%s", rpt_sb_str(own));
	v->own_to = (int)rpt_sb_len(b);
	rpt_sb_printf(b, "%s", tail);
	rpt_sb_release(own);
}

/* generator_saturated, generator_late. */
static void gen_sentence(const struct report *r, struct rpt_item *v, struct sbuf *b)
{
	struct sbuf own = {0};

	gen_own(&own, rpt_label_name(r, v->label), rpt_item_runs(v), &v->gen);
	parts(v, b, gen_words[v->gen.cause].lead, &own, gen_words[v->gen.cause].tail);
}

/* host_saturated: the lead, the label's own part (where the generator ran, how busy, in
 * which runs) and the advice, which differ as the generator was placed or not. */
static void host_sentence(const struct report *r, struct rpt_item *v, struct sbuf *b)
{
	const struct rpt_host *h = &v->host;
	const struct rpt_run *run = &r->runs[h->first];
	struct sbuf own = {0};
	char lead[160], list[64];

	snprintf(list, sizeof list, "%s", h->placed ? rpt_env_get(run, "", "cpu_list") : "");
	rpt_sb_printf(&own, "%s ", rpt_label_name(r, v->label));
	if (h->placed)
		rpt_sb_printf(&own, "on CPU %s apart from %s ('%s'), ", list, run->colocated,
		              run->host);
	else
		rpt_sb_printf(&own, "with %s ('%s'), ", run->colocated, run->host);
	rpt_sb_printf(&own, "%.1f%% in ", h->worst);
	rpt_sb_runs(&own, rpt_item_runs(v));
	snprintf(lead, sizeof lead,
	         h->placed ? "the load generator was placed on CPUs of its own, but those "
	                     "CPUs were %.0f%% busy or more in a measured window: "
	                   : "the load generator ran on the same host as a collected "
	                     "source, and that host's CPU reached %.0f%% or more in a "
	                     "measured window: ",
	         RPT_HOST_BUSY_PCT);
	parts(v, b, lead, &own,
	      h->placed ? ". Something else ran there, so the generator may have set "
	                  "the pace: give it more CPUs, or keep other work off them."
	                : ". The generator and the system under test competed for the "
	                  "cores, so throughput and latency measure the machine as much "
	                  "as the server: place them on CPUs of their own (cpus in "
	                  "[scenario] and [collect.NAME]) or run the generator on "
	                  "another host.");
}

/* short_window of a GC log: the source, the runs, how long their steady windows were and
 * how much longer a run needs to be. */
static void gcwin_sentence(const struct report *r, struct rpt_item *v, struct sbuf *b)
{
	const struct rpt_gcwin *w = &v->gcwin;
	struct sbuf own = {0};
	char lead[128], d0[32], d1[32], h[32];

	dur_format((int64_t)llround(w->span_lo) * 1000, d0, sizeof d0);
	dur_format((int64_t)llround(w->span_hi) * 1000, d1, sizeof d1);
	rpt_sb_printf(&own, "%s, %s in ", rpt_label_name(r, v->label), w->source);
	rpt_sb_runs(&own, rpt_item_runs(v));
	rpt_sb_printf(&own, ", %s%s%s of it: run at least %s longer", d0,
	              strcmp(d0, d1) ? " to " : "", strcmp(d0, d1) ? d1 : "",
	              gca_hours_text(w->longer_h, h, sizeof h));
	snprintf(lead, sizeof lead,
	         "memory could not be judged, a trend needs at least %d min of steady "
	         "GC log: ",
	         GCA_MIN_WINDOW_MS / 60000);
	parts(v, b, lead, &own, ".");
}

int rpt_validity_words(struct report *r)
{
	for (int i = 0; i < r->nvalidity; i++) {
		struct rpt_item *v = &r->validity[i];
		struct sbuf b = {0};
		if (v->text || v->kind == RPT_V_WORDED)
			continue;
		if (v->kind == RPT_V_COLD) {
			cold_words(r, &v->cold, &b);
		} else if (v->kind == RPT_V_TREND) {
			trend_words(r, &v->trend, &b);
		} else if (v->kind == RPT_V_GEN) {
			gen_sentence(r, v, &b);
		} else if (v->kind == RPT_V_HOST) {
			host_sentence(r, v, &b);
		} else if (v->kind == RPT_V_GCWIN) {
			gcwin_sentence(r, v, &b);
		}
		v->text = rpt_sb_dup(&b);
		rpt_sb_release(&b);
		if (!v->text)
			return -1;
	}
	return 0;
}
