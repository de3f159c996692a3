/* report_flame: a differential flame graph of one profile comparison (report_flame.h),
 * written as SVG by soak itself.  The stacks of both sides become one tree (frames merged
 * by name under the same parent); each side is drawn as a flame graph of its own, root at
 * the bottom, children in name order, every box as wide as its frame's µs per request on
 * that side, on one scale for both, so that a wider box is more CPU per request.  A box's
 * colour is its frame's judged self change: red more, blue less, strong when real, pale
 * when noise or not judged. */
#include "report_flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report_profile_text.h"

#define WIDTH    1200.0 /* px of the picture */
#define MARGIN   10.0   /* px left and right */
#define ROW      16.0   /* px of one frame */
#define HEAD     44.0   /* px above the first panel: title and legend */
#define GAP      16.0   /* px between the panels */
#define CAPTION  18.0   /* px of a panel's caption, above it */
#define MIN_PX   0.4    /* boxes narrower than this are left out */
#define CHAR_PX  6.6    /* px of one character at the labels' size */
#define MAX_NODE 60000  /* boxes of the merged tree (stacks x depth beyond: left out) */

struct node {
	const char *name; /* into a stack (not terminated: len) */
	int len;
	int parent, child, next; /* indices, -1: none */
	double us[2];             /* total µs per request a side */
};

struct tree {
	struct node *n;
	int count;
	int depth; /* deepest level (root frames: 0) */
};

/* The child of p named s[0..len), added when new; -1 past MAX_NODE. */
static int child(struct tree *t, int p, const char *s, int len)
{
	int *link = p < 0 ? &t->n[0].next : &t->n[p].child;

	for (int c = *link; c >= 0; c = t->n[c].next)
		if (t->n[c].len == len && strncmp(t->n[c].name, s, (size_t)len) == 0)
			return c;
	if (t->count >= MAX_NODE)
		return -1;
	t->n[t->count] = (struct node){.name = s, .len = len, .parent = p, .child = -1, .next = *link};
	*link = t->count;
	return t->count++;
}

/* Node 0 is a sentinel whose `next` lists the roots. */
static int build(struct tree *t, const struct rpt_pcmp *pc)
{
	if (!(t->n = calloc(MAX_NODE, sizeof *t->n)))
		return -1;
	t->n[0] = (struct node){.parent = -1, .child = -1, .next = -1};
	t->count = 1;
	for (int i = 0; i < pc->nstacks; i++) {
		const char *p = pc->stacks[i].stack;
		int at = -1, level = 0;
		while (*p) {
			int len = (int)strcspn(p, ";");
			if ((at = child(t, at, p, len)) < 0)
				break;
			t->n[at].us[0] += pc->stacks[i].base_us;
			t->n[at].us[1] += pc->stacks[i].us;
			t->depth = level > t->depth ? level : t->depth;
			level++;
			p += len + (p[len] == ';');
		}
	}
	return 0;
}

static const struct rpt_pframe *frame_of(const struct rpt_pcmp *pc, const struct node *x)
{
	for (int i = 0; i < pc->nframes; i++)
		if ((int)strlen(pc->frames[i].frame) == x->len &&
		    strncmp(pc->frames[i].frame, x->name, (size_t)x->len) == 0)
			return &pc->frames[i];
	return NULL;
}

/* The fill of a frame: its self change against the largest, hue by sign, strength by
 * verdict. */
static void fill(const struct rpt_pcmp *pc, const struct rpt_pframe *f, double top, char *buf,
                 size_t len)
{
	double ch = f ? f->us - f->base_us : 0, k = top > 0 ? fmin(1, fabs(ch) / top) : 0;
	double strength = f && f->d.verdict == RPT_REAL ? 0.35 + 0.65 * k : 0.3 * k;
	int lo = (int)lround(235 - 175 * strength);

	(void)pc;
	if (ch > 0)
		snprintf(buf, len, "rgb(240,%d,%d)", lo, lo);
	else if (ch < 0)
		snprintf(buf, len, "rgb(%d,%d,240)", lo, lo + (240 - lo) / 3);
	else
		snprintf(buf, len, "rgb(228,228,228)");
}

static void esc(struct buf *b, const char *s, int len)
{
	for (int i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '&')
			buf_puts(b, "&amp;");
		else if (c == '<')
			buf_puts(b, "&lt;");
		else if (c == '>')
			buf_puts(b, "&gt;");
		else if (c == '"')
			buf_puts(b, "&quot;");
		else
			buf_put(b, c < 0x20 ? "?" : s + i, 1);
	}
}

struct panel {
	const struct rpt_pcmp *pc;
	const char *names[2]; /* the sides' labels */
	int side;             /* 0 the baseline, 1 the label */
	double y0;            /* px of the panel's root row */
	double scale;         /* px per µs */
	double top;           /* the largest self change: full colour */
};

