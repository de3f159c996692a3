/*
 * slurp — the one way soak reads a whole file into memory.
 *
 * A file is read from its start to its end (or to a cap) into a new NUL-terminated string
 * the caller frees.  A name relative to a folder's descriptor is never followed through a
 * link (O_NOFOLLOW), as outdir.h requires; a path given with AT_FDCWD is opened as it is
 * (/proc files, $SOAK_PLOTS).  No state; thread-safe.
 */
#ifndef SOAK_SLURP_H
#define SOAK_SLURP_H

#include <stddef.h>

/* Reads the file `name` (relative to the folder at, or a path with AT_FDCWD): at most max
 * bytes of it (max < SIZE_MAX) into a new NUL-terminated string, its length in *len when
 * len is not NULL.  A file of more than max bytes: with more == NULL it is refused (NULL,
 * errno EFBIG); with more given, the string keeps its first max bytes and *more is 1 (else
 * 0).  NULL also when it cannot be opened or read, or out of memory (errno says which). */
char *slurp(int at, const char *name, size_t max, size_t *len, int *more);

#endif
