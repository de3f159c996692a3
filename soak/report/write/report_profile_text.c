/* report_profile_text: where CPU per request moved, in words and tables (report_profile_text.h):
 * the report's section, the terminal's `soak profile`, and the lead sentence of each comparison.
 * Every figure printed is one rpt_profiles() judged; nothing here computes a change. */
#include "report_profile_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report/judge/report_profile.h"

#define FRAME_SHOWN 90 /* characters of a frame's name a table shows (report.json: all) */

char *rpt_profile_title(const struct report *r, const struct rpt_pcmp *pc, char *buf, size_t len)
{
	const struct rpt_cmp *m = &r->cmps[pc->cmp];
	const struct rpt_cell *c = &r->cells[m->cell];
	char level[48];

	snprintf(buf, len, "%s against %s, %s, %s", r->labels[c->label].name,
	         r->labels[r->cells[m->base].label].name, pc->source,
	         rpt_level_text(c->concurrency, c->rate, level, sizeof level));
	return buf;
}

const char *rpt_pframe_verdict(const struct rpt_pcmp *pc, const struct rpt_pframe *f)
{
	if (f->d.verdict == RPT_REAL)
		return "real";
	if (f->d.verdict == RPT_NOISE)
		return "noise";
	if (fmax(f->base_us, f->us) < RPT_PROF_SHARE * fmax(pc->base_cpu_us, pc->cpu_us))
		return "small";
	return "not judged";
}

/* The decimals rpt_fmt_us gives a change: its interval's bounds get the same. */
static int us_decimals(double us)
{
	return fabs(us) >= 100 ? 0 : fabs(us) >= 10 ? 1 : 2;
}

/* "regserver_burn_b +244 µs (159 to 329)". */
static void frame_change(struct buf *b, const struct rpt_pframe *f)
{
	char c[48], lo[48], hi[48];
	double ch = f->us - f->base_us;

	buf_printf(b, "%s %s", f->frame, rpt_fmt_us(ch, 1, c, sizeof c));
	if (!isnan(f->d.lo))
		buf_printf(b, " (%s to %s)", rpt_fmt_num(f->d.lo, us_decimals(ch), lo, sizeof lo),
		           rpt_fmt_num(f->d.hi, us_decimals(ch), hi, sizeof hi));
}

/* What was called real, or that nothing was. */
static void judged(struct buf *b, const struct rpt_pcmp *pc)
{
	int said = 0;

	if (pc->real == 0) {
		buf_printf(b, " No frame moved beyond noise (%d frames judged together, at %.0f %% "
		           "for any of them).", pc->family, 100 * pc->alpha);
		return;
	}
	buf_printf(b, " Real:");
	for (int i = 0; i < pc->nframes; i++)
		if (pc->frames[i].d.verdict == RPT_REAL) {
			buf_printf(b, "%s ", said++ ? "," : "");
			frame_change(b, &pc->frames[i]);
		}
	if (pc->family > pc->real)
		buf_printf(b, "; the other %d frames judged moved within noise",
		           pc->family - pc->real);
	buf_printf(b, ".");
}

char *rpt_profile_lead(const struct report *r, const struct rpt_pcmp *pc)
{
	const struct rpt_cmp *m = &r->cmps[pc->cmp];
	const char *base = r->labels[r->cells[m->base].label].name;
	const char *label = r->labels[r->cells[m->cell].label].name;
	char a[48], v[48], c[48];
	struct buf b = {0};

	buf_printf(&b, "%s's CPU per request, split by perf's samples: %s %s, %s %s (%s); %d "
	           "against %d process%s.", pc->source, base, rpt_fmt_us(pc->base_cpu_us, 0, a, sizeof a),
	           label, rpt_fmt_us(pc->cpu_us, 0, v, sizeof v),
	           rpt_fmt_us(pc->cpu_us - pc->base_cpu_us, 1, c, sizeof c), pc->nobs,
	           pc->nobs_base, pc->nobs_base == 1 ? "" : "es");
	if (pc->why == RPT_PROF_JUDGED)
		judged(&b, pc);
	else
		buf_printf(&b, " With one process a side each frame's change is shown, not judged: "
		           "two JVMs of one server inline differently, so a frame one of them "
		           "inlined would pass for a change. Run two or more processes a side "
		           "(a study's replicas or starts).");
	return buf_done(&b);
}

