/* study: study files, their schedule and their runs' scenarios (study.h).
 * Every mistake is FILE:LINE and nothing is half-built; a run's scenario gets the study's
 * secret names too. */
#include "study.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dur.h"
#include "cpus.h"
#include "redact.h"
#include "scenario_read.h"

#define KV_MAX 65536 /* bytes of a start command's output that are read */

static int section_known(const char *sec)
{
	return strcmp(sec, "study") == 0 || (strncmp(sec, "target.", 7) == 0 && sec[7]);
}

static char *get_str(struct scn_parse *p, const char *sec, const char *key)
{
	struct scn_entry *e = scn_find(p, sec, key);
	if (!e || !*e->value)
		return NULL;
	return scn_dup(p, e->value);
}

/* A value as written: ${env:NAME} unexpanded, for what is shown and stored. */
static char *get_shown(struct scn_parse *p, const char *sec, const char *key)
{
	struct scn_entry *e = scn_find(p, sec, key);
	if (!e || !*e->value)
		return NULL;
	return scn_dup(p, e->raw ? e->raw : e->value);
}

/* A path relative to the study file's directory. */
static char *relative_to(struct scn_parse *p, const char *file, const char *path)
{
	char buf[4096];
	const char *slash = strrchr(file, '/');
	if (path[0] != '/' && slash)
		snprintf(buf, sizeof buf, "%.*s/%s", (int)(slash - file), file, path);
	else
		snprintf(buf, sizeof buf, "%s", path);
	return scn_dup(p, buf);
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= STUDY_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return 0;
	return 1;
}

/* [study] scenario = lines: repeatable, every line counts, in order. */
static void parse_scenarios(struct scn_parse *p, struct study *st)
{
	struct scn_entry *e;

	for (int i = 0; i < p->nents && !p->failed; i++) {
		e = &p->ents[i];
		if (strcmp(e->section, "study") || strcmp(e->key, "scenario"))
			continue;
		e->used = 1;
		if (!*e->value) {
			scn_perr(p, e, 0, "scenario: a scenario file, please");
			break;
		}
		if (st->nscenarios >= STUDY_MAX_SCENARIOS) {
			scn_perr(p, e, 0, "more than %d scenarios", STUDY_MAX_SCENARIOS);
			break;
		}
		st->scenarios[st->nscenarios++] = relative_to(p, st->file, e->value);
	}
	if (!p->failed && st->nscenarios == 0)
		scn_perr(p, NULL, scn_section_line(p, "study"),
		         "[study] needs scenario = FILE (the scenario every target runs)");
}

/* warmup_runs, warmup_steady and warmup_max of [study]. */
static void parse_warmup(struct scn_parse *p, struct study *st)
{
	struct scn_entry *e;
	long v;

	st->warmup_runs = 1;
	if ((e = scn_find(p, "study", "warmup_runs")) &&
	    scn_get_int(p, e, 0, STUDY_MAX_WARMUP, &v) == 0)
		st->warmup_runs = (int)v;
	/* warmup_steady: the JIT of a container keeps warming for several runs after its
	 * start; more warm-up runs until the last two agree, so the compared runs start warm. */
	st->warmup_max = st->warmup_runs;
	if ((e = scn_find(p, "study", "warmup_steady"))) {
		char err[128];
		double f;
		if (dur_pct_parse(e->value, &f, err, sizeof err) < 0 || f <= 0 || f >= 1)
			scn_perr(p, e, 0, "warmup_steady: expected a share such as 5%%, not '%s'",
			         e->value);
		else if (st->warmup_runs < 1)
			scn_perr(p, e, 0, "warmup_steady: needs warmup_runs of at least 1");
		else
			st->warmup_steady = f;
		st->warmup_max =
		    st->warmup_runs > STUDY_WARMUP_MAX ? st->warmup_runs : STUDY_WARMUP_MAX;
	}
	/* warmup_jit: the JIT going quiet is when a JVM's warm-up ends (its application threads
	 * cost more per request for as long as it compiles). */
	st->warmup_jit = STUDY_WARMUP_JIT;
	if ((e = scn_find(p, "study", "warmup_jit"))) {
		char err[128];
		double f = 0;
		if (strcmp(e->value, "off") &&
		    (dur_pct_parse(e->value, &f, err, sizeof err) < 0 || f < 0 || f >= 1))
			scn_perr(p, e, 0,
			         "warmup_jit: expected a share such as 2%%, or off, not '%s'",
			         e->value);
		st->warmup_jit = f;
	}
	if (st->warmup_jit > 0 && st->warmup_max < STUDY_WARMUP_JIT_MAX)
		st->warmup_max = STUDY_WARMUP_JIT_MAX;
	if ((e = scn_find(p, "study", "warmup_max")) &&
	    scn_get_int(p, e, 1, STUDY_MAX_WARMUP, &v) == 0) {
		if (!(st->warmup_steady > 0) && !(st->warmup_jit > 0))
			scn_perr(p, e, 0, "warmup_max: only with warmup_steady or warmup_jit");
		else if (v < st->warmup_runs)
			scn_perr(p, e, 0, "warmup_max: %lld is fewer than warmup_runs (%d)",
			         (long long)v, st->warmup_runs);
		st->warmup_max = (int)v;
	}
}

/* Whether [study] names a key that chooses the design (a target's replicas make more
 * processes than targets, which the default leaves alone too). */
