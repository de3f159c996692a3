/* What a run records about what ran: the JVM facts of a GC log's header (JDK 17 unified
 * logging, JDK 8's banner and flags, real files from tests/data/gc) and of a command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run/env.h"

/* The first 64 KB of a file of tests/data/gc. */
static size_t head_of(const char *name, char *buf, size_t len)
{
	char path[1024];
	const char *top = getenv("SOAK_TOP");
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s/tests/data/gc/%s", top ? top : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

static void unified_header(void **state)
{
	static char buf[ENV_GC_HEAD_BYTES];
	struct env e;
	(void)state;

	assert_int_equal(env_init(&e), 0);
	env_gc_header(&e, "app", buf, head_of("jdk17/stable-g1-gcstar.log", buf, sizeof buf));
	assert_string_equal(env_get(&e, "app", "jvm_version"), "17.0.15+6-Debian-1deb12u1");
	assert_string_equal(env_get(&e, "app", "gc"), "G1");
	assert_string_equal(env_get(&e, "app", "heap_max"), "128M");
	assert_null(env_get(&e, "", "jvm_version")); /* facts belong to their source */
	env_free(&e);
	/* Every collector's own words. */
	const char *const logs[][2] = {{"jdk17/stable-parallel-gcstar.log", "Parallel"},
	                               {"jdk17/stable-serial-gcstar.log", "Serial"},
	                               {"jdk17/stable-zgc-gcstar.log", "ZGC"},
	                               {"jdk17/stable-shenandoah-gcstar.log", "Shenandoah"}};
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
		assert_int_equal(env_init(&e), 0);
		env_gc_header(&e, "app", buf, head_of(logs[i][0], buf, sizeof buf));
		print_message("# %s: %s %s %s\n", logs[i][0], env_get(&e, "app", "gc"),
		              env_get(&e, "app", "jvm_version"), env_get(&e, "app", "heap_max"));
		assert_string_equal(env_get(&e, "app", "gc"), logs[i][1]);
		assert_string_equal(env_get(&e, "app", "jvm_version"), "17.0.15+6-Debian-1deb12u1");
		assert_string_equal(env_get(&e, "app", "heap_max"), "128M");
		env_free(&e);
	}
}

static void jdk8_header(void **state)
{
	static char buf[ENV_GC_HEAD_BYTES];
	struct env e;
	(void)state;

	assert_int_equal(env_init(&e), 0);
	env_gc_header(&e, "app", buf,
	              head_of("gcviewer__SampleSun1_8_0CmsPrintGcId.txt", buf, sizeof buf));
	assert_string_equal(env_get(&e, "app", "jvm_version"), "1.8.0_342-b07");
	assert_string_equal(env_get(&e, "app", "gc"), "CMS");
	assert_string_equal(env_get(&e, "app", "heap_max"), "512M"); /* 536870912 bytes */
	env_free(&e);
}

static void command_line(void **state)
{
	struct env e;
	(void)state;

	assert_int_equal(env_init(&e), 0);
	env_jvm_flags(&e, "app",
	              "/usr/bin/java -Xms256m -Xmx256m -XX:+UseParallelGC -Dsoak.target=x Main");
	assert_string_equal(env_get(&e, "app", "heap_max"), "256M");
	assert_string_equal(env_get(&e, "app", "gc"), "Parallel");
	/* What the GC log said first stands: flags only fill in. */
	env_jvm_flags(&e, "app", "java -Xmx1g -XX:+UseG1GC");
	assert_string_equal(env_get(&e, "app", "heap_max"), "256M");
	env_free(&e);
	assert_int_equal(env_init(&e), 0);
	env_jvm_flags(&e, "app", "java -XX:MaxHeapSize=1073741824 -XX:+UseZGC -XX:+UseLargePages");
	assert_string_equal(env_get(&e, "app", "heap_max"), "1G");
	assert_string_equal(env_get(&e, "app", "gc"), "ZGC");
	/* -XX:+UseLargePages is no collector; a value is one line. */
	env_set(&e, "", "cmdline", "a\tb\nc  ");
	assert_string_equal(env_get(&e, "", "cmdline"), "a b c");
	env_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unified_header),
	    cmocka_unit_test(jdk8_header),
	    cmocka_unit_test(command_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
