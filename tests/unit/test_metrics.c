/* /metrics: the bucket bounds, HDR histograms into them, the exposition text (escaping,
 * cumulative buckets, what an open run adds), the listen address, and the server itself
 * on 127.0.0.1 (a published snapshot served, anything else 404). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/metrics.h"

static void bounds(void **state)
{
	const int64_t *b = metrics_lat_bounds(), *g = metrics_gc_bounds();
	(void)state;
	assert_int_equal(b[0], 10);
	assert_int_equal(b[MET_LAT_BOUNDS - 1], 100000000);
	for (int i = 1; i < MET_LAT_BOUNDS; i++) {
		double r = (double)b[i] / (double)b[i - 1];
		/* E24: each bound 6.7 % (1.5 -> 1.6) to 15.4 % (1.3 -> 1.5) above the one below */
		assert_true(r > 1.066 && r < 1.155);
	}
	assert_int_equal(g[0], 100);
	assert_int_equal(g[MET_GC_BOUNDS - 1], 100000000);
	for (int i = 1; i < MET_GC_BOUNDS; i++)
		assert_true(g[i] > g[i - 1]);
}

/* Values recorded into an HDR histogram land in the bucket of the first bound >= them. */
static void hdr_into_buckets(void **state)
{
	static const int64_t vals[] = {3, 10, 11, 12, 999, 1000, 2203, 59000, 100000000, 200000000};
	/* the bounds' index: a decade (24 bounds) after 10 µs, then the place in E24 */
	static const int idx[] = {0, 0, 1, 2, 48, 48, 57, 91, MET_LAT_BOUNDS - 1, MET_LAT_BOUNDS};
	const int64_t *b = metrics_lat_bounds();
	struct hdr h;
	struct mhist m, direct;
	char err[128];
	int64_t sum = 0;
	(void)state;

	memset(&m, 0, sizeof m);
	memset(&direct, 0, sizeof direct);
	assert_int_equal(hdr_init_latency(&h, err, sizeof err), 0);
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		assert_int_equal(hdr_record(&h, vals[i]), 0);
		mhist_add(&direct, b, MET_LAT_BOUNDS, vals[i]);
		sum += vals[i];
	}
	mhist_add_hdr(&m, b, MET_LAT_BOUNDS, &h, sum);
	assert_int_equal(m.count, 10);
	assert_memory_equal(m.counts, direct.counts, sizeof m.counts);
	assert_true(fabs(m.sum_s - (double)sum / 1e6) < 1e-9);
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		assert_true(idx[i] == MET_LAT_BOUNDS || b[idx[i]] >= vals[i]);
		assert_true(idx[i] == 0 || b[idx[i] - 1] < vals[i]);
		assert_true(m.counts[idx[i]] > 0);
	}
	assert_int_equal(m.counts[0], 2);
	assert_int_equal(m.counts[48], 2);             /* 999 and 1000 under le="0.001" */
	assert_int_equal(m.counts[MET_LAT_BOUNDS], 1); /* 200 s: +Inf */
	hdr_release(&h);
}

static char *render(const struct msnap *run, const struct mstudy *study)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	metrics_write(f, run, study);
	fclose(f);
	return text;
}

static struct msnap *snap(void)
{
	struct msnap *s = calloc(1, sizeof *s);
	assert_non_null(s);
	s->active = s->running = 1;
	s->run_id = 7;
	snprintf(s->label, sizeof s->label, "a \"b\" c\\d\ne");
	s->agent = 2;
	s->agents = 3;
	snprintf(s->client, sizeof s->client, "lean");
	s->step = 1;
	s->nsteps = 1;
	s->step_vus = 10;
	s->phase = MPH_STEADY;
	s->requests = 12;
	s->errors[ERR_HTTP_5XX] = 2;
	s->probe_s = NAN;
	mhist_add(&s->latency, metrics_lat_bounds(), MET_LAT_BOUNDS, 10);
	mhist_add(&s->latency, metrics_lat_bounds(), MET_LAT_BOUNDS, 2200);
	mhist_add(&s->latency, metrics_lat_bounds(), MET_LAT_BOUNDS, 2200);
	return s;
}

static void text(void **state)
{
	struct msnap *s = snap();
	struct mstudy st = {.active = 1, .study_id = 3, .rounds = 5, .round = 2, .runs = 10};
	const char *lbl = "run=\"7\",label=\"a \\\"b\\\" c\\\\d\\ne\",agent=\"2\"";
	char want[512], *t;
	(void)state;

	t = render(s, &st);
	snprintf(want, sizeof want, "soak_requests_total{%s} 12\n", lbl);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "soak_errors_total{%s,class=\"http_5xx\"} 2\n", lbl);
	assert_non_null(strstr(t, want));
	/* buckets are cumulative; le in plain decimals */
	snprintf(want, sizeof want, "soak_request_duration_seconds_bucket{%s,le=\"0.00001\"} 1\n",
	         lbl);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "soak_request_duration_seconds_bucket{%s,le=\"0.0022\"} 3\n",
	         lbl);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "soak_request_duration_seconds_bucket{%s,le=\"+Inf\"} 3\n",
	         lbl);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "soak_request_duration_seconds_sum{%s} 0.00441\n", lbl);
	assert_non_null(strstr(t, want));
	assert_non_null(strstr(t, "# TYPE soak_request_duration_seconds histogram\n"));
	assert_non_null(strstr(t, "soak_study_rounds{study=\"3\"} 5\n"));
	snprintf(want, sizeof want, "soak_phase{%s,phase=\"steady\"} 1\n", lbl);
	assert_non_null(strstr(t, want));
	/* a closed run: VUs, no lag, no arrival rate; no probe yet */
	assert_non_null(strstr(t, "soak_step_concurrency{"));
	assert_null(strstr(t, "soak_start_lag_seconds"));
	assert_null(strstr(t, "soak_step_arrivals_per_second"));
	assert_null(strstr(t, "soak_machine_probe_seconds"));
	free(t);

	/* open: the lag histogram, the arrival rate, dropped arrivals */
	s->open = 1;
	s->step_rate = 250.5;
	s->errors[ERR_DROPPED] = 4;
	t = render(s, NULL);
	assert_non_null(strstr(t, "# TYPE soak_start_lag_seconds histogram\n"));
	snprintf(want, sizeof want, "soak_step_arrivals_per_second{%s} 250.5\n", lbl);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "soak_dropped_total{%s} 4\n", lbl);
	assert_non_null(strstr(t, want));
	assert_null(strstr(t, "soak_study_"));
	free(t);

	/* nothing published: no series at all */
	s->active = 0;
	t = render(s, NULL);
	assert_string_equal(t, "");
	free(t);
	free(s);
}

