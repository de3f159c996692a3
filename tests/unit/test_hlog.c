/* Interval logs: the two reference files reproduce every figure of tests/data/hdr/MANIFEST.md,
 * our writer reproduces the jHiccup file's interval lines, and broken logs get exact
 * `FILE:LINE:` messages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hdr.h"
#include "hlog.h"

#define START_MS    1441812279474LL /* StartTime of both files */
#define ACC_HIGHEST 3600000000000LL

static const char first_line[] =
    "0.127,1.007,2.769,HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4"
    "nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=";

/* Totals per interval of the jHiccup file, in file order (MANIFEST). */
static const int64_t v2_totals[62] = {
    741,  749, 745, 753, 744, 755, 748, 754, 747, 1700, 192, 755, 743, 747,  752, 753,
    765,  749, 753, 751, 749, 740, 744, 746, 756, 750,  757, 768, 823, 1378, 442, 852,
    837,  824, 807, 797, 798, 791, 803, 807, 784, 763,  742, 748, 773, 787,  786, 752,
    1909, 40,  759, 755, 763, 778, 789, 777, 776, 776,  792, 781, 782, 784};

static void data_path(char *buf, size_t len, const char *name)
{
	const char *top = getenv("SOAK_TOP");
	snprintf(buf, len, "%s/tests/data/hdr/%s", top ? top : ".", name);
}

static void open_data(struct hlog_reader *r, const char *name)
{
	char path[1024], err[256];
	data_path(path, sizeof path, name);
	if (hlog_open(r, path, err, sizeof err) < 0)
		fail_msg("%s", err);
}

static void acc_init(struct hdr *h)
{
	char err[128];
	assert_int_equal(hdr_init(h, 1, ACC_HIGHEST, 3, err, sizeof err), 0);
}

/* Reads a whole file into acc (when given) and the per-interval totals; returns the count.
 * from/to (seconds after StartTime, inclusive) select intervals when from >= 0. */
static int read_all(const char *name, const char *tag, double from, double to, struct hdr *acc,
                    int64_t *totals, int max)
{
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	char err[256];
	int n = 0, got;

	open_data(&r, name);
	while ((got = hlog_next(&r, &iv, err, sizeof err)) > 0) {
		int64_t rel = iv.start_ms - r.start_ms;
		if (tag && strcmp(tag, iv.tag) != 0)
			continue;
		if (from >= 0 && (rel < llround(from * 1000) || rel > llround(to * 1000)))
			continue;
		if (totals && n < max)
			totals[n] = hdr_total(&iv.hist);
		if (acc)
			assert_int_equal(hdr_add(acc, &iv.hist), 0); /* nothing dropped */
		n++;
	}
	if (got < 0)
		fail_msg("%s", err);
	hlog_interval_release(&iv);
	hlog_close(&r);
	return n;
}

