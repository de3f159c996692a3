/*
 * soak run — runs scenarios one after another (an overnight job queue), or a quick
 * scenario built from the command line.
 *
 * The command reads its options into a struct run_opts, checks them, builds the
 * scenarios (scenario files, the quick options, or a stopped run to resume) and hands
 * them to run/queue.h, which runs them; it keeps the usage, the messages about the
 * command line and the exit status, and writes --junit and --json's lines through the
 * report and `soak runs`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "db.h"
#include "dur.h"
#include "engine/engine.h"
#include "engine/h1.h"
#include "engine/http.h"
#include "log.h"
#include "outdir.h"
#include "report/report.h"
#include "run/metrics.h"
#include "run/queue.h"
#include "run/resume.h"
#include "scenario/scenario.h"

static void usage_run(FILE *f)
{
	fprintf(
	    f,
	    "usage: soak run [options] SCENARIO.ini...\n"
	    "       soak run --url URL [quick options]\n"
	    "\n"
	    "Runs each scenario in turn, recording every interval into the database.\n"
	    "  --db FILE              results database (default $SOAK_DB or soak.db)\n"
	    "  --set SECTION.KEY=V    override a scenario key (repeatable)\n"
	    "  --threads N            engine threads (default: the scenario's, or one per core)\n"
	    "  --cpus LIST            run the generator on these CPUs only (0, 1-3, 0,2):\n"
	    "                         [scenario] cpus; [collect.NAME] cpus places the server\n"
	    "  --loop poll|epoll      libcurl's event loop (default: chosen by VUs per thread)\n"
	    "  --client auto|curl|lean  the HTTP client (default: the scenario's, or auto: the\n"
	    "                         lean driver for plain http://, libcurl when needed)\n"
	    "  -q, --quiet            no progress output\n"
	    "  --profile              sample every collected process set's stacks with perf in\n"
	    "                         each measured window ([collect.NAME] profile = cpu)\n"
	    "  --resume RUN_ID        continue a run that was interrupted or crashed, under its\n"
	    "                         id: the rest of the step it stopped in, then the steps\n"
	    "                         after it; the time without load is a gap, left out of\n"
	    "                         every figure (scenario: the run's own, or the same file)\n"
	    "  --json                 at the end of each run, its `soak runs --json` object on\n"
	    "                         one line on stdout, thresholds' verdict included (the step\n"
	    "                         tables go to stderr then)\n"
	    "  --metrics ADDR:PORT    serve the live run on http://ADDR:PORT/metrics in\n"
	    "                         Prometheus' text format (port 0: any free port, printed)\n"
	    "  --junit FILE           at the end, every run's thresholds per step, drift verdict\n"
	    "                         and validity warnings as JUnit XML test cases for CI (the\n"
	    "                         exit status is the same with or without it)\n"
	    "https (each is --set tls.KEY=V: see soak-scenario(5), [tls]):\n"
	    "  -k, --insecure         do not verify the server's certificate (a test one)\n"
	    "  --cacert FILE  --capath DIR   trust these CAs instead of the system's\n"
	    "  --cert FILE  --key FILE       a client certificate and its key (PEM)\n"
	    "  --sni NAME  --alpn LIST       the name sent in SNI; the protocols offered\n"
	    "  --tls-min 1.2|1.3  --tls-max 1.2|1.3  --ciphers LIST  --tls13-ciphers LIST\n"
	    "  --tls-resume yes|no    resume sessions on new connections (default yes)\n"
	    "  --http 1.1|2           HTTP/2: h2 by ALPN for https, h2c (prior knowledge) for\n"
	    "                         http; --connections N share the concurrency's streams\n"
	    "agents (one share of a run that several load generators make together):\n"
	    "  --agent K/N|auto       be agent K of N: VUs K, K+N, ...; auto: from a Slurm job\n"
	    "                         array, an srun step or a Kubernetes Indexed Job\n"
	    "  --agents N             N for a Kubernetes Indexed Job (its completions)\n"
	    "  --group NAME           ties the agents together (default under Slurm: the job)\n"
	    "  --start-at TIME        start on this instant (RFC 3339 or epoch seconds)\n"
	    "  --start-in D           start on the first interval boundary D from now\n"
	    "  --clock-dir DIR        compare this clock with DIR's file system's (shared by\n"
	    "                         the agents; default: the database's folder)\n"
	    "  (`soak merge` folds a group's runs into one run)\n"
	    "  -v, --verbose          diagnostics (repeat for more)\n"
	    "quick mode (no scenario file):\n"
	    "  --url URL  -c, --concurrency N (30)  -d, --duration D (30m)  --method M\n"
	    "  --body TEMPLATE  -H, --header 'K: V' (repeatable)  --label L\n"
	    "  --connection keepalive|close  --interval D (10s)  --timeout D (30s)\n"
	    "  --expect-status N  --warmup D  --ramp-up D  --think D\n"
	    "  open model (instead of -c): --rate R (500/s, 30/m)  --arrival constant|poisson\n"
	    "  --max-in-flight N (1000)  --max-lag D (10s)\n"
	    "  --save-scenario FILE   also write these options (with --set, --threads,\n"
	    "                         --client, --metrics) as a scenario file that sends the\n"
	    "                         same requests: `soak run FILE` (refuses an existing FILE)\n"
	    "capacity search (open model): --find-max-rate --slo 'p99<200ms,errors<1%%'\n"
	    "  [--from R] [--to R] [--step-duration D]: raises the rate, then bisects, until the\n"
	    "  SLO fails; prints and records the highest rate that meets it\n"
	    "Exit status: 0 done, 1 a threshold failed, 2 bad usage or scenario, 3 runtime\n"
	    "failure, 130/143 interrupted by SIGINT/SIGTERM.\n");
}

/* Appends "key = value\n" to a growing text; values are single lines. */
static int add_line(char **text, size_t *len, const char *key, const char *value)
{
	size_t n = strlen(key) + strlen(value) + 8;
	char *t;
	if (strchr(value, '\n')) {
		fprintf(stderr, "soak run: %s: a value cannot contain a newline\n", key);
		return -1;
	}
	t = realloc(*text, *len + n);
	if (!t)
		return -1;
	*len += (size_t)snprintf(t + *len, n, "%s = %s\n", key, value);
	*text = t;
	return 0;
}

