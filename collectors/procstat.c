/*
 * soak-procstat — samples /proc into the `samples` table of a soak database: a process
 * set (a pid, a pidfile, or a PCRE2 pattern over command lines, all members summed; its
 * memory also by kind, with the bounds of its growth: procstat_mem.h) and/or the host,
 * every --every, one transaction per round.  Changes of the set go to
 * `events` (procs_changed, procs_missing, procs_found).  Started by `soak run` for each
 * [collect.*] section, or by hand on a remote host and folded in later with `soak merge`.
 *
 * Exit status: 0 stopped (SIGTERM/SIGINT, --for elapsed, parent gone); 2 bad usage or
 * input; 3 runtime failure (database, /proc).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "dur.h"
#include "exitcode.h"
#include "fmode.h"
#include "log.h"
#include "opt.h"
#include "procstat_host.h"
#include "procstat_pset.h"
#include "redact.h"

#define PROG         "soak-procstat"
#define MIN_EVERY_MS 100 /* samples are keyed by millisecond: far above that */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* Everything a run of the collector owns. */
struct sampler {
	const char *db_path;     /* --db */
	const char *source;      /* --source: samples.source, events.source */
	char host_name[256];     /* --host-name or gethostname(): samples.host */
	long long run_id;        /* --run, or -1 for NULL */
	int64_t every_ms;        /* --every */
	int64_t for_ms;          /* --for, or -1 for "until stopped" */
	int want_host;           /* --host */
	int64_t mem_limit_kb;    /* --memory-limit, recorded each round as mem_limit_kb so a
	                          * report names a level at it as that limit (0: none) */
	int die_with_parent;     /* --die-with-parent */
	pid_t parent;            /* our parent at start (for --die-with-parent) */
	struct redact redact;    /* --redact: the run's own secret names, on top of the
	                          * built-in ones, for what it stores and logs */
	struct pset_config pcfg; /* the process set as given */
	struct pset ps;          /* the process set's state */
	struct phost host;       /* --host state */
	sqlite3 *db;             /* the database */
	sqlite3_stmt *ins;       /* INSERT into samples, source/host/run bound once */
	sqlite3_stmt *ins_ev;    /* INSERT into events, source/host/run bound once */
	sqlite3_stmt *taken;     /* is a round's key taken by another run's collector */
	struct procfs_out out;   /* this round's metrics */
	unsigned long rounds;    /* rounds committed */
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " --db DB --source NAME [--pid N | --pidfile F | --match PCRE2] "
	    "[--host]\n"
	    "                     [--every 5s] [--for DURATION] [--run ID] [--host-name NAME]\n"
	    "                     [--memory-limit SIZE] [--die-with-parent] [--redact NAMES]\n"
	    "                     [-v] [--help]\n"
	    "\n"
	    "Samples /proc into the samples table of a soak database, one transaction per round.\n"
	    "\n"
	    "  --db DB            the database (created when missing, 0600: $SOAK_FILE_MODE,\n"
	    "                     e.g. 0640, gives another mode)\n"
	    "  --source NAME      samples.source of every row (app, db, host, ...)\n"
	    "  --pid N            the process set is this pid\n"
	    "  --pidfile F        ... the pid in F, re-read every round\n"
	    "  --match PCRE2      ... every process whose /proc/PID/cmdline (NULs read as\n"
	    "                     spaces) matches; all summed; soak-procstat never counts\n"
	    "  --host             host-wide metrics too (or alone)\n"
	    "  --memory-limit SIZE  the process set's configured memory limit (512M, 2G:\n"
	    "                     -Xmx plus overhead, shared_buffers plus backends, a\n"
	    "                     container's limit), recorded each round as mem_limit_kb\n"
	    "  --every DURATION   sampling period (default 5s, at least 100ms)\n"
	    "  --for DURATION     stop after this long (default: until SIGTERM/SIGINT)\n"
	    "  --run ID           samples.run_id / events.run_id (default NULL)\n"
	    "  --host-name NAME   samples.host (default: this machine's hostname)\n"
	    "  --die-with-parent  exit when the parent process goes away\n"
	    "  --redact NAMES     more names whose values are secret (a scenario's redact key):\n"
	    "                     what is stored and logged of --match is redacted with them\n"
	    "  -v, --verbose      log process set changes and rounds on stderr\n"
	    "\n"
	    "process metrics: procs rss_kb pss_kb vsz_kb threads fds cpu_pct user_pct sys_pct\n"
	    "  mem_limit_kb (with --memory-limit)\n"
	    "  majflt_ps ctxsw_vol_ps ctxsw_invol_ps read_bps write_bps (rates need two rounds)\n"
	    "  thr_app_pct thr_jit_pct thr_gc_pct thr_vm_pct: a JVM's CPU by thread class (its\n"
	    "  application, JIT compiler, GC and VM threads, from each thread's schedstat)\n"
	    "  by kind: pss_anon_kb pss_shmem_kb pss_file_kb rss_anon_kb rss_shmem_kb rss_file_kb\n"
	    "  bounds: shmem_mapped_kb (shared memory the set maps) shared_buffers_kb (a\n"
	    "  PostgreSQL postmaster's, from its configuration) heap_max_kb (a JVM's -Xmx)\n"
	    "host metrics: cpu_user_pct cpu_sys_pct cpu_iowait_pct cpu_steal_pct cpu_idle_pct\n"
	    "  load1 load5 load15 mem_used_kb mem_avail_kb swap_used_kb net_rx_bps net_tx_bps\n"
	    "  (all interfaces, lo included) tcp_inuse tcp_tw\n"
	    "events: procs_changed procs_missing procs_found\n"
	    "exit status: 0 stopped, 2 bad usage, 3 database or /proc failure\n");
}

