/*
 * soak run — runs scenarios one after another (an overnight job queue), or a quick
 * scenario built from the command line.
 */
#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd.h"
#include "run/resume.h"
#include "db.h"
#include "log.h"
#include "report/report.h"
#include "run/metrics.h"
#include "run/runner.h"
#include "dur.h"
#include "engine/engine.h"
#include "engine/h1.h"
#include "scenario/scenario.h"

/* Set by the signal handlers; read by the runner. */
static volatile sig_atomic_t sigint_count, sigterm_seen;

static void on_signal(int sig)
{
	if (sig == SIGINT)
		sigint_count++;
	else
		sigterm_seen = 1;
}

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
	OPT_JUNIT
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

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, OPT_DB},
	    {"set", required_argument, NULL, OPT_SET},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"cpus", required_argument, NULL, OPT_CPUS},
	    {"loop", required_argument, NULL, OPT_LOOP},
	    {"quiet", no_argument, NULL, 'q'},
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
	    {NULL, 0, NULL, 0},
	};
	const char *db_path = db_default_path();
	char **sets = calloc((size_t)argc + 1, sizeof *sets);
	int nsets = 0, quiet = 0, verbose = 0, threads = 0, json = 0, c, rc = EXIT_OK;
	int client = -1, need_curl = 0; /* --client; some scenario is sent by libcurl */
	long long resume_id = 0;        /* --resume */
	struct run_resume resume;
	enum engine_loop loop = LOOP_AUTO;
	/* quick mode: [scenario] lines and [request] lines */
	char *qs = NULL, *qr = NULL;
	size_t qsl = 0, qrl = 0;
	const char *url = NULL, *label = NULL;
	int have_conc = 0, have_dur = 0, have_rate = 0, find_max = 0, have_slo = 0;
	struct slo slo;
	struct runner_search search = {0};
	char err[1024];
	struct agent_args aargs = {0};
	char *cpus_set = NULL; /* --cpus, as a --set */
	struct agent agent;
	const char *metrics_spec = NULL, *junit = NULL; /* --metrics, --junit */
	struct metrics *metrics = NULL;
	int64_t *run_ids = NULL; /* --junit: the runs made, in order (-1: none recorded) */

	if (!sets)
		return EXIT_RUNTIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qvhc:d:H:", opts, NULL)) != -1) {
		int bad = 0;
		char *end;
		long lv;
		switch (c) {
		case OPT_DB:
			db_path = optarg;
			break;
		case OPT_SET:
			sets[nsets++] = optarg;
			break;
		case OPT_CPUS:
			/* The same as --set scenario.cpus=LIST, so a scenario file takes it too. */
			free(cpus_set);
			if (asprintf(&cpus_set, "scenario.cpus=%s", optarg) < 0) {
				cpus_set = NULL;
				rc = EXIT_RUNTIME;
				goto done;
			}
			break;
		case OPT_THREADS:
			lv = strtol(optarg, &end, 10);
			threads = lv >= 1 && lv <= 256 ? (int)lv : 0;
			if (end == optarg || *end || !threads) {
				fprintf(stderr, "soak run: --threads: expected 1..256, not '%s'\n",
				        optarg);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case OPT_LOOP:
			if (!strcmp(optarg, "poll"))
				loop = LOOP_POLL;
			else if (!strcmp(optarg, "epoll"))
				loop = LOOP_EPOLL;
			else if (!strcmp(optarg, "auto"))
				loop = LOOP_AUTO;
			else {
				fprintf(
				    stderr,
				    "soak run: --loop: expected poll, epoll or auto, not '%s'\n",
				    optarg);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case OPT_METRICS: {
			char host[256];
			int port;
			if (metrics_listen_parse(optarg, host, sizeof host, &port, err,
			                         sizeof err) < 0) {
				fprintf(stderr, "soak run: --metrics: %s\n", err);
				rc = EXIT_USAGE;
				goto done;
			}
			metrics_spec = optarg;
			break;
		}
		case OPT_JUNIT:
			junit = optarg;
			break;
		case OPT_CLIENT:
			if ((client = plan_client_parse(optarg)) < 0) {
				fprintf(
				    stderr,
				    "soak run: --client: expected auto, curl or lean, not '%s'\n",
				    optarg);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_RESUME:
			resume_id = strtoll(optarg, &end, 10);
			if (end == optarg || *end || resume_id < 1) {
				fprintf(stderr, "soak run: --resume: expected a run id, not '%s'\n",
				        optarg);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage_run(stdout);
			goto done;
		case OPT_URL:
			url = optarg;
			bad = add_line(&qr, &qrl, "url", optarg);
			break;
		case 'c':
			have_conc = 1;
			bad = add_line(&qs, &qsl, "concurrency", optarg);
			break;
		case 'd':
			have_dur = 1;
			bad = add_line(&qs, &qsl, "duration", optarg);
			break;
		case OPT_METHOD:
			bad = add_line(&qr, &qrl, "method", optarg);
			break;
		case OPT_BODY:
			bad = add_line(&qr, &qrl, "body", optarg);
			break;
		case 'H':
			bad = add_line(&qr, &qrl, "header", optarg);
			break;
		case OPT_LABEL:
			label = optarg;
			bad = add_line(&qs, &qsl, "label", optarg);
			break;
		case OPT_CONNECTION:
			bad = add_line(&qs, &qsl, "connection", optarg);
			break;
		case OPT_INTERVAL:
			bad = add_line(&qs, &qsl, "interval", optarg);
			break;
		case OPT_TIMEOUT:
			bad = add_line(&qr, &qrl, "timeout", optarg);
			break;
		case OPT_EXPECT:
			bad = add_line(&qr, &qrl, "expect_status", optarg);
			break;
		case OPT_WARMUP:
			bad = add_line(&qs, &qsl, "warmup", optarg);
			break;
		case OPT_RAMP:
			bad = add_line(&qs, &qsl, "ramp_up", optarg);
			break;
		case OPT_THINK:
			bad = add_line(&qs, &qsl, "think_time", optarg);
			break;
		case OPT_RATE:
			have_rate = 1;
			bad = add_line(&qs, &qsl, "rate", optarg);
			break;
		case OPT_ARRIVAL:
			bad = add_line(&qs, &qsl, "arrival", optarg);
			break;
		case OPT_MAX_IN_FLIGHT:
			bad = add_line(&qs, &qsl, "max_in_flight", optarg);
			break;
		case OPT_MAX_LAG:
			bad = add_line(&qs, &qsl, "max_lag", optarg);
			break;
		case OPT_FIND_MAX:
			find_max = 1;
			break;
		case OPT_SLO:
			if (slo_parse(&slo, optarg, err, sizeof err) < 0) {
				fprintf(stderr, "soak run: %s\n", err);
				rc = EXIT_USAGE;
				goto done;
			}
			have_slo = 1;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (dur_rate_parse(optarg, c == OPT_FROM ? &search.from : &search.to, err,
			                   sizeof err) < 0) {
				fprintf(stderr, "soak run: --%s: %s\n",
				        c == OPT_FROM ? "from" : "to", err);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case OPT_STEP_DURATION:
			if (dur_parse(optarg, &search.step_ms, err, sizeof err) < 0 ||
			    search.step_ms < 100) {
				fprintf(stderr, "soak run: --step-duration: %s\n",
				        search.step_ms < 100 ? "must be at least 100ms" : err);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case OPT_AGENT:
			aargs.agent = optarg;
			break;
		case OPT_AGENTS:
			lv = strtol(optarg, &end, 10);
			aargs.agents = lv >= 1 && lv <= AGENT_MAX ? (int)lv : 0;
			if (end == optarg || *end || !aargs.agents) {
				fprintf(stderr, "soak run: --agents: expected 1..%d, not '%s'\n",
				        AGENT_MAX, optarg);
				rc = EXIT_USAGE;
				goto done;
			}
			break;
		case OPT_GROUP:
			aargs.group = optarg;
			break;
		case OPT_START_AT:
			aargs.start_at = optarg;
			break;
		case OPT_START_IN:
			aargs.start_in = optarg;
			break;
		case OPT_CLOCK_DIR:
			aargs.clock_dir = optarg;
			break;
		case ':':
			fprintf(stderr, "soak run: option '%s' needs a value\n", argv[optind - 1]);
			cmd_usage("run");
			rc = EXIT_USAGE;
			goto done;
		default:
			fprintf(stderr, "soak run: unknown option '%s'\n", argv[optind - 1]);
			cmd_usage("run");
			rc = EXIT_USAGE;
			goto done;
		}
		if (bad) {
			rc = EXIT_USAGE;
			goto done;
		}
	}
	if (cpus_set)
		sets[nsets++] = cpus_set;
	if (verbose)
		log_set_level(verbose > 1 ? LOG_DEBUG : LOG_INFO);
	if ((qs || qr) && !url) {
		fprintf(stderr, "soak run: quick options need --url (or give scenario files)\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if (resume_id && (url || argc - optind > 1 || find_max || aargs.agent || aargs.agents ||
	                  aargs.group || aargs.start_at || aargs.start_in)) {
		fprintf(stderr,
		        "soak run: --resume continues one run: give at most its scenario file "
		        "(no --url, queue, --find-max-rate or agent options)\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if (!url && optind >= argc && !resume_id) {
		fprintf(stderr, "soak run: no scenario given\n");
		cmd_usage("run");
		rc = EXIT_USAGE;
		goto done;
	}
	if (url && optind < argc) {
		fprintf(stderr, "soak run: give scenario files or --url, not both\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if (aargs.agent || aargs.agents || aargs.group || aargs.start_at || aargs.start_in ||
	    aargs.clock_dir) {
		char aerr[512];
		if (agent_setup(&agent, &aargs, aerr, sizeof aerr) < 0) {
			fprintf(stderr, "soak run: %s\n", aerr);
			rc = EXIT_USAGE;
			goto done;
		}
	}

	/* Parse every scenario before sending anything: a typo in the third file of an
	 * overnight queue must not surface at 3 a.m. */
	int nscn = url || resume_id ? 1 : argc - optind;
	struct scenario *scns = calloc((size_t)nscn, sizeof *scns);
	if (!scns) {
		rc = EXIT_RUNTIME;
		goto done;
	}
	if (resume_id) {
		int r = resume_prepare(db_path, resume_id, optind < argc ? argv[optind] : NULL,
		                       sets, nsets, &scns[0], &resume, err, sizeof err);
		if (r < 0) {
			fprintf(stderr, "soak run: --resume %lld: %s\n", resume_id, err);
			rc = r == -2 ? EXIT_USAGE : EXIT_RUNTIME;
			goto free_scns;
		}
	} else if (url) {
		char *text = NULL;
		size_t tl = 0;
		if (!have_conc && !have_rate)
			add_line(&qs, &qsl, "concurrency", "30");
		if (!have_dur)
			add_line(&qs, &qsl, "duration", "30m");
		if (!label)
			add_line(&qs, &qsl, "label", "quick");
		size_t n = qsl + qrl + 64;
		text = malloc(n);
		if (!text) {
			rc = EXIT_RUNTIME;
			goto free_scns;
		}
		tl = (size_t)snprintf(text, n, "[scenario]\nname = quick\n%s[request]\n%s",
		                      qs ? qs : "", qr ? qr : "");
		(void)tl;
		if (scn_parse_text(&scns[0], "(command line)", text, sets, nsets, err, sizeof err) <
		    0) {
			fprintf(stderr, "soak run: %s\n", err);
			free(text);
			rc = EXIT_USAGE;
			goto free_scns;
		}
		free(text);
	} else {
		for (int i = 0; i < nscn; i++)
			if (scn_load(&scns[i], argv[optind + i], sets, nsets, err, sizeof err) <
			    0) {
				fprintf(stderr, "soak run: %s\n", err);
				rc = EXIT_USAGE;
				for (int j = 0; j < i; j++)
					scn_release(&scns[j]);
				goto free_scns;
			}
	}

	if (find_max || have_slo || search.from > 0 || search.to > 0 || search.step_ms > 0) {
		const char *why =
		    !find_max   ? "--slo, --from, --to and --step-duration go with --find-max-rate"
		    : !have_slo ? "--find-max-rate needs --slo (e.g. 'p99<200ms,errors<1%')"
		    : nscn != 1 ? "--find-max-rate takes one scenario"
		    : scns[0].plan.model != PLAN_OPEN ? "--find-max-rate needs the open model "
		                                        "(rate = N/s in [scenario], or --rate)"
		    : scns[0].sweep
		        ? "--find-max-rate makes its own steps: the scenario has a [sweep]"
		    : search.to > 0 && search.to <= (search.from > 0 ? search.from : scns[0].rate)
		        ? "--to must be above --from (or the scenario's rate)"
		        : NULL;
		if (why) {
			fprintf(stderr, "soak run: %s\n", why);
			rc = EXIT_USAGE;
			for (int i = 0; i < nscn; i++)
				scn_release(&scns[i]);
			goto free_scns;
		}
	}

	/* --client beats the scenarios' choice; lean must be able to send every plan. */
	for (int i = 0; i < nscn; i++) {
		char why[256];
		if (scns[i].plan.protocol != PLAN_HTTP)
			continue;
		if (client >= 0)
			scns[i].plan.client = (enum plan_client)client;
		if (scns[i].plan.client == PLAN_CLIENT_LEAN &&
		    h1_plan_supported(&scns[i].plan, why, sizeof why) < 0) {
			fprintf(stderr,
			        "soak run: %s: the lean driver cannot send this: %s (use --client "
			        "curl or auto)\n",
			        scns[i].file, why);
			rc = EXIT_USAGE;
			for (int j = 0; j < nscn; j++)
				scn_release(&scns[j]);
			goto free_scns;
		}
		need_curl |= strcmp(engine_client(&scns[i].plan, NULL, 0), "curl") == 0;
	}

	/* Every VU may hold a socket: take the hard limit on open files. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (int i = 0; i < nscn; i++)
		for (int k = 0; k < scns[i].nlevels; k++) {
			int conns = scns[i].plan.model == PLAN_OPEN ? scns[i].plan.max_in_flight
			                                            : scns[i].levels[k];
			if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
			    (rlim_t)conns + 64 > rl.rlim_cur)
				fprintf(stderr,
				        "soak run: warning: %s asks for %d %s but only %llu files "
				        "may be "
				        "open (ulimit -n): expect connection errors\n",
				        scns[i].file, conns,
				        scns[i].plan.model == PLAN_OPEN ? "requests in flight"
				                                        : "VUs",
				        (unsigned long long)rl.rlim_cur);
		}

	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Only when libcurl sends: its TLS set-up alone costs 2 MB of the lean driver's RSS. */
	if (need_curl)
		curl_global_init(CURL_GLOBAL_DEFAULT);

	/* One /metrics for the whole queue: each run publishes into it in turn. */
	if (metrics_spec) {
		if (metrics_start(&metrics, metrics_spec, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: --metrics: %s\n", err);
			rc = EXIT_RUNTIME;
			goto release;
		}
		fprintf(stderr, "soak run: live metrics on %s\n",
		        metrics_url(metrics, (char[320]){0}, 320));
	}
	if (junit && !(run_ids = calloc((size_t)nscn, sizeof *run_ids))) {
		rc = EXIT_RUNTIME;
		goto release;
	}

	int64_t run_id = -1;
	if (find_max)
		search.slo = &slo;
	struct runner_opts ro = {
	    .search = search,
	    .db_path = db_path,
	    .json = json,
	    .run_id = &run_id,
	    .loop = loop,
	    .threads = threads,
	    .tty = isatty(STDERR_FILENO),
	    .quiet = quiet,
	    .sigint_count = &sigint_count,
	    .sigterm = &sigterm_seen,
	    .agent = aargs.agent ? &agent : NULL,
	    .resume = resume_id ? &resume.rr : NULL,
	    .drift_check = rpt_drift_check,
	    .metrics = metrics,
	};
	int ran = 0; /* scenarios run (a failure or a signal ends the queue) */
	for (int i = 0; i < nscn; i++) {
		int r = runner_run(&scns[i], &ro);
		if (run_ids)
			run_ids[i] = run_id;
		ran = i + 1;
		/* The verdict line for cron and CI, whatever the outcome, once the run is
		 * recorded. */
		if (json && run_id > 0 && cmd_runs_json(db_path, run_id, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: %s\n", err);
			if (r < EXIT_RUNTIME)
				r = EXIT_RUNTIME;
		}
		if (r == EXIT_SIGINT || r == EXIT_SIGTERM || r == EXIT_RUNTIME) {
			if (i + 1 < nscn)
				fprintf(stderr, "soak run: %d queued scenario%s not run\n",
				        nscn - i - 1, nscn - i - 1 == 1 ? "" : "s");
			rc = r;
			break;
		}
		if (r > rc)
			rc = r;
	}
	if (junit && write_junit(junit, db_path, scns, run_ids, ran) < 0 && rc < EXIT_RUNTIME)
		rc = EXIT_RUNTIME;
release:
	metrics_free(metrics);
	free(run_ids);
	for (int i = 0; i < nscn; i++)
		scn_release(&scns[i]);
	if (resume_id)
		resume_release(&resume);
	if (need_curl)
		curl_global_cleanup();
free_scns:
	free(scns);
done:
	free(qs);
	free(qr);
	free(sets);
	free(cpus_set);
	return rc;
}
