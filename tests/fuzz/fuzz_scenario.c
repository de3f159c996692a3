/*
 * Scenario files on hostile text.  The input is a scenario's text, then optionally `--set`
 * overrides, each after a NUL byte.  A parse must either fail with a message that points
 * at the mistake (`fuzz.ini:LINE: ...` with LINE >= 1, or `--set ...: ...`), or succeed
 * with a plan the engine can run as it is: levels, durations and weights in range, every
 * request with a URL and a timeout, and every template expanding into a buffer of
 * tpl_max_len() bytes, as the HTTP driver sizes them.  Any crash, leak or abort is a bug.
 * The harness runs in a directory of its own holding data.csv and frame.txt, so that
 * `csv = data.csv` and `file = frame.txt` read real files.
 */
// fuzz-sources: soak/scenario/scenario.c soak/scenario/scenario_read.c soak/scenario/scenario_frame.c soak/engine/plan.c soak/engine/frame.c soak/engine/template.c soak/engine/h1.c soak/engine/httpclass.c common/dur.c common/clock.c common/redact.c common/cpus.c common/buf.c common/re.c soak/scenario/scenario_tls.c soak/engine/tls.c soak/engine/http.c soak/engine/engine.c
// fuzz-sources: soak/engine/conn.c soak/engine/dlist.c soak/engine/evloop.c soak/engine/h2.c soak/engine/h2conn.c soak/engine/h2msg.c soak/engine/lean.c soak/engine/mempool.c soak/engine/sched.c soak/engine/stats.c soak/engine/tcpframe.c soak/engine/vuheap.c common/hdr.c soak/engine/up.c
// fuzz-libs: -lhttp_parser
// fuzz-pkgs: libcurl libpcre2-8 inih openssl libnghttp2 zlib
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/scenario.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 8
#define NAME "fuzz.ini"

static char workdir[] = "/tmp/fuzz_scenario.XXXXXX";

static void remove_workdir(void)
{
	if (chdir("/") == 0) {
		char path[64];
		snprintf(path, sizeof path, "%s/data.csv", workdir);
		unlink(path);
		snprintf(path, sizeof path, "%s/frame.txt", workdir);
		unlink(path);
		rmdir(workdir);
	}
}

/* A working directory with a CSV data set (cells of different lengths, quoted ones, an
 * empty one) and a frame payload for the inputs to name. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *f;

	(void)argc;
	(void)argv;
	if (!mkdtemp(workdir) || chdir(workdir) < 0)
		abort();
	atexit(remove_workdir);
	f = fopen("data.csv", "w");
	if (!f)
		abort();
	fputs("user,password,note\nalice,x,\n\"bob, the \"\"second\"\"\",longer-password-here,n\n"
	      "carol,,\"multi\nline\"\n",
	      f);
	fclose(f);
	f = fopen("frame.txt", "w");
	if (!f)
		abort();
	fputs("{\"T\":\"Ping\",\"n\":${seq},\"u\":\"${csv:user}\"}\n", f);
	fclose(f);
	return 0;
}

/* Expands t the way the driver does: a buffer of exactly tpl_max_len() bytes (so ASan
 * sees any write past it), which the expansion must fit. */
static void expand_fits(const struct tpl *t, struct tpl_ctx *ctx)
{
	size_t cap;
	char *buf;
	long n;

	if (!t->parts)
		return;
	cap = tpl_max_len(t, ctx);
	buf = malloc(cap);
	if (!buf)
		abort();
	n = tpl_expand(t, ctx, buf, cap);
	if (n < 0 || (size_t)n >= cap || strlen(buf) != (size_t)n || (size_t)n < t->min_len)
		abort();
	free(buf);
}

