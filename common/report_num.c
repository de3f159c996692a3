/* report_num: numbers, durations and load levels as soak's reports write them (see
 * report_num.h). */
#include "report_num.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dur.h"

#define DASH "\xe2\x80\x94" /* "—": no value */

char *rpt_fmt_num(double v, int decimals, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? DASH : v > 0 ? "inf" : "-inf");
		return buf;
	}
	/* No "-0.0": a value that rounds to zero is zero. */
	if (fabs(v) < 0.5 * pow(10, -decimals))
		v = 0;
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

char *rpt_fmt_signed(double v, int decimals, char *buf, size_t len)
{
	if (len < 3)
		return rpt_fmt_num(v, decimals, buf, len);
	rpt_fmt_num(v, decimals, buf + 1, len - 1);
	if (buf[1] == '-' || !isfinite(v))
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	else
		buf[0] = '+';
	return buf;
}

char *rpt_fmt_ms(double ms, char *buf, size_t len)
{
	char n[32];
	if (isnan(ms)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	snprintf(buf, len, "%s ms", rpt_fmt_num(ms, ms < 10 ? 2 : 1, n, sizeof n));
	return buf;
}

char *rpt_fmt_pct(double pct, char *buf, size_t len)
{
	char n[32];
	if (!isfinite(pct)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	rpt_fmt_num(pct, 1, n, sizeof n);
	snprintf(buf, len, "%s%s%%", n[0] == '-' || !strcmp(n, "0.0") ? "" : "+", n);
	return buf;
}

char *rpt_fmt_need(double s, char *buf, size_t len)
{
	double step;

	if (!isfinite(s)) {
		snprintf(buf, len, DASH);
		return buf;
	}
	if (s > 366.0 * 86400) {
		snprintf(buf, len, "over a year");
		return buf;
	}
	/* Rounded up to a step that suits the size: nobody plans 14m07s. */
	step = s <= 120 ? 1 : s <= 7200 ? 60 : s <= 2 * 86400 ? 600 : 3600;
	dur_format((int64_t)(ceil(s / step) * step) * 1000, buf, len);
	return buf;
}

char *rpt_fmt_us(double us, int sign, char *buf, size_t len)
{
	char x[48];
	double a = fabs(us);
	int dec = a >= 100 ? 0 : a >= 10 ? 1 : 2;

	if (isnan(us))
		return rpt_fmt_num(us, 0, buf, len);
	if (us == 0) {
		snprintf(buf, len, "0 µs");
		return buf;
	}
	snprintf(buf, len, "%s µs", sign ? rpt_fmt_signed(us, dec, x, sizeof x)
	                                 : rpt_fmt_num(us, dec, x, sizeof x));
	return buf;
}

char *rpt_level_text(int concurrency, double rate, char *buf, size_t len)
{
	char x[32];
	if (rate > 0)
		snprintf(buf, len, "%s/s",
		         rpt_fmt_num(rate, rate == floor(rate) ? 0 : 1, x, sizeof x));
	else
		snprintf(buf, len, "%d user%s", concurrency, concurrency == 1 ? "" : "s");
	return buf;
}