/* A frame's name as a table shows it: cut at FRAME_SHOWN characters (UTF-8 kept whole). */
static void frame_cell(struct rpt_tb *tb, int row, const char *name)
{
	size_t n = strlen(name);

	if (n <= FRAME_SHOWN) {
		rpt_tb_set(tb, row, 0, "%s", name);
		return;
	}
	n = FRAME_SHOWN;
	while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
		n--;
	rpt_tb_set(tb, row, 0, "%.*s…", (int)n, name);
}

int rpt_profile_table(const struct report *r, const struct rpt_pcmp *pc, int top,
                      struct rpt_table *t)
{
	const struct rpt_cmp *m = &r->cmps[pc->cmp];
	const char *base = r->labels[r->cells[m->base].label].name;
	const char *label = r->labels[r->cells[m->cell].label].name;
	const char *names[] = {"frame (self)", base, label, "change", "verdict", "with callees"};
	struct rpt_tb tb;

	rpt_tb_start(&tb, t, "", names, "lrrkll"); /* the document heads it */
	snprintf(t->note, sizeof t->note,
	         "µs of CPU per request a frame spent itself (self) and with what it called, "
	         "the mean over each side's processes; each change's interval at the level "
	         "its frame was judged at.");
	for (int i = 0; i < pc->nframes && i < top; i++) {
		const struct rpt_pframe *f = &pc->frames[i];
		char a[48], v[48], c[48], lo[48], hi[48], ta[48], tv[48];
		int row = rpt_tb_row(&tb);
		frame_cell(&tb, row, f->frame);
		rpt_tb_set(&tb, row, 1, "%s", rpt_fmt_us(f->base_us, 0, a, sizeof a));
		rpt_tb_set(&tb, row, 2, "%s", rpt_fmt_us(f->us, 0, v, sizeof v));
		if (isnan(f->d.lo))
			rpt_tb_set(&tb, row, 3, "%s", rpt_fmt_us(f->us - f->base_us, 1, c, sizeof c));
		else
			rpt_tb_set(&tb, row, 3, "%s [%s, %s]", rpt_fmt_us(f->us - f->base_us, 1, c, sizeof c),
			           rpt_fmt_num(f->d.lo, us_decimals(f->us - f->base_us), lo, sizeof lo),
			           rpt_fmt_num(f->d.hi, us_decimals(f->us - f->base_us), hi, sizeof hi));
		rpt_tb_set(&tb, row, 4, "%s", rpt_pframe_verdict(pc, f));
		rpt_tb_set(&tb, row, 5, "%s → %s", rpt_fmt_us(f->base_total_us, 0, ta, sizeof ta),
		           rpt_fmt_us(f->total_us, 0, tv, sizeof tv));
	}
	return tb.failed ? -1 : 0;
}

int rpt_print_profiles(const struct report *r, const char *source, int top, FILE *f)
{
	int n = 0;

	for (int i = 0; i < r->npcmps; i++) {
		const struct rpt_pcmp *pc = &r->pcmps[i];
		struct rpt_table t;
		char title[160], *lead;
		if (source && strcmp(pc->source, source) != 0)
			continue;
		if (!(lead = rpt_profile_lead(r, pc)) || rpt_profile_table(r, pc, top, &t) < 0) {
			free(lead);
			return -1;
		}
		fprintf(f, "%s%s\n%s\n\n", n++ ? "\n" : "", rpt_profile_title(r, pc, title, sizeof title),
		        lead);
		rpt_table_text(&t, f);
		rpt_table_free(&t);
		free(lead);
	}
	return n;
}
