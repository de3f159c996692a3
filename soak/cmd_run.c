/* Placeholder until the command lands. */
#include <stdio.h>

#include "cmd.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "soak run: not built yet\n");
	return EXIT_RUNTIME;
}
