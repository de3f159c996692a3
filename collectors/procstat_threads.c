/* procstat_threads: a JVM's CPU by thread class (application, JIT, GC, VM) from each
 * thread's schedstat (procstat_threads.h); a thread's name is read once, its CPU each
 * round, and the classes of one process add up to its CPU. */
#include "procstat_threads.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "procstat_procfs.h"

/* Native thread names (comm: the first 15 bytes) by prefix.  HotSpot (JDK 9 on) names its
 * own threads; OpenJ9 names the JIT's "JIT Compilation Thread-N", "JIT-SamplerThread", its
 * GC's "GC Worker"/"GC Slave" and "Finalizer master". */
static const struct {
	const char *prefix;
	enum pthr_class cls;
} names[] = {
    {"C1 CompilerThre", PTHR_JIT},
    {"C2 CompilerThre", PTHR_JIT},
    {"JVMCI", PTHR_JIT},
    {"Sweeper thread", PTHR_JIT},
    {"JIT", PTHR_JIT},
    {"GC Thread#", PTHR_GC},
    {"GC task thread", PTHR_GC},
    {"GC Worker", PTHR_GC},
    {"GC Slave", PTHR_GC},
    {"G1 ", PTHR_GC},
    {"ZDirector", PTHR_GC},
    {"ZDriver", PTHR_GC},
    {"ZWorker", PTHR_GC},
    {"ZStat", PTHR_GC},
    {"ZUncommitter", PTHR_GC},
    {"ZUnmapper", PTHR_GC},
    {"ZRelocate", PTHR_GC},
    {"ZMarkStack", PTHR_GC},
    {"Shenandoah", PTHR_GC},
    {"Concurrent Mar", PTHR_GC},
    {"CMS ", PTHR_GC},
    {"VM Thread", PTHR_VM},
    {"VM Periodic Tas", PTHR_VM},
    {"Service Thread", PTHR_VM},
    {"Monitor Deflati", PTHR_VM},
    {"Signal Dispatch", PTHR_VM},
    {"Finalizer", PTHR_VM},
    {"Reference Handl", PTHR_VM},
    {"Common-Cleaner", PTHR_VM},
    {"Notification Th", PTHR_VM},
    {"Attach Listener", PTHR_VM},
};

/* Names only a JVM's threads have: a member with one of them is a JVM. */
static int jvm_name(const char *comm)
{
	return strcmp(comm, "VM Thread") == 0 || strncmp(comm, "C2 CompilerThre", 15) == 0 ||
	       strncmp(comm, "C1 CompilerThre", 15) == 0 ||
	       strncmp(comm, "JIT Compilation", 15) == 0;
}

enum pthr_class pthr_class_of(const char *comm)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(comm, names[i].prefix, strlen(names[i].prefix)) == 0)
			return names[i].cls;
	return PTHR_APP;
}

const char *pthr_class_name(enum pthr_class c)
{
	static const char *const n[PTHR_NCLASS] = {"app", "jit", "gc", "vm"};
	return c < PTHR_NCLASS ? n[c] : "app";
}

void pthr_init(struct pthr *t, int procfd, long clk_tck)
{
	memset(t, 0, sizeof *t);
	t->procfd = procfd;
	t->clk_tck = clk_tck > 0 ? clk_tck : 100;
}

void pthr_release(struct pthr *t)
{
	free(t->cur);
	free(t->prev);
	t->cur = t->prev = NULL;
	t->ncur = t->nprev = t->cap = 0;
}

void pthr_begin(struct pthr *t)
{
	t->ncur = 0;
	t->jvms_now = 0;
}

/* Room for one more thread in cur (cur and prev swap, so both grow together: cap is
 * theirs only once both have grown). */
static int room(struct pthr *t)
{
	size_t cap = t->cap;

	if (t->ncur < t->cap)
		return 0;
	if (t->cap >= PTHR_MAX_THREADS)
		return 1;
	if (buf_grow(&t->cur, &cap, t->ncur + 1, sizeof *t->cur, 64) < 0)
		return -1;
	cap = t->cap;
	if (buf_grow(&t->prev, &cap, t->ncur + 1, sizeof *t->prev, 64) < 0)
		return -1;
	t->cap = cap;
	return 0;
}