static void v2_log_figures(void **state)
{
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	int64_t totals[64], sum = 0, biggest = 0;
	char err[256];
	int n = 0, biggest_at = -1;
	struct hdr acc;
	(void)state;

	acc_init(&acc);
	assert_int_equal(read_all("jHiccup-2.0.7S.logV2.hlog", NULL, -1, -1, &acc, totals, 64), 62);
	assert_memory_equal(totals, v2_totals, sizeof v2_totals);
	for (int i = 0; i < 62; i++)
		sum += totals[i];
	assert_int_equal(sum, 48761);
	assert_int_equal(hdr_total(&acc), 48761);
	assert_int_equal(hdr_value_at_percentile(&acc, 99.9), 1745879039);
	assert_int_equal(hdr_max(&acc), 1796210687);
	assert_int_equal(hdr_value_at_percentile(&acc, 50), 327935);
	assert_int_equal(hdr_min(&acc), 0);
	assert_true(fabs(hdr_mean(&acc) - 67632018.54) < 0.005);
	hdr_release(&acc);

	open_data(&r, "jHiccup-2.0.7S.logV2.hlog");
	while (hlog_next(&r, &iv, err, sizeof err) > 0) {
		int64_t max = hdr_max(&iv.hist);
		assert_string_equal(iv.tag, "");
		/* Interval_Max == decoded max / 1e6 rounded to 3 decimals, on every line. */
		assert_true(fabs(round((double)max / 1e3) / 1e3 - iv.max_column) < 1e-9);
		if (max > biggest)
			biggest = max, biggest_at = n;
		if (n == 0) {
			assert_int_equal(iv.line, 5);
			assert_int_equal(iv.start_ms, 1441812279601LL);
			assert_int_equal(iv.start_ms + iv.length_ms, 1441812280608LL);
			assert_true(iv.max_column == 2.769);
			assert_int_equal(hdr_total(&iv.hist), 741);
			assert_int_equal(max, 2768895);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 50), 344063);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 99), 409599);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 90), 376831);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 99.9), 1769471);
			assert_int_equal((int64_t)floor(hdr_mean(&iv.hist)), 301998);
			assert_int_equal(iv.hist.lowest, 20000);
			assert_int_equal(iv.hist.highest, 3600000000000LL);
			assert_int_equal(iv.hist.digits, 2);
		}
		if (n == 1)
			assert_int_equal((int64_t)floor(hdr_mean(&iv.hist)), 293719);
		if (n == 48) {
			assert_int_equal(iv.start_ms - START_MS, 48131);
			assert_int_equal(iv.length_ms, 1950);
			assert_true(iv.max_column == 1803.551);
		}
		n++;
	}
	assert_int_equal(n, 62);
	assert_int_equal(biggest, 1803550719);
	assert_int_equal(biggest_at, 48);
	assert_int_equal(r.has_start, 1);
	assert_int_equal(r.start_ms, START_MS);
	assert_string_equal(r.version, "1.2");
	hlog_interval_release(&iv);
	hlog_close(&r);
	hlog_close(&r); /* a closed reader is zeroed: closing again is fine */
}

static void v2_log_ranges(void **state)
{
	static const struct {
		double from, to;
		int intervals;
		int64_t total, p999, max;
	} cases[] = {{5, 20, 15, 11664, 1536163839, 1544552447},
	             {40, 60, 20, 15830, 1779433471, 1796210687}};
	int64_t totals[4];
	struct hdr acc;
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		acc_init(&acc);
		assert_int_equal(read_all("jHiccup-2.0.7S.logV2.hlog", NULL, cases[i].from,
		                          cases[i].to, &acc, NULL, 0),
		                 cases[i].intervals);
		assert_int_equal(hdr_total(&acc), cases[i].total);
		assert_int_equal(hdr_value_at_percentile(&acc, 99.9), cases[i].p999);
		assert_int_equal(hdr_max(&acc), cases[i].max);
		hdr_release(&acc);
	}
	/* JS: (0, 2) gives the first two intervals, (0.01, 0.1) and (62, 63) none. */
	assert_int_equal(read_all("jHiccup-2.0.7S.logV2.hlog", NULL, 0, 2, NULL, totals, 4), 2);
	assert_int_equal(totals[0], 741);
	assert_int_equal(totals[1], 749);
	assert_int_equal(read_all("jHiccup-2.0.7S.logV2.hlog", NULL, 0.01, 0.1, NULL, NULL, 0), 0);
	assert_int_equal(read_all("jHiccup-2.0.7S.logV2.hlog", NULL, 62, 63, NULL, NULL, 0), 0);
}

