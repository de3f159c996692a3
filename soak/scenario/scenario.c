/* scenario: a scenario file turned into a validated plan (scenario.h).  Every mistake is
 * FILE:LINE, nothing is half-built, and the stored text is redacted with the built-in and
 * the scenario's own secret names. */
#include "scenario.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpus.h"
#include "dur.h"
#include "engine/engine.h"
#include "engine/h1.h"
#include "scenario_frame.h"
#include "scenario_read.h"
#include "scenario_tls.h"

/* --- the sections --------------------------------------------------------------------- */

/* The open model's keys: rate (instead of concurrency), arrival, max_in_flight, max_lag. */
static void parse_open(struct scn_parse *p, struct scenario *s, struct scn_entry *conc)
{
	struct scn_entry *e = scn_find(p, "scenario", "rate");
	char err[256];
	long v;

	s->plan.max_in_flight = 1000;
	s->plan.max_lag_ms = 10000;
	if (e && !*e->value)
		e = NULL; /* `--set scenario.rate=` unsets it */
	if (e) {
		if (conc)
			scn_perr(p, e, 0,
			         "rate: give rate (the open model) or concurrency (the closed "
			         "model), not both");
		else if (dur_rate_parse(e->value, &s->rate, err, sizeof err) < 0)
			scn_perr(p, e, 0, "rate: %s", err);
		s->plan.model = PLAN_OPEN;
	}
	static const char *const open_keys[] = {"arrival", "max_in_flight", "max_lag"};
	for (size_t i = 0; i < sizeof open_keys / sizeof open_keys[0]; i++) {
		struct scn_entry *k = scn_find(p, "scenario", open_keys[i]);
		if (!k)
			continue;
		if (!e && !scn_find(p, "sweep", "rate")) {
			scn_perr(p, k, 0, "%s: only for the open model (give rate = N/s)",
			         open_keys[i]);
			return;
		}
		if (i == 0) {
			if (!strcmp(k->value, "constant"))
				s->plan.arrival = PLAN_CONSTANT;
			else if (!strcmp(k->value, "poisson"))
				s->plan.arrival = PLAN_POISSON;
			else
				scn_perr(p, k, 0, "arrival: expected constant or poisson, not '%s'",
				         k->value);
		} else if (i == 1) {
			if (scn_get_int(p, k, 1, SCN_MAX_VUS, &v) == 0)
				s->plan.max_in_flight = (int)v;
		} else if (scn_get_dur(p, "scenario", "max_lag", &s->plan.max_lag_ms) > 0 &&
		           s->plan.max_lag_ms < 1) {
			scn_perr(p, k, 0, "max_lag: must be at least 1ms");
		}
	}
}

/* http_version = 1.1 | 2 and, for HTTP/2, connections (streams are the concurrency). */
static void parse_http(struct scn_parse *p, struct scenario *s)
{
	struct scn_entry *e = scn_find(p, "scenario", "http_version"), *c;
	long v;

	if (e && (!strcmp(e->value, "2") || !strcmp(e->value, "2.0")))
		s->plan.http = PLAN_HTTP2;
	else if (e && strcmp(e->value, "1.1") != 0)
		scn_perr(p, e, 0, "http_version: expected 1.1 or 2, not '%s'", e->value);
	c = scn_find(p, "scenario", "connections");
	if (c && s->plan.http != PLAN_HTTP2) {
		scn_perr(p, c, 0,
		         "connections: only for http_version = 2 (HTTP/1.1 has a connection per "
		         "user)");
		return;
	}
	if (c && scn_get_int(p, c, 1, SCN_MAX_VUS, &v) == 0)
		s->plan.connections = (int)v;
	if (s->plan.http == PLAN_HTTP2 && s->plan.connection == PLAN_CLOSE)
		scn_perr(p, scn_find(p, "scenario", "connection"), 0,
		         "connection: close makes no sense with http_version = 2, whose requests "
		         "share connections (set connections instead)");
}

