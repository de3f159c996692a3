/* Request templates: placeholders, bounds, CSV rows, and the error classes of the driver. */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/http.h"
#include "engine/stats.h"
#include "engine/template.h"

static void literal_and_escapes(void **state)
{
	struct tpl t;
	struct tpl_ctx ctx = {.rng = 1};
	char buf[64], err[256];
	(void)state;
	assert_int_equal(tpl_compile(&t, "price $$5 and $${seq}", NULL, err, sizeof err), 0);
	assert_int_equal(t.dynamic, 0);
	assert_int_equal(tpl_expand(&t, &ctx, buf, sizeof buf),
	                 (long)strlen("price $5 and ${seq}"));
	assert_string_equal(buf, "price $5 and ${seq}");
	tpl_release(&t);
}

static void placeholders(void **state)
{
	struct tpl t;
	struct tpl_ctx ctx = {
	    .seq = 42, .vu = 7, .iter = 3, .run_id = 12, .nonce = "k3x9", .rng = 99};
	char buf[256], err[256];
	(void)state;
	assert_int_equal(
	    tpl_compile(&t, "u${nonce}_${seq}/${vu}/${iter}/${run}", NULL, err, sizeof err), 0);
	assert_int_equal(t.dynamic, 1);
	assert_int_equal(tpl_expand(&t, &ctx, buf, sizeof buf), 15);
	assert_string_equal(buf, "uk3x9_42/7/3/12");
	tpl_release(&t);

	assert_int_equal(tpl_compile(&t, "${random:12}|${uuid}|${now_ms}", NULL, err, sizeof err),
	                 0);
	long n = tpl_expand(&t, &ctx, buf, sizeof buf);
	assert_true(n > 12 + 1 + 36 + 1 + 12);
	for (int i = 0; i < 12; i++)
		assert_true(islower((unsigned char)buf[i]) || isdigit((unsigned char)buf[i]));
	assert_int_equal(buf[12], '|');
	/* A version-4 UUID: 8-4-4-4-12 hex, version nibble 4, variant 8..b. */
	const char *u = buf + 13;
	assert_int_equal(u[8], '-');
	assert_int_equal(u[13], '-');
	assert_int_equal(u[14], '4');
	assert_non_null(strchr("89ab", u[19]));
	assert_int_equal(u[36], '|');
	long long now = atoll(u + 37);
	assert_true(now > 1700000000000LL);
	/* The next expansion draws new random values. */
	char again[256];
	tpl_expand(&t, &ctx, again, sizeof again);
	assert_memory_not_equal(buf, again, 12);
	tpl_release(&t);
}

static void bounds(void **state)
{
	struct tpl t;
	struct tpl_ctx ctx = {.seq = UINT64_MAX,
	                      .vu = UINT64_MAX,
	                      .iter = UINT64_MAX,
	                      .run_id = INT64_MAX,
	                      .nonce = "abcdefgh",
	                      .rng = 5};
	char err[256];
	(void)state;
	assert_int_equal(
	    tpl_compile(&t, "a${seq}b${vu}c${iter}d${run}e${nonce}f${random:100}${uuid}${now_ms}",
	                NULL, err, sizeof err),
	    0);
	size_t cap = tpl_max_len(&t, &ctx);
	char *buf = malloc(cap);
	/* The bound holds for the largest values... */
	long n = tpl_expand(&t, &ctx, buf, cap);
	assert_true(n > 0);
	assert_true((size_t)n < cap);
	/* ...and a buffer one byte short of what is needed fails cleanly. */
	assert_int_equal(tpl_expand(&t, &ctx, buf, (size_t)n), -1);
	free(buf);
	tpl_release(&t);
}

