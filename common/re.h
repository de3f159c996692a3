/*
 * re — a user's PCRE2 pattern compiled the one way soak does it (a scenario's expect_body,
 * --pid-match, a process set's match, nmon's --match): JIT when the machine allows it
 * (without, pcre2_match interprets: slower, the same answers), and a pattern that does not
 * compile said in one wording.  Stateless; the code returned is the caller's
 * (pcre2_code_free).
 */
#ifndef SOAK_RE_H
#define SOAK_RE_H

#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* The compiled pattern, or NULL when it does not compile: why says what is wrong where,
 * e.g. "missing closing parenthesis at offset 3" (the caller names the pattern). */
pcre2_code *re_compile(const char *pattern, char *why, size_t whylen);

#endif