static void tagged_log_figures(void **state)
{
	static const double meta[21][3] = {
	    {0.127, 1.007, 2.769},    {1.134, 0.999, 0.442},  {2.133, 1.001, 0.426},
	    {3.134, 1.001, 0.426},    {4.135, 0.997, 0.426},  {5.132, 1.002, 0.426},
	    {6.134, 0.999, 0.442},    {7.133, 0.999, 0.459},  {8.132, 1.0, 0.459},
	    {9.132, 1.751, 1551.892}, {10.883, 0.25, 0.426},  {11.133, 1.003, 0.524},
	    {12.136, 0.997, 0.459},   {13.133, 0.998, 0.459}, {14.131, 1.0, 0.492},
	    {15.131, 1.001, 0.442},   {16.132, 1.001, 0.524}, {17.133, 0.998, 0.459},
	    {18.131, 1.0, 0.459},     {19.131, 1.0, 0.475},   {20.131, 1.004, 0.475}};
	struct hlog_reader r, v2;
	struct hlog_interval iv = HLOG_INTERVAL_INIT, iv2 = HLOG_INTERVAL_INIT;
	struct hdr all, untagged, tagged;
	int64_t sum = 0;
	int n = 0, nu = 0, nt = 0;
	char err[256];
	(void)state;

	acc_init(&all);
	acc_init(&untagged);
	acc_init(&tagged);
	open_data(&r, "tagged-Log.logV2.hlog");
	open_data(&v2, "jHiccup-2.0.7S.logV2.hlog");
	while (hlog_next(&r, &iv, err, sizeof err) > 0) {
		int k = n / 2;
		/* Lines alternate: untagged, then the same interval with Tag=A. */
		assert_string_equal(iv.tag, n % 2 ? "A" : "");
		assert_true(k < 21);
		assert_int_equal(iv.start_ms - START_MS, llround(meta[k][0] * 1000));
		assert_int_equal(iv.length_ms, llround(meta[k][1] * 1000));
		assert_true(iv.max_column == meta[k][2]);
		assert_true(fabs(round((double)hdr_max(&iv.hist) / 1e3) / 1e3 - iv.max_column) <
		            1e-9);
		if (n % 2 == 0) {
			/* ...identical to the V2 file's first 21 intervals. */
			assert_int_equal(hlog_next(&v2, &iv2, err, sizeof err), 1);
			assert_int_equal(iv2.start_ms, iv.start_ms);
			assert_int_equal(iv2.hist.counts_len, iv.hist.counts_len);
			assert_memory_equal(iv2.hist.counts, iv.hist.counts,
			                    (size_t)iv.hist.counts_len * sizeof(int64_t));
		}
		if (n == 1)
			assert_int_equal((int64_t)floor(hdr_mean(&iv.hist)), 301998);
		if (n < 2) { /* Go's golden values hold for the tagged copy too */
			assert_int_equal(hdr_total(&iv.hist), 741);
			assert_int_equal(hdr_max(&iv.hist), 2768895);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 50), 344063);
			assert_int_equal(hdr_value_at_percentile(&iv.hist, 99), 409599);
			assert_int_equal(iv.start_ms, 1441812279601LL);
			assert_int_equal(iv.start_ms + iv.length_ms, 1441812280608LL);
		}
		sum += hdr_total(&iv.hist);
		assert_int_equal(hdr_add(&all, &iv.hist), 0);
		assert_int_equal(hdr_add(iv.tag[0] ? &tagged : &untagged, &iv.hist), 0);
		*(iv.tag[0] ? &nt : &nu) += 1;
		n++;
	}
	assert_int_equal(n, 42);
	assert_int_equal(nu, 21);
	assert_int_equal(nt, 21);
	assert_int_equal(sum, 32290);
	assert_int_equal(hdr_total(&untagged), 16145);
	assert_int_equal(hdr_total(&tagged), 16145);
	assert_memory_equal(untagged.counts, tagged.counts,
	                    (size_t)untagged.counts_len * sizeof(int64_t));
	assert_int_equal(hdr_value_at_percentile(&all, 50), 344319);
	assert_int_equal(hdr_value_at_percentile(&all, 99.9), 1536163839);
	assert_int_equal(hdr_max(&all), 1544552447);
	assert_int_equal(hdr_value_at_percentile(&untagged, 99.9), 1536163839);
	assert_int_equal(hdr_max(&tagged), 1544552447);
	assert_int_equal(r.start_ms, START_MS);
	hlog_interval_release(&iv);
	hlog_interval_release(&iv2);
	hlog_close(&r);
	hlog_close(&v2);
	hdr_release(&all);
	hdr_release(&untagged);
	hdr_release(&tagged);
}

