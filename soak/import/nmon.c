/* nmon: an nmon recording's CPU, memory, network and TOP lines become collector samples
 * named as soak-procstat names them (nmon.h); local times are read in TZ. */
#include "nmon.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "buf.h"
#include "ireader.h"
#include "re.h"

#define NMON_MAX_FIELDS 4096    /* a line's fields (NET has two per interface) */
#define NMON_MAX_UARGS  4000000 /* processes with a command line in one file */

/* A process's command line as of a snapshot: does it match? */
struct uarg {
	int32_t pid;
	int32_t tag; /* the snapshot whose UARG line gave it */
	int matched; /* the command line matches --match */
};

/* Columns of a section's header line. */
struct section {
	int n;       /* fields of the header, the section name included */
	char **name; /* owned copies */
};

/* Per-snapshot sums of the matching processes in TOP. */
struct topsum {
	double cpu, usr, sys; /* %CPU %Usr %Sys summed: 100 = one core */
	double rss_kb;        /* ResSet summed */
	int procs;            /* matching processes listed */
	int listed;           /* the snapshot has TOP lines at all */
};

/* Everything an import holds. */
struct nmon {
	const struct nmon_opts *o;
	struct nmon_result *res;      /* filled as the passes go */
	struct ireader *in;           /* the file, read twice */
	pcre2_code *re;               /* --match, or NULL: no process figures */
	pcre2_match_data *md;         /* for re */
	int64_t *t_ms;                /* per tag: snapshot time, -1 when no ZZZZ line */
	int32_t ntags;                /* tags 1..ntags-1 have room in t_ms and sums */
	struct uarg *uargs;           /* command lines' verdicts, sorted by pid and tag */
	size_t nuargs, capuargs;      /* used and allocated entries of uargs */
	struct section cpu, mem, net; /* headers of CPU_ALL, MEM, NET */
	struct section top;           /* TOP's (TOP,+PID,Time,...) */
	struct topsum *sums;          /* per tag */
	const struct nmon_sink *sink; /* where the samples go */
	char *field[NMON_MAX_FIELDS]; /* the current line's fields (split in place) */
	int nf;                       /* how many */
	char err[400];                /* a message for the line being read */
};

int nmon_parse_time(const char *hms, const char *date, int64_t *ms)
{
	static const char months[12][4] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
	                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
	struct tm tm;
	int h, mi, s, d, y, n = 0, mon = -1;
	char m[4];
	time_t t;

	memset(&tm, 0, sizeof tm);
	if (sscanf(hms, "%2d:%2d:%2d%n", &h, &mi, &s, &n) != 3 || hms[n] || h > 23 || mi > 59 ||
	    s > 60)
		return -1;
	n = 0;
	if (sscanf(date, "%2d-%3[A-Za-z]-%4d%n", &d, m, &y, &n) != 3 || date[n] || d < 1 ||
	    d > 31 || y < 1970)
		return -1;
	for (int i = 0; i < 12; i++)
		if (strcasecmp(m, months[i]) == 0)
			mon = i;
	if (mon < 0)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mon;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*ms = (int64_t)t * 1000;
	return 0;
}

/* Splits line at commas into nm->field; the last field takes the rest past `max` fields. */
static void split(struct nmon *nm, char *line, int max)
{
	nm->nf = 0;
	if (max > NMON_MAX_FIELDS)
		max = NMON_MAX_FIELDS;
	for (;;) {
		char *c;
		nm->field[nm->nf++] = line;
		if (nm->nf == max || !(c = strchr(line, ',')))
			return;
		*c = '\0';
		line = c + 1;
	}
}

/* A snapshot tag "T0042" -> 42; -1 when the text is not one. */
static int32_t tag_of(const char *f)
{
	char *end;
	long v;

	if (f[0] != 'T' || f[1] < '0' || f[1] > '9')
		return -1;
	errno = 0;
	v = strtol(f + 1, &end, 10);
	if (errno || *end || v < 1 || v >= NMON_MAX_SNAPSHOTS)
		return -1;
	return (int32_t)v;
}

static int fail_at(struct nmon *nm, long line, const char *msg, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%ld: %s", nm->o->path, line, msg);
	return -2;
}