static void parse_scenario(struct scn_parse *p, struct scenario *s)
{
	struct scn_entry *e;
	long v;
	char err[256];
	const char *base = strrchr(s->file, '/');
	base = base ? base + 1 : s->file;

	e = scn_find(p, "scenario", "name");
	if (e)
		s->name = scn_dup(p, e->value);
	else {
		s->name = scn_dup(p, base);
		if (s->name && strlen(s->name) > 4 &&
		    !strcmp(s->name + strlen(s->name) - 4, ".ini"))
			s->name[strlen(s->name) - 4] = '\0';
	}
	scn_get_redact(p, "scenario", &s->redact);
	e = scn_find(p, "scenario", "label");
	s->label = scn_dup(p, e ? e->value : (s->name ? s->name : ""));
	if (e && !*e->value)
		scn_perr(p, e, 0, "label: must not be empty");
	s->concurrency = 10;
	struct scn_entry *conc = scn_find(p, "scenario", "concurrency");
	if (conc && !*conc->value)
		conc = NULL; /* `--set scenario.concurrency=` unsets it (to give a rate instead) */
	if (conc && scn_get_int(p, conc, 1, SCN_MAX_VUS, &v) == 0)
		s->concurrency = (int)v;
	parse_open(p, s, conc);
	s->interval_ms = 10000;
	s->duration_ms = -1;
	scn_get_dur(p, "scenario", "duration", &s->duration_ms);
	scn_get_dur(p, "scenario", "warmup", &s->warmup_ms);
	scn_get_dur(p, "scenario", "ramp_up", &s->rampup_ms);
	if (scn_get_dur(p, "scenario", "interval", &s->interval_ms) > 0 &&
	    (s->interval_ms < 100 || s->interval_ms > 3600000))
		scn_perr(p, scn_find(p, "scenario", "interval"), 0, "interval: must be 100ms..1h");
	if ((e = scn_find(p, "scenario", "connection"))) {
		if (!strcmp(e->value, "keepalive") || !strcmp(e->value, "keep-alive"))
			s->plan.connection = PLAN_KEEPALIVE;
		else if (!strcmp(e->value, "close"))
			s->plan.connection = PLAN_CLOSE;
		else
			scn_perr(p, e, 0, "connection: expected keepalive or close, not '%s'",
			         e->value);
	}
	parse_http(p, s);
	if ((e = scn_find(p, "scenario", "think_time")) &&
	    dur_span_parse(e->value, &s->plan.think_min_ms, &s->plan.think_max_ms, err,
	                   sizeof err) < 0)
		scn_perr(p, e, 0, "think_time: %s", err);
	if ((e = scn_find(p, "scenario", "threads")) && strcmp(e->value, "auto") != 0 &&
	    scn_get_int(p, e, 1, 256, &v) == 0)
		s->threads = (int)v;
	if ((e = scn_find(p, "scenario", "cpus")) && *e->value) {
		cpu_set_t set;
		if (cpus_parse(e->value, &set, err, sizeof err) < 0)
			scn_perr(p, e, 0, "cpus: %s", err);
		s->cpus = scn_dup(p, e->value);
	}
	if ((e = scn_find(p, "scenario", "metrics")) && *e->value) {
		char host[256];
		int port;
		if (plan_address_split(e->value, host, sizeof host, &port, err, sizeof err) < 0)
			scn_perr(p, e, 0, "metrics: %s (ADDRESS:PORT to serve /metrics on)", err);
		else
			s->metrics = scn_dup(p, e->value);
	}
	if ((e = scn_find(p, "scenario", "csv"))) {
		char path[4096];
		scn_path(s, e->value, path, sizeof path);
		if (tpl_csv_load(&s->plan.csv, path, err, sizeof err) < 0)
			scn_perr(p, e, 0, "csv: %s", err);
		s->csv_path = scn_dup(p, path);
	}
}

static void parse_sweep(struct scn_parse *p, struct scenario *s)
{
	struct scn_entry *e = scn_find(p, "sweep", "concurrency");
	struct scn_entry *re = scn_find(p, "sweep", "rate");
	char err[256];
	int64_t step;

	if (e && re) {
		scn_perr(p, re, 0,
		         "rate: a sweep is over concurrency (closed) or rate (open), not both");
		return;
	}
	if (e && s->plan.model == PLAN_OPEN) {
		scn_perr(p, e, 0,
		         "concurrency: this scenario has a rate (the open model); sweep "
		         "over rate = A..B step S instead");
		return;
	}
	if (re && scn_find(p, "scenario", "concurrency")) {
		scn_perr(p, re, 0,
		         "rate: this scenario has a concurrency (the closed model); sweep "
		         "over concurrency = A..B step S instead");
		return;
	}
	if (e) {
		s->sweep = 1;
		if (dur_range_parse(e->value, 1, SCN_MAX_VUS, s->levels, SCN_MAX_LEVELS,
		                    &s->nlevels, err, sizeof err) < 0)
			scn_perr(p, e, 0, "concurrency: %s", err);
	}
	if (re) {
		s->sweep = 1;
		s->plan.model = PLAN_OPEN;
		if (dur_rate_range_parse(re->value, s->rates, SCN_MAX_LEVELS, &s->nlevels, err,
		                         sizeof err) < 0)
			scn_perr(p, re, 0, "rate: %s", err);
		e = re;
	}
	if (scn_get_dur(p, "sweep", "step_duration", &step) > 0) {
		if (!e)
			scn_perr(p, scn_find(p, "sweep", "step_duration"), 0,
			         "step_duration: [sweep] needs concurrency = A..B step S (or rate "
			         "= ..., "
			         "or a list)");
		s->duration_ms = step;
	} else if (e && s->duration_ms < 0) {
		scn_perr(p, e, 0, "[sweep] needs step_duration (or duration in [scenario])");
	}
	if (s->plan.model == PLAN_OPEN) {
		s->concurrency = 0;
		if (!s->sweep) {
			s->rates[0] = s->rate;
			s->nlevels = 1;
		} else if (s->nlevels > 0) {
			s->rate = s->rates[0];
		}
	} else if (!s->sweep) {
		s->levels[0] = s->concurrency;
		s->nlevels = 1;
	} else if (s->nlevels > 0) {
		s->concurrency = s->levels[0];
	}
}

