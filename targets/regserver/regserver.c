/*
 * regserver — a registration endpoint for soak's tests and benchmarks: POST /register into
 * SQLite, GET /health, with knobs for latency, jitter, injected 503s and stalls so that a
 * load test knows exactly what throughput and latency to expect.
 *
 * This file is the command: options, signals, start-up and shutdown.  The HTTP side is
 * server.c, delayed answers delay.c, the users store.c, body parsing regform.c.
 * Exit status: 0 after SIGTERM/SIGINT, 2 bad usage, 3 cannot start (store, port).
 */
#include "dur.h"
#include "log.h"
#include "server.h"

#include "clock.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opt.h"

#define MAX_DELAY_MS (3600.0 * 1000) /* an hour: a longer delay is a typo */
#define MAX_THREADS  256u

static const char usage[] =
    "usage: regserver [--port P] [--latency MS] [--jitter MS] [--error-rate P]\n"
    "                 [--stall-rate P --stall MS] [--threads N] [--db FILE]\n"
    "                 [--max-users N] [--capacity N] [--capacity-after D:N] [--seed N]\n"
    "                 [--arrivals FILE] [--burn-us US [--burn-fn a|b]] [--quiet]\n"
    "\n"
    "A registration endpoint on 127.0.0.1 for load tests: POST /register (form or JSON:\n"
    "username, email, password) -> 201 {\"id\":N} | 400 | 409 | 413 | 415; GET /health -> ok.\n"
    "Prints `listening on 127.0.0.1:PORT` when ready; SIGTERM/SIGINT stop it (status 0)\n"
    "and print the counts.\n"
    "\n"
    "  --port P        TCP port (default 8080; 0 = any free port)\n"
    "  --latency MS    every answer leaves MS after the request arrived (default 0);\n"
    "                  MS is milliseconds (fractions allowed) or a duration: 250ms, 1s\n"
    "  --jitter MS     plus a uniform random 0..MS (default 0)\n"
    "  --error-rate P  answer this fraction 503 without touching the store (0..1 or N%)\n"
    "  --stall-rate P  this fraction leaves only --stall after arrival (default 0)\n"
    "  --stall MS      how long a stalled request waits (default 1000)\n"
    "  --threads N     worker threads (default: the number of CPUs)\n"
    "  --db FILE       SQLite file for the users, WAL mode (default :memory:)\n"
    "  --capacity N    at most N requests in service at once, each for its delay;\n"
    "                  the others queue in arrival order, so with --latency L the\n"
    "                  server saturates at N / L per second (default 0 = unlimited)\n"
    "  --capacity-after D:N  from D after the start (20s, 5m) the capacity is N:\n"
    "                  a server that slows down on cue (drift tests)\n"
    "  --max-users N   when the store holds N users, delete them all and start over\n"
    "                  (bounds memory in long runs; ids restart; default 0 = never)\n"
    "  --seed N        seed of the jitter/error/stall draws (default: time and pid)\n"
    "  --arrivals FILE write each request's arrival time there (monotonic µs, a line\n"
    "                  each; flushed at exit): what the server saw of the schedule\n"
    "  --burn-us US    spend US microseconds of the worker's CPU on every request, in\n"
    "                  the function regserver_burn_a (or _b with --burn-fn b): a known\n"
    "                  cost in a named function, for profiles (default 0)\n"
    "  --burn-fn F     a or b: which of the two functions burns (default a)\n"
    "  --quiet         no start-up information (errors and exit counts still print)\n"
    "  --help, --version\n";

/* What the command line asked for besides the server's configuration. */
struct args {
	struct srv_config cfg; /* for srv_start */
	int quiet;             /* --quiet */
	int exit_now;          /* --help or --version printed: exit 0 */
};

/* A delay in milliseconds ("20", "0.5") or a duration with a unit ("250ms", "1s"). */
static int parse_ms(const char *opt, const char *s, int64_t *ns, char *err, size_t errlen)
{
	size_t n = strlen(s);
	char inner[256];
	double ms;

	if (n > 0 && ((s[n - 1] >= '0' && s[n - 1] <= '9') || s[n - 1] == '.')) {
		char *end;
		errno = 0;
		ms = strtod(s, &end);
		if (end == s || *end || errno || !isfinite(ms) || ms < 0 || ms > MAX_DELAY_MS) {
			snprintf(err, errlen, "bad %s '%s': expected milliseconds 0..%.0f", opt, s,
			         MAX_DELAY_MS);
			return -1;
		}
		*ns = (int64_t)llround(ms * 1e6);
		return 0;
	}
	{
		int64_t v;
		if (dur_parse(s, &v, inner, sizeof inner) < 0) {
			snprintf(err, errlen, "%s: %s", opt, inner);
			return -1;
		}
		if ((double)v > MAX_DELAY_MS) {
			snprintf(err, errlen, "bad %s '%s': at most an hour", opt, s);
			return -1;
		}
		*ns = v * 1000000;
	}
	return 0;
}

