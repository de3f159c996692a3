/*
 * procfs — reading and parsing the /proc texts soak-procstat samples.
 *
 * Contract: the parsers take one NUL-terminated text as the kernel writes it (the whole
 * file, or at least the lines they need), fill a caller's struct and return 0, or -1 when
 * a field they need is missing or malformed.  They allocate nothing, keep no state and
 * are thread-safe; unknown lines are skipped, so newer kernels that add fields still
 * parse.  procfs_read() reads a whole small file with one read(2) into a caller's buffer.
 * procfs_out is the fixed-size list of (metric, value) pairs a sampling round produces;
 * metric names are string literals (static storage), never copied.
 */
#ifndef SOAK_PROCFS_H
#define SOAK_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* Resident memory of one process by the kind of page, in KB: what only it maps (anonymous:
 * heap, stacks, a JVM's heap), shared memory (tmpfs, SysV and anonymous shared mappings:
 * PostgreSQL's shared buffers), and pages of files (code, mapped files: the kernel can drop
 * them). */
struct procfs_memkind {
	unsigned long long anon_kb;  /* private anonymous memory */
	unsigned long long file_kb;  /* file-backed pages */
	unsigned long long shmem_kb; /* shared memory */
};

/* One process as /proc/PID/{stat,status,io} describe it. */
struct procfs_proc {
	int pid;                      /* the process id (tgid) */
	char state;                   /* R, S, D, Z (zombie: gone for our purposes), ... */
	unsigned long long start;     /* starttime, ticks after boot: pid + start = identity */
	unsigned long long utime;     /* user CPU, clock ticks, all threads */
	unsigned long long stime;     /* system CPU, clock ticks, all threads */
	unsigned long long majflt;    /* major page faults */
	unsigned long long vsize;     /* virtual size, bytes */
	long long rss_pages;          /* resident set, pages */
	long threads;                 /* number of threads */
	unsigned long long ctx_vol;   /* voluntary context switches, summed over threads */
	unsigned long long ctx_invol; /* involuntary context switches, summed over threads */
	unsigned long long rd_bytes;  /* read_bytes of /proc/PID/io (storage reads) */
	unsigned long long wr_bytes;  /* write_bytes of /proc/PID/io (storage writes) */
	long fds;                     /* open file descriptors; -1 when unreadable */
	int has_status;               /* ctx_* are valid */
	int has_io;                   /* rd_bytes/wr_bytes are valid (io is often root-only) */
	unsigned long long pss_kb;    /* proportional set size (smaps_rollup): shared pages
	                               * divided among their users, so a set's sum is honest */
	int has_pss;                  /* pss_kb is valid */
	struct procfs_memkind rss_k;  /* RSS by kind (status RssAnon/RssFile/RssShmem, KB) */
	struct procfs_memkind pss_k;  /* PSS by kind (smaps_rollup Pss_Anon/_File/_Shmem, KB) */
	int has_rss_k;                /* rss_k is valid (Linux 4.5 and later) */
	int has_pss_k;                /* pss_k is valid (Linux 5.9 and later, readable rollup) */
	long long heap_max_kb;        /* a JVM's -Xmx (procstat_mem.c), 0 when none */
	long long shared_buffers_kb;  /* a PostgreSQL postmaster's shared_buffers, 0 when none */
	unsigned long long pg_dev;    /* ... and its data directory's device and inode: the */
	unsigned long long pg_ino;    /* cluster, whose shared_buffers the set counts once */
};

/* The aggregate `cpu` line of /proc/stat, in clock ticks. */
struct procfs_cpu {
	unsigned long long user;   /* user + nice (guest time is already inside) */
	unsigned long long sys;    /* system + irq + softirq */
	unsigned long long idle;   /* idle */
	unsigned long long iowait; /* iowait */
	unsigned long long steal;  /* stolen by the hypervisor */
	unsigned long long total;  /* sum of the above: the whole machine's ticks */
};

