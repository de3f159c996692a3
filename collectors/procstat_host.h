/*
 * phost (procstat's host) — the machine-wide metrics of soak-procstat --host: CPU split
 * of all cores, load, memory, swap, network bytes and TCP socket counts.
 *
 * Contract: phost_init() opens /proc/stat, /proc/loadavg, /proc/meminfo, /proc/net/dev,
 * /proc/net/sockstat and /proc/net/sockstat6 once (the last may be missing: no IPv6); each
 * phost_sample() re-reads them with one pread(2) apiece into a fixed buffer and appends the
 * metrics to a procfs_out.  CPU shares and network rates are deltas against the previous
 * round over the monotonic time between the rounds, so the first round has only the
 * gauges.  Network bytes include lo: the systems under test listen on 127.0.0.1.
 * The /proc/net files describe the network namespace of this process.  Not thread-safe.
 */
#ifndef SOAK_PHOST_H
#define SOAK_PHOST_H

#include <stddef.h>
#include <stdint.h>

#include "procstat_procfs.h"

#define PHOST_BUF_SIZE 65536 /* /proc/net/dev with a few hundred interfaces */

struct phost {
	int fd_stat;                /* /proc/stat */
	int fd_load;                /* /proc/loadavg */
	int fd_mem;                 /* /proc/meminfo */
	int fd_net;                 /* /proc/net/dev */
	int fd_sock;                /* /proc/net/sockstat */
	int fd_sock6;               /* /proc/net/sockstat6, or -1 without IPv6 */
	struct procfs_cpu prev_cpu; /* the previous round's CPU ticks */
	unsigned long long prev_rx; /* the previous round's received bytes, all interfaces */
	unsigned long long prev_tx; /* the previous round's sent bytes, all interfaces */
	int64_t prev_ns;            /* monotonic time of the previous round */
	int have_prev;              /* prev_* are valid */
	char *buf;                  /* read buffer, PHOST_BUF_SIZE bytes */
};

/* proc_root is "/proc" (NULL means that); tests point it at a fake tree. */
int phost_init(struct phost *h, const char *proc_root, char *err, size_t errlen);
/* One round at monotonic time now_ns; -1 with err when a file no longer parses. */
int phost_sample(struct phost *h, int64_t now_ns, struct procfs_out *out, char *err, size_t errlen);
/* Closes and frees; a zeroed-then-released or released host is fine. */
void phost_release(struct phost *h);

#endif
