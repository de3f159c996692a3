/*
 * soak check — validates scenario files and prints their plan; sends nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "scenario/scenario.h"

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{"set", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char **sets = calloc((size_t)argc + 1, sizeof *sets);
	int nsets = 0, quiet = 0, c, rc = EXIT_OK;

	if (!sets)
		return EXIT_RUNTIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's': sets[nsets++] = optarg; break;
		case 'q': quiet = 1; break;
		case 'h':
			printf("usage: soak check [--set SECTION.KEY=VALUE]... [-q] SCENARIO.ini...\n"
			       "Validates each scenario and prints its plan (steps, durations, requests,\n"
			       "collectors, thresholds) without sending anything.  Exit status 2 on the\n"
			       "first bad file, with FILE:LINE: what is wrong.\n");
			free(sets);
			return EXIT_OK;
		default:
			if (c == ':')
				fprintf(stderr, "soak check: option '%s' needs a value\n", argv[optind - 1]);
			else
				fprintf(stderr, "soak check: unknown option '%s'\n", argv[optind - 1]);
			cmd_usage("check");
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "soak check: no scenario given\n");
		cmd_usage("check");
		free(sets);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct scenario s;
		char err[1024];
		if (scn_load(&s, argv[i], sets, nsets, err, sizeof err) < 0) {
			fprintf(stderr, "soak check: %s\n", err);
			rc = EXIT_USAGE;
			continue;
		}
		if (!quiet)
			scn_print_plan(&s, stdout);
		scn_release(&s);
	}
	free(sets);
	return rc;
}
