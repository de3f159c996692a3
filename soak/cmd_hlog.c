/*
 * soak hlog — summarise HdrHistogram interval logs (.hlog): per file, the number of
 * intervals, the total count, StartTime, and mean/p50/p90/p99/p99.9/max of the selected
 * intervals merged into one accumulator.
 *
 * The accumulator has lowest 1, highest 3600000000000 and 3 significant digits, as the
 * HdrHistogram reference readers use: each interval is re-recorded into that layout, and the
 * figures depend on it (see tests/data/hdr/MANIFEST.md).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "clock.h"
#include "cmd.h"
#include "hdr.h"
#include "hlog.h"

#define ACC_LOWEST         1
#define ACC_HIGHEST        3600000000000LL
#define ACC_DIGITS         3
#define MAX_TAGS           64  /* distinct series listed per file; more are counted only */
#define DEFAULT_UNIT_RATIO 1e6 /* HdrHistogram's tools assume ns and print ms */

struct hlog_opts {
	const char *tag; /* series to read: "" untagged (default), "*" all, else a tag name */
	int has_from;    /* --from given */
	int64_t from_ms; /* earliest start kept, ms after StartTime (inclusive) */
	int has_to;      /* --to given */
	int64_t to_ms;   /* latest start kept, ms after StartTime (inclusive) */
	int json;        /* --json: one JSON object per file and line */
};

struct hlog_summary {
	long intervals;                    /* intervals selected and merged */
	int64_t dropped;                   /* counts outside the accumulator's range */
	int has_start;                     /* the file has a StartTime */
	int64_t start_ms;                  /* StartTime, epoch ms */
	int64_t origin_ms;                 /* what --from/--to count from: StartTime, or the first
	                                    * interval's start when the file has none */
	int has_origin;                    /* origin_ms is set */
	char tags[MAX_TAGS][HLOG_TAG_MAX]; /* distinct series in file order; "" = untagged */
	int ntags;                         /* entries used in tags */
	int more_tags;                     /* distinct series beyond MAX_TAGS */
	double best_column;                /* largest Interval_Max column seen (for the ratio) */
	double unit_ratio; /* value / unit_ratio = ms, inferred from the max column */
	struct hdr acc;    /* the merged histogram */
};

static const struct option long_opts[] = {
    {"tag", required_argument, NULL, 't'}, {"from", required_argument, NULL, 'f'},
    {"to", required_argument, NULL, 'T'},  {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0}};

static void help(void)
{
	printf("usage: soak hlog FILE... [--tag T] [--from S] [--to S] [--json]\n"
	       "\n"
	       "Summarises HdrHistogram interval logs: per file the number of intervals, the\n"
	       "total count, StartTime, and mean, p50, p90, p99, p99.9 and max of the selected\n"
	       "intervals merged (lowest 1, highest 3600000000000, 3 significant digits).\n"
	       "Values are in the unit the log recorded (ns for jHiccup); the text form also\n"
	       "shows them in ms, dividing by the unit ratio that the Interval_Max column implies\n"
	       "(1000000 when it cannot tell).\n"
	       "\n"
	       "  --tag T    only the series tagged T; the default is the untagged series,\n"
	       "             --tag '' names it explicitly, --tag '*' merges every series\n"
	       "  --from S   only intervals starting S seconds or more after StartTime\n"
	       "  --to S     only intervals starting S seconds or less after StartTime\n"
	       "             (both inclusive; without a StartTime, from the first interval)\n"
	       "  --json     one JSON object per file and line: file, intervals, total_count,\n"
	       "             start_time_s, start_time, tags (\"\" = untagged), unit_ratio, min,\n"
	       "             mean, p50, p90, p99, p999, max, dropped\n"
	       "\n"
	       "Exit status 2 when a file cannot be read or is malformed (FILE:LINE: reason).\n");
}

