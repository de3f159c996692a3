/* slurp: a whole file into memory (slurp.h).  Reads until end of file or one byte past the
 * cap (so "more" is known without a stat, which /proc files answer with 0), never through
 * a link at a name in a folder. */
#include "slurp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"

/* Appends fd's bytes to b until its end or until b holds max + 1; 0, or -1 on an error. */
static int read_to(int fd, struct buf *b, size_t max)
{
	char chunk[65536];

	while (b->n <= max && !b->oom) {
		size_t want = max + 1 - b->n < sizeof chunk ? max + 1 - b->n : sizeof chunk;
		ssize_t k = read(fd, chunk, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		buf_put(b, chunk, (size_t)k);
	}
	return 0;
}

/* b's text cut to max bytes (*more says whether it was longer), or refused when longer
 * and the caller gave no `more`; b is spent. */
static char *finish(struct buf *b, size_t max, size_t *len, int *more)
{
	char *s;

	if (b->n > max && !more) {
		buf_free(b);
		errno = EFBIG;
		return NULL;
	}
	if (more)
		*more = b->n > max;
	if (b->n > max)
		b->p[b->n = max] = '\0';
	if (len)
		*len = b->n;
	if (!(s = buf_done(b)))
		errno = ENOMEM;
	return s;
}

char *slurp(int at, const char *name, size_t max, size_t *len, int *more)
{
	int fd = openat(at, name, O_RDONLY | O_CLOEXEC | (at == AT_FDCWD ? 0 : O_NOFOLLOW));
	struct buf b = {0};
	int rc, e;

	if (fd < 0)
		return NULL;
	rc = read_to(fd, &b, max);
	e = errno;
	close(fd);
	if (rc < 0) {
		buf_free(&b);
		errno = e;
		return NULL;
	}
	return finish(&b, max, len, more);
}
