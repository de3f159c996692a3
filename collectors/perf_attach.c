/* perf_attach: a JVM's diagnostic command through its attach socket (perf_attach.h).  It
 * owns the trigger file it makes (new, through no link), and removes it whether the JVM
 * answered or not, and no other; it signals a process only when its socket is not there
 * yet, and waits on nothing past the caller's deadline. */
#include "perf_attach.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"

/* The pid the process has in its own namespace (the last of NSpid), else pid. */
static long ns_pid(long pid)
{
	char path[64], line[256];
	long ns = pid;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (!(f = fopen(path, "re")))
		return pid;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "NSpid:", 6)) {
			char *p = strrchr(line, '\t'), *end;
			long v = p ? strtol(p + 1, &end, 10) : 0;
			if (v > 0)
				ns = v;
			break;
		}
	fclose(f);
	return ns;
}

/* The trigger file that makes the JVM listen, in its working directory, else its /tmp:
 * made new (never through a link, never one that is there: /tmp is everyone's), 0 with its
 * path in file; 1 when one is there already (someone else's: left alone); -1: neither. */
static int make_trigger(long pid, long ns, char *file, size_t len)
{
	static const char *const dirs[] = {"cwd", "root/tmp"};
	int there = 0;

	for (int i = 0; i < 2; i++) {
		snprintf(file, len, "/proc/%ld/%s/.attach_pid%ld", pid, dirs[i], ns);
		int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		there |= errno == EEXIST;
	}
	return there ? 1 : -1;
}

/* Makes the JVM open its socket (path) unless it has: SIGQUIT after the trigger file,
 * then waits until the socket is there or the deadline; 0 when it is.  Removes only a
 * trigger it made. */
static int start_listener(long pid, long ns, const char *path, int64_t deadline)
{
	char file[96];
	int up = access(path, F_OK) == 0, made;

	if (up)
		return 0;
	if ((made = make_trigger(pid, ns, file, sizeof file)) < 0)
		return -1;
	if (kill((pid_t)pid, SIGQUIT) == 0)
		while (!(up = access(path, F_OK) == 0) && clock_mono_ms() < deadline)
			clock_sleep_ms(20, NULL);
	if (made == 0)
		unlink(file);
	return up ? 0 : -1;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof a.sun_path)
		return -1;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Protocol 1, "jcmd", then three arguments (the command and two empty ones), each ended
 * by a NUL, as jcmd sends them. */
static int send_request(int fd, const char *command)
{
	char req[512];
	int n = snprintf(req, sizeof req, "1%cjcmd%c%s%c%c%c", 0, 0, command, 0, 0, 0);

	if (n < 0 || (size_t)n >= sizeof req)
		return -1;
	for (int off = 0; off < n;) {
		ssize_t w = write(fd, req + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (int)w;
	}
	return 0;
}

/* Reads the answer until the JVM closes, out[0..len) the text (cut when longer); its
 * size, or -1 when the deadline came first. */
static long read_answer(int fd, char *out, size_t len, int64_t deadline)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - clock_mono_ms();
		char scrap[512];
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		ssize_t r =
		    n + 1 < len ? read(fd, out + n, len - 1 - n) : read(fd, scrap, sizeof scrap);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < len)
			n += (size_t)r;
	}
	out[n] = '\0';
	return (long)n;
}

int jvm_jcmd(long pid, const char *command, int64_t timeout_ms, char *out, size_t len)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;
	long ns = ns_pid(pid);
	char path[96];
	int fd, rc = -1;

	snprintf(out, len, "pid %ld: no attach listener came up", pid);
	snprintf(path, sizeof path, "/proc/%ld/root/tmp/.java_pid%ld", pid, ns);
	if (start_listener(pid, ns, path, deadline) < 0)
		return -1;
	if ((fd = connect_to(path)) < 0 || send_request(fd, command) < 0) {
		snprintf(out, len, "pid %ld: cannot reach its attach socket: %s", pid,
		         strerror(errno));
	} else if (read_answer(fd, out, len, deadline) < 0) {
		snprintf(out, len, "pid %ld: no answer to %s", pid, command);
	} else {
		rc = strncmp(out, "0\n", 2) == 0 ? 0 : -1;
		if (rc == 0)
			memmove(out, out + 2, strlen(out + 2) + 1);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}
