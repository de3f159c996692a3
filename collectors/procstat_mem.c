/* procstat_mem: a process set's memory by kind and the bounds its growth cannot pass
 * (procstat_mem.h): a JVM's -Xmx, PostgreSQL's shared_buffers, read once per process or
 * now and then, never per round. */
#include "procstat_mem.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"

#define PG_BLOCK_KB   8            /* shared_buffers without a unit counts 8 kB pages */
#define PG_DEFAULT_KB (128 * 1024) /* the server's own default when nothing sets it */

/* "256m", "2G", "1048576" (bytes) as the JVM reads a size; -1 when malformed. */
static long long jvm_size_kb(const char *s)
{
	char *end;
	unsigned long long v;
	double mult = 1.0 / 1024;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1024;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1024.0 * 1024;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1024.0 * 1024 * 1024;
		end++;
		break;
	default:
		break;
	}
	return *end ? -1 : (long long)((double)v * mult);
}

long long pmem_jvm_heap_max_kb(const char *raw, size_t len)
{
	long long kb = 0;

	if (!procfs_cmdline_is(raw, len, "java"))
		return 0;
	for (size_t i = 0, n; i < len; i += n + 1) {
		const char *a = raw + i;
		long long v = -1;
		n = strnlen(a, len - i);
		if (n == len - i)
			break; /* cut: the last argument is not whole */
		if (!strncmp(a, "-Xmx", 4))
			v = jvm_size_kb(a + 4);
		else if (!strncmp(a, "-XX:MaxHeapSize=", 16))
			v = jvm_size_kb(a + 16);
		if (v > 0)
			kb = v;
	}
	return kb;
}

int pmem_maps_line(const char *line, struct pmem_seg *s)
{
	unsigned long long lo, hi, off, inode;
	unsigned maj, min;
	char perms[8];

	/* start-end perms offset major:minor inode [path] */
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off, &maj, &min,
	           &inode) != 7)
		return 0;
	/* Shared memory lives on the kernel's anonymous devices (major 0: tmpfs, shmem,
	 * SysV); a shared mapping of a disk file is file-backed memory. */
	if (strlen(perms) != 4 || perms[3] != 's' || maj != 0 || inode == 0 || hi <= lo)
		return 0;
	s->dev = (unsigned long)maj << 20 | min;
	s->inode = inode;
	s->kb = (hi - lo) / 1024;
	return 1;
}

long long pmem_pg_size_kb(const char *value)
{
	static const struct {
		const char *unit;
		double kb;
	} units[] = {{"B", 1.0 / 1024},
	             {"kB", 1},
	             {"MB", 1024},
	             {"GB", 1024.0 * 1024},
	             {"TB", 1024.0 * 1024 * 1024}};
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (end == value || errno || v < 0)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!*end)
		return (long long)(v * PG_BLOCK_KB + 0.5);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(end, units[i].unit))
			return (long long)(v * units[i].kb + 0.5);
	return -1;
}