static int parse_rate(const char *opt, const char *s, double *v, char *err, size_t errlen)
{
	char inner[256];

	if (dur_pct_parse(s, v, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "%s: %s", opt, inner);
		return -1;
	}
	return 0;
}

static int parse_ull(const char *opt, const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *v, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (end == s || *end || errno || s[0] == '-' || *v < lo || *v > hi) {
		snprintf(err, errlen, "bad %s '%s': expected an integer %llu..%llu", opt, s, lo,
		         hi);
		return -1;
	}
	return 0;
}

/* --capacity-after D:N: a duration after the start, then a capacity 1..100000. */
static int parse_capacity_after(const char *s, struct srv_config *cfg, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');
	char d[64], inner[256];
	unsigned long long n;
	int64_t ms = 0;

	if (!colon || (size_t)(colon - s) >= sizeof d || colon == s) {
		snprintf(err, errlen, "bad --capacity-after '%s': expected DURATION:N, e.g. 20s:4",
		         s);
		return -1;
	}
	memcpy(d, s, (size_t)(colon - s));
	d[colon - s] = '\0';
	if (dur_parse(d, &ms, inner, sizeof inner) < 0) {
		snprintf(err, errlen, "bad --capacity-after '%s': %s", s, inner);
		return -1;
	}
	if (ms <= 0) {
		snprintf(err, errlen, "bad --capacity-after '%s': the duration must be positive",
		         s);
		return -1;
	}
	if (parse_ull("--capacity-after", colon + 1, 1, 100000, &n, err, errlen) < 0)
		return -1;
	cfg->capacity_after_ns = ms * 1000000;
	cfg->capacity_after = (unsigned)n;
	return 0;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

/* 0 with *a filled, or -1 with err set. */
static int parse_args(int argc, char **argv, struct args *a, char *err, size_t errlen)
{
	enum {
		O_PORT = 256,
		O_LATENCY,
		O_JITTER,
		O_ERROR_RATE,
		O_STALL_RATE,
		O_STALL,
		O_THREADS,
		O_DB,
		O_MAX_USERS,
		O_SEED,
		O_QUIET,
		O_HELP,
		O_VERSION,
		O_CAPACITY,
		O_CAPACITY_AFTER,
		O_ARRIVALS,
		O_BURN_US,
		O_BURN_FN
	};
	static const struct option longopts[] = {
	    {"port", required_argument, NULL, O_PORT},
	    {"latency", required_argument, NULL, O_LATENCY},
	    {"jitter", required_argument, NULL, O_JITTER},
	    {"error-rate", required_argument, NULL, O_ERROR_RATE},
	    {"stall-rate", required_argument, NULL, O_STALL_RATE},
	    {"stall", required_argument, NULL, O_STALL},
	    {"threads", required_argument, NULL, O_THREADS},
	    {"db", required_argument, NULL, O_DB},
	    {"max-users", required_argument, NULL, O_MAX_USERS},
	    {"capacity", required_argument, NULL, O_CAPACITY},
	    {"capacity-after", required_argument, NULL, O_CAPACITY_AFTER},
	    {"arrivals", required_argument, NULL, O_ARRIVALS},
	    {"burn-us", required_argument, NULL, O_BURN_US},
	    {"burn-fn", required_argument, NULL, O_BURN_FN},
	    {"seed", required_argument, NULL, O_SEED},
	    {"quiet", no_argument, NULL, O_QUIET},
	    {"help", no_argument, NULL, O_HELP},
	    {"version", no_argument, NULL, O_VERSION},
	    {NULL, 0, NULL, 0},
	};
	struct srv_config *cfg = &a->cfg;
	unsigned long long v;
	int c;

	memset(a, 0, sizeof *a);
	cfg->port = 8080;
	cfg->stall_ns = 1000 * 1000000LL;
	cfg->threads = default_threads();
	cfg->db_path = ":memory:";
	cfg->burn_fn = 'a';
	cfg->seed = (uint64_t)clock_wall_ms() * 1000003u ^ (uint64_t)clock_mono_ns() ^
	            (uint64_t)getpid() << 32;
	opterr = 0; /* we word the messages ourselves */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case O_PORT:
			rc = parse_ull("--port", optarg, 0, 65535, &v, err, errlen);
			cfg->port = (unsigned)v;
			break;
		case O_LATENCY:
			rc = parse_ms("--latency", optarg, &cfg->latency_ns, err, errlen);
			break;
		case O_JITTER:
			rc = parse_ms("--jitter", optarg, &cfg->jitter_ns, err, errlen);
			break;
		case O_STALL:
			rc = parse_ms("--stall", optarg, &cfg->stall_ns, err, errlen);
			break;
		case O_ERROR_RATE:
			rc = parse_rate("--error-rate", optarg, &cfg->error_rate, err, errlen);
			break;
		case O_STALL_RATE:
			rc = parse_rate("--stall-rate", optarg, &cfg->stall_rate, err, errlen);
			break;
		case O_THREADS:
			rc = parse_ull("--threads", optarg, 1, MAX_THREADS, &v, err, errlen);
			cfg->threads = (unsigned)v;
			break;
		case O_DB:
			if (!*optarg) {
				snprintf(err, errlen, "bad --db: empty file name");
				rc = -1;
			}
			cfg->db_path = optarg;
			break;
		case O_MAX_USERS:
			rc = parse_ull("--max-users", optarg, 0, (unsigned long long)1e12, &v, err,
			               errlen);
			cfg->max_users = (long long)v;
			break;
		case O_CAPACITY:
			rc = parse_ull("--capacity", optarg, 0, 100000, &v, err, errlen);
			cfg->capacity = (unsigned)v;
			break;
		case O_CAPACITY_AFTER:
			rc = parse_capacity_after(optarg, cfg, err, errlen);
			break;
		case O_ARRIVALS:
			cfg->arrivals = optarg;
			break;
		case O_BURN_US:
			rc = parse_ull("--burn-us", optarg, 0, 10000000, &v, err, errlen);
			cfg->burn_us = (int64_t)v;
			break;
		case O_BURN_FN:
			if (strcmp(optarg, "a") != 0 && strcmp(optarg, "b") != 0) {
				snprintf(err, errlen, "bad --burn-fn '%s': a or b", optarg);
				rc = -1;
			}
			cfg->burn_fn = optarg[0];
			break;
		case O_SEED:
			rc = parse_ull("--seed", optarg, 0, UINT64_MAX, &v, err, errlen);
			cfg->seed = v;
			break;
		case O_QUIET:
			a->quiet = 1;
			break;
		case 'h':
		case O_HELP:
			fputs(usage, stdout);
			a->exit_now = 1;
			return 0;
		case O_VERSION:
			printf("regserver %s\n", SOAK_VERSION);
			a->exit_now = 1;
			return 0;
		default: /* ':' or '?' */
			opt_error_text(c, argv, err, errlen);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}

/* One line of totals on stderr, whatever the log level: soak's tests read it. */
static void print_counts(struct srv *s)
{
	unsigned long long n[SRV_N_COUNT];
	long long users, resets;

	srv_counts(s, n);
	srv_store_stats(s, &users, &resets);
	fprintf(stderr,
	        "regserver: requests=%llu 201=%llu 409=%llu 400=%llu 503=%llu 200=%llu 404=%llu "
	        "405=%llu 413=%llu 415=%llu 500=%llu users=%lld restarts=%lld queued=%llu "
	        "delayed_peak=%llu\n",
	        n[SRV_N_REQUESTS], n[SRV_N_201], n[SRV_N_409], n[SRV_N_400], n[SRV_N_503],
	        n[SRV_N_200], n[SRV_N_404], n[SRV_N_405], n[SRV_N_413], n[SRV_N_415], n[SRV_N_500],
	        users, resets, n[SRV_N_QUEUED], n[SRV_N_DELAYED_PEAK]);
}

int main(int argc, char **argv)
{
	struct args a;
	struct srv *s = NULL;
	sigset_t stop_signals;
	char err[1024];
	int sig = 0, status = 3;

	log_set_prog("regserver");
	log_set_level(LOG_INFO);
	if (parse_args(argc, argv, &a, err, sizeof err) < 0) {
		fprintf(stderr, "regserver: %s\ntry 'regserver --help'\n", err);
		return 2;
	}
	if (a.exit_now)
		return 0;
	if (a.quiet)
		log_set_level(LOG_WARN);
	/* SIGTERM/SIGINT are taken with sigwait() by this thread alone: blocked here, before
	 * any thread starts, so every thread inherits the mask and no handler (nor global
	 * flag) is needed.  A peer that hangs up must not kill us. */
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (srv_start(&a.cfg, &s, err, sizeof err) < 0) {
		log_error("%s", err);
		goto cleanup;
	}
	printf("listening on 127.0.0.1:%u\n", srv_port(s));
	fflush(stdout);
	log_info("threads %u, connections up to %u, latency %.3f ms + jitter 0..%.3f ms, "
	         "error rate %g, stall rate %g (%.3f ms), store '%s', max users %lld",
	         a.cfg.threads, srv_conn_limit(s), a.cfg.latency_ns / 1e6, a.cfg.jitter_ns / 1e6,
	         a.cfg.error_rate, a.cfg.stall_rate, a.cfg.stall_ns / 1e6, a.cfg.db_path,
	         a.cfg.max_users);
	while (sigwait(&stop_signals, &sig) != 0)
		;
	log_info("%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
	srv_stop(s);
	print_counts(s);
	status = 0;
cleanup:
	srv_free(s);
	return status;
}
