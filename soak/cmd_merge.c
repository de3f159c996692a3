/* Placeholder until the command lands. */
#include <stdio.h>

#include "cmd.h"

int cmd_merge(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "soak merge: not built yet\n");
	return EXIT_RUNTIME;
}