static int chooses_design(struct scn_parse *p)
{
	static const char *const keys[] = {"keep_running", "replicas", "starts", "until", "budget"};
	struct scn_entry *e = scn_find(p, "study", "design");

	if (e && strcmp(e->value, "auto"))
		return 1;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (scn_find(p, "study", keys[i]))
			return 1;
	return 0;
}

/* design, replicas, starts (and budget's use without until) and primary of [study]. */
static void parse_design(struct scn_parse *p, struct study *st)
{
	struct scn_entry *e;
	long v;

	st->replicas = st->starts = 1;
	if ((e = scn_find(p, "study", "design"))) {
		if (!strcmp(e->value, "auto"))
			st->design = STUDY_AUTO;
		else if (!strcmp(e->value, "side-by-side") || !strcmp(e->value, "duet"))
			st->design = STUDY_SIDE_BY_SIDE;
		else if (!strcmp(e->value, "one-at-a-time"))
			st->design = STUDY_ONE_AT_A_TIME;
		else
			scn_perr(p, e, 0,
			         "design: expected auto, side-by-side or one-at-a-time, not '%s'",
			         e->value);
		if (st->design == STUDY_SIDE_BY_SIDE && scn_find(p, "study", "until"))
			scn_perr(p, e, 0,
			         "design: side-by-side does not take until (yet): "
			         "its rounds are set by rounds and starts");
	}
	if ((e = scn_find(p, "study", "replicas")) &&
	    scn_get_int(p, e, 1, STUDY_MAX_REPLICAS, &v) == 0)
		st->replicas = (int)v;
	if ((e = scn_find(p, "study", "starts")) && !strcmp(e->value, "auto")) {
		st->starts_auto = 1;
		st->starts = STUDY_AUTO_STARTS;
	} else if (e && scn_get_int(p, e, 1, STUDY_MAX_STARTS, &v) == 0) {
		st->starts = (int)v;
	}
	if (st->budget_ms > 0 && st->nuntil <= 0 && !st->starts_auto)
		scn_perr(
		    p, scn_find(p, "study", "budget"), 0,
		    "budget: only with until = FIG PCT%% (what to run until) or starts = auto");
	if (st->starts_auto && st->budget_ms <= 0)
		st->budget_ms = STUDY_AUTO_BUDGET_MS;
	st->design_given = chooses_design(p);
	if ((e = scn_find(p, "study", "primary"))) {
		char err[256];
		if (study_until_fig(e->value, err, sizeof err) < 0)
			scn_perr(p, e, 0, "primary: %s", err);
		snprintf(st->primary, sizeof st->primary, "%s", e->value);
	}
}

static void parse_study(struct scn_parse *p, struct study *st)
{
	struct scn_entry *e;
	long v;
	const char *base = strrchr(st->file, '/');

	base = base ? base + 1 : st->file;
	if ((e = scn_find(p, "study", "name")) && *e->value) {
		st->name = scn_dup(p, e->value);
	} else {
		st->name = scn_dup(p, base);
		if (st->name && strlen(st->name) > 4 &&
		    !strcmp(st->name + strlen(st->name) - 4, ".ini"))
			st->name[strlen(st->name) - 4] = '\0';
	}
	parse_scenarios(p, st);
	st->rounds = 0;
	if ((e = scn_find(p, "study", "rounds")) && scn_get_int(p, e, 1, STUDY_MAX_ROUNDS, &v) == 0)
		st->rounds = (int)v;
	else if (!e && !scn_find(p, "study", "until"))
		scn_perr(p, NULL, scn_section_line(p, "study"),
		         "[study] needs rounds = N (runs per target)");
	else if (!e)
		st->rounds = STUDY_SEQ_ROUNDS; /* sequential: the budget stops it first */
	if ((e = scn_find(p, "study", "order"))) {
		if (!strcmp(e->value, "interleaved"))
			st->order = STUDY_INTERLEAVED;
		else if (!strcmp(e->value, "random"))
			st->order = STUDY_RANDOM;
		else
			scn_perr(p, e, 0, "order: expected interleaved or random, not '%s'",
			         e->value);
	}
	if ((e = scn_find(p, "study", "seed"))) {
		char *end;
		errno = 0;
		unsigned long long s = strtoull(e->value, &end, 10);
		if (end == e->value || *end || errno || e->value[0] == '-')
			scn_perr(p, e, 0, "seed: '%s' is not a whole number", e->value);
		st->seed = s;
		st->has_seed = 1;
		if (st->order != STUDY_RANDOM)
			scn_perr(p, e, 0, "seed: only with order = random");
	}
	scn_get_redact(p, "study", &st->redact);
	st->before_each = get_str(p, "study", "before_each");
	st->before_each_shown = get_shown(p, "study", "before_each");
	parse_warmup(p, st);
	if ((e = scn_find(p, "study", "keep_running")))
		scn_get_bool(p, e, &st->keep_running);
	if ((e = scn_find(p, "study", "until")) && *e->value) {
		char err[256];
		st->nuntil =
		    study_until_parse(e->value, st->until, STUDY_MAX_UNTIL, err, sizeof err);
		if (st->nuntil < 0)
			scn_perr(p, e, 0, "until: %s", err);
		st->until_text = scn_dup(p, e->value);
	}
	if (scn_get_dur(p, "study", "budget", &st->budget_ms) > 0 && st->budget_ms < 1000)
		scn_perr(p, scn_find(p, "study", "budget"), 0, "budget: must be at least 1s");
	if (st->nuntil > 0 && st->budget_ms <= 0)
		scn_perr(p, scn_find(p, "study", "until"), 0,
		         "until: needs budget = D (the time the study may take)");
	parse_design(p, st);
	st->command_timeout_ms = 120000;
	if (scn_get_dur(p, "study", "command_timeout", &st->command_timeout_ms) > 0 &&
	    st->command_timeout_ms < 100)
		scn_perr(p, scn_find(p, "study", "command_timeout"), 0,
		         "command_timeout: must be at least 100ms");
}

