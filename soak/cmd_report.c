/* Placeholder until the command lands. */
#include <stdio.h>

#include "cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "soak report: not built yet\n");
	return EXIT_RUNTIME;
}