/* Seconds (non-negative, finite) into ms. */
static int parse_secs_opt(const char *name, const char *s, int64_t *ms)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !isfinite(v) || v < 0 || v > 1e12) {
		fprintf(stderr, "soak hlog: bad %s '%s': expected seconds >= 0\n", name, s);
		return -1;
	}
	*ms = llround(v * 1000);
	return 0;
}

static void note_tag(struct hlog_summary *s, const char *tag)
{
	for (int i = 0; i < s->ntags; i++)
		if (strcmp(s->tags[i], tag) == 0)
			return;
	if (s->ntags == MAX_TAGS) {
		s->more_tags++;
		return;
	}
	snprintf(s->tags[s->ntags++], HLOG_TAG_MAX, "%s", tag);
}

static int selected(const struct hlog_opts *o, const struct hlog_summary *s,
                    const struct hlog_interval *iv)
{
	int64_t rel = iv->start_ms - s->origin_ms;

	if (strcmp(o->tag, "*") != 0 && strcmp(o->tag, iv->tag) != 0)
		return 0;
	if (o->has_from && rel < o->from_ms)
		return 0;
	if (o->has_to && rel > o->to_ms)
		return 0;
	return 1;
}

/* The ratio between recorded values and the Interval_Max column, as a power of ten. */
static void note_ratio(struct hlog_summary *s, const struct hlog_interval *iv)
{
	int64_t max = hdr_max(&iv->hist);

	if (iv->max_column <= s->best_column || max <= 0)
		return;
	s->best_column = iv->max_column;
	s->unit_ratio = pow(10, round(log10((double)max / iv->max_column)));
}

/* Reads and merges one file; 0, or with the message in err -1 when the file cannot be
 * opened (the message names no line) and -2 when it is malformed (FILE:LINE: ...). */
static int summarise(const char *path, const struct hlog_opts *o, struct hlog_summary *s, char *err,
                     size_t errlen)
{
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	int rc, got;

	memset(s, 0, sizeof *s);
	s->unit_ratio = DEFAULT_UNIT_RATIO;
	if (hdr_init(&s->acc, ACC_LOWEST, ACC_HIGHEST, ACC_DIGITS, err, errlen) < 0)
		return -1;
	if (hlog_open(&r, path, err, errlen) < 0)
		return -1;
	rc = -2;
	while ((got = hlog_next(&r, &iv, err, errlen)) > 0) {
		if (!s->has_origin) {
			s->origin_ms = r.has_start ? r.start_ms : iv.start_ms;
			s->has_origin = 1;
		}
		note_tag(s, iv.tag);
		note_ratio(s, &iv);
		if (!selected(o, s, &iv))
			continue;
		s->intervals++;
		s->dropped += hdr_add(&s->acc, &iv.hist);
	}
	if (got < 0)
		goto cleanup;
	s->has_start = r.has_start;
	s->start_ms = r.start_ms;
	rc = 0;
cleanup:
	hlog_interval_release(&iv);
	hlog_close(&r);
	return rc;
}

static void print_json(const char *path, const struct hlog_summary *s)
{
	const struct hdr *h = &s->acc;
	char iso[40];

	printf("{\"file\":");
	json_write_str(stdout, path);
	printf(",\"intervals\":%ld,\"total_count\":%lld", s->intervals, (long long)hdr_total(h));
	if (s->has_start)
		printf(",\"start_time_s\":%lld.%03lld,\"start_time\":\"%s\"",
		       (long long)(s->start_ms / 1000), (long long)(s->start_ms % 1000),
		       clock_iso(s->start_ms, iso, sizeof iso));
	else
		printf(",\"start_time_s\":null,\"start_time\":null");
	printf(",\"tags\":[");
	for (int i = 0; i < s->ntags; i++) {
		if (i)
			putchar(',');
		json_write_str(stdout, s->tags[i]);
	}
	printf("],\"unit_ratio\":%.0f,\"min\":%lld,\"mean\":%.3f,\"p50\":%lld,\"p90\":%lld,"
	       "\"p99\":%lld,\"p999\":%lld,\"max\":%lld,\"dropped\":%lld}\n",
	       s->unit_ratio, (long long)hdr_min(h), hdr_mean(h),
	       (long long)hdr_value_at_percentile(h, 50), (long long)hdr_value_at_percentile(h, 90),
	       (long long)hdr_value_at_percentile(h, 99),
	       (long long)hdr_value_at_percentile(h, 99.9), (long long)hdr_max(h),
	       (long long)s->dropped);
}

