/*
 * jsonw — the one piece of JSON writing every command needs: a string literal with the
 * escapes RFC 8259 requires (quote, backslash, control characters).  Bytes >= 0x80 pass
 * through: soak's strings are UTF-8.  NULL writes "".  Stateless and thread-safe.
 */
#ifndef SOAK_JSONW_H
#define SOAK_JSONW_H

#include <stdio.h>

void json_write_str(FILE *f, const char *s);

#endif
