/*
 * soak-procstat's parsers on real /proc text samples, and its process-set and host
 * sampling on a fake /proc tree (rates, new and vanished members, pid reuse, events,
 * memory by kind and its bounds: a JVM's -Xmx, a postmaster's shared_buffers read from its
 * configuration, the shared memory a set maps).
 * The collector's modules are not in libsoak.a, so they are compiled into this test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../collectors/procstat_host.c"
#include "../../collectors/procstat_mem.c"
#include "../../collectors/procstat_procfs.c"
#include "../../collectors/procstat_pset.c"
#include "../../collectors/procstat_threads.c"
#include "testdir.h"

/* ---- parsers ----------------------------------------------------------------------- */

static void pid_stat_plain(void **state)
{
	struct procfs_proc p;
	(void)state;
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_stat(
	                     "4242 (java) S 1 4242 4242 0 -1 4194560 53000 0 17 0 1250 310 0 0 "
	                     "20 0 48 0 987654 5368709120 131072 18446744073709551615 1 1 0 0 0 0 "
	                     "0 0 16800 0 0 0 17 1 0 0 0 0 0\n",
	                     &p),
	                 0);
	assert_int_equal(p.pid, 4242);
	assert_int_equal(p.state, 'S');
	assert_int_equal(p.majflt, 17);
	assert_int_equal(p.utime, 1250);
	assert_int_equal(p.stime, 310);
	assert_int_equal(p.threads, 48);
	assert_int_equal(p.start, 987654);
	assert_int_equal(p.vsize, 5368709120ULL);
	assert_int_equal(p.rss_pages, 131072);
}

/* comm is whatever the program called itself: spaces, parentheses, a fake ") R 1 2". */
static void pid_stat_odd_comm(void **state)
{
	struct procfs_proc p;
	(void)state;
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_stat("77 (a) (b c)) R 1 2 3) Z 1 77 77 0 -1 0 9 0 3 0 "
	                                       "40 60 0 0 20 0 5 0 1234 2000000 300\n",
	                                       &p),
	                 0);
	assert_int_equal(p.pid, 77);
	assert_int_equal(p.state, 'Z');
	assert_int_equal(p.majflt, 3);
	assert_int_equal(p.utime, 40);
	assert_int_equal(p.stime, 60);
	assert_int_equal(p.threads, 5);
	assert_int_equal(p.start, 1234);
	assert_int_equal(p.rss_pages, 300);
}

static void pid_stat_broken(void **state)
{
	struct procfs_proc p;
	(void)state;
	assert_int_equal(procfs_parse_pid_stat("", &p), -1);
	assert_int_equal(procfs_parse_pid_stat("12 (no close paren S 1 2", &p), -1);
	assert_int_equal(procfs_parse_pid_stat("12 (cut) S 1 12 12 0 -1 0 1 0 0 0 5", &p), -1);
	assert_int_equal(procfs_parse_pid_stat("x (sh) S 1", &p), -1);
}

static void pid_status_and_io(void **state)
{
	struct procfs_proc p;
	(void)state;
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_status("Name:\tpostgres\nState:\tS (sleeping)\n"
	                                         "Threads:\t1\nvoluntary_ctxt_switches:\t1500\n"
	                                         "nonvoluntary_ctxt_switches:\t27\n",
	                                         &p),
	                 0);
	assert_true(p.has_status);
	assert_int_equal(p.ctx_vol, 1500);
	assert_int_equal(p.ctx_invol, 27);
	assert_int_equal(procfs_parse_pid_io("rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\n"
	                                     "read_bytes: 8192\nwrite_bytes: 40960\n"
	                                     "cancelled_write_bytes: 4096\n",
	                                     &p),
	                 0);
	assert_true(p.has_io);
	assert_int_equal(p.rd_bytes, 8192);
	assert_int_equal(p.wr_bytes, 40960);
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_status("Name:\tx\nvoluntary_ctxt_switches:\t1\n", &p),
	                 -1);
	assert_false(p.has_status);
	/* "cancelled_write_bytes" must not be taken for write_bytes. */
	assert_int_equal(procfs_parse_pid_io("read_bytes: 1\ncancelled_write_bytes: 9\n", &p), -1);
}

