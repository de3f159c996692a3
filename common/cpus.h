/*
 * cpus — CPU sets for placement: parsing and formatting the kernel's list syntax
 * ("0", "1-3", "0,2-3"), pinning a process and all its threads to a set
 * (sched_setaffinity, which a process's later threads and children inherit), reading a
 * process's Cpus_allowed_list back to check it, and how busy a set of CPUs was between
 * two samples of /proc/stat (all processes together, not only ours).
 *
 * Functions return 0 or -1 with a message in err; they allocate nothing and keep no
 * state, so any thread may call them.
 */
#ifndef SOAK_CPUS_H
#define SOAK_CPUS_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define CPUS_LIST_MAX 256 /* bytes of a formatted list */

/* Parses a list ("0-1,3") into *set; every CPU must be below CPU_SETSIZE.  0, or -1 with
 * "'x': ..." in err. */
int cpus_parse(const char *s, cpu_set_t *set, char *err, size_t errlen);
/* The kernel's list syntax of a set, ranges joined: "0-1,3"; "" for an empty set. */
char *cpus_format(const cpu_set_t *set, char *buf, size_t len);
/* 1 when the two sets share no CPU. */
int cpus_disjoint(const cpu_set_t *a, const cpu_set_t *b);
/* 1 when the sets are equal. */
int cpus_equal(const cpu_set_t *a, const cpu_set_t *b);

/* The CPUs process pid may run on, from /proc/PID/status Cpus_allowed_list (0 = this
 * process).  0, or -1 with err. */
int cpus_of(long pid, cpu_set_t *set, char *err, size_t errlen);
/* Pins process pid (0 = this one) and every thread it has now to set, then reads the
 * process's and each thread's allowed list back: -1 with err when any differs (a cgroup
 * or a container that forbids those CPUs).  Threads that end meanwhile are no error. */
int cpus_place(long pid, const cpu_set_t *set, char *err, size_t errlen);

/* Time counters of a set of CPUs from /proc/stat, summed (USER_HZ ticks). */
struct cpus_stat {
	uint64_t busy;  /* user, nice, system, irq, softirq, steal */
	uint64_t total; /* busy plus idle and iowait */
};
/* Samples the CPUs of set; 0, or -1 when /proc/stat cannot be read. */
int cpus_sample(const cpu_set_t *set, struct cpus_stat *out);
/* Busy share of those CPUs between two samples, in % (NAN when no time passed). */
double cpus_busy_pct(const struct cpus_stat *before, const struct cpus_stat *after);

#endif
