/* The JSON emitter: commas, keys, breaks and nesting as its writers lay them out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonw.h"

/* Runs fn on an emitter over a memory stream; returns what it wrote (to free). */
static char *emit(void (*fn)(struct jsonw *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct jsonw w;

	assert_non_null(f);
	jsonw_init(&w, f);
	fn(&w);
	assert_int_equal(w.depth, 0);
	fclose(f);
	return text;
}

static void plain(struct jsonw *w)
{
	jsonw_obj(w);
	jsonw_key(w, "name");
	jsonw_str(w, "a \"b\"\n");
	jsonw_key(w, "n");
	jsonw_int(w, -3);
	jsonw_key(w, "list");
	jsonw_arr(w);
	jsonw_num(w, 1.25, 1);
	jsonw_num(w, NAN, 3);
	jsonw_num(w, -0.0004, 3); /* rounds to zero: "0.000", not "-0.000" */
	jsonw_bool(w, 1);
	jsonw_str_or_null(w, "");
	jsonw_fmt(w, "%.6g", 0.5);
	jsonw_end(w);
	jsonw_key(w, "empty");
	jsonw_obj(w);
	jsonw_end(w);
	jsonw_end(w);
}

static void members_and_items(void **state)
{
	char *s = emit(plain);

	(void)state;
	assert_string_equal(s,
	                    "{\"name\": \"a \\\"b\\\"\\u000a\", \"n\": -3, \"list\": [1.2, null, "
	                    "0.000, true, null, 0.5], \"empty\": {}}");
	free(s);
}

static void lines(struct jsonw *w)
{
	jsonw_obj(w);
	jsonw_br(w, "\n  ");
	jsonw_key(w, "runs");
	jsonw_arr(w);
	for (int i = 0; i < 2; i++) {
		jsonw_br(w, "\n    ");
		jsonw_obj(w);
		jsonw_key(w, "id");
		jsonw_int(w, i);
		jsonw_key(w, "steps");
		jsonw_arr(w);
		for (int k = 0; k < 2; k++) {
			jsonw_br(w, ""); /* "," alone, as on one line */
			jsonw_int(w, k);
		}
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_br(w, "\n  ");
	jsonw_end(w);
	jsonw_br(w, "\n  ");
	jsonw_key(w, "none");
	jsonw_arr(w);
	jsonw_br(w, "\n  ");
	jsonw_end(w);
	jsonw_br(w, "\n");
	jsonw_end(w);
}

static void breaks(void **state)
{
	char *s = emit(lines);

	(void)state;
	assert_string_equal(s,
	                    "{\n  \"runs\": [\n    {\"id\": 0, \"steps\": [0,1]},\n    {\"id\": 1, "
	                    "\"steps\": [0,1]}\n  ],\n  \"none\": [\n  ]\n}");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(members_and_items),
	    cmocka_unit_test(breaks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
