/*
 * opt — how every soak program words getopt's errors, in one format:
 *   PROG: unknown option '--frob'
 *   PROG: option '--db' needs a value
 * For getopt_long run with opterr = 0 and an optstring that starts with ':' (so a missing
 * value returns ':', anything else wrong '?').  Stateless.
 */
#ifndef SOAK_OPT_H
#define SOAK_OPT_H

#include <stddef.h>

/* The line for getopt_long's return c about argv[optind - 1], into err (errlen > 0). */
void opt_error_text(int c, char *const argv[], char *err, size_t errlen);
/* The same line, "PROG: " first, on stderr; returns EXIT_USAGE (the caller prints its
 * usage). */
int opt_error(const char *prog, int c, char *const argv[]);

#endif
