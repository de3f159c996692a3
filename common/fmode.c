/* fmode: the permissions of the files and directories soak creates (see fmode.h).
 * A file that exists keeps its mode; the environment is read on each call. */
#include "fmode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fmode_parse(const char *s, mode_t *mode, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 8);
	if (!*s || *end || errno || v < 0 || v > 0777) {
		snprintf(err, errlen, "file mode '%s': expected an octal mode such as 0600 or 0644",
		         s);
		return -1;
	}
	if (v & 0111) {
		snprintf(err, errlen,
		         "file mode '%s': read and write bits only (soak writes no programs; "
		         "directories get x where r is)",
		         s);
		return -1;
	}
	if ((v & 0600) != 0600) {
		snprintf(err, errlen,
		         "file mode '%s': the owner must keep read and write (0600 and up)", s);
		return -1;
	}
	*mode = (mode_t)v;
	return 0;
}

int fmode_check_env(char *err, size_t errlen)
{
	const char *s = getenv(FMODE_ENV);
	mode_t m;
	char e[200];

	if (!s || !*s || fmode_parse(s, &m, e, sizeof e) == 0)
		return 0;
	snprintf(err, errlen, "$%s: %s", FMODE_ENV, e);
	return -1;
}

mode_t fmode_file(void)
{
	const char *s = getenv(FMODE_ENV);
	mode_t m;
	char e[200];

	if (s && *s && fmode_parse(s, &m, e, sizeof e) == 0)
		return m;
	return FMODE_DEFAULT;
}

mode_t fmode_dir(void)
{
	mode_t m = fmode_file();
	return m | ((m & 0444) >> 2);
}

mode_t fmode_umask(void)
{
	return 0777 & ~fmode_dir();
}

int fmode_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fmode_file());

	if (fd >= 0)
		return close(fd);
	return errno == EEXIST ? 0 : -1;
}

#define FMODE_PATH_MAX 4096

int fmode_mkdir_p(const char *path, char *err, size_t errlen)
{
	char buf[FMODE_PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof buf) {
		snprintf(err, errlen, "bad directory '%s'", path);
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char keep = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, fmode_dir()) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create '%s': %s", buf, strerror(errno));
			return -1;
		}
		buf[i] = keep;
	}
	return 0;
}
