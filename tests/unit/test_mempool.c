/*
 * mempool: a freed block is the next one of its class handed out (so a warm worker's
 * requests reach malloc no more), calloc zeroes, realloc keeps the bytes as it grows, large
 * blocks go to malloc on their own, and what the pool holds stays at its busiest moment's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/mempool.h"

static void reuse(void **state)
{
	struct mempool m = {0};
	void *a, *b, *c;
	(void)state;

	a = mempool_alloc(&m, 100); /* class 128 */
	b = mempool_alloc(&m, 128);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a != b);
	assert_int_equal((uintptr_t)a % 16, 0);
	mempool_free(&m, a);
	c = mempool_alloc(&m, 65); /* the same class: the block just freed */
	assert_ptr_equal(c, a);
	assert_int_equal(m.held, 256);
	/* A busy moment and back, many times: the pool holds what the busiest one needed. */
	for (int round = 0; round < 1000; round++) {
		void *p[10];
		for (int i = 0; i < 10; i++)
			p[i] = mempool_alloc(&m, 40);
		for (int i = 0; i < 10; i++)
			mempool_free(&m, p[i]);
	}
	assert_int_equal(m.held, 256 + 10 * 64);
	mempool_free(&m, b);
	mempool_free(&m, c);
	mempool_free(&m, NULL);
	mempool_release(&m);
	assert_int_equal(m.held, 0);
}

static void calloc_realloc_and_big(void **state)
{
	struct mempool m = {0};
	char *p, *q, *big;
	(void)state;

	p = mempool_calloc(&m, 10, 3);
	for (int i = 0; i < 30; i++)
		assert_int_equal(p[i], 0);
	memcpy(p, "abcdefghij", 10);
	q = mempool_realloc(&m, p, 31); /* still class 32: the same block */
	assert_ptr_equal(q, p);
	q = mempool_realloc(&m, p, 5000); /* moves, the bytes with it */
	assert_memory_equal(q, "abcdefghij", 10);
	big = mempool_alloc(&m, MEMPOOL_MAX + 1); /* malloc's own */
	memset(big, 1, MEMPOOL_MAX + 1);
	big = mempool_realloc(&m, big, 3 * MEMPOOL_MAX);
	assert_int_equal(big[MEMPOOL_MAX], 1);
	int64_t held = m.held;
	mempool_free(&m, big);
	assert_int_equal(m.held, held); /* big blocks are not the pool's */
	mempool_free(&m, q);
	assert_null(mempool_calloc(&m, (size_t)-1, 2));
	assert_non_null(p = mempool_realloc(&m, NULL, 7));
	mempool_free(&m, p);
	mempool_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(reuse),
	    cmocka_unit_test(calloc_realloc_and_big),
	};
	return cmocka_run_group_tests_name("tests", tests, NULL, NULL);
}