enum {
	OPT_DB = 256,
	OPT_SET,
	OPT_THREADS,
	OPT_CPUS,
	OPT_LOOP,
	OPT_URL,
	OPT_METHOD,
	OPT_BODY,
	OPT_LABEL,
	OPT_CONNECTION,
	OPT_INTERVAL,
	OPT_TIMEOUT,
	OPT_EXPECT,
	OPT_WARMUP,
	OPT_RAMP,
	OPT_THINK,
	OPT_RATE,
	OPT_ARRIVAL,
	OPT_MAX_IN_FLIGHT,
	OPT_MAX_LAG,
	OPT_FIND_MAX,
	OPT_SLO,
	OPT_FROM,
	OPT_TO,
	OPT_STEP_DURATION,
	OPT_AGENT,
	OPT_AGENTS,
	OPT_GROUP,
	OPT_START_AT,
	OPT_START_IN,
	OPT_CLOCK_DIR,
	OPT_JSON,
	OPT_RESUME,
	OPT_CLIENT,
	OPT_METRICS,
	OPT_PROFILE,
	OPT_JUNIT,
	OPT_INSECURE,
	OPT_CACERT,
	OPT_CAPATH,
	OPT_CERT,
	OPT_KEY,
	OPT_SNI,
	OPT_ALPN,
	OPT_TLS_MIN,
	OPT_TLS_MAX,
	OPT_CIPHERS,
	OPT_TLS13_CIPHERS,
	OPT_TLS_RESUME,
	OPT_HTTP,
	OPT_CONNECTIONS,
	OPT_SAVE
};

/* --junit: the runs made as JUnit XML; a scenario that never became a run (its target
 * unreachable) is an error case of its own.  -1 after printing why it was not written. */
static int write_junit(const char *path, const char *db_path, const struct scenario *scns,
                       const int64_t *ids, int n)
{
	struct rpt_junit_miss *miss = calloc((size_t)n + 1, sizeof *miss);
	char err[1024];
	int nmiss = 0, rc;

	if (!miss)
		return -1;
	for (int i = 0; i < n; i++)
		if (ids[i] <= 0) {
			miss[nmiss].name = scns[i].file;
			miss[nmiss++].message =
			    "the run did not start: the target was unreachable or the database "
			    "failed (see soak run's output)";
		}
	rc = rpt_junit_runs(db_path, ids, n, miss, nmiss, path, err, sizeof err);
	if (rc < 0)
		fprintf(stderr, "soak run: --junit: %s\n", err);
	free(miss);
	return rc;
}

/* soak run's command line, as read: what the command checks, builds the scenarios from
 * and hands to the queue.  Where a scenario has the setting too, the option wins. */