/* Grows the per-tag arrays to hold tag. */
static int reach_tag(struct nmon *nm, int32_t tag)
{
	int32_t n = nm->ntags;
	int64_t *t;

	if (tag < n)
		return 0;
	n = n ? n : 1024;
	while (n <= tag)
		n *= 2;
	if (n > NMON_MAX_SNAPSHOTS)
		n = NMON_MAX_SNAPSHOTS;
	t = realloc(nm->t_ms, (size_t)n * sizeof *t);
	if (!t)
		return -1;
	for (int32_t i = nm->ntags; i < n; i++)
		t[i] = -1;
	nm->t_ms = t;
	nm->ntags = n;
	return 0;
}

static int match(struct nmon *nm, const char *text)
{
	return pcre2_match(nm->re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, nm->md, NULL) >=
	       0;
}

/* First pass: the host, the snapshots' times, which processes match. */
static int pass_times(struct nmon *nm, char *err, size_t errlen)
{
	char *l;
	size_t len;
	long no = 0;
	int rc, first = 1;

	while ((rc = ird_next_line(nm->in, &l, &len, &no, nm->err, sizeof nm->err)) == 1) {
		if (first && strncmp(l, "AAA,", 4) != 0)
			return fail_at(nm, no, "not an nmon file (it starts with AAA lines)", err,
			               errlen);
		first = 0;
		if (strncmp(l, "AAA,host,", 9) == 0) {
			if (!nm->res->host[0])
				snprintf(nm->res->host, sizeof nm->res->host, "%s", l + 9);
		} else if (strncmp(l, "ZZZZ,", 5) == 0) {
			int32_t tag;
			int64_t ms;
			split(nm, l, 4);
			if (nm->nf < 4 || (tag = tag_of(nm->field[1])) < 0) {
				if (!nm->in->last_nl)
					goto cut;
				return fail_at(nm, no,
				               "a ZZZZ line is ZZZZ,Tnnnn,HH:MM:SS,DD-MON-YYYY",
				               err, errlen);
			}
			if (nmon_parse_time(nm->field[2], nm->field[3], &ms) < 0) {
				if (!nm->in->last_nl)
					goto cut;
				snprintf(nm->err, sizeof nm->err,
				         "bad time '%.20s,%.20s' (HH:MM:SS,DD-MON-YYYY)",
				         nm->field[2], nm->field[3]);
				return fail_at(nm, no, nm->err, err, errlen);
			}
			if (reach_tag(nm, tag) < 0)
				goto oom;
			if (nm->t_ms[tag] >= 0) {
				snprintf(nm->err, sizeof nm->err,
				         "snapshot %s has a second ZZZZ line", nm->field[1]);
				return fail_at(nm, no, nm->err, err, errlen);
			}
			nm->t_ms[tag] = ms;
			nm->res->snapshots++;
		} else if (nm->re && strncmp(l, "UARG,T", 6) == 0) {
			char *end;
			long pid;
			int32_t tag;
			split(nm, l, 5);
			if (nm->nf < 5 || (tag = tag_of(nm->field[1])) < 0 ||
			    (pid = strtol(nm->field[2], &end, 10)) < 0 || *end || pid > INT32_MAX) {
				if (!nm->in->last_nl)
					goto cut;
				return fail_at(nm, no, "a UARG line is UARG,Tnnnn,PID,NAME,COMMAND",
				               err, errlen);
			}
			if (nm->nuargs >= NMON_MAX_UARGS)
				return fail_at(nm, no, "too many processes with command lines", err,
				               errlen);
			if (buf_grow(&nm->uargs, &nm->capuargs, nm->nuargs + 1, sizeof *nm->uargs,
			             1024) < 0)
				goto oom;
			nm->uargs[nm->nuargs++] = (struct uarg){
			    .pid = (int32_t)pid, .tag = tag, .matched = match(nm, nm->field[4])};
		}
	}
	if (rc < 0)
		return fail_at(nm, no, nm->err, err, errlen);
	if (first) {
		snprintf(err, errlen, "%s: empty file", nm->o->path);
		return -2;
	}
	if (nm->res->snapshots == 0) {
		snprintf(err, errlen, "%s: no ZZZZ lines: no snapshot has a time", nm->o->path);
		return -2;
	}
	return 0;
cut:
	snprintf(nm->res->warning, sizeof nm->res->warning,
	         "%s:%ld: the last line is cut short (nmon stopped while writing): skipped",
	         nm->o->path, no);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int cmp_uarg(const void *a, const void *b)
{
	const struct uarg *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Whether pid's command line as of tag matches: 1, 0, or -1 when nmon gave none. */
static int uarg_match(const struct nmon *nm, int32_t pid, int32_t tag)
{
	size_t lo = 0, hi = nm->nuargs;
	int found = -1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (nm->uargs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The latest command line given at or before the snapshot. */
	for (; lo < nm->nuargs && nm->uargs[lo].pid == pid && nm->uargs[lo].tag <= tag; lo++)
		found = nm->uargs[lo].matched;
	return found;
}

static void section_release(struct section *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	s->name = NULL;
	s->n = 0;
}

/* Keeps the current line's fields as a section's header. */
static int section_set(struct nmon *nm, struct section *s)
{
	section_release(s);
	s->name = calloc((size_t)nm->nf, sizeof *s->name);
	if (!s->name)
		return -1;
	for (int i = 0; i < nm->nf; i++)
		if (!(s->name[s->n++] = strdup(nm->field[i])))
			return -1;
	return 0;
}

static int col_of(const struct section *s, const char *name)
{
	for (int i = 2; i < s->n; i++)
		if (strcasecmp(s->name[i], name) == 0)
			return i;
	return -1;
}

/* A number field; -1 (err in nm->err) when it is not one.  Empty fields are NaN-free:
 * *have = 0. */
static int number(struct nmon *nm, int i, const struct section *s, double *v, int *have)
{
	char *end;

	*have = 0;
	if (i < 0 || i >= nm->nf || !nm->field[i][0])
		return 0;
	errno = 0;
	*v = strtod(nm->field[i], &end);
	/* Within what a machine can show (and no nan or inf): a sum of them stays finite. */
	if (errno || *end || end == nm->field[i] || !(fabs(*v) <= 1e15)) {
		snprintf(nm->err, sizeof nm->err, "%s: '%.40s' is not a number",
		         s->name[i < s->n ? i : 0], nm->field[i]);
		return -1;
	}
	*have = 1;
	return 0;
}

static int put(struct nmon *nm, const char *metric, int64_t t, double v)
{
	if (nm->sink->put(nm->sink->ctx, metric, t, v, nm->err, sizeof nm->err) < 0)
		return -1;
	nm->res->samples++;
	return 0;
}

/* A data line of CPU_ALL, MEM or NET at time t.  -2 bad line, -1 database. */
static int host_line(struct nmon *nm, const struct section *s, int64_t t)
{
	double v, sum[2] = {0, 0};
	int have, any[2] = {0, 0};

	if (nm->nf != s->n) {
		snprintf(nm->err, sizeof nm->err, "%d fields where the %s header has %d", nm->nf,
		         s->name[0], s->n);
		return -2;
	}
	if (s == &nm->cpu) {
		static const char *const cols[][2] = {{"User%", "cpu_user_pct"},
		                                      {"Sys%", "cpu_sys_pct"},
		                                      {"Wait%", "cpu_iowait_pct"},
		                                      {"Idle%", "cpu_idle_pct"},
		                                      {"Steal%", "cpu_steal_pct"}};
		for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
			if (number(nm, col_of(s, cols[k][0]), s, &v, &have) < 0)
				return -2;
			if (have && put(nm, cols[k][1], t, v) < 0)
				return -1;
		}
		return 0;
	}
	if (s == &nm->mem) {
		static const char *const cols[] = {"memtotal",    "memfree",   "cached",
		                                   "buffers",     "swaptotal", "swapfree",
		                                   "memavailable"};
		double m[7] = {0};
		int h[7];
		for (int k = 0; k < 7; k++)
			if (number(nm, col_of(s, cols[k]), s, &m[k], &h[k]) < 0)
				return -2;
		if (h[0] && h[1]) {
			double avail = h[6] ? m[6] : m[1] + m[2] + m[3];
			if (put(nm, "mem_used_kb", t, (m[0] - avail) * 1024) < 0 ||
			    put(nm, "mem_avail_kb", t, avail * 1024) < 0)
				return -1;
		}
		if (h[4] && h[5] && put(nm, "swap_used_kb", t, (m[4] - m[5]) * 1024) < 0)
			return -1;
		return 0;
	}
	/* NET: IFACE-read-KB/s and IFACE-write-KB/s of every interface. */
	for (int i = 2; i < s->n; i++) {
		size_t len = strlen(s->name[i]);
		int dir = len > 10 && strcmp(s->name[i] + len - 10, "-read-KB/s") == 0    ? 0
		          : len > 11 && strcmp(s->name[i] + len - 11, "-write-KB/s") == 0 ? 1
		                                                                          : -1;
		if (dir < 0)
			continue;
		if (number(nm, i, s, &v, &have) < 0)
			return -2;
		if (have) {
			sum[dir] += v * 1024;
			any[dir] = 1;
		}
	}
	if ((any[0] && put(nm, "net_rx_bps", t, sum[0]) < 0) ||
	    (any[1] && put(nm, "net_tx_bps", t, sum[1]) < 0))
		return -1;
	return 0;
}

/* A TOP data line: TOP,PID,Tnnnn,%CPU,...,Command,...  -2 bad line. */
static int top_line(struct nmon *nm, int32_t tag)
{
	const struct section *s = &nm->top;
	int icpu = col_of(s, "%CPU"), iusr = col_of(s, "%Usr"), isys = col_of(s, "%Sys"),
	    irss = col_of(s, "ResSet"), icmd = col_of(s, "Command");
	int after = icmd >= 0 ? s->n - icmd - 1 : 0, have, ok;
	double cpu = 0, usr = 0, sys = 0, rss = 0;
	long pid;
	char *end;

	if (icpu < 0 || irss < 0 || icmd < 0) {
		snprintf(nm->err, sizeof nm->err,
		         "the TOP header has no %%CPU, ResSet or Command column");
		return -2;
	}
	/* A command name may hold commas: it takes the fields the header does not have. */
	if (nm->nf < s->n) {
		snprintf(nm->err, sizeof nm->err, "%d fields where the TOP header has %d", nm->nf,
		         s->n);
		return -2;
	}
	if (nm->nf > s->n) {
		for (int i = icmd + 1; i < nm->nf - after; i++)
			nm->field[i][-1] = ',';
		memmove(&nm->field[icmd + 1], &nm->field[nm->nf - after],
		        (size_t)after * sizeof nm->field[0]);
		nm->nf = s->n;
	}
	pid = strtol(nm->field[1], &end, 10);
	if (*end || pid < 0 || pid > INT32_MAX) {
		snprintf(nm->err, sizeof nm->err, "TOP: '%.20s' is not a process id", nm->field[1]);
		return -2;
	}
	if (number(nm, icpu, s, &cpu, &have) < 0 || number(nm, iusr, s, &usr, &have) < 0 ||
	    number(nm, isys, s, &sys, &have) < 0 || number(nm, irss, s, &rss, &have) < 0)
		return -2;
	nm->sums[tag].listed = 1;
	ok = uarg_match(nm, (int32_t)pid, tag);
	if (ok < 0)
		ok = match(nm, nm->field[icmd]);
	if (!ok)
		return 0;
	nm->sums[tag].cpu += cpu;
	nm->sums[tag].usr += usr;
	nm->sums[tag].sys += sys;
	nm->sums[tag].rss_kb += rss;
	nm->sums[tag].procs++;
	return 0;
}

/* Second pass: headers and data.  -2 bad input, -1 database. */
static int pass_data(struct nmon *nm, char *err, size_t errlen)
{
	char *l;
	size_t len;
	long no = 0;
	int rc;

	if (ird_rewind(nm->in, nm->err, sizeof nm->err) < 0)
		return fail_at(nm, 0, nm->err, err, errlen);
	while ((rc = ird_next_line(nm->in, &l, &len, &no, nm->err, sizeof nm->err)) == 1) {
		struct section *s = strncmp(l, "CPU_ALL,", 8) == 0 ? &nm->cpu
		                    : strncmp(l, "MEM,", 4) == 0   ? &nm->mem
		                    : strncmp(l, "NET,", 4) == 0   ? &nm->net
		                    : strncmp(l, "TOP,", 4) == 0   ? &nm->top
		                                                   : NULL;
		int32_t tag;
		int r;
		if (!s || (s == &nm->top && !nm->re))
			continue;
		split(nm, l, NMON_MAX_FIELDS);
		if (nm->nf < 2)
			continue;
		/* TOP,+PID,Time,... is TOP's header; TOP,%CPU Utilisation its title. */
		if (s == &nm->top) {
			if (nm->field[1][0] == '+') {
				if (section_set(nm, s) < 0)
					goto oom;
				continue;
			}
			if (nm->field[1][0] < '0' || nm->field[1][0] > '9')
				continue;
			if (nm->nf < 3 || (tag = tag_of(nm->field[2])) < 0) {
				snprintf(nm->err, sizeof nm->err,
				         "a TOP line is TOP,PID,Tnnnn,...");
				goto bad;
			}
		} else if ((tag = tag_of(nm->field[1])) < 0) {
			if (section_set(nm, s) < 0)
				goto oom;
			continue;
		}
		if (!s->n) {
			snprintf(nm->err, sizeof nm->err, "%s data before its header line",
			         nm->field[0]);
			goto bad;
		}
		if (tag >= nm->ntags || nm->t_ms[tag] < 0) {
			snprintf(nm->err, sizeof nm->err, "snapshot %s has no ZZZZ line (no time)",
			         nm->field[s == &nm->top ? 2 : 1]);
			goto bad;
		}
		r = s == &nm->top ? top_line(nm, tag) : host_line(nm, s, nm->t_ms[tag]);
		if (r == -1) {
			snprintf(err, errlen, "%s", nm->err);
			return -1;
		}
		if (r == -2)
			goto bad;
	}
	if (rc < 0)
		return fail_at(nm, no, nm->err, err, errlen);
	return 0;
bad:
	if (!nm->in->last_nl && !nm->res->warning[0]) {
		snprintf(nm->res->warning, sizeof nm->res->warning,
		         "%s:%ld: the last line is cut short (nmon stopped while writing): skipped",
		         nm->o->path, no);
		return 0;
	}
	return fail_at(nm, no, nm->err, err, errlen);
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* The TOP sums, a row per snapshot that listed processes. */
static int put_tops(struct nmon *nm)
{
	for (int32_t tag = 1; tag < nm->ntags; tag++) {
		const struct topsum *t = &nm->sums[tag];
		int64_t ms = nm->t_ms[tag];
		if (!t->listed || ms < 0)
			continue;
		if (put(nm, "cpu_pct", ms, t->cpu) < 0 || put(nm, "user_pct", ms, t->usr) < 0 ||
		    put(nm, "sys_pct", ms, t->sys) < 0)
			return -1;
		if (t->procs > 0) {
			nm->res->matched++;
			if (put(nm, "rss_kb", ms, t->rss_kb) < 0 ||
			    put(nm, "procs", ms, t->procs) < 0)
				return -1;
		}
	}
	return 0;
}

int nmon_read(struct ireader *in, const struct nmon_opts *o, const struct nmon_sink *sink,
              struct nmon_result *res, char *err, size_t errlen)
{
	struct nmon *nm = calloc(1, sizeof *nm);
	int rc = -1;

	memset(res, 0, sizeof *res);
	if (!nm) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nm->o = o;
	nm->res = res;
	nm->in = in;
	nm->sink = sink;
	if (o->match) {
		char why[160];
		if (!(nm->re = re_compile(o->match, why, sizeof why))) {
			snprintf(err, errlen, "--match: %s", why);
			rc = -2;
			goto done;
		}
		nm->md = pcre2_match_data_create_from_pattern(nm->re, NULL);
		if (!nm->md) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
	}
	if ((rc = pass_times(nm, err, errlen)) < 0)
		goto done;
	rc = -1;
	if (o->host_name)
		snprintf(res->host, sizeof res->host, "%s", o->host_name);
	if (!res->host[0])
		snprintf(res->host, sizeof res->host, "unknown");
	if (nm->nuargs > 0)
		qsort(nm->uargs, nm->nuargs, sizeof *nm->uargs, cmp_uarg);
	nm->sums = calloc((size_t)nm->ntags, sizeof *nm->sums);
	if (!nm->sums) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if ((rc = pass_data(nm, err, errlen)) < 0)
		goto done;
	rc = -1;
	res->top = nm->top.n > 0;
	if (nm->re && !res->top) {
		snprintf(err, errlen,
		         "%s: --match needs the TOP section, which this file has not "
		         "(record with nmon -t, or -T for command lines)",
		         o->path);
		rc = -2;
		goto done;
	}
	if (nm->re && put_tops(nm) < 0) {
		snprintf(err, errlen, "%s", nm->err);
		goto done;
	}
	res->first_ms = -1;
	for (int32_t t = 1; t < nm->ntags; t++)
		if (nm->t_ms[t] >= 0) {
			if (res->first_ms < 0 || nm->t_ms[t] < res->first_ms)
				res->first_ms = nm->t_ms[t];
			if (nm->t_ms[t] > res->last_ms)
				res->last_ms = nm->t_ms[t];
		}
	rc = 0;
done:
	section_release(&nm->cpu);
	section_release(&nm->mem);
	section_release(&nm->net);
	section_release(&nm->top);
	pcre2_match_data_free(nm->md);
	pcre2_code_free(nm->re);
	free(nm->t_ms);
	free(nm->uargs);
	free(nm->sums);
	free(nm);
	return rc;
}
