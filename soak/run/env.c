/* env: the facts of a run's environment (see env.h).
 * Every fact is redacted as it is stored (a command line may hold a password), and a
 * fact that cannot be read is absent, never guessed. */
#include "env.h"

#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "db.h"
#include "dur.h"
#include "cpus.h"
#include "procinfo.h"
#include "redact.h"
#include "engine/http.h"

#define CMDLINE_MAX 65536 /* bytes of /proc/PID/cmdline read */

int env_init(struct env *e)
{
	e->n = 0;
	e->f = calloc(ENV_MAX_FACTS, sizeof *e->f);
	return e->f ? 0 : -1;
}

void env_free(struct env *e)
{
	if (!e)
		return;
	free(e->f);
	e->f = NULL;
	e->n = 0;
}

static struct env_fact *find(const struct env *e, const char *source, const char *key)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->f[i].source, source) && !strcmp(e->f[i].key, key))
			return &e->f[i];
	return NULL;
}

const char *env_get(const struct env *e, const char *source, const char *key)
{
	const struct env_fact *f = find(e, source, key);
	return f ? f->value : NULL;
}

void env_set(struct env *e, const char *source, const char *key, const char *value)
{
	struct env_fact *f = find(e, source, key);

	if (!value || !*value)
		return;
	if (!f) {
		if (e->n >= ENV_MAX_FACTS)
			return;
		f = &e->f[e->n++];
		snprintf(f->source, sizeof f->source, "%s", source);
		snprintf(f->key, sizeof f->key, "%s", key);
	}
	snprintf(f->value, sizeof f->value, "%s", value);
	/* One line each: tabs and line breaks become spaces, trailing blanks go. */
	for (char *c = f->value; *c; c++)
		if (*c == '\t' || *c == '\n' || *c == '\r')
			*c = ' ';
	for (size_t n = strlen(f->value); n > 0 && f->value[n - 1] == ' '; n--)
		f->value[n - 1] = '\0';
}

/* The first line of a small file, or "" (buf always terminated). */
static char *first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The value after "key" and a colon in a "key: value" file (/proc/cpuinfo, status, ...). */
static int field(const char *path, const char *key, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t k = strlen(key);
	int found = 0;

	out[0] = '\0';
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f)) {
		char *p = line;
		if (strncmp(line, key, k) != 0)
			continue;
		p += k;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		snprintf(out, len, "%s", p);
		found = 1;
	}
	fclose(f);
	return found;
}

/* CPUs in a list such as "0-3,6,8-9"; 0 when it cannot be read. */
static int count_cpu_list(const char *s)
{
	int n = 0;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s)
			return 0;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return 0;
		}
		n += (int)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return n;
}

/* A size in bytes as the JVM's flags write it, shortest exact unit: "256M", "1G". */
static void fmt_size(unsigned long long bytes, char *out, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, len, "%llu", bytes);
	else
		snprintf(out, len, "%llu%c", bytes, units[u]);
}

/* "256m", "2G", "268435456" (bytes); 0 when not a size. */
static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		return v << 10;
	case 'm':
		return v << 20;
	case 'g':
		return v << 30;
	case 't':
		return v << 40;
	default:
		return v;
	}
}

/* --- the JVM ------------------------------------------------------------------------------ */

/* The collector a `-XX:+UseNAME` flag or a `Using NAME` log line names, or NULL. */
static const char *collector_of(const char *s)
{
	static const struct {
		const char *text, *name;
	} map[] = {
	    {"G1", "G1"},
	    {"ParallelOld", "Parallel"},
	    {"Parallel", "Parallel"},
	    {"Serial", "Serial"},
	    {"ZGC", "ZGC"},
	    {"The Z Garbage Collector", "ZGC"},
	    {"Shenandoah", "Shenandoah"},
	    {"ConcMarkSweep", "CMS"},
	    {"Concurrent Mark Sweep", "CMS"},
	    {"Epsilon", "Epsilon"},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strncmp(s, map[i].text, strlen(map[i].text)))
			return map[i].name;
	return NULL;
}