/* Re-writing the jHiccup file's intervals with our writer gives its very interval lines. */
static void writer_reproduces_v2(void **state)
{
	char path[1024], err[256], *out = NULL, *line = NULL;
	size_t outlen = 0, cap = 0;
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	struct hlog_writer w;
	FILE *mem = open_memstream(&out, &outlen), *orig;
	int lines = 0;
	(void)state;

	assert_non_null(mem);
	open_data(&r, "jHiccup-2.0.7S.logV2.hlog");
	assert_int_equal(
	    hlog_writer_init(&w, mem, START_MS, 1e6, "Logged by test_hlog", err, sizeof err), 0);
	while (hlog_next(&r, &iv, err, sizeof err) > 0)
		assert_int_equal(
		    hlog_write(&w, NULL, iv.start_ms, iv.length_ms, &iv.hist, err, sizeof err), 0);
	hlog_interval_release(&iv);
	hlog_close(&r);
	fclose(mem);

	assert_non_null(strstr(out, "#[Logged by test_hlog]\n#[Histogram log format version 1.3]\n"
	                            "#[StartTime: 1441812279.474 (seconds since epoch), "
	                            "2015-09-09T15:24:39.474Z]\n"
	                            "#[BaseTime: 1441812279.474 (seconds since epoch)]\n"
	                            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
	                            "\"Interval_Compressed_Histogram\"\n"));
	assert_non_null(strstr(out, first_line));
	data_path(path, sizeof path, "jHiccup-2.0.7S.logV2.hlog");
	orig = fopen(path, "r");
	assert_non_null(orig);
	while (getline(&line, &cap, orig) > 0) {
		if (line[0] == '#' || line[0] == '"')
			continue;
		if (!strstr(out, line))
			fail_msg("interval line not reproduced: %s", line);
		lines++;
	}
	assert_int_equal(lines, 62);
	fclose(orig);
	free(line);
	free(out);
}

/* Random histograms, tags and times through the writer and back. */
static void write_read_roundtrip(void **state)
{
	enum { N = 25 };
	static const char *tags[] = {"", "A", "get_users", ""};
	struct hdr hs[N];
	int64_t starts[N], lens[N];
	char *out = NULL, err[256];
	size_t outlen = 0;
	uint64_t seed = 99;
	struct hlog_writer w;
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	FILE *mem = open_memstream(&out, &outlen);
	int n = 0;
	(void)state;

	assert_non_null(mem);
	assert_int_equal(hlog_writer_init(&w, mem, 1700000000123LL, 1e3, NULL, err, sizeof err), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(hdr_init_latency(&hs[i], err, sizeof err), 0);
		for (int k = 0; k < 200 * i; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			hdr_record(&hs[i], (int64_t)(seed >> 40) % (i + 1) * 997);
		}
		starts[i] = 1700000000123LL + i * 10000 + (i % 3);
		lens[i] = 10000 - (i % 3);
		assert_int_equal(
		    hlog_write(&w, tags[i % 4], starts[i], lens[i], &hs[i], err, sizeof err), 0);
	}
	assert_int_equal(hlog_write(&w, "a,b", starts[0], 1, &hs[0], err, sizeof err), -1);
	assert_string_equal(err, "bad histogram log tag 'a,b'");
	assert_int_equal(hlog_write(&w, "x y", starts[0], 1, &hs[0], err, sizeof err), -1);
	assert_int_equal(hlog_write(&w, NULL, 1700000000122LL, 1, &hs[0], err, sizeof err), -1);
	assert_string_equal(err, "interval 1700000000122+1 ms starts before the log "
	                         "(1700000000123)");
	fclose(mem);

	mem = fmemopen(out, outlen, "r");
	assert_non_null(mem);
	assert_int_equal(hlog_open_stream(&r, mem, "mem.hlog", err, sizeof err), 0);
	while (hlog_next(&r, &iv, err, sizeof err) > 0) {
		assert_true(n < N);
		assert_string_equal(iv.tag, tags[n % 4]);
		assert_int_equal(iv.start_ms, starts[n]);
		assert_int_equal(iv.length_ms, lens[n]);
		assert_int_equal(iv.hist.counts_len, hs[n].counts_len);
		assert_int_equal(hdr_total(&iv.hist), hdr_total(&hs[n]));
		assert_memory_equal(iv.hist.counts, hs[n].counts,
		                    (size_t)hs[n].counts_len * sizeof(int64_t));
		assert_true(fabs(iv.max_column - (double)hdr_max(&hs[n]) / 1e3) < 0.0005 + 1e-9);
		hdr_release(&hs[n]);
		n++;
	}
	assert_int_equal(n, N);
	assert_int_equal(r.start_ms, 1700000000123LL);
	assert_int_equal(r.base_ms, 1700000000123LL);
	hlog_interval_release(&iv);
	hlog_close(&r);
	fclose(mem);
	free(out);
}