static int valid_method(const char *m)
{
	if (!*m)
		return 0;
	for (; *m; m++)
		if (!isupper((unsigned char)*m))
			return 0;
	return 1;
}

static int valid_header(const char *h)
{
	const char *c = strchr(h, ':');
	if (!c || c == h)
		return 0;
	for (const char *q = h; q < c; q++)
		if (!isalnum((unsigned char)*q) && !strchr("!#$%&'*+-.^_`|~", *q))
			return 0;
	return 1;
}

/* Checks a URL template by expanding it with sample values and asking libcurl. */
static void check_url(struct scn_parse *p, struct scn_entry *e, const struct tpl *t)
{
	char buf[8192];
	struct tpl_ctx ctx = {
	    .seq = 1, .vu = 1, .iter = 1, .run_id = 1, .nonce = "n0nce", .rng = 42, .agent = 1};
	CURLU *u;

	ctx.csv = NULL;
	if (t->dynamic) {
		/* CSV cells are not known here; other placeholders expand to sample values. */
		for (int i = 0; i < t->nparts; i++)
			if (t->parts[i].kind == TPL_CSV)
				return;
	}
	if (tpl_expand(t, &ctx, buf, sizeof buf) < 0) {
		scn_perr(p, e, 0, "url: longer than %zu bytes", sizeof buf);
		return;
	}
	if (strncmp(buf, "http://", 7) != 0 && strncmp(buf, "https://", 8) != 0) {
		scn_perr(p, e, 0, "url: '%s' must start with http:// or https://", e->value);
		return;
	}
	u = curl_url();
	if (!u) {
		scn_perr(p, e, 0, "out of memory");
		return;
	}
	CURLUcode rc = curl_url_set(u, CURLUPART_URL, buf, 0);
	if (rc != CURLUE_OK)
		scn_perr(p, e, 0, "url: bad URL '%s': %s", e->value, curl_url_strerror(rc));
	curl_url_cleanup(u);
}

/* `client = auto | curl | lean`: one choice for the run, so every request section that
 * names one must name the same. */
static void parse_client(struct scn_parse *p, struct scenario *s, const char *sec)
{
	struct scn_entry *e = scn_find(p, sec, "client");
	int c;

	if (!e)
		return;
	if ((c = plan_client_parse(e->value)) < 0)
		scn_perr(p, e, 0, "client: expected auto, curl or lean, not '%s'", e->value);
	else if (s->client_set && (enum plan_client)c != s->plan.client)
		scn_perr(
		    p, e, 0,
		    "client: '%s' here, '%s' in an earlier request section: the run has one client",
		    e->value, plan_client_name(s->plan.client));
	s->plan.client = (enum plan_client)c;
	s->client_set = e->line ? e->line : 1;
}

/* client = lean on a plan only libcurl can send: said at the key, before anything runs. */
static void check_client(struct scn_parse *p, struct scenario *s)
{
	char why[256];

	if (s->plan.protocol != PLAN_HTTP || s->plan.client != PLAN_CLIENT_LEAN ||
	    h1_plan_supported(&s->plan, why, sizeof why) == 0)
		return;
	scn_perr(p, NULL, s->client_set,
	         "client: the lean driver cannot send this: %s (use curl or auto)", why);
}

