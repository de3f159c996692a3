/* soak-perf: a process set's CPU profile over one measured window, stored in the run's
 * database (the profiles and profile_windows tables).  perf records in segments (its file
 * never grows past one segment's worth), each folded at once into a bounded map; what goes
 * wrong (perf missing, not permitted, no process, no sample) is an event, never a failed run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "dur.h"
#include "exitcode.h"
#include "fmode.h"
#include "log.h"
#include "opt.h"
#include "perf_attach.h"
#include "perf_fold.h"
#include "procinfo.h"
#include "redact.h"

#define PROG        "soak-perf"
#define MAX_PIDS    64     /* processes of a set sampled */
#define MAX_STACKS  20000  /* distinct stacks a window holds in memory */
#define DEFAULT_HZ  99     /* off the 100 Hz of other timers, so they do not beat */
#define DEFAULT_KEEP 400   /* stacks stored per window; the rest in one '[other]' row */

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct perfrun {
	const char *db_path, *source, *pidfile, *match;
	long pid;
	long long run_id;
	int step, hz, keep, die_with_parent;
	int64_t segment_ms;
	pid_t parent;
	struct redact redact;
	char perf[1024];        /* perf's path */
	char dir[64];           /* a private folder for perf's file */
	long pids[MAX_PIDS];    /* the set's processes */
	int npids, jvm;
	int wide;               /* sampling every CPU (root or paranoid <= 0), the set picked out */
	int gone;               /* the set's processes ended before the window did */
	int unready;            /* segments whose perf was stopped before it had set up */
	int64_t from_mono;      /* --from-mono: the window's start (CLOCK_MONOTONIC ms), or 0 */
	int64_t from_ms, to_ms, sampled_ms;
	struct fold_map fold;
	sqlite3 *db;
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: " PROG " --db DB --source NAME --run ID --step K\n"
	        "                 (--pid N | --pidfile F | --match PCRE2) [--hz N]\n"
	        "                 [--from-mono MS] [--segment DURATION] [--keep N]\n"
	        "                 [--redact NAMES] [--die-with-parent] [--help]\n"
	        "\n"
	        "Samples the stacks of a process set with perf (the cpu-clock event, frame\n"
	        "pointers) until SIGTERM or SIGINT, then stores the window's folded stacks in DB:\n"
	        "what soak run starts for a [collect.NAME] section with profile = cpu while a\n"
	        "step's window is measured.  A JVM's frames are named from its JIT's symbol map\n"
	        "(Compiler.perfmap through its attach socket, before each segment is read).\n"
	        "\n"
	        "  --db DB            the run's database\n"
	        "  --source NAME      the source (the collect section's name)\n"
	        "  --run ID           the run; --step K its step\n"
	        "  --pid, --pidfile, --match   the process set, as soak-procstat takes it\n"
	        "  --hz N             samples per second of CPU (default 99)\n"
	        "  --from-mono MS     count samples from this CLOCK_MONOTONIC moment on (the\n"
	        "                     window's start; perf may start earlier; default: at once)\n"
	        "  --segment DURATION perf's file is read and started afresh this often (60s)\n"
	        "  --keep N           stacks stored (most samples first; default 400)\n"
	        "  --redact NAMES     more secret names (a scenario's redact key), for events\n"
	        "  --die-with-parent  stop when the parent process goes away\n");
}

