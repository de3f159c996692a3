/* report_study_text: a study's design in words (the paragraph a report opens with under
 * "Design." and report.json's studies[].design): its targets and rounds, their order as
 * the runs show it, what ran before each run, the warm-up runs, how a sequential study
 * stopped, where the generator and the servers were placed, and how far it got. */
#include "report_study_text.h"
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"
#include "report/report_text.h"

/* "ab ba ab": the rounds' orders as the report's runs show them (first four rounds). */
static void rounds_seen(const struct report *r, int si, struct sbuf *b)
{
	int shown = 0;
	for (int round = 1; round <= r->studies[si].rounds && shown < 4; round++) {
		int any = 0;
		for (int pos = 1; pos <= 4 * RPT_MAX_LABELS; pos++)
			for (int i = 0; i < r->nruns; i++) {
				const struct rpt_run *run = &r->runs[i];
				if (run->study != si || run->warmup || run->round != round ||
				    run->position != pos || !run->compared)
					continue;
				/* A side-by-side group: its runs at once, in brackets. */
				rpt_sb_printf(b, "%s%s", any ? " " : (shown ? "; " : ""),
				              run->grp ? "[all at once]"
				                       : r->labels[run->label].name);
				if (!run->grp && r->studies[si].replicas > 1)
					rpt_sb_printf(b, "#%d", run->replica);
				any = 1;
				break;
			}
		shown += any;
	}
	if (r->studies[si].rounds > shown && shown)
		rpt_sb_printf(b, "; ...");
}

/* How many scenarios study si ran (the distinct names of its runs). */
static int study_scenarios(const struct report *r, int si)
{
	int n = 0;
	for (int i = 0; i < r->nruns; i++) {
		int seen = r->runs[i].study != si;
		for (int j = 0; j < i && !seen; j++)
			seen = r->runs[j].study == si && !strcmp(r->runs[j].name, r->runs[i].name);
		n += !seen;
	}
	return n;
}

/* Warm-up until steady: the rule, and per target how many warm-up runs its starts took and
 * whether the last two agreed (the study's own test, redone on the recorded figures). */
static void warmup_clause(const struct report *r, int si, struct sbuf *b)
{
	const struct rpt_study *st = &r->studies[si];
	const char *first = NULL; /* the scenario steadiness is judged on */
	int said = 0, open = 0, nsc = study_scenarios(r, si);

	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].study == si && r->runs[i].warmup && r->runs[i].nsteps > 0) {
			open = r->runs[i].steps[0].rate > 0;
			first = r->runs[i].name;
			break;
		}
	rpt_sb_printf(
	    b,
	    "warm-up runs%s after each start went on until two in a row agreed within %g %% in "
	    "%s%s%s (at least %d, at most %d) and were not compared: ",
	    nsc > 1 ? " of each scenario" : "", 100 * st->warmup_steady,
	    open ? "mean latency" : "TPS", nsc > 1 && first ? " of " : "",
	    nsc > 1 && first ? first : "", st->warmup_runs < 2 ? 2 : st->warmup_runs,
	    st->warmup_max);
	for (int l = 0; l < r->nlabels; l++) {
		int n = 0, starts = 0, unsteady = 0, in = 0;
		double prev = NAN, last = NAN;
		for (int i = 0; i <= r->nruns; i++) {
			const struct rpt_run *run = i < r->nruns ? &r->runs[i] : NULL;
			if (run && (run->study != si || run->label != l))
				continue;
			if (run && run->warmup && first && strcmp(run->name, first) != 0)
				continue; /* another scenario's warm-up: judged on the first's */
			if (run && run->warmup) {
				if (!in || run->since_start == 1)
					starts++, prev = last = NAN;
				in = 1;
				n++;
				prev = last;
				last = open ? run->f.mean_us : run->f.tps;
				continue;
			}
			/* A sequence of warm-up runs ends: did its last two agree? */
			if (in && !(prev > 0 && fabs(last / prev - 1) <= st->warmup_steady + 1e-9))
				unsteady++;
			in = 0;
		}
		if (!starts)
			continue;
		rpt_sb_printf(b, "%s%s %d", said ? ", " : "", r->labels[l].name, n);
		if (unsteady)
			rpt_sb_printf(
			    b,
			    " (not steady after %s: its compared runs may still have been "
			    "warming)",
			    starts > 1 ? "some starts" : "the last one");
		said = 1;
	}
	rpt_sb_printf(b, "%s. ", said ? "" : "none recorded");
}

/* "Placement: the generator on CPU 0; app on CPU 1 (tomcat9, tomcat10); db on CPU 1. ",
 * from the CPU lists the study's runs recorded (run_env cpu_list), when the generator's
 * CPUs differ from every source's; nothing when it was not placed. */
