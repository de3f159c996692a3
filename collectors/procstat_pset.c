/* procstat_pset: a process set (a pid, a pidfile's pid, or a pattern's matches) resolved
 * and summed round by round (procstat_pset.h).  A process is its pid and start time; a
 * member enters the rates from its second round, a vanished one leaves them. */
#include "procstat_pset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "re.h"

/* Rounds during which a newly listed process's cmdline is read again every round: a
 * fork's child shows its parent's cmdline until it execs. */
#define YOUNG_ROUNDS 3
/* A non-member's cmdline is read again once every this many rounds (power of two). */
#define RECHECK_EVERY 8
/* Pids listed in an event's detail before "+N more". */
#define DETAIL_PIDS 8

const char *pset_event_kind(enum pset_event ev)
{
	switch (ev) {
	case PSET_CHANGED:
		return "procs_changed";
	case PSET_MISSING:
		return "procs_missing";
	case PSET_FOUND:
		return "procs_found";
	default:
		return "";
	}
}

/* Returns arr grown (doubling from 64, so never past PSET_MAX_PIDS, a power of two) to
 * hold need elements of size elem, updating *cap; arr itself when it is large enough; NULL
 * past PSET_MAX_PIDS or when it cannot grow (arr is then left as it was). */
static void *grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (need > PSET_MAX_PIDS || buf_grow(&arr, cap, need ? need : 1, elem, 64) < 0)
		return NULL;
	return arr;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Reads the pid a pidfile holds: digits with optional blanks around. */
static int read_pidfile(const char *path, int *pid, char *why, size_t whylen)
{
	char buf[64], *end;
	long v;

	if (procfs_read(AT_FDCWD, path, buf, sizeof buf, NULL) < 0) {
		snprintf(why, whylen, "cannot read pidfile '%s': %s", path, strerror(errno));
		return -1;
	}
	errno = 0;
	v = strtol(buf, &end, 10);
	while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
		end++;
	if (end == buf || *end || errno || v <= 0 || v > 0x7fffffff) {
		snprintf(why, whylen, "pidfile '%s' holds no pid", path);
		return -1;
	}
	*pid = (int)v;
	return 0;
}

