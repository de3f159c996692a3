/* procinfo: small facts about processes from /proc (procinfo.h): start time, boot id and
 * boot time, whether a pid is still the process it was.  Read on each call, no state,
 * thread-safe; files are read whole through slurp.h. */
#include "procinfo.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <fcntl.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurp.h"

/* /proc/stat is read up to here: its cpu and intr lines grow with the machine. */
#define STAT_MAX (4 << 20)

/* The first len - 1 bytes of a small /proc file (or a pidfile) into buf, NUL-terminated;
 * its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	size_t n;
	int more;
	char *s = slurp(AT_FDCWD, path, len - 1, &n, &more);

	if (!s)
		return -1;
	memcpy(buf, s, n + 1);
	free(s);
	return (ssize_t)n;
}

/* Field `want` (1-based) of /proc/PID/stat, and the state letter. */
static int stat_field(pid_t pid, int want, long long *v, char *state)
{
	char path[64], buf[1024], *p;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	/* comm may hold spaces and parentheses: fields resume after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	if (state)
		*state = *p;
	for (int f = 3; f < want; f++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*v = strtoll(p, NULL, 10);
	return 0;
}

long long proc_start_ticks(pid_t pid)
{
	long long v;
	return stat_field(pid, 22, &v, NULL) < 0 ? -1 : v;
}

int proc_alive(pid_t pid, long long start_ticks)
{
	long long v;
	char state = 0;
	if (pid <= 0 || stat_field(pid, 22, &v, &state) < 0)
		return 0;
	if (state == 'Z' || state == 'X')
		return 0;
	return start_ticks < 0 || v == start_ticks;
}

void proc_boot_id(char *buf, size_t len)
{
	if (len == 0)
		return;
	if (read_small("/proc/sys/kernel/random/boot_id", buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

long long proc_btime(void)
{
	int more;
	char *s = slurp(AT_FDCWD, "/proc/stat", STAT_MAX, NULL, &more);
	char *p = s ? strstr(s, "\nbtime ") : NULL;
	long long btime = p ? strtoll(p + 7, NULL, 10) : -1;

	free(s);
	return btime;
}

int64_t proc_start_wall_ms(pid_t pid)
{
	long long ticks = proc_start_ticks(pid), btime;
	long hz = sysconf(_SC_CLK_TCK);

	if (ticks < 0 || hz <= 0 || (btime = proc_btime()) < 0)
		return -1;
	return (int64_t)btime * 1000 + (int64_t)ticks * 1000 / hz;
}

ssize_t proc_cmdline(long pid, char *buf, size_t len, int flat)
{
	char path[64];
	ssize_t n, got = 0;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	while (got > 0 && buf[got - 1] == '\0')
		got--;
	for (ssize_t i = 0; i < got && flat; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[got] = '\0';
	return got;
}

/* The parent of a process, or -1. */
static long ppid_of(long pid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (read_small(path, buf, sizeof buf) < 0 || !(p = strstr(buf, "\nPPid:")))
		return -1;
	return strtol(p + 6, NULL, 10);
}

/* Inserts pid into the ascending pids[0..*n) kept to max entries. */
static void keep_lowest(long *pids, int max, int *n, long pid)
{
	int at = *n < max ? *n : max;
	if (at == max && (max == 0 || pid > pids[max - 1]))
		return;
	while (at > 0 && pids[at - 1] > pid) {
		if (at < max)
			pids[at] = pids[at - 1];
		at--;
	}
	if (at < max)
		pids[at] = pid;
	if (*n < max)
		(*n)++;
}

int proc_set_find(long pid, const char *pidfile, const char *pid_match, long *pids, int max,
                  char *err, size_t errlen)
{
	long self = (long)getpid(), up[32];
	int found = 0, kept = 0, ec, nup = 0;
	char *cmd = NULL;
	PCRE2_SIZE off;
	pcre2_code *re = NULL;
	pcre2_match_data *md = NULL;
	DIR *d = NULL;
	struct dirent *de;

	if (pid > 0 || pidfile) {
		char line[64] = "";
		if (pidfile) {
			ssize_t n = read_small(pidfile, line, sizeof line);
			pid = n > 0 ? strtol(line, NULL, 10) : -1;
		}
		if (pid <= 0)
			return 0;
		if (max > 0)
			pids[0] = pid;
		return 1;
	}
	if (!pid_match)
		return 0;
	re = pcre2_compile((PCRE2_SPTR)pid_match, PCRE2_ZERO_TERMINATED, 0, &ec, &off, NULL);
	md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	cmd = malloc(65536);
	if (!re || !md || !cmd) {
		snprintf(err, errlen, "'%s': %s", pid_match,
		         re ? "out of memory" : "a bad pattern");
		found = -1;
		goto done;
	}
	/* This process's ancestors (the shell, a timeout or srun wrapper whose command line
	 * may well carry the pattern) are never its target either. */
	for (long a = ppid_of(self); a > 1 && nup < 32; a = ppid_of(a))
		up[nup++] = a;
	if (!(d = opendir("/proc"))) {
		snprintf(err, errlen, "cannot list /proc");
		found = -1;
		goto done;
	}
	while ((de = readdir(d)) != NULL) {
		char *end;
		long p = strtol(de->d_name, &end, 10);
		ssize_t n;
		int mine = 0;
		if (*end || p <= 0 || p == self || ppid_of(p) == self)
			continue;
		for (int j = 0; j < nup && !mine; j++)
			mine = p == up[j];
		if (mine)
			continue;
		n = proc_cmdline(p, cmd, 65536, 1);
		if (n <= 0 || pcre2_match(re, (PCRE2_SPTR)cmd, (size_t)n, 0, 0, md, NULL) < 0)
			continue;
		found++;
		keep_lowest(pids, max, &kept, p);
	}
done:
	if (d)
		closedir(d);
	free(cmd);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return found;
}
