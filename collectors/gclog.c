/* soak-gclog: imports or follows JVM GC logs into the results database, or summarises
 * them as JSON.  See usage() below; exit status 0 ok, 2 bad usage or input, 3 database. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "jsonw.h"
#include "gclog.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pcre2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "dur.h"
#include "gcanalysis.h"
#include "exitcode.h"
#include "fmode.h"
#include "log.h"
#include "opt.h"
#include "re.h"

volatile sig_atomic_t gl_stop;

static void on_signal(int sig)
{
	(void)sig;
	gl_stop = 1;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: soak-gclog --db DB --source NAME (--import FILE... | --follow FILE)\n"
	    "                  [--jvm-start MS | --pid-match PCRE2] [--run ID] [--host NAME]\n"
	    "                  [--every 1s] [--for DURATION] [--die-with-parent] [--redact NAMES]\n"
	    "       soak-gclog --summary FILE...\n"
	    "\n"
	    "Parses JVM GC logs (JDK 1.4-8 -XX:+PrintGCDetails, JDK 9+ -Xlog:gc / gc*, IBM J9 /\n"
	    "OpenJ9 -Xverbosegclog XML, whose local timestamps follow TZ) and stores each event\n"
	    "in gc_events (re-importing adds nothing).\n"
	    "  --import FILE...   read the files once, in the order given (rotated sets oldest\n"
	    "                     first)\n"
	    "  --follow FILE      follow a live log across rotation, truncation and restarts\n"
	    "  --jvm-start MS     JVM start (epoch ms) for logs that carry only uptime\n"
	    "  --pid-match RE     take the JVM start from the newest process whose command\n"
	    "                     line matches RE; without either, a log's modification time\n"
	    "                     minus its last uptime is used\n"
	    "  --run ID           store rows with this run id\n"
	    "  --host NAME        host column (default: this host's name)\n"
	    "  --every DURATION   follow: poll interval (default 1s)\n"
	    "  --for DURATION     follow: stop after this long\n"
	    "  --die-with-parent  follow: stop when the parent process goes away\n"
	    "  --redact NAMES     more names whose values are secret (a scenario's redact key),\n"
	    "                     for what events.detail quotes\n"
	    "  --summary FILE...  no database: print one JSON object per file\n"
	    "  --log-level LEVEL  error, warn (default), info, debug\n"
	    "  --help             this text\n"
	    "A new database is created 0600 ($SOAK_FILE_MODE, e.g. 0640, gives another mode).\n");
}

/* A JSON number with `decimals` decimals, or null when not finite. */
static void json_num(double v, int decimals)
{
	if (isfinite(v))
		printf("%.*f", decimals, v);
	else
		printf("null");
}

/* Events of one file, for --summary. */
struct evvec {
	struct gcp_event *v; /* the events */
	size_t n, cap;       /* used and allocated */
	int oom;             /* an append failed */
};

static void collect(const struct gcp_event *ev, void *arg)
{
	struct evvec *e = arg;
	if (buf_grow(&e->v, &e->cap, e->n + 1, sizeof *ev, 4096) < 0) {
		e->oom = 1;
		return;
	}
	e->v[e->n++] = *ev;
}