/* Parses an integer option in [lo, hi]. */
static int parse_ll(const char *s, long long lo, long long hi, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return end == s || *end || errno || *v < lo || *v > hi ? -1 : 0;
}

/* An option whose value needs checking (--pid, --every, --for, --run, --host-name,
 * --memory-limit) into s: 0, or EXIT_USAGE after printing why. */
static int value_option(struct sampler *s, int c, const char *arg)
{
	char err[256];
	long long v;
	int64_t n;

	switch (c) {
	case 'p':
		if (parse_ll(arg, 1, 0x7fffffff, &v) < 0) {
			fprintf(stderr, PROG ": bad pid '%s'\n", arg);
			return EXIT_USAGE;
		}
		s->pcfg.mode = PSET_PID;
		s->pcfg.pid = (int)v;
		return 0;
	case 'e':
	case 'F':
		if (dur_parse(arg, &n, err, sizeof err) < 0) {
			fprintf(stderr, PROG ": --%s: %s\n", c == 'e' ? "every" : "for", err);
			return EXIT_USAGE;
		}
		if (c == 'e' && n < MIN_EVERY_MS) {
			fprintf(stderr, PROG ": --every must be at least %dms, not '%s'\n",
			        MIN_EVERY_MS, arg);
			return EXIT_USAGE;
		}
		if (c == 'e')
			s->every_ms = n;
		else
			s->for_ms = n;
		return 0;
	case 'r':
		if (parse_ll(arg, 1, 0x7fffffffffffffffLL, &v) < 0) {
			fprintf(stderr, PROG ": bad run id '%s'\n", arg);
			return EXIT_USAGE;
		}
		s->run_id = v;
		return 0;
	case 'n':
		if (!*arg || strlen(arg) >= sizeof s->host_name) {
			fprintf(stderr, PROG ": bad host name '%s'\n", arg);
			return EXIT_USAGE;
		}
		snprintf(s->host_name, sizeof s->host_name, "%s", arg);
		return 0;
	default: /* 'M' */
		if (dur_size_parse(arg, &n, err, sizeof err) < 0) {
			fprintf(stderr, PROG ": --memory-limit: %s\n", err);
			return EXIT_USAGE;
		}
		s->mem_limit_kb = (n + 1023) / 1024;
		return 0;
	}
}

/* What the options ask for, taken together (sets: process sets given): 0, or EXIT_USAGE
 * after printing why. */
