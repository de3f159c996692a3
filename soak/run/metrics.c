/* metrics: /metrics in Prometheus' text format (metrics.h).
 * The listener copies the last snapshot under a mutex the publisher takes briefly; the
 * engine's threads never see it.  Who may read it is metrics_web's business. */
#include "metrics.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/plan.h"
#include "log.h"
#include "metrics_web.h"

/*
 * Bucket bounds.  histogram_quantile() finds the bucket that holds the quantile's rank and
 * interpolates linearly inside it, so its answer is off the true value by at most that
 * bucket's width.  The latency buckets follow IEC 60063's E24 series, 24 bounds a decade
 * (1.0 1.1 1.2 1.3 1.5 ... 8.2 9.1): each bound is 6.7 % to 15.4 % above the one below, so a
 * p99 read from them is within 15 % of the true one at worst (within 10 % in most
 * buckets) and changes of the size soak's own verdicts call material (10 % of p99, 20 %
 * drift) show on a dashboard.  Their values are round numbers a reader recognises on an
 * axis (le="0.0022" is 2.2 ms).  They span 10 µs (a loopback answer) to 100 s, past which
 * requests time out: 169 bounds, about 16 KB of text a scrape.  Start lag uses the same.
 * GC pauses need less: E6 (1.0 1.5 2.2 3.3 4.7 6.8), 100 µs to 100 s.
 */
#define E24(x)                                                                                     \
	10 * (x), 11 * (x), 12 * (x), 13 * (x), 15 * (x), 16 * (x), 18 * (x), 20 * (x), 22 * (x),  \
	    24 * (x), 27 * (x), 30 * (x), 33 * (x), 36 * (x), 39 * (x), 43 * (x), 47 * (x),        \
	    51 * (x), 56 * (x), 62 * (x), 68 * (x), 75 * (x), 82 * (x), 91 * (x)
#define E6(x) 100 * (x), 150 * (x), 220 * (x), 330 * (x), 470 * (x), 680 * (x)
static const int64_t lat_bounds[MET_LAT_BOUNDS] = {E24(1LL),       E24(10LL),    E24(100LL),
                                                   E24(1000LL),    E24(10000LL), E24(100000LL),
                                                   E24(1000000LL), 100000000LL};
static const int64_t gc_bounds[MET_GC_BOUNDS] = {E6(1LL),     E6(10LL),     E6(100LL),  E6(1000LL),
                                                 E6(10000LL), E6(100000LL), 100000000LL};
#undef E24
#undef E6

const int64_t *metrics_lat_bounds(void)
{
	return lat_bounds;
}

const int64_t *metrics_gc_bounds(void)
{
	return gc_bounds;
}

/* The first bound >= us, or n (above them all); from `from` on (callers walk upwards). */
static int bucket_of(const int64_t *bounds, int n, int64_t us, int from)
{
	while (from < n && bounds[from] < us)
		from++;
	return from;
}

void mhist_add(struct mhist *h, const int64_t *bounds, int n, int64_t us)
{
	h->counts[bucket_of(bounds, n, us, 0)]++;
	h->count++;
	h->sum_s += (double)us / 1e6;
}

void mhist_add_hdr(struct mhist *h, const int64_t *bounds, int n, const struct hdr *src,
                   int64_t sum_us)
{
	int b = 0;

	if (!src->counts || src->total == 0)
		return;
	/* Each HDR bucket counts where its lowest value does: a bound falls inside an HDR
	 * bucket only above 2,048 µs, and then the two differ by less than 0.1 %. */
	for (int32_t i = 0; i <= src->max_index; i++) {
		int64_t c = src->counts[i];
		if (!c)
			continue;
		b = bucket_of(bounds, n, hdr_value_at_index(src, i), b);
		h->counts[b] += (uint64_t)c;
	}
	h->count += (uint64_t)src->total;
	h->sum_s += (double)sum_us / 1e6;
}