/* A one-line event in the run's database (the report words it). */
static void event(struct perfrun *p, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void event(struct perfrun *p, const char *kind, const char *fmt, ...)
{
	char text[600], *shown;
	sqlite3_stmt *q = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	shown = redact_text(&p->redact, text);
	log_warn("%s: %s", kind, shown ? shown : text);
	if (p->db &&
	    sqlite3_prepare_v2(p->db,
	                       "INSERT INTO events(source, host, t_ms, kind, detail, run_id) "
	                       "VALUES (?, '', ?, ?, ?, ?)",
	                       -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, p->source, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 2, clock_wall_ms());
		sqlite3_bind_text(q, 3, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, shown ? shown : text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q, 5, p->run_id);
		sqlite3_step(q);
	}
	sqlite3_finalize(q);
	free(shown);
}

static int parse_args(struct perfrun *p, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},        {"source", required_argument, NULL, 's'},
	    {"run", required_argument, NULL, 'r'},       {"step", required_argument, NULL, 'k'},
	    {"pid", required_argument, NULL, 'p'},       {"pidfile", required_argument, NULL, 'f'},
	    {"match", required_argument, NULL, 'm'},     {"hz", required_argument, NULL, 'z'},
	    {"segment", required_argument, NULL, 'g'},   {"keep", required_argument, NULL, 'K'},
	    {"redact", required_argument, NULL, 'R'},    {"die-with-parent", no_argument, NULL, 'P'},
	    {"from-mono", required_argument, NULL, 'F'}, {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	char err[200];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'd': p->db_path = optarg; break;
		case 's': p->source = optarg; break;
		case 'r': p->run_id = strtoll(optarg, &end, 10); break;
		case 'k': p->step = (int)strtol(optarg, &end, 10); break;
		case 'p': p->pid = strtol(optarg, &end, 10); break;
		case 'f': p->pidfile = optarg; break;
		case 'm': p->match = optarg; break;
		case 'z': p->hz = (int)strtol(optarg, &end, 10); break;
		case 'K': p->keep = (int)strtol(optarg, &end, 10); break;
		case 'F': p->from_mono = strtoll(optarg, &end, 10); break;
		case 'P': p->die_with_parent = 1; break;
		case 'g':
			if (dur_parse(optarg, &p->segment_ms, err, sizeof err) < 0 || p->segment_ms < 1000) {
				fprintf(stderr, PROG ": --segment: %s\n",
				        p->segment_ms < 1000 ? "at least 1s" : err);
				return EXIT_USAGE;
			}
			break;
		case 'R':
			if (redact_option(PROG, &p->redact, optarg) < 0)
				return EXIT_USAGE;
			break;
		case 'h': usage(stdout); return -1;
		default: return opt_error(PROG, c, argv);
		}
		if (end && (*end || end == optarg)) {
			fprintf(stderr, PROG ": '%s' is not a number\n", optarg);
			return EXIT_USAGE;
		}
	}
	if (!p->db_path || !p->source || p->run_id <= 0 || (!p->pid && !p->pidfile && !p->match) ||
	    p->hz < 1 || p->hz > 10000 || p->keep < 1 || p->from_mono < 0) {
		fprintf(stderr, PROG ": needs --db, --source, --run, a process set, --hz 1..10000\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

/* perf's path ($SOAK_PERF, or `perf` on PATH); 0 when found. */
static int find_perf(struct perfrun *p)
{
	const char *env = getenv("SOAK_PERF"), *path = getenv("PATH");

	if (env && *env) {
		snprintf(p->perf, sizeof p->perf, "%s", env);
		return access(p->perf, X_OK);
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(p->perf, sizeof p->perf, "%.*s/perf", (int)n, n ? path : ".");
		if (access(p->perf, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* Whether this process may sample others: root, or perf_event_paranoid 1 or below. */
static int permitted(int *level)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	*level = 2;
	if (f) {
		if (fscanf(f, "%d", level) != 1)
			*level = 2;
		fclose(f);
	}
	return geteuid() == 0 || *level <= 1;
}

/* Whether to sample every CPU and pick the set's samples out (SOAK_PERF_SCOPE=all, where
 * perf may: root, or perf_event_paranoid 0 or below) rather than the set's tasks (the
 * default).  Measured by bench/profile.sh, neither costs the server less (+4.2 and +5.6 %
 * +-1.5, bench/README.md), and every CPU's sampling is paid once per profiled set. */
static int may_sample_all(void)
{
	const char *scope = getenv("SOAK_PERF_SCOPE");
	int level;

	if (!scope || strcmp(scope, "all"))
		return 0;
	return permitted(&level) && (geteuid() == 0 || level <= 0);
}

/* Runs argv with stdout to out_fd (-1: /dev/null) and stderr to /dev/null; the child's
 * pid, or -1. */
static pid_t spawn(const char *const argv[], int out_fd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dup2(out_fd >= 0 ? out_fd : null, 1);
	dup2(null, 2);
	dup2(null, 0);
	execvp(argv[0], (char *const *)(uintptr_t)argv); /* exec takes them as they are */
	_exit(127);
}

/* Waits for pid at most ms, then kills it; its exit status (or -1). */
/* Waits up to ms for pid; its exit status, minus the signal that ended it, or -SIGKILL
 * when it had to be killed (or -1 when it cannot be waited for). */
static int reap_status(pid_t pid, int64_t ms)
{
	int64_t until = clock_mono_ms() + ms;
	int st;

	while (clock_mono_ms() < until) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
		if (r < 0)
			return -1;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -SIGKILL;
}

static int reap(pid_t pid, int64_t ms)
{
	int rc = reap_status(pid, ms);
	return rc < 0 ? -1 : rc;
}

/* Whether process pid runs a JVM (its executable is java). */
static int is_jvm(long pid)
{
	char path[64], exe[512];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	const char *base = strrchr(exe, '/');
	return !strcmp(base ? base + 1 : exe, "java");
}

/* The JIT's symbol map of every JVM of the set (/tmp/perf-PID.map), as it is now: taken
 * before a segment is read, so the methods compiled during it are named. */
static void jit_maps(const struct perfrun *p)
{
	for (int i = 0; i < p->npids; i++) {
		char said[256];
		if (!is_jvm(p->pids[i]))
			continue;
		if (jvm_jcmd(p->pids[i], "Compiler.perfmap", 10000, said, sizeof said) < 0)
			log_warn("no JIT symbol map of pid %ld: %s", p->pids[i], said);
	}
}

/* The set's pids, comma-separated, into out. */
static void pid_list(const struct perfrun *p, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int i = 0; i < p->npids && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%ld", i ? "," : "", p->pids[i]);
}

/* perf record into DIR/seg.data, of every CPU (p->wide) or of the set's tasks; its pid,
 * or -1. */
static pid_t record(const struct perfrun *p, char *file, size_t len)
{
	char hz[16], pids[MAX_PIDS * 12];

	snprintf(file, len, "%s/seg.data", p->dir);
	snprintf(hz, sizeof hz, "%d", p->hz);
	pid_list(p, pids, sizeof pids);
	/* -B: no build ids gathered at the end (of every binary that ran, with -a) */
	const char *argv[] = {p->perf, "record", "-q", "-B", "-e", "cpu-clock", "-F", hz, "-g",
	                      "-k", "CLOCK_MONOTONIC", "-o", file, "-p", pids, NULL};
	if (p->wide) {
		argv[13] = "-a"; /* every CPU: the set is picked out when the file is read */
		argv[14] = NULL;
	}
	return spawn(argv, -1);
}

/* Whether any process of the set is still there. */
static int set_alive(const struct perfrun *p)
{
	for (int i = 0; i < p->npids; i++)
		if (kill((pid_t)p->pids[i], 0) == 0 || errno == EPERM)
			return 1;
	return 0;
}

/* perf script of the segment's file, each line into the fold; 0, or -1. */
static int fold_file(struct perfrun *p, const char *file)
{
	int fds[2], rc = 0;
	char pids[MAX_PIDS * 12];
	pid_list(p, pids, sizeof pids);
	const char *argv[] = {p->perf, "script", "-i", file, "-F", "comm,tid,time,ip,sym,dso",
	                      "--no-inline", "--pid", pids, NULL};
	pid_t c;
	FILE *f;
	char line[4096];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	c = spawn(argv, fds[1]);
	close(fds[1]);
	if (c < 0 || !(f = fdopen(fds[0], "r"))) {
		close(fds[0]);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (rc == 0 && fold_line(&p->fold, line) < 0)
			rc = -1;
	}
	fclose(f);
	if (fold_end(&p->fold) < 0)
		rc = -1;
	reap(c, 60000);
	return rc;
}

/* How much of [t0, end) lies after from (ms). */
static int64_t span_after(int64_t end, int64_t t0, int64_t from)
{
	int64_t a = t0 > from ? t0 : from;
	return end > a ? end - a : 0;
}

/* One segment: perf records until it is over or a stop comes, then its samples are
 * folded.  1 to go on, 0 when stopped (or the set is gone), -1 when perf cannot run. */
static int segment(struct perfrun *p)
{
	char file[128];
	int64_t t0 = clock_mono_ms(), until = t0 + p->segment_ms;
	pid_t c = record(p, file, sizeof file);
	int st = 0, ended = 0, gone = 0;

	if (c < 0)
		return -1;
	while (!stop_flag && clock_mono_ms() < until && !ended && !gone) {
		if (waitpid(c, &st, WNOHANG) == c)
			ended = 1; /* perf stopped by itself: refused, or the processes exited */
		else if (p->wide && !set_alive(p))
			gone = 1; /* perf of every CPU goes on: the set's end is seen here */
		else if (p->die_with_parent && getppid() != p->parent)
			stop_flag = 1;
		else
			usleep(50000);
	}
	if (!ended) {
		jit_maps(p); /* before perf's file is read: what was compiled meanwhile too */
		kill(c, SIGINT);
		/* perf ends by SIGINT itself only before its handler is set: still loading */
		p->unready += reap_status(c, 20000) == -SIGINT;
	}
	p->sampled_ms += span_after(clock_mono_ms(), t0, p->from_mono);
	if (ended && clock_mono_ms() - t0 < 2000 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
		unlink(file);
		p->gone = !set_alive(p); /* perf found no process: the set ended meanwhile */
		return p->gone ? 0 : -1;
	}
	if (ended)
		jit_maps(p);
	if (fold_file(p, file) < 0)
		log_warn("cannot read perf's samples of a segment");
	unlink(file);
	p->gone = ended || gone || (p->wide && !set_alive(p));
	return stop_flag || p->gone ? 0 : 1;
}

/* The window's row and its stacks, the most sampled first, the rest in one '[other]'. */
static int store(struct perfrun *p, char *err, size_t errlen)
{
	struct fold_entry **v = fold_sorted(&p->fold);
	size_t keep = (size_t)p->keep < p->fold.n ? (size_t)p->keep : p->fold.n;
	int64_t other = p->fold.other;
	char pids[MAX_PIDS * 12] = "";
	sqlite3_stmt *w = NULL, *s = NULL;
	size_t n = 0;
	int rc = -1;

	if (p->fold.n && !v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = keep; i < p->fold.n; i++)
		other += v[i]->count;
	for (int i = 0; i < p->npids && n < sizeof pids; i++)
		n += (size_t)snprintf(pids + n, sizeof pids - n, "%s%ld", i ? "," : "", p->pids[i]);
	if (db_begin(p->db, err, errlen) < 0 ||
	    db_prepare(p->db, &w,
	               "INSERT OR REPLACE INTO profile_windows (run_id, step_idx, source, hz, "
	               "from_ms, to_ms, sampled_ms, samples, stacks, kept, unnamed, jit_unnamed, "
	               "cut, pids, jvm) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	               err, errlen) < 0 ||
	    db_prepare(p->db, &s,
	               "INSERT OR REPLACE INTO profiles (run_id, step_idx, source, stack, samples) "
	               "VALUES (?,?,?,?,?)",
	               err, errlen) < 0)
		goto done;
	int64_t vals[] = {p->run_id, p->step, 0, p->hz, p->from_ms, p->to_ms, p->sampled_ms,
	                  p->fold.samples, (int64_t)(p->fold.n + (p->fold.other > 0)),
	                  (int64_t)keep, p->fold.unnamed, p->fold.jit_unnamed, p->fold.cut};
	for (int i = 0; i < 13; i++)
		if (i != 2)
			sqlite3_bind_int64(w, i + 1, vals[i]);
	sqlite3_bind_text(w, 3, p->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(w, 14, pids, -1, SQLITE_STATIC);
	sqlite3_bind_int(w, 15, p->jvm);
	if (db_done(p->db, sqlite3_step(w), "cannot store the profile", err, errlen) < 0)
		goto done;
	for (size_t i = 0; i <= keep; i++) {
		const char *stack = i < keep ? v[i]->stack : "[other]";
		int64_t count = i < keep ? v[i]->count : other;
		if (i == keep && other == 0)
			break;
		char *shown = redact_text(&p->redact, stack); /* a frame may name anything */
		if (!shown) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, p->run_id);
		sqlite3_bind_int(s, 2, p->step);
		sqlite3_bind_text(s, 3, p->source, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, shown, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 5, count);
		free(shown);
		if (db_done(p->db, sqlite3_step(s), "cannot store the profile", err, errlen) < 0)
			goto done;
	}
	rc = db_commit(p->db, err, errlen);
done:
	sqlite3_finalize(w);
	sqlite3_finalize(s);
	if (rc < 0)
		db_rollback(p->db);
	free(v);
	return rc;
}

/* What keeps perf from sampling, said as an event; 0 when nothing does. */
static int unavailable(struct perfrun *p)
{
	int level;

	if (find_perf(p) < 0) {
		event(p, "profile_unavailable",
		      "perf is not installed: no CPU profile (Debian's package linux-perf)");
		return -1;
	}
	if (!permitted(&level)) {
		event(p, "profile_unavailable",
		      "perf may not sample other processes here: kernel.perf_event_paranoid is %d; "
		      "run soak as root, give it CAP_PERFMON, or set the sysctl to 1 or below",
		      level);
		return -1;
	}
	p->wide = may_sample_all();
	p->npids = proc_set_find(p->pid, p->pidfile, p->match, p->pids, MAX_PIDS, NULL, 0);
	if (p->npids <= 0) {
		event(p, "profile_unavailable", "no process of the set to profile");
		return -1;
	}
	if (p->npids > MAX_PIDS)
		p->npids = MAX_PIDS;
	for (int i = 0; i < p->npids; i++)
		p->jvm |= is_jvm(p->pids[i]);
	return 0;
}

/* Segments until stopped, then the window stored; what went wrong is an event. */
static int profile(struct perfrun *p, char *err, size_t errlen)
{
	int r;

	snprintf(p->dir, sizeof p->dir, "%s/soak-perf.XXXXXX", "/tmp");
	if (!mkdtemp(p->dir)) {
		snprintf(err, errlen, "cannot make a private folder in /tmp: %s", strerror(errno));
		return -1;
	}
	p->from_ms = clock_wall_ms();
	if (p->from_mono > clock_mono_ms())
		p->from_ms += p->from_mono - clock_mono_ms();
	p->fold.from_us = p->from_mono * 1000;
	while ((r = segment(p)) > 0)
		;
	p->to_ms = clock_wall_ms();
	rmdir(p->dir);
	if (r < 0 && p->fold.samples == 0) {
		event(p, "profile_unavailable", "perf could not sample the set (pids %ld...)",
		      p->pids[0]);
		return 0;
	}
	if (p->gone)
		event(p, "profile_process_gone",
		      "the profiled process ended before the window did: its profile covers %.1f s",
		      (double)p->sampled_ms / 1000);
	if (p->fold.samples == 0 && p->unready)
		event(p, "profile_empty",
		      "perf was still starting when the window ended (%.1f s): on a busy machine, "
		      "or the first time it runs, perf takes seconds to load; a longer warm-up or "
		      "window gives it time", (double)p->sampled_ms / 1000);
	else if (p->fold.samples == 0)
		event(p, "profile_empty",
		      "no sample in %.1f s at %d Hz (%lld before the window): the set used almost "
		      "no CPU, or the window is too short for the rate",
		      (double)p->sampled_ms / 1000, p->hz, (long long)p->fold.early);
	else if (p->jvm && p->fold.jit_unnamed * 10 > p->fold.samples)
		event(
		    p, "profile_unnamed",
		    "%lld of %lld samples end in JIT code no symbol map named: start the JVM with "
		    "-XX:+PreserveFramePointer, and run soak-perf as its user or root",
		    (long long)p->fold.jit_unnamed, (long long)p->fold.samples);
	return store(p, err, errlen);
}

int main(int argc, char **argv)
{
	struct perfrun p = {.hz = DEFAULT_HZ, .keep = DEFAULT_KEEP, .segment_ms = 60000};
	char err[512];
	int rc;

	log_set_prog(PROG);
	rc = parse_args(&p, argc, argv);
	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	if (p.die_with_parent) {
		p.parent = getppid();
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != p.parent)
			return EXIT_OK;
	}
	if (fold_init(&p.fold, MAX_STACKS) < 0 ||
	    db_open(p.db_path, DB_CREATE, &p.db, err, sizeof err) < 0) {
		fprintf(stderr, PROG ": %s\n", p.db ? err : "out of memory");
		return EXIT_RUNTIME;
	}
	rc = unavailable(&p) < 0 ? 0 : profile(&p, err, sizeof err);
	if (rc < 0)
		fprintf(stderr, PROG ": %s\n", err);
	fold_release(&p.fold);
	db_close(p.db);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}