/* The thread of the last round with this tid, or NULL (prev is sorted by tid). */
static const struct pthr_thread *find(const struct pthr *t, int tid)
{
	size_t lo = 0, hi = t->nprev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->prev[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nprev && t->prev[lo].tid == tid ? &t->prev[lo] : NULL;
}

/* CPU ns of one thread: schedstat's first field, else stat's utime + stime in ticks. */
static int thread_ns(struct pthr *t, int pid, int tid, unsigned long long *ns)
{
	char name[64];
	struct procfs_proc p;

	snprintf(name, sizeof name, "%d/task/%d/schedstat", pid, tid);
	if (procfs_read(t->procfd, name, t->buf, sizeof t->buf, NULL) > 0 &&
	    sscanf(t->buf, "%llu", ns) == 1)
		return 0;
	snprintf(name, sizeof name, "%d/task/%d/stat", pid, tid);
	if (procfs_read(t->procfd, name, t->buf, sizeof t->buf, NULL) <= 0 ||
	    procfs_parse_pid_stat(t->buf, &p) < 0)
		return -1;
	*ns = (p.utime + p.stime) * (1000000000ULL / (unsigned long long)t->clk_tck);
	return 0;
}

/* The class of a thread not seen before, from its comm; *jvm set when the name is a JVM's. */
static enum pthr_class new_class(struct pthr *t, int pid, int tid, int *jvm)
{
	char name[64];
	long n;

	snprintf(name, sizeof name, "%d/task/%d/comm", pid, tid);
	n = procfs_read(t->procfd, name, t->buf, sizeof t->buf, NULL);
	if (n <= 0)
		return PTHR_APP;
	if (t->buf[n - 1] == '\n')
		t->buf[n - 1] = '\0';
	*jvm |= jvm_name(t->buf);
	return pthr_class_of(t->buf);
}

/* Appends thread tid of pid to cur; 0, 1 when gone or no room, -1 out of memory. */
static int add_thread(struct pthr *t, int pid, int tid, int known, int *jvm)
{
	const struct pthr_thread *old = find(t, tid);
	struct pthr_thread *x;
	int rc = room(t);

	if (rc)
		return rc;
	x = &t->cur[t->ncur];
	if (thread_ns(t, pid, tid, &x->ns) < 0)
		return 1;
	x->tid = tid;
	x->pid = pid;
	x->known = (unsigned char)known;
	if (old && old->pid == pid) {
		x->cls = old->cls;
		*jvm = 1; /* a thread kept from the last round: its process was a JVM */
	} else {
		x->cls = (unsigned char)new_class(t, pid, tid, jvm);
	}
	t->ncur++;
	return 0;
}

int pthr_read(struct pthr *t, int pid, int known)
{
	char name[32];
	size_t first = t->ncur;
	struct dirent *de;
	int fd, jvm = 0, rc = 0;
	DIR *d;

	snprintf(name, sizeof name, "%d/task", pid);
	fd = openat(t->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (rc >= 0 && (de = readdir(d)) != NULL)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			rc = add_thread(t, pid, atoi(de->d_name), known, &jvm);
	closedir(d);
	if (rc < 0)
		return -1;
	if (!jvm)
		t->ncur = first; /* not a JVM: its threads are not classed */
	else
		t->jvms_now++;
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	int x = ((const struct pthr_thread *)a)->tid, y = ((const struct pthr_thread *)b)->tid;
	return (x > y) - (x < y);
}

void pthr_finish(struct pthr *t)
{
	struct pthr_thread *tmp;

	memset(t->d, 0, sizeof t->d);
	if (t->ncur > 1)
		qsort(t->cur, t->ncur, sizeof *t->cur, cmp_tid);
	for (size_t i = 0; i < t->ncur; i++) {
		const struct pthr_thread *x = &t->cur[i], *old = find(t, x->tid);
		if (old && old->pid == x->pid && x->ns >= old->ns)
			t->d[x->cls] += x->ns - old->ns;
		else if (!old && x->known)
			t->d[x->cls] += x->ns;
	}
	tmp = t->prev;
	t->prev = t->cur;
	t->cur = tmp;
	t->nprev = t->ncur;
	t->ncur = 0;
	t->jvms = t->jvms_now;
}
