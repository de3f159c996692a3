/* gcparse: the parser object, the line feeder, the patterns and the number helpers.
 * A line it cannot place is counted, never guessed: every stored event is one the log
 * said, and the formats' own modules add their patterns here. */
#include "gcparse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A size with its unit, as the logs print them: 104960K, 71.1M, 0.0B, 2048.0K. */
#define SZ   "(\\d+(?:[.,]\\d+)?[BKMG])"
#define DATE "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d[.,]\\d+(?:Z|[+-]\\d\\d:?\\d\\d)"
#define UP   "\\d+[.,]\\d+"
/* One parenthesised group, allowing one level of nesting: (System.gc()). */
#define PAREN "\\((?:[^()]|\\([^()]*\\))*\\)"

static const char *const gcp_patterns[GCP_PAT_COUNT] = {
    [PU_PAUSE] = "^(?:([YyOo]): )?Pause ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)((?: " PAREN
                 ")*)(?: " SZ "->" SZ "\\(" SZ "\\))? (\\d+(?:[.,]\\d+)?)ms$",
    [PU_CONC] = "^(?:([YyOo]): )?(Concurrent [^()\\d]*?(?: " PAREN ")*)(?: " SZ "->" SZ "\\(" SZ
                "\\))? (\\d+(?:[.,]\\d+)?)ms$",
    [PU_ZCYCLE] = "^(Garbage Collection|Major Collection|Minor Collection) \\(((?:[^()]|"
                  "\\([^()]*\\))*)\\) (\\d+[KMG])\\(\\d+%\\)->(\\d+[KMG])\\(\\d+%\\)"
                  "(?: (\\d+(?:[.,]\\d+)?)s)?$",
    [PU_GEN] = "^(PSYoungGen|DefNew|ParNew|ParOldGen|PSOldGen|Tenured|CMS): (\\d+K)"
               "(?:\\((\\d+K)\\))?->(\\d+K)\\((\\d+K)\\)",
    [PU_META] = "^(?:[YyOo]: )?Metaspace: " SZ "(?:\\(" SZ "\\))?->" SZ "\\(" SZ "\\)",
    [PU_REGIONS] = "^(Eden|Survivor|Old|Archive|Humongous) regions: (\\d+)->(\\d+)"
                   "(?:\\((\\d+)\\))?",
    [PU_REGSIZE] = "Heap Region Size: " SZ,
    [PU_ZCAP] = "^(?:[YyOo]: )? *Capacity: +(\\d+[KMG]) \\(\\d+%\\) +(\\d+[KMG]) \\(\\d+%\\) "
                "+(\\d+[KMG]) \\(\\d+%\\) +(\\d+[KMG])",
    [PU_SAFEPOINT] = "^Safepoint \"([^\"]*)\", Time since last: \\d+ ns, Reaching safepoint: "
                     "\\d+ ns, .*Total: (\\d+) ns",
    [PU_START] = "^(?:[YyOo]: )?(?:(?:Pause|Concurrent|Garbage Collection|Major Collection|"
                 "Minor Collection|Young Generation|Old Generation)(?: [A-Za-z-]+)*(?: " PAREN
                 ")*(?: Aborted)?|To-space (?:exhausted|overflow))$",
    [PX_STOPPED] = "Total time for which application threads were stopped: (\\d+(?:[.,]\\d+)?) "
                   "seconds",
    [PL_CONC] = "(?:(" DATE "): )?(?:(" UP "): )?(?:#(\\d+): )?\\[(?:CMS-concurrent-([a-z-]+?)"
                "(?:-start\\]|: (" UP ")/(" UP ") secs\\])|GC concurrent-([a-z-]+?)(?:-start\\]|"
                "-end, (" UP ")(?: secs?)?\\]|-abort\\]|-end\\]))(?: \\[Times: [^\\]]*\\])?",
    [PL_NESTED] = "(?:(" DATE "): )?(?:(" UP "): )?\\[GC ?(?:\\(([^()]*)\\) ?)?(?:" DATE
                  ": )?(?:" UP ": )?(?:#\\d+: )?\\[ParNew: (\\d+K)->(\\d+K)\\((\\d+K)\\), "
                  "[\\d.,]+ secs\\] (\\d+K)->(\\d+K)\\((\\d+K)\\), (" UP ") secs\\]"
                  "(?: \\[Times: [^\\]]*\\])?",
    [PL_G1HEAD] = "^\\[GC pause (?:\\(([^()]*)\\) )?\\((young|mixed|partial)\\)",
    [PL_YOUNG] = "\\[(?:ParNew|DefNew|PSYoungGen|ASParNew|ASPSYoungGen)(?: \\([^()]*\\))?: ?"
                 "(\\d+K)->(\\d+K)\\((\\d+K)\\)",
    [PL_OLD] = "\\[(?:CMS|Tenured|ParOldGen|PSOldGen|ASCMS) *(?:\\(concurrent mode [a-z]+\\))?"
               ": (\\d+K)->(\\d+K)\\((\\d+K)\\)",
    [PL_META] = "\\[(?:PSPermGen|CMS Perm ?|Perm ?|Metaspace|PS Perm ?): (\\d+K)->(\\d+K)"
                "\\((\\d+K)\\)",
    [PL_HEAP] = SZ "(?:->" SZ ")?\\(" SZ "\\)",
    [PL_PAUSE] = "(\\d+[.,]\\d+)(?: secs?|( ms))\\]",
    [PL_EDEN] = "\\[Eden: " SZ "\\(" SZ "\\)->" SZ "\\(" SZ "\\) Survivors: " SZ "->" SZ
                " Heap: " SZ "\\(" SZ "\\)->" SZ "\\(" SZ "\\)",
    /* Known non-events: JVM banners, heap summaries, tenuring and ergonomics lines,
     * Shenandoah 8 free text, rotation markers, application-time lines. */
    [PL_NOISE] =
        "^\\s*(?:OpenJDK |Java HotSpot|Memory: |CommandLine flags: |Heap$|Heap after|"
        "\\{Heap|\\}$|Desired survivor|- age |AdaptiveSize|PSAdaptiveSize|"
        "avg_|Regions: |Humongous object|Max TLAB|GC threads|Heuristics |"
        "Shenandoah |Pacer |Initialize Shenandoah|Reference processing|Soft Max|"
        "Trigger: |Free: |Adaptive CSet|Collectable Garbage|All times|GC STATISTICS|"
        "Under allocation|Cancelling GC|Allocation pacing|Failed to |Uncommitted|Periodic GC|"
        "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d GC log file|Application time:|"
        "\\[(?:Unloading class|Loaded |G1Ergonomics|GC Worker|Times: )|"
        "(?:" DATE ": )?(?:" UP ": )?(?:#\\d+: )?(?:Application time|\\[G1Ergonomics|"
        "\\[(?:Pause|Concurrent) [^\\]]*, start\\]|\\[GC concurrent))",
    [PJ_TAG] = "^\\s*<(/?)([A-Za-z][A-Za-z0-9_-]*)",
    [PJ_ISO] = "^(\\d{4})-(\\d\\d)-(\\d\\d)T(\\d\\d):(\\d\\d):(\\d\\d)(?:[.,](\\d{1,9}))?$",
    [PJ_CTIME] = "^(?:[A-Z][a-z]{2} )?([A-Z][a-z]{2}) +(\\d{1,2}) (\\d\\d):(\\d\\d):(\\d\\d) "
                 "(\\d{4})$",
};

