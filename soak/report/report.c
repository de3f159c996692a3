/* report: the model's life (see report.h and report_int.h): new, free, its counts, the
 * accessors every room uses and which percentiles a drift's latency curves hold.  Calls
 * nothing of the rooms, so that read/, judge/ and write/ depend on it and not on each
 * other. */
#include "report.h"
#include "history/history.h"
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dur.h"
#include "hdr.h"

/* Adds a step's window (counters and decoded histogram) into acc. */
int rpt_step_add(struct istats *acc, const struct rpt_step *s, char *err, size_t errlen)
{
	struct istats one = s->st;

	memset(&one.hist, 0, sizeof one.hist);
	if (s->hist && hdr_decode(s->hist, s->hist_len, &one.hist, err, errlen) < 0)
		return -1;
	istats_add(acc, &one);
	hdr_release(&one.hist);
	return 0;
}

/* --- release -------------------------------------------------------------------------- */

static void env_free(struct rpt_run *run)
{
	for (int i = 0; i < run->nenv; i++) {
		free(run->env[i].source);
		free(run->env[i].key);
		free(run->env[i].value);
	}
	free(run->env);
	free(run->host);
	run->env = NULL;
	run->nenv = 0;
	run->host = NULL;
}

void rpt_drift_free(struct rpt_drift *d)
{
	if (!d)
		return;
	for (int i = 0; i < 2; i++) {
		free(d->cmp[i].m);
		d->cmp[i].m = NULL;
		d->cmp[i].nm = 0;
	}
	d->ncmp = 0;
}

static void free_step(struct rpt_step *s, int nsrc)
{
	free(s->hist);
	free(s->tps.v);
	free(s->mean_ms.v);
	free(s->p99_ms.v);
	free(s->err_pct.v);
	if (s->cpu)
		for (int i = 0; i < nsrc; i++)
			free(s->cpu[i].v);
	free(s->cpu);
	free(s->cpu_mean);
}

static void free_run(struct rpt_run *run)
{
	for (int i = 0; i < run->nsteps; i++)
		free_step(&run->steps[i], RPT_MAX_SOURCES);
	free(run->steps);
	for (int i = 0; i < run->nsrc; i++) {
		struct rpt_source *s = &run->src[i];
		free(s->cpu_ts);
		free(s->rss_ts);
		free(s->heap_ts);
		free(s->pause_ts);
		gca_result_free(&s->gc);
	}
	free(run->src);
	env_free(run);
	rpt_drift_free(&run->drift);
	for (int i = 0; run->step_drift && i < run->nsteps; i++)
		rpt_drift_free(&run->step_drift[i]);
	free(run->step_drift);
	free(run->ts);
	free(run->name);
	free(run->mode);
	free(run->connection);
	free(run->protocol);
	free(run->status);
	free(run->reason);
	free(run->redact);
	for (int i = 0; i < run->nagent_notes; i++)
		free(run->agent_notes[i]);
	free(run->agent_notes);
	free(run->gaps);
	for (int i = 0; i < run->nprof; i++) {
		for (int k = 0; k < run->prof[i].nst; k++)
			free(run->prof[i].st[k].stack);
		free(run->prof[i].st);
	}
	free(run->prof);
	for (int i = 0; i < run->nprof_notes; i++)
		free(run->prof_notes[i]);
	free(run->prof_notes);
}

double rpt_drift_pct(int k)
{
	return 100 * (1 - pow(10, -k / 4.0));
}

const char *rpt_label_name(const struct report *r, int l)
{
	return r->labels[l].name;
}

struct report *rpt_new(void)
{
	return calloc(1, sizeof(struct report));
}

void rpt_delete(struct report *r)
{
	rpt_free(r);
	free(r);
}

void rpt_counts(const struct report *r, struct rpt_counts *c)
{
	c->runs = r->nruns;
	c->labels = r->nlabels;
	c->findings = r->nfindings;
	c->pictures = 0;
	for (int i = 0; i < r->npics; i++)
		c->pictures += r->pics[i].drawn;
	c->planned = r->npics;
	c->plot_note = r->plot_note;
}

void rpt_free(struct report *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nruns; i++)
		free_run(&r->runs[i]);
	free(r->runs);
	for (int i = 0; i < r->nlabels; i++)
		free(r->labels[i].name);
	free(r->labels);
	for (int i = 0; i < r->ndbs; i++)
		free(r->dbs[i]);
	free(r->cells);
	free(r->cmps);
	for (int i = 0; i < r->nsweeps; i++)
		free(r->sweeps[i].cells);
	free(r->sweeps);
	rpt_items_free(r->findings, r->nfindings);
	rpt_items_free(r->validity, r->nvalidity);
	free(r->verdicts);
	for (int i = 0; i < r->npics; i++) {
		free(r->pics[i].title);
		free(r->pics[i].svg);
	}
	free(r->pics);
	free(r->title);
	for (int i = 0; i < r->nstudies; i++) {
		free(r->studies[i].name);
		free(r->studies[i].targets);
		free(r->studies[i].before_each);
	}
	free(r->studies);
	free(r->cals);
	rpt_hist_free(r->history);
	for (int i = 0; i < r->npcmps; i++) {
		struct rpt_pcmp *p = &r->pcmps[i];
		for (int k = 0; k < p->nframes; k++)
			free(p->frames[k].frame);
		for (int k = 0; k < p->nstacks; k++)
			free(p->stacks[k].stack);
		free(p->frames);
		free(p->stacks);
	}
	free(r->pcmps);
	memset(r, 0, sizeof *r);
}

const char *rpt_env_get(const struct rpt_run *run, const char *source, const char *key)
{
	for (int i = 0; i < run->nenv; i++)
		if (!strcmp(run->env[i].source, source) && !strcmp(run->env[i].key, key))
			return run->env[i].value;
	return NULL;
}

char *rpt_cell_runs(const struct rpt_cell *c, char *buf, size_t len)
{
	char d[32];
	snprintf(buf, len, "%s of %s", c->sweep ? "sweep steps" : "fixed runs",
	         dur_format(c->planned_ms, d, sizeof d));
	return buf;
}

char *rpt_cell_text(const struct rpt_cell *c, char *buf, size_t len)
{
	char l[48], d[64];
	snprintf(buf, len, "%s (%s)", rpt_level_text(c->concurrency, c->rate, l, sizeof l),
	         rpt_cell_runs(c, d, sizeof d));
	return buf;
}