/* The lines of /proc/meminfo soak reports, in KB. */
struct procfs_mem {
	long long total_kb;      /* MemTotal */
	long long avail_kb;      /* MemAvailable */
	long long swap_total_kb; /* SwapTotal */
	long long swap_free_kb;  /* SwapFree */
};

/* TCP socket counts of /proc/net/sockstat (+ sockstat6). */
struct procfs_sock {
	long long tcp_inuse; /* TCP (IPv4) + TCP6 sockets in use */
	long long tcp_tw;    /* TIME_WAIT sockets (one count for both families) */
};

#define PROCFS_MAX_METRICS 64

/* One (metric, value) pair of a round. */
struct procfs_metric {
	const char *name; /* a string literal, e.g. "cpu_pct" */
	double value;     /* the value as stored in samples.value */
};

/* The metrics a round produced, in the order they were added. */
struct procfs_out {
	struct procfs_metric m[PROCFS_MAX_METRICS]; /* m[0..n) are valid */
	int n;                                      /* number of valid entries */
};

/* Appends a metric; silently ignores it past PROCFS_MAX_METRICS (a programming error
 * caught by the unit tests, which count every metric). */
void procfs_add(struct procfs_out *out, const char *name, double value);

/*
 * Reads the file `name` relative to directory fd `dirfd` (AT_FDCWD for a path) into
 * buf[0..cap) with one read(2) and NUL-terminates it.  Returns the length, or -1 with
 * errno set.  A file longer than cap - 1 bytes is cut there (the parsers only need the
 * first lines of the large ones); *cut (may be NULL) tells.
 */
long procfs_read(int dirfd, const char *name, char *buf, size_t cap, int *cut);
/* Same for an open file: pread(2) at offset 0, so one fd serves every round. */
long procfs_pread(int fd, char *buf, size_t cap, int *cut);

/* /proc/PID/stat.  comm may hold spaces and parentheses: the fields after it are found
 * from the last ')'. */
int procfs_parse_pid_stat(const char *text, struct procfs_proc *p);
/* /proc/PID/status: voluntary_/nonvoluntary_ctxt_switches; sets has_status.  Also
 * RssAnon, RssFile and RssShmem when all three are there (sets has_rss_k). */
int procfs_parse_pid_status(const char *text, struct procfs_proc *p);
/* /proc/PID/io: read_bytes, write_bytes; sets has_io. */
int procfs_parse_pid_io(const char *text, struct procfs_proc *p);
/* /proc/PID/smaps_rollup: Pss; sets has_pss.  Also Pss_Anon, Pss_File and Pss_Shmem
 * when all three are there (sets has_pss_k). */
int procfs_parse_pid_smaps_rollup(const char *text, struct procfs_proc *p);
/* /proc/stat: the first, aggregate `cpu` line. */
int procfs_parse_stat(const char *text, struct procfs_cpu *c);
/* /proc/meminfo.  SwapTotal/SwapFree may be absent (then 0). */
int procfs_parse_meminfo(const char *text, struct procfs_mem *m);
/* /proc/loadavg: the three load averages. */
int procfs_parse_loadavg(const char *text, double load[3]);
/* /proc/net/sockstat or sockstat6: adds what the text holds to *s (TCP: inuse and tw,
 * TCP6: inuse), so the caller zeroes *s and parses both files. */
int procfs_parse_sockstat(const char *text, struct procfs_sock *s);
/* /proc/net/dev: bytes received and sent summed over every interface, lo included. */
int procfs_parse_netdev(const char *text, unsigned long long *rx, unsigned long long *tx);
/* A /proc/PID/cmdline of len bytes in a buffer of at least len + 1: NULs become spaces,
 * trailing ones are dropped, the result is NUL-terminated.  Returns the new length. */
size_t procfs_cmdline_flatten(char *buf, size_t len);
/* Whether argv[0] of a raw (NUL-separated) cmdline names the program `prog` (its last
 * path component equals prog). */
int procfs_cmdline_is(const char *raw, size_t len, const char *prog);

#endif