int gcp_fixed(const char *s, size_t n, int scale, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;
	int digits = 0, frac = -1, round_up = 0;

	for (; i < n; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			if (frac < 0) {
				if (v > INT64_MAX / 100)
					return -1;
				v = v * 10 + (c - '0');
			} else if (frac < scale) {
				if (v > INT64_MAX / 100) /* a fraction widens the number too */
					return -1;
				v = v * 10 + (c - '0');
				frac++;
			} else if (frac == scale) {
				round_up = c >= '5';
				frac++;
			}
			digits++;
		} else if ((c == '.' || c == ',') && frac < 0) {
			frac = 0;
		} else {
			break;
		}
	}
	if (!digits || i != n)
		return -1;
	for (int k = frac < 0 ? 0 : (frac > scale ? scale : frac); k < scale; k++) {
		if (v > INT64_MAX / 100)
			return -1;
		v *= 10;
	}
	*out = v + round_up;
	return 0;
}

int gcp_size_kb(const char *s, size_t n, int64_t *kb)
{
	int64_t milli;
	if (n < 2 || gcp_fixed(s, n - 1, 3, &milli) < 0)
		return -1;
	switch (s[n - 1]) {
	case 'B':
		*kb = (milli / 1024 + 500) / 1000;
		break;
	case 'K':
		*kb = (milli + 500) / 1000;
		break;
	case 'M':
		if (milli > INT64_MAX / 1024)
			return -1;
		*kb = (milli * 1024 + 500) / 1000;
		break;
	case 'G':
		if (milli > INT64_MAX / (1024 * 1024))
			return -1;
		*kb = (milli * 1024 * 1024 + 500) / 1000;
		break;
	default:
		return -1;
	}
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int num(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* 2014-09-11T07:37:08.511-0100, ...+0000, ...+00:00, ...Z (fraction of any length). */
int gcp_iso_ms(const char *s, size_t n, int64_t *ms)
{
	int y, mo, d, h, mi, se, frac = 0, fd = 0, sign, zh, zm;
	size_t i = 19;

	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return -1;
	y = num(s, 4), mo = num(s + 5, 2), d = num(s + 8, 2);
	h = num(s + 11, 2), mi = num(s + 14, 2), se = num(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    se < 0 || se > 60)
		return -1;
	if (s[i] == '.' || s[i] == ',') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++)
			if (fd < 3)
				frac = frac * 10 + (s[i] - '0');
		for (int k = fd; k < 3; k++)
			frac *= 10;
	}
	if (i == n - 1 && s[i] == 'Z') {
		zh = zm = 0, sign = 1;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '-' ? -1 : 1;
		i++;
		if (i + 2 > n || (zh = num(s + i, 2)) < 0)
			return -1;
		i += 2;
		if (i < n && s[i] == ':')
			i++;
		if (i + 2 != n || (zm = num(s + i, 2)) < 0)
			return -1;
	} else {
		return -1;
	}
	int64_t days = days_from_civil(y, mo, d);
	int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - sign * (zh * 3600 + zm * 60);
	*ms = secs * 1000 + frac;
	return 0;
}

