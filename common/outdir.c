/* outdir: checked folders and files created under random names, renamed into place, never
 * through a link (see outdir.h).  Everything after the open is relative to a descriptor. */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmode.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Why a folder may not be written into, or NULL when it may: the caller's or root's, and
 * writable by nobody else unless sticky. */
static const char *dir_refusal(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();

	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, len, "it belongs to another user (uid %u), who could plant links in it",
		         (unsigned)st->st_uid);
		return why;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX)) {
		snprintf(why, len,
		         "others can write to it (mode %04o without the sticky bit) and could plant "
		         "links in it; choose a folder of your own",
		         (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

/* out = "DIR/NAME"; -1 with err when it does not fit. */
static int join(char *out, size_t len, const char *dir, const char *name, char *err,
                size_t errlen)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "the path '%s/%s' is too long", dir, name);
		return -1;
	}
	return 0;
}

/* Opens name relative to at (AT_FDCWD for a path) as a checked folder into d. */
static int open_checked(struct outdir *d, int at, const char *name, char *err, size_t errlen)
{
	struct stat st;
	char why[160];

	d->fd = openat(at, name, DIR_FLAGS);
	if (d->fd < 0) {
		int e = errno;
		int link = fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
		snprintf(err, errlen, "cannot open the folder '%s': %s", d->path,
		         link ? "it is a symbolic link (not followed)" : strerror(e));
		return -1;
	}
	if (fstat(d->fd, &st) < 0) {
		snprintf(err, errlen, "cannot open the folder '%s': %s", d->path, strerror(errno));
		outdir_close(d);
		return -1;
	}
	if (dir_refusal(&st, why, sizeof why)) {
		snprintf(err, errlen, "will not write into '%s': %s", d->path, why);
		outdir_close(d);
		return -1;
	}
	return 0;
}

int outdir_open(struct outdir *d, const char *path, int create, char *err, size_t errlen)
{
	d->fd = -1;
	if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path || !*path) {
		snprintf(err, errlen, "bad folder '%s'", path);
		return -1;
	}
	if (create && fmode_mkdir_p(path, err, errlen) < 0)
		return -1;
	return open_checked(d, AT_FDCWD, path, err, errlen);
}

int outdir_of(struct outdir *d, const char *path, const char **base, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[OUTDIR_PATH_MAX];

	*base = slash ? slash + 1 : path;
	if (!**base) {
		d->fd = -1;
		snprintf(err, errlen, "'%s' names a folder, not a file", path);
		return -1;
	}
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	return outdir_open(d, dir, 0, err, errlen);
}

int outdir_sub(const struct outdir *d, const char *name, struct outdir *sub, char *err,
               size_t errlen)
{
	sub->fd = -1;
	if (join(sub->path, sizeof sub->path, d->path, name, err, errlen) < 0)
		return -1;
	if (mkdirat(d->fd, name, fmode_dir()) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", sub->path, strerror(errno));
		return -1;
	}
	return open_checked(sub, d->fd, name, err, errlen);
}

/* name with a random suffix: PREFIX + 12 letters and digits. */
static void random_name(char *out, size_t len, const char *prefix)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[12];
	size_t n;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) /* never short for 12 bytes */
		memset(r, 0, sizeof r);
	n = (size_t)snprintf(out, len, "%s", prefix);
	for (size_t i = 0; i < sizeof r && n + 1 < len; i++)
		out[n++] = set[r[i] % (sizeof set - 1)];
	out[n < len ? n : len - 1] = '\0';
}

int outdir_private(const struct outdir *d, const char *prefix, struct outdir *priv, char *err,
                   size_t errlen)
{
	char name[OUTDIR_NAME_MAX], lead[64];

	priv->fd = -1;
	snprintf(lead, sizeof lead, ".%s-", prefix);
	for (int tries = 0; tries < 100; tries++) {
		random_name(name, sizeof name, lead);
		if (mkdirat(d->fd, name, 0700) == 0) {
			if (join(priv->path, sizeof priv->path, d->path, name, err, errlen) < 0) {
				unlinkat(d->fd, name, AT_REMOVEDIR);
				return -1;
			}
			return open_checked(priv, d->fd, name, err, errlen);
		}
		if (errno != EEXIST)
			break;
	}
	snprintf(err, errlen, "cannot create a private folder in '%s': %s", d->path,
	         strerror(errno));
	return -1;
}