static void parse_request(struct scn_parse *p, struct scenario *s, const char *sec)
{
	struct plan_request *r;
	struct scn_entry *e;
	long v;

	if (s->plan.nreqs >= PLAN_MAX_REQUESTS) {
		scn_perr(p, NULL, scn_section_line(p, sec), "more than %d request sections",
		         PLAN_MAX_REQUESTS);
		return;
	}
	r = &s->plan.reqs[s->plan.nreqs++];
	r->line = scn_section_line(p, sec);
	r->name = scn_dup(p, strcmp(sec, "request") == 0 ? "default" : sec + 8);
	r->weight = 1;
	r->timeout_ms = 30000;
	if ((e = scn_find(p, sec, "weight")) && scn_get_int(p, e, 0, 1000000, &v) == 0)
		r->weight = (int)v;
	parse_client(p, s, sec);
	if ((e = scn_find(p, sec, "body"))) {
		r->has_body = 1;
		scn_compile_tpl(p, s, e, &r->body);
	}
	e = scn_find(p, sec, "method");
	if (e && !valid_method(e->value))
		scn_perr(p, e, 0, "method: '%s' is not an HTTP method (GET, POST, PUT, ...)",
		         e->value);
	r->method = scn_dup(p, e ? e->value : r->has_body ? "POST" : "GET");
	e = scn_find(p, sec, "url");
	if (!e) {
		if (s->plan.protocol == PLAN_HTTP)
			scn_perr(p, NULL, r->line, "[%s] needs url = http://...", sec);
	} else if (scn_compile_tpl(p, s, e, &r->url) == 0) {
		check_url(p, e, &r->url);
	}
	/* header is repeatable: every entry counts, in order. */
	for (int i = 0; i < p->nents; i++) {
		e = &p->ents[i];
		if (strcmp(e->section, sec) || strcmp(e->key, "header"))
			continue;
		e->used = 1;
		if (r->nheaders >= PLAN_MAX_HEADERS) {
			scn_perr(p, e, 0, "more than %d headers", PLAN_MAX_HEADERS);
			break;
		}
		if (!valid_header(e->value)) {
			scn_perr(p, e, 0, "header: expected 'Name: value', not '%s'", e->value);
			break;
		}
		scn_compile_tpl(p, s, e, &r->headers[r->nheaders++]);
	}
	int64_t t;
	if (scn_get_dur(p, sec, "timeout", &t) > 0) {
		if (t < 1)
			scn_perr(p, scn_find(p, sec, "timeout"), 0,
			         "timeout: must be at least 1ms");
		r->timeout_ms = t;
	}
	if ((e = scn_find(p, sec, "expect_status")) && scn_get_int(p, e, 100, 599, &v) == 0)
		r->expect_status = (int)v;
	if ((e = scn_find(p, sec, "expect_body"))) {
		r->expect_body_src = scn_dup(p, e->value);
		r->expect_body = scn_compile_re(p, e, "expect_body");
	}
}

static void parse_thresholds(struct scn_parse *p, struct scenario *s)
{
	static const char *const durs[] = {"p99", "p95", "mean"};
	int64_t *outs[] = {&s->thr.p99_us, &s->thr.p95_us, &s->thr.mean_us};
	struct scn_entry *e;
	char err[256];

	for (int i = 0; i < 3; i++) {
		int64_t ms;
		*outs[i] = -1;
		if (scn_get_dur(p, "thresholds", durs[i], &ms) > 0)
			*outs[i] = ms * 1000;
	}
	s->thr.error_rate = -1;
	if ((e = scn_find(p, "thresholds", "error_rate")) &&
	    dur_pct_parse(e->value, &s->thr.error_rate, err, sizeof err) < 0)
		scn_perr(p, e, 0, "error_rate: %s", err);
	s->thr.tps_min = -1;
	if ((e = scn_find(p, "thresholds", "tps_min"))) {
		char *end;
		double v = strtod(e->value, &end);
		if (end == e->value || *end || v <= 0)
			scn_perr(p, e, 0, "tps_min: expected a positive number, not '%s'",
			         e->value);
		else
			s->thr.tps_min = v;
	}
	/* A change may be more than 100 % (p99 allowed to double): a percentage, any size. */
	static const char *const drifts[] = {"drift_tps", "drift_mean", "drift_p99"};
	double *douts[] = {&s->thr.drift_tps, &s->thr.drift_mean, &s->thr.drift_p99};
	for (int i = 0; i < 3; i++) {
		char *end;
		double v;
		*douts[i] = -1;
		if (!(e = scn_find(p, "thresholds", drifts[i])))
			continue;
		v = strtod(e->value, &end);
		while (*end == ' ')
			end++;
		if (end == e->value || *end != '%' || end[1] || !(v > 0) || v > 10000)
			scn_perr(p, e, 0, "%s: expected a change in percent such as 20%%, not '%s'",
			         drifts[i], e->value);
		else
			*douts[i] = v / 100;
	}
}

