/*
 * procstat_threads — a process set's CPU by what its threads do: a JVM's JIT compiler, its
 * garbage collector and its VM threads apart from the application's own, so that a report
 * can tell when warm-up ends (the JIT goes quiet) and what a request costs the
 * application once it has.
 *
 * Each round the threads of every member that is a JVM are read from
 * /proc/PID/task/TID/schedstat (CPU in nanoseconds; task/TID/stat's ticks where schedstat
 * is missing) and classed by their native name (task/TID/comm, read once per thread):
 * pthr_class_of() holds the names of HotSpot's and OpenJ9's threads.  A member is a JVM
 * when one of its threads has a JVM's own name (VM Thread, a compiler or GC thread).
 *
 * Deltas are per thread (a thread is known by its tid and its process), so
 * threads that come and go (HotSpot starts and stops compiler threads) never make a class
 * go backwards; a thread that appears in a member already seen counts from its start; the
 * threads of a member seen for the first time enter from its second round (no spike).
 * The last moments of a thread that exits between two rounds are in the process's total
 * (cpu_pct) only.
 *
 * Contract: one pthr belongs to one pset (one thread); its tables grow to the most threads
 * seen at once, capped at PTHR_MAX_THREADS (past it a round's extra threads are skipped).
 * Reads only: never signals, attaches to or pauses the target.
 */
#ifndef SOAK_PROCSTAT_THREADS_H
#define SOAK_PROCSTAT_THREADS_H

#include <stddef.h>

#define PTHR_MAX_THREADS (1 << 16) /* threads of one set's JVMs followed in a round */

enum pthr_class {
	PTHR_APP, /* the application's threads (and every name not below) */
	PTHR_JIT, /* JIT compiler threads: C1/C2 CompilerThread, JVMCI, OpenJ9's JIT */
	PTHR_GC,  /* garbage collector: GC Thread#N, G1 ..., ZGC, Shenandoah, CMS */
	PTHR_VM,  /* the VM's own: VM Thread, periodic task, service, signal, finalizer */
	PTHR_NCLASS,
};

/* One thread as last read. */
struct pthr_thread {
	int tid;               /* its id (unique on the machine while it lives) */
	int pid;               /* its process */
	unsigned char cls;     /* enum pthr_class */
	unsigned char known;   /* its process was a member in the last round: a thread new
	                        * this round counts from its start */
	unsigned long long ns; /* CPU used since it started, ns */
};

struct pthr {
	int procfd;                        /* the /proc directory (the pset's; not owned) */
	long clk_tck;                      /* ticks per second, for the stat fallback */
	struct pthr_thread *cur;           /* this round's threads, sorted by tid once finished */
	struct pthr_thread *prev;          /* the last round's, sorted by tid */
	size_t ncur, nprev, cap;           /* entries, and the room of each of cur and prev */
	unsigned long long d[PTHR_NCLASS]; /* the last finished round's CPU by class, ns */
	int jvms;                          /* members of the last finished round that are JVMs */
	int jvms_now;                      /* ... of the round being read */
	char buf[512];                     /* one small /proc file */
};

/* The class of a thread from its native name (comm, at most 15 bytes). */
enum pthr_class pthr_class_of(const char *comm);
/* "app", "jit", "gc", "vm". */
const char *pthr_class_name(enum pthr_class c);

void pthr_init(struct pthr *t, int procfd, long clk_tck);
void pthr_release(struct pthr *t);
/* Starts a round. */
void pthr_begin(struct pthr *t);
/* Reads member pid's threads into the round when it is a JVM; known: the member was in
 * the last round (its new threads count from their start).  0, or -1 out of memory. */
int pthr_read(struct pthr *t, int pid, int known);
/* Ends the round: t->d gets each class's CPU since the last round, t->jvms the JVMs. */
void pthr_finish(struct pthr *t);

#endif
