/* log: leveled diagnostics on stderr, one write(2) a line so threads never interleave
 * (log.h).  The level is set before threads exist; data never goes through here. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Set once at start-up, before threads; read-only afterwards. */
static enum log_level log_threshold = LOG_WARN;
static const char *log_prog = "soak";

void log_set_level(enum log_level level)
{
	log_threshold = level;
}
void log_set_prog(const char *prog)
{
	log_prog = prog;
}
enum log_level log_get_level(void)
{
	return log_threshold;
}

int log_level_parse(const char *s)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tags[] = {"error", "warning", "info", "debug"};
	char line[2048];
	struct timespec ts;
	struct tm tm;
	size_t n;
	int k;
	va_list ap;

	if (level > log_threshold)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
	k = snprintf(line + n, sizeof line - n, ".%03ldZ %s[%d] %s: ", ts.tv_nsec / 1000000,
	             log_prog, (int)getpid(), tags[level]);
	if (k > 0)
		n += (size_t)k;
	va_start(ap, fmt);
	k = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	va_end(ap);
	if (k > 0)
		n += (size_t)k < sizeof line - n - 1 ? (size_t)k : sizeof line - n - 2;
	line[n++] = '\n';
	/* One write per line: lines of concurrent threads stay whole. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void log_vlib(enum log_level level, const char *prefix, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	if (level > log_threshold)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	log_msg(level, "%s%s", prefix, msg);
}
