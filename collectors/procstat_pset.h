/*
 * pset — a process set of soak-procstat: one pid, the pid in a pidfile, or every process
 * whose command line matches a PCRE2 pattern; sampled round by round and summed.
 *
 * Contract: pset_init() validates the configuration (pattern compiled once with JIT, the
 * pidfile readable) and fills err (lower-case, exit-status-2 material) on failure.  Each
 * pset_sample() re-resolves the set (the pidfile is re-read; /proc is re-listed for a
 * pattern), reads /proc/PID/{stat,status,io,fd} of the members only, and appends the
 * set's metrics to a procfs_out.  Rates (CPU, context switches, faults, I/O) are deltas
 * against the previous round over the monotonic time between the rounds: a member enters
 * them from its second round on (a new process never spikes), a vanished one is dropped.
 * A process is identified by pid and start time, so a pid reused by a restart is a new
 * member.  Changes of the set come back as a pset_event with a one-line detail.
 *
 * Cost: members are read every round; for a pattern, /proc is listed every round but a
 * process's command line is read when it is new, for its first rounds (to catch an exec
 * after fork), every round while it is a member, and otherwise once every 8 rounds
 * (staggered by pid).  All buffers are allocated once and reused; counts are capped at
 * PSET_MAX_PIDS processes.  Not thread-safe: one pset belongs to one thread.
 */
#ifndef SOAK_PSET_H
#define SOAK_PSET_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "procstat_procfs.h"
#include "procstat_threads.h"

#define PSET_MAX_PIDS    (1 << 22) /* pid_max's largest value: no machine has more */
#define PSET_CMDLINE_MAX 4096      /* the pattern sees the first 4 KB of a command line */
#define PSET_DETAIL_MAX  512       /* an event's detail, pid lists cut to fit */
#define PSET_BUF_SIZE    16384     /* /proc/PID/status is ~1.5 KB; cmdline is cut at 4 KB */

enum pset_mode {
	PSET_NONE = 0, /* no process set (host metrics only) */
	PSET_PID,      /* one fixed pid */
	PSET_PIDFILE,  /* the pid in a file, re-read each round */
	PSET_MATCH,    /* every process whose cmdline matches a pattern */
};

enum pset_event {
	PSET_SAME = 0, /* nothing to record */
	PSET_CHANGED,  /* members came or went (a restart, a new backend) */
	PSET_MISSING,  /* no member any more (recorded once until they come back) */
	PSET_FOUND,    /* members again after PSET_MISSING */
};

/* What pset_init needs; strings are copied. */
struct pset_config {
	enum pset_mode mode;   /* which kind of set */
	int pid;               /* PSET_PID: the pid */
	const char *pidfile;   /* PSET_PIDFILE: the file */
	const char *pattern;   /* PSET_MATCH: PCRE2 over the cmdline, NULs read as spaces */
	const char *proc_root; /* "/proc" (NULL means that); tests use a fake tree */
	const char *self_name; /* argv[0] basename never to count (our own program), or NULL */
};

/* Match verdict cache entry of one listed pid (PSET_MATCH). */
struct pset_seen {
	int pid;             /* the pid */
	signed char verdict; /* 1 member, 0 not, -1 not yet known */
	unsigned char age;   /* rounds since first listed, saturating at 255 */
};

struct pset {
	enum pset_mode mode;      /* from the config */
	int pid;                  /* PSET_PID: the pid */
	char *pidfile;            /* PSET_PIDFILE: owned copy */
	char *pattern;            /* PSET_MATCH: owned copy, for messages */
	pcre2_code *re;           /* PSET_MATCH: compiled (and JIT-compiled when possible) */
	pcre2_match_data *md;     /* PSET_MATCH: reused for every match */
	char *self_name;          /* owned copy of config.self_name, or NULL */
	int self;                 /* our own pid: never a member */
	int procfd;               /* the /proc directory, open for the whole life */
	int is_procfs;            /* procfd is a real procfs (not a test's fake tree) */
	DIR *procdir;             /* PSET_MATCH: listing over a dup of procfd, rewound each round */
	long clk_tck;             /* clock ticks per second (sysconf) */
	long page_kb;             /* page size in KB */
	struct procfs_proc *cur;  /* this round's members, sorted by pid */
	struct procfs_proc *prev; /* the previous round's members, sorted by pid */
	size_t ncur, nprev;       /* members in cur / prev */
	size_t cap;               /* allocated entries of cur and of prev (each) */
	int *cand;                /* this round's candidate pids, sorted */
	size_t ncand, cand_cap;   /* used / allocated entries of cand */
	struct pset_seen *seen;   /* PSET_MATCH: verdicts of the last listing, sorted */
	struct pset_seen *seen2;  /* PSET_MATCH: the next listing, built then swapped */
	size_t nseen, seen_cap;   /* used / allocated entries of seen (and of seen2) */
	int *scan;                /* PSET_MATCH: pids of this round's /proc listing */
	size_t nscan, scan_cap;   /* used / allocated entries of scan */
	char *buf;                /* read buffer for /proc files, PSET_BUF_SIZE bytes */
	struct pthr thr;          /* the members' threads by class, where they are JVMs */
	int64_t prev_ns;          /* monotonic time of the previous round */
	int have_prev;            /* a previous round exists (rates can be computed) */
	int missing;              /* procs_missing recorded, procs_found not yet */
	int capped;               /* the PSET_MAX_PIDS warning was given */
	unsigned round;           /* rounds sampled so far */
	char why_empty[160];      /* why the last resolution found nothing (for details) */
};

int pset_init(struct pset *ps, const struct pset_config *cfg, char *err, size_t errlen);
/*
 * One round at monotonic time now_ns: resolves the set, reads its members and appends
 * the metrics to out (only `procs` = 0 when the set is empty).  *ev gets what changed and
 * detail (PSET_DETAIL_MAX bytes or fewer) says it in one line.  Returns 0, or -1 with err
 * filled when /proc itself cannot be read or memory runs out.
 */
int pset_sample(struct pset *ps, int64_t now_ns, struct procfs_out *out, enum pset_event *ev,
                char *detail, size_t detlen, char *err, size_t errlen);
/* Releases everything pset_init acquired; a zeroed or released pset is fine. */
void pset_release(struct pset *ps);
/* The event kind stored in events.kind: procs_changed, procs_missing, procs_found. */
const char *pset_event_kind(enum pset_event ev);

#endif