void outdir_close(struct outdir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

int outfile_open(struct outfile *o, const struct outdir *d, const char *name, char *err,
                 size_t errlen)
{
	char lead[OUTDIR_NAME_MAX + 2];
	int fd = -1;

	o->dir = d;
	o->f = NULL;
	o->tmp[0] = '\0';
	if (snprintf(o->name, sizeof o->name, "%s", name) >= (int)sizeof o->name ||
	    strchr(name, '/')) {
		snprintf(err, errlen, "bad file name '%s'", name);
		return -1;
	}
	snprintf(lead, sizeof lead, ".%s.", name);
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		random_name(o->tmp, sizeof o->tmp, lead);
		fd = openat(d->fd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            fmode_file());
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "cannot write '%s/%s': %s", d->path, name, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlinkat(d->fd, o->tmp, 0);
		}
		o->tmp[0] = '\0';
		return -1;
	}
	return 0;
}

/* Whether name in d may be replaced: absent, or the caller's file or link. */
static int replaceable(const struct outdir *d, const char *name, char *err, size_t errlen)
{
	struct stat st;

	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot write '%s/%s': %s", d->path, name, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write '%s/%s': a folder of that name is there",
		         d->path, name);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
		         "will not replace '%s/%s': it belongs to another user (uid %u)", d->path,
		         name, (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

/* outfile_commit's work: replace says whether an existing name may be replaced (the
 * caller's own) or must be refused whatever it is. */
static int commit(struct outfile *o, int replace, char *err, size_t errlen)
{
	int bad = ferror(o->f);

	bad |= fclose(o->f) != 0;
	o->f = NULL;
	if (bad) {
		snprintf(err, errlen, "cannot write '%s/%s': %s", o->dir->path, o->name,
		         strerror(errno ? errno : EIO));
		outfile_abort(o);
		return -1;
	}
	if (replace && replaceable(o->dir, o->name, err, errlen) < 0) {
		outfile_abort(o);
		return -1;
	}
	if (renameat2(o->dir->fd, o->tmp, o->dir->fd, o->name, replace ? 0 : RENAME_NOREPLACE) <
	    0) {
		snprintf(err, errlen, "cannot write '%s/%s': %s", o->dir->path, o->name,
		         errno == EEXIST ? "something of that name is there (not replaced, not "
		                           "followed)"
		                         : strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->tmp[0] = '\0';
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	return commit(o, 1, err, errlen);
}

int outfile_commit_new(struct outfile *o, char *err, size_t errlen)
{
	return commit(o, 0, err, errlen);
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlinkat(o->dir->fd, o->tmp, 0);
	o->tmp[0] = '\0';
}

int outdir_move(const struct outdir *from, const char *name, const struct outdir *to,
                char *err, size_t errlen)
{
	if (replaceable(to, name, err, errlen) < 0)
		return -1;
	if (renameat(from->fd, name, to->fd, name) < 0) {
		snprintf(err, errlen, "cannot write '%s/%s': %s", to->path, name, strerror(errno));
		return -1;
	}
	return 0;
}

int outdir_remove(const struct outdir *d, const char *name)
{
	struct stat st;

	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -1;
	return unlinkat(d->fd, name, 0);
}

/* Calls fn(arg, fd, name) for each entry of the folder fd but "." and ".."; 0, or -1 when
 * the folder cannot be read or fn returned -1 for an entry (the others are still called). */
static int each_at(int fd, int (*fn)(void *, int, const char *), void *arg)
{
	int dup_fd = dup(fd), rc = 0;
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	while ((e = readdir(dir)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    fn(arg, fd, e->d_name) < 0)
			rc = -1;
	closedir(dir);
	return rc;
}

struct each_call {
	int (*fn)(void *, const char *);
	void *arg;
};

static int each_call(void *arg, int fd, const char *name)
{
	struct each_call *c = arg;
	(void)fd;
	return c->fn(c->arg, name);
}

int outdir_each(const struct outdir *d, int (*fn)(void *arg, const char *name), void *arg)
{
	struct each_call c = {fn, arg};
	return each_at(d->fd, each_call, &c);
}

/* each_at's callback of a purge: a file goes; a folder (one level deep: depth in arg)
 * is emptied, then goes. */
static int purge_entry(void *arg, int fd, const char *name)
{
	int depth = *(int *)arg - 1, sub;

	if (unlinkat(fd, name, 0) == 0 || depth < 0)
		return 0;
	sub = openat(fd, name, DIR_FLAGS);
	if (sub >= 0) {
		each_at(sub, purge_entry, &depth);
		close(sub);
		unlinkat(fd, name, AT_REMOVEDIR);
	}
	return 0;
}

void outdir_purge(const struct outdir *parent, struct outdir *priv)
{
	const char *name = strrchr(priv->path, '/');
	int depth = 1;

	if (priv->fd >= 0)
		each_at(priv->fd, purge_entry, &depth);
	outdir_close(priv);
	if (name)
		unlinkat(parent->fd, name + 1, AT_REMOVEDIR);
}
