/* re: a user's PCRE2 pattern compiled the one way soak does it (see re.h).
 * Compiled once, JIT when the machine has it; a bad pattern is an error with its offset,
 * never a silent non-match. */
#include "re.h"

#include <stdio.h>

pcre2_code *re_compile(const char *pattern, char *why, size_t whylen)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);

	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		snprintf(why, whylen, "%s at offset %zu", (char *)msg, (size_t)off);
		return NULL;
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter if no JIT */
	return re;
}