/* Memory by kind, as Linux 6.x writes status and smaps_rollup (a PostgreSQL backend's). */
static void memory_kinds(void **state)
{
	struct procfs_proc p;
	(void)state;
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_status("Name:\tpostgres\nVmRSS:\t   22844 kB\n"
	                                         "RssAnon:\t    2360 kB\nRssFile:\t    3692 kB\n"
	                                         "RssShmem:\t   16792 kB\n"
	                                         "voluntary_ctxt_switches:\t1\n"
	                                         "nonvoluntary_ctxt_switches:\t2\n",
	                                         &p),
	                 0);
	assert_true(p.has_rss_k);
	assert_int_equal(p.rss_k.anon_kb, 2360);
	assert_int_equal(p.rss_k.file_kb, 3692);
	assert_int_equal(p.rss_k.shmem_kb, 16792);
	assert_int_equal(procfs_parse_pid_smaps_rollup(
	                     "55ce97be2000-7ffe36b26000 ---p 00000000 00:00 0    [rollup]\n"
	                     "Rss:               22844 kB\nPss:                9485 kB\n"
	                     "Pss_Dirty:          8898 kB\nPss_Anon:            637 kB\n"
	                     "Pss_File:            587 kB\nPss_Shmem:          8260 kB\n"
	                     "Shared_Clean:       1584 kB\n",
	                     &p),
	                 0);
	assert_true(p.has_pss_k);
	assert_int_equal(p.pss_kb, 9485);
	assert_int_equal(p.pss_k.anon_kb, 637);
	assert_int_equal(p.pss_k.file_kb, 587);
	assert_int_equal(p.pss_k.shmem_kb, 8260);
	/* Older kernels: Pss alone (before 5.9), no Rss kinds (before 4.5): the total stays. */
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_smaps_rollup("Rss: 10 kB\nPss: 7 kB\n", &p), 0);
	assert_true(p.has_pss && !p.has_pss_k);
	assert_int_equal(procfs_parse_pid_status("voluntary_ctxt_switches:\t1\n"
	                                         "nonvoluntary_ctxt_switches:\t2\nRssAnon: 5 kB\n",
	                                         &p),
	                 0);
	assert_true(p.has_status && !p.has_rss_k);
}

static void jvm_heap_max(void **state)
{
	static const char tomcat[] = "/usr/bin/java\0-Xms256m\0-Xmx256m\0-XX:+UseG1GC\0-cp\0x\0";
	static const char twice[] = "java\0-Xmx1g\0-XX:MaxHeapSize=536870912\0Main\0";
	static const char sh[] = "sh\0-c\0java -Xmx1g\0";
	static const char cut[] = "java\0-Xmx2g\0-Xmx4";
	static const char apples[] = "java\0-Xmx12apples\0";
	(void)state;
	assert_int_equal(pmem_jvm_heap_max_kb(tomcat, sizeof tomcat - 1), 256 * 1024);
	/* The last one wins, as in the JVM; a size in bytes. */
	assert_int_equal(pmem_jvm_heap_max_kb(twice, sizeof twice - 1), 512 * 1024);
	assert_int_equal(pmem_jvm_heap_max_kb(sh, sizeof sh - 1), 0);
	/* A command line cut in the middle of an argument: the whole ones only. */
	assert_int_equal(pmem_jvm_heap_max_kb(cut, sizeof cut - 1), 2 * 1024 * 1024);
	assert_int_equal(pmem_jvm_heap_max_kb(apples, sizeof apples - 1), 0);
}

/* Lines of a postmaster's maps (PostgreSQL 15 on Linux 6.x). */
static void maps_lines(void **state)
{
	struct pmem_seg s;
	(void)state;
	assert_int_equal(pmem_maps_line("7fed2a0cf000-7fed34529000 rw-s 00000000 00:01 1035     "
	                                "                  /dev/zero (deleted)",
	                                &s),
	                 1);
	assert_int_equal(s.kb, 168296);
	assert_int_equal(s.inode, 1035);
	assert_int_equal(pmem_maps_line("7fed365ef000-7fed36600000 rw-s 00000000 00:1b 18   "
	                                "/dev/shm/PostgreSQL.535109572",
	                                &s),
	                 1);
	assert_int_equal(s.kb, 68);
	assert_int_equal(pmem_maps_line("7fed3752a000-7fed3752b000 rw-s 00000000 00:01 9  "
	                                "/SYSV00a727dc (deleted)",
	                                &s),
	                 1);
	/* A shared mapping of a disk file is file-backed; private and anonymous ones are not
	 * shared memory. */
	assert_int_equal(pmem_maps_line("7fed380ed000-7fed380f4000 r--s 00000000 fe:00 332280  "
	                                "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache",
	                                &s),
	                 0);
	assert_int_equal(pmem_maps_line("7fed38000000-7fed38100000 rw-p 00000000 00:00 0 ", &s), 0);
	assert_int_equal(pmem_maps_line("garbage", &s), 0);
}

static void pg_sizes(void **state)
{
	(void)state;
	assert_int_equal(pmem_pg_size_kb("128MB"), 128 * 1024);
	assert_int_equal(pmem_pg_size_kb("16384"), 128 * 1024); /* 8 kB pages */
	assert_int_equal(pmem_pg_size_kb("1GB"), 1024 * 1024);
	assert_int_equal(pmem_pg_size_kb("0.5GB"), 512 * 1024);
	assert_int_equal(pmem_pg_size_kb("262144kB"), 256 * 1024);
	assert_int_equal(pmem_pg_size_kb("128 MB"), 128 * 1024);
	assert_int_equal(pmem_pg_size_kb("128mb"), -1); /* units are case-sensitive */
	assert_int_equal(pmem_pg_size_kb("lots"), -1);
}