static void check_plan(const struct scenario *s, const char *text)
{
	struct tpl_ctx ctx = {.seq = UINT64_MAX, .vu = 100000, .iter = UINT64_MAX,
			      .run_id = INT64_MAX, .nonce = "abcdefgh", .rng = 42};
	FILE *null;

	ctx.csv = s->plan.csv.ncols ? &s->plan.csv : NULL;
	if (s->nlevels < 1 || s->nlevels > SCN_MAX_LEVELS || s->duration_ms <= 0 ||
	    s->interval_ms < 100 || s->interval_ms > 3600000 || s->warmup_ms < 0 ||
	    s->rampup_ms < 0 || s->warmup_ms + s->rampup_ms >= s->duration_ms ||
	    s->plan.think_min_ms < 0 || s->plan.think_max_ms < s->plan.think_min_ms || !s->name || !s->label ||
	    !s->text)
		abort();
	/* The stored text is the input's, redacted with the scenario's names, then the trailer. */
	char *want = redact_ini(&s->redact, text);
	if (!want || strncmp(s->text, want, strlen(want)) != 0)
		abort();
	free(want);
	/* A closed plan has VUs per step, an open one rates (and limits the engine can use). */
	for (int i = 0; i < s->nlevels; i++)
		if (s->plan.model == PLAN_OPEN
			? s->levels[i] != 0 || !(s->rates[i] > 0 && s->rates[i] <= 1e7)
			: s->levels[i] < 1 || s->levels[i] > SCN_MAX_VUS || s->rates[i] != 0)
			abort();
	if (s->plan.model == PLAN_OPEN &&
	    (s->plan.max_in_flight < 1 || s->plan.max_in_flight > SCN_MAX_VUS || s->plan.max_lag_ms < 1))
		abort();
	if (s->plan.protocol == PLAN_HTTP && (s->plan.nreqs < 1 || s->plan.total_weight < 1))
		abort();
	if (s->plan.protocol == PLAN_TCP_FRAME && (!s->plan.address || s->plan.nframes < 1))
		abort();
	for (int i = 0; i < s->plan.nframes; i++)
		expand_fits(&s->plan.frames[i].text, &ctx);
	if (s->plan.has_handshake)
		expand_fits(&s->plan.handshake.text, &ctx);
	for (int i = 0; i < s->plan.nreqs; i++) {
		const struct plan_request *r = &s->plan.reqs[i];
		if (!r->name || !r->method || !*r->method || r->timeout_ms < 1 || r->weight < 0 ||
		    r->nheaders > PLAN_MAX_HEADERS || (s->plan.protocol == PLAN_HTTP && !r->url.text))
			abort();
		expand_fits(&r->url, &ctx);
		if (r->has_body)
			expand_fits(&r->body, &ctx);
		for (int h = 0; h < r->nheaders; h++)
			expand_fits(&r->headers[h], &ctx);
	}
	for (int i = 0; i < s->ncollect; i++)
		if (!s->collect[i].name || s->collect[i].every_ms < 100)
			abort();
	/* `soak check` prints every plan. */
	null = fopen("/dev/null", "w");
	if (null) {
		scn_print_plan(s, null);
		fclose(null);
	}
}

/* A failed parse names where: NAME:LINE: (LINE >= 1) or --set. */
static void check_error(const char *err)
{
	const char *p = err + strlen(NAME ":");
	if (strcmp(err, "out of memory") == 0 || strncmp(err, "--set ", 6) == 0)
		return;
	if (strncmp(err, NAME ":", strlen(NAME ":")) != 0 || *p < '1' || *p > '9')
		abort();
	while (*p >= '0' && *p <= '9')
		p++;
	if (p[0] != ':' || p[1] != ' ' || !p[2])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *sets[MAX_SETS];
	int nsets = 0;
	size_t textlen;
	struct scenario s;
	char err[1024] = "";

	if (size > 256 << 10)
		return 0;
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	/* text NUL set NUL set ... */
	textlen = strlen(copy);
	for (size_t at = textlen + 1; at < size && nsets < MAX_SETS; at += strlen(copy + at) + 1)
		sets[nsets++] = copy + at;
	if (scn_parse_text(&s, NAME, copy, sets, nsets, err, sizeof err) == 0) {
		check_plan(&s, copy);
		scn_release(&s);
	} else {
		check_error(err);
	}
	free(copy);
	return 0;
}