/* profile = cpu | off and profile_hz = N of a [collect] section. */
static void collect_profile(struct scn_parse *p, const char *sec, struct scn_collect *c)
{
	struct scn_entry *e;
	long v;

	c->profile_hz = SCN_PROFILE_HZ;
	if ((e = scn_find(p, sec, "profile")) && *e->value) {
		if (!strcmp(e->value, "cpu"))
			c->profile = 1;
		else if (strcmp(e->value, "off") != 0)
			scn_perr(p, e, 0, "profile: cpu or off, not '%s'", e->value);
	}
	if ((e = scn_find(p, sec, "profile_hz")) && scn_get_int(p, e, 1, 10000, &v) == 0)
		c->profile_hz = (int)v;
	if (c->profile && !c->pid_match && !c->pidfile && !c->pid)
		scn_perr(p, scn_find(p, sec, "profile"), 0,
		         "profile: needs a process set (pid_match, pidfile or pid)");
}

static void parse_collect(struct scn_parse *p, struct scenario *s, const char *sec)
{
	struct scn_collect *c;
	struct scn_entry *e;
	long v;

	if (s->ncollect >= SCN_MAX_COLLECT) {
		scn_perr(p, NULL, scn_section_line(p, sec), "more than %d collect sections",
		         SCN_MAX_COLLECT);
		return;
	}
	char err[256];
	c = &s->collect[s->ncollect++];
	c->line = scn_section_line(p, sec);
	c->name = scn_dup(p, sec + 8);
	for (const char *q = sec + 8; *q; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-') {
			scn_perr(p, NULL, c->line,
			         "[%s]: a source name is letters, digits, '_' and '-'", sec);
			return;
		}
	c->every_ms = 5000;
	/* An empty value unsets a key (so `--set collect.app.pid_match=` can switch to pid). */
	if ((e = scn_find(p, sec, "pid_match")) && *e->value) {
		pcre2_code *re = scn_compile_re(p, e, "pid_match");
		pcre2_code_free(re);
		c->pid_match = scn_dup(p, e->value);
	}
	if ((e = scn_find(p, sec, "pidfile")) && *e->value)
		c->pidfile = scn_dup(p, e->value);
	if ((e = scn_find(p, sec, "pid")) && scn_get_int(p, e, 1, 1L << 30, &v) == 0)
		c->pid = v;
	if ((e = scn_find(p, sec, "host")))
		scn_get_bool(p, e, &c->host);
	if ((e = scn_find(p, sec, "gc_log")) && *e->value)
		c->gc_log = scn_dup(p, e->value);
	if ((e = scn_find(p, sec, "jvm_start")) && scn_get_int(p, e, 0, 1L << 50, &v) == 0)
		c->jvm_start_ms = v;
	if ((e = scn_find(p, sec, "memory_limit")) && *e->value &&
	    dur_size_parse(e->value, &c->memory_limit, err, sizeof err) < 0)
		scn_perr(p, e, 0, "memory_limit: %s", err);
	if ((e = scn_find(p, sec, "cpus")) && *e->value) {
		cpu_set_t set;
		if (cpus_parse(e->value, &set, err, sizeof err) < 0)
			scn_perr(p, e, 0, "cpus: %s", err);
		c->cpus = scn_dup(p, e->value);
	}
	collect_profile(p, sec, c);
	if (scn_get_dur(p, sec, "every", &c->every_ms) > 0 && c->every_ms < 100)
		scn_perr(p, scn_find(p, sec, "every"), 0, "every: must be at least 100ms");
	if ((c->pid_match != NULL) + (c->pidfile != NULL) + (c->pid != 0) > 1)
		scn_perr(p, NULL, c->line, "[%s]: give one of pid_match, pidfile or pid", sec);
	if (c->cpus && !c->pid_match && !c->pidfile && !c->pid)
		scn_perr(p, scn_find(p, sec, "cpus"), 0,
		         "cpus: needs a process set to place (pid_match, pidfile or pid)");
	if (c->memory_limit > 0 && !c->pid_match && !c->pidfile && !c->pid)
		scn_perr(p, scn_find(p, sec, "memory_limit"), 0,
		         "memory_limit: needs a process set (pid_match, pidfile or pid)");
	if (!c->pid_match && !c->pidfile && !c->pid && !c->host && !c->gc_log)
		scn_perr(p, NULL, c->line,
		         "[%s]: nothing to collect (pid_match, pidfile, pid, host or gc_log)", sec);
}