struct run_opts {
	const char *db_path;   /* --db, else $SOAK_DB or soak.db */
	char **sets;           /* --set values, then --cpus as one (room for argc + 1) */
	int nsets;             /* entries in sets */
	char *cpus_set;        /* --cpus LIST as "scenario.cpus=LIST" (owned), or NULL */
	char **owned;          /* the sets the TLS options made (owned; room for argc) */
	int nowned;            /* entries in owned */
	int threads;           /* --threads, 0: the scenario's */
	enum engine_loop loop; /* --loop */
	int client;            /* --client as an enum plan_client, -1: the scenario's */
	int quiet;             /* -q */
	int profile;           /* --profile: every collected process set's CPU profile */
	int verbose;           /* -v, counted */
	int json;              /* --json */
	long long resume_id;   /* --resume RUN_ID, 0: a new run */
	const char *metrics;   /* --metrics ADDR:PORT (its form checked), or NULL */
	const char *junit;     /* --junit FILE, or NULL */
	const char *save;      /* --save-scenario FILE (quick mode), or NULL */
	/* quick mode: the [scenario] (qs) and [request] (qr) lines the options make, in the
	 * order given (malloc'd, qsl and qrl bytes long) */
	char *qs, *qr;
	size_t qsl, qrl;
	const char *url, *label;            /* --url, --label */
	int have_conc, have_dur, have_rate; /* -c, -d, --rate given */
	int find_max;                       /* --find-max-rate */
	int have_slo;                       /* --slo given (into slo) */
	struct slo slo;                     /* --slo */
	struct runner_search search;        /* --from, --to, --step-duration (slo: later) */
	struct agent_args aargs;            /* the agent options as given */
	struct agent agent;                 /* and as set up from them, when aargs.agent */
	char **files;                       /* the scenario files: argv after the options */
	int nfiles;                         /* how many */
};

/* What a parse step returns for an option that is not its own. */
#define NOT_MINE (-1)

/* The options every mode takes.  Returns EXIT_OK, an exit status after printing what is
 * wrong, or NOT_MINE. */
