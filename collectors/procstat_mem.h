/*
 * pmem — soak-procstat's memory by kind: what of a process set's memory is private,
 * shared or file-backed, and the bounds that shared and heap growth cannot pass.
 *
 * A set's members are read by pset (procstat_pset.c), whose parsers fill each member's
 * RSS and PSS by kind (procfs_parse_pid_status, procfs_parse_pid_smaps_rollup).  This
 * module adds what only needs reading once per process or once in a while:
 *   - a JVM's maximum heap, from its command line (-Xmx, -XX:MaxHeapSize=; the last wins,
 *     as in the JVM), read when the process enters the set;
 *   - a PostgreSQL postmaster's shared_buffers, from its configuration as the server reads
 *     it (the data directory's postgresql.conf or -c config_file, include, include_if_exists,
 *     include_dir, postgresql.auto.conf, then -B and -c shared_buffers= of its command line;
 *     the last setting wins; 128MB when none is set), read when it enters the set;
 *   - the size of the shared memory the set maps (distinct segments of /proc/PID/maps that
 *     are shared and live on an anonymous device: SysV, POSIX and anonymous shared memory,
 *     tmpfs), which no shared resident memory can exceed; re-read when a member is new and
 *     every PMEM_REFRESH rounds.
 * pmem_emit appends the set's metrics: pss_{anon,file,shmem}_kb (summed PSS: honest where
 * processes share), rss_{anon,file,shmem}_kb (summed RSS: shared pages counted once per
 * process), shmem_mapped_kb, shared_buffers_kb (once per cluster, its data directory: a
 * backend just forked still reads as its postmaster) and heap_max_kb (summed over the
 * members that have one).  Anything the kernel or the permissions do not give is left out.
 *
 * Nothing here allocates but the configuration reader (a file at a time, at most
 * PMEM_CONF_MAX bytes); a pmem belongs to one pset and one thread.
 */
#ifndef SOAK_PMEM_H
#define SOAK_PMEM_H

#include <stddef.h>

#include "procstat_procfs.h"

#define PMEM_MAX_SEGS   256     /* distinct shared segments counted; more are left out */
#define PMEM_REFRESH    12      /* rounds between two readings of the members' maps */
#define PMEM_CONF_MAX   1048576 /* one configuration file is read up to this size */
#define PMEM_CONF_DEPTH 10      /* include nesting, as PostgreSQL allows */

/* One shared memory segment: a mapping's identity and size. */
struct pmem_seg {
	unsigned long dev;        /* device (major << 20 | minor; major is 0 for these) */
	unsigned long long inode; /* inode of the segment */
	unsigned long long kb;    /* mapped size, KB */
};

/* The shared segments of a set, kept between rounds. */
struct pmem {
	struct pmem_seg seg[PMEM_MAX_SEGS]; /* distinct segments, seg[0..nseg) */
	int nseg;                           /* how many */
	int have_maps;                      /* some member's maps were readable */
	unsigned round;                     /* rounds since the last reading */
};

/*
 * A member's bounds: copied from prev (the same process last round) when given, else read
 * (cmdline, and for a postmaster its configuration) through procfd with buf[0..cap) as
 * scratch.  Sets p->heap_max_kb and p->shared_buffers_kb (0: none).
 */
void pmem_bounds(int procfd, struct procfs_proc *p, const struct procfs_proc *prev, char *buf,
                 size_t cap);
/* Re-reads the members' maps when fresh is set (a member is new) or every PMEM_REFRESH
 * rounds. */
void pmem_round(struct pmem *m, int procfd, const struct procfs_proc *cur, size_t n, int fresh,
                char *buf, size_t cap);
/* Appends the set's memory-by-kind metrics (see above) for members cur[0..n). */
void pmem_emit(const struct pmem *m, const struct procfs_proc *cur, size_t n,
               struct procfs_out *out);

/* The parsers, on text (exposed for the tests). */
/* A JVM's maximum heap in KB from a raw (NUL-separated) command line, 0 when not a JVM
 * (argv[0] is not `java`) or none is given. */
long long pmem_jvm_heap_max_kb(const char *raw, size_t len);
/* One line of /proc/PID/maps: 1 and *s filled when it maps shared memory, else 0. */
int pmem_maps_line(const char *line, struct pmem_seg *s);
/* A PostgreSQL memory setting in KB ("128MB", "0.5GB", "16384" in 8 kB pages), -1 when
 * malformed. */
long long pmem_pg_size_kb(const char *value);
/* Applies one configuration file's text to *kb (the last shared_buffers wins); includes
 * are read relative to dir (the file's own directory) at depth + 1.  Returns 0, or -1 when
 * the text cannot be read as a configuration. */
int pmem_pg_conf(const char *text, const char *dir, int depth, long long *kb);

#endif