static void validate(struct scn_parse *p, struct scenario *s)
{
	char a[32], b[32];

	if (p->failed)
		return;
	if (s->duration_ms < 0) {
		scn_perr(p, NULL, scn_section_line(p, "scenario"),
		         "[scenario] needs duration (e.g. duration = 30m)");
		return;
	}
	if (s->duration_ms < s->interval_ms / 10 || s->duration_ms == 0) {
		scn_perr(p, scn_find(p, "scenario", "duration"), scn_section_line(p, "scenario"),
		         "duration: %s is too short", dur_format(s->duration_ms, a, sizeof a));
		return;
	}
	if (s->warmup_ms + s->rampup_ms >= s->duration_ms) {
		scn_perr(p, scn_find(p, "scenario", "warmup"), scn_section_line(p, "scenario"),
		         "warmup (%s) plus ramp_up (%s) leave nothing of the %s step to measure",
		         dur_format(s->warmup_ms, a, sizeof a),
		         dur_format(s->rampup_ms, b, sizeof b),
		         dur_format(s->duration_ms, (char[32]){0}, 32));
		return;
	}
	if (s->plan.protocol == PLAN_HTTP && s->plan.nreqs == 0) {
		scn_perr(p, NULL, p->line > 0 ? p->line : 1,
		         "no [request] section: nothing to send");
		return;
	}
	for (int i = 0; i < s->plan.nreqs; i++)
		s->plan.total_weight += s->plan.reqs[i].weight;
	if (s->plan.nreqs > 0 && s->plan.total_weight == 0)
		scn_perr(p, NULL, s->plan.reqs[0].line, "every request has weight 0");
	if (s->plan.protocol == PLAN_TCP_FRAME && s->plan.http == PLAN_HTTP2)
		scn_perr(p, scn_find(p, "scenario", "http_version"), 0,
		         "http_version: HTTP only (protocol = tcp-frame)");
	check_client(p, s);
	scn_tls_check_client(p, s);
	/* Leftover entries are keys nobody asked for. */
	for (int i = 0; i < p->nents && !p->failed; i++)
		if (!p->ents[i].used)
			scn_perr(p, &p->ents[i], 0, "unknown key '%s' in [%s]", p->ents[i].key,
			         p->ents[i].section);
}

/* --- entry points --------------------------------------------------------------------- */

static int parse_all(struct scenario *s, struct scn_parse *p)
{
	if (scn_read(p) < 0)
		return -1;
	parse_scenario(p, s);
	parse_sweep(p, s);
	parse_thresholds(p, s);
	scn_parse_frames(p, s); /* protocol, address, [handshake], [frame.NAME]: before requests */
	if (!p->failed)
		scn_each_section(p, s, "request", parse_request);
	if (!p->failed)
		scn_parse_tls(p, s);
	if (!p->failed)
		scn_each_section(p, s, "collect", parse_collect);
	validate(p, s);
	return p->failed ? -1 : 0;
}

/* Builds the stored scenario text: the file, then the overrides as a comment trailer. */
char *scn_text_with_sets(const char *text, char *const *sets, int nsets)
{
	size_t n = strlen(text) + 64;
	char *out, *q;

	for (int i = 0; i < nsets; i++)
		n += strlen(sets[i]) + 16;
	out = malloc(n);
	if (!out)
		return NULL;
	q = out + sprintf(out, "%s", text);
	if (nsets > 0) {
		if (q > out && q[-1] != '\n')
			*q++ = '\n';
		q += sprintf(q, "; overrides given on the command line:\n");
		for (int i = 0; i < nsets; i++)
			q += sprintf(q, ";   --set %s\n", sets[i]);
	}
	return out;
}