static void proc_stat(void **state)
{
	struct procfs_cpu c;
	(void)state;
	assert_int_equal(procfs_parse_stat("cpu  7533 10 3129 99651 386 5 50 30 0 0\n"
	                                   "cpu0 3700 5 1500 50000 200 2 25 15 0 0\n"
	                                   "intr 12345 0 0\nctxt 999\n",
	                                   &c),
	                 0);
	assert_int_equal(c.user, 7543);
	assert_int_equal(c.sys, 3184);
	assert_int_equal(c.idle, 99651);
	assert_int_equal(c.iowait, 386);
	assert_int_equal(c.steal, 30);
	assert_int_equal(c.total, 7543 + 3184 + 99651 + 386 + 30);
	assert_int_equal(procfs_parse_stat("cpu0 1 2 3 4\n", &c), -1);
	assert_int_equal(procfs_parse_stat("cpu  1 2\n", &c), -1);
}

static void meminfo(void **state)
{
	struct procfs_mem m;
	(void)state;
	assert_int_equal(procfs_parse_meminfo("MemTotal:       24683652 kB\n"
	                                      "MemFree:        20000000 kB\n"
	                                      "MemAvailable:   24219876 kB\n"
	                                      "Buffers:          100000 kB\n"
	                                      "SwapCached:            0 kB\n"
	                                      "SwapTotal:       2097148 kB\n"
	                                      "SwapFree:        1048574 kB\n",
	                                      &m),
	                 0);
	assert_int_equal(m.total_kb, 24683652);
	assert_int_equal(m.avail_kb, 24219876);
	assert_int_equal(m.swap_total_kb, 2097148);
	assert_int_equal(m.swap_free_kb, 1048574);
	assert_int_equal(procfs_parse_meminfo("MemTotal: 1 kB\nMemAvailable: 1 kB\n", &m), 0);
	assert_int_equal(m.swap_total_kb, 0);
	assert_int_equal(procfs_parse_meminfo("MemTotal: 1 kB\nMemFree: 1 kB\n", &m), -1);
}

static void loadavg(void **state)
{
	double l[3];
	(void)state;
	assert_int_equal(procfs_parse_loadavg("0.41 0.25 0.11 2/95 9916\n", l), 0);
	assert_true(l[0] > 0.409 && l[0] < 0.411);
	assert_true(l[1] > 0.249 && l[1] < 0.251);
	assert_true(l[2] > 0.109 && l[2] < 0.111);
	assert_int_equal(procfs_parse_loadavg("0.41 oops\n", l), -1);
}

static void sockstat(void **state)
{
	struct procfs_sock s = {0, 0};
	(void)state;
	assert_int_equal(procfs_parse_sockstat("sockets: used 16\n"
	                                       "TCP: inuse 12 orphan 1 tw 163 alloc 20 mem 21\n"
	                                       "UDP: inuse 3 mem 0\n",
	                                       &s),
	                 0);
	assert_int_equal(procfs_parse_sockstat("TCP6: inuse 5\nUDP6: inuse 1\n", &s), 0);
	assert_int_equal(s.tcp_inuse, 17);
	assert_int_equal(s.tcp_tw, 163);
	assert_int_equal(procfs_parse_sockstat("UDP: inuse 3 mem 0\n", &s), -1);
}

static void netdev(void **state)
{
	unsigned long long rx, tx;
	(void)state;
	assert_int_equal(
	    procfs_parse_netdev(
	        "Inter-|   Receive                                                |  Transmit\n"
	        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
	        "packets errs drop fifo colls carrier compressed\n"
	        "    lo:  297459    2981    0    0    0     0          0         0   297459    "
	        "2981    0    0    0     0       0          0\n"
	        "  eth0:1000 10 0 0 0 0 0 0 500 5 0 0 0 0 0 0\n",
	        &rx, &tx),
	    0);
	assert_int_equal(rx, 298459);
	assert_int_equal(tx, 297959);
	assert_int_equal(procfs_parse_netdev("Inter-|\n face |\n", &rx, &tx), -1);
}

static void cmdline(void **state)
{
	char buf[64];
	size_t n;
	(void)state;
	memcpy(buf, "/usr/bin/soak-procstat\0--match\0x y\0", 35);
	assert_true(procfs_cmdline_is(buf, 35, "soak-procstat"));
	assert_false(procfs_cmdline_is(buf, 35, "procstat"));
	assert_false(procfs_cmdline_is("soak-procstatx\0", 15, "soak-procstat"));
	n = procfs_cmdline_flatten(buf, 35);
	assert_int_equal(n, 34);
	assert_string_equal(buf, "/usr/bin/soak-procstat --match x y");
}

/* ---- a fake /proc ------------------------------------------------------------------ */