static void compile_errors(void **state)
{
	struct tpl t;
	char err[256];
	(void)state;
	assert_int_equal(tpl_compile(&t, "x${seq", NULL, err, sizeof err), -1);
	assert_string_equal(err, "unterminated placeholder '${seq'");
	assert_int_equal(tpl_compile(&t, "${random:300}", NULL, err, sizeof err), -1);
	assert_string_equal(err, "bad placeholder '${random:300}': N must be 1..256");
	assert_int_equal(tpl_compile(&t, "${csv:name}", NULL, err, sizeof err), -1);
	assert_string_equal(
	    err, "placeholder '${csv:name}' needs a CSV data set (csv = FILE in [scenario])");
	assert_int_equal(tpl_compile(&t, "${Seq}", NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown placeholder '${Seq}'"));
}

static void csv_rows(void **state)
{
	char path[] = "/tmp/soak-csv.XXXXXX", err[256], buf[128];
	struct tpl_csv csv;
	struct tpl t;
	struct tpl_ctx ctx = {.rng = 3};
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	(void)state;
	fputs("user,pass\r\nann,\"p,1\"\r\n\r\nbob,\"say \"\"hi\"\"\"\r\n", f);
	fclose(f);
	assert_int_equal(tpl_csv_load(&csv, path, err, sizeof err), 0);
	assert_int_equal(csv.ncols, 2);
	assert_int_equal(csv.nrows, 2);
	assert_int_equal(tpl_compile(&t, "${csv:user}:${csv:pass}", &csv, err, sizeof err), 0);
	ctx.csv = &csv;
	/* Rows advance with ${seq} and wrap around. */
	const char *want[] = {"ann:p,1", "bob:say \"hi\"", "ann:p,1"};
	for (int i = 0; i < 3; i++) {
		ctx.seq = (uint64_t)i + 1;
		assert_true(tpl_expand(&t, &ctx, buf, sizeof buf) > 0);
		assert_string_equal(buf, want[i]);
	}
	assert_true(tpl_max_len(&t, &ctx) >= strlen("bob:say \"hi\"") + 1);
	tpl_release(&t);
	tpl_csv_release(&csv);
	f = fopen(path, "w");
	fputs("a,b\n1,2\n3\n", f);
	fclose(f);
	assert_int_equal(tpl_csv_load(&csv, path, err, sizeof err), -1);
	char w[300];
	snprintf(w, sizeof w, "%s:3: 1 fields, the header has 2", path);
	assert_string_equal(err, w);
	f = fopen(path, "w");
	fputs("a,b\n\"open,2\n", f);
	fclose(f);
	assert_int_equal(tpl_csv_load(&csv, path, err, sizeof err), -1);
	snprintf(w, sizeof w, "%s:2: unterminated quoted field", path);
	assert_string_equal(err, w);
	remove(path);
}

static void classes(void **state)
{
	(void)state;
	assert_int_equal(http_transport_class(CURLE_COULDNT_CONNECT, ECONNREFUSED, 0, NULL),
	                 ERR_CONNECT_REFUSED);
	assert_int_equal(http_transport_class(CURLE_COULDNT_CONNECT, EADDRNOTAVAIL, 0, NULL),
	                 ERR_CLIENT_PORTS);
	assert_int_equal(http_transport_class(CURLE_OPERATION_TIMEDOUT, 0, 1, NULL), ERR_TIMEOUT);
	assert_int_equal(http_transport_class(CURLE_OPERATION_TIMEDOUT, 0, 0, NULL),
	                 ERR_CONNECT_TIMEOUT);
	assert_int_equal(http_transport_class(CURLE_RECV_ERROR, ECONNRESET, 1, NULL), ERR_RESET);
	assert_int_equal(http_transport_class(CURLE_GOT_NOTHING, 0, 1, NULL), ERR_RESET);
	assert_int_equal(http_transport_class(CURLE_WEIRD_SERVER_REPLY, 0, 1, NULL), ERR_PROTOCOL);
	assert_int_equal(http_transport_class(CURLE_UNSUPPORTED_PROTOCOL, 0, 1, NULL),
	                 ERR_PROTOCOL);
	assert_int_equal(http_transport_class(CURLE_COULDNT_RESOLVE_HOST, 0, 0, NULL), ERR_DNS);
	assert_int_equal(http_status_class(200, 0), -1);
	assert_int_equal(http_status_class(302, 0), -1);
	assert_int_equal(http_status_class(201, 201), -1);
	assert_int_equal(http_status_class(200, 201), ERR_STATUS_MISMATCH);
	assert_int_equal(http_status_class(409, 201), ERR_HTTP_4XX);
	assert_int_equal(http_status_class(503, 0), ERR_HTTP_5XX);
	assert_string_equal(err_class_name(ERR_CLIENT_PORTS), "client_ports");
	assert_string_equal(err_class_name(ERR_TLS_CERT), "tls_certificate");
	assert_string_equal(err_class_name(ERR_TLS_TIMEOUT), "tls_timeout");
	assert_string_equal(err_class_name(ERR_TLS_ALERT), "tls_alert");
	assert_int_equal(err_class_parse("tls_alert"), ERR_TLS_ALERT);
	assert_false(err_class_client_side(ERR_TLS_CERT));
	assert_int_equal(err_class_parse("body_mismatch"), ERR_BODY_MISMATCH);
	assert_int_equal(err_class_parse("nope"), -1);
	assert_true(err_class_client_side(ERR_CLIENT_PORTS));
	assert_false(err_class_client_side(ERR_HTTP_5XX));
}

static void stats_merge(void **state)
{
	struct istats a, b;
	struct figures f;
	char err[128];
	(void)state;
	assert_int_equal(istats_init(&a, err, sizeof err), 0);
	assert_int_equal(istats_init(&b, err, sizeof err), 0);
	for (int i = 1; i <= 100; i++) {
		hdr_record(&a.hist, i * 1000);
		a.lat_sum_us += i * 1000;
		a.requests++;
	}
	istats_error(&a, ERR_HTTP_5XX, "first");
	istats_error(&b, ERR_HTTP_5XX, "second");
	istats_error(&b, ERR_TIMEOUT, "slow");
	b.requests += 2;
	istats_add(&a, &b);
	istats_figures(&a, 10.0, &f);
	assert_int_equal(f.requests, 102);
	assert_int_equal(f.errors, 3);
	assert_float_equal(f.tps, 10.2, 1e-9);
	assert_float_equal(f.mean_us, 50500, 1e-6);
	assert_int_equal(a.err_count[ERR_HTTP_5XX], 2);
	assert_string_equal(a.err_sample[ERR_HTTP_5XX], "first"); /* the first sample is kept */
	assert_string_equal(a.err_sample[ERR_TIMEOUT], "slow");
	assert_true(f.p99_us >= 99000 && f.p99_us <= 99100);
	istats_reset(&a);
	assert_int_equal(a.requests, 0);
	assert_int_equal(hdr_total(&a.hist), 0);
	istats_release(&a);
	istats_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(literal_and_escapes),
	    cmocka_unit_test(placeholders),
	    cmocka_unit_test(bounds),
	    cmocka_unit_test(compile_errors),
	    cmocka_unit_test(csv_rows),
	    cmocka_unit_test(classes),
	    cmocka_unit_test(stats_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