/* Reads text as a log named "t.hlog": returns hlog_next's last result, with err, the
 * number of intervals and the last interval's start/length. */
static int read_text(const char *text, size_t len, char *err, size_t errlen, int *count,
                     int64_t *start, int64_t *length)
{
	FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");
	struct hlog_reader r;
	struct hlog_interval iv = HLOG_INTERVAL_INIT;
	int rc;

	assert_non_null(f);
	*count = 0;
	assert_int_equal(hlog_open_stream(&r, f, "t.hlog", err, errlen), 0);
	while ((rc = hlog_next(&r, &iv, err, errlen)) > 0) {
		(*count)++;
		*start = iv.start_ms;
		*length = iv.length_ms;
	}
	hlog_interval_release(&iv);
	hlog_close(&r);
	fclose(f);
	return rc;
}

static void malformed_logs(void **state)
{
	static const char h1[] = "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uA"
	                         "SkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=";
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"0.127,1.007,2.769\n",
	     "t.hlog:1: expected START,LENGTH,MAX,HISTOGRAM (4 fields), got 3"},
	    {"#[x]\n\n0.1,1,2,H,I\n",
	     "t.hlog:3: expected START,LENGTH,MAX,HISTOGRAM (4 fields), got 5"},
	    {"abc,1.007,2.769,HISTF\n", "t.hlog:1: bad start timestamp 'abc'"},
	    {"-1,1.007,2.769,HISTF\n", "t.hlog:1: bad start timestamp '-1'"},
	    {",1.007,2.769,HISTF\n", "t.hlog:1: bad start timestamp ''"},
	    {"0.1,x,2.7,HISTF\n", "t.hlog:1: bad interval length 'x'"},
	    {"0.1,1,zz,HISTF\n", "t.hlog:1: bad interval max 'zz'"},
	    {"0.1,1,nan,HISTF\n", "t.hlog:1: bad interval max 'nan'"},
	    {"Tag=,0.1,1,2,HISTF\n", "t.hlog:1: empty tag"},
	    {"Tag=a b,0.1,1,2,HISTF\n", "t.hlog:1: blank in tag 'a b'"},
	    {"Tag=A\n", "t.hlog:1: tag without fields"},
	    {"Tag=a\tb,0.1,1,2,HISTF\n", "t.hlog:1: blank in tag 'a\tb'"},
	    {"#[BaseTime: 999999999999.5]\n999999999999,1,2,HISTF\n",
	     "t.hlog:2: start timestamp beyond 1000000000000 s"},
	    {"1000000000000.001,1,2,HISTF\n", "t.hlog:1: bad start timestamp '1000000000000.001'"},
	    {"#[StartTime: abc (seconds since epoch)]\n", "t.hlog:1: bad StartTime 'abc'"},
	    {"#c\n#[BaseTime: 12x (seconds since epoch)]\n", "t.hlog:2: bad BaseTime '12x'"},
	    {"0.1,1,2,HISTF*AA\n", "t.hlog:1: bad histogram: bad base64 character '*' at offset 5"},
	    {"0.1,1,2,HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GB\n",
	     "t.hlog:1: bad histogram: truncated: 69 bytes of zlib data announced, 19 present"},
	    {"0.1,1,2,\n", "t.hlog:1: bad histogram: 0 bytes are too short for a histogram"},
	    {"\"StartTimestamp\",\"EndTimestamp\",\"Interval_Max\",\"Interval_Compressed_"
	     "Histogram\"\n"
	     "5.0,4.0,1,HISTF\n",
	     "t.hlog:2: interval ends before it starts"},
	};
	char err[512], text[1024];
	int count;
	int64_t start = 0, length = 0;
	(void)state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err[0] = '\0';
		if (read_text(cases[i].text, strlen(cases[i].text), err, sizeof err, &count, &start,
		              &length) != -1)
			fail_msg("accepted: %s", cases[i].text);
		assert_string_equal(err, cases[i].msg);
	}
	/* The line number counts every line, good intervals included. */
	snprintf(text, sizeof text,
	         "#[StartTime: 1441812279.474 (x)]\n%s\n%s\r\n0.2,1,2,HISTF%%AA\n", first_line,
	         first_line);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 -1);
	assert_int_equal(count, 2);
	assert_string_equal(err, "t.hlog:4: bad histogram: bad base64 character '%' at offset 5");

	/* A NUL byte, a too-long tag, a too-long line. */
	static const char nul[] = "0.1,1,2,HI\0STF\n";
	assert_int_equal(read_text(nul, sizeof nul - 1, err, sizeof err, &count, &start, &length),
	                 -1);
	assert_string_equal(err, "t.hlog:1: NUL byte in line");
	memset(text, 'x', 200);
	memcpy(text, "Tag=", 4);
	snprintf(text + 200, sizeof text - 200, ",0.1,1,2,%s\n", h1);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 -1);
	assert_string_equal(err, "t.hlog:1: tag longer than 127 characters");
	size_t big = HLOG_LINE_MAX + 10;
	char *huge = malloc(big);
	assert_non_null(huge);
	memcpy(huge, "#ok\n", 4);
	memset(huge + 4, '#', big - 4);
	assert_int_equal(read_text(huge, big, err, sizeof err, &count, &start, &length), -1);
	assert_string_equal(err, "t.hlog:2: line longer than 1048576 bytes");
	/* Exactly the cap is fine. */
	huge[4 + HLOG_LINE_MAX] = '\n';
	assert_int_equal(
	    read_text(huge, 5 + HLOG_LINE_MAX, err, sizeof err, &count, &start, &length), 0);
	free(huge);

	char path[] = "/nonexistent/dir/x.hlog";
	struct hlog_reader r;
	assert_int_equal(hlog_open(&r, path, err, sizeof err), -1);
	assert_string_equal(err,
	                    "cannot open '/nonexistent/dir/x.hlog': No such file or directory");
	hlog_close(&r); /* a reader that failed to open is zeroed */
}

