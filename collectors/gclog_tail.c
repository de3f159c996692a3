/* soak-gclog: reading GC logs line by line, once (import) or as they grow (follow).
 *
 * Follow mode tracks the file by inode and offset.  Each round it drains the open file
 * descriptor to its end, then looks at the path: another inode there means the JVM rotated
 * (or the file was recreated), so the old file, already read to its end by its own fd, is
 * finished and the new one read from offset 0; a smaller size, or different bytes just
 * before our offset, means copy-and-truncate or a JVM restart rewriting the file, so it is
 * read again from 0.  A line is parsed only once its newline has arrived. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "gclog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "procinfo.h"

#define SIG_LEN 64 /* bytes before the offset remembered to notice a rewrite */

/* An open log file and the reader's position in it. */
struct gl_file {
	int fd;    /* -1 when none */
	dev_t dev; /* identity of the open file */
	ino_t ino;
	off_t off;           /* bytes read so far */
	char *carry;         /* an incomplete last line (GCP_LINE_MAX + 1 bytes) */
	size_t clen;         /* its length */
	int skipping;        /* dropping the rest of an over-long line */
	char sig[SIG_LEN];   /* the bytes just before off */
	size_t siglen;       /* how many */
	char path[PATH_MAX]; /* the path it was opened by */
};

/* ---- events from the parser -------------------------------------------------------- */

static void on_event(const struct gcp_event *ev, void *arg)
{
	struct gl *g = arg;
	struct gcp_event e = *ev;

	if (e.t_ms == GCP_NONE && e.uptime_ms != GCP_NONE) {
		/* Uptime going back by more than a second: a new JVM writes this log. */
		if (g->last_uptime != GCP_NONE && e.uptime_ms + 1000 < g->last_uptime) {
			char d[256];
			snprintf(d, sizeof d, "'%s': uptime went back from %lld to %lld ms",
			         g->cur_file ? g->cur_file : "", (long long)g->last_uptime,
			         (long long)e.uptime_ms);
			gl_db_event(g, clock_wall_ms(), "gc_jvm_restart", d);
			if (g->jvm_start_ms == GCP_NONE)
				g->anchor_ms = GCP_NONE;
			g->last_uptime = GCP_NONE;
		}
		if (g->anchor_ms == GCP_NONE) {
			int64_t s = g->pid_re ? gl_pid_start(g) : GCP_NONE;
			/* Following a live log, the event was just written: now - uptime. */
			g->anchor_ms = s != GCP_NONE  ? s
			               : g->following ? clock_wall_ms() - e.uptime_ms
			                              : g->fallback_ms - e.uptime_ms;
		}
		e.t_ms = g->anchor_ms + e.uptime_ms;
	} else if (e.t_ms == GCP_NONE) {
		e.t_ms = g->fallback_ms;
	}
	if (e.uptime_ms != GCP_NONE && (g->last_uptime == GCP_NONE || e.uptime_ms > g->last_uptime))
		g->last_uptime = e.uptime_ms;
	gl_db_gc(g, &e);
}

static void on_unparsed(const char *line, const char *reason, void *arg)
{
	struct gl *g = arg;
	char d[512];

	if (g->unparsed_kept >= GL_UNPARSED_KEEP)
		return;
	g->unparsed_kept++;
	snprintf(d, sizeof d, "'%s': %s: %s", g->cur_file ? g->cur_file : "", reason, line);
	gl_db_event(g, g->fallback_ms, "gc_unparsed", d);
}

struct gcparse *gl_parser_new(struct gl *g, char *err, size_t errlen)
{
	return gcp_new(on_event, on_unparsed, g, err, errlen);
}

/* ---- lines --------------------------------------------------------------------------- */