/* Reads a whole file (at most PMEM_CONF_MAX bytes) into a new NUL-terminated buffer. */
static char *read_all(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;
		/* Room for a byte more and the NUL.  The capacity doubles from 8192 to
		 * PMEM_CONF_MAX, so a file is cut one byte short of that. */
		if (n + 1 >= PMEM_CONF_MAX || buf_grow(&buf, &cap, n + 2, 1, 8192) < 0)
			break;
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* One line of a PostgreSQL configuration: 1 with name (lower case) and value, 0 blank or a
 * comment, -1 malformed.  `name [=] value [# comment]`; a value is quoted ('it''s', with
 * backslash escapes) or a run of characters up to a blank or '#'. */
static int conf_line(const char *s, const char *eol, char *name, size_t nlen, char *val,
                     size_t vlen)
{
	size_t n = 0;

	while (s < eol && isspace((unsigned char)*s))
		s++;
	if (s == eol || *s == '#')
		return 0;
	while (s < eol && (isalnum((unsigned char)*s) || *s == '_' || *s == '.') && n + 1 < nlen)
		name[n++] = (char)tolower((unsigned char)*s++);
	name[n] = '\0';
	if (n == 0)
		return -1;
	while (s < eol && isspace((unsigned char)*s))
		s++;
	if (s < eol && *s == '=')
		s++;
	while (s < eol && isspace((unsigned char)*s))
		s++;
	n = 0;
	if (s < eol && *s == '\'') {
		for (s++; s < eol; s++) {
			if (*s == '\'' && s + 1 < eol && s[1] == '\'')
				s++;
			else if (*s == '\'')
				break;
			else if (*s == '\\' && s + 1 < eol)
				s++;
			if (n + 1 < vlen)
				val[n++] = *s;
		}
		if (s == eol)
			return -1;
	} else {
		while (s < eol && !isspace((unsigned char)*s) && *s != '#' && n + 1 < vlen)
			val[n++] = *s++;
	}
	val[n] = '\0';
	return 1;
}

/* path joined to dir unless it is absolute; a path too long for out becomes "" (no such
 * file). */
static void join(char *out, size_t len, const char *dir, const char *path)
{
	size_t d = path[0] == '/' ? 0 : strlen(dir), p = strlen(path);

	if (d + 1 + p >= len) {
		out[0] = '\0';
		return;
	}
	memcpy(out, dir, d);
	if (d)
		out[d++] = '/';
	memcpy(out + d, path, p + 1);
}

/* The directory part of path ("." when none). */
static void dir_of(char *out, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

static int conf_file(const char *path, int depth, long long *kb);

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* include_dir: the directory's *.conf files (not hidden), in name order. */
static int conf_dir(const char *path, int depth, long long *kb)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char *names[256], file[PATH_MAX];
	size_t n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL && n < sizeof names / sizeof names[0]) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf") != 0)
			continue;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		join(file, sizeof file, path, names[i]);
		conf_file(file, depth, kb);
		free(names[i]);
	}
	return 0;
}

int pmem_pg_conf(const char *text, const char *dir, int depth, long long *kb)
{
	char name[64], val[PATH_MAX], path[PATH_MAX];
	const char *s = text;

	if (depth > PMEM_CONF_DEPTH)
		return -1;
	while (*s) {
		const char *eol = strchr(s, '\n');
		int rc;
		if (!eol)
			eol = s + strlen(s);
		rc = conf_line(s, eol, name, sizeof name, val, sizeof val);
		s = *eol ? eol + 1 : eol;
		if (rc <= 0)
			continue;
		if (!strcmp(name, "shared_buffers")) {
			long long v = pmem_pg_size_kb(val);
			if (v > 0)
				*kb = v;
			continue;
		}
		join(path, sizeof path, dir, val);
		if (!strcmp(name, "include") || !strcmp(name, "include_if_exists"))
			conf_file(path, depth + 1, kb);
		else if (!strcmp(name, "include_dir"))
			conf_dir(path, depth + 1, kb);
	}
	return 0;
}

/* Applies a configuration file; -1 when it cannot be read (a missing include would have
 * stopped the server: nothing more to say here). */
static int conf_file(const char *path, int depth, long long *kb)
{
	char dir[PATH_MAX], *text = read_all(AT_FDCWD, path);
	int rc;

	if (!text)
		return -1;
	dir_of(dir, sizeof dir, path);
	rc = pmem_pg_conf(text, dir, depth, kb);
	free(text);
	return rc;
}

/* The value of short option flag ("-c", "-B") in argument a after argument prev: "-cX", or
 * "-c" then "X"; NULL when a gives none. */
static const char *short_opt(const char *prev, const char *a, const char *flag)
{
	if (!strcmp(prev, flag))
		return a;
	return !strncmp(a, flag, 2) && a[2] ? a + 2 : NULL;
}

/* The value of NAME=VALUE in s for this name (a '-' in s standing for '_'), or NULL. */
static const char *setting(const char *s, const char *name)
{
	size_t k = 0, nl = strlen(name);

	while (k < nl && (s[k] == name[k] || (s[k] == '-' && name[k] == '_')))
		k++;
	return k == nl && s[nl] == '=' ? s + nl + 1 : NULL;
}

