/* procstat_procfs: parsers of the /proc texts soak-procstat samples (procstat_procfs.h).
 * They allocate nothing, keep no state and skip lines they do not know, so a newer
 * kernel's extra fields still parse; a missing field they need is -1. */
#include "procstat_procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void procfs_add(struct procfs_out *out, const char *name, double value)
{
	if (out->n >= PROCFS_MAX_METRICS)
		return;
	out->m[out->n].name = name;
	out->m[out->n].value = value;
	out->n++;
}

long procfs_pread(int fd, char *buf, size_t cap, int *cut)
{
	ssize_t n;

	do
		n = pread(fd, buf, cap - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (cut)
		*cut = (size_t)n == cap - 1;
	return (long)n;
}

long procfs_read(int dirfd, const char *name, char *buf, size_t cap, int *cut)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	long n;
	int saved;

	if (fd < 0)
		return -1;
	n = procfs_pread(fd, buf, cap, cut);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

/* Parses an unsigned decimal at *s (leading blanks skipped) and moves *s past it. */
static int next_ull(const char **s, unsigned long long *v)
{
	char *end;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno)
		return -1;
	*s = end;
	return 0;
}

/* Same, for a possibly negative value. */
static int next_ll(const char **s, long long *v)
{
	char *end;

	while (**s == ' ' || **s == '\t')
		(*s)++;
	errno = 0;
	*v = strtoll(*s, &end, 10);
	if (end == *s || errno)
		return -1;
	*s = end;
	return 0;
}

/* Skips n blank-separated fields. */
static int skip_fields(const char **s, int n)
{
	for (int i = 0; i < n; i++) {
		while (**s == ' ')
			(*s)++;
		if (!**s)
			return -1;
		while (**s && **s != ' ')
			(*s)++;
	}
	return 0;
}

int procfs_parse_pid_stat(const char *text, struct procfs_proc *p)
{
	const char *s = text, *close;
	unsigned long long pid, v;
	long long ll;

	if (next_ull(&s, &pid) < 0 || pid > 0x7fffffff)
		return -1;
	/* comm is "(anything)": a name like "a) (b" makes the last ')' the only safe end. */
	close = strrchr(s, ')');
	if (!close || close[1] != ' ')
		return -1;
	p->pid = (int)pid;
	s = close + 2;
	p->state = *s;
	/* fields 3 (state) .. 11 (cminflt) */
	if (!p->state || skip_fields(&s, 9) < 0 || next_ull(&s, &p->majflt) < 0 ||
	    skip_fields(&s, 1) < 0 || next_ull(&s, &p->utime) < 0 || next_ull(&s, &p->stime) < 0 ||
	    skip_fields(&s, 4) < 0 || next_ll(&s, &ll) < 0 || skip_fields(&s, 1) < 0 ||
	    next_ull(&s, &p->start) < 0 || next_ull(&s, &p->vsize) < 0 || next_ull(&s, &v) < 0)
		return -1;
	p->threads = (long)ll;
	p->rss_pages = (long long)v;
	return 0;
}

