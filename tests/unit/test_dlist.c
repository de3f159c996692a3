/* Deadline lists: sorted by arming order, by walking back when a deadline is earlier,
 * across several lists, against a brute-force model under random operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "engine/dlist.h"

static void basics(void **state)
{
	struct dlist d;
	(void)state;

	assert_int_equal(dlist_init(&d, 8), 0);
	assert_int_equal(dlist_first(&d), -1);
	dlist_arm(&d, 3, 0, 100);
	dlist_arm(&d, 5, 0, 200);
	dlist_arm(&d, 1, 1, 150);
	assert_int_equal(dlist_first(&d), 3);
	assert_true(dlist_armed(&d, 5));
	assert_false(dlist_armed(&d, 0));
	dlist_remove(&d, 3);
	assert_int_equal(dlist_first(&d), 1);
	dlist_remove(&d, 3);      /* twice: a no-op */
	dlist_arm(&d, 1, 0, 250); /* re-armed: moves lists */
	assert_int_equal(dlist_first(&d), 5);
	dlist_arm(&d, 2, 0, 50); /* earlier than the tail: walks back to the head */
	assert_int_equal(dlist_first(&d), 2);
	assert_int_equal(dlist_due(&d, 2), 50);
	dlist_remove(&d, 2);
	dlist_remove(&d, 5);
	assert_int_equal(dlist_first(&d), 1);
	dlist_remove(&d, 1);
	assert_int_equal(dlist_first(&d), -1);
	dlist_release(&d);
}

/* Random arms (mostly in time order, as drivers do) and removes; popping the first until
 * empty must give the deadlines in order, the same set the model holds. */
static void against_a_model(void **state)
{
	enum { N = 200 };
	struct dlist d;
	int64_t model[N];
	int64_t now = 0;
	unsigned seed = 12345;
	(void)state;

	assert_int_equal(dlist_init(&d, N), 0);
	for (int round = 0; round < 50; round++) {
		for (int j = 0; j < N; j++)
			model[j] = -1;
		for (int op = 0; op < 2000; op++) {
			seed = seed * 1103515245u + 12345u;
			int j = (int)((seed >> 8) % N);
			int kind = (int)((seed >> 20) % 10);
			if (kind < 6) {
				now += (seed >> 24) % 3;
				int list = (int)((seed >> 4) % 3);
				/* List l's timeout is 100 * (l + 1); one in ten is early. */
				int64_t due = now + 100 * (list + 1) - (kind == 0 ? 50 : 0);
				dlist_arm(&d, j, list, due);
				model[j] = due;
			} else {
				dlist_remove(&d, j);
				model[j] = -1;
			}
		}
		int64_t last = INT64_MIN;
		int j;
		while ((j = dlist_first(&d)) >= 0) {
			int64_t least = INT64_MAX;
			for (int k = 0; k < N; k++)
				if (model[k] >= 0 && model[k] < least)
					least = model[k];
			assert_int_equal(dlist_due(&d, j), least);
			assert_int_equal(model[j], least);
			assert_true(least >= last);
			last = least;
			dlist_remove(&d, j);
			model[j] = -1;
		}
		for (int k = 0; k < N; k++)
			assert_int_equal(model[k], -1);
	}
	dlist_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(basics),
	    cmocka_unit_test(against_a_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