/* Feeds the complete lines of data[0..n) to p; keeps an incomplete last line in f. */
static void feed(struct gl_file *f, struct gcparse *p, const char *data, size_t n)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (f->skipping) {
			/* the over-long line was counted already */
		} else if (f->clen + k > GCP_LINE_MAX) {
			/* Past the cap: count it once (the parser sees it as too long). */
			if (f->clen + k > GCP_LINE_MAX) {
				size_t take = GCP_LINE_MAX + 1 - f->clen;
				memcpy(f->carry + f->clen, data, take < k ? take : k);
				gcp_line(p, f->carry, GCP_LINE_MAX + 1);
			}
			f->clen = 0;
			f->skipping = 1;
		} else if (!nl) {
			memcpy(f->carry + f->clen, data, k);
			f->clen += k;
		} else if (f->clen) {
			memcpy(f->carry + f->clen, data, k);
			gcp_line(p, f->carry, f->clen + k);
			f->clen = 0;
		} else {
			gcp_line(p, data, k);
		}
		if (!nl)
			break;
		f->skipping = 0;
		data += k + 1;
		n -= k + 1;
	}
}

/* The incomplete last line, when the file is known to be finished. */
static void feed_rest(struct gl_file *f, struct gcparse *p)
{
	if (f->clen && !f->skipping)
		gcp_line(p, f->carry, f->clen);
	f->clen = 0;
	f->skipping = 0;
}

static void remember_sig(struct gl_file *f)
{
	size_t len = f->off < SIG_LEN ? (size_t)f->off : SIG_LEN;
	ssize_t r = len ? pread(f->fd, f->sig, len, f->off - (off_t)len) : 0;
	f->siglen = r > 0 ? (size_t)r : 0;
}

/* Reads f to its current end. */
static int drain(struct gl_file *f, struct gcparse *p, char *buf, char *err, size_t errlen)
{
	for (;;) {
		ssize_t r = read(f->fd, buf, GL_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", f->path, strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		f->off += r;
		feed(f, p, buf, (size_t)r);
	}
	remember_sig(f);
	return 0;
}

static int open_file(struct gl_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read '%s': %s", path,
		         S_ISDIR(st.st_mode) ? strerror(EISDIR) : strerror(errno));
		close(fd);
		return -1;
	}
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->off = 0;
	f->clen = 0;
	f->skipping = 0;
	f->siglen = 0;
	snprintf(f->path, sizeof f->path, "%s", path);
	return 0;
}

static void close_file(struct gl_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* A reader's buffers, both readers' alike: f's carry and the read chunk *buf.  0, or -1
 * out of memory (what was taken is freed by reader_free). */
static int reader_alloc(struct gl_file *f, char **buf, char *err, size_t errlen)
{
	*buf = malloc(GL_CHUNK);
	f->carry = malloc(GCP_LINE_MAX + 1);
	if (!*buf || !f->carry) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Closes f and frees what reader_alloc took. */
static void reader_free(struct gl_file *f, char *buf)
{
	close_file(f);
	free(f->carry);
	free(buf);
}

int gl_read_all(struct gcparse *p, const char *path, char *err, size_t errlen)
{
	struct gl_file f = {.fd = -1};
	char *buf = NULL;
	int rc = -1;

	if (reader_alloc(&f, &buf, err, errlen) < 0 || open_file(&f, path, err, errlen) < 0 ||
	    drain(&f, p, buf, err, errlen) < 0)
		goto cleanup;
	feed_rest(&f, p);
	rc = 0;
cleanup:
	reader_free(&f, buf);
	return rc;
}

/* ---- anchors for uptime-only logs ------------------------------------------------------ */

int64_t gl_pid_start(struct gl *g)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long long btime = proc_btime(), tick = sysconf(_SC_CLK_TCK);
	int64_t best = GCP_NONE;
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);

	if (!d || !md || btime < 0 || tick <= 0)
		goto cleanup;
	while ((de = readdir(d)) != NULL) {
		char path[64], cmd[4096];
		long pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0 || pid == getpid() || pid == g->parent)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, cmd, sizeof cmd - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (pcre2_match(g->pid_re, (PCRE2_SPTR)cmd, (size_t)n, 0, 0, md, NULL) < 0)
			continue;
		long long start = proc_start_ticks((pid_t)pid);
		if (start < 0)
			continue;
		int64_t ms = (int64_t)btime * 1000 + (int64_t)start * 1000 / tick;
		if (best == GCP_NONE || ms > best)
			best = ms;
	}
cleanup:
	if (d)
		closedir(d);
	pcre2_match_data_free(md);
	return best;
}

struct prescan {
	int seen;    /* events seen */
	int undated; /* the first event had no wall time */
};