static void put(const char *rel, const char *text, size_t len)
{
	char path[256], *slash;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", testdir, rel);
	for (slash = strchr(path + strlen(testdir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void put_text(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

/* A process: cmdline (NUL-separated), CPU ticks, start time, rss pages, nfds. */
static void fake_proc(int pid, const char *cmd, size_t cmdlen, unsigned utime, unsigned stime,
                      unsigned start, unsigned rss, int nfds, unsigned vol)
{
	char rel[64], text[512];

	snprintf(rel, sizeof rel, "%d/cmdline", pid);
	put(rel, cmd, cmdlen);
	snprintf(rel, sizeof rel, "%d/stat", pid);
	snprintf(text, sizeof text,
	         "%d (x) S 1 %d %d 0 -1 0 0 0 2 0 %u %u 0 0 20 0 2 0 %u 10240000 %u 0\n", pid, pid,
	         pid, utime, stime, start, rss);
	put_text(rel, text);
	snprintf(rel, sizeof rel, "%d/status", pid);
	snprintf(text, sizeof text,
	         "Name:\tx\nvoluntary_ctxt_switches:\t%u\nnonvoluntary_ctxt_switches:\t0\n", vol);
	put_text(rel, text);
	for (int i = 0; i < nfds; i++) {
		snprintf(rel, sizeof rel, "%d/fd/%d", pid, i);
		put(rel, "", 0);
	}
}

static void gone(int pid)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s/%d'", testdir, pid);
	assert_int_equal(system(cmd), 0);
}

static double metric(const struct procfs_out *out, const char *name)
{
	for (int i = 0; i < out->n; i++)
		if (strcmp(out->m[i].name, name) == 0)
			return out->m[i].value;
	return -1;
}

#define SEC  1000000000LL
#define JAVA "java\0-jar\0app.jar\0"

/* HotSpot's and OpenJ9's native thread names (comm: 15 bytes at most), classed. */
static void thread_classes_by_name(void **state)
{
	static const struct {
		const char *comm;
		enum pthr_class cls;
	} k[] = {
	    {"C2 CompilerThre", PTHR_JIT},
	    {"C1 CompilerThre", PTHR_JIT},
	    {"JIT Compilation", PTHR_JIT},
	    {"GC Thread#0", PTHR_GC},
	    {"G1 Conc#0", PTHR_GC},
	    {"G1 Refine#0", PTHR_GC},
	    {"ZWorker#3", PTHR_GC},
	    {"Shenandoah Cont", PTHR_GC},
	    {"VM Thread", PTHR_VM},
	    {"VM Periodic Tas", PTHR_VM},
	    {"Finalizer", PTHR_VM},
	    {"http-nio-8080-e", PTHR_APP},
	    {"qtp1234-17", PTHR_APP},
	    {"java", PTHR_APP},
	    {"main", PTHR_APP},
	};
	(void)state;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		assert_int_equal(pthr_class_of(k[i].comm), k[i].cls);
	assert_string_equal(pthr_class_name(PTHR_JIT), "jit");
}

/* A thread of pid: its comm and its CPU in ns (schedstat). */
static void fake_thread(int pid, int tid, const char *comm, unsigned long long ns)
{
	char rel[64], text[128];

	snprintf(rel, sizeof rel, "%d/task/%d/comm", pid, tid);
	snprintf(text, sizeof text, "%s\n", comm);
	put_text(rel, text);
	snprintf(rel, sizeof rel, "%d/task/%d/schedstat", pid, tid);
	snprintf(text, sizeof text, "%llu 0 1\n", ns);
	put_text(rel, text);
}

/* A JVM's CPU by thread class, round by round: per-thread deltas, a compiler thread that
 * ends (its class does not go backwards), a new one counted from its start, a process that
 * is no JVM left out. */
static void pset_jvm_threads(void **state)
{
	struct pset_config cfg = {.mode = PSET_MATCH, .pattern = "java -jar app"};
	struct pset ps;
	struct procfs_out out;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX];
	(void)state;

	cfg.proc_root = testdir;
	fake_proc(100, JAVA, sizeof JAVA - 1, 100, 50, 5000, 1000, 3, 10);
	fake_thread(100, 100, "java", 1000000000ULL);
	fake_thread(100, 101, "VM Thread", 100000000ULL);
	fake_thread(100, 102, "C2 CompilerThre", 500000000ULL);
	fake_thread(100, 103, "GC Thread#0", 50000000ULL);
	fake_thread(100, 104, "http-nio-8080-e", 0);
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);
	assert_int_equal(
	    pset_sample(&ps, 1 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ps.thr.jvms, 1);
	/* One second later: the request thread used 0.6 s, the compiler 0.2 s then ended, a new
	 * compiler thread 0.1 s, GC 0.05 s, the VM thread nothing. */
	fake_proc(100, JAVA, sizeof JAVA - 1, 200, 50, 5000, 1000, 3, 10);
	fake_thread(100, 104, "http-nio-8080-e", 600000000ULL);
	fake_thread(100, 103, "GC Thread#0", 100000000ULL);
	gone(100);
	fake_proc(100, JAVA, sizeof JAVA - 1, 200, 50, 5000, 1000, 3, 10);
	fake_thread(100, 100, "java", 1000000000ULL);
	fake_thread(100, 101, "VM Thread", 100000000ULL);
	fake_thread(100, 103, "GC Thread#0", 100000000ULL);
	fake_thread(100, 104, "http-nio-8080-e", 600000000ULL);
	fake_thread(100, 105, "C1 CompilerThre", 100000000ULL);
	memset(&out, 0, sizeof out);
	assert_int_equal(
	    pset_sample(&ps, 2 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_true(fabs(metric(&out, "thr_app_pct") - 60.0) < 1e-6);
	assert_true(fabs(metric(&out, "thr_jit_pct") - 10.0) < 1e-6);
	assert_true(fabs(metric(&out, "thr_gc_pct") - 5.0) < 1e-6);
	assert_true(fabs(metric(&out, "thr_vm_pct") - 0.0) < 1e-6);
	pset_release(&ps);

	/* A multi-threaded process without a JVM's threads gets no classes. */
	gone(100);
	fake_proc(100, JAVA, sizeof JAVA - 1, 100, 50, 5000, 1000, 3, 10);
	fake_thread(100, 100, "nginx", 1000);
	fake_thread(100, 101, "worker", 1000);
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);
	assert_int_equal(
	    pset_sample(&ps, 1 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	memset(&out, 0, sizeof out);
	assert_int_equal(
	    pset_sample(&ps, 2 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ps.thr.jvms, 0);
	assert_true(metric(&out, "thr_app_pct") < 0);
	pset_release(&ps);
}

static void pset_match_rates_and_events(void **state)
{
	struct pset_config cfg = {
	    .mode = PSET_MATCH, .pattern = "java -jar app", .self_name = "soak-procstat"};
	struct pset ps;
	struct procfs_out out;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX];
	double tick = 100.0 / (double)sysconf(_SC_CLK_TCK);
	(void)state;

	cfg.proc_root = testdir;
	fake_proc(100, JAVA, sizeof JAVA - 1, 100, 50, 5000, 1000, 3, 10);
	fake_proc(200, "bash\0", 5, 1, 1, 6000, 10, 1, 0);
	/* A sibling collector carries the pattern in its argv: never a member. */
	fake_proc(300, "soak-procstat\0--match\0java -jar app\0", 36, 9, 9, 7000, 50, 1, 0);
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);

	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 10 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_SAME);
	assert_true(metric(&out, "procs") == 1);
	assert_true(metric(&out, "rss_kb") == 1000.0 * (double)(sysconf(_SC_PAGESIZE) / 1024));
	assert_true(metric(&out, "fds") == 3);
	assert_true(metric(&out, "threads") == 2);
	assert_true(metric(&out, "cpu_pct") < 0); /* first round: no rates yet */

	/* Two seconds later: 100 ticks user + 20 system; a second JVM appears. */
	fake_proc(100, JAVA, sizeof JAVA - 1, 200, 70, 5000, 1200, 3, 30);
	fake_proc(101, JAVA, sizeof JAVA - 1, 500, 500, 5100, 100, 2, 0);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 12 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_CHANGED);
	assert_string_equal(detail, "1 -> 2 processes; gone:; new: 101");
	assert_true(metric(&out, "procs") == 2);
	assert_true(metric(&out, "fds") == 5);
	/* The newcomer's 1000 ticks are not a spike: only pid 100's deltas count. */
	assert_float_equal(metric(&out, "cpu_pct"), 120 * tick / 2, 1e-9);
	assert_float_equal(metric(&out, "user_pct"), 100 * tick / 2, 1e-9);
	assert_float_equal(metric(&out, "sys_pct"), 20 * tick / 2, 1e-9);
	assert_float_equal(metric(&out, "ctxsw_vol_ps"), 10, 1e-9);
	assert_true(metric(&out, "read_bps") < 0); /* no io file: no I/O metrics */

	/* pid 100 restarts under the same pid (new start time); 101 goes on. */
	fake_proc(100, JAVA, sizeof JAVA - 1, 5, 5, 9000, 900, 3, 0);
	fake_proc(101, JAVA, sizeof JAVA - 1, 600, 500, 5100, 100, 2, 0);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 13 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_CHANGED);
	assert_string_equal(detail, "2 -> 2 processes; gone: 100; new: 100");
	assert_float_equal(metric(&out, "cpu_pct"), 100 * tick, 1e-9);

	/* All gone: missing once, then found again. */
	gone(100);
	gone(101);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 14 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_MISSING);
	assert_string_equal(detail, "no process matches 'java -jar app'; gone: 100 101");
	assert_int_equal(out.n, 1);
	assert_true(metric(&out, "procs") == 0);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 15 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_SAME);
	fake_proc(150, JAVA, sizeof JAVA - 1, 0, 0, 9900, 10, 1, 0);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 16 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_FOUND);
	assert_string_equal(detail, "1 processes: 150");
	assert_true(metric(&out, "cpu_pct") == 0);
	pset_release(&ps);
	gone(150);
	gone(200);
	gone(300);
}