int gcp_match(struct gcparse *p, enum gcp_pat pat, const char *s, size_t n, size_t start)
{
	if (start > n)
		return -1;
	if (p->jit)
		return pcre2_jit_match(p->re[pat], (PCRE2_SPTR)s, n, start, 0, p->md, NULL);
	return pcre2_match(p->re[pat], (PCRE2_SPTR)s, n, start, 0, p->md, NULL);
}

const char *gcp_group(struct gcparse *p, const char *s, int g, size_t *len)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
	if ((uint32_t)g >= pcre2_get_ovector_count(p->md) || ov[2 * g] == PCRE2_UNSET) {
		*len = 0;
		return NULL;
	}
	*len = ov[2 * g + 1] - ov[2 * g];
	return s + ov[2 * g];
}

int64_t gcp_group_kb(struct gcparse *p, const char *s, int g)
{
	size_t n;
	int64_t kb;
	const char *v = gcp_group(p, s, g, &n);
	return v && gcp_size_kb(v, n, &kb) == 0 ? kb : GCP_NONE;
}

int64_t gcp_group_fixed(struct gcparse *p, const char *s, int g, int scale)
{
	size_t n;
	int64_t x;
	const char *v = gcp_group(p, s, g, &n);
	return v && gcp_fixed(v, n, scale, &x) == 0 ? x : GCP_NONE;
}