int pset_init(struct pset *ps, const struct pset_config *cfg, char *err, size_t errlen)
{
	const char *root = cfg->proc_root ? cfg->proc_root : "/proc";
	int pid;
	char why[160];

	memset(ps, 0, sizeof *ps);
	ps->procfd = -1;
	ps->mode = cfg->mode;
	ps->self = (int)getpid();
	ps->clk_tck = sysconf(_SC_CLK_TCK);
	ps->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (ps->clk_tck <= 0)
		ps->clk_tck = 100;
	if (ps->page_kb <= 0)
		ps->page_kb = 4;
	if (cfg->mode == PSET_NONE)
		return 0;
	ps->self_name = dup_or_null(cfg->self_name);
	ps->buf = malloc(PSET_BUF_SIZE);
	if (!ps->buf || (cfg->self_name && !ps->self_name)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	ps->procfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ps->procfd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", root, strerror(errno));
		goto fail;
	}
	{
		struct statfs sf;
		ps->is_procfs = fstatfs(ps->procfd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
	}
	pthr_init(&ps->thr, ps->procfd, ps->clk_tck);
	switch (cfg->mode) {
	case PSET_PID:
		if (cfg->pid <= 0) {
			snprintf(err, errlen, "bad pid %d", cfg->pid);
			goto fail;
		}
		ps->pid = cfg->pid;
		break;
	case PSET_PIDFILE:
		ps->pidfile = strdup(cfg->pidfile);
		if (!ps->pidfile) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		/* Unreadable at start is a usage error; later it just means "not running". */
		if (read_pidfile(ps->pidfile, &pid, err, errlen) < 0)
			goto fail;
		break;
	case PSET_MATCH:
		ps->pattern = strdup(cfg->pattern);
		if (!ps->pattern) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if (!(ps->re = re_compile(cfg->pattern, why, sizeof why))) {
			snprintf(err, errlen, "bad pattern '%s': %s", cfg->pattern, why);
			goto fail;
		}
		ps->md = pcre2_match_data_create_from_pattern(ps->re, NULL);
		if (!ps->md) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		{
			int fd = dup(ps->procfd);
			if (fd >= 0)
				ps->procdir = fdopendir(fd);
			if (!ps->procdir) {
				snprintf(err, errlen, "cannot list '%s': %s", root,
				         strerror(errno));
				if (fd >= 0)
					close(fd);
				goto fail;
			}
		}
		break;
	default:
		snprintf(err, errlen, "no process set given");
		goto fail;
	}
	return 0;
fail:
	pset_release(ps);
	return -1;
}

void pset_release(struct pset *ps)
{
	if (ps->procdir)
		closedir(ps->procdir);
	if (ps->procfd >= 0)
		close(ps->procfd);
	pcre2_match_data_free(ps->md);
	pcre2_code_free(ps->re);
	free(ps->pidfile);
	free(ps->pattern);
	free(ps->self_name);
	free(ps->cur);
	free(ps->prev);
	free(ps->cand);
	free(ps->seen);
	free(ps->seen2);
	free(ps->scan);
	free(ps->buf);
	pthr_release(&ps->thr);
	memset(ps, 0, sizeof *ps);
	ps->procfd = -1;
}

static int add_cand(struct pset *ps, int pid)
{
	int *p = grow(ps->cand, &ps->cand_cap, ps->ncand + 1, sizeof *ps->cand);

	if (!p)
		return -1;
	ps->cand = p;
	ps->cand[ps->ncand++] = pid;
	return 0;
}

/* 1 when pid's command line matches, 0 when not (or it is gone, a kernel thread, us). */
static int cmdline_matches(struct pset *ps, int pid)
{
	char name[32];
	long n;
	int rc;

	snprintf(name, sizeof name, "%d/cmdline", pid);
	n = procfs_read(ps->procfd, name, ps->buf, PSET_CMDLINE_MAX + 1, NULL);
	if (n <= 0)
		return 0;
	/* Another soak-procstat (a sibling collector) has the pattern in its own argv. */
	if (ps->self_name && procfs_cmdline_is(ps->buf, (size_t)n, ps->self_name))
		return 0;
	n = (long)procfs_cmdline_flatten(ps->buf, (size_t)n);
	rc = pcre2_match(ps->re, (PCRE2_SPTR)ps->buf, (PCRE2_SIZE)n, 0, 0, ps->md, NULL);
	return rc >= 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Lists /proc and fills cand with the matching pids, reusing verdicts (see the header). */
static int resolve_match(struct pset *ps, char *err, size_t errlen)
{
	struct dirent *de;
	struct pset_seen *tmp;
	size_t j = 0, k = 0, old_cap;
	int *grown;

	ps->nscan = 0;
	rewinddir(ps->procdir);
	for (;;) {
		const char *s;
		long v = 0;
		errno = 0;
		de = readdir(ps->procdir);
		if (!de)
			break;
		s = de->d_name;
		if (*s < '1' || *s > '9')
			continue;
		for (; *s >= '0' && *s <= '9' && v <= 0x7fffffff; s++)
			v = v * 10 + (*s - '0');
		if (*s || v > 0x7fffffff || (int)v == ps->self)
			continue;
		grown = grow(ps->scan, &ps->scan_cap, ps->nscan + 1, sizeof *ps->scan);
		if (!grown) {
			if (!ps->capped)
				log_warn("cannot track more than %zu processes: the rest are not "
				         "considered",
				         ps->nscan);
			ps->capped = 1;
			break;
		}
		ps->scan = grown;
		ps->scan[ps->nscan++] = (int)v;
	}
	if (!de && errno) {
		snprintf(err, errlen, "cannot list /proc: %s", strerror(errno));
		return -1;
	}
	/* /proc lists in pid order in practice; sorting makes the merge below safe anyway. */
	if (ps->nscan > 1)
		qsort(ps->scan, ps->nscan, sizeof *ps->scan, cmp_int);
	old_cap = ps->seen_cap;
	tmp = grow(ps->seen2, &ps->seen_cap, ps->nscan, sizeof *ps->seen2);
	if (!tmp)
		goto oom;
	ps->seen2 = tmp;
	if (ps->seen_cap != old_cap) {
		tmp = realloc(ps->seen, ps->seen_cap * sizeof *ps->seen);
		if (!tmp)
			goto oom;
		ps->seen = tmp;
	}
	for (size_t i = 0; i < ps->nscan; i++) {
		int pid = ps->scan[i];
		struct pset_seen e = {.pid = pid, .verdict = -1, .age = 0};
		while (j < ps->nseen && ps->seen[j].pid < pid)
			j++;
		if (j < ps->nseen && ps->seen[j].pid == pid) {
			e = ps->seen[j];
			if (e.age < 255)
				e.age++;
		}
		if (e.verdict != 0 || e.age < YOUNG_ROUNDS ||
		    (((unsigned)pid + ps->round) & (RECHECK_EVERY - 1)) == 0)
			e.verdict = (signed char)cmdline_matches(ps, pid);
		ps->seen2[k++] = e;
		if (e.verdict == 1 && add_cand(ps, pid) < 0)
			goto oom;
	}
	tmp = ps->seen;
	ps->seen = ps->seen2;
	ps->seen2 = tmp;
	ps->nseen = k;
	if (ps->ncand == 0)
		snprintf(ps->why_empty, sizeof ps->why_empty, "no process matches '%.100s'",
		         ps->pattern);
	return 0;
oom:
	snprintf(err, errlen, "out of memory listing /proc");
	return -1;
}

/* Counts open fds: st_size of /proc/PID/fd since Linux 6.2 (0 before), else by listing
 * it.  Only procfs gives st_size that meaning: a test's fake tree is listed. */
static long count_fds(struct pset *ps, int pid)
{
	char name[32];
	struct stat st;
	DIR *d;
	struct dirent *de;
	long n = 0;
	int fd;

	snprintf(name, sizeof name, "%d/fd", pid);
	if (ps->is_procfs && fstatat(ps->procfd, name, &st, 0) == 0 && st.st_size > 0)
		return (long)st.st_size;
	fd = openat(ps->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Reads one member; -1 when it is gone (or a zombie). */
static int read_member(struct pset *ps, int pid, struct procfs_proc *p)
{
	char name[32];

	memset(p, 0, sizeof *p);
	p->fds = -1;
	snprintf(name, sizeof name, "%d/stat", pid);
	if (procfs_read(ps->procfd, name, ps->buf, PSET_BUF_SIZE, NULL) <= 0 ||
	    procfs_parse_pid_stat(ps->buf, p) < 0 || p->state == 'Z' || p->state == 'X')
		return -1;
	snprintf(name, sizeof name, "%d/status", pid);
	if (procfs_read(ps->procfd, name, ps->buf, PSET_BUF_SIZE, NULL) > 0)
		procfs_parse_pid_status(ps->buf, p);
	snprintf(name, sizeof name, "%d/io", pid);
	if (procfs_read(ps->procfd, name, ps->buf, PSET_BUF_SIZE, NULL) > 0)
		procfs_parse_pid_io(ps->buf, p);
	/* PSS: RSS summed over processes that share memory (PostgreSQL's backends and its
	 * shared buffers) counts the shared pages once per process. */
	snprintf(name, sizeof name, "%d/smaps_rollup", pid);
	if (procfs_read(ps->procfd, name, ps->buf, PSET_BUF_SIZE, NULL) > 0)
		procfs_parse_pid_smaps_rollup(ps->buf, p);
	p->fds = count_fds(ps, pid);
	return 0;
}

static int same_proc(const struct procfs_proc *a, const struct procfs_proc *b)
{
	return a->pid == b->pid && a->start == b->start;
}

/* The member of prev that is the same process as p, or NULL (binary search by pid). */
static const struct procfs_proc *find_prev(const struct pset *ps, const struct procfs_proc *p)
{
	size_t lo = 0, hi = ps->nprev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->prev[mid].pid < p->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ps->nprev && same_proc(&ps->prev[lo], p) ? &ps->prev[lo] : NULL;
}

/* This round's members' memory bounds and the set's shared segments (procstat_mem.h). */
static void mem_round(struct pset *ps)
{
	int fresh = 0;

	for (size_t i = 0; i < ps->ncur; i++) {
		const struct procfs_proc *q = find_prev(ps, &ps->cur[i]);
		fresh |= q == NULL;
		pmem_bounds(ps->procfd, &ps->cur[i], q, ps->buf, PSET_BUF_SIZE);
	}
	pmem_round(&ps->mem, ps->procfd, ps->cur, ps->ncur, fresh, ps->buf, PSET_BUF_SIZE);
}

static unsigned long long delta(unsigned long long now, unsigned long long before)
{
	return now > before ? now - before : 0;
}

/* Appends " ", pid, ... of the members of a[0..na) that are not in b[0..nb) to d. */
static void list_pids(char *d, size_t len, const struct procfs_proc *a, size_t na,
                      const struct procfs_proc *b, size_t nb)
{
	size_t used = strlen(d), shown = 0, more = 0, j = 0;

	for (size_t i = 0; i < na; i++) {
		while (j < nb && b[j].pid < a[i].pid)
			j++;
		if (j < nb && same_proc(&b[j], &a[i]))
			continue;
		if (shown < DETAIL_PIDS && used + 16 < len) {
			used += (size_t)snprintf(d + used, len - used, " %d", a[i].pid);
			shown++;
		} else {
			more++;
		}
	}
	if (more && used < len)
		snprintf(d + used, len - used, " +%zu more", more);
}

static int sets_differ(const struct pset *ps)
{
	if (ps->ncur != ps->nprev)
		return 1;
	for (size_t i = 0; i < ps->ncur; i++)
		if (!same_proc(&ps->cur[i], &ps->prev[i]))
			return 1;
	return 0;
}

static void describe(struct pset *ps, enum pset_event ev, char *detail, size_t detlen)
{
	size_t used;

	detail[0] = '\0';
	switch (ev) {
	case PSET_CHANGED:
		snprintf(detail, detlen, "%zu -> %zu processes; gone:", ps->nprev, ps->ncur);
		list_pids(detail, detlen, ps->prev, ps->nprev, ps->cur, ps->ncur);
		used = strlen(detail);
		snprintf(detail + used, detlen - used, "; new:");
		list_pids(detail, detlen, ps->cur, ps->ncur, ps->prev, ps->nprev);
		break;
	case PSET_MISSING:
		snprintf(detail, detlen, "%s", ps->why_empty);
		if (ps->nprev) {
			used = strlen(detail);
			snprintf(detail + used, detlen - used, "; gone:");
			list_pids(detail, detlen, ps->prev, ps->nprev, NULL, 0);
		}
		break;
	case PSET_FOUND:
		snprintf(detail, detlen, "%zu processes:", ps->ncur);
		list_pids(detail, detlen, ps->cur, ps->ncur, NULL, 0);
		break;
	default:
		break;
	}
}

/* A JVM's CPU by thread class (procstat_threads.h): thr_app_pct, thr_jit_pct, thr_gc_pct,
 * thr_vm_pct, 100 = one core, when some member is a JVM. */
static void emit_threads(const struct pset *ps, double dt, struct procfs_out *out)
{
	static const char *const key[PTHR_NCLASS] = {"thr_app_pct", "thr_jit_pct", "thr_gc_pct",
	                                             "thr_vm_pct"};

	if (ps->thr.jvms == 0)
		return;
	for (int c = 0; c < PTHR_NCLASS; c++)
		procfs_add(out, key[c], (double)ps->thr.d[c] / 1e7 / dt);
}

/* The threads of the members that are JVMs, classed (a member's thread count says whether
 * to look: a single-threaded process is no JVM). */
static int read_threads(struct pset *ps)
{
	pthr_begin(&ps->thr);
	for (size_t i = 0; i < ps->ncur; i++) {
		const struct procfs_proc *p = &ps->cur[i];
		if (p->threads > 1 && pthr_read(&ps->thr, p->pid, find_prev(ps, p) != NULL) < 0)
			return -1;
	}
	pthr_finish(&ps->thr);
	return 0;
}

/* Appends the set's metrics for this round (cur, against prev over dt seconds). */
static void emit(const struct pset *ps, double dt, struct procfs_out *out)
{
	double rss = 0, vsz = 0, threads = 0, fds = 0, pss = 0;
	unsigned long long du = 0, ds = 0, dv = 0, di = 0, dm = 0, dr = 0, dw = 0;
	int any_fds = 0, any_io = 0, any_status = 0, any_pss = 0;

	/* A counter some member has is reported, as 0 when only new members have it: the
	 * ones nobody can read (io of another user's process) are left out. */

	procfs_add(out, "procs", (double)ps->ncur);
	if (ps->ncur == 0)
		return;
	for (size_t i = 0; i < ps->ncur; i++) {
		const struct procfs_proc *p = &ps->cur[i], *q;
		rss += (double)p->rss_pages * (double)ps->page_kb;
		vsz += (double)p->vsize / 1024.0;
		threads += (double)p->threads;
		if (p->fds >= 0) {
			fds += (double)p->fds;
			any_fds = 1;
		}
		any_status |= p->has_status;
		any_io |= p->has_io;
		if (p->has_pss) {
			pss += (double)p->pss_kb;
			any_pss = 1;
		}
		if (dt <= 0 || (q = find_prev(ps, p)) == NULL)
			continue;
		du += delta(p->utime, q->utime);
		ds += delta(p->stime, q->stime);
		dm += delta(p->majflt, q->majflt);
		if (p->has_status && q->has_status) {
			dv += delta(p->ctx_vol, q->ctx_vol);
			di += delta(p->ctx_invol, q->ctx_invol);
		}
		if (p->has_io && q->has_io) {
			dr += delta(p->rd_bytes, q->rd_bytes);
			dw += delta(p->wr_bytes, q->wr_bytes);
		}
	}
	procfs_add(out, "rss_kb", rss);
	procfs_add(out, "vsz_kb", vsz);
	procfs_add(out, "threads", threads);
	if (any_pss)
		procfs_add(out, "pss_kb", pss);
	if (any_fds)
		procfs_add(out, "fds", fds);
	pmem_emit(&ps->mem, ps->cur, ps->ncur, out);
	if (dt <= 0)
		return;
	{
		double tick_pct = 100.0 / ((double)ps->clk_tck * dt);
		procfs_add(out, "cpu_pct", (double)(du + ds) * tick_pct);
		procfs_add(out, "user_pct", (double)du * tick_pct);
		procfs_add(out, "sys_pct", (double)ds * tick_pct);
	}
	procfs_add(out, "majflt_ps", (double)dm / dt);
	emit_threads(ps, dt, out);
	if (any_status) {
		procfs_add(out, "ctxsw_vol_ps", (double)dv / dt);
		procfs_add(out, "ctxsw_invol_ps", (double)di / dt);
	}
	if (any_io) {
		procfs_add(out, "read_bps", (double)dr / dt);
		procfs_add(out, "write_bps", (double)dw / dt);
	}
}

/* cur and prev swap every round, so both hold at least cap entries: cap is theirs only
 * once both have grown. */
static int grow_members(struct pset *ps, size_t need)
{
	size_t cap = ps->cap;

	if (buf_grow(&ps->cur, &cap, need, sizeof *ps->cur, 16) < 0)
		return -1;
	cap = ps->cap;
	if (buf_grow(&ps->prev, &cap, need, sizeof *ps->prev, 16) < 0)
		return -1;
	ps->cap = cap;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	int x = ((const struct procfs_proc *)a)->pid, y = ((const struct procfs_proc *)b)->pid;
	return (x > y) - (x < y);
}

int pset_sample(struct pset *ps, int64_t now_ns, struct procfs_out *out, enum pset_event *ev,
                char *detail, size_t detlen, char *err, size_t errlen)
{
	struct procfs_proc *tmp;
	double dt = 0;
	int pid;

	*ev = PSET_SAME;
	detail[0] = '\0';
	if (ps->mode == PSET_NONE)
		return 0;
	ps->ncand = 0;
	ps->why_empty[0] = '\0';
	switch (ps->mode) {
	case PSET_PID:
		if (add_cand(ps, ps->pid) < 0)
			goto oom;
		snprintf(ps->why_empty, sizeof ps->why_empty, "pid %d is not running", ps->pid);
		break;
	case PSET_PIDFILE:
		if (read_pidfile(ps->pidfile, &pid, ps->why_empty, sizeof ps->why_empty) == 0) {
			if (add_cand(ps, pid) < 0)
				goto oom;
			snprintf(ps->why_empty, sizeof ps->why_empty,
			         "pid %d of pidfile '%.100s' is not running", pid, ps->pidfile);
		}
		break;
	default:
		if (resolve_match(ps, err, errlen) < 0)
			return -1;
		break;
	}
	if (grow_members(ps, ps->ncand) < 0)
		goto oom;
	ps->ncur = 0;
	for (size_t i = 0; i < ps->ncand; i++)
		if (read_member(ps, ps->cand[i], &ps->cur[ps->ncur]) == 0)
			ps->ncur++;
	if (ps->ncur > 1)
		qsort(ps->cur, ps->ncur, sizeof *ps->cur, cmp_proc);
	mem_round(ps);

	if (ps->have_prev && now_ns > ps->prev_ns)
		dt = (double)(now_ns - ps->prev_ns) / 1e9;
	if (read_threads(ps) < 0)
		goto oom;
	emit(ps, dt, out);

	if (ps->ncur == 0) {
		if (!ps->missing) {
			*ev = PSET_MISSING;
			ps->missing = 1;
		}
	} else if (ps->missing) {
		*ev = PSET_FOUND;
		ps->missing = 0;
	} else if (ps->round > 0 && sets_differ(ps)) {
		*ev = PSET_CHANGED;
	}
	describe(ps, *ev, detail, detlen);

	tmp = ps->prev;
	ps->prev = ps->cur;
	ps->cur = tmp;
	ps->nprev = ps->ncur;
	ps->ncur = 0;
	ps->prev_ns = now_ns;
	ps->have_prev = 1;
	ps->round++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}
