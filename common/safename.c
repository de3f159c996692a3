/* safename: a name made safe (safename.h).  Byte by byte, ASCII only (no locale), so the
 * same name gives the same safe name on every machine; keep's NUL is never a match. */
#include "safename.h"

#include <string.h>

char *safe_name(char *out, size_t len, const char *s, const char *keep, char other)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		char ch = *s;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		         (ch >= '0' && ch <= '9') || strchr(keep, ch) != NULL;
		out[n++] = ok ? ch : other;
	}
	out[n] = '\0';
	return out;
}
