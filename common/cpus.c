/* cpus: CPU sets for placement: the kernel's list syntax, pinning a process and its
 * threads, reading the allowed set back, and how busy a set was (cpus.h).  No state, no
 * allocation: any thread may call them. */
#include "cpus.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cpus_parse(const char *s, cpu_set_t *set, char *err, size_t errlen)
{
	const char *p = s;

	CPU_ZERO(set);
	if (!s || !*s) {
		snprintf(err, errlen, "'': expected a CPU list such as 0, 1-3 or 0,2-3");
		return -1;
	}
	while (*p) {
		char *end;
		long a, b;
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
		}
		while (*p == ' ')
			p++;
		if (a > b || b >= CPU_SETSIZE) {
			snprintf(err, errlen,
			         "'%s': CPUs run from 0 to %d, and a range low to high", s,
			         CPU_SETSIZE - 1);
			return -1;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad;
		} else if (*p) {
			goto bad;
		}
	}
	return 0;
bad:
	snprintf(err, errlen, "'%s': expected a CPU list such as 0, 1-3 or 0,2-3", s);
	return -1;
}

char *cpus_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, e > c ? "%s%d-%d" : "%s%d",
			                      n ? "," : "", c, e);
		c = e;
	}
	return buf;
}

int cpus_disjoint(const cpu_set_t *a, const cpu_set_t *b)
{
	cpu_set_t x;
	CPU_AND(&x, a, b);
	return CPU_COUNT(&x) == 0;
}

int cpus_equal(const cpu_set_t *a, const cpu_set_t *b)
{
	return CPU_EQUAL(a, b);
}

/* Cpus_allowed_list of /proc/PATH/status into *set. */
static int allowed(const char *status, cpu_set_t *set, char *err, size_t errlen)
{
	char line[512];
	FILE *f = fopen(status, "r");
	int rc = -1;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", status, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *v = line + 18;
			while (*v == ' ' || *v == '\t')
				v++;
			v[strcspn(v, "\n")] = '\0';
			rc = cpus_parse(v, set, err, errlen);
			break;
		}
	fclose(f);
	if (rc < 0 && !err[0])
		snprintf(err, errlen, "'%s' has no Cpus_allowed_list", status);
	return rc;
}

int cpus_of(long pid, cpu_set_t *set, char *err, size_t errlen)
{
	char path[64];

	err[0] = '\0';
	if (pid > 0)
		snprintf(path, sizeof path, "/proc/%ld/status", pid);
	else
		snprintf(path, sizeof path, "/proc/self/status");
	return allowed(path, set, err, errlen);
}

int cpus_place(long pid, const cpu_set_t *set, char *err, size_t errlen)
{
	char dir[64], list[CPUS_LIST_MAX], got[CPUS_LIST_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0, n = 0;

	snprintf(dir, sizeof dir, pid > 0 ? "/proc/%ld/task" : "/proc/self/task", pid);
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "process %ld: cannot list its threads: %s", pid,
		         strerror(errno));
		return -1;
	}
	cpus_format(set, list, sizeof list);
	while ((de = readdir(d)) != NULL && rc == 0) {
		char *end, path[96];
		long tid = strtol(de->d_name, &end, 10);
		cpu_set_t now;
		if (*end || tid <= 0)
			continue;
		if (sched_setaffinity((pid_t)tid, sizeof *set, set) < 0) {
			if (errno == ESRCH)
				continue; /* the thread ended */
			snprintf(err, errlen,
			         "cannot place thread %ld of process %ld on CPUs %s: %s", tid, pid,
			         list, strerror(errno));
			rc = -1;
			break;
		}
		snprintf(path, sizeof path, "%s/%ld/status", dir, tid);
		if (allowed(path, &now, err, errlen) < 0) {
			if (errno == ENOENT) {
				err[0] = '\0';
				continue;
			}
			rc = -1;
			break;
		}
		if (!CPU_EQUAL(&now, set)) {
			snprintf(err, errlen,
			         "thread %ld of process %ld may run on CPUs %s, not %s as placed "
			         "(a cgroup or container limits it)",
			         tid, pid, cpus_format(&now, got, sizeof got), list);
			rc = -1;
		}
		n++;
	}
	closedir(d);
	if (rc == 0 && n == 0) {
		snprintf(err, errlen, "process %ld has no threads left to place", pid);
		rc = -1;
	}
	return rc;
}

int cpus_sample(const cpu_set_t *set, struct cpus_stat *out)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "r");

	memset(out, 0, sizeof *out);
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long long v[10] = {0};
		int cpu;
		if (strncmp(line, "cpu", 3) != 0 || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
		           &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5 ||
		    cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, set))
			continue;
		/* user nice system idle iowait irq softirq steal */
		uint64_t busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		out->busy += busy;
		out->total += busy + v[3] + v[4];
	}
	fclose(f);
	return 0;
}

double cpus_busy_pct(const struct cpus_stat *before, const struct cpus_stat *after)
{
	uint64_t t = after->total - before->total;
	if (after->total <= before->total)
		return NAN;
	return 100.0 * (double)(after->busy - before->busy) / (double)t;
}
