/*
 * outdir — the one way soak creates a file it writes: into a folder it has checked, under a
 * temporary name nobody can guess, renamed into place; never through a link.
 *
 * soak runs as root on load machines and writes into folders that others can often write
 * to.  A name written to directly (report.html.tmp, data/x.dat) could be a link planted
 * there, and the write would truncate whatever it points at.  So:
 *  - a folder is opened once (O_DIRECTORY | O_NOFOLLOW: its last component is no link) and
 *    kept as a descriptor; everything in it is reached relative to that descriptor;
 *  - it must be the caller's (or root's) and writable by nobody else, unless it is sticky
 *    (as /tmp is: there nobody may rename or remove another's entries); otherwise it is
 *    refused with a message that says why;
 *  - a file is written under ".NAME.XXXXXX" (O_CREAT | O_EXCL | O_NOFOLLOW, random), then
 *    renamed over NAME; an existing NAME that is not the caller's is refused, not replaced;
 *  - new files get fmode_file(), new folders fmode_dir() (fmode.h).
 * Functions fill err ("cannot write 'DIR/NAME': why") and return 0 or -1; no state beyond
 * the structs the caller owns.
 */
#ifndef SOAK_OUTDIR_H
#define SOAK_OUTDIR_H

#include <stddef.h>
#include <stdio.h>

#define OUTDIR_PATH_MAX 4096
#define OUTDIR_NAME_MAX 256

/* A folder soak writes into. */
struct outdir {
	int fd;                      /* the checked folder; -1: closed */
	char path[OUTDIR_PATH_MAX];  /* as given, for messages */
};

/* A file being written: outfile_open, write to f, then outfile_commit or outfile_abort. */
struct outfile {
	const struct outdir *dir;    /* where it goes (the caller keeps it open) */
	char name[OUTDIR_NAME_MAX];  /* its name in dir */
	char tmp[OUTDIR_NAME_MAX + 16]; /* the temporary name it is written under */
	FILE *f;                     /* open for writing until commit or abort */
};

/* Opens the folder path (created with its missing parents when create is set) and checks
 * it as above.  d->fd is -1 after an error. */
int outdir_open(struct outdir *d, const char *path, int create, char *err, size_t errlen);
/* The folder of a file's path ("." for a bare name), opened as outdir_open does (never
 * created); *base points into path at the file's own name. */
int outdir_of(struct outdir *d, const char *path, const char **base, char *err,
              size_t errlen);
/* A sub-folder name of d, created when missing, checked like d. */
int outdir_sub(const struct outdir *d, const char *name, struct outdir *sub, char *err,
               size_t errlen);
/* A new private folder in d (".PREFIX-XXXXXX", 0700, random), for a program soak runs
 * (gnuplot) to work in where nothing can be planted; remove it with outdir_purge. */
int outdir_private(const struct outdir *d, const char *prefix, struct outdir *priv, char *err,
                   size_t errlen);
/* Closes d (no-op when closed). */
void outdir_close(struct outdir *d);

/* Creates a temporary file in d for name; its FILE in o->f. */
int outfile_open(struct outfile *o, const struct outdir *d, const char *name, char *err,
                 size_t errlen);
/* Closes o->f and renames the temporary file over its name; on any error the temporary
 * file is removed. */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
/* outfile_commit for a file that must be new: anything of that name (a file, a link, even
 * the caller's own) is refused, atomically (renameat2's RENAME_NOREPLACE). */
int outfile_commit_new(struct outfile *o, char *err, size_t errlen);
/* Closes and removes the temporary file (no-op after commit). */
void outfile_abort(struct outfile *o);

/* Moves from/name over to/name (both folders on one file system), under the same rule as
 * a commit: an existing entry that is not the caller's is refused. */
int outdir_move(const struct outdir *from, const char *name, const struct outdir *to,
                char *err, size_t errlen);
/* Removes name from d when it is the caller's file or link (never a folder, never
 * followed); 0 when removed or absent. */
int outdir_remove(const struct outdir *d, const char *name);
/* Calls fn(arg, name) for each entry of d but "." and ".." (hidden ones too); 0, or -1 when
 * d cannot be read or fn returned -1 for an entry (the others are still called). */
int outdir_each(const struct outdir *d, int (*fn)(void *arg, const char *name), void *arg);
/* Removes a private folder's files and sub-folders (one level deep), then the folder. */
void outdir_purge(const struct outdir *parent, struct outdir *priv);

#endif