void env_jvm_flags(struct env *e, const char *source, const char *cmdline)
{
	const char *p = cmdline;

	while (p && *p) {
		const char *end = p + strcspn(p, " ");
		char tok[256], size[32];
		size_t n = (size_t)(end - p) < sizeof tok - 1 ? (size_t)(end - p) : sizeof tok - 1;
		memcpy(tok, p, n);
		tok[n] = '\0';
		if (!env_get(e, source, "heap_max") &&
		    (!strncmp(tok, "-Xmx", 4) || !strncmp(tok, "-XX:MaxHeapSize=", 16))) {
			unsigned long long b = parse_size(tok + (tok[2] == 'm' ? 4 : 16));
			if (b) {
				fmt_size(b, size, sizeof size);
				env_set(e, source, "heap_max", size);
			}
		}
		if (!env_get(e, source, "gc") && !strncmp(tok, "-XX:+Use", 8)) {
			const char *gc = collector_of(tok + 8);
			size_t k = strlen(tok);
			if (gc && k > 2 && !strcmp(tok + k - 2, "GC"))
				env_set(e, source, "gc", gc);
		}
		p = *end ? end + 1 : end;
	}
}

void env_gc_header(struct env *e, const char *source, const char *text, size_t len)
{
	const char *p = text, *stop = text + len;

	while (p < stop) {
		const char *eol = memchr(p, '\n', (size_t)(stop - p));
		char line[2048], *hit;
		size_t n = (size_t)((eol ? eol : stop) - p);
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p = eol ? eol + 1 : stop;
		if ((hit = strstr(line, "] Version: ")) != NULL) {
			/* unified logging: "Version: 17.0.15+6-Debian-1deb12u1 (release)" */
			hit += 11;
			hit[strcspn(hit, " ")] = '\0';
			env_set(e, source, "jvm_version", hit);
		} else if ((hit = strstr(line, "] Using ")) != NULL) {
			const char *gc = collector_of(hit + 8);
			if (gc)
				env_set(e, source, "gc", gc);
		} else if ((hit = strstr(line, "] Heap Max Capacity: ")) != NULL ||
		           (hit = strstr(line, "] Max Capacity: ")) != NULL) {
			/* G1, Parallel, Serial, Shenandoah say "Heap Max Capacity"; ZGC "Max
			 * Capacity". */
			char size[32];
			unsigned long long b = parse_size(strstr(hit, "Capacity: ") + 10);
			if (b) {
				fmt_size(b, size, sizeof size);
				env_set(e, source, "heap_max", size);
			}
		} else if (strstr(line, " VM (") && (hit = strstr(line, " JRE (")) != NULL) {
			/* JDK 8: "OpenJDK 64-Bit Server VM (25.332-b09) for linux-amd64 JRE
			 * (1.8.0_332-b09), built on ..." */
			hit += 6;
			hit[strcspn(hit, ")")] = '\0';
			env_set(e, source, "jvm_version", hit);
		} else if (!strncmp(line, "CommandLine flags: ", 19)) {
			env_jvm_flags(e, source, line + 19);
		}
	}
}

/* JAVA_VERSION="17.0.15" from the `release` file of the JDK an executable belongs to. */
static void jdk_release(struct env *e, const char *source, const char *exe)
{
	char path[PATH_MAX], line[256];
	char *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s", exe);
	for (int up = 0; up < 2; up++) {
		slash = strrchr(path, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
	if (strlen(path) + 9 >= sizeof path)
		return;
	strcat(path, "/release");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "JAVA_VERSION=\"", 14)) {
			line[14 + strcspn(line + 14, "\"")] = '\0';
			env_set(e, source, "jvm_version", line + 14);
		}
	fclose(f);
}

/* --- processes ------------------------------------------------------------------------------ */

/* The processes of a source: the lowest pid matching and how many do (procinfo.h). */
static long find_processes(const struct scn_collect *k, int *count)
{
	long pid = -1;
	char err[256];
	int n = proc_set_find(k->pid, k->pidfile, k->pid_match, &pid, 1, err, sizeof err);
	*count = n > 0 ? n : 0;
	return n > 0 ? pid : -1;
}