static void print_value(const char *name, double v, double ratio)
{
	printf("  %-12s %-16.*f (%.3f ms)\n", name, v == floor(v) ? 0 : 3, v, v / ratio);
}

static void print_text(const char *path, const struct hlog_summary *s)
{
	const struct hdr *h = &s->acc;
	char iso[40];
	static const struct {
		const char *name;
		double p;
	} pcts[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}};

	printf("%s\n", path);
	printf("  %-12s %ld\n", "intervals", s->intervals);
	printf("  %-12s %lld\n", "total count", (long long)hdr_total(h));
	if (s->has_start)
		printf("  %-12s %s (%lld.%03lld s since epoch)\n", "start time",
		       clock_iso(s->start_ms, iso, sizeof iso), (long long)(s->start_ms / 1000),
		       (long long)(s->start_ms % 1000));
	else
		printf("  %-12s (none in the file)\n", "start time");
	printf("  %-12s", "tags");
	for (int i = 0; i < s->ntags; i++)
		printf(" %s", s->tags[i][0] ? s->tags[i] : "(untagged)");
	if (s->more_tags)
		printf(" and %d more", s->more_tags);
	printf("\n  %-12s %.0f (value / ratio = ms)\n", "unit ratio", s->unit_ratio);
	print_value("mean", hdr_mean(h), s->unit_ratio);
	for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
		print_value(pcts[i].name, (double)hdr_value_at_percentile(h, pcts[i].p),
		            s->unit_ratio);
	print_value("max", (double)hdr_max(h), s->unit_ratio);
	if (s->dropped)
		printf("  %-12s %lld (outside 0..%lld)\n", "dropped", (long long)s->dropped,
		       (long long)ACC_HIGHEST);
}

int cmd_hlog(int argc, char **argv)
{
	struct hlog_opts o = {.tag = ""};
	struct hlog_summary *s = NULL;
	char err[512];
	int c, rc = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			o.tag = optarg;
			break;
		case 'f':
			if (parse_secs_opt("--from", optarg, &o.from_ms) < 0)
				return EXIT_USAGE;
			o.has_from = 1;
			break;
		case 'T':
			if (parse_secs_opt("--to", optarg, &o.to_ms) < 0)
				return EXIT_USAGE;
			o.has_to = 1;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			return cmd_opt_error("hlog", c, argv);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "soak hlog: no file given\n");
		cmd_usage("hlog");
		return EXIT_USAGE;
	}
	if (o.has_from && o.has_to && o.from_ms > o.to_ms) {
		fprintf(stderr, "soak hlog: --from is after --to\n");
		return EXIT_USAGE;
	}
	s = malloc(sizeof *s);
	if (!s) {
		fprintf(stderr, "soak hlog: out of memory\n");
		return EXIT_RUNTIME;
	}
	for (int i = optind; i < argc; i++) {
		int r = summarise(argv[i], &o, s, err, sizeof err);

		if (r < 0) {
			/* A malformed file's message starts with FILE:LINE already. */
			fprintf(stderr, "%s%s\n", r == -1 ? "soak hlog: " : "", err);
			rc = EXIT_USAGE;
		} else if (o.json) {
			print_json(argv[i], s);
		} else {
			print_text(argv[i], s);
		}
		hdr_release(&s->acc);
	}
	free(s);
	return rc;
}
