#include "procinfo.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small /proc file into buf (NUL-terminated); returns its length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Field `want` (1-based) of /proc/PID/stat, and the state letter. */
static int stat_field(pid_t pid, int want, long long *v, char *state)
{
	char path[64], buf[1024], *p;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (slurp(path, buf, sizeof buf) < 0)
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
	if (slurp("/proc/sys/kernel/random/boot_id", buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int64_t proc_start_wall_ms(pid_t pid)
{
	char buf[8192], *p;
	long long ticks = proc_start_ticks(pid), btime = -1;
	long hz = sysconf(_SC_CLK_TCK);

	if (ticks < 0 || hz <= 0 || slurp("/proc/stat", buf, sizeof buf) < 0)
		return -1;
	p = strstr(buf, "\nbtime ");
	if (p)
		btime = strtoll(p + 7, NULL, 10);
	if (btime < 0)
		return -1;
	return (int64_t)btime * 1000 + (int64_t)ticks * 1000 / hz;
}