static void placement_clause(const struct report *r, int si, struct sbuf *b)
{
	char gen[64] = "", srcs[8][RPT_NAME_MAX], lists[8][64], labels[8][160];
	int n = 0, mixed = 0;

	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		const char *g;
		if (run->study != si || !(g = rpt_env_get(run, "", "cpu_list")))
			continue;
		if (!gen[0])
			snprintf(gen, sizeof gen, "%s", g);
		else if (strcmp(gen, g) != 0)
			mixed = 1;
		for (int k = 0; k < run->nenv; k++) {
			const struct rpt_env_fact *f = &run->env[k];
			int j = 0;
			if (!f->source[0] || strcmp(f->key, "cpu_list") != 0)
				continue;
			while (j < n && (strcmp(srcs[j], f->source) || strcmp(lists[j], f->value)))
				j++;
			if (j == n) {
				if (n == 8)
					continue;
				snprintf(srcs[n], sizeof srcs[n], "%s", f->source);
				snprintf(lists[n], sizeof lists[n], "%s", f->value);
				labels[n++][0] = '\0';
			}
			const char *l = r->labels[run->label].name;
			if (!strstr(labels[j], l)) {
				size_t u = strlen(labels[j]);
				snprintf(labels[j] + u, sizeof labels[j] - u, "%s%s", u ? ", " : "",
				         l);
			}
		}
	}
	int apart = gen[0] != '\0' && n > 0;
	for (int j = 0; j < n && apart; j++)
		apart = strcmp(lists[j], gen) != 0;
	if (!apart)
		return;
	rpt_sb_printf(b, "Placement: the generator on CPU%s %s", strpbrk(gen, ",-") ? "s" : "",
	              gen);
	if (mixed)
		rpt_sb_printf(b, " (not in every run)");
	for (int j = 0; j < n; j++)
		rpt_sb_printf(b, "; %s on CPU%s %s (%s)", srcs[j],
		              strpbrk(lists[j], ",-") ? "s" : "", lists[j], labels[j]);
	rpt_sb_printf(b, ". ");
}

/* How many processes each label ran at once (its runs' replicas). */
static void processes_clause(const struct report *r, int si, struct sbuf *b)
{
	int k[RPT_MAX_LABELS] = {0}, same = 1, first = -1;

	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].study == si && r->runs[i].label < RPT_MAX_LABELS &&
		    r->runs[i].replica > k[r->runs[i].label])
			k[r->runs[i].label] = r->runs[i].replica;
	for (int l = 0; l < r->nlabels && l < RPT_MAX_LABELS; l++)
		if (k[l]) {
			same &= first < 0 || k[l] == first;
			first = first < 0 ? k[l] : first;
		}
	if (same) {
		rpt_sb_printf(b, "Each target ran %d processes at once (replicas). ", first);
		return;
	}
	rpt_sb_printf(b, "Processes at once (replicas): ");
	for (int l = 0, said = 0; l < r->nlabels && l < RPT_MAX_LABELS; l++)
		if (k[l])
			rpt_sb_printf(b, "%s%s %d", said++ ? ", " : "", r->labels[l].name, k[l]);
	rpt_sb_printf(b, ". ");
}

/* The design: which scenarios ran side by side and why, the processes and the starts. */
static void design_clause(const struct report *r, int si, struct sbuf *b)
{
	const struct rpt_study *st = &r->studies[si];
	int together = 0;

	for (const char *c = st->together; *c; c++)
		together += *c == '1';

	if (together)
		rpt_sb_printf(b,
		              "Design: the fixed-rate scenario%s ran side by side (every target's "
		              "processes driven in the same seconds, each at the scenario's rate: "
		              "what moves the machine moves them alike and cancels in their "
		              "differences)%s; the others one at a time (a saturated server's "
		              "capacity is measured alone: servers saturated together would split "
		              "the CPUs by the scheduler, not by their efficiency). ",
		              together > 1 ? "s" : "",
		              !strcmp(st->design, "auto") ? ", as design = auto chooses" : "");
	if (st->replicas > 1)
		processes_clause(r, si, b);
	if (st->starts > 1 || (st->budget_ms > 0 && !st->until[0])) {
		char d[32] = "";
		if (st->budget_ms > 0 && !st->until[0]) /* starts = auto */
			dur_format(st->budget_ms, d, sizeof d);
		rpt_sb_printf(
		    b,
		    "The targets were started %d time%s%s%s%s, each start warmed up, then "
		    "measured for %d round%s. ",
		    st->starts, st->starts == 1 ? "" : "s",
		    d[0] ? " (as many as fit in its budget of " : "", d, d[0] ? ")" : "",
		    st->rounds, st->rounds == 1 ? "" : "s");
	}
	if (st->primary[0])
		rpt_sb_printf(b, "Primary figure: %s. ", st->primary);
}

/* Whether any warm-up run of study si saw a JVM's threads. */
static int jit_seen(const struct report *r, int si)
{
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].study == si && r->runs[i].warmup && !isnan(r->runs[i].jit_share))
			return 1;
	return 0;
}

/* Label l's warm-up runs in study si, and the JIT's share in the last of them. */
static int label_warmups(const struct report *r, int si, int l, double *last)
{
	int n = 0;

	*last = NAN;
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		if (run->study != si || run->label != l || !run->warmup)
			continue;
		n++;
		*last = run->jit_share;
	}
	return n;
}

/* Warm-up until the JIT is quiet, in one line: how many, until what, and the labels
 * still compiling when warmup_max stopped it (report.json: each run's warmup and
 * jit_share). */