void gcp_copy(char *dst, size_t dstlen, const char *s, size_t n)
{
	if (!dstlen)
		return;
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

void gcp_group_str(struct gcparse *p, const char *s, int g, char *dst, size_t dstlen)
{
	size_t n;
	const char *v = gcp_group(p, s, g, &n);
	gcp_copy(dst, dstlen, v ? v : "", v ? n : 0);
}

void gcp_event_clear(struct gcp_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->t_ms = ev->uptime_ms = ev->gc_id = ev->conc_us = GCP_NONE;
	ev->heap_before_kb = ev->heap_after_kb = ev->heap_total_kb = GCP_NONE;
	ev->young_before_kb = ev->young_after_kb = ev->young_total_kb = GCP_NONE;
	ev->old_before_kb = ev->old_after_kb = ev->old_total_kb = GCP_NONE;
	ev->meta_before_kb = ev->meta_after_kb = ev->meta_total_kb = GCP_NONE;
}

void gcp_mark_failed(struct gcp_event *ev, const char *what)
{
	size_t n = strlen(ev->cause);
	if (strstr(ev->cause, what))
		return;
	snprintf(ev->cause + n, sizeof ev->cause - n, "%s%s", n ? "; " : "", what);
}

int gcp_failed(const struct gcp_event *ev)
{
	static const char *const marks[] = {"to-space exhausted",      "to-space overflow",
	                                    "Evacuation Failure",      "promotion failed",
	                                    "concurrent mode failure", "percolated"};
	for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
		if (strstr(ev->cause, marks[i]))
			return 1;
	return 0;
}

void gcp_anchor(struct gcparse *p, struct gcp_event *ev)
{
	if (ev->t_ms == GCP_NONE && ev->uptime_ms != GCP_NONE && p->jvm_start_ms != GCP_NONE)
		ev->t_ms = p->jvm_start_ms + ev->uptime_ms;
}

void gcp_emit(struct gcparse *p, struct gcp_event *ev)
{
	gcp_anchor(p, ev);
	if (ev->uptime_ms != GCP_NONE &&
	    (p->st.last_uptime_ms == GCP_NONE || ev->uptime_ms > p->st.last_uptime_ms))
		p->st.last_uptime_ms = ev->uptime_ms;
	if (ev->kind != GCP_SAFEPOINT) {
		int64_t d = ev->kind == GCP_CONCURRENT ? 0 : ev->pause_us / 1000;
		p->last_end_ms = ev->t_ms == GCP_NONE ? GCP_NONE : ev->t_ms + d;
		p->last_end_up = ev->uptime_ms == GCP_NONE ? GCP_NONE : ev->uptime_ms + d;
	}
	p->st.events++;
	p->on_event(ev, p->arg);
}

void gcp_unparsed(struct gcparse *p, const char *line, size_t len, const char *reason)
{
	char cut[GCP_KEEP_LEN];
	size_t n = len < GCP_KEEP_LEN - 1 ? len : GCP_KEEP_LEN - 1;

	/* Control bytes are replaced so a kept line is always printable text. */
	for (size_t i = 0; i < n; i++)
		cut[i] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ? '?' : line[i];
	cut[n] = 0;
	p->st.unparsed++;
	if (p->st.kept < GCP_KEEP_UNPARSED)
		memcpy(p->st.keep[p->st.kept++], cut, n + 1);
	if (p->on_unparsed)
		p->on_unparsed(cut, reason, p->arg);
}

void gcp_set_collector(struct gcparse *p, enum gcp_collector c)
{
	/* The first firm detection wins, except that generational ZGC refines ZGC. */
	if (p->collector == GCP_COL_UNKNOWN ||
	    (p->collector == GCP_COL_ZGC && c == GCP_COL_ZGC_GEN))
		p->collector = c;
}

struct gcparse *gcp_new(gcp_event_fn on_event, gcp_unparsed_fn on_unparsed, void *arg, char *err,
                        size_t errlen)
{
	struct gcparse *p = calloc(1, sizeof *p);
	uint32_t jit = 0;
	int ok = 0;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->on_event = on_event;
	p->on_unparsed = on_unparsed;
	p->arg = arg;
	p->jvm_start_ms = GCP_NONE;
	p->region_kb = GCP_NONE;
	p->st.last_uptime_ms = p->st.last_t_ms = GCP_NONE;
	p->last_end_ms = p->last_end_up = GCP_NONE;
	gcp_unified_reset(p);
	gcp_j9_reset(p);
	p->j9.init_ms = GCP_NONE;
	pcre2_config(PCRE2_CONFIG_JIT, &jit);
	p->jit = jit != 0;
	for (int i = 0; i < GCP_PAT_COUNT; i++) {
		int ec;
		PCRE2_SIZE off;
		p->re[i] = pcre2_compile((PCRE2_SPTR)gcp_patterns[i], PCRE2_ZERO_TERMINATED, 0, &ec,
		                         &off, NULL);
		if (!p->re[i]) {
			PCRE2_UCHAR msg[128];
			pcre2_get_error_message(ec, msg, sizeof msg);
			snprintf(err, errlen, "gc pattern %d does not compile at %zu: %s", i,
			         (size_t)off, (char *)msg);
			goto cleanup;
		}
		/* pcre2_jit_match() needs every pattern compiled; pcre2_match() takes either. */
		if (p->jit && pcre2_jit_compile(p->re[i], PCRE2_JIT_COMPLETE) != 0)
			p->jit = 0;
	}
	p->md = pcre2_match_data_create(32, NULL);
	if (!p->md) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	ok = 1;
cleanup:
	if (!ok) {
		gcp_free(p);
		return NULL;
	}
	return p;
}

void gcp_free(struct gcparse *p)
{
	if (!p)
		return;
	pcre2_match_data_free(p->md);
	for (int i = 0; i < GCP_PAT_COUNT; i++)
		pcre2_code_free(p->re[i]);
	free(p);
}

void gcp_set_jvm_start(struct gcparse *p, int64_t start_ms)
{
	p->jvm_start_ms = start_ms;
}
int64_t gcp_jvm_start(const struct gcparse *p)
{
	return p->jvm_start_ms;
}
const struct gcp_stats *gcp_stats_of(const struct gcparse *p)
{
	return &p->st;
}
enum gcp_family gcp_family_of(const struct gcparse *p)
{
	return p->family;
}
enum gcp_collector gcp_collector_of(const struct gcparse *p)
{
	return p->collector;
}

/* Control bytes other than tab mean binary data, not a log line. */
static int is_binary(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 && c != '\t')
			return 1;
	}
	return 0;
}

