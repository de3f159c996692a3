/*
 * env — what ran: the facts a run's figures depend on, gathered once when the run starts
 * and stored in run_env (sql/005_env.sql), so a report can show them per label and say when
 * two labels differ in more than the label.
 *
 * Facts of the load generator (source ""):
 *   host, kernel, cpu_model, cores (online), cpus (how many this process may run on),
 *   cpu_list (which: its placement), memory,
 *   soak_version, curl_version, nofile (ulimit -n, soft), ip_local_port_range,
 *   tcp_tw_reuse, somaxconn, threads (engine threads), loop, think_time, timeout,
 *   server_banner (the target's `Server:` header, from one HEAD request, recorded when the
 *   run ends: see env_banner_start);
 *   https:// runs: openssl_version, tls_verify ("on (system CAs)", "on (ca_file FILE)",
 *   "off (insecure)"), tls_resume (on, off), and when the run ends what the first
 *   handshake negotiated: tls_version (TLSv1.3), tls_cipher, alpn (the protocol ALPN
 *   chose, "-" for none);
 *   HTTP/2 runs: http_version (2), h2_connections (the connections the streams share), and
 *   when the run ends h2_max_streams (the server's SETTINGS_MAX_CONCURRENT_STREAMS).
 * Facts of each [collect.NAME] source with a process (pid_match, pidfile or pid), from the
 * first matching process on this host:
 *   pids (how many matched), exe, cmdline (its secrets redacted: redact.h, with the
 *   scenario's `redact` names), cpus and cpu_list (its CPU affinity: how many, which), and
 *   for a JVM
 *   jvm_version, gc (the collector), heap_max — from the GC log's header lines where the
 *   log has them (what the JVM really used), else from the command line's flags, and the
 *   version from the JDK's `release` file.
 *
 * Gathering never fails: a fact that cannot be read (another user's process, no network
 * answer) is simply missing.  Nothing here prints; the runner logs a failed write.
 * An env belongs to one thread; env_free(NULL) is a no-op.
 */
#ifndef SOAK_ENV_H
#define SOAK_ENV_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "scenario/scenario.h"

#define ENV_MAX_FACTS       160   /* facts of one run */
#define ENV_VALUE_MAX       4096  /* one value (a command line is cut here) */
#define ENV_HEAD_TIMEOUT_MS 2000  /* the Server banner's HEAD request */
#define ENV_GC_HEAD_BYTES   65536 /* how much of a GC log's start is read for its header */

/* One fact. */
struct env_fact {
	char source[64];           /* "" for the load generator, else the source's name */
	char key[32];              /* see above */
	char value[ENV_VALUE_MAX]; /* as shown */
};

/* The facts of one run, in the order gathered (a key appears once per source). */
struct env {
	struct env_fact *f; /* ENV_MAX_FACTS entries (owned) */
	int n;              /* used */
};

/* What the runner knows that /proc does not. */
struct env_run {
	const struct scenario *s; /* the scenario being run */
	int threads;              /* engine threads really started */
	const char *loop;         /* engine loop name */
	const char *curl_version; /* curl_version() */
};

/* Allocates e->f; 0, or -1 out of memory. */
int env_init(struct env *e);
void env_free(struct env *e);
/* Sets (or replaces) a fact; values longer than ENV_VALUE_MAX - 1 are cut. */
void env_set(struct env *e, const char *source, const char *key, const char *value);
/* A fact's value, or NULL. */
const char *env_get(const struct env *e, const char *source, const char *key);

/* Every fact above but the Server banner. */
void env_gather(struct env *e, const struct env_run *run);
/* The JVM facts a GC log's first lines give (unified logging's `Using G1`, `Version:`,
 * `Heap Max Capacity:` or ZGC's `Max Capacity:`; JDK 8's VM banner and `CommandLine
 * flags:`), for source. */
void env_gc_header(struct env *e, const char *source, const char *text, size_t len);
/* The JVM facts of a command line (-Xmx, -XX:MaxHeapSize=, -XX:+Use...GC), for facts the
 * GC log did not give. */
void env_jvm_flags(struct env *e, const char *source, const char *cmdline);

/* Writes the facts of run_id in one transaction; 0, or -1 with err. */
int env_record(sqlite3 *db, int64_t run_id, const struct env *e, char *err, size_t errlen);

/* The target's Server banner is asked for by one HEAD request in a thread of its own, so a
 * target that is slow to answer (or never does) cannot delay or lengthen the run: the run
 * starts the probe, and takes its answer when it ends.  HEAD is safe by definition, and a
 * server that only takes POST there still names itself in its 405. */
struct env_banner;
/* Starts the probe of the plan's first URL (HTTP, without placeholders), or returns NULL
 * (nothing to ask, or no thread). */
struct env_banner *env_banner_start(const struct plan *p);
/* The banner into out when the answer has come (1), else 0; either way b is handed back:
 * freed now, or by its thread when that finishes.  NULL is a no-op (0). */
int env_banner_take(struct env_banner *b, char *out, size_t len);

/* What the runner calls when the run starts: gathers and records the facts, and starts the
 * banner probe (returned, or NULL); 0 or -1 with err in *rc. */
struct env_banner *env_capture(sqlite3 *db, int64_t run_id, const struct env_run *run, int *rc,
                               char *err, size_t errlen);
/* ... and when it ends: records the banner if it came, and what the engine learnt of the
 * target (f, may be NULL); 0, or -1 with err. */
int env_finish(sqlite3 *db, int64_t run_id, struct env_banner *b, const struct engine_facts *f,
               char *err, size_t errlen);

#endif