static int summary(const char *path)
{
	struct evvec e = {0};
	struct gca_result r;
	char err[512], fmt[64];
	struct gcparse *p = gcp_new(collect, NULL, &e, err, sizeof err);
	int rc = EXIT_USAGE;

	memset(&r, 0, sizeof r);
	if (!p) {
		fprintf(stderr, "soak-gclog: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (gl_read_all(p, path, err, sizeof err) < 0) {
		fprintf(stderr, "soak-gclog: %s\n", err);
		goto cleanup;
	}
	gcp_flush(p);
	if (e.oom || gca_analyze(e.v, e.n, &r, err, sizeof err) < 0) {
		fprintf(stderr, "soak-gclog: '%s': %s\n", path, e.oom ? "out of memory" : err);
		rc = EXIT_RUNTIME;
		goto cleanup;
	}
	const struct gcp_stats *s = gcp_stats_of(p);
	printf("{\"file\":");
	json_write_str(stdout, path);
	printf(",\"format\":");
	json_write_str(stdout, gcp_format(p, fmt, sizeof fmt));
	printf(",\"events\":{");
	for (int k = 0; k < GCP_KIND_COUNT; k++)
		printf("%s\"%s\":%lld", k ? "," : "", gcp_kind_name((enum gcp_kind)k),
		       (long long)r.count[k]);
	printf("},\"pause_total_ms\":%.3f,\"pause_max_ms\":%.3f,\"pause_p99_ms\":%.3f",
	       r.pause_total_ms, r.pause_max_ms, r.pause_p99_ms);
	printf(",\"safepoint_total_ms\":%.3f,\"gc_time_pct\":%.4f,\"unparsed_lines\":%lld",
	       r.safepoint_total_ms, r.gc_time_pct, (long long)s->unparsed);
	printf(",\"heap_after_slope_mb_per_h\":%.3f,\"heap_after_r2\":%.4f,\"basis\":",
	       r.slope_mb_per_h, r.r2);
	json_write_str(stdout, r.basis);
	printf(",\"memory\":\"%s\",\"trend\":\"%s\",\"old_cycles\":%lld", gca_memory_name(r.memory),
	       gca_memory_name(r.trend), (long long)r.old_cycles);
	printf(",\"headroom\":{\"of\":\"%s\",\"level_mb\":", r.level_of);
	json_num(r.trigger ? r.level_mb : NAN, 1);
	printf(",\"capacity_mb\":");
	json_num(r.trigger ? r.cap_mb : NAN, 1);
	printf(",\"trigger\":\"%s\",\"trigger_mb\":", gca_trigger_name(r.trigger));
	json_num(r.trigger ? r.trigger_mb : NAN, 1);
	printf(",\"promotion_mb_per_h\":");
	json_num(r.promo_mb_per_h, 3);
	printf(",\"growth_mb_per_h\":");
	json_num(r.trigger ? r.growth_mb_per_h : NAN, 3);
	printf(",\"to_trigger_h\":");
	json_num(r.to_trigger_h, 3);
	printf("},\"run_longer_h\":");
	json_num(r.run_longer_h, 3);
	printf(",\"why\":");
	json_write_str(stdout, r.why);
	printf("}\n");
	rc = EXIT_OK;
cleanup:
	gca_result_free(&r);
	gcp_free(p);
	free(e.v);
	return rc;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

/* What soak-gclog was asked to do, besides what struct gl holds. */
struct mode {
	int import;         /* --import FILE... */
	const char *follow; /* --follow FILE, or NULL */
	int sum;            /* --summary FILE... */
};

/* An option with a number or a duration into *g: EXIT_OK, or EXIT_USAGE after saying
 * what is wrong with its value. */
static int value_option(int c, const char *arg, struct gl *g)
{
	char err[1024];
	int64_t v;

	switch (c) {
	case 'j':
		if (parse_i64(arg, &v) < 0 || v < 0) {
			fprintf(stderr, "soak-gclog: bad --jvm-start '%s': expected epoch ms\n",
			        arg);
			return EXIT_USAGE;
		}
		g->jvm_start_ms = g->anchor_ms = v;
		return EXIT_OK;
	case 'r':
		if (parse_i64(arg, &v) < 0 || v < 0) {
			fprintf(stderr, "soak-gclog: bad --run '%s'\n", arg);
			return EXIT_USAGE;
		}
		g->run_id = v;
		return EXIT_OK;
	default: /* 'e', 't' */
		if (dur_parse(arg, &v, err, sizeof err) < 0) {
			fprintf(stderr, "soak-gclog: --%s: %s\n", c == 'e' ? "every" : "for", err);
			return EXIT_USAGE;
		}
		if (c == 'e' && v <= 0) {
			fprintf(stderr, "soak-gclog: --every: must be positive, not '%s'\n", arg);
			return EXIT_USAGE;
		}
		if (c == 'e')
			g->every_ms = v;
		else
			g->for_ms = v;
		return EXIT_OK;
	}
}

/* Reads the options into *g and *m: EXIT_OK, -1 after --help (exit status 0), or
 * EXIT_USAGE after saying what is wrong. */
static int parse_args(int argc, char **argv, struct gl *g, struct mode *m)
{
	static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
	                                     {"source", required_argument, NULL, 's'},
	                                     {"import", no_argument, NULL, 'i'},
	                                     {"follow", required_argument, NULL, 'f'},
	                                     {"jvm-start", required_argument, NULL, 'j'},
	                                     {"pid-match", required_argument, NULL, 'p'},
	                                     {"run", required_argument, NULL, 'r'},
	                                     {"host", required_argument, NULL, 'H'},
	                                     {"every", required_argument, NULL, 'e'},
	                                     {"for", required_argument, NULL, 't'},
	                                     {"die-with-parent", no_argument, NULL, 'P'},
	                                     {"redact", required_argument, NULL, 'R'},
	                                     {"summary", no_argument, NULL, 'S'},
	                                     {"log-level", required_argument, NULL, 'l'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			g->db_path = optarg;
			break;
		case 's':
			g->source = optarg;
			break;
		case 'i':
			m->import = 1;
			break;
		case 'f':
			m->follow = optarg;
			break;
		case 'S':
			m->sum = 1;
			break;
		case 'P':
			g->die_with_parent = 1;
			break;
		case 'R':
			if (redact_option("soak-gclog", &g->redact, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'H':
			snprintf(g->host, sizeof g->host, "%s", optarg);
			break;
		case 'p':
			g->pid_match = optarg;
			break;
		case 'j':
		case 'r':
		case 'e':
		case 't':
			if (value_option(c, optarg, g) != EXIT_OK)
				return EXIT_USAGE;
			break;
		case 'l':
			if (log_level_parse(optarg) < 0) {
				fprintf(stderr, "soak-gclog: bad --log-level '%s'\n", optarg);
				return EXIT_USAGE;
			}
			log_set_level((enum log_level)log_level_parse(optarg));
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			opt_error("soak-gclog", c, argv);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* --summary: one JSON object per file; the worst file's exit status. */
static int summaries(char **files, int n, const struct mode *m)
{
	int rc = EXIT_OK;

	if (n <= 0 || m->import || m->follow) {
		fprintf(stderr, "soak-gclog: --summary takes files and no --import/--follow\n");
		return EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		int r = summary(files[i]);
		if (r > rc)
			rc = r;
	}
	return rc;
}

/* What storing needs (nfiles: the files after the options), and --pid-match compiled
 * into g->pid_re: EXIT_OK, or EXIT_USAGE after saying what is wrong. */
static int check_args(struct gl *g, const struct mode *m, int nfiles)
{
	char err[1024];

	if (fmode_check_env(err, sizeof err) < 0) {
		fprintf(stderr, "soak-gclog: %s\n", err);
		return EXIT_USAGE;
	}
	if (!g->db_path || !g->source || m->import == !!m->follow || (m->import && nfiles <= 0) ||
	    (m->follow && nfiles > 0)) {
		fprintf(stderr, "soak-gclog: need --db, --source and either --import FILE... or "
		                "--follow FILE (see --help)\n");
		return EXIT_USAGE;
	}
	if (g->jvm_start_ms != GCP_NONE && g->pid_match) {
		fprintf(stderr, "soak-gclog: --jvm-start and --pid-match exclude each other\n");
		return EXIT_USAGE;
	}
	if (g->pid_match) {
		char why[160];
		if (!(g->pid_re = re_compile(g->pid_match, why, sizeof why))) {
			fprintf(stderr, "soak-gclog: bad --pid-match '%s': %s\n", g->pid_match,
			        why);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* The host column, the parent watched, SIGTERM and SIGINT ending the work cleanly. */
static void prepare_process(struct gl *g)
{
	struct sigaction sa;

	if (!g->host[0] && gethostname(g->host, sizeof g->host - 1) < 0)
		snprintf(g->host, sizeof g->host, "localhost");
	g->parent = getppid();
	if (g->die_with_parent)
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* --import's files or --follow's into the database.  Returns the exit status. */
static int store(struct gl *g, const struct mode *m, char **files, int nfiles)
{
	char err[1024];
	int rc = EXIT_OK;

	/* Input errors are found before the database is touched. */
	for (int i = 0; m->import && i < nfiles; i++)
		if (access(files[i], R_OK) < 0) {
			fprintf(stderr, "soak-gclog: cannot open '%s': %s\n", files[i],
			        strerror(errno));
			return EXIT_USAGE;
		}
	if (!(g->parser = gl_parser_new(g, err, sizeof err)) ||
	    gl_db_open(g, err, sizeof err) < 0) {
		fprintf(stderr, "soak-gclog: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (m->import) {
		for (int i = 0; i < nfiles && !gl_stop && !g->db_failed; i++)
			if (gl_import(g, files[i], err, sizeof err) < 0) {
				fprintf(stderr, "soak-gclog: %s\n", err);
				rc = EXIT_USAGE;
				break;
			}
		gcp_flush(g->parser);
	} else if (gl_follow(g, m->follow, err, sizeof err) < 0) {
		fprintf(stderr, "soak-gclog: %s\n", err);
		rc = EXIT_USAGE;
	}
	gl_db_commit(g);
	if (g->db_failed) {
		fprintf(stderr, "soak-gclog: %s\n", g->db_err);
		rc = EXIT_RUNTIME;
	}
	const struct gcp_stats *s = gcp_stats_of(g->parser);
	if (s->unparsed)
		log_warn("%lld line(s) could not be placed (the first %lld are in events as "
		         "gc_unparsed)",
		         (long long)s->unparsed, (long long)g->unparsed_kept);
	log_info("%lld event(s) written, %lld line(s), %lld unparsed", (long long)g->written,
	         (long long)s->lines, (long long)s->unparsed);
	return rc;
}

int main(int argc, char **argv)
{
	struct gl g;
	struct mode m = {0};
	int rc;

	memset(&g, 0, sizeof g);
	g.run_id = -1;
	g.jvm_start_ms = g.anchor_ms = g.last_uptime = GCP_NONE;
	g.every_ms = 1000;
	log_set_prog("soak-gclog");
	if ((rc = parse_args(argc, argv, &g, &m)) != EXIT_OK)
		return rc < 0 ? EXIT_OK : rc;
	if (m.sum)
		return summaries(argv + optind, argc - optind, &m);
	if ((rc = check_args(&g, &m, argc - optind)) != EXIT_OK)
		return rc;
	prepare_process(&g);
	rc = store(&g, &m, argv + optind, argc - optind);
	gl_db_close(&g);
	gcp_free(g.parser);
	pcre2_code_free(g.pid_re);
	return rc;
}