/* --- the text ------------------------------------------------------------------------ */

/* A label value, escaped as the format wants (backslash, double quote, newline). */
static void put_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*v, f);
	}
}

/* µs as seconds, in plain decimals without trailing zeros: 2200 -> "0.0022". */
static void put_seconds(FILE *f, int64_t us)
{
	char b[32];
	int n = snprintf(b, sizeof b, "%lld.%06lld", (long long)(us / 1000000),
	                 (long long)(us % 1000000));
	while (n > 0 && b[n - 1] == '0')
		b[--n] = '\0';
	if (n > 0 && b[n - 1] == '.')
		b[--n] = '\0';
	fputs(b, f);
}

/* A number as Prometheus reads it: integers exactly, others with 15 significant digits. */
static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.15g", v);
}

/* What every series of one writer carries: the run's labels (or the study's). */
struct out {
	FILE *f;
	char labels[320]; /* `run="7",label="x",agent="1"` */
};

static void head(const struct out *o, const char *name, const char *type, const char *help)
{
	fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{labels[,extra]} value */
static void sample(const struct out *o, const char *name, const char *extra, double v)
{
	fprintf(o->f, "%s{%s%s%s} ", name, o->labels, extra && *extra ? "," : "",
	        extra ? extra : "");
	put_num(o->f, v);
	fputc('\n', o->f);
}

static void metric(const struct out *o, const char *name, const char *type, const char *help,
                   double v)
{
	head(o, name, type, help);
	sample(o, name, NULL, v);
}

/* A histogram's buckets (summed up here), sum and count, with `extra` labels. */
static void hist_series(const struct out *o, const char *name, const char *extra,
                        const struct mhist *h, const int64_t *bounds, int n)
{
	uint64_t run = 0;
	const char *sep = extra && *extra ? "," : "";
	for (int i = 0; i <= n; i++) {
		run += h->counts[i];
		fprintf(o->f, "%s_bucket{%s%s%s,le=\"", name, o->labels, sep, extra ? extra : "");
		if (i < n)
			put_seconds(o->f, bounds[i]);
		else
			fputs("+Inf", o->f);
		fprintf(o->f, "\"} %llu\n", (unsigned long long)run);
	}
	fprintf(o->f, "%s_sum{%s%s%s} ", name, o->labels, sep, extra ? extra : "");
	put_num(o->f, h->sum_s);
	fprintf(o->f, "\n%s_count{%s%s%s} %llu\n", name, o->labels, sep, extra ? extra : "",
	        (unsigned long long)h->count);
}

static const char *const phase_names[MPH_N] = {"rampup", "warmup", "steady", "drain"};

/* `source="NAME"` (and `,mode="MODE"` when mode) into buf, the name escaped. */
static const char *source_label(char *buf, size_t len, const char *name, const char *mode)
{
	FILE *f = fmemopen(buf, len, "w");
	if (!f) {
		buf[0] = '\0';
		return buf;
	}
	fputs("source=\"", f);
	put_value(f, name);
	fputc('"', f);
	if (mode)
		fprintf(f, ",mode=\"%s\"", mode);
	fclose(f);
	return buf;
}

/* The gauges per collector source: name, help, and the msource field (NAN: not shown). */
struct sgauge {
	const char *name, *help;
	size_t field;
};
#define F(x) offsetof(struct msource, x)
static const struct sgauge sgauges[] = {
    {"soak_source_cpu_ratio",
     "CPU time of the source's processes (summed) per second of wall time, from its "
     "collector's newest sample: 1 is one core busy",
     F(cpu_ratio)},
    {"soak_source_resident_memory_bytes",
     "Resident set size of the source's processes, summed (newest sample)", F(rss_bytes)},
    {"soak_source_proportional_memory_bytes",
     "Proportional set size (PSS) of the source's processes, summed (newest sample)", F(pss_bytes)},
    {"soak_source_threads", "Threads of the source's processes, summed (newest sample)",
     F(threads)},
    {"soak_source_open_fds",
     "Open file descriptors of the source's processes, summed (newest sample)", F(fds)},
    {"soak_source_processes", "Processes the source's collector matched (newest sample)", F(procs)},
    {"soak_source_memory_limit_bytes", "The source's configured memory limit (memory_limit)",
     F(mem_limit_bytes)},
    {"soak_source_last_sample_timestamp_seconds",
     "When the source's collector wrote its newest sample (Unix time)", F(sample_s)},
    {"soak_host_memory_used_bytes",
     "Host memory in use (total minus available), from the source's collector (host = yes)",
     F(host_mem_used_bytes)},
    {"soak_host_memory_available_bytes",
     "Host memory available, from the source's collector (host = yes)", F(host_mem_avail_bytes)},
    {"soak_gc_heap_after_bytes",
     "JVM heap in use after the newest garbage collection that reported it", F(heap_after_bytes)},
    {"soak_gc_heap_capacity_bytes",
     "JVM heap size at the newest garbage collection that reported it", F(heap_capacity_bytes)},
};
#undef F

static void write_sources(const struct out *o, const struct msnap *s)
{
	static const char *const modes[4] = {"user", "system", "iowait", "steal"};
	const int64_t *gb = metrics_gc_bounds();
	char extra[192];
	int any;

	for (size_t g = 0; g < sizeof sgauges / sizeof sgauges[0]; g++) {
		any = 0;
		for (int i = 0; i < s->nsrc; i++) {
			double v = *(const double *)((const char *)&s->src[i] + sgauges[g].field);
			if (isnan(v))
				continue;
			if (!any++)
				head(o, sgauges[g].name, "gauge", sgauges[g].help);
			sample(o, sgauges[g].name,
			       source_label(extra, sizeof extra, s->src[i].name, NULL), v);
		}
	}
	any = 0;
	for (int i = 0; i < s->nsrc; i++)
		for (int m = 0; m < 4; m++) {
			if (isnan(s->src[i].host_cpu[m]))
				continue;
			if (!any++)
				head(o, "soak_host_cpu_ratio", "gauge",
				     "Host-wide CPU time per second of wall time in a mode, of all "
				     "cores (1 "
				     "is every core busy), from the source's collector (host = "
				     "yes)");
			sample(o, "soak_host_cpu_ratio",
			       source_label(extra, sizeof extra, s->src[i].name, modes[m]),
			       s->src[i].host_cpu[m]);
		}
	any = 0;
	for (int i = 0; i < s->nsrc; i++) {
		if (!s->src[i].gc)
			continue;
		if (!any++)
			head(o, "soak_gc_pause_seconds", "histogram",
			     "Stop-the-world garbage collection pauses of the source's JVM during "
			     "the run, "
			     "from its GC log");
		hist_series(o, "soak_gc_pause_seconds",
		            source_label(extra, sizeof extra, s->src[i].name, NULL),
		            &s->src[i].pauses, gb, MET_GC_BOUNDS);
	}
}

static void write_run(FILE *f, const struct msnap *s)
{
	struct out o = {.f = f};
	const int64_t *lb = metrics_lat_bounds();
	char extra[96];
	FILE *lf = fmemopen(o.labels, sizeof o.labels, "w");

	if (!lf)
		return;
	fprintf(lf, "run=\"%lld\",label=\"", (long long)s->run_id);
	put_value(lf, s->label);
	fprintf(lf, "\",agent=\"%d\"", s->agent);
	fclose(lf);

	head(&o, "soak_run_info", "gauge",
	     "The run: its workload model (closed or open) and the client that sends; always 1");
	snprintf(extra, sizeof extra, "model=\"%s\",client=\"%s\"", s->open ? "open" : "closed",
	         s->client);
	sample(&o, "soak_run_info", extra, 1);
	metric(&o, "soak_run_running", "gauge", "1 while the run sends, 0 once it has ended",
	       s->running);
	metric(&o, "soak_run_start_time_seconds", "gauge", "When the run began (Unix time)",
	       s->started_s);
	metric(&o, "soak_agents", "gauge", "Agents the run is shared among (--agent K/N: N)",
	       s->agents);
	metric(&o, "soak_step", "gauge", "The step being run (1-based; a fixed run has one)",
	       s->step);
	metric(&o, "soak_steps", "gauge", "Steps planned", s->nsteps);
	if (s->open)
		metric(&o, "soak_step_arrivals_per_second", "gauge",
		       "The step's arrival rate (open model), this agent's share", s->step_rate);
	else
		metric(&o, "soak_step_concurrency", "gauge",
		       "The step's virtual users (closed model), this agent's share", s->step_vus);
	head(&o, "soak_phase", "gauge",
	     "1 for the phase of the current step the run is in, 0 for the others (only steady "
	     "intervals count in a step's figures)");
	for (int p = 0; p < MPH_N; p++) {
		snprintf(extra, sizeof extra, "phase=\"%s\"", phase_names[p]);
		sample(&o, "soak_phase", extra, (int)s->phase == p);
	}
	if (!s->open)
		metric(&o, "soak_virtual_users", "gauge",
		       "Virtual users running (sending, waiting for an answer or thinking)",
		       s->vus);
	metric(&o, "soak_requests_in_flight", "gauge", "Requests sent and not yet answered",
	       s->inflight);
	metric(&o, "soak_requests_total", "counter",
	       "Requests completed: answered or failed (dropped arrivals included)",
	       (double)s->requests);
	head(&o, "soak_errors_total", "counter",
	     "Requests that failed, by class (client_ports, dns and dropped are the generator's "
	     "own limits)");
	for (int c = 0; c < ERR_NCLASS; c++) {
		snprintf(extra, sizeof extra, "class=\"%s\"", err_class_name(c));
		sample(&o, "soak_errors_total", extra, (double)s->errors[c]);
	}
	if (s->open)
		metric(&o, "soak_dropped_total", "counter",
		       "Arrivals dropped unsent, more than max_lag behind the schedule (also "
		       "soak_errors_total{class=\"dropped\"})",
		       (double)s->errors[ERR_DROPPED]);
	metric(&o, "soak_connections_opened_total", "counter", "TCP connections opened",
	       (double)s->new_conns);
	metric(&o, "soak_response_bytes_total", "counter", "Response bytes received",
	       (double)s->bytes);
	head(&o, "soak_request_duration_seconds", "histogram",
	     s->open ? "Latency of answered requests, from each request's intended start on the "
	               "schedule (open model)"
	             : "Latency of answered requests, from each request's start");
	hist_series(&o, "soak_request_duration_seconds", NULL, &s->latency, lb, MET_LAT_BOUNDS);
	if (s->open) {
		head(&o, "soak_start_lag_seconds", "histogram",
		     "Start lag of every request sent: how late the generator sent it after its "
		     "intended start");
		hist_series(&o, "soak_start_lag_seconds", NULL, &s->lag, lb, MET_LAT_BOUNDS);
	}
	metric(&o, "soak_generator_threads", "gauge", "Engine threads", s->threads);
	metric(&o, "soak_generator_cpu_seconds_total", "counter", "CPU time of the engine threads",
	       s->gen_cpu_s);
	metric(&o, "soak_generator_cpu_wait_seconds_total", "counter",
	       "Time the engine threads were ready to run but waited for a core", s->gen_wait_s);
	if (!isnan(s->probe_s))
		metric(
		    &o, "soak_machine_probe_seconds", "gauge",
		    "CPU time of the machine probe's fixed work, newest: it grows when the machine "
		    "slows",
		    s->probe_s);
	write_sources(&o, s);
}

static void write_study(FILE *f, const struct mstudy *s)
{
	struct out o = {.f = f};
	snprintf(o.labels, sizeof o.labels, "study=\"%lld\"", (long long)s->study_id);
	metric(&o, "soak_study_running", "gauge", "1 until the study ends", s->running);
	metric(&o, "soak_study_rounds", "gauge", "Rounds planned", s->rounds);
	metric(&o, "soak_study_round", "gauge", "The round of the run going now", s->round);
	metric(&o, "soak_study_runs", "gauge", "Measured runs planned", s->runs);
	metric(&o, "soak_study_runs_done", "gauge", "Measured runs done", s->done);
}

void metrics_write(FILE *f, const struct msnap *run, const struct mstudy *study)
{
	if (study && study->active)
		write_study(f, study);
	if (run && run->active)
		write_run(f, run);
}

/* --- the listener ------------------------------------------------------------------------ */

#define METRICS_CONNS  512 /* connections open at once */
#define METRICS_IDLE_S 10  /* an idle connection is closed after this many seconds */

struct metrics {
	struct MHD_Daemon *daemon;
	struct mweb web; /* who may read it, over what (the options after the address) */
	char spec[300]; /* as given */
	char host[256]; /* its address part */
	int port;       /* bound */
	pthread_mutex_t lock;
	struct msnap run;    /* under lock */
	struct mstudy study; /* under lock */
};

int metrics_listen_parse(const char *spec, char *host, size_t hostlen, int *port, char *err,
                         size_t errlen)
{
	char tmp[300];
	struct mweb w;
	size_t n;
	int zero;

	/* ADDR:PORT, then the options (users=, cert=, key=: metrics_web.h). */
	if (mweb_parse(spec, &w, err, errlen) < 0)
		return -1;
	spec = w.addr;
	n = strlen(spec);
	zero = n >= 2 && !strcmp(spec + n - 2, ":0");
	if (n >= sizeof tmp) {
		snprintf(err, errlen, "'%.40s...': too long an address", spec);
		return -1;
	}
	/* Port 0 (the kernel picks one) is for tests; plan's parser wants 1..65535. */
	snprintf(tmp, sizeof tmp, "%.*s%s", (int)(zero ? n - 1 : n), spec, zero ? "1" : "");
	if (plan_address_split(tmp, host, hostlen, port, err, errlen) < 0) {
		snprintf(err, errlen, "'%s' is not ADDRESS:PORT (e.g. 127.0.0.1:9464)", spec);
		return -1;
	}
	if (zero)
		*port = 0;
	return 0;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	log_vlib(LOG_WARN, "metrics: libmicrohttpd: ", fmt, ap);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result rc;
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Whether the request's basic authentication passes the users= file. */
static int allowed(struct metrics *m, struct MHD_Connection *c)
{
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);
	int ok = mweb_check(&m->web, user, pass);

	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* 401 with the challenge Prometheus answers with its basic_auth. */
static enum MHD_Result refuse(struct MHD_Connection *c)
{
	static const char msg[] = "soak: /metrics needs a user and password here\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(msg), (void *)(uintptr_t)msg, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	rc = MHD_queue_basic_auth_fail_response(c, "soak metrics", r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	struct metrics *m = cls;
	static const char not_found[] = "soak: /metrics has the live run in Prometheus' text "
	                                "format\n";
	static const char not_allowed[] = "only GET and HEAD\n";
	struct { /* the snapshot, copied out: the text is written without the lock */
		struct msnap run;
		struct mstudy study;
	} * copy;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (m->web.nusers > 0 && !allowed(m, c))
		return refuse(c);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
		             (char *)(uintptr_t)not_allowed, strlen(not_allowed),
		             MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", (char *)(uintptr_t)not_found,
		             strlen(not_found), MHD_RESPMEM_PERSISTENT);
	if (!(copy = malloc(sizeof *copy)))
		return MHD_NO;
	pthread_mutex_lock(&m->lock);
	copy->run = m->run;
	copy->study = m->study;
	pthread_mutex_unlock(&m->lock);
	f = open_memstream(&text, &len);
	if (!f) {
		free(copy);
		return MHD_NO;
	}
	metrics_write(f, &copy->run, &copy->study);
	free(copy);
	if (fclose(f) != 0) {
		free(text);
		return MHD_NO;
	}
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, len,
	             MHD_RESPMEM_MUST_FREE);
}