static int check_args(const struct sampler *s, int sets)
{
	if (!s->db_path || !s->source || !*s->source) {
		fprintf(stderr, PROG ": missing %s (see --help)\n",
		        !s->db_path ? "--db" : "--source");
		return EXIT_USAGE;
	}
	if (sets > 1) {
		fprintf(stderr, PROG ": give one of --pid, --pidfile, --match, not several\n");
		return EXIT_USAGE;
	}
	if (s->mem_limit_kb > 0 && sets == 0) {
		fprintf(stderr, PROG
		        ": --memory-limit needs a process set (--pid, --pidfile or --match)\n");
		return EXIT_USAGE;
	}
	if (sets == 0 && !s->want_host) {
		fprintf(stderr,
		        PROG ": nothing to sample: give --pid, --pidfile, --match or --host\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* Parses argv into s; returns 0, or EXIT_USAGE after printing why (or -1 for --help). */
static int parse_args(struct sampler *s, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"source", required_argument, NULL, 's'},
	    {"pid", required_argument, NULL, 'p'},
	    {"pidfile", required_argument, NULL, 'f'},
	    {"match", required_argument, NULL, 'm'},
	    {"host", no_argument, NULL, 'H'},
	    {"every", required_argument, NULL, 'e'},
	    {"for", required_argument, NULL, 'F'},
	    {"run", required_argument, NULL, 'r'},
	    {"host-name", required_argument, NULL, 'n'},
	    {"die-with-parent", no_argument, NULL, 'P'},
	    {"memory-limit", required_argument, NULL, 'M'},
	    {"redact", required_argument, NULL, 'R'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, sets = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			s->db_path = optarg;
			break;
		case 's':
			s->source = optarg;
			break;
		case 'f':
			s->pcfg.mode = PSET_PIDFILE;
			s->pcfg.pidfile = optarg;
			sets++;
			break;
		case 'm':
			s->pcfg.mode = PSET_MATCH;
			s->pcfg.pattern = optarg;
			sets++;
			break;
		case 'H':
			s->want_host = 1;
			break;
		case 'P':
			s->die_with_parent = 1;
			break;
		case 'R':
			if (redact_option(PROG, &s->redact, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'p':
		case 'e':
		case 'F':
		case 'r':
		case 'n':
		case 'M':
			if (value_option(s, c, optarg) != 0)
				return EXIT_USAGE;
			sets += c == 'p';
			break;
		case 'v':
			log_set_level(LOG_INFO);
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return opt_error(PROG, c, argv);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return check_args(s, sets);
}

static int open_db(struct sampler *s, char *err, size_t errlen)
{
	if (db_open(s->db_path, DB_CREATE, &s->db, err, errlen) < 0 ||
	    db_prepare(s->db, &s->ins,
	               "INSERT OR REPLACE INTO samples(source, host, metric, t_ms, value, run_id) "
	               "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	               err, errlen) < 0 ||
	    db_prepare(s->db, &s->ins_ev,
	               "INSERT OR IGNORE INTO events(source, host, kind, t_ms, detail, run_id) "
	               "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	               err, errlen) < 0 ||
	    db_prepare(s->db, &s->taken,
	               "SELECT 1 FROM samples WHERE source = ?1 AND host = ?2 AND metric = ?3 "
	               "AND t_ms = ?4 AND run_id IS NOT ?5",
	               err, errlen) < 0)
		return -1;
	sqlite3_bind_text(s->taken, 1, s->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->taken, 2, s->host_name, -1, SQLITE_STATIC);
	if (s->run_id > 0)
		sqlite3_bind_int64(s->taken, 5, s->run_id);
	/* The strings outlive the statements: bound once, kept across resets. */
	sqlite3_bind_text(s->ins, 1, s->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->ins, 2, s->host_name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->ins_ev, 1, s->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->ins_ev, 2, s->host_name, -1, SQLITE_STATIC);
	if (s->run_id > 0) {
		sqlite3_bind_int64(s->ins, 6, s->run_id);
		sqlite3_bind_int64(s->ins_ev, 6, s->run_id);
	}
	return 0;
}

static int step_reset(sqlite3 *db, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return db_done(db, rc, what, err, errlen);
}

/* A round's time, moved on by a millisecond while another run's collector of the same
 * source and host (side-by-side runs of a study: each has its own app collector) holds
 * that key: the samples' key has no run, and a replaced row would be another run's loss. */
static int64_t free_t_ms(struct sampler *s, int64_t t_ms)
{
	for (int tries = 0; tries < 100 && s->out.n > 0; tries++, t_ms++) {
		int rc;
		sqlite3_bind_text(s->taken, 3, s->out.m[0].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->taken, 4, t_ms);
		rc = sqlite3_step(s->taken);
		sqlite3_reset(s->taken);
		if (rc != SQLITE_ROW)
			break;
	}
	return t_ms;
}

/* One round: sample, then write it all in one transaction. */
static int round_once(struct sampler *s, char *err, size_t errlen)
{
	char detail[PSET_DETAIL_MAX];
	enum pset_event ev;
	int64_t now_ns = clock_mono_ns(), t_ms = clock_wall_ms();

	s->out.n = 0;
	if (pset_sample(&s->ps, now_ns, &s->out, &ev, detail, sizeof detail, err, errlen) < 0)
		return -1;
	if (s->want_host && phost_sample(&s->host, now_ns, &s->out, err, errlen) < 0)
		return -1;
	if (s->mem_limit_kb > 0)
		procfs_add(&s->out, "mem_limit_kb", (double)s->mem_limit_kb);
	if (db_begin(s->db, err, errlen) < 0)
		return -1;
	t_ms = free_t_ms(s, t_ms);
	for (int i = 0; i < s->out.n; i++) {
		sqlite3_bind_text(s->ins, 3, s->out.m[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->ins, 4, t_ms);
		sqlite3_bind_double(s->ins, 5, s->out.m[i].value);
		if (step_reset(s->db, s->ins, "cannot insert a sample", err, errlen) < 0)
			goto fail;
	}
	if (ev != PSET_SAME) {
		/* The detail quotes --match, which may be a command line copied from ps with
		 * its -Ddb.password=... in it: stored and logged redacted (redact.h). */
		char *shown = redact_text(&s->redact, detail);
		int bad;
		log_info("%s: %s", pset_event_kind(ev), shown ? shown : "");
		sqlite3_bind_text(s->ins_ev, 3, pset_event_kind(ev), -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->ins_ev, 4, t_ms);
		sqlite3_bind_text(s->ins_ev, 5, shown ? shown : "", -1, SQLITE_TRANSIENT);
		bad = step_reset(s->db, s->ins_ev, "cannot insert an event", err, errlen) < 0;
		free(shown);
		if (bad)
			goto fail;
	}
	if (db_commit(s->db, err, errlen) < 0)
		return -1;
	s->rounds++;
	return 0;
fail:
	db_rollback(s->db);
	return -1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART keeps SQLite's file I/O whole; the sleep still wakes (nanosleep is
	 * never restarted). */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static const char *set_text(const struct sampler *s, char *buf, size_t len)
{
	switch (s->pcfg.mode) {
	case PSET_PID:
		snprintf(buf, len, "pid %d", s->pcfg.pid);
		break;
	case PSET_PIDFILE:
		snprintf(buf, len, "pidfile '%s'", s->pcfg.pidfile);
		break;
	case PSET_MATCH:
		snprintf(buf, len, "processes matching '%s'", s->pcfg.pattern);
		break;
	default:
		snprintf(buf, len, "no process set");
		break;
	}
	return buf;
}

/* Samples until stopped; returns the exit status. */
static int loop(struct sampler *s)
{
	char err[1024];
	int64_t start = clock_mono_ms(), every = s->every_ms;
	int64_t k = 0;

	for (;;) {
		int64_t due = start + k * every, now;
		if (s->for_ms >= 0 && due - start > s->for_ms)
			break;
		now = clock_mono_ms();
		if (due > now)
			clock_sleep_ms(due - now, &stop_flag);
		if (stop_flag)
			break;
		if (s->die_with_parent && getppid() != s->parent) {
			log_info("parent %d is gone: stopping", (int)s->parent);
			break;
		}
		if (round_once(s, err, sizeof err) < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return EXIT_RUNTIME;
		}
		if (stop_flag)
			break;
		/* A round that overran (a stalled disk) skips the slots it missed rather than
		 * sampling in a burst. */
		now = clock_mono_ms();
		k++;
		if (start + k * every < now)
			k = (now - start) / every + 1;
	}
	log_info("stopped after %lu rounds", s->rounds);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct sampler s;
	char err[1024], what[320];
	int rc;

	memset(&s, 0, sizeof s);
	s.run_id = -1;
	s.every_ms = 5000;
	s.for_ms = -1;
	s.host.fd_stat = s.host.fd_load = s.host.fd_mem = -1;
	s.host.fd_net = s.host.fd_sock = s.host.fd_sock6 = -1;
	s.ps.procfd = -1;
	log_set_prog(PROG);
	rc = parse_args(&s, argc, argv);
	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	if (fmode_check_env(err, sizeof err) < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return EXIT_USAGE;
	}
	if (!s.host_name[0] &&
	    (gethostname(s.host_name, sizeof s.host_name - 1) < 0 || !s.host_name[0]))
		snprintf(s.host_name, sizeof s.host_name, "localhost");

	install_signals();
	if (s.die_with_parent) {
		s.parent = getppid();
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* The parent may have gone before prctl took effect. */
		if (getppid() != s.parent)
			return EXIT_OK;
	}
	s.pcfg.self_name = PROG;
	rc = EXIT_USAGE;
	if (s.pcfg.mode != PSET_NONE && pset_init(&s.ps, &s.pcfg, err, sizeof err) < 0)
		goto fail;
	rc = EXIT_RUNTIME;
	if (s.want_host && phost_init(&s.host, NULL, err, sizeof err) < 0)
		goto fail;
	if (open_db(&s, err, sizeof err) < 0)
		goto fail;
	char *set = redact_text(&s.redact, set_text(&s, what, sizeof what));
	log_info("sampling %s%s as '%s' every %lldms into '%s'", set ? set : "",
	         s.want_host ? " and the host" : "", s.source, (long long)s.every_ms, s.db_path);
	free(set);
	rc = loop(&s);
	goto cleanup;
fail:
	fprintf(stderr, PROG ": %s\n", err);
cleanup:
	sqlite3_finalize(s.ins);
	sqlite3_finalize(s.ins_ev);
	sqlite3_finalize(s.taken);
	db_close(s.db);
	phost_release(&s.host);
	pset_release(&s.ps);
	return rc;
}