/* A shell that forks and then execs the target: the young process is looked at again. */
static void pset_match_sees_exec(void **state)
{
	struct pset_config cfg = {.mode = PSET_MATCH, .pattern = "^java "};
	struct pset ps;
	struct procfs_out out;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX];
	(void)state;

	cfg.proc_root = testdir;
	fake_proc(400, "sh\0-c\0start\0", 12, 0, 0, 100, 1, 1, 0);
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);
	out.n = 0;
	assert_int_equal(pset_sample(&ps, SEC, &out, &ev, detail, sizeof detail, err, sizeof err),
	                 0);
	assert_int_equal(ev, PSET_MISSING);
	fake_proc(400, JAVA, sizeof JAVA - 1, 0, 0, 100, 1, 1, 0);
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 2 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_FOUND);
	pset_release(&ps);
	gone(400);
}

static void pset_pidfile(void **state)
{
	struct pset_config cfg = {.mode = PSET_PIDFILE};
	struct pset ps;
	struct procfs_out out;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX], pidfile[128];
	(void)state;

	cfg.proc_root = testdir;
	snprintf(pidfile, sizeof pidfile, "%s/app.pid", testdir);
	cfg.pidfile = pidfile;
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot read pidfile '"));
	put_text("app.pid", "abc\n");
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "holds no pid"));
	put_text("app.pid", "500\n");
	fake_proc(500, "x\0", 2, 0, 0, 1, 1, 1, 0);
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);
	out.n = 0;
	assert_int_equal(pset_sample(&ps, SEC, &out, &ev, detail, sizeof detail, err, sizeof err),
	                 0);
	assert_int_equal(ev, PSET_SAME);
	assert_true(metric(&out, "procs") == 1);
	/* The pidfile now names a pid that is not running. */
	put_text("app.pid", "501\n");
	out.n = 0;
	assert_int_equal(
	    pset_sample(&ps, 2 * SEC, &out, &ev, detail, sizeof detail, err, sizeof err), 0);
	assert_int_equal(ev, PSET_MISSING);
	assert_non_null(strstr(detail, "pid 501 of pidfile '"));
	pset_release(&ps);
	gone(500);
}

