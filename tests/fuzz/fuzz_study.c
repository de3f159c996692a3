/*
 * Study files on hostile text.  A parse must either fail with a message that points at the
 * mistake (`fuzz.ini:LINE: ...` with LINE >= 1), or succeed with a plan a study can carry
 * out: rounds, targets and scenarios in range, every target named and reachable (a start
 * command, a url or an address), and a schedule in which every round runs every target's
 * every scenario once, the same for the same seed.  Also fed to the start output's reader
 * (key=value lines).  Any crash, leak or abort is a bug.
 */
// fuzz-sources: soak/scenario/study.c soak/scenario/scenario.c soak/scenario/scenario_read.c soak/scenario/scenario_frame.c soak/engine/plan.c soak/engine/frame.c soak/engine/template.c soak/engine/h1.c soak/engine/httpclass.c common/dur.c common/clock.c common/redact.c common/cpus.c common/buf.c common/re.c
// fuzz-sources: soak/engine/conn.c soak/engine/dlist.c soak/engine/engine.c soak/engine/evloop.c soak/engine/h2.c soak/engine/h2conn.c soak/engine/h2msg.c soak/engine/http.c soak/engine/lean.c soak/engine/mempool.c soak/engine/sched.c soak/engine/stats.c soak/engine/tcpframe.c soak/engine/tls.c soak/engine/vuheap.c soak/scenario/scenario_tls.c common/hdr.c soak/engine/up.c
// fuzz-libs: -lhttp_parser
// fuzz-pkgs: libcurl libpcre2-8 inih openssl libnghttp2 zlib
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz.ini"

static void check_schedule(const struct study *st)
{
	int n = study_nslots(st), warm, per = st->ntargets * st->nscenarios;
	struct study_slot *a, *b;

	if (n != st->rounds * per || study_nruns(st, &warm) != n + warm || warm < 0)
		abort();
	a = malloc((size_t)n * sizeof *a);
	b = malloc((size_t)n * sizeof *b);
	if (!a || !b)
		abort();
	study_schedule(st, 12345, a);
	study_schedule(st, 12345, b);
	if (memcmp(a, b, (size_t)n * sizeof *a) != 0)
		abort();
	for (int i = 0; i < n; i++) {
		uint64_t seen = 0;
		if (a[i].round != i / per + 1 || a[i].position != i % per + 1 || a[i].target < 0 ||
		    a[i].target >= st->ntargets || a[i].scenario < 0 || a[i].scenario >= st->nscenarios)
			abort();
		if (i % per != per - 1)
			continue;
		for (int k = i - per + 1; k <= i; k++)
			seen |= 1ULL << (a[k].target * STUDY_MAX_SCENARIOS + a[k].scenario);
		if (__builtin_popcountll(seen) != per)
			abort();
	}
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[1024] = "";
	struct study st;
	struct study_kv kv = {0};

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (study_parse_text(&st, NAME, text, err, sizeof err) == 0) {
		if (st.rounds < 1 || st.rounds > STUDY_MAX_ROUNDS || st.ntargets < 1 ||
		    st.ntargets > STUDY_MAX_TARGETS || st.nscenarios < 1 ||
		    st.nscenarios > STUDY_MAX_SCENARIOS || !st.name || st.warmup_runs < 0 ||
		    st.warmup_runs > STUDY_MAX_WARMUP || st.command_timeout_ms < 100)
			abort();
		for (int t = 0; t < st.ntargets; t++) {
			const struct study_target *tg = &st.targets[t];
			if (!tg->name || !*tg->name || (!tg->start && !tg->given.url && !tg->given.address))
				abort();
		}
		check_schedule(&st);
		study_release(&st);
	} else {
		const char *p = err + strlen(NAME ":");
		if (strcmp(err, "out of memory") != 0 &&
		    (strncmp(err, NAME ":", strlen(NAME ":")) != 0 || *p < '1' || *p > '9'))
			abort();
	}
	/* The same bytes as a start command's output. */
	if (study_kv_parse(&kv, text, err, sizeof err) == 0 && kv.pid < 0)
		abort();
	study_kv_release(&kv);
	free(text);
	return 0;
}