int metrics_start(struct metrics **out, const char *spec, char *err, size_t errlen)
{
	struct metrics *m;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai = NULL;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	int gai;

	*out = NULL;
	if (!(m = calloc(1, sizeof *m))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&m->lock, NULL);
	snprintf(m->spec, sizeof m->spec, "%s", spec);
	if (metrics_listen_parse(spec, m->host, sizeof m->host, &m->port, err, errlen) < 0 ||
	    mweb_parse(spec, &m->web, err, errlen) < 0 || mweb_load(&m->web, err, errlen) < 0)
		goto fail;
	if (m->web.cert_pem) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "this libmicrohttpd has no TLS: /metrics cannot use cert=");
			goto fail;
		}
		flags |= MHD_USE_TLS;
	}
	if ((gai = getaddrinfo(m->host, NULL, &hints, &ai)) != 0) {
		snprintf(err, errlen, "cannot listen on '%s': %s", spec, gai_strerror(gai));
		goto fail;
	}
	if (ai->ai_family == AF_INET6) {
		((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons((uint16_t)m->port);
		flags |= MHD_USE_IPv6;
	} else {
		((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)m->port);
	}
	/* One thread.  Prometheus scrapes over one kept connection, but whoever can reach the
	 * port can open idle ones: at the old limit of 32, held for a minute each, they
	 * stalled every scrape.  Connections idle for METRICS_IDLE_S are closed (Prometheus
	 * opens a new one), and up to METRICS_CONNS may be open at once. */
	struct MHD_OptionItem tls[] = {
	    {MHD_OPTION_HTTPS_MEM_KEY, 0, m->web.key_pem},
	    {MHD_OPTION_HTTPS_MEM_CERT, 0, m->web.cert_pem},
	    {MHD_OPTION_END, 0, NULL},
	};
	if (!m->web.cert_pem)
		tls[0].option = MHD_OPTION_END;
	m->daemon = MHD_start_daemon(
	    flags, (uint16_t)m->port, NULL, NULL, on_request, m, MHD_OPTION_EXTERNAL_LOGGER,
	    on_mhd_log, m, MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)METRICS_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_S,
	    MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
	freeaddrinfo(ai);
	if (!m->daemon) {
		snprintf(err, errlen, "cannot listen on '%s' (see the message above)", spec);
		goto fail;
	}
	info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
	if (info && info->port)
		m->port = info->port;
	*out = m;
	return 0;
fail:
	metrics_free(m);
	return -1;
}

int metrics_port(const struct metrics *m)
{
	return m->port;
}

const char *metrics_spec(const struct metrics *m)
{
	return m->spec;
}

char *metrics_url(const struct metrics *m, char *buf, size_t len)
{
	const char *scheme = m->web.cert_pem ? "https" : "http";

	snprintf(buf, len, strchr(m->host, ':') ? "%s://[%s]:%d/metrics" : "%s://%s:%d/metrics",
	         scheme, m->host, m->port);
	return buf;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	if (m->daemon)
		MHD_stop_daemon(m->daemon);
	mweb_release(&m->web);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void metrics_publish_run(struct metrics *m, const struct msnap *s)
{
	pthread_mutex_lock(&m->lock);
	m->run = *s;
	pthread_mutex_unlock(&m->lock);
}

void metrics_publish_study(struct metrics *m, const struct mstudy *s)
{
	pthread_mutex_lock(&m->lock);
	m->study = *s;
	pthread_mutex_unlock(&m->lock);
}