static void parse_target(struct scn_parse *p, struct study *st, const char *sec)
{
	struct study_target *t;
	struct scn_entry *e;
	long v;

	if (st->ntargets >= STUDY_MAX_TARGETS) {
		scn_perr(p, NULL, scn_section_line(p, sec), "more than %d targets",
		         STUDY_MAX_TARGETS);
		return;
	}
	t = &st->targets[st->ntargets++];
	t->line = scn_section_line(p, sec);
	if (!valid_name(sec + 7)) {
		scn_perr(p, NULL, t->line,
		         "[%s]: a target's name (its runs' label) is letters, digits, '_', '-' and "
		         "'.', at most %d bytes",
		         sec, STUDY_NAME_MAX - 1);
		return;
	}
	t->name = scn_dup(p, sec + 7);
	t->start = get_str(p, sec, "start");
	t->stop = get_str(p, sec, "stop");
	t->start_shown = get_shown(p, sec, "start");
	t->stop_shown = get_shown(p, sec, "stop");
	t->given.url = get_str(p, sec, "url");
	t->given.address = get_str(p, sec, "address");
	t->given.gc_log = get_str(p, sec, "gc_log");
	if ((e = scn_find(p, sec, "pid")) && scn_get_int(p, e, 1, 1L << 30, &v) == 0)
		t->given.pid = v;
	if ((e = scn_find(p, sec, "cpus")) && *e->value) {
		cpu_set_t set;
		char err[256];
		if (cpus_parse(e->value, &set, err, sizeof err) < 0)
			scn_perr(p, e, 0, "cpus: %s", err);
		t->cpus = scn_dup(p, e->value);
	}
	t->replicas = st->replicas;
	if ((e = scn_find(p, sec, "replicas")) && scn_get_int(p, e, 1, STUDY_MAX_REPLICAS, &v) == 0)
		t->replicas = (int)v;
	for (int i = 0; i < p->nents && !p->failed; i++) {
		e = &p->ents[i];
		if (strcmp(e->section, sec) || strcmp(e->key, "set"))
			continue;
		e->used = 1;
		if (t->nsets >= STUDY_MAX_SETS) {
			scn_perr(p, e, 0, "more than %d set lines", STUDY_MAX_SETS);
			break;
		}
		if (!strchr(e->value, '=') || !strchr(e->value, '.') ||
		    strchr(e->value, '.') > strchr(e->value, '=')) {
			scn_perr(p, e, 0, "set: expected SECTION.KEY=VALUE, not '%s'", e->value);
			break;
		}
		/* As written: the scenario expands its ${env:NAME} (and doubles its '$' for a
		 * template) itself. */
		t->sets[t->nsets++] = scn_dup(p, e->raw ? e->raw : e->value);
	}
	if (!p->failed && !t->start && !t->given.url && !t->given.address)
		scn_perr(p, NULL, t->line,
		         "[%s] needs start = COMMAND (printing url=...), or url = (or address =) "
		         "of a target already running",
		         sec);
}

/* Each [target.NAME] once, in file order. */
static void parse_targets(struct scn_parse *p, struct study *st)
{
	for (int i = 0; i < p->nents && !p->failed; i++) {
		const char *sec = p->ents[i].section;
		int seen = 0;
		if (strncmp(sec, "target.", 7) != 0)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(p->ents[j].section, sec) == 0;
		if (!seen)
			parse_target(p, st, sec);
	}
}

/* The instances (each target's processes), and what several of them, or several starts,
 * imply: the targets kept running within a start, no sequential rounds. */
static void instances(struct scn_parse *p, struct study *st)
{
	struct scn_entry *e;

	st->ninst = 0;
	for (int t = 0; t < st->ntargets; t++)
		for (int r = 0; r < st->targets[t].replicas; r++) {
			if (st->ninst == STUDY_MAX_INSTANCES) {
				scn_perr(p, NULL, st->targets[t].line,
				         "more than %d processes in all", STUDY_MAX_INSTANCES);
				return;
			}
			st->inst_target[st->ninst] = t;
			st->inst_replica[st->ninst++] = r;
		}
	if (st->ninst == st->ntargets && st->starts == 1)
		return;
	if ((e = scn_find(p, "study", "keep_running")) && !st->keep_running)
		scn_perr(p, e, 0,
		         "keep_running: replicas and starts keep the targets running "
		         "within a start");
	st->keep_running = 1;
	if (st->nuntil > 0)
		scn_perr(p, scn_find(p, "study", "until"), 0,
		         "until: not with replicas or starts (yet)");
}

static void validate(struct scn_parse *p, struct study *st)
{
	if (p->failed)
		return;
	instances(p, st);
	if (st->ntargets == 0) {
		scn_perr(p, NULL, p->line > 0 ? p->line : 1,
		         "no [target.NAME] section: a study needs at least one target");
		return;
	}
	for (int i = 0; i < p->nents && !p->failed; i++)
		if (!p->ents[i].used)
			scn_perr(p, &p->ents[i], 0, "unknown key '%s' in [%s]", p->ents[i].key,
			         p->ents[i].section);
}