static void timestamps(void **state)
{
	char text[1024], err[256];
	int count;
	int64_t start = -1, length = -1;
	(void)state;

	/* BaseTime: starts are relative to it, whatever StartTime says. */
	snprintf(text, sizeof text,
	         "#[StartTime: 1441812279.474 (seconds since epoch)]\n"
	         "#[BaseTime: 1000.5 (seconds since epoch)]\n5.250,1.000,2.769,%s\n",
	         first_line + 18);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 0);
	assert_int_equal(count, 1);
	assert_int_equal(start, 1005750);
	assert_int_equal(length, 1000);
	/* No BaseTime, a timestamp within a year of StartTime: absolute. */
	snprintf(
	    text, sizeof text,
	    "#[StartTime: 1441812279.474 (seconds since epoch)]\n1441812280.001,1.5,2.769,%s\n",
	    first_line + 18);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 0);
	assert_int_equal(start, 1441812280001LL);
	assert_int_equal(length, 1500);
	/* No StartTime and no BaseTime: absolute; CRLF and blank lines are fine. */
	snprintf(text, sizeof text, "\r\n%s\r\n\n", first_line);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 0);
	assert_int_equal(count, 1);
	assert_int_equal(start, 127);
	/* Format 1.01: the second column is an end timestamp. */
	snprintf(text, sizeof text,
	         "#[StartTime: 1441812279.474 (seconds since epoch)]\n"
	         "\"StartTimestamp\",\"EndTimestamp\",\"Interval_Max\","
	         "\"Interval_Compressed_Histogram\"\n0.127,1.134,2.769,%s\n",
	         first_line + 18);
	assert_int_equal(read_text(text, strlen(text), err, sizeof err, &count, &start, &length),
	                 0);
	assert_int_equal(start, 1441812279601LL);
	assert_int_equal(length, 1007);
	/* An empty file has no intervals and no error. */
	assert_int_equal(read_text("", 0, err, sizeof err, &count, &start, &length), 0);
	assert_int_equal(count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(v2_log_figures),       cmocka_unit_test(v2_log_ranges),
	    cmocka_unit_test(tagged_log_figures),   cmocka_unit_test(writer_reproduces_v2),
	    cmocka_unit_test(write_read_roundtrip), cmocka_unit_test(malformed_logs),
	    cmocka_unit_test(timestamps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