static void sources(void **state)
{
	struct msnap *s = snap();
	char *t;
	(void)state;

	s->nsrc = 1;
	snprintf(s->src[0].name, sizeof s->src[0].name, "app");
	s->src[0].cpu_ratio = 1.5;
	s->src[0].rss_bytes = 1048576;
	s->src[0].pss_bytes = s->src[0].threads = s->src[0].fds = s->src[0].procs = NAN;
	s->src[0].mem_limit_bytes = s->src[0].sample_s = NAN;
	s->src[0].host_mem_used_bytes = s->src[0].host_mem_avail_bytes = NAN;
	for (int m = 0; m < 4; m++)
		s->src[0].host_cpu[m] = m == 1 ? 0.25 : NAN;
	s->src[0].gc = 1;
	s->src[0].heap_after_bytes = 62914560;
	s->src[0].heap_capacity_bytes = NAN;
	mhist_add(&s->src[0].pauses, metrics_gc_bounds(), MET_GC_BOUNDS, 3000);
	t = render(s, NULL);
	assert_non_null(strstr(t, ",source=\"app\"} 1.5\n"));
	assert_non_null(strstr(t, "soak_source_resident_memory_bytes{"));
	assert_null(strstr(t, "soak_source_threads"));
	assert_non_null(strstr(t, ",source=\"app\",mode=\"system\"} 0.25\n"));
	assert_null(strstr(t, "mode=\"user\""));
	assert_non_null(strstr(t, "soak_gc_heap_after_bytes{"));
	assert_non_null(strstr(t, ",source=\"app\",le=\"0.0033\"} 1\n"));
	assert_non_null(strstr(t, ",source=\"app\",le=\"0.0022\"} 0\n"));
	free(t);
	free(s);
}

static void listen_address(void **state)
{
	char host[64], err[256];
	int port = -1;
	(void)state;
	assert_int_equal(
	    metrics_listen_parse("127.0.0.1:0", host, sizeof host, &port, err, sizeof err), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 0);
	assert_int_equal(
	    metrics_listen_parse("[::1]:9464", host, sizeof host, &port, err, sizeof err), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 9464);
	assert_int_equal(metrics_listen_parse("9464", host, sizeof host, &port, err, sizeof err),
	                 -1);
	assert_non_null(strstr(err, "'9464' is not ADDRESS:PORT"));
	assert_int_equal(
	    metrics_listen_parse("127.0.0.1:70000", host, sizeof host, &port, err, sizeof err), -1);
	assert_int_equal(metrics_listen_parse(":9464", host, sizeof host, &port, err, sizeof err),
	                 -1);
}

/* GET path from the server on port; the whole answer. */
static char *get(int port, const char *path)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	char req[128], *buf = calloc(1, 1 << 20);
	size_t n = 0;
	ssize_t k;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_non_null(buf);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	snprintf(req, sizeof req, "GET %s HTTP/1.0\r\n\r\n", path);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while ((k = read(fd, buf + n, (1 << 20) - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	return buf;
}

static void server(void **state)
{
	struct metrics *m = NULL;
	struct msnap *s = snap();
	char err[256], url[128], *r;
	(void)state;

	assert_int_equal(metrics_start(&m, "127.0.0.1:0", err, sizeof err), 0);
	assert_true(metrics_port(m) > 0);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", metrics_port(m));
	assert_string_equal(metrics_url(m, (char[128]){0}, 128), url);
	r = get(metrics_port(m), "/metrics"); /* nothing published yet: an empty page */
	assert_non_null(strstr(r, "200 OK"));
	assert_null(strstr(r, "soak_"));
	free(r);
	metrics_publish_run(m, s);
	r = get(metrics_port(m), "/metrics");
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(r, "\nsoak_requests_total{run=\"7\""));
	free(r);
	r = get(metrics_port(m), "/other");
	assert_non_null(strstr(r, "404"));
	free(r);
	/* the port is taken: a clear error */
	struct metrics *m2 = NULL;
	char spec[64];
	snprintf(spec, sizeof spec, "127.0.0.1:%d", metrics_port(m));
	assert_int_equal(metrics_start(&m2, spec, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot listen on"));
	metrics_free(m);
	metrics_free(NULL);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bounds),  cmocka_unit_test(hdr_into_buckets), cmocka_unit_test(text),
	    cmocka_unit_test(sources), cmocka_unit_test(listen_address),   cmocka_unit_test(server),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
