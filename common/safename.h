/*
 * safename — the one way soak makes a name safe where only some characters may stand: a
 * file name (report pictures), a JUnit class name (which CI splits on dots), an INI
 * section name (soak import's scenario).  ASCII letters and digits are always kept, the
 * caller says which other bytes are kept and what stands for the rest; the result is cut
 * to its buffer and always NUL-terminated.  No state; thread-safe.
 */
#ifndef SOAK_SAFENAME_H
#define SOAK_SAFENAME_H

#include <stddef.h>

/* A copy of s in out (len > 0 bytes): ASCII letters, digits and the bytes of `keep` kept,
 * every other byte (a UTF-8 character's each) replaced by `other`; cut to len - 1 bytes.
 * Returns out. */
char *safe_name(char *out, size_t len, const char *s, const char *keep, char other);

#endif