/* A GC log's first ENV_GC_HEAD_BYTES. */
static void gc_log_header(struct env *e, const char *source, const char *path)
{
	char *buf = malloc(ENV_GC_HEAD_BYTES);
	FILE *f = buf ? fopen(path, "r") : NULL;

	if (f) {
		size_t n = fread(buf, 1, ENV_GC_HEAD_BYTES, f);
		env_gc_header(e, source, buf, n);
		fclose(f);
	}
	free(buf);
}

static void source_facts(struct env *e, const struct scn_collect *k, const struct redact *rd)
{
	char *cmd = malloc(CMDLINE_MAX), *shown = NULL, path[64], v[PATH_MAX];
	int count = 0;
	long pid;
	ssize_t n;

	if (!cmd)
		return;
	/* What the JVM really used comes first; the command line fills in the rest. */
	if (k->gc_log)
		gc_log_header(e, k->name, k->gc_log);
	pid = find_processes(k, &count);
	/* The command line as stored and shown: its secrets redacted (-Ddb.password=,
	 * --db-password ...), judged argument by argument. */
	if (pid > 0 && (n = proc_cmdline(pid, cmd, CMDLINE_MAX, 0)) > 0 &&
	    (shown = redact_argv(rd, cmd, (size_t)n)) != NULL) {
		snprintf(cmd, CMDLINE_MAX, "%s", shown);
		snprintf(v, sizeof v, "%d", count);
		env_set(e, k->name, "pids", v);
		env_set(e, k->name, "cmdline", cmd);
		snprintf(path, sizeof path, "/proc/%ld/exe", pid);
		ssize_t m = readlink(path, v, sizeof v - 1);
		if (m > 0) {
			v[m] = '\0';
			env_set(e, k->name, "exe", v);
		}
		const char *exe = m > 0 ? v : cmd;
		const char *base = strrchr(exe, '/');
		base = base ? base + 1 : exe;
		if (!strncmp(base, "java", 4) || strstr(cmd, " -Xmx") || strstr(cmd, " -XX:")) {
			env_jvm_flags(e, k->name, cmd);
			if (!env_get(e, k->name, "jvm_version") && m > 0)
				jdk_release(e, k->name, v);
		}
		snprintf(path, sizeof path, "/proc/%ld/status", pid);
		if (field(path, "Cpus_allowed_list", v, sizeof v)) {
			int c = count_cpu_list(v);
			/* Which CPUs, not only how many: placement is recorded and compared. */
			env_set(e, k->name, "cpu_list", v);
			if (c > 0) {
				snprintf(v, sizeof v, "%d", c);
				env_set(e, k->name, "cpus", v);
			}
		}
	}
	free(shown);
	free(cmd);
}

/* How https:// requests were made: whether certificates were verified (and against
 * what), whether sessions were resumed, and OpenSSL's version. */
static void tls_settings(struct env *e, const struct plan *p)
{
	const struct plan_tls *t = &p->tls;
	char v[ENV_VALUE_MAX];

	if (!plan_uses_tls(p))
		return;
	env_set(e, "", "openssl_version", OpenSSL_version(OPENSSL_VERSION));
	if (t->insecure)
		snprintf(v, sizeof v, "off (insecure)");
	else if (t->ca_file || t->ca_dir)
		snprintf(v, sizeof v, "on (%s %s)", t->ca_file ? "ca_file" : "ca_dir",
		         t->ca_file ? t->ca_file : t->ca_dir);
	else
		snprintf(v, sizeof v, "on (system CAs)");
	env_set(e, "", "tls_verify", v);
	env_set(e, "", "tls_resume", t->no_resume ? "off" : "on");
}

/* --- the target's banner ---------------------------------------------------------------------- */

enum { PROBE_RUNNING, PROBE_DONE, PROBE_ABANDONED };

struct env_banner {
	char url[2048];      /* what to ask (a copy: the plan may be gone when the thread ends) */
	struct plan_tls tls; /* how, for https:// (a copy too) */
	char banner[256];    /* the Server header's value, or "" */
	atomic_int state;    /* PROBE_*: whoever comes second frees the probe */
};

