/* opt: getopt's errors in one format (see opt.h).
 * One wording for every command's option errors, so a user reads the same sentence
 * whichever command they mistyped. */
#include "opt.h"

#include <getopt.h>
#include <stdio.h>

#include "exitcode.h"

void opt_error_text(int c, char *const argv[], char *err, size_t errlen)
{
	const char *name = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "?";

	if (c == ':')
		snprintf(err, errlen, "option '%s' needs a value", name);
	else
		snprintf(err, errlen, "unknown option '%s'", name);
}

int opt_error(const char *prog, int c, char *const argv[])
{
	char err[512];

	opt_error_text(c, argv, err, sizeof err);
	fprintf(stderr, "%s: %s\n", prog, err);
	return EXIT_USAGE;
}