static int general_option(struct run_opts *o, int c, char *arg)
{
	char err[1024], *end;
	long lv;

	switch (c) {
	case OPT_DB:
		o->db_path = arg;
		return EXIT_OK;
	case OPT_SET:
		o->sets[o->nsets++] = arg;
		return EXIT_OK;
	case OPT_CPUS:
		/* The same as --set scenario.cpus=LIST, so a scenario file takes it too. */
		free(o->cpus_set);
		if (asprintf(&o->cpus_set, "scenario.cpus=%s", arg) < 0) {
			o->cpus_set = NULL;
			return EXIT_RUNTIME;
		}
		return EXIT_OK;
	case OPT_THREADS:
		lv = strtol(arg, &end, 10);
		o->threads = lv >= 1 && lv <= 256 ? (int)lv : 0;
		if (end == arg || *end || !o->threads) {
			fprintf(stderr, "soak run: --threads: expected 1..256, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case OPT_LOOP:
		if (!strcmp(arg, "poll"))
			o->loop = LOOP_POLL;
		else if (!strcmp(arg, "epoll"))
			o->loop = LOOP_EPOLL;
		else if (!strcmp(arg, "auto"))
			o->loop = LOOP_AUTO;
		else {
			fprintf(stderr,
			        "soak run: --loop: expected poll, epoll or auto, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case OPT_METRICS: {
		char host[256];
		int port;
		if (metrics_listen_parse(arg, host, sizeof host, &port, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: --metrics: %s\n", err);
			return EXIT_USAGE;
		}
		o->metrics = arg;
		return EXIT_OK;
	}
	case OPT_JUNIT:
		o->junit = arg;
		return EXIT_OK;
	case OPT_SAVE:
		o->save = arg;
		return EXIT_OK;
	case OPT_CLIENT:
		if ((o->client = plan_client_parse(arg)) < 0) {
			fprintf(stderr,
			        "soak run: --client: expected auto, curl or lean, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case 'q':
		o->quiet = 1;
		return EXIT_OK;
	case OPT_PROFILE:
		o->profile = 1;
		return EXIT_OK;
	case OPT_JSON:
		o->json = 1;
		return EXIT_OK;
	case OPT_RESUME:
		o->resume_id = strtoll(arg, &end, 10);
		if (end == arg || *end || o->resume_id < 1) {
			fprintf(stderr, "soak run: --resume: expected a run id, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case 'v':
		o->verbose++;
		return EXIT_OK;
	default:
		return NOT_MINE;
	}
}

/* The TLS and HTTP/2 options: each is `--set SECTION.KEY=VALUE` (so they apply to scenario
 * files as to quick runs); a file's relative path is made absolute, as the command line
 * means it. */
static const struct set_key {
	int opt;         /* its getopt code */
	const char *key; /* the scenario key */
	int path;        /* the value is a file or folder */
} set_keys[] = {
    {OPT_INSECURE, "tls.insecure", 0},
    {OPT_CACERT, "tls.ca_file", 1},
    {OPT_CAPATH, "tls.ca_dir", 1},
    {OPT_CERT, "tls.cert", 1},
    {OPT_KEY, "tls.key", 1},
    {OPT_SNI, "tls.sni", 0},
    {OPT_ALPN, "tls.alpn", 0},
    {OPT_TLS_MIN, "tls.min_version", 0},
    {OPT_TLS_MAX, "tls.max_version", 0},
    {OPT_CIPHERS, "tls.ciphers", 0},
    {OPT_TLS13_CIPHERS, "tls.ciphersuites", 0},
    {OPT_TLS_RESUME, "tls.resume", 0},
    {OPT_HTTP, "scenario.http_version", 0},
    {OPT_CONNECTIONS, "scenario.connections", 0},
};

static int set_option(struct run_opts *o, int c, char *arg)
{
	const struct set_key *k = NULL;
	char *set, abs[4096];

	for (size_t i = 0; i < sizeof set_keys / sizeof set_keys[0]; i++)
		if (set_keys[i].opt == c)
			k = &set_keys[i];
	if (!k)
		return NOT_MINE;
	if (c == OPT_INSECURE)
		arg = (char *)"yes";
	if (k->path && arg[0] != '/' && getcwd(abs, sizeof abs)) {
		size_t n = strlen(abs);
		snprintf(abs + n, sizeof abs - n, "/%s", arg);
		arg = abs;
	}
	if (asprintf(&set, "%s=%s", k->key, arg) < 0)
		return EXIT_RUNTIME;
	o->owned[o->nowned++] = set;
	o->sets[o->nsets++] = set;
	return EXIT_OK;
}

/* The quick options: each is one line of the quick scenario's [scenario] or [request]
 * section, with the option's value. */
static const struct quick_key {
	int opt;         /* its getopt code */
	int request;     /* 1: a [request] line; 0: a [scenario] line */
	const char *key; /* the scenario key */
} quick_keys[] = {
    {OPT_URL, 1, "url"},
    {'c', 0, "concurrency"},
    {'d', 0, "duration"},
    {OPT_METHOD, 1, "method"},
    {OPT_BODY, 1, "body"},
    {'H', 1, "header"},
    {OPT_LABEL, 0, "label"},
    {OPT_CONNECTION, 0, "connection"},
    {OPT_INTERVAL, 0, "interval"},
    {OPT_TIMEOUT, 1, "timeout"},
    {OPT_EXPECT, 1, "expect_status"},
    {OPT_WARMUP, 0, "warmup"},
    {OPT_RAMP, 0, "ramp_up"},
    {OPT_THINK, 0, "think_time"},
    {OPT_RATE, 0, "rate"},
    {OPT_ARRIVAL, 0, "arrival"},
    {OPT_MAX_IN_FLIGHT, 0, "max_in_flight"},
    {OPT_MAX_LAG, 0, "max_lag"},
};

static int quick_option(struct run_opts *o, int c, char *arg)
{
	const struct quick_key *q = NULL;

	for (size_t i = 0; i < sizeof quick_keys / sizeof quick_keys[0]; i++)
		if (quick_keys[i].opt == c) {
			q = &quick_keys[i];
			break;
		}
	if (!q)
		return NOT_MINE;
	if (c == OPT_URL)
		o->url = arg;
	else if (c == OPT_LABEL)
		o->label = arg;
	o->have_conc |= c == 'c';
	o->have_dur |= c == 'd';
	o->have_rate |= c == OPT_RATE;
	if (q->request ? add_line(&o->qr, &o->qrl, q->key, arg) < 0
	               : add_line(&o->qs, &o->qsl, q->key, arg) < 0)
		return EXIT_USAGE;
	return EXIT_OK;
}

/* The capacity search's options (--find-max-rate and what goes with it). */
static int search_option(struct run_opts *o, int c, char *arg)
{
	char err[1024];

	switch (c) {
	case OPT_FIND_MAX:
		o->find_max = 1;
		return EXIT_OK;
	case OPT_SLO:
		if (slo_parse(&o->slo, arg, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: %s\n", err);
			return EXIT_USAGE;
		}
		o->have_slo = 1;
		return EXIT_OK;
	case OPT_FROM:
	case OPT_TO:
		if (dur_rate_parse(arg, c == OPT_FROM ? &o->search.from : &o->search.to, err,
		                   sizeof err) < 0) {
			fprintf(stderr, "soak run: --%s: %s\n", c == OPT_FROM ? "from" : "to", err);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	case OPT_STEP_DURATION:
		if (dur_parse(arg, &o->search.step_ms, err, sizeof err) < 0 ||
		    o->search.step_ms < 100) {
			fprintf(stderr, "soak run: --step-duration: %s\n",
			        o->search.step_ms < 100 ? "must be at least 100ms" : err);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	default:
		return NOT_MINE;
	}
}

/* The agent options, as given (agent_setup judges them once all are read). */
static int agent_option(struct run_opts *o, int c, char *arg)
{
	struct agent_args *a = &o->aargs;
	const char **text = c == OPT_AGENT       ? &a->agent
	                    : c == OPT_GROUP     ? &a->group
	                    : c == OPT_START_AT  ? &a->start_at
	                    : c == OPT_START_IN  ? &a->start_in
	                    : c == OPT_CLOCK_DIR ? &a->clock_dir
	                                         : NULL;
	char *end;
	long lv;

	if (text) {
		*text = arg;
		return EXIT_OK;
	}
	if (c != OPT_AGENTS)
		return NOT_MINE;
	lv = strtol(arg, &end, 10);
	a->agents = lv >= 1 && lv <= AGENT_MAX ? (int)lv : 0;
	if (end == arg || *end || !a->agents) {
		fprintf(stderr, "soak run: --agents: expected 1..%d, not '%s'\n", AGENT_MAX, arg);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* soak run's options: quick_keys, the *_option functions and usage_run say what each does. */
static const struct option run_options[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"set", required_argument, NULL, OPT_SET},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"cpus", required_argument, NULL, OPT_CPUS},
    {"loop", required_argument, NULL, OPT_LOOP},
    {"quiet", no_argument, NULL, 'q'},
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"url", required_argument, NULL, OPT_URL},
    {"concurrency", required_argument, NULL, 'c'},
    {"duration", required_argument, NULL, 'd'},
    {"method", required_argument, NULL, OPT_METHOD},
    {"body", required_argument, NULL, OPT_BODY},
    {"header", required_argument, NULL, 'H'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"connection", required_argument, NULL, OPT_CONNECTION},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"expect-status", required_argument, NULL, OPT_EXPECT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"ramp-up", required_argument, NULL, OPT_RAMP},
    {"think", required_argument, NULL, OPT_THINK},
    {"json", no_argument, NULL, OPT_JSON},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"rate", required_argument, NULL, OPT_RATE},
    {"arrival", required_argument, NULL, OPT_ARRIVAL},
    {"max-in-flight", required_argument, NULL, OPT_MAX_IN_FLIGHT},
    {"max-lag", required_argument, NULL, OPT_MAX_LAG},
    {"find-max-rate", no_argument, NULL, OPT_FIND_MAX},
    {"slo", required_argument, NULL, OPT_SLO},
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"step-duration", required_argument, NULL, OPT_STEP_DURATION},
    {"agent", required_argument, NULL, OPT_AGENT},
    {"agents", required_argument, NULL, OPT_AGENTS},
    {"group", required_argument, NULL, OPT_GROUP},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"start-in", required_argument, NULL, OPT_START_IN},
    {"clock-dir", required_argument, NULL, OPT_CLOCK_DIR},
    {"client", required_argument, NULL, OPT_CLIENT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"insecure", no_argument, NULL, OPT_INSECURE},
    {"cacert", required_argument, NULL, OPT_CACERT},
    {"capath", required_argument, NULL, OPT_CAPATH},
    {"cert", required_argument, NULL, OPT_CERT},
    {"key", required_argument, NULL, OPT_KEY},
    {"sni", required_argument, NULL, OPT_SNI},
    {"alpn", required_argument, NULL, OPT_ALPN},
    {"tls-min", required_argument, NULL, OPT_TLS_MIN},
    {"tls-max", required_argument, NULL, OPT_TLS_MAX},
    {"ciphers", required_argument, NULL, OPT_CIPHERS},
    {"tls13-ciphers", required_argument, NULL, OPT_TLS13_CIPHERS},
    {"tls-resume", required_argument, NULL, OPT_TLS_RESUME},
    {"http", required_argument, NULL, OPT_HTTP},
    {"connections", required_argument, NULL, OPT_CONNECTIONS},
    {"save-scenario", required_argument, NULL, OPT_SAVE},
    {NULL, 0, NULL, 0},
};

/* Reads argv into *o (which the caller zeroed; it releases it with release_opts).
 * Returns EXIT_OK, -1 after --help (exit status 0), or an exit status after printing
 * what is wrong. */
static int parse_args(struct run_opts *o, int argc, char **argv)
{
	int c, rc;

	o->db_path = db_default_path();
	o->client = -1;
	o->loop = LOOP_AUTO;
	if (!(o->sets = calloc((size_t)argc + 1, sizeof *o->sets)) ||
	    !(o->owned = calloc((size_t)argc + 1, sizeof *o->owned)))
		return EXIT_RUNTIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qvhkc:d:H:", run_options, NULL)) != -1) {
		if (c == 'k')
			c = OPT_INSECURE;
		if ((rc = general_option(o, c, optarg)) == NOT_MINE &&
		    (rc = quick_option(o, c, optarg)) == NOT_MINE &&
		    (rc = search_option(o, c, optarg)) == NOT_MINE &&
		    (rc = set_option(o, c, optarg)) == NOT_MINE)
			rc = agent_option(o, c, optarg);
		if (rc != NOT_MINE) {
			if (rc != EXIT_OK)
				return rc;
			continue;
		}
		if (c == 'h') {
			usage_run(stdout);
			return -1;
		}
		return cmd_opt_error("run", c, argv);
	}
	if (o->cpus_set)
		o->sets[o->nsets++] = o->cpus_set;
	o->files = argv + optind;
	o->nfiles = argc - optind;
	return EXIT_OK;
}

static int agent_given(const struct agent_args *a)
{
	return a->agent || a->agents || a->group || a->start_at || a->start_in || a->clock_dir;
}

/* The options that go together, or not: EXIT_OK, or EXIT_USAGE after saying why. */
static int check_args(struct run_opts *o)
{
	const struct agent_args *a = &o->aargs;
	char err[512];

	if ((o->qs || o->qr) && !o->url) {
		fprintf(stderr, "soak run: quick options need --url (or give scenario files)\n");
		return EXIT_USAGE;
	}
	if (o->resume_id && (o->url || o->nfiles > 1 || o->find_max || a->agent || a->agents ||
	                     a->group || a->start_at || a->start_in)) {
		fprintf(stderr,
		        "soak run: --resume continues one run: give at most its scenario file "
		        "(no --url, queue, --find-max-rate or agent options)\n");
		return EXIT_USAGE;
	}
	if (!o->url && !o->nfiles && !o->resume_id) {
		fprintf(stderr, "soak run: no scenario given\n");
		cmd_usage("run");
		return EXIT_USAGE;
	}
	if (o->url && o->nfiles) {
		fprintf(stderr, "soak run: give scenario files or --url, not both\n");
		return EXIT_USAGE;
	}
	if (o->save && !o->url) {
		fprintf(stderr, "soak run: --save-scenario writes the scenario of the quick "
		                "options: it needs --url\n");
		return EXIT_USAGE;
	}
	struct stat st;
	if (o->save && lstat(o->save, &st) == 0) { /* a link too, dangling or not */
		fprintf(stderr, "soak run: --save-scenario: '%s' exists (not overwritten)\n",
		        o->save);
		return EXIT_USAGE;
	}
	if (agent_given(a) && agent_setup(&o->agent, a, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s\n", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The quick scenario's text: the quick options' lines, with the defaults of those not
 * given; malloc'd, or NULL out of memory. */
static char *quick_text(struct run_opts *o)
{
	size_t n;
	char *text;

	if (!o->have_conc && !o->have_rate)
		add_line(&o->qs, &o->qsl, "concurrency", "30");
	if (!o->have_dur)
		add_line(&o->qs, &o->qsl, "duration", "30m");
	if (!o->label)
		add_line(&o->qs, &o->qsl, "label", "quick");
	o->have_conc = o->have_dur = 1; /* the defaults are lines now: never twice */
	o->label = o->label ? o->label : "quick";
	n = o->qsl + o->qrl + 64;
	if (!(text = malloc(n)))
		return NULL;
	snprintf(text, n, "[scenario]\nname = quick\n%s[request]\n%s", o->qs ? o->qs : "",
	         o->qr ? o->qr : "");
	return text;
}

static int quick_scenario(struct run_opts *o, struct scenario *s)
{
	char err[1024], *text = quick_text(o);
	int rc;

	if (!text)
		return EXIT_RUNTIME;
	rc = scn_parse_text(s, "(command line)", text, o->sets, o->nsets, err, sizeof err);
	if (rc < 0)
		fprintf(stderr, "soak run: %s\n", err);
	free(text);
	return rc < 0 ? EXIT_USAGE : EXIT_OK;
}

/* Removes the "key = ..." lines of a section's lines (text, *len bytes). */
static void drop_key(char *text, size_t *len, const char *key)
{
	size_t k = strlen(key);
	char *p = text;

	while (p && p < text + *len) {
		char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
		if (strncmp(p, key, k) == 0 && strncmp(p + k, " = ", 3) == 0) {
			memmove(p, p + n, *len - (size_t)(p - text) - n + 1);
			*len -= n;
			continue;
		}
		p += n;
	}
}

/* One --set into the saved file: a key of [scenario] or [request] replaces that key's line
 * (the repeatable header and redact add one), any other goes into *rest under its own
 * section heading.  Each is where the parser would have put it: after the lines above. */
static int save_set(struct run_opts *o, const char *set, char **rest, size_t *restl)
{
	const char *eq = strchr(set, '='), *dot = eq ? memrchr(set, '.', (size_t)(eq - set)) : NULL;
	char sec[128], key[128];

	if (!dot)
		return 0; /* the parse said so already */
	snprintf(sec, sizeof sec, "%.*s", (int)(dot - set), set);
	snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
	int scn = !strcmp(sec, "scenario"), req = !strcmp(sec, "request");
	if (!scn && !req) {
		size_t hn = strlen(sec) + 4;
		char *t = realloc(*rest, *restl + hn);
		if (!t)
			return -1;
		*restl += (size_t)snprintf(t + *restl, hn, "[%s]\n", sec);
		*rest = t;
		return add_line(rest, restl, key, eq + 1);
	}
	if (strcmp(key, "header") != 0 && strcmp(key, "redact") != 0) {
		if (scn && o->qs)
			drop_key(o->qs, &o->qsl, key);
		if (req && o->qr)
			drop_key(o->qr, &o->qrl, key);
	}
	return scn ? add_line(&o->qs, &o->qsl, key, eq + 1)
	           : add_line(&o->qr, &o->qrl, key, eq + 1);
}

/* --save-scenario: the quick scenario as a file that sends the same requests, the options
 * that are scenario keys (--threads, --client, --metrics, --cpus and every --set) in it. */
static int save_scenario(struct run_opts *o)
{
	char *rest = NULL, *text = NULL, n[32], err[OUTDIR_PATH_MAX + 200];
	size_t restl = 0;
	int rc = EXIT_RUNTIME;
	struct outdir dir = {.fd = -1};
	struct outfile out = {.f = NULL};
	const char *base;

	snprintf(n, sizeof n, "%d", o->threads);
	if ((o->threads && add_line(&o->qs, &o->qsl, "threads", n) < 0) ||
	    (o->metrics && add_line(&o->qs, &o->qsl, "metrics", o->metrics) < 0) ||
	    (o->client >= 0 && add_line(&o->qr, &o->qrl, "client",
	                                plan_client_name((enum plan_client)o->client)) < 0))
		goto done;
	for (int i = 0; i < o->nsets; i++)
		if (save_set(o, o->sets[i], &rest, &restl) < 0)
			goto done;
	/* It holds the scenario's secrets: created new (never over a file or through a link
	 * at that name, which may have appeared since the check at the start), 0600. */
	if (!(text = quick_text(o)) || outdir_of(&dir, o->save, &base, err, sizeof err) < 0 ||
	    outfile_open(&out, &dir, base, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: --save-scenario: %s\n", text ? err : "out of memory");
		goto done;
	}
	fprintf(out.f,
	        "; written by soak run --save-scenario (soak %s): the quick options of its\n"
	        "; command line as a scenario; `soak run %s` sends the same requests.\n"
	        "; How the run is made (--db, --json, --junit, --loop, agents, --find-max-rate)\n"
	        "; stays on the command line.  Keys: man 5 soak-scenario.\n",
	        SOAK_VERSION, o->save);
	fputs(text, out.f);
	if (rest)
		fputs(rest, out.f);
	if (outfile_commit_new(&out, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: --save-scenario: %s\n", err);
		goto done;
	}
	rc = EXIT_OK;
done:
	outfile_abort(&out);
	outdir_close(&dir);
	free(rest);
	free(text);
	return rc;
}

/* Builds every scenario before anything is sent (a typo in the third file of an
 * overnight queue must not surface at 3 a.m.): the stopped run's (--resume, into
 * *resume), the quick one, or the files'.  On success the caller releases all n; on
 * failure none is held. */
static int load_scenarios(struct run_opts *o, struct scenario *scns, int n,
                          struct run_resume *resume)
{
	char err[1024];

	if (o->resume_id) {
		int r = resume_prepare(o->db_path, o->resume_id, o->nfiles ? o->files[0] : NULL,
		                       o->sets, o->nsets, &scns[0], resume, err, sizeof err);
		if (r < 0)
			fprintf(stderr, "soak run: --resume %lld: %s\n", o->resume_id, err);
		return r < 0 ? (r == -2 ? EXIT_USAGE : EXIT_RUNTIME) : EXIT_OK;
	}
	if (o->url)
		return quick_scenario(o, &scns[0]);
	for (int i = 0; i < n; i++)
		if (scn_load(&scns[i], o->files[i], o->sets, o->nsets, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: %s\n", err);
			for (int j = 0; j < i; j++)
				scn_release(&scns[j]);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}

/* The capacity search's options against the scenarios: EXIT_OK, or EXIT_USAGE after
 * saying what is missing or does not fit. */
static int check_search(const struct run_opts *o, const struct scenario *scns, int n)
{
	const struct runner_search *q = &o->search;

	if (!o->find_max && !o->have_slo && q->from <= 0 && q->to <= 0 && q->step_ms <= 0)
		return EXIT_OK;
	const char *why =
	    !o->find_max   ? "--slo, --from, --to and --step-duration go with --find-max-rate"
	    : !o->have_slo ? "--find-max-rate needs --slo (e.g. 'p99<200ms,errors<1%')"
	    : n != 1       ? "--find-max-rate takes one scenario"
	    : scns[0].plan.model != PLAN_OPEN ? "--find-max-rate needs the open model "
	                                        "(rate = N/s in [scenario], or --rate)"
	    : scns[0].sweep ? "--find-max-rate makes its own steps: the scenario has a [sweep]"
	    : q->to > 0 && q->to <= (q->from > 0 ? q->from : scns[0].rate)
	        ? "--to must be above --from (or the scenario's rate)"
	        : NULL;
	if (!why)
		return EXIT_OK;
	fprintf(stderr, "soak run: %s\n", why);
	return EXIT_USAGE;
}

/* --client beats the scenarios' choice; lean must be able to send every plan.  EXIT_OK,
 * or EXIT_USAGE after saying which scenario the lean driver cannot send. */
static int apply_client(const struct run_opts *o, struct scenario *scns, int n)
{
	char why[256];
	const char *key;

	for (int i = 0; i < n; i++) {
		if (scns[i].plan.protocol != PLAN_HTTP)
			continue;
		if (o->client >= 0)
			scns[i].plan.client = (enum plan_client)o->client;
		if (scns[i].plan.client == PLAN_CLIENT_LEAN &&
		    h1_plan_supported(&scns[i].plan, why, sizeof why) < 0) {
			fprintf(stderr,
			        "soak run: %s: the lean driver cannot send this: %s (use --client "
			        "curl or auto)\n",
			        scns[i].file, why);
			return EXIT_USAGE;
		}
		if (h1_client_for(&scns[i].plan, NULL, 0) == PLAN_CLIENT_CURL &&
		    http_plan_supported(&scns[i].plan, &key, why, sizeof why) < 0) {
			fprintf(stderr, "soak run: %s: %s: %s (use --client lean or auto)\n",
			        scns[i].file, key, why);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* --json: after each run, once it is recorded, its verdict line for cron and CI, whatever
 * the run's outcome (queue.h's after_run). */
static int print_json(void *arg, int64_t run_id, int rc)
{
	const struct run_opts *o = arg;
	char err[1024];

	if (run_id > 0 && cmd_runs_json(o->db_path, run_id, err, sizeof err) < 0) {
		fprintf(stderr, "soak run: %s\n", err);
		if (rc < EXIT_RUNTIME)
			rc = EXIT_RUNTIME;
	}
	return rc;
}

/* Runs the scenarios through the queue, then writes --junit of the runs made. */
static int run_scenarios(struct run_opts *o, const struct scenario *scns, int n,
                         struct run_resume *resume)
{
	struct queue_opts q = {
	    .run = {.search = o->search,
	            .db_path = o->db_path,
	            .json = o->json,
	            .loop = o->loop,
	            .threads = o->threads,
	            .quiet = o->quiet,
	            .profile = o->profile,
	            .agent = o->aargs.agent ? &o->agent : NULL,
	            .resume = o->resume_id ? &resume->rr : NULL,
	            .drift_check = rpt_drift_check},
	    .metrics = o->metrics,
	    .after_run = o->json ? print_json : NULL,
	    .after_arg = o,
	};
	int ran = 0, rc; /* scenarios run (a failure or a signal ends the queue) */

	if (o->find_max)
		q.run.search.slo = &o->slo;
	/* --junit: the runs made, in order (-1: none recorded) */
	if (o->junit && !(q.run_ids = calloc((size_t)n, sizeof *q.run_ids)))
		return EXIT_RUNTIME;
	q.ran = &ran;
	rc = queue_run(scns, n, &q);
	if (o->junit && ran > 0 && write_junit(o->junit, o->db_path, scns, q.run_ids, ran) < 0 &&
	    rc < EXIT_RUNTIME)
		rc = EXIT_RUNTIME;
	free(q.run_ids);
	return rc;
}

static void release_opts(struct run_opts *o)
{
	free(o->qs);
	free(o->qr);
	free(o->sets);
	free(o->cpus_set);
	for (int i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	free(o->owned);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct run_resume resume;
	struct scenario *scns = NULL;
	int n = 0, rc;

	if ((rc = parse_args(&o, argc, argv)) != EXIT_OK) {
		rc = rc < 0 ? EXIT_OK : rc;
		goto done;
	}
	if (o.verbose)
		log_set_level(o.verbose > 1 ? LOG_DEBUG : LOG_INFO);
	if ((rc = check_args(&o)) != EXIT_OK)
		goto done;
	n = o.url || o.resume_id ? 1 : o.nfiles;
	if (!(scns = calloc((size_t)n, sizeof *scns))) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	if ((rc = load_scenarios(&o, scns, n, &resume)) != EXIT_OK) {
		n = 0;
		goto done;
	}
	/* Only once the scenario parsed: the file saved is a valid one. */
	if (o.save && (rc = save_scenario(&o)) != EXIT_OK)
		goto done;
	if ((rc = check_search(&o, scns, n)) == EXIT_OK &&
	    (rc = apply_client(&o, scns, n)) == EXIT_OK)
		rc = run_scenarios(&o, scns, n, &resume);
	if (o.resume_id)
		resume_release(&resume);
done:
	for (int i = 0; i < n; i++)
		scn_release(&scns[i]);
	free(scns);
	release_opts(&o);
	return rc;
}