int study_parse_text(struct study *st, const char *name, const char *text, char *err, size_t errlen)
{
	struct scn_parse p = {.name = name,
	                      .text = text,
	                      .pos = text,
	                      .err = err,
	                      .errlen = errlen,
	                      .known = section_known,
	                      .known_list = "study, target.NAME"};
	int rc = -1;

	memset(st, 0, sizeof *st);
	p.ents = calloc(SCN_MAX_ENTRIES, sizeof *p.ents);
	st->file = strdup(name);
	st->text = strdup(text);
	if (!p.ents || !st->file || !st->text) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if (scn_read(&p) < 0)
		goto done;
	parse_study(&p, st);
	if (!p.failed)
		parse_targets(&p, st);
	validate(&p, st);
	rc = p.failed ? -1 : 0;
done:
	scn_parse_release(&p);
	if (rc < 0)
		study_release(st);
	return rc;
}

int study_load(struct study *st, const char *path, char *err, size_t errlen)
{
	char *text = scn_file_text(path, err, errlen);
	int rc;

	memset(st, 0, sizeof *st);
	if (!text)
		return -1;
	rc = study_parse_text(st, path, text, err, errlen);
	free(text);
	return rc;
}

int study_is_file(const char *path)
{
	char err[256], *text = scn_file_text(path, err, sizeof err);
	int is = 0;

	if (!text)
		return 0;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n'), *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '[') {
			is = strncmp(s, "[study]", 7) == 0;
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return is;
}

void study_kv_release(struct study_kv *kv)
{
	free(kv->url);
	free(kv->address);
	free(kv->gc_log);
	free(kv->version);
	memset(kv, 0, sizeof *kv);
}

void study_release(struct study *st)
{
	for (int i = 0; i < st->nscenarios; i++)
		free(st->scenarios[i]);
	for (int i = 0; i < st->ntargets; i++) {
		struct study_target *t = &st->targets[i];
		free(t->name);
		free(t->start);
		free(t->stop);
		free(t->start_shown);
		free(t->stop_shown);
		free(t->cpus);
		study_kv_release(&t->given);
		for (int k = 0; k < t->nsets; k++)
			free(t->sets[k]);
	}
	free(st->before_each);
	free(st->before_each_shown);
	free(st->until_text);
	free(st->name);
	free(st->file);
	free(st->text);
	memset(st, 0, sizeof *st);
}

/* --- the schedule ----------------------------------------------------------------------- */

int study_nslots(const struct study *st)
{
	return st->starts * st->rounds * study_ninstances(st) * st->nscenarios;
}

int study_another_fits(int64_t elapsed_ms, int64_t longest_ms, int64_t budget_ms)
{
	return elapsed_ms + longest_ms + longest_ms * STUDY_AUTO_MARGIN / 100 <= budget_ms;
}

int study_ninstances(const struct study *st)
{
	return st->ninst;
}

int study_instance(const struct study *st, int t, int r)
{
	for (int i = 0; i < st->ninst; i++)
		if (st->inst_target[i] == t && st->inst_replica[i] == r)
			return i;
	return -1;
}

/* The default for a study that chose no design: two targets or more, each started by the
 * study, one process each, a scenario at a fixed rate: starts = auto. */
static void default_starts(struct study *st, const double *rates)
{
	int started = st->ntargets >= 2, fixed = 0;

	for (int t = 0; t < st->ntargets; t++)
		started &= st->targets[t].start != NULL;
	for (int i = 0; i < st->nscenarios; i++)
		fixed |= rates[i] > 0;
	/* design_given covers a design other than auto and starts = auto written */
	if (st->design_given || !started || !fixed || st->ninst != st->ntargets)
		return;
	st->starts_auto = 1;
	st->starts = STUDY_AUTO_STARTS;
	st->keep_running = 1;
	st->budget_ms = STUDY_AUTO_BUDGET_MS;
}

void study_resolve_design(struct study *st, const double *rates)
{
	default_starts(st, rates);
	int fits = study_ninstances(st) >= 2 && st->keep_running && st->nuntil == 0;

	for (int i = 0; i < st->nscenarios; i++)
		st->together[i] = st->design == STUDY_SIDE_BY_SIDE ||
		                  (st->design == STUDY_AUTO && fits && rates[i] > 0);
}

int study_grouped(const struct study *st)
{
	int together = 0;

	for (int i = 0; i < st->nscenarios; i++)
		together |= st->together[i];
	return together || st->ninst > st->ntargets || st->starts > 1;
}

/* splitmix64: a small, well-mixed generator whose sequence a seed fixes everywhere. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The order of the n instances in round r: file order, reversed in even rounds when
 * interleaved, shuffled when random. */
static void round_order(const struct study *st, int r, uint64_t *rng, int *order, int n)
{
	for (int i = 0; i < n; i++)
		order[i] = st->order == STUDY_INTERLEAVED && r % 2 == 0 ? n - 1 - i : i;
	if (st->order == STUDY_RANDOM)
		for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
			int j = (int)(next_rand(rng) % (uint64_t)(i + 1)), t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
}

void study_schedule(const struct study *st, uint64_t seed, struct study_slot *out)
{
	int order[STUDY_MAX_INSTANCES], k = 0, n = study_ninstances(st), group = 0, ntog = 0;
	uint64_t rng = seed;

	for (int sc = 0; sc < st->nscenarios; sc++)
		ntog += st->together[sc] != 0;
	for (int s = 0; s < st->starts; s++) {
		/* Each start measures its side-by-side groups first, right after its warm-up (at
		 * their load), then its one-at-a-time runs: a saturated capacity run wakes a JIT
		 * that the fixed rate had let go quiet. */
		for (int r = s * st->rounds + 1; r <= (s + 1) * st->rounds; r++)
			for (int sc = 0, pos = 1; sc < st->nscenarios; sc++) {
				if (!st->together[sc])
					continue;
				group++;
				for (int i = 0; i < n; i++)
					out[k++] =
					    (struct study_slot){.round = r,
					                        .position = pos,
					                        .target = st->inst_target[i],
					                        .replica = st->inst_replica[i],
					                        .scenario = sc,
					                        .start = s + 1,
					                        .group = group};
				pos++;
			}
		for (int r = s * st->rounds + 1; r <= (s + 1) * st->rounds; r++) {
			int pos = ntog + 1;
			round_order(st, r, &rng, order, n);
			for (int i = 0; i < n; i++)
				for (int sc = 0; sc < st->nscenarios; sc++)
					if (!st->together[sc])
						out[k++] = (struct study_slot){
						    .round = r,
						    .position = pos++,
						    .target = st->inst_target[order[i]],
						    .replica = st->inst_replica[order[i]],
						    .scenario = sc,
						    .start = s + 1};
		}
	}
}

int study_nruns(const struct study *st, int *warmups)
{
	int starts = 0, together = 0;

	for (int i = 0; i < st->nscenarios; i++)
		together |= st->together[i];
	if (study_grouped(st)) {
		/* Each start: warm-up runs of every instance, of the first side-by-side scenario
		 * (together) or of each scenario (alone); at least warmup_runs of them. */
		*warmups = st->starts * study_ninstances(st) * (together ? 1 : st->nscenarios) *
		           (st->warmup_runs > 1 ? st->warmup_runs : 1);
		return study_nslots(st) + *warmups;
	}
	for (int t = 0; t < st->ntargets; t++)
		starts +=
		    st->targets[t].start && !st->keep_running ? st->rounds * st->nscenarios : 1;
	/* A warm-up runs each scenario once. */
	*warmups =
	    starts * st->nscenarios * (st->warmup_steady > 0 ? st->warmup_max : st->warmup_runs);
	return study_nslots(st) + *warmups;
}

/* --- a run's scenario ------------------------------------------------------------------- */

/* A growing list of "SECTION.KEY=VALUE" overrides (owned strings). */
struct sets {
	char *v[STUDY_MAX_SETS * 2 + PLAN_MAX_REQUESTS + 64];
	int n;
};

/* Adds "key=value", or `key` as it is when value is NULL. */
static int sets_add(struct sets *s, const char *key, const char *value)
{
	size_t n = strlen(key) + (value ? strlen(value) + 2 : 1);
	char *d;
	if (s->n >= (int)(sizeof s->v / sizeof s->v[0]) || !(d = malloc(n)))
		return -1;
	if (value)
		snprintf(d, n, "%s=%s", key, value);
	else
		memcpy(d, key, n);
	s->v[s->n++] = d;
	return 0;
}

static void sets_free(struct sets *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

/* Length of a URL's origin (scheme://host[:port]), 0 when it has none. */
static size_t origin_len(const char *url)
{
	const char *p = strstr(url, "://");
	if (!p)
		return 0;
	p += 3;
	while (*p && *p != '/' && *p != '?' && *p != '#')
		p++;
	return (size_t)(p - url);
}

/* The study's secret names added to a run's scenario (its own stay), and its stored text
 * redacted with them too; 0, or -1 with err. */
static int add_study_names(struct scenario *out, const struct study *st, char *err,
                           size_t errlen)
{
	char list[REDACT_MAX_NAMES * REDACT_NAME_MAX];
	char *text;

	if (st->redact.n == 0)
		return 0;
	redact_list(&st->redact, list, sizeof list);
	if (redact_add(&out->redact, list, err, errlen) < 0)
		return -1;
	if (!(text = redact_ini(&out->redact, out->text))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(out->text);
	out->text = text;
	return 0;
}

int study_scenario(const struct study *st, int t, int sc, const struct study_kv *kv,
                   char *const *sets, int nsets, struct scenario *out, char *err, size_t errlen)
{
	const struct study_target *tg = &st->targets[t];
	struct sets s = {.n = 0};
	struct scenario pre;
	struct study_kv stand_in;
	int rc = -1;

	memset(out, 0, sizeof *out);
	for (int i = 0; i < nsets; i++)
		if (sets_add(&s, sets[i], NULL) < 0)
			goto oom;
	for (int i = 0; i < tg->nsets; i++)
		if (sets_add(&s, tg->sets[i], NULL) < 0)
			goto oom;
	if (sets_add(&s, "scenario.label", tg->name) < 0)
		goto oom;
	if (!kv) {
		kv = &tg->given;
		/* Checked before its start has run, a target's process is not known yet: the
		 * study's own pid stands in for the pid= its start prints, so that the target's
		 * overrides of [collect.app] are checked as the run will read them. */
		if (tg->start && kv->pid <= 0) {
			stand_in = *kv;
			stand_in.pid = (long)getpid();
			kv = &stand_in;
		}
	}
	/* The target's process and GC log come before the first reading, so that a target's
	 * `set = collect.app.every=1s` meets a [collect.app] that has something to collect. */
	if (kv->address && sets_add(&s, "request.address", kv->address) < 0)
		goto oom;
	if (kv->pid > 0) {
		char pid[32];
		snprintf(pid, sizeof pid, "%ld", kv->pid);
		if (sets_add(&s, "collect.app.pid_match", "") < 0 ||
		    sets_add(&s, "collect.app.pidfile", "") < 0 ||
		    sets_add(&s, "collect.app.pid", pid) < 0)
			goto oom;
	}
	if (kv->gc_log && sets_add(&s, "collect.app.gc_log", kv->gc_log) < 0)
		goto oom;
	/* Placement: the target's app processes on its CPUs, placed and checked by each run. */
	if (tg->cpus && sets_add(&s, "collect.app.cpus", tg->cpus) < 0)
		goto oom;
	/* The URLs need the request sections' names and URLs: read the scenario once as it
	 * stands, then with the target's values. */
	if (scn_load(&pre, st->scenarios[sc], s.v, s.n, err, errlen) < 0)
		goto done;
	if (kv->url && pre.plan.protocol == PLAN_HTTP) {
		for (int i = 0; i < pre.plan.nreqs; i++) {
			const struct plan_request *q = &pre.plan.reqs[i];
			const char *sec = strcmp(q->name, "default") == 0 ? "request" : q->name;
			char url[8192], secbuf[96], key[112];
			size_t ol = origin_len(kv->url);
			if (pre.plan.nreqs == 1)
				snprintf(url, sizeof url, "%s", kv->url);
			else /* several requests: each keeps its path, on the target's origin */
				snprintf(url, sizeof url, "%.*s%s", (int)ol, kv->url,
				         q->url.text + origin_len(q->url.text));
			if (strcmp(sec, "request") != 0)
				snprintf(secbuf, sizeof secbuf, "request.%s", sec);
			else
				snprintf(secbuf, sizeof secbuf, "request");
			snprintf(key, sizeof key, "%s.url", secbuf);
			if (sets_add(&s, key, url) < 0) {
				scn_release(&pre);
				goto oom;
			}
		}
	}
	scn_release(&pre);
	rc = scn_load(out, st->scenarios[sc], s.v, s.n, err, errlen);
	if (rc == 0 && add_study_names(out, st, err, errlen) < 0) {
		scn_release(out);
		rc = -1;
	}
	goto done;
oom:
	snprintf(err, errlen, "out of memory");
done:
	sets_free(&s);
	return rc;
}

/* --- key=value output ------------------------------------------------------------------- */

static int set_str(char **dst, const char *v, size_t n)
{
	char *d = strndup(v, n);
	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

int study_kv_parse(struct study_kv *kv, const char *text, char *err, size_t errlen)
{
	const char *line = text;
	int lineno = 0;

	while (line && *line && line - text < KV_MAX) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *eq = memchr(line, '=', n);
		lineno++;
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
			n--;
		if (eq) {
			size_t kl = (size_t)(eq - line), vl = n - kl - 1;
			const char *v = eq + 1;
			int bad = 0;
			if (kl == 3 && !strncmp(line, "url", 3))
				bad = set_str(&kv->url, v, vl);
			else if (kl == 7 && !strncmp(line, "address", 7))
				bad = set_str(&kv->address, v, vl);
			else if (kl == 6 && !strncmp(line, "gc_log", 6))
				bad = set_str(&kv->gc_log, v, vl);
			else if (kl == 7 && !strncmp(line, "version", 7))
				bad = set_str(&kv->version, v, vl);
			else if (kl == 3 && !strncmp(line, "pid", 3)) {
				char num[32], *end;
				long p;
				snprintf(num, sizeof num, "%.*s", (int)(vl < 31 ? vl : 31), v);
				p = strtol(num, &end, 10);
				if (end == num || *end || p < 1 || vl >= 31) {
					snprintf(err, errlen,
					         "line %d: pid=%.*s is not a process id", lineno,
					         (int)(vl < 40 ? vl : 40), v);
					return -1;
				}
				kv->pid = p;
			}
			if (bad) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int study_kv_copy(struct study_kv *kv, const struct study_kv *a)
{
	memset(kv, 0, sizeof *kv);
	kv->pid = a->pid;
	if ((a->url && !(kv->url = strdup(a->url))) ||
	    (a->address && !(kv->address = strdup(a->address))) ||
	    (a->gc_log && !(kv->gc_log = strdup(a->gc_log))) ||
	    (a->version && !(kv->version = strdup(a->version)))) {
		study_kv_release(kv);
		return -1;
	}
	return 0;
}

/* --- soak check -------------------------------------------------------------------------- */

/* The grouped path's warm-up, after each start. */
static void print_grouped_warmup(const struct study *st, FILE *f)
{
	int sc = 0;

	while (sc < st->nscenarios && !st->together[sc])
		sc++;
	if (sc < st->nscenarios)
		fprintf(f, "; after each start, warm-up runs side by side of scenario %d", sc + 1);
	else
		fprintf(f, "; after each start, warm-up runs of each scenario");
	fprintf(f, " (%d to %d)", st->warmup_runs > 1 ? st->warmup_runs : 1, st->warmup_max);
	if (st->warmup_jit > 0)
		fprintf(f, " until a JVM's JIT takes under %g%% of its CPU", 100 * st->warmup_jit);
	if (st->warmup_steady > 0)
		fprintf(f, "%s two in a row agree within %g%%",
		        st->warmup_jit > 0 ? " and" : " until", 100 * st->warmup_steady);
}

/* The design line of soak check: which scenarios run side by side, replicas and starts. */
static void print_design(const struct study *st, FILE *f)
{
	fprintf(f, "  design:");
	for (int i = 0; i < st->nscenarios; i++)
		fprintf(f, "%s scenario %d %s", i ? ";" : "", i + 1,
		        st->together[i] ? "side by side (every instance in the same seconds)"
		                        : "one at a time");
	if (st->ninst > st->ntargets) {
		int same = 1;
		for (int t = 1; t < st->ntargets; t++)
			same &= st->targets[t].replicas == st->targets[0].replicas;
		if (same)
			fprintf(f, "; %d processes of each target at once (replicas)",
			        st->targets[0].replicas);
		else
			for (int t = 0; t < st->ntargets; t++)
				fprintf(f, "%s%s %d", t ? ", " : "; processes at once (replicas): ",
				        st->targets[t].name, st->targets[t].replicas);
	}
	if (st->starts_auto) {
		char b[32];
		fprintf(f,
		        "; the targets started again and again while another start fits in %s "
		        "(at most %d starts; starts = auto%s), %d round%s each",
		        dur_format(st->budget_ms, b, sizeof b), st->starts,
		        st->design_given ? "" : ", the default for two targets at a fixed rate",
		        st->rounds, st->rounds == 1 ? "" : "s");
	} else if (st->starts > 1) {
		fprintf(f, "; the targets started %d times, %d round%s each", st->starts,
		        st->rounds, st->rounds == 1 ? "" : "s");
	}
	if (st->primary[0])
		fprintf(f, "; primary figure %s", st->primary);
	fputc('\n', f);
}

/* The study's first line: targets, rounds, order, warm-ups, how targets are run. */
static void print_study(const struct study *st, FILE *f)
{
	int managed = 0;

	fprintf(f, "%s: study '%s': %d target%s, %d round%s, order %s", st->file, st->name,
	        st->ntargets, st->ntargets == 1 ? "" : "s", st->rounds, st->rounds == 1 ? "" : "s",
	        st->order == STUDY_RANDOM ? "random" : "interleaved");
	if (st->order == STUDY_RANDOM) {
		if (st->has_seed)
			fprintf(f, " (seed %llu)", (unsigned long long)st->seed);
		else
			fprintf(f, " (seed chosen when the study starts, and recorded)");
	}
	for (int t = 0; t < st->ntargets; t++)
		managed += st->targets[t].start != NULL;
	const char *each = st->nscenarios > 1 ? " of each scenario" : "";
	if (study_grouped(st))
		print_grouped_warmup(st, f);
	else if (st->warmup_steady > 0)
		fprintf(f,
		        "; %d to %d warm-up runs%s after each start (or the study's), until "
		        "two in a row agree within %g%%",
		        st->warmup_runs < 2 ? 2 : st->warmup_runs, st->warmup_max, each,
		        100 * st->warmup_steady);
	else
		fprintf(f, "; %d warm-up run%s%s after each start (or the study's)",
		        st->warmup_runs, st->warmup_runs == 1 ? "" : "s", each);
	fprintf(f, "; targets %s\n",
	        !managed           ? "already running"
	        : st->keep_running ? "kept running"
	                           : "started and stopped around each run");
}

/* Placement, as the first scenario has it (--set included), and the targets'. */
static void print_placement(const struct study *st, const struct scenario *s, FILE *f)
{
	int said = 0;

	if (s->cpus) {
		fprintf(f, "  placement: the load generator on CPUs %s", s->cpus);
		said = 1;
	}
	for (int i = 0; i < s->ncollect; i++)
		if (s->collect[i].cpus) {
			fprintf(f, "%s%s on CPUs %s",
			        said ? "; " : "  placement: ", s->collect[i].name,
			        s->collect[i].cpus);
			said = 1;
		}
	for (int t = 0; t < st->ntargets; t++)
		if (st->targets[t].cpus) {
			fprintf(f, "%starget %s on CPUs %s",
			        said ? "; " : "  placement: ", st->targets[t].name,
			        st->targets[t].cpus);
			said = 1;
		}
	if (said)
		fputc('\n', f);
}

/* Each target: how it starts and stops, or where it runs already.  Commands and URLs as
 * a report would show them: their secrets redacted. */
static void print_targets(const struct study *st, FILE *f)
{
	for (int t = 0; t < st->ntargets; t++) {
		const struct study_target *tg = &st->targets[t];
		char *start = redact_text(&st->redact, tg->start_shown ? tg->start_shown : ""),
		     *stop = redact_text(&st->redact, tg->stop_shown ? tg->stop_shown : ""),
		     *at = redact_text(&st->redact, tg->given.url       ? tg->given.url
		                             : tg->given.address ? tg->given.address
		                                                 : "");
		fprintf(f, "  target %s: ", tg->name);
		if (tg->start)
			fprintf(f, "start `%s`%s%s%s", start ? start : "",
			        tg->stop ? ", stop `" : ", no stop", tg->stop && stop ? stop : "",
			        tg->stop ? "`" : "");
		else
			fprintf(f, "already running at %s", at ? at : "");
		free(start);
		free(stop);
		free(at);
		if (tg->nsets)
			fprintf(f, "; %d override%s", tg->nsets, tg->nsets == 1 ? "" : "s");
		fputc('\n', f);
	}
}

/* The rounds as scheduled (a random order without a seed: "?"); returns the measured
 * runs' length in all. */
static int64_t print_schedule(const struct study *st, const struct scenario *scns, FILE *f)
{
	int nslots = study_nslots(st);
	struct study_slot *slots = malloc((size_t)nslots * sizeof *slots);
	int64_t total = 0;

	if (!slots)
		return 0;
	study_schedule(st, st->seed, slots);
	for (int i = 0; i < nslots; i++) {
		const struct study_slot *s = &slots[i];
		char rep[16] = "";
		if (st->targets[s->target].replicas > 1)
			snprintf(rep, sizeof rep, "#%d", s->replica + 1);
		/* A line per round and kind: a start's groups come before its runs alone. */
		int head = i == 0 || slots[i - 1].round != s->round ||
		           (slots[i - 1].group != 0) != (s->group != 0);
		if (head)
			fprintf(f, "  round %d%s:", s->round, s->group ? ", side by side" : "");
		if (s->group && (i == 0 || slots[i - 1].group != s->group))
			fprintf(f, " [");
		if (st->order == STUDY_RANDOM && !st->has_seed && !s->group)
			fprintf(f, " ?");
		else if (st->nscenarios > 1)
			fprintf(f, " %s%s/%d", st->targets[s->target].name, rep, s->scenario + 1);
		else
			fprintf(f, " %s%s", st->targets[s->target].name, rep);
		if (s->group && (i + 1 == nslots || slots[i + 1].group != s->group))
			fprintf(f, " ]");
		if (i + 1 == nslots || slots[i + 1].round != s->round ||
		    (slots[i + 1].group != 0) != (s->group != 0))
			fputc('\n', f);
	}
	for (int i = 0; i < nslots; i++)
		total += scn_total_ms(&scns[slots[i].scenario]);
	free(slots);
	return total;
}

void study_print_plan(const struct study *all, const struct scenario *scns, FILE *f)
{
	/* starts = auto: the first start's plan, which the others repeat */
	struct study *st = malloc(sizeof *st);
	if (!st)
		return;
	memcpy(st, all, sizeof *st);
	if (st->starts_auto)
		st->starts = 1;
	int nslots = study_nslots(st), warm, nruns = study_nruns(st, &warm);
	int64_t total;
	char a[32];

	print_study(st, f);
	print_design(all, f);
	for (int i = 0; i < st->nscenarios; i++)
		fprintf(f, "  scenario %d: %s: '%s', %s, %d step%s, %s\n", i + 1, st->scenarios[i],
		        scns[i].name, scns[i].sweep ? "sweep" : "fixed", scns[i].nlevels,
		        scns[i].nlevels == 1 ? "" : "s",
		        dur_format(scn_total_ms(&scns[i]), a, sizeof a));
	char *shown =
	    redact_text(&st->redact, st->before_each_shown ? st->before_each_shown : "(nothing)");
	fprintf(f, "  before each run: %s\n", shown ? shown : "");
	free(shown);
	if (st->nscenarios > 0)
		print_placement(st, &scns[0], f);
	if (st->nuntil > 0) {
		char b[32];
		fprintf(f, "  sequential: rounds until %s, within %s (at most %d rounds)\n",
		        st->until_text, dur_format(st->budget_ms, b, sizeof b), st->rounds);
	}
	print_targets(st, f);
	total = print_schedule(st, scns, f);
	total += (int64_t)warm * scn_total_ms(&scns[0]);
	fprintf(f,
	        "  %d runs (%d compared, %d warm-up%s)%s: about %s, plus starting and stopping "
	        "targets and before_each\n",
	        nruns, nslots, warm, warm == 1 ? "" : "s", all->starts_auto ? " a start" : "",
	        dur_format(total, a, sizeof a));
	free(st);
}

int study_until_fig(const char *fig, char *err, size_t errlen)
{
	if (strcmp(fig, "tps") && strcmp(fig, "mean") && strcmp(fig, "p99") &&
	    strcmp(fig, "error") && strncmp(fig, "cpu.", 4) && strncmp(fig, "memory.", 7)) {
		snprintf(err, errlen,
		         "'%s': a figure is tps, mean, p99, error, cpu.SOURCE or memory.SOURCE",
		         fig);
		return -1;
	}
	if ((!strncmp(fig, "cpu.", 4) && !fig[4]) || (!strncmp(fig, "memory.", 7) && !fig[7])) {
		snprintf(err, errlen, "'%s': name the source (cpu.app)", fig);
		return -1;
	}
	return 0;
}

int study_until_parse(const char *text, struct study_until *u, int max, char *err, size_t errlen)
{
	char buf[512], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof buf, "%s", text);
	for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char fig[80], *end;
		double pct;
		int used = 0;
		while (*item == ' ')
			item++;
		if (sscanf(item, "%79s %n", fig, &used) != 1 || !item[used]) {
			snprintf(err, errlen, "'%s': expected FIGURE PCT%% (tps 3%%)", item);
			return -1;
		}
		pct = strtod(item + used, &end);
		while (*end == ' ')
			end++;
		if (end == item + used || *end != '%' || end[1] != '\0' || !(pct > 0) ||
		    pct > 100) {
			snprintf(err, errlen, "'%s': expected a share such as 3%%", item);
			return -1;
		}
		if (study_until_fig(fig, err, errlen) < 0)
			return -1;
		if (n == max) {
			snprintf(err, errlen, "more than %d figures", max);
			return -1;
		}
		snprintf(u[n].fig, sizeof u[n].fig, "%s", fig);
		u[n++].pct = pct;
	}
	if (n == 0) {
		snprintf(err, errlen, "'%s': name at least one figure (tps 3%%)", text);
		return -1;
	}
	return n;
}