static size_t on_header(char *data, size_t size, size_t nitems, void *arg)
{
	size_t n = size * nitems;
	char *out = arg;

	if (n > 7 && !strncasecmp(data, "Server:", 7)) {
		size_t k = n - 7, s = 7;
		while (k > 0 && (data[s] == ' ' || data[s] == '\t'))
			s++, k--;
		while (k > 0 && (data[s + k - 1] == '\r' || data[s + k - 1] == '\n' ||
		                 data[s + k - 1] == ' '))
			k--;
		if (k > 255)
			k = 255;
		memcpy(out, data + s, k);
		out[k] = '\0';
	}
	return n;
}

static void banner_free(struct env_banner *b)
{
	plan_tls_release(&b->tls);
	free(b);
}

static void *probe(void *arg)
{
	struct env_banner *b = arg;
	int expected = PROBE_RUNNING;
	CURL *c = curl_easy_init();

	if (c) {
		curl_easy_setopt(c, CURLOPT_URL, b->url);
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ENV_HEAD_TIMEOUT_MS);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, (void *)b->banner);
		http_tls_setopt(c, &b->tls);
		curl_easy_perform(c);
		curl_easy_cleanup(c);
	}
	/* The runner may have given up waiting: then the probe is ours to free. */
	if (!atomic_compare_exchange_strong(&b->state, &expected, PROBE_DONE))
		banner_free(b);
	return NULL;
}

struct env_banner *env_banner_start(const struct plan *p)
{
	struct env_banner *b;
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (p->protocol != PLAN_HTTP || p->nreqs == 0 || p->reqs[0].url.dynamic ||
	    strlen(p->reqs[0].url.text) >= sizeof b->url)
		return NULL;
	b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	snprintf(b->url, sizeof b->url, "%s", p->reqs[0].url.text);
	atomic_init(&b->state, PROBE_RUNNING);
	if (plan_tls_copy(&b->tls, &p->tls) < 0) {
		free(b);
		return NULL;
	}
	if (pthread_attr_init(&attr) != 0) {
		banner_free(b);
		return NULL;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, probe, b);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		banner_free(b);
		return NULL;
	}
	return b;
}

int env_banner_take(struct env_banner *b, char *out, size_t len)
{
	int expected = PROBE_RUNNING;

	if (!b)
		return 0;
	if (atomic_compare_exchange_strong(&b->state, &expected, PROBE_ABANDONED))
		return 0; /* still asking: its thread frees it */
	snprintf(out, len, "%s", b->banner);
	banner_free(b);
	return out[0] != '\0';
}

/* --- the load generator ------------------------------------------------------------------------
 */

