/* queue: soak run's scenarios one after another through the runner (queue.h); the
 * process is set up for load once, and one metrics listener serves the whole queue. */
#include "queue.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exitcode.h"
#include "metrics.h"

/* Warns of each step that needs more sockets than files may be open (after
 * runner_prepare_process took the hard limit). */
static void warn_open_files(const struct scenario *scns, int n)
{
	struct rlimit rl;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < scns[i].nlevels; k++) {
			int open = scns[i].plan.model == PLAN_OPEN;
			int conns = open ? scns[i].plan.max_in_flight : scns[i].levels[k];
			if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
			    (rlim_t)conns + 64 > rl.rlim_cur)
				fprintf(stderr,
				        "soak run: warning: %s asks for %d %s but only %llu files "
				        "may be "
				        "open (ulimit -n): expect connection errors\n",
				        scns[i].file, conns, open ? "requests in flight" : "VUs",
				        (unsigned long long)rl.rlim_cur);
		}
}

/* 1 when some scenario is sent by libcurl (else its global set-up is not worth its cost:
 * its TLS set-up alone costs 2 MB of the lean driver's RSS). */
static int needs_curl(const struct scenario *scns, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(engine_client(&scns[i].plan, NULL, 0), "curl"))
			return 1;
	return 0;
}

/* Runs the scenarios one after another until a runtime failure or a signal. */
static int run_each(const struct scenario *scns, int n, const struct queue_opts *o,
                    struct runner_opts *ro)
{
	int64_t run_id = -1;
	int rc = EXIT_OK;

	ro->run_id = &run_id;
	for (int i = 0; i < n; i++) {
		int r = runner_run(&scns[i], ro);
		if (o->run_ids)
			o->run_ids[i] = run_id;
		if (o->ran)
			*o->ran = i + 1;
		if (o->after_run)
			r = o->after_run(o->after_arg, run_id, r);
		if (r == EXIT_SIGINT || r == EXIT_SIGTERM || r == EXIT_RUNTIME) {
			if (i + 1 < n)
				fprintf(stderr, "soak run: %d queued scenario%s not run\n",
				        n - i - 1, n - i - 1 == 1 ? "" : "s");
			return r;
		}
		if (r > rc)
			rc = r;
	}
	return rc;
}

int queue_run(const struct scenario *scns, int n, const struct queue_opts *o)
{
	struct runner_opts ro = o->run;
	struct metrics *metrics = NULL;
	int curl = needs_curl(scns, n), rc;
	char err[1024];

	if (o->ran)
		*o->ran = 0;
	runner_prepare_process(&ro);
	warn_open_files(scns, n);
	if (curl)
		curl_global_init(CURL_GLOBAL_DEFAULT);
	/* One /metrics for the whole queue: each run publishes into it in turn. */
	if (o->metrics) {
		if (metrics_start(&metrics, o->metrics, err, sizeof err) < 0) {
			fprintf(stderr, "soak run: --metrics: %s\n", err);
			rc = EXIT_RUNTIME;
			goto done;
		}
		fprintf(stderr, "soak run: live metrics on %s\n",
		        metrics_url(metrics, (char[320]){0}, 320));
	}
	ro.tty = isatty(STDERR_FILENO);
	ro.metrics = metrics;
	rc = run_each(scns, n, o, &ro);
done:
	metrics_free(metrics);
	if (curl)
		curl_global_cleanup();
	return rc;
}
