/* procstat_host: the machine-wide metrics of soak-procstat --host (procstat_host.h).
 * Owns the /proc files it opened once; each round re-reads them into fixed buffers, and
 * rates are deltas over the monotonic time between rounds (none in the first). */
#include "procstat_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_in(const char *root, const char *name, int *fd, char *err, size_t errlen)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", root, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int phost_init(struct phost *h, const char *proc_root, char *err, size_t errlen)
{
	const char *root = proc_root ? proc_root : "/proc";

	memset(h, 0, sizeof *h);
	h->fd_stat = h->fd_load = h->fd_mem = h->fd_net = h->fd_sock = h->fd_sock6 = -1;
	h->buf = malloc(PHOST_BUF_SIZE);
	if (!h->buf) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (open_in(root, "stat", &h->fd_stat, err, errlen) < 0 ||
	    open_in(root, "loadavg", &h->fd_load, err, errlen) < 0 ||
	    open_in(root, "meminfo", &h->fd_mem, err, errlen) < 0 ||
	    open_in(root, "net/dev", &h->fd_net, err, errlen) < 0 ||
	    open_in(root, "net/sockstat", &h->fd_sock, err, errlen) < 0)
		goto fail;
	/* A kernel without IPv6 has no sockstat6: then its sockets are simply none. */
	if (open_in(root, "net/sockstat6", &h->fd_sock6, err, errlen) < 0) {
		h->fd_sock6 = -1;
		err[0] = '\0';
	}
	return 0;
fail:
	phost_release(h);
	return -1;
}

void phost_release(struct phost *h)
{
	int *fds[] = {&h->fd_stat, &h->fd_load, &h->fd_mem, &h->fd_net, &h->fd_sock, &h->fd_sock6};

	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(h->buf);
	h->buf = NULL;
}

/* Reads an open file whole; -1 with err naming it. */
static int reread(struct phost *h, int fd, const char *name, char *err, size_t errlen)
{
	if (procfs_pread(fd, h->buf, PHOST_BUF_SIZE, NULL) < 0) {
		snprintf(err, errlen, "cannot read /proc/%s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

static double share(unsigned long long part_now, unsigned long long part_then, double total)
{
	return part_now > part_then ? 100.0 * (double)(part_now - part_then) / total : 0.0;
}

int phost_sample(struct phost *h, int64_t now_ns, struct procfs_out *out, char *err, size_t errlen)
{
	struct procfs_cpu cpu;
	struct procfs_mem mem;
	struct procfs_sock sock = {0, 0};
	unsigned long long rx, tx;
	double load[3], dt = 0;

	if (reread(h, h->fd_stat, "stat", err, errlen) < 0)
		return -1;
	if (procfs_parse_stat(h->buf, &cpu) < 0)
		goto bad_stat;
	if (reread(h, h->fd_load, "loadavg", err, errlen) < 0)
		return -1;
	if (procfs_parse_loadavg(h->buf, load) < 0) {
		snprintf(err, errlen, "cannot parse /proc/loadavg");
		return -1;
	}
	if (reread(h, h->fd_mem, "meminfo", err, errlen) < 0)
		return -1;
	if (procfs_parse_meminfo(h->buf, &mem) < 0) {
		snprintf(err, errlen,
		         "cannot parse /proc/meminfo (no MemAvailable: Linux < 3.14?)");
		return -1;
	}
	if (reread(h, h->fd_net, "net/dev", err, errlen) < 0)
		return -1;
	if (procfs_parse_netdev(h->buf, &rx, &tx) < 0)
		rx = tx = 0; /* no interface at all (a bare namespace): nothing moves */
	if (reread(h, h->fd_sock, "net/sockstat", err, errlen) < 0)
		return -1;
	procfs_parse_sockstat(h->buf, &sock);
	if (h->fd_sock6 >= 0 && reread(h, h->fd_sock6, "net/sockstat6", err, errlen) == 0)
		procfs_parse_sockstat(h->buf, &sock);

	if (h->have_prev && now_ns > h->prev_ns)
		dt = (double)(now_ns - h->prev_ns) / 1e9;
	if (dt > 0 && cpu.total > h->prev_cpu.total) {
		double total = (double)(cpu.total - h->prev_cpu.total);
		procfs_add(out, "cpu_user_pct", share(cpu.user, h->prev_cpu.user, total));
		procfs_add(out, "cpu_sys_pct", share(cpu.sys, h->prev_cpu.sys, total));
		procfs_add(out, "cpu_iowait_pct", share(cpu.iowait, h->prev_cpu.iowait, total));
		procfs_add(out, "cpu_steal_pct", share(cpu.steal, h->prev_cpu.steal, total));
		procfs_add(out, "cpu_idle_pct", share(cpu.idle, h->prev_cpu.idle, total));
	}
	procfs_add(out, "load1", load[0]);
	procfs_add(out, "load5", load[1]);
	procfs_add(out, "load15", load[2]);
	procfs_add(out, "mem_used_kb", (double)(mem.total_kb - mem.avail_kb));
	procfs_add(out, "mem_avail_kb", (double)mem.avail_kb);
	procfs_add(out, "swap_used_kb", (double)(mem.swap_total_kb - mem.swap_free_kb));
	if (dt > 0) {
		/* A counter that went down (an interface removed) gives 0, not a huge rate. */
		procfs_add(out, "net_rx_bps", rx > h->prev_rx ? (double)(rx - h->prev_rx) / dt : 0);
		procfs_add(out, "net_tx_bps", tx > h->prev_tx ? (double)(tx - h->prev_tx) / dt : 0);
	}
	procfs_add(out, "tcp_inuse", (double)sock.tcp_inuse);
	procfs_add(out, "tcp_tw", (double)sock.tcp_tw);

	h->prev_cpu = cpu;
	h->prev_rx = rx;
	h->prev_tx = tx;
	h->prev_ns = now_ns;
	h->have_prev = 1;
	return 0;
bad_stat:
	snprintf(err, errlen, "cannot parse /proc/stat");
	return -1;
}
