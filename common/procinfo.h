/*
 * procinfo — small facts about processes from /proc, for "is that run's process still
 * alive?" (a pid alone can be reused; pid + start time + boot id cannot).
 * Functions read /proc on each call, keep nothing past the call and are thread-safe.
 */
#ifndef SOAK_PROCINFO_H
#define SOAK_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Start time of a process in clock ticks after boot (/proc/PID/stat field 22); -1 when
 * the process does not exist. */
long long proc_start_ticks(pid_t pid);
/* 1 when the process exists, is not a zombie, and (when start_ticks >= 0) started at
 * start_ticks. */
int proc_alive(pid_t pid, long long start_ticks);
/* /proc/sys/kernel/random/boot_id into buf; "" when unreadable. */
void proc_boot_id(char *buf, size_t len);
/* The boot time in seconds since the epoch (/proc/stat's btime line); -1 when unknown. */
long long proc_btime(void);
/* Wall-clock epoch ms at which the process started; -1 when unknown. */
int64_t proc_start_wall_ms(pid_t pid);

/* /proc/PID/cmdline into buf (NUL-terminated): its arguments separated by NULs as they
 * are, or with the NULs as spaces (flat); its length, or -1. */
ssize_t proc_cmdline(long pid, char *buf, size_t len, int flat);
/* The processes of a set, as a scenario's [collect] names it: a pid, or the pid in a pid
 * file, or every process whose command line matches the PCRE2 pid_match (this process,
 * its ancestors and its own children, the collectors whose command lines carry the same
 * pattern, left out).  Up to max pids into pids[], lowest first; returns how many match in all
 * (which may exceed max), or -1 with err (a bad pattern, /proc unreadable). */
int proc_set_find(long pid, const char *pidfile, const char *pid_match, long *pids, int max,
                  char *err, size_t errlen);

#endif
