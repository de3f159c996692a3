/* Placeholder until the command lands. */
#include <stdio.h>

#include "cmd.h"

int cmd_runs(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "soak runs: not built yet\n");
	return EXIT_RUNTIME;
}