/* A fake PostgreSQL: a postmaster working in its data directory, whose configuration sets
 * shared_buffers five times over (the auto file last), and a backend; both map the main
 * shared memory segment, the backend a small one besides. */
#define PM      "/usr/lib/postgresql/15/bin/postgres\0-D\0/data\0-c\0cluster_name=fakepg\0"
#define BACKEND "postgres: fakepg: checkpointer   \0\0\0"
#define SEG     "7fed2a0cf000-7fed34529000 rw-s 00000000 00:01 1035   /dev/zero (deleted)\n"

static void fake_pg(void)
{
	char path[256], data[256];

	fake_proc(600, PM, sizeof PM - 1, 0, 0, 100, 100, 1, 0);
	fake_proc(601, BACKEND, sizeof BACKEND - 1, 0, 0, 101, 100, 1, 0);
	put_text("pgdata/postgresql.conf",
	         "# written by initdb\nshared_buffers = 128MB\t\t\t# min 128kB\n"
	         "max_connections = 300\ninclude 'soak.conf'\ninclude_dir = 'conf.d'\n"
	         "include_if_exists 'missing.conf'\n");
	put_text("pgdata/soak.conf", "shared_buffers = 64MB\n");
	put_text("pgdata/conf.d/b.conf", "shared_buffers = '32MB'\n");
	put_text("pgdata/conf.d/a.conf", "shared_buffers=999MB\n");
	put_text("pgdata/conf.d/.hidden.conf", "shared_buffers = 1GB\n");
	put_text("pgdata/postgresql.auto.conf", "# ALTER SYSTEM\nshared_buffers = '48MB'\n");
	/* /proc/PID/cwd of a postmaster: its data directory. */
	snprintf(path, sizeof path, "%s/600/cwd", testdir);
	snprintf(data, sizeof data, "%s/pgdata", testdir);
	unlink(path);
	assert_int_equal(symlink(data, path), 0);
	put_text("600/maps",
	         "55ce97be2000-55ce97be3000 r-xp 00000000 fe:00 12 /usr/bin/postgres\n" SEG);
	put_text("601/maps", SEG "7fed365ef000-7fed36600000 rw-s 00000000 00:1b 18 "
	                         "/dev/shm/PostgreSQL.535109572\n");
	put_text("600/smaps_rollup", "Pss: 28410 kB\nPss_Anon: 576 kB\nPss_File: 7183 kB\n"
	                             "Pss_Shmem: 20650 kB\n");
	put_text("601/smaps_rollup", "Pss: 1218 kB\nPss_Anon: 643 kB\nPss_File: 475 kB\n"
	                             "Pss_Shmem: 99 kB\n");
}