static void jit_clause(const struct report *r, int si, struct sbuf *b)
{
	const struct rpt_study *st = &r->studies[si];
	struct sbuf per = {0}, hot = {0};
	int all = 0, nhot = 0;

	for (int l = 0; l < r->nlabels; l++) {
		double last;
		int n = label_warmups(r, si, l, &last);
		if (!n)
			continue;
		all += n;
		rpt_sb_printf(&per, "%s%s %d", rpt_sb_len(&per) ? ", " : "", r->labels[l].name, n);
		if (!isnan(last) && last > st->warmup_jit)
			rpt_sb_printf(&hot, "%s%s", nhot++ ? " and " : "", r->labels[l].name);
	}
	rpt_sb_printf(b,
	              "warm-up: %d runs, not compared, after each start until each JVM's JIT "
	              "compiler took under %g %% of its CPU (at most %d): %s",
	              all, 100 * st->warmup_jit, st->warmup_max, rpt_sb_str(&per));
	if (nhot)
		rpt_sb_printf(b, "; %s still compiling at the cap", rpt_sb_str(&hot));
	rpt_sb_release(&per);
	rpt_sb_release(&hot);
	rpt_sb_printf(b, ". ");
}

void rpt_study_design(struct sbuf *b, const struct report *r, int si)
{
	const struct rpt_study *st = &r->studies[si];
	struct sbuf scen = {0};
	int ntargets = 1, nscen = 0;

	for (const char *c = st->targets; *c; c++)
		ntargets += *c == ',';
	for (int i = 0; i < r->nruns; i++) {
		const struct rpt_run *run = &r->runs[i];
		char quoted[160];
		snprintf(quoted, sizeof quoted, "'%s'", run->name);
		if (run->study != si || strstr(rpt_sb_str(&scen), quoted))
			continue;
		rpt_sb_printf(&scen, "%s'%s'", nscen++ ? ", " : "", run->name);
	}
	rpt_sb_printf(b, "Study '%s': %d target%s (%s), %d round%s", st->name, ntargets,
	              ntargets == 1 ? "" : "s", st->targets, st->rounds * st->starts,
	              st->rounds * st->starts == 1 ? "" : "s");
	if (ntargets > 1) {
		if (strcmp(st->order, "random") == 0)
			rpt_sb_printf(b, " in random order (each round shuffled, seed %lld: ",
			              (long long)st->seed);
		else
			rpt_sb_printf(
			    b, " in interleaved order (odd rounds in file order, even rounds "
			       "reversed: ");
		rounds_seen(r, si, b);
		rpt_sb_printf(b, ")");
	}
	rpt_sb_printf(b, " of the scenario%s %s. ", nscen == 1 ? "" : "s", rpt_sb_str(&scen));
	rpt_sb_release(&scen);
	design_clause(r, si, b);
	if (*st->before_each)
		rpt_sb_printf(b, "Before every run: `%s`. ", st->before_each);
	else
		rpt_sb_printf(b, "Nothing was reset between runs. ");
	if (st->managed == 0)
		rpt_sb_printf(b, "The targets were already running; ");
	else
		rpt_sb_printf(
		    b, "%s %s; ", st->managed == ntargets ? "Targets" : "Targets the study started",
		    st->keep_running ? "were kept running for the whole study"
		                     : "were started before and stopped after each of their runs");
	if (st->warmup_jit > 0 && jit_seen(r, si))
		jit_clause(r, si, b);
	else if (st->warmup_steady > 0)
		warmup_clause(r, si, b);
	else if (st->warmup_runs > 0)
		rpt_sb_printf(
		    b, "the first %s%s of each target after %s %s recorded and not compared. ",
		    st->warmup_runs == 1 ? "run" : "runs",
		    study_scenarios(r, si) > 1 ? " of each scenario" : "",
		    st->managed ? "its start (or the study's, when already running)"
		                : "the study began",
		    st->warmup_runs == 1 ? "was" : "were");
	else
		rpt_sb_printf(b, "no warm-up run: the first run after a start is compared. ");
	if (st->until[0]) {
		char d[32];
		rpt_sb_printf(b,
		              "Sequential: rounds were added until %s (every comparison's interval "
		              "that "
		              "narrow) within %s; ",
		              st->until, dur_format(st->budget_ms, d, sizeof d));
		if (st->max_looks > 0)
			rpt_sb_printf(b,
			              "it looked %d of the %d times its budget allowed and stopped "
			              "%s. ",
			              st->looks, st->max_looks,
			              !strcmp(st->stop, "precise")
			                  ? "because every figure was resolved"
			              : !strcmp(st->stop, "rounds") ? "at its last round"
			                                            : "when its budget was spent");
		else
			rpt_sb_printf(b, "it stopped before a second round, so it never looked. ");
	}
	placement_clause(r, si, b);
	if (st->until[0])
		rpt_sb_printf(b, "%d measured runs done (study %s).", st->done_slots, st->status);
	else
		rpt_sb_printf(b, "%d of %d measured runs done (study %s).", st->done_slots,
		              st->slots, st->status);
}
