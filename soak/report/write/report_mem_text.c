/* report_mem_text: a memory verdict (report_mem.c) in words, with the numbers that make
 * it: what the findings and report.json say about a source's process memory. */
#include "report/report_int.h"

#include <math.h>
#include <stdio.h>

#include "dur.h"

/* "4m30s" for a number of seconds. */
static const char *span(double s, char *buf, size_t len)
{
	return dur_format((int64_t)llround(s) * 1000, buf, len);
}

char *rpt_mem_why(const struct rpt_mem *m, char *buf, size_t len)
{
	char a[32], b[32], sl[32];
	size_t cap = len < RPT_MEM_WHY_MAX ? len : RPT_MEM_WHY_MAX;

	switch (m->verdict) {
	case RPT_MEM_AT_LIMIT:
		snprintf(buf, cap,
		         "holds at %.1f MB, at its configured limit of %.1f MB (%.0f%% of it): it "
		         "fills what it may use; more load or data cannot grow it, only slow it or "
		         "fail it",
		         m->level_mb, m->limit_mb, 100 * m->level_mb / m->limit_mb);
		break;
	case RPT_MEM_RISING:
		snprintf(buf, cap,
		         "keeps rising: %+.1f MB/h over the %s measured (R² %.2f), %.0f%% of its "
		         "%.1f MB mean, still rising in the second half: watch it (a leak, or data "
		         "that grows with every request)",
		         m->slope_mb_h, span(m->hours * 3600, a, sizeof a), m->r2,
		         100 * m->rise_frac, m->mean_mb);
		break;
	case RPT_MEM_LEVELS_OFF:
		snprintf(
		    buf, cap,
		    "grows %.1f MB over the first %s, then holds at %.1f MB (%s MB/h over the "
		    "last %s): growth that levels off (buffers, caches or pools filling), not a "
		    "leak",
		    m->growth_mb, span(m->growth_s, a, sizeof a), m->level_mb,
		    rpt_fmt_signed(isfinite(m->steady_slope_mb_h) ? m->steady_slope_mb_h : 0, 1, sl,
		                   sizeof sl),
		    span(m->to_s - m->steady_from_s, b, sizeof b));
		break;
	case RPT_MEM_FLAT:
		snprintf(buf, cap, "%s at %.1f MB (%s MB/h, R² %.2f over %s)",
		         m->shrinks ? "shrinks, ending" : "flat", m->level_mb,
		         rpt_fmt_signed(m->slope_mb_h, 1, sl, sizeof sl), m->r2,
		         span(m->hours * 3600, a, sizeof a));
		break;
	default:
		if (m->unknown == RPT_MEM_NO_SAMPLES)
			snprintf(buf, cap, "no samples in the measured window");
		else if (m->unknown == RPT_MEM_SHORT)
			snprintf(buf, cap,
			         "%.1f MB at the end; %s of samples: too short a window to judge a "
			         "trend (%s needed)",
			         m->level_mb, span(m->hours * 3600, a, sizeof a),
			         span(RPT_MEM_MIN_HOURS * 3600, b, sizeof b));
		else
			snprintf(buf, cap, "the samples give no trend");
	}
	return buf;
}
