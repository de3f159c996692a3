/*
 * testdir — a fresh folder under /tmp for one unit suite's files, as cmocka group fixtures:
 * testdir_setup makes it (its path in testdir[]), testdir_teardown removes it and all it
 * holds.  Include once, in the suite's own file.
 */
#ifndef SOAK_TESTDIR_H
#define SOAK_TESTDIR_H

#include <stdio.h>
#include <stdlib.h>

static char testdir[64];

static int testdir_setup(void **state)
{
	(void)state;
	snprintf(testdir, sizeof testdir, "/tmp/soak-test.XXXXXX");
	return mkdtemp(testdir) ? 0 : -1;
}

static int testdir_teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", testdir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