/* One box and its tooltip. */
static void box(struct buf *b, const struct panel *p, const struct node *x, double px, double y,
                double w)
{
	const struct rpt_pframe *f = frame_of(p->pc, x);
	char col[32], a[48], v[48];

	fill(p->pc, f, p->top, col, sizeof col);
	buf_printf(b, "<g><title>");
	esc(b, x->name, x->len);
	buf_printf(b, " — with callees %s %s, %s %s per request", p->names[0],
	           rpt_fmt_us(x->us[0], 0, a, sizeof a), p->names[1],
	           rpt_fmt_us(x->us[1], 0, v, sizeof v));
	if (f)
		buf_printf(b, "; self %s %s (%s)", rpt_fmt_us(f->us - f->base_us, 1, a, sizeof a),
		           f->d.verdict == RPT_NA ? "" : "judged",
		           rpt_pframe_verdict(p->pc, f));
	buf_printf(b, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	           "fill=\"%s\" rx=\"2\"/>", px, y, w, ROW - 1, col);
	int fit = (int)((w - 6) / CHAR_PX);
	if (fit >= 3) {
		buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", px + 3, y + ROW - 4.5);
		esc(b, x->name, x->len < fit ? x->len : fit - 2);
		if (x->len > fit)
			buf_puts(b, "..");
		buf_puts(b, "</text>");
	}
	buf_puts(b, "</g>\n");
}

static int by_name(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	int n = x->len < y->len ? x->len : y->len, c = strncmp(x->name, y->name, (size_t)n);
	return c ? c : x->len - y->len;
}

/* The children of first (a sibling list) from x = px, in name order, level by level up. */
static void draw(struct buf *b, const struct panel *p, const struct tree *t, int first, double px,
                 int level)
{
	const struct node **v;
	int n = 0;

	for (int c = first; c >= 0; c = t->n[c].next)
		n++;
	if (n == 0 || !(v = malloc((size_t)n * sizeof *v)))
		return;
	n = 0;
	for (int c = first; c >= 0; c = t->n[c].next)
		v[n++] = &t->n[c];
	qsort(v, (size_t)n, sizeof *v, by_name);
	for (int i = 0; i < n; i++) {
		double w = v[i]->us[p->side] * p->scale;
		if (w >= MIN_PX) {
			box(b, p, v[i], px, p->y0 - level * ROW, w);
			draw(b, p, t, v[i]->child, px, level + 1);
		}
		px += w;
	}
	free(v);
}

char *rpt_flame_svg(const struct report *r, const struct rpt_pcmp *pc)
{
	const struct rpt_cmp *m = &r->cmps[pc->cmp];
	struct panel p = {.pc = pc,
	                  .names = {r->labels[r->cells[m->base].label].name,
	                            r->labels[r->cells[m->cell].label].name}};
	struct tree t = {0};
	struct buf b = {0};
	char title[160], a[48];

	if (build(&t, pc) < 0)
		return NULL;
	double ph = (t.depth + 1) * ROW, h = HEAD + 2 * (CAPTION + ph) + GAP + 10;
	p.scale = (WIDTH - 2 * MARGIN) / fmax(1e-9, fmax(pc->base_cpu_us, pc->cpu_us));
	for (int i = 0; i < pc->nframes; i++)
		p.top = fmax(p.top, fabs(pc->frames[i].us - pc->frames[i].base_us));
	buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	           "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
	           WIDTH, h, WIDTH, h);
	buf_printf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" "
	           "y=\"16\" font-size=\"14\">Where CPU per request moved: ", MARGIN);
	esc(&b, rpt_profile_title(r, pc, title, sizeof title), 1 << 20);
	buf_printf(&b, "</text>\n<text x=\"%.0f\" y=\"34\" fill=\"#555\">width: µs of CPU per "
	           "request, one scale for both; colour: a frame's own change (red more, blue "
	           "less; strong: judged real)</text>\n", MARGIN);
	for (p.side = 0; p.side < 2; p.side++) {
		double top = HEAD + p.side * (CAPTION + ph + GAP);
		buf_printf(&b, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#333\">", MARGIN, top + 12);
		esc(&b, p.names[p.side], 1 << 20);
		buf_printf(&b, ": %s per request%s</text>\n",
		           rpt_fmt_us(p.side ? pc->cpu_us : pc->base_cpu_us, 0, a, sizeof a),
		           p.side ? "" : " (baseline)");
		p.y0 = top + CAPTION + ph - ROW;
		draw(&b, &p, &t, t.n[0].next, MARGIN, 0);
	}
	buf_puts(&b, "</svg>\n");
	free(t.n);
	return buf_done(&b);
}