/* One round of a new set on the fake tree into *out. */
static void one_round(const struct pset_config *cfg, struct procfs_out *out)
{
	struct pset ps;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX];

	assert_int_equal(pset_init(&ps, cfg, err, sizeof err), 0);
	out->n = 0;
	assert_int_equal(pset_sample(&ps, SEC, out, &ev, detail, sizeof detail, err, sizeof err),
	                 0);
	pset_release(&ps);
}

static void pset_memory_postgres(void **state)
{
	struct pset_config cfg = {.mode = PSET_MATCH, .pattern = "fakepg"};
	struct procfs_out out;
	char path[256], data[256];
	(void)state;

	cfg.proc_root = testdir;
	fake_pg();
	one_round(&cfg, &out);
	assert_true(metric(&out, "procs") == 2);
	/* postgresql.conf, soak.conf, conf.d/a then b (not the hidden one), then the auto
	 * file: 48 MB. */
	assert_true(metric(&out, "shared_buffers_kb") == 48 * 1024);
	/* The main segment once, though both map it, and the backend's own. */
	assert_true(metric(&out, "shmem_mapped_kb") == 168296 + 68);
	assert_true(metric(&out, "pss_anon_kb") == 576 + 643);
	assert_true(metric(&out, "pss_file_kb") == 7183 + 475);
	assert_true(metric(&out, "pss_shmem_kb") == 20650 + 99);
	assert_true(metric(&out, "rss_anon_kb") < 0); /* the fake status has no kinds */
	assert_true(metric(&out, "heap_max_kb") < 0);

	/* A backend just forked still carries the postmaster's command line: the cluster (its
	 * data directory) counts once.  A second cluster in the set counts besides. */
	fake_proc(602, PM, sizeof PM - 1, 0, 0, 102, 100, 1, 0);
	snprintf(path, sizeof path, "%s/602/cwd", testdir);
	snprintf(data, sizeof data, "%s/pgdata", testdir);
	assert_int_equal(symlink(data, path), 0);
	one_round(&cfg, &out);
	assert_true(metric(&out, "procs") == 3);
	assert_true(metric(&out, "shared_buffers_kb") == 48 * 1024);
	put_text("pgdata2/postgresql.conf", "shared_buffers = 16MB\n");
	snprintf(data, sizeof data, "%s/pgdata2", testdir);
	unlink(path);
	assert_int_equal(symlink(data, path), 0);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") == (48 + 16) * 1024);
	gone(602);

	/* The command line outranks the files, and of it the last setting wins: -B in 8 kB
	 * pages, -c with a unit, --shared-buffers. */
	static const char dash_b[] = PM "-B\0"
	                                "2048\0";
	static const char b_then_c[] = PM "-B\0"
	                                  "2048\0-c\0shared_buffers=256MB\0";
	static const char c_then_b[] = PM "-cshared_buffers=256MB\0-B2048\0";
	static const char other[] = PM "--config-file=other.conf\0";
	static const char missing[] = PM "-c\0config_file=/nonexistent.conf\0";
	put("600/cmdline", dash_b, sizeof dash_b - 1);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") == 16 * 1024);
	put("600/cmdline", b_then_c, sizeof b_then_c - 1);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") == 256 * 1024);
	put("600/cmdline", c_then_b, sizeof c_then_b - 1);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") == 16 * 1024);
	/* -c config_file: another configuration, relative to the data directory. */
	put_text("pgdata/other.conf", "shared_buffers = 40MB\n");
	put_text("pgdata/postgresql.auto.conf", "");
	put("600/cmdline", other, sizeof other - 1);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") == 40 * 1024);
	/* An unreadable configuration: no bound rather than a wrong one. */
	put("600/cmdline", missing, sizeof missing - 1);
	one_round(&cfg, &out);
	assert_true(metric(&out, "shared_buffers_kb") < 0);
	gone(600);
	gone(601);
}

static void pset_memory_jvm(void **state)
{
	static const char jvm[] = "java\0-Xms256m\0-Xmx256m\0-jar\0app.jar\0";
	struct pset_config cfg = {.mode = PSET_PID, .pid = 700};
	struct pset ps;
	struct procfs_out out;
	enum pset_event ev;
	char err[256], detail[PSET_DETAIL_MAX];
	(void)state;

	cfg.proc_root = testdir;
	fake_proc(700, jvm, sizeof jvm - 1, 0, 0, 100, 100, 1, 0);
	put_text("700/maps", "7f0000000000-7f0010000000 rw-p 00000000 00:00 0\n");
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), 0);
	for (int round = 1; round <= 2; round++) {
		out.n = 0;
		assert_int_equal(pset_sample(&ps, round * SEC, &out, &ev, detail, sizeof detail,
		                             err, sizeof err),
		                 0);
		assert_true(metric(&out, "heap_max_kb") == 256 * 1024);
		/* Readable maps without shared memory: its bound is 0. */
		assert_true(metric(&out, "shmem_mapped_kb") == 0);
		assert_true(metric(&out, "shared_buffers_kb") < 0);
	}
	pset_release(&ps);
	gone(700);
}

