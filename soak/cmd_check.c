/*
 * soak check — validates scenario files and prints their plan; sends nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "scenario/scenario.h"
#include "scenario/study.h"

/* A study file: its scenarios for every target, then the plan and schedule. */
static int check_study(const char *path, char *const *sets, int nsets, int quiet)
{
	struct scenario scns[STUDY_MAX_SCENARIOS];
	struct study st;
	char err[1024];
	int n = 0, rc = EXIT_USAGE;

	if (study_load(&st, path, err, sizeof err) < 0) {
		fprintf(stderr, "soak check: %s\n", err);
		return EXIT_USAGE;
	}
	for (int t = 0; t < st.ntargets; t++)
		for (int sc = 0; sc < st.nscenarios; sc++) {
			struct scenario s;
			if (study_scenario(&st, t, sc, NULL, sets, nsets, &s, err, sizeof err) < 0) {
				fprintf(stderr, "soak check: %s: target %s: %s\n", path,
				        st.targets[t].name, err);
				goto done;
			}
			if (t == 0)
				scns[n++] = s;
			else
				scn_release(&s);
		}
	if (!quiet)
		study_print_plan(&st, scns, stdout);
	rc = EXIT_OK;
done:
	for (int i = 0; i < n; i++)
		scn_release(&scns[i]);
	study_release(&st);
	return rc;
}

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
			       "collectors, thresholds) without sending anything; for a study file (one\n"
			       "that opens with [study]), its scenarios for every target, the schedule of\n"
			       "rounds and the total time.  Exit status 2 on a bad file, with\n"
			       "FILE:LINE: what is wrong.\n");
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
		if (study_is_file(argv[i])) {
			int r = check_study(argv[i], sets, nsets, quiet);
			if (r != EXIT_OK)
				rc = r;
			continue;
		}
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