void gcp_line(struct gcparse *p, const char *line, size_t len)
{
	p->st.lines++;
	p->st.bytes += (int64_t)len + 1;
	if (len > GCP_LINE_MAX) {
		p->st.too_long++;
		gcp_unparsed(p, line, len, "line too long");
		return;
	}
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return;
	if (is_binary(line, len)) {
		p->st.binary++;
		gcp_unparsed(p, line, len, "binary data");
		return;
	}
	if (p->family == GCP_FAM_J9 || (p->family == GCP_FAM_UNKNOWN && gcp_j9_starts(line, len))) {
		p->family = GCP_FAM_J9;
		gcp_j9_line(p, line, len);
		return;
	}
	if (line[0] == '[' && p->family != GCP_FAM_JDK8 && gcp_unified_line(p, line, len)) {
		if (p->family == GCP_FAM_UNKNOWN)
			p->family = GCP_FAM_UNIFIED;
		return;
	}
	gcp_legacy_line(p, line, len);
}

void gcp_buf(struct gcparse *p, const char *buf, size_t len)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		gcp_line(p, buf, n);
		if (!nl) {
			p->st.bytes--; /* no newline was there */
			break;
		}
		buf += n + 1;
		len -= n + 1;
	}
}

void gcp_flush(struct gcparse *p)
{
	gcp_legacy_flush(p);
	gcp_j9_flush(p);
}

void gcp_reset(struct gcparse *p)
{
	p->rec_open = 0;
	p->rec_len = 0;
	p->pend = 0;
	p->last_end_ms = p->last_end_up = GCP_NONE;
	gcp_unified_reset(p);
	gcp_j9_reset(p);
	p->j9.init_ms = GCP_NONE;
}

const char *gcp_kind_name(enum gcp_kind k)
{
	static const char *const names[GCP_KIND_COUNT] = {
	    "young", "mixed", "full", "remark", "cleanup", "concurrent", "other", "safepoint"};
	return (unsigned)k < GCP_KIND_COUNT ? names[k] : "other";
}

int gcp_kind_parse(const char *s)
{
	for (int k = 0; k < GCP_KIND_COUNT; k++)
		if (strcmp(s, gcp_kind_name((enum gcp_kind)k)) == 0)
			return k;
	return -1;
}

const char *gcp_family_name(enum gcp_family f)
{
	switch (f) {
	case GCP_FAM_JDK8:
		return "jdk8";
	case GCP_FAM_UNIFIED:
		return "unified";
	case GCP_FAM_J9:
		return "j9";
	default:
		return "unknown";
	}
}

const char *gcp_collector_name(enum gcp_collector c)
{
	switch (c) {
	case GCP_COL_SERIAL:
		return "serial";
	case GCP_COL_PARALLEL:
		return "parallel";
	case GCP_COL_CMS:
		return "cms";
	case GCP_COL_G1:
		return "g1";
	case GCP_COL_SHENANDOAH:
		return "shenandoah";
	case GCP_COL_ZGC:
		return "zgc";
	case GCP_COL_ZGC_GEN:
		return "zgc-generational";
	case GCP_COL_J9_GENCON:
		return "gencon";
	case GCP_COL_J9_OPTTHRUPUT:
		return "optthruput";
	case GCP_COL_J9_OPTAVGPAUSE:
		return "optavgpause";
	case GCP_COL_J9_BALANCED:
		return "balanced";
	case GCP_COL_J9_METRONOME:
		return "metronome";
	default:
		return "unknown";
	}
}

const char *gcp_format(const struct gcparse *p, char *buf, size_t len)
{
	if (p->family == GCP_FAM_UNKNOWN)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s/%s", gcp_family_name(p->family),
		         gcp_collector_name(p->collector));
	return buf;
}