static void pset_bad_pattern(void **state)
{
	struct pset_config cfg = {.mode = PSET_MATCH, .pattern = "java (["};
	struct pset ps;
	char err[256];
	(void)state;
	cfg.proc_root = testdir;
	assert_int_equal(pset_init(&ps, &cfg, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad pattern 'java (['"));
	assert_non_null(strstr(err, "at offset 7"));
}

static void host_rates(void **state)
{
	struct phost h;
	struct procfs_out out;
	char err[256];
	const char *dev1 = "h1\nh2\n  lo: 1000 1 0 0 0 0 0 0 1000 1 0 0 0 0 0 0\n"
	                   "eth0: 500 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0\n";
	const char *dev2 = "h1\nh2\n  lo: 3000 1 0 0 0 0 0 0 3000 1 0 0 0 0 0 0\n"
	                   "eth0: 2500 1 0 0 0 0 0 0 1100 1 0 0 0 0 0 0\n";
	const char *mem = "MemTotal: 1000 kB\nMemAvailable: 600 kB\nSwapTotal: 50 kB\n"
	                  "SwapFree: 20 kB\n";
	(void)state;

	put_text("stat", "cpu  100 0 50 800 30 0 0 20 0 0\n");
	put_text("loadavg", "1.50 0.75 0.25 1/100 42\n");
	put_text("meminfo", mem);
	put_text("net/dev", dev1);
	put_text("net/sockstat", "TCP: inuse 4 orphan 0 tw 9 alloc 4 mem 1\n");
	put_text("net/sockstat6", "TCP6: inuse 2\n");
	assert_int_equal(phost_init(&h, testdir, err, sizeof err), 0);
	out.n = 0;
	assert_int_equal(phost_sample(&h, SEC, &out, err, sizeof err), 0);
	assert_true(metric(&out, "cpu_user_pct") < 0);
	assert_true(metric(&out, "net_rx_bps") < 0);
	assert_float_equal(metric(&out, "load1"), 1.5, 1e-9);
	assert_true(metric(&out, "mem_used_kb") == 400);
	assert_true(metric(&out, "mem_avail_kb") == 600);
	assert_true(metric(&out, "swap_used_kb") == 30);
	assert_true(metric(&out, "tcp_inuse") == 6);
	assert_true(metric(&out, "tcp_tw") == 9);

	/* +200 ticks: 100 user, 50 system, 40 idle, 10 steal; 2 s later. */
	put_text("stat", "cpu  200 0 100 840 30 0 0 30 0 0\n");
	put_text("net/dev", dev2);
	out.n = 0;
	assert_int_equal(phost_sample(&h, 3 * SEC, &out, err, sizeof err), 0);
	assert_float_equal(metric(&out, "cpu_user_pct"), 50, 1e-9);
	assert_float_equal(metric(&out, "cpu_sys_pct"), 25, 1e-9);
	assert_float_equal(metric(&out, "cpu_idle_pct"), 20, 1e-9);
	assert_float_equal(metric(&out, "cpu_steal_pct"), 5, 1e-9);
	assert_float_equal(metric(&out, "cpu_iowait_pct"), 0, 1e-9);
	assert_float_equal(metric(&out, "net_rx_bps"), 2000, 1e-9);
	assert_float_equal(metric(&out, "net_tx_bps"), 1500, 1e-9);
	assert_int_equal(out.n, 15);
	phost_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pid_stat_plain),
	    cmocka_unit_test(pid_stat_odd_comm),
	    cmocka_unit_test(pid_stat_broken),
	    cmocka_unit_test(pid_status_and_io),
	    cmocka_unit_test(memory_kinds),
	    cmocka_unit_test(jvm_heap_max),
	    cmocka_unit_test(maps_lines),
	    cmocka_unit_test(pg_sizes),
	    cmocka_unit_test(proc_stat),
	    cmocka_unit_test(meminfo),
	    cmocka_unit_test(loadavg),
	    cmocka_unit_test(sockstat),
	    cmocka_unit_test(netdev),
	    cmocka_unit_test(cmdline),
	    cmocka_unit_test(thread_classes_by_name),
	    cmocka_unit_test(pset_jvm_threads),
	    cmocka_unit_test(pset_match_rates_and_events),
	    cmocka_unit_test(pset_match_sees_exec),
	    cmocka_unit_test(pset_pidfile),
	    cmocka_unit_test(pset_memory_postgres),
	    cmocka_unit_test(pset_memory_jvm),
	    cmocka_unit_test(pset_bad_pattern),
	    cmocka_unit_test(host_rates),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