/* Finds `key` at the start of a line of text and parses the unsigned number after it. */
static int keyed_ull(const char *text, const char *key, unsigned long long *v)
{
	size_t klen = strlen(key);
	const char *s = text;

	while (s && *s) {
		if (strncmp(s, key, klen) == 0) {
			s += klen;
			return next_ull(&s, v);
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return -1;
}

/* The three kinds under these keys: 1 when all are there, else 0 (and *k untouched). */
static int memkind(const char *text, const char *anon, const char *file, const char *shmem,
                   struct procfs_memkind *k)
{
	struct procfs_memkind v;

	if (keyed_ull(text, anon, &v.anon_kb) < 0 || keyed_ull(text, file, &v.file_kb) < 0 ||
	    keyed_ull(text, shmem, &v.shmem_kb) < 0)
		return 0;
	*k = v;
	return 1;
}

int procfs_parse_pid_status(const char *text, struct procfs_proc *p)
{
	if (keyed_ull(text, "voluntary_ctxt_switches:", &p->ctx_vol) < 0 ||
	    keyed_ull(text, "nonvoluntary_ctxt_switches:", &p->ctx_invol) < 0)
		return -1;
	p->has_status = 1;
	p->has_rss_k = memkind(text, "RssAnon:", "RssFile:", "RssShmem:", &p->rss_k);
	return 0;
}

int procfs_parse_pid_io(const char *text, struct procfs_proc *p)
{
	if (keyed_ull(text, "read_bytes:", &p->rd_bytes) < 0 ||
	    keyed_ull(text, "write_bytes:", &p->wr_bytes) < 0)
		return -1;
	p->has_io = 1;
	return 0;
}

int procfs_parse_pid_smaps_rollup(const char *text, struct procfs_proc *p)
{
	if (keyed_ull(text, "Pss:", &p->pss_kb) < 0)
		return -1;
	p->has_pss = 1;
	p->has_pss_k = memkind(text, "Pss_Anon:", "Pss_File:", "Pss_Shmem:", &p->pss_k);
	return 0;
}

int procfs_parse_stat(const char *text, struct procfs_cpu *c)
{
	const char *s = text;
	unsigned long long v[8] = {0};
	int n = 0;

	if (strncmp(s, "cpu ", 4) != 0)
		return -1;
	s += 4;
	/* user nice system idle iowait irq softirq steal [guest guest_nice]; kernels before
	 * 2.6.11 stop after steal's predecessors, so at least four are required. */
	while (n < 8 && next_ull(&s, &v[n]) == 0)
		n++;
	if (n < 4)
		return -1;
	c->user = v[0] + v[1];
	c->sys = v[2] + v[5] + v[6];
	c->idle = v[3];
	c->iowait = v[4];
	c->steal = v[7];
	c->total = c->user + c->sys + c->idle + c->iowait + c->steal;
	return 0;
}

int procfs_parse_meminfo(const char *text, struct procfs_mem *m)
{
	unsigned long long total, avail, st = 0, sf = 0;

	if (keyed_ull(text, "MemTotal:", &total) < 0 ||
	    keyed_ull(text, "MemAvailable:", &avail) < 0)
		return -1;
	/* A kernel without swap support has no Swap lines at all. */
	if (keyed_ull(text, "SwapTotal:", &st) < 0 || keyed_ull(text, "SwapFree:", &sf) < 0)
		st = sf = 0;
	m->total_kb = (long long)total;
	m->avail_kb = (long long)avail;
	m->swap_total_kb = (long long)st;
	m->swap_free_kb = (long long)sf;
	return 0;
}

int procfs_parse_loadavg(const char *text, double load[3])
{
	const char *s = text;
	char *end;

	for (int i = 0; i < 3; i++) {
		errno = 0;
		load[i] = strtod(s, &end);
		if (end == s || errno)
			return -1;
		s = end;
	}
	return 0;
}

/* Finds "label" at a line start, then "key" as a word on that line; parses its value. */
static int line_key_ll(const char *text, const char *label, const char *key, long long *v)
{
	size_t llen = strlen(label), klen = strlen(key);
	const char *s = text;

	while (s && *s) {
		if (strncmp(s, label, llen) == 0) {
			const char *eol = strchr(s, '\n');
			const char *k = s + llen;
			for (;;) {
				k = strstr(k, key);
				if (!k || (eol && k > eol))
					return -1;
				if (k[-1] == ' ' && k[klen] == ' ')
					break;
				k += klen;
			}
			k += klen;
			return next_ll(&k, v);
		}
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return -1;
}

int procfs_parse_sockstat(const char *text, struct procfs_sock *s)
{
	long long v;
	int found = 0;

	if (line_key_ll(text, "TCP:", "inuse", &v) == 0) {
		s->tcp_inuse += v;
		found = 1;
		if (line_key_ll(text, "TCP:", "tw", &v) == 0)
			s->tcp_tw += v;
	}
	if (line_key_ll(text, "TCP6:", "inuse", &v) == 0) {
		s->tcp_inuse += v;
		found = 1;
	}
	return found ? 0 : -1;
}

int procfs_parse_netdev(const char *text, unsigned long long *rx, unsigned long long *tx)
{
	const char *s = text;
	int ifaces = 0;

	*rx = *tx = 0;
	/* Two header lines, then `  name: rx_bytes packets errs drop fifo frame compressed
	 * multicast tx_bytes ...`. */
	while (s && *s) {
		const char *colon = strchr(s, ':'), *eol = strchr(s, '\n');
		unsigned long long r, t;
		if (colon && (!eol || colon < eol)) {
			const char *p = colon + 1;
			if (next_ull(&p, &r) == 0 && skip_fields(&p, 7) == 0 &&
			    next_ull(&p, &t) == 0) {
				*rx += r;
				*tx += t;
				ifaces++;
			}
		}
		s = eol ? eol + 1 : NULL;
	}
	return ifaces > 0 ? 0 : -1;
}

size_t procfs_cmdline_flatten(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
	return len;
}

int procfs_cmdline_is(const char *raw, size_t len, const char *prog)
{
	const char *end = memchr(raw, '\0', len), *base;
	size_t n = end ? (size_t)(end - raw) : len, plen = strlen(prog);

	base = raw;
	for (size_t i = 0; i < n; i++)
		if (raw[i] == '/')
			base = raw + i + 1;
	n -= (size_t)(base - raw);
	return n == plen && memcmp(base, prog, plen) == 0;
}
