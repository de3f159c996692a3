/* stats: what one engine thread counts in an interval, merged by the aggregator, and
 * the error classes' fixed names (stats.h).  An istats has one writer at a time. */
#include "stats.h"

#include <string.h>

static const char *const class_names[ERR_NCLASS] = {
    "http_4xx",        "http_5xx",        "status_mismatch", "body_mismatch",   "timeout",
    "connect_refused", "connect_timeout", "reset",           "client_ports",    "dns",
    "protocol",        "other",           "dropped",         "tls_certificate", "tls_timeout",
    "tls_alert",       "h2_rst_stream",   "h2_goaway",
};

const char *err_class_name(enum err_class c)
{
	return (unsigned)c < ERR_NCLASS ? class_names[c] : "other";
}

int err_class_client_side(enum err_class c)
{
	return c == ERR_CLIENT_PORTS || c == ERR_DNS || c == ERR_DROPPED;
}

int err_class_parse(const char *name)
{
	for (int i = 0; i < ERR_NCLASS; i++)
		if (strcmp(name, class_names[i]) == 0)
			return i;
	return -1;
}

int istats_init(struct istats *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	return hdr_init_latency(&s->hist, err, errlen);
}

int istats_init_open(struct istats *s, char *err, size_t errlen)
{
	if (istats_init(s, err, errlen) < 0)
		return -1;
	if (hdr_init_latency(&s->svc, err, errlen) < 0 ||
	    hdr_init_latency(&s->lag, err, errlen) < 0) {
		istats_release(s);
		return -1;
	}
	s->open = 1;
	return 0;
}

int istats_init_tls(struct istats *s, char *err, size_t errlen)
{
	if (s->tls)
		return 0;
	if (hdr_init_latency(&s->tls_hist, err, errlen) < 0)
		return -1;
	s->tls = 1;
	return 0;
}

void istats_release(struct istats *s)
{
	hdr_release(&s->hist);
	hdr_release(&s->svc);
	hdr_release(&s->lag);
	hdr_release(&s->tls_hist);
	s->open = 0;
	s->tls = 0;
}

void istats_reset(struct istats *s)
{
	struct hdr h = s->hist, v = s->svc, l = s->lag, k = s->tls_hist;
	int open = s->open, tls = s->tls;
	hdr_reset(&h);
	if (open) {
		hdr_reset(&v);
		hdr_reset(&l);
	}
	if (tls)
		hdr_reset(&k);
	*s =
	    (struct istats){.hist = h, .svc = v, .lag = l, .tls_hist = k, .open = open, .tls = tls};
}

void istats_add(struct istats *dst, const struct istats *src)
{
	dst->overflow += hdr_add(&dst->hist, &src->hist);
	if (dst->open && src->open) {
		dst->overflow += hdr_add(&dst->svc, &src->svc);
		dst->overflow += hdr_add(&dst->lag, &src->lag);
	}
	if (dst->tls && src->tls)
		dst->overflow += hdr_add(&dst->tls_hist, &src->tls_hist);
	dst->tls_full += src->tls_full;
	dst->tls_resumed += src->tls_resumed;
	dst->tls_sum_us += src->tls_sum_us;
	dst->h2_rst += src->h2_rst;
	dst->h2_goaway += src->h2_goaway;
	dst->svc_sum_us += src->svc_sum_us;
	dst->cpu_ns += src->cpu_ns;
	dst->wait_ns += src->wait_ns;
	dst->requests += src->requests;
	dst->errors += src->errors;
	dst->bytes += src->bytes;
	dst->new_conns += src->new_conns;
	dst->lat_sum_us += src->lat_sum_us;
	dst->connect_sum_us += src->connect_sum_us;
	dst->connect_n += src->connect_n;
	dst->ttfb_sum_us += src->ttfb_sum_us;
	dst->ttfb_n += src->ttfb_n;
	dst->overflow += src->overflow;
	for (int c = 0; c < ERR_NCLASS; c++) {
		if (src->err_count[c] && !dst->err_count[c])
			memcpy(dst->err_sample[c], src->err_sample[c], ERR_SAMPLE_LEN);
		dst->err_count[c] += src->err_count[c];
	}
}

void istats_error(struct istats *s, enum err_class c, const char *msg)
{
	s->errors++;
	if (s->err_count[c]++ == 0) {
		size_t n = strlen(msg);
		if (n >= ERR_SAMPLE_LEN)
			n = ERR_SAMPLE_LEN - 1;
		memcpy(s->err_sample[c], msg, n);
		s->err_sample[c][n] = '\0';
	}
}

void istats_figures(const struct istats *s, double seconds, struct figures *f)
{
	int64_t answered = hdr_total(&s->hist);

	memset(f, 0, sizeof *f);
	f->requests = s->requests;
	f->errors = s->errors;
	f->bytes = s->bytes;
	f->new_conns = s->new_conns;
	f->seconds = seconds;
	f->tps = seconds > 0 ? (double)s->requests / seconds : 0;
	f->error_pct = s->requests > 0 ? 100.0 * (double)s->errors / (double)s->requests : 0;
	f->mean_us = answered > 0 ? (double)s->lat_sum_us / (double)answered : 0;
	f->connect_us = s->connect_n > 0 ? (double)s->connect_sum_us / (double)s->connect_n : 0;
	f->ttfb_us = s->ttfb_n > 0 ? (double)s->ttfb_sum_us / (double)s->ttfb_n : 0;
	if (answered > 0) {
		f->p50_us = hdr_value_at_percentile(&s->hist, 50);
		f->p90_us = hdr_value_at_percentile(&s->hist, 90);
		f->p95_us = hdr_value_at_percentile(&s->hist, 95);
		f->p99_us = hdr_value_at_percentile(&s->hist, 99);
		f->p999_us = hdr_value_at_percentile(&s->hist, 99.9);
		f->max_us = hdr_max(&s->hist);
	}
	f->dropped = s->err_count[ERR_DROPPED];
	f->h2_rst = s->h2_rst;
	f->h2_goaway = s->h2_goaway;
	f->tls_full = s->tls_full;
	f->tls_resumed = s->tls_resumed;
	if (s->tls_full + s->tls_resumed > 0)
		f->tls_mean_us = (double)s->tls_sum_us / (double)(s->tls_full + s->tls_resumed);
	if (s->tls && hdr_total(&s->tls_hist) > 0) {
		f->tls_p50_us = hdr_value_at_percentile(&s->tls_hist, 50);
		f->tls_p99_us = hdr_value_at_percentile(&s->tls_hist, 99);
	}
	if (s->open) {
		int64_t served = hdr_total(&s->svc);
		if (served > 0) {
			f->svc_p50_us = hdr_value_at_percentile(&s->svc, 50);
			f->svc_p99_us = hdr_value_at_percentile(&s->svc, 99);
			f->svc_mean_us = (double)s->svc_sum_us / (double)served;
		}
		if (hdr_total(&s->lag) > 0) {
			f->lag_p99_us = hdr_value_at_percentile(&s->lag, 99);
			f->lag_max_us = hdr_max(&s->lag);
		}
	}
}