static void prescan_event(const struct gcp_event *ev, void *arg)
{
	struct prescan *s = arg;
	if (!s->seen++)
		s->undated = ev->t_ms == GCP_NONE;
}

/* For an uptime-only log without --jvm-start / --pid-match: the file's mtime minus its
 * last uptime (the JVM wrote its last line at about mtime). */
static int anchor_by_mtime(struct gl *g, const char *path, char *err, size_t errlen)
{
	struct prescan s = {0, 0};
	struct stat st;
	struct gcparse *p;
	int rc = -1;

	if (stat(path, &st) < 0)
		return 0; /* open() will say why */
	g->fallback_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	if (g->jvm_start_ms != GCP_NONE || g->pid_re)
		return 0;
	p = gcp_new(prescan_event, NULL, &s, err, errlen);
	if (!p)
		return -1;
	if (gl_read_all(p, path, err, errlen) < 0)
		goto cleanup;
	gcp_flush(p);
	if (s.undated && gcp_stats_of(p)->last_uptime_ms != GCP_NONE) {
		g->anchor_ms = g->fallback_ms - gcp_stats_of(p)->last_uptime_ms;
		g->last_uptime = GCP_NONE;
		log_warn("'%s' has no wall-clock time and no --jvm-start or --pid-match was given: "
		         "anchored at its modification time minus its last uptime",
		         path);
	}
	rc = 0;
cleanup:
	gcp_free(p);
	return rc;
}

/* ---- import ---------------------------------------------------------------------------- */

int gl_import(struct gl *g, const char *path, char *err, size_t errlen)
{
	g->cur_file = path;
	if (anchor_by_mtime(g, path, err, errlen) < 0)
		return -1;
	if (gl_read_all(g->parser, path, err, errlen) < 0)
		return -1;
	return 0;
}

/* ---- follow ---------------------------------------------------------------------------- */

/* The path to read: the given one, or for JDK 8 rotation (`gc.log.N.current`) the newest
 * file matching `<path>.*.current`.  Returns 0 with *st filled, -1 when none exists. */
static int resolve(const char *path, char *out, size_t outlen, struct stat *st)
{
	char pat[PATH_MAX + 16];
	glob_t gl;
	int rc = -1;
	time_t best = 0;

	if (stat(path, st) == 0) {
		snprintf(out, outlen, "%s", path);
		return 0;
	}
	snprintf(pat, sizeof pat, "%s.*.current", path);
	if (glob(pat, 0, NULL, &gl) != 0)
		return -1;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		struct stat s;
		if (stat(gl.gl_pathv[i], &s) == 0 && (rc < 0 || s.st_mtime >= best)) {
			best = s.st_mtime;
			*st = s;
			snprintf(out, outlen, "%s", gl.gl_pathv[i]);
			rc = 0;
		}
	}
	globfree(&gl);
	return rc;
}

static int rewritten(struct gl_file *f, const struct stat *st)
{
	char now[SIG_LEN];
	if (st->st_size < f->off)
		return 1;
	if (!f->siglen)
		return 0;
	ssize_t r = pread(f->fd, now, f->siglen, f->off - (off_t)f->siglen);
	return r != (ssize_t)f->siglen || memcmp(now, f->sig, f->siglen) != 0;
}

/* The open file truncated or rewritten in place (copy-and-truncate, or a restarted JVM
 * opening it with O_TRUNC): read it again from 0.  Checked before reading on, or a new
 * JVM's log that already reaches past our offset would be read from the middle, its
 * first events lost and our cut-off last line glued to its text. */
static void reread_if_rewritten(struct gl *g, struct gl_file *f)
{
	struct stat st;
	char d[PATH_MAX + 128];

	if (f->fd < 0 || fstat(f->fd, &st) < 0 || !rewritten(f, &st))
		return;
	snprintf(d, sizeof d, "'%s' was truncated or rewritten at offset %lld", f->path,
	         (long long)f->off);
	gl_db_event(g, clock_wall_ms(), "gc_log_truncated", d);
	lseek(f->fd, 0, SEEK_SET);
	f->off = 0;
	f->clen = 0;
	f->skipping = 0;
	f->siglen = 0;
}