static void generator_facts(struct env *e, const struct env_run *run)
{
	const struct scenario *s = run->s;
	char v[512], w[256];
	struct utsname u;
	struct rlimit rl;
	cpu_set_t set;

	if (gethostname(v, sizeof v) == 0) {
		v[sizeof v - 1] = '\0';
		env_set(e, "", "host", v);
	}
	if (uname(&u) == 0) {
		snprintf(v, sizeof v, "%s %s", u.sysname, u.release);
		env_set(e, "", "kernel", v);
	}
	if (field("/proc/cpuinfo", "model name", v, sizeof v))
		env_set(e, "", "cpu_model", v);
	snprintf(v, sizeof v, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	env_set(e, "", "cores", v);
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		snprintf(v, sizeof v, "%d", CPU_COUNT(&set));
		env_set(e, "", "cpus", v);
		env_set(e, "", "cpu_list", cpus_format(&set, v, sizeof v));
	}
	if (field("/proc/meminfo", "MemTotal", w, sizeof w)) {
		snprintf(v, sizeof v, "%lld MB", strtoll(w, NULL, 10) / 1024);
		env_set(e, "", "memory", v);
	}
	env_set(e, "", "soak_version", SOAK_VERSION);
	env_set(e, "", "curl_version", run->curl_version);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)rl.rlim_cur);
		env_set(e, "", "nofile", v);
	}
	first_line("/proc/sys/net/ipv4/ip_local_port_range", v, sizeof v);
	for (char *c = v; *c; c++)
		if (*c == '\t' || *c == ' ')
			*c = '-';
	env_set(e, "", "ip_local_port_range", v);
	env_set(e, "", "tcp_tw_reuse", first_line("/proc/sys/net/ipv4/tcp_tw_reuse", v, sizeof v));
	env_set(e, "", "somaxconn", first_line("/proc/sys/net/core/somaxconn", v, sizeof v));
	snprintf(v, sizeof v, "%d", run->threads);
	env_set(e, "", "threads", v);
	env_set(e, "", "loop", run->loop);
	if (s->plan.think_max_ms <= 0) {
		env_set(e, "", "think_time", "0");
	} else if (s->plan.think_min_ms == s->plan.think_max_ms) {
		env_set(e, "", "think_time", dur_format(s->plan.think_min_ms, v, sizeof v));
	} else {
		dur_format(s->plan.think_min_ms, w, sizeof w);
		snprintf(v, sizeof v, "%s..", w);
		dur_format(s->plan.think_max_ms, w, sizeof w);
		strncat(v, w, sizeof v - strlen(v) - 1);
		env_set(e, "", "think_time", v);
	}
	if (s->plan.protocol == PLAN_HTTP && s->plan.nreqs > 0)
		env_set(e, "", "timeout", dur_format(s->plan.reqs[0].timeout_ms, v, sizeof v));
	tls_settings(e, &s->plan);
	if (s->plan.protocol == PLAN_HTTP && s->plan.http == PLAN_HTTP2) {
		env_set(e, "", "http_version", "2");
		snprintf(v, sizeof v, "%d",
		         s->plan.connections > 0 ? s->plan.connections : run->threads);
		env_set(e, "", "h2_connections", v);
	}
}

void env_gather(struct env *e, const struct env_run *run)
{
	generator_facts(e, run);
	for (int i = 0; i < run->s->ncollect; i++)
		source_facts(e, &run->s->collect[i], &run->s->redact);
}

int env_record(sqlite3 *db, int64_t run_id, const struct env *e, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (db_begin(db, err, errlen) < 0)
		return -1;
	if (db_prepare(db, &st,
	               "INSERT OR REPLACE INTO run_env(run_id, source, key, value) "
	               "VALUES(?,?,?,?)",
	               err, errlen) < 0)
		goto fail;
	for (int i = 0; i < e->n; i++) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, e->f[i].source, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, e->f[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, e->f[i].value, -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (db_done(db, rc, "cannot record the environment", err, errlen) < 0)
			goto fail;
	}
	sqlite3_finalize(st);
	return db_commit(db, err, errlen);
fail:
	sqlite3_finalize(st);
	db_rollback(db);
	return -1;
}

struct env_banner *env_capture(sqlite3 *db, int64_t run_id, const struct env_run *run, int *rc,
                               char *err, size_t errlen)
{
	struct env e;

	*rc = -1;
	if (env_init(&e) < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	env_gather(&e, run);
	*rc = env_record(db, run_id, &e, err, errlen);
	env_free(&e);
	return env_banner_start(&run->s->plan);
}

/* What the engine learnt: the first TLS handshake's version, cipher and ALPN choice. */
static void engine_learnt(struct env *e, const struct engine_facts *f)
{
	char version[32], cipher[128], alpn[64];

	if (f && sscanf(f->tls, "%31s %127s %63s", version, cipher, alpn) == 3) {
		env_set(e, "", "tls_version", version);
		env_set(e, "", "tls_cipher", cipher);
		env_set(e, "", "alpn", alpn);
	}
	if (f && f->h2_max_streams >= 0) {
		snprintf(version, sizeof version, "%lld", (long long)f->h2_max_streams);
		env_set(e, "", "h2_max_streams", version);
	}
}

int env_finish(sqlite3 *db, int64_t run_id, struct env_banner *b, const struct engine_facts *f,
               char *err, size_t errlen)
{
	struct env e;
	char banner[256];
	int rc, have = env_banner_take(b, banner, sizeof banner);

	if (env_init(&e) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (have)
		env_set(&e, "", "server_banner", banner);
	engine_learnt(&e, f);
	rc = e.n ? env_record(db, run_id, &e, err, errlen) : 0;
	env_free(&e);
	return rc;
}