int scn_parse_text(struct scenario *s, const char *name, const char *text, char *const *sets,
                   int nsets, char *err, size_t errlen)
{
	struct scn_parse p = {.name = name,
	                      .text = text,
	                      .pos = text,
	                      .err = err,
	                      .errlen = errlen,
	                      .sets = sets,
	                      .nsets = nsets};
	int rc;

	char *whole = NULL;

	memset(s, 0, sizeof *s);
	p.ents = calloc(SCN_MAX_ENTRIES, sizeof *p.ents);
	s->file = strdup(name);
	whole = scn_text_with_sets(text, sets, nsets);
	if (!p.ents || !s->file || !whole) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else if ((rc = parse_all(s, &p)) == 0 && !(s->text = redact_ini(&s->redact, whole))) {
		/* redacted with the scenario's own names, so only once it is parsed */
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	free(whole);
	scn_parse_release(&p);
	if (rc < 0)
		scn_release(s);
	return rc;
}

char *scn_file_text(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *text;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SCN_MAX_FILE) {
		snprintf(err, errlen, "'%s' is not a scenario file (%s)", path,
		         S_ISDIR(st.st_mode) ? "a directory" : "not a regular file under 4 MB");
		fclose(f);
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	size_t n = fread(text, 1, (size_t)st.st_size, f);
	text[n] = '\0';
	fclose(f);
	if (memchr(text, '\0', n)) {
		snprintf(err, errlen, "%s:1: not a text file (contains NUL bytes)", path);
		free(text);
		return NULL;
	}
	return text;
}

int scn_load(struct scenario *s, const char *path, char *const *sets, int nsets, char *err,
             size_t errlen)
{
	char *text;
	int rc;

	memset(s, 0, sizeof *s);
	if (!(text = scn_file_text(path, err, errlen)))
		return -1;
	rc = scn_parse_text(s, path, text, sets, nsets, err, errlen);
	free(text);
	return rc;
}

static void collect_release(struct scn_collect *c)
{
	free(c->name);
	free(c->pid_match);
	free(c->pidfile);
	free(c->gc_log);
	free(c->cpus);
}

void scn_keep_collector(struct scenario *s, const char *name)
{
	int n = 0;

	for (int i = 0; i < s->ncollect; i++) {
		if (strcmp(s->collect[i].name, name) == 0)
			s->collect[n++] = s->collect[i];
		else
			collect_release(&s->collect[i]);
	}
	s->ncollect = n;
}

void scn_release(struct scenario *s)
{
	for (int i = 0; i < s->plan.nreqs; i++) {
		struct plan_request *r = &s->plan.reqs[i];
		free(r->name);
		free(r->method);
		tpl_release(&r->url);
		tpl_release(&r->body);
		for (int h = 0; h < r->nheaders; h++)
			tpl_release(&r->headers[h]);
		pcre2_code_free(r->expect_body);
		free(r->expect_body_src);
	}
	for (int i = 0; i < s->ncollect; i++)
		collect_release(&s->collect[i]);
	free(s->cpus);
	tpl_csv_release(&s->plan.csv);
	plan_tls_release(&s->plan.tls);
	free(s->csv_path);
	free(s->file);
	free(s->text);
	free(s->name);
	free(s->label);
	free(s->plan.address);
	free(s->metrics);
	pcre2_code_free(s->plan.handshake_expect);
	tpl_release(&s->plan.handshake.text);
	for (int i = 0; i < s->plan.nframes; i++)
		tpl_release(&s->plan.frames[i].text);
	memset(s, 0, sizeof *s);
}

int64_t scn_total_ms(const struct scenario *s)
{
	return s->duration_ms * s->nlevels;
}

/* Each step's load and phases. */
static void print_steps(const struct scenario *s, FILE *f)
{
	char a[32], b[32], c[32], d[32];
	int64_t lead = s->rampup_ms + s->warmup_ms;

	for (int i = 0; i < s->nlevels; i++) {
		char what[48];
		if (s->plan.model == PLAN_OPEN)
			snprintf(what, sizeof what, "%g requests/s", s->rates[i]);
		else
			snprintf(what, sizeof what, "%d VUs", s->levels[i]);
		fprintf(f, "  step %d: %s for %s (ramp-up %s, warm-up %s, measured %s)\n", i + 1,
		        what, dur_format(s->duration_ms, a, sizeof a),
		        dur_format(s->rampup_ms, b, sizeof b),
		        dur_format(s->warmup_ms, c, sizeof c),
		        dur_format(s->duration_ms - lead, d, sizeof d));
	}
}

/* The HTTP requests (their URLs redacted) and the client that sends them. */
static void print_requests(const struct scenario *s, FILE *f)
{
	char a[32], b[32], why[256], note[300] = "";

	if (s->plan.protocol != PLAN_HTTP)
		return;
	for (int i = 0; i < s->plan.nreqs; i++) {
		const struct plan_request *r = &s->plan.reqs[i];
		char *url = redact_text(&s->redact, r->url.text);
		fprintf(f, "  request %s (weight %d): %s %s", r->name, r->weight, r->method,
		        url ? url : "");
		free(url);
		if (r->has_body)
			fprintf(f, " body %zu+ bytes", r->body.min_len);
		fprintf(f, "; %d header%s; timeout %s; expect %s", r->nheaders,
		        r->nheaders == 1 ? "" : "s", dur_format(r->timeout_ms, a, sizeof a),
		        r->expect_status ? (snprintf(b, sizeof b, "status %d", r->expect_status), b)
		                         : "2xx/3xx");
		if (r->expect_body_src)
			fprintf(f, " and body /%s/", r->expect_body_src);
		fputc('\n', f);
	}
	const char *cl = engine_client(&s->plan, why, sizeof why);
	if (s->plan.client == PLAN_CLIENT_AUTO)
		snprintf(note, sizeof note, " (auto: %s%s)", *why ? "libcurl needed, " : "",
		         *why                         ? why
		         : s->plan.http == PLAN_HTTP2 ? "HTTP/2"
		                                      : "HTTP/1.1");
	fprintf(f, "  client %s%s\n", cl, note);
	if (s->plan.http == PLAN_HTTP2 && s->plan.connections > 0)
		fprintf(f, "  HTTP/2: the streams on %d connection%s\n", s->plan.connections,
		        s->plan.connections == 1 ? "" : "s");
	else if (s->plan.http == PLAN_HTTP2)
		fprintf(f, "  HTTP/2: the streams on one connection per engine thread\n");
}

static void print_collectors(const struct scenario *s, FILE *f)
{
	char a[32];

	for (int i = 0; i < s->ncollect; i++) {
		const struct scn_collect *k = &s->collect[i];
		/* a pattern copied from ps may hold a -Dx.password=... */
		char *re = k->pid_match ? redact_text(&s->redact, k->pid_match) : NULL;
		fprintf(f, "  collect %s every %s:%s%s%s%s%s%s", k->name,
		        dur_format(k->every_ms, a, sizeof a), k->pid_match ? " processes /" : "",
		        re ? re : "", k->pid_match ? "/" : "", k->host ? " host" : "",
		        k->gc_log ? " gc log " : "", k->gc_log ? k->gc_log : "");
		free(re);
		if (k->memory_limit > 0)
			fprintf(f, " memory limit %.1f MB", (double)k->memory_limit / 1048576.0);
		fputc('\n', f);
	}
}

/* The thresholds per step, and the drift thresholds judged at the end. */
static void print_thresholds(const struct scn_thresholds *t, FILE *f)
{
	char a[32];

	if (t->p99_us >= 0 || t->p95_us >= 0 || t->mean_us >= 0 || t->error_rate >= 0 ||
	    t->tps_min >= 0) {
		fprintf(f, "  thresholds per step:");
		if (t->p99_us >= 0)
			fprintf(f, " p99 <= %s", dur_format(t->p99_us / 1000, a, sizeof a));
		if (t->p95_us >= 0)
			fprintf(f, " p95 <= %s", dur_format(t->p95_us / 1000, a, sizeof a));
		if (t->mean_us >= 0)
			fprintf(f, " mean <= %s", dur_format(t->mean_us / 1000, a, sizeof a));
		if (t->error_rate >= 0)
			fprintf(f, " errors <= %g%%", t->error_rate * 100);
		if (t->tps_min >= 0)
			fprintf(f, " tps >= %g", t->tps_min);
		fputc('\n', f);
	}
	if (t->drift_tps >= 0 || t->drift_mean >= 0 || t->drift_p99 >= 0) {
		fprintf(f, "  drift thresholds (first third against last, judged at the end):");
		if (t->drift_tps >= 0)
			fprintf(f, " tps falls <= %g%%", t->drift_tps * 100);
		if (t->drift_mean >= 0)
			fprintf(f, " mean rises <= %g%%", t->drift_mean * 100);
		if (t->drift_p99 >= 0)
			fprintf(f, " p99 rises <= %g%%", t->drift_p99 * 100);
		fputc('\n', f);
	}
}

void scn_print_plan(const struct scenario *s, FILE *f)
{
	char a[32], b[32], c[32];

	fprintf(f, "%s: '%s', label '%s'\n", s->file, s->name, s->label);
	fprintf(f, "  %s, %d step%s, %s in all; interval %s; connection %s; threads %s\n",
	        s->sweep ? "sweep" : "fixed", s->nlevels, s->nlevels == 1 ? "" : "s",
	        dur_format(scn_total_ms(s), a, sizeof a), dur_format(s->interval_ms, b, sizeof b),
	        plan_conn_name(s->plan.connection),
	        s->threads ? (snprintf(c, sizeof c, "%d", s->threads), c) : "auto");
	if (s->metrics)
		fprintf(f, "  live metrics for Prometheus on http://%s/metrics\n", s->metrics);
	if (s->plan.model == PLAN_OPEN)
		fprintf(f,
		        "  open model: %s arrivals, at most %d requests in flight, arrivals more "
		        "than %s late dropped; latency from the intended start\n",
		        s->plan.arrival == PLAN_POISSON ? "Poisson" : "constant",
		        s->plan.max_in_flight, dur_format(s->plan.max_lag_ms, a, sizeof a));
	print_steps(s, f);
	if (s->plan.think_max_ms > 0)
		fprintf(f, "  think time %s..%s\n", dur_format(s->plan.think_min_ms, a, sizeof a),
		        dur_format(s->plan.think_max_ms, b, sizeof b));
	scn_print_frames(s, f); /* tcp-frame: address, handshake, frames */
	print_requests(s, f);
	scn_print_tls(s, f);
	if (s->csv_path)
		fprintf(f, "  csv %s: %ld rows, %d columns\n", s->csv_path, s->plan.csv.nrows,
		        s->plan.csv.ncols);
	print_collectors(s, f);
	print_thresholds(&s->thr, f);
}