/* The open file still has a name somewhere (it was renamed, not deleted). */
static int renamed_away(const struct gl_file *f)
{
	struct stat st;

	return f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_nlink > 0;
}

/* One poll round.  *missing: 0 the path is there, 1 its loss is recorded, 2 it has been gone
 * for one round while the old file was renamed away (a rotation in progress). */
static int round_once(struct gl *g, struct gl_file *f, const char *path, char *buf, int *missing,
                      char *err, size_t errlen)
{
	struct stat st;
	char cur[PATH_MAX], d[PATH_MAX + 128];

	reread_if_rewritten(g, f);
	if (f->fd >= 0 && drain(f, g->parser, buf, err, errlen) < 0)
		return -1;
	if (resolve(path, cur, sizeof cur, &st) < 0) {
		/* A JVM rotates by renaming its file away, then creating the new one: a round
		 * that falls between the two sees no file.  While the old file lives on under
		 * another name, that is a rotation in progress for one round, not a loss. */
		if (*missing == 0 && renamed_away(f)) {
			*missing = 2;
		} else if (*missing != 1) {
			snprintf(d, sizeof d, "'%s' is gone", path);
			gl_db_event(g, clock_wall_ms(), "gc_log_missing", d);
			*missing = 1;
		}
		return 0;
	}
	if (f->fd < 0 || st.st_ino != f->ino || st.st_dev != f->dev) {
		const char *kind = *missing == 1 ? "gc_log_reappeared"
		                   : f->fd >= 0  ? "gc_log_rotated"
		                                 : NULL;
		if (f->fd >= 0) {
			/* The old file is finished: what its fd still held was read above. */
			if (drain(f, g->parser, buf, err, errlen) < 0)
				return -1;
			feed_rest(f, g->parser);
			close_file(f);
		}
		if (open_file(f, cur, err, errlen) < 0) {
			log_warn("%s", err); /* it may vanish between stat and open */
			return 0;
		}
		if (kind) {
			snprintf(d, sizeof d, "now reading '%s' (inode %llu)", cur,
			         (unsigned long long)f->ino);
			gl_db_event(g, clock_wall_ms(), kind, d);
		}
		*missing = 0;
		g->cur_file = f->path;
	} else {
		reread_if_rewritten(g, f);
	}
	return drain(f, g->parser, buf, err, errlen);
}

int gl_follow(struct gl *g, const char *path, char *err, size_t errlen)
{
	struct gl_file f = {.fd = -1};
	char *buf = NULL, dir[PATH_MAX], cur[PATH_MAX];
	struct stat st;
	int missing = 0, rc = -1;
	int64_t t0 = clock_mono_ms();

	if (reader_alloc(&f, &buf, err, errlen) < 0)
		goto cleanup;
	/* A log that does not exist yet is waited for, as long as its directory exists. */
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (stat(slash ? (dir[0] ? dir : "/") : ".", &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(ENOENT));
		goto cleanup;
	}
	if (resolve(path, cur, sizeof cur, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(EISDIR));
			goto cleanup;
		}
		if (anchor_by_mtime(g, cur, err, errlen) < 0)
			goto cleanup;
		if (open_file(&f, cur, err, errlen) < 0)
			goto cleanup;
		g->cur_file = f.path;
	} else {
		log_info("waiting for '%s' to appear", path);
		missing = 1;
	}
	g->following = 1;
	while (!gl_stop) {
		g->fallback_ms = clock_wall_ms();
		if (round_once(g, &f, path, buf, &missing, err, errlen) < 0)
			goto cleanup;
		if (gl_db_commit(g) < 0)
			break;
		if (g->for_ms > 0 && clock_mono_ms() - t0 >= g->for_ms)
			break;
		if (g->die_with_parent && getppid() != g->parent)
			break;
		clock_sleep_ms(g->every_ms, (const volatile int *)&gl_stop);
	}
	/* Finish what is complete, commit, and leave. */
	if (f.fd >= 0 && drain(&f, g->parser, buf, err, errlen) < 0)
		goto cleanup;
	gcp_flush(g->parser);
	gl_db_commit(g);
	rc = 0;
cleanup:
	reader_free(&f, buf);
	return rc;
}