/* What a postmaster's argv sets that matters here, in order, the last one winning as in
 * the server: config_file (-c config_file=, --config-file=) and shared_buffers (-B, -c
 * shared_buffers=, --shared-buffers=). */
struct pg_args {
	const char *config_file; /* NULL: the data directory's postgresql.conf */
	long long sb_kb;         /* shared_buffers, KB; -1: not on the command line */
};

static void pg_args(const char *raw, size_t len, struct pg_args *pa)
{
	const char *prev = "";

	pa->config_file = NULL;
	pa->sb_kb = -1;
	for (size_t i = 0; i < len;) {
		const char *a = raw + i, *v, *x;
		size_t n = strnlen(a, len - i);
		if (n == len - i)
			break; /* cut: not a whole argument */
		if ((v = short_opt(prev, a, "-B")) && pmem_pg_size_kb(v) > 0)
			pa->sb_kb = pmem_pg_size_kb(v);
		else if ((v = short_opt(prev, a, "-c")) || (!strncmp(a, "--", 2) && (v = a + 2))) {
			if ((x = setting(v, "config_file")) != NULL)
				pa->config_file = x;
			else if ((x = setting(v, "shared_buffers")) && pmem_pg_size_kb(x) > 0)
				pa->sb_kb = pmem_pg_size_kb(x);
		}
		prev = a;
		i += n + 1;
	}
}

/* A postmaster's shared_buffers in KB, 0 when its configuration cannot be read; its data
 * directory's identity into p.  The postmaster works in its data directory, so
 * /proc/PID/cwd is that directory. */
static long long pg_shared_buffers(int procfd, struct procfs_proc *p, const char *raw, size_t len)
{
	char link[32], data[PATH_MAX], conf[PATH_MAX];
	struct pg_args pa;
	struct stat st;
	long long kb = PG_DEFAULT_KB;
	ssize_t n;

	snprintf(link, sizeof link, "%d/cwd", p->pid);
	n = readlinkat(procfd, link, data, sizeof data - 1);
	if (n <= 0 || data[0] != '/' || fstatat(procfd, link, &st, 0) < 0)
		return 0;
	data[n] = '\0';
	p->pg_dev = (unsigned long long)st.st_dev;
	p->pg_ino = (unsigned long long)st.st_ino;
	pg_args(raw, len, &pa);
	join(conf, sizeof conf, data, pa.config_file ? pa.config_file : "postgresql.conf");
	if (conf_file(conf, 0, &kb) < 0)
		return 0;
	join(conf, sizeof conf, data, "postgresql.auto.conf");
	conf_file(conf, 0, &kb);
	/* The command line outranks the files. */
	return pa.sb_kb > 0 ? pa.sb_kb : kb;
}

void pmem_bounds(int procfd, struct procfs_proc *p, const struct procfs_proc *prev, char *buf,
                 size_t cap)
{
	char name[32];
	long n;
	int cut;

	if (prev) {
		p->heap_max_kb = prev->heap_max_kb;
		p->shared_buffers_kb = prev->shared_buffers_kb;
		p->pg_dev = prev->pg_dev;
		p->pg_ino = prev->pg_ino;
		return;
	}
	p->heap_max_kb = p->shared_buffers_kb = 0;
	p->pg_dev = p->pg_ino = 0;
	snprintf(name, sizeof name, "%d/cmdline", p->pid);
	n = procfs_read(procfd, name, buf, cap, &cut);
	if (n <= 0)
		return;
	p->heap_max_kb = pmem_jvm_heap_max_kb(buf, (size_t)n);
	if (procfs_cmdline_is(buf, (size_t)n, "postgres") ||
	    procfs_cmdline_is(buf, (size_t)n, "postmaster"))
		p->shared_buffers_kb = pg_shared_buffers(procfd, p, buf, (size_t)n);
}

/* Adds a segment to m, once per (dev, inode), at its largest mapped size. */
static void add_seg(struct pmem *m, const struct pmem_seg *s)
{
	for (int i = 0; i < m->nseg; i++)
		if (m->seg[i].dev == s->dev && m->seg[i].inode == s->inode) {
			if (s->kb > m->seg[i].kb)
				m->seg[i].kb = s->kb;
			return;
		}
	if (m->nseg < PMEM_MAX_SEGS)
		m->seg[m->nseg++] = *s;
}

/* The shared segments of one member's maps, read in chunks of cap bytes (a JVM's maps
 * run to hundreds of KB); 0, or -1 when unreadable. */
static int read_maps(struct pmem *m, int procfd, int pid, char *buf, size_t cap)
{
	char name[32];
	size_t have = 0;
	int fd;

	snprintf(name, sizeof name, "%d/maps", pid);
	fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);
		char *s = buf, *eol;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		while ((eol = strchr(s, '\n')) != NULL) {
			struct pmem_seg seg;
			*eol = '\0';
			if (pmem_maps_line(s, &seg))
				add_seg(m, &seg);
			s = eol + 1;
		}
		have -= (size_t)(s - buf);
		if (have == cap - 1)
			have = 0; /* a line longer than the buffer: not a mapping we count */
		memmove(buf, s, have);
	}
	close(fd);
	return 0;
}

void pmem_round(struct pmem *m, int procfd, const struct procfs_proc *cur, size_t n, int fresh,
                char *buf, size_t cap)
{
	if (!fresh && m->round > 0 && m->round < PMEM_REFRESH) {
		m->round++;
		return;
	}
	m->nseg = 0;
	m->have_maps = 0;
	for (size_t i = 0; i < n; i++)
		m->have_maps |= read_maps(m, procfd, cur[i].pid, buf, cap) == 0;
	m->round = 1;
}

/* Whether cur[i] belongs to a cluster an earlier member already counted.  A backend the
 * postmaster has just forked still carries its command line (until it sets its own), so
 * it reads as a postmaster of the same data directory: a cluster's shared_buffers is
 * counted once, not once per process seen in that state. */
static int cluster_counted(const struct procfs_proc *cur, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (cur[j].shared_buffers_kb > 0 && cur[j].pg_dev == cur[i].pg_dev &&
		    cur[j].pg_ino == cur[i].pg_ino)
			return 1;
	return 0;
}

void pmem_emit(const struct pmem *m, const struct procfs_proc *cur, size_t n,
               struct procfs_out *out)
{
	struct procfs_memkind rss = {0}, pss = {0};
	double heap = 0, sb = 0, shm = 0;
	int any_rss = 0, any_pss = 0;

	for (size_t i = 0; i < n; i++) {
		const struct procfs_proc *p = &cur[i];
		if (p->has_rss_k) {
			rss.anon_kb += p->rss_k.anon_kb;
			rss.file_kb += p->rss_k.file_kb;
			rss.shmem_kb += p->rss_k.shmem_kb;
			any_rss = 1;
		}
		if (p->has_pss_k) {
			pss.anon_kb += p->pss_k.anon_kb;
			pss.file_kb += p->pss_k.file_kb;
			pss.shmem_kb += p->pss_k.shmem_kb;
			any_pss = 1;
		}
		heap += (double)p->heap_max_kb;
		if (p->shared_buffers_kb > 0 && !cluster_counted(cur, i))
			sb += (double)p->shared_buffers_kb;
	}
	if (any_pss) {
		procfs_add(out, "pss_anon_kb", (double)pss.anon_kb);
		procfs_add(out, "pss_file_kb", (double)pss.file_kb);
		procfs_add(out, "pss_shmem_kb", (double)pss.shmem_kb);
	}
	if (any_rss) {
		procfs_add(out, "rss_anon_kb", (double)rss.anon_kb);
		procfs_add(out, "rss_file_kb", (double)rss.file_kb);
		procfs_add(out, "rss_shmem_kb", (double)rss.shmem_kb);
	}
	for (int i = 0; i < m->nseg; i++)
		shm += (double)m->seg[i].kb;
	if (m->have_maps)
		procfs_add(out, "shmem_mapped_kb", shm);
	if (sb > 0)
		procfs_add(out, "shared_buffers_kb", sb);
	if (heap > 0)
		procfs_add(out, "heap_max_kb", heap);
}
