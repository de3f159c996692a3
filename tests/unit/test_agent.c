/* Agents: --agent K/N and auto from Slurm/Kubernetes variables, start times, alignment,
 * shares and numbering; and the merge of three agents' recorded runs into one, with
 * histograms checked bucket by bucket against the sum of everything the agents recorded. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/agent.h"
#include "engine/agent_id.h"
#include "run/agent_merge.h"
#include "db.h"
#include "hdr.h"
#include "scenario/scenario.h"

/* --- K/N and the environment ------------------------------------------------------------- */

static void spec(void **state)
{
	char err[256];
	int k = 0, n = 0;
	(void)state;
	assert_int_equal(agent_parse_spec("2/3", &k, &n, err, sizeof err), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 3);
	assert_int_equal(agent_parse_spec("auto", &k, &n, err, sizeof err), 1);
	const char *bad[] = {"0/3", "4/3", "3", "a/b", "1/0", "1/10001", "1/3x", "", "-1/3"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(agent_parse_spec(bad[i], &k, &n, err, sizeof err), -1);
	assert_string_equal(err, "--agent -1/3: expected 1 <= K <= N <= 10000");
}

/* A fake environment: "NAME=VALUE" strings, NULL-terminated. */
static const char *fake_get(const char *name, void *ctx)
{
	const char *const *env = ctx;
	size_t l = strlen(name);
	for (; *env; env++)
		if (strncmp(*env, name, l) == 0 && (*env)[l] == '=')
			return *env + l + 1;
	return NULL;
}

static int from(const char *const *env, int agents, int *k, int *n, char *group, char *err)
{
	const char *src = NULL;
	return agent_from_env(fake_get, (void *)env, agents, k, n, &src, group, AGENT_GROUP_MAX,
	                      err, 256);
}

static void environment(void **state)
{
	char err[256], group[AGENT_GROUP_MAX];
	int k, n;
	(void)state;
	const char *array[] = {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=4",
	                       "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_JOB_ID=77", NULL};
	assert_int_equal(from(array, 0, &k, &n, group, err), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 3);
	assert_string_equal(group, "slurm-77");
	assert_int_equal(from(array, 4, &k, &n, group, err), -1);
	assert_string_equal(err, "--agents 4 disagrees with the Slurm job array's 3 agents");
	const char *stepped[] = {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=1",
	                         "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_MAX=7", NULL};
	assert_int_equal(from(stepped, 0, &k, &n, group, err), 0);
	assert_int_equal(k, 3);
	assert_int_equal(n, 4);
	const char *list[] = {"SLURM_ARRAY_TASK_ID=9", "SLURM_ARRAY_TASK_MIN=1",
	                      "SLURM_ARRAY_TASK_COUNT=3", NULL};
	assert_int_equal(from(list, 0, &k, &n, group, err), -1);
	assert_non_null(strstr(err, "give the array as a range"));
	const char *k8s[] = {"JOB_COMPLETION_INDEX=0", NULL};
	assert_int_equal(from(k8s, 4, &k, &n, group, err), 0);
	assert_int_equal(k, 1);
	assert_int_equal(n, 4);
	assert_string_equal(group, "");
	assert_int_equal(from(k8s, 0, &k, &n, group, err), -1);
	assert_non_null(strstr(err, "needs --agents N"));
	const char *k8s_past[] = {"JOB_COMPLETION_INDEX=4", NULL};
	assert_int_equal(from(k8s_past, 4, &k, &n, group, err), -1);
	const char *srun[] = {"SLURM_STEP_ID=0", "SLURM_PROCID=2", "SLURM_NTASKS=4",
	                      "SLURM_JOB_ID=9", NULL};
	assert_int_equal(from(srun, 0, &k, &n, group, err), 0);
	assert_int_equal(k, 3);
	assert_int_equal(n, 4);
	assert_string_equal(group, "slurm-9.0");
	const char *batch_only[] = {"SLURM_PROCID=0", "SLURM_NTASKS=1", NULL}; /* no srun step */
	assert_int_equal(from(batch_only, 0, &k, &n, group, err), -1);
	assert_non_null(strstr(err, "no Slurm job array (SLURM_ARRAY_TASK_ID)"));
	const char *garbage[] = {"SLURM_ARRAY_TASK_ID=x", NULL};
	assert_int_equal(from(garbage, 0, &k, &n, group, err), -1);
	assert_string_equal(err, "SLURM_ARRAY_TASK_ID: 'x' is not a task number");
}

/* --- time, alignment, plan, share, numbering ---------------------------------------------- */

static void times(void **state)
{
	char err[256];
	int64_t ms = 0;
	(void)state;
	assert_int_equal(agent_parse_time("2026-05-01T12:00:00Z", &ms, err, sizeof err), 0);
	assert_int_equal(ms, 1777636800000LL);
	assert_int_equal(agent_parse_time(" 2026-05-01t14:00:00.25+02:00 ", &ms, err, sizeof err),
	                 0);
	assert_int_equal(ms, 1777636800250LL);
	assert_int_equal(agent_parse_time("2026-05-01 06:30:00-05:30", &ms, err, sizeof err), 0);
	assert_int_equal(ms, 1777636800000LL);
	assert_int_equal(agent_parse_time("1777636800", &ms, err, sizeof err), 0);
	assert_int_equal(ms, 1777636800000LL);
	assert_int_equal(agent_parse_time("1777636800.5", &ms, err, sizeof err), 0);
	assert_int_equal(ms, 1777636800500LL);
	assert_int_equal(agent_parse_time("2026-02-30T00:00:00Z", &ms, err, sizeof err), -1);
	assert_string_equal(err, "'2026-02-30T00:00:00Z': no such date");
	const char *bad[] = {"2026-05-01T12:00:00",   "tomorrow",           "2026-05-01T25:00:00Z",
	                     "2026-05-01T12:00:00.Z", "2026-5-1T12:00:00Z", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(agent_parse_time(bad[i], &ms, err, sizeof err), -1);
	assert_int_equal(agent_boundary_at_or_after(12345, 10000), 20000);
	assert_int_equal(agent_boundary_at_or_after(20000, 10000), 20000);
	assert_int_equal(agent_boundary_at_or_after(1777636800001LL, 2000), 1777636802000LL);
}

static void plan_and_share(void **state)
{
	struct scenario s;
	struct agent a;
	struct agent_args args = {.agent = "2/3", .group = "g", .start_at = "1777636800"};
	struct agent_share sh;
	char err[512];
	int sum = 0;
	(void)state;
	assert_int_equal(scn_parse_text(&s, "t.ini",
	                                "[scenario]\nduration = 1m\ninterval = 10s\n[sweep]\n"
	                                "concurrency = 2,7\nstep_duration = 30s\n[request]\n"
	                                "url = http://127.0.0.1/\ntimeout = 5s\n",
	                                NULL, 0, err, sizeof err),
	                 0);
	assert_int_equal(agent_setup(&a, &args, err, sizeof err), 0);
	assert_int_equal(a.index, 2);
	assert_int_equal(a.start_at_ms, 1777636800000LL);
	assert_int_equal(agent_plan_start(&a, &s, 5), 1777636800000LL);
	agent_plan_next(&a, &s, 1777636800000LL);
	assert_int_equal(a.seq, 1);
	/* 60 s of steps + the 5 s timeout + the 10 s gap = 75 s, up to the next 10 s boundary */
	assert_int_equal(agent_plan_start(&a, &s, 5), 1777636880000LL);
	a.next_start_ms = -1;
	a.start_at_ms = -1;
	a.start_in_ms = 30000;
	assert_int_equal(agent_plan_start(&a, &s, 1777636801234LL), 1777636840000LL);
	for (int k = 1; k <= 3; k++) {
		a.index = k;
		agent_share(&a, s.levels[1], s.rates[1], &sh);
		sum += sh.vus;
	}
	assert_int_equal(sum, 7);
	a.index = 3;
	agent_share(&a, s.levels[0], s.rates[0], &sh);
	assert_int_equal(sh.vus, 0); /* 2 users for 3 agents: the third has none */
	agent_share(NULL, s.levels[1], s.rates[1], &sh);
	assert_int_equal(sh.vus, 7);
	scn_release(&s);

	struct agent_args nogroup = {.agent = "1/2"},
	                  both = {.agent = "1/2", .group = "g", .start_at = "1", .start_in = "1s"};
	struct agent_args alone = {.group = "g"}, badgroup = {.agent = "1/2", .group = "a b"};
	assert_int_equal(agent_setup(&a, &nogroup, err, sizeof err), -1);
	assert_non_null(strstr(err, "--agent needs --group NAME"));
	assert_int_equal(agent_setup(&a, &both, err, sizeof err), -1);
	assert_string_equal(err, "give --start-at or --start-in, not both");
	assert_int_equal(agent_setup(&a, &alone, err, sizeof err), -1);
	assert_string_equal(err, "--group needs --agent");
	assert_int_equal(agent_setup(&a, &badgroup, err, sizeof err), -1);
}

/* VUs and ${seq}: every number 1..C exactly once across the agents, for several C and N. */
static void numbering(void **state)
{
	(void)state;
	for (int n = 1; n <= 7; n++)
		for (int c = 0; c <= 50; c++) {
			int seen[64] = {0}, total = 0;
			for (int k = 1; k <= n; k++) {
				int share = agent_id_count(c, k, n);
				total += share;
				for (int j = 0; j < share; j++) {
					uint64_t id = agent_id_global((uint64_t)j, k, n);
					assert_in_range(id, 1, (uint64_t)c);
					seen[id]++;
					assert_int_equal(id % (uint64_t)n,
					                 (uint64_t)k % (uint64_t)n);
				}
			}
			assert_int_equal(total, c);
			for (int v = 1; v <= c; v++)
				assert_int_equal(seen[v], 1);
		}
}

static void clock_probe(void **state)
{
	char err[256];
	int64_t off = 99999;
	(void)state;
	assert_int_equal(agent_clock_offset(NULL, "/tmp/x.db", &off, err, sizeof err), 0);
	assert_in_range(off + 1000, 1000 - 100, 1000 + 100); /* one clock: about 0 */
	assert_int_equal(agent_clock_offset(NULL, "/nonexistent-dir/x.db", &off, err, sizeof err),
	                 -1);
	assert_non_null(strstr(err, "cannot create '/nonexistent-dir/.soak-clock-"));
}

/* --- the merge on recorded blobs ---------------------------------------------------------- */

#define T0  1700000000000LL /* 2023-11-14T22:13:20Z, a multiple of the 10 s interval */
#define NIV 4               /* intervals per agent: warm-up, then three steady */

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/*
 * Three agents' runs of group "g" in db: agent 3 recorded nothing in interval 2 (it
 * stalled), agent 2's clock is 1.5 s ahead.  want[i] gets every latency all agents
 * recorded in interval i, want_step those of the steady intervals; *requests and
 * *errors their totals over the steady intervals.
 */
static void record_agents(sqlite3 *db, struct hdr *want, struct hdr *want_step, int64_t *requests,
                          int64_t *errors)
{
	char err[256], sql[1024];
	sqlite3_stmt *iv;
	uint64_t x = 88172645463325252ULL;

	assert_int_equal(
	    db_prepare(db, &iv,
	               "INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, "
	               "vus, requests, errors, bytes, new_conns, mean_us, hist, connect_us) "
	               "VALUES(?,0,?,10000,?,?,?,?,?,?,?,?,?)",
	               err, sizeof err),
	    0);
	for (int k = 1; k <= 3; k++) {
		snprintf(
		    sql, sizeof sql,
		    "INSERT INTO runs(id, uuid, name, label, mode, connection, host, status, "
		    "interval_ms, started_ms, ended_ms, heartbeat_ms, agent_group, agent_seq, "
		    "agent_index, agent_count, start_at_ms, start_lag_ms, clock_offset_ms) "
		    "VALUES(%d, 'agent-%d', 'study', 'v1', 'fixed', 'keepalive', 'h%d', 'done', "
		    "10000, %lld, %lld, %lld, 'g', 0, %d, 3, %lld, 0, %d);"
		    "INSERT INTO steps(run_id, idx, concurrency, started_ms, planned_ms, "
		    "group_concurrency) VALUES(%d, 0, %d, %lld, 40000, 7)",
		    k, k, k, T0, T0 + 40100, T0 + 40100, k, T0, k == 2 ? 1500 : 3, k,
		    k == 1 ? 3 : 2, T0);
		exec_ok(db, sql);
		for (int i = 0; i < NIV; i++) {
			struct hdr h;
			uint8_t *blob;
			size_t len;
			int64_t n = 200 + 50 * k + (int64_t)(rng_next(&x) % 100), e = k, sum = 0;
			if (k == 3 && i == 2)
				continue;
			assert_int_equal(hdr_init_latency(&h, err, sizeof err), 0);
			for (int64_t j = 0; j < n; j++) {
				/* 1 ms to ~1 s, long-tailed, plus one outlier per agent */
				int64_t v = 1000 + (int64_t)(rng_next(&x) % 20000);
				if (j % 97 == 0)
					v *= 40;
				if (j == 0 && i == 3)
					v = 2500000 + 1000 * k;
				hdr_record(&h, v);
				hdr_record(&want[i], v);
				if (i > 0)
					hdr_record(want_step, v);
				sum += v;
			}
			if (i > 0) {
				*requests += n + e;
				*errors += e;
			}
			assert_int_equal(hdr_encode(&h, &blob, &len, err, sizeof err), 0);
			sqlite3_bind_int(iv, 1, k);
			sqlite3_bind_int64(iv, 2, T0 + 10000 * i);
			sqlite3_bind_text(iv, 3, i == 0 ? "warmup" : "steady", -1, SQLITE_STATIC);
			sqlite3_bind_int(iv, 4, k == 1 ? 3 : 2);
			sqlite3_bind_int64(iv, 5, n + e);
			sqlite3_bind_int64(iv, 6, e);
			sqlite3_bind_int64(iv, 7, 1000 * n);
			sqlite3_bind_int64(iv, 8, i == 0 ? 3 : 0);
			sqlite3_bind_double(iv, 9, (double)sum / (double)n);
			sqlite3_bind_blob(iv, 10, blob, (int)len, SQLITE_TRANSIENT);
			/* connections opened (and their connect time) in the first interval only */
			if (i == 0)
				sqlite3_bind_double(iv, 11, 1500.0);
			assert_int_equal(sqlite3_step(iv), SQLITE_DONE);
			sqlite3_reset(iv);
			sqlite3_clear_bindings(iv);
			free(blob);
			hdr_release(&h);
			snprintf(
			    sql, sizeof sql,
			    "INSERT INTO interval_errors VALUES(%d, 0, %lld, 'http_5xx', %lld, "
			    "'503 from agent %d')",
			    k, T0 + 10000 * i, (long long)e, k);
			exec_ok(db, sql);
		}
	}
	sqlite3_finalize(iv);
}

static int64_t one(sqlite3 *db, const char *sql)
{
	long long v = -1;
	char err[256];
	assert_int_equal(db_int(db, sql, -1, &v, err, sizeof err), 0);
	return v;
}

/* The merged intervals' blobs, concatenated with their start times, for comparing folds. */
static char *merged_blobs(sqlite3 *db, int64_t run, size_t *len)
{
	sqlite3_stmt *st;
	char err[256], *out = NULL;
	size_t n = 0;
	assert_int_equal(db_prepare(db, &st,
	                            "SELECT start_ms, hist FROM intervals WHERE run_id = ? "
	                            "ORDER BY start_ms",
	                            err, sizeof err),
	                 0);
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t l = (size_t)sqlite3_column_bytes(st, 1);
		out = realloc(out, n + l + 8);
		int64_t t = sqlite3_column_int64(st, 0);
		memcpy(out + n, &t, 8);
		memcpy(out + n + 8, sqlite3_column_blob(st, 1), l);
		n += l + 8;
	}
	sqlite3_finalize(st);
	*len = n;
	return out;
}

static void merge_exact(void **state)
{
	char dir[] = "/tmp/soak-test-agent.XXXXXX", path[512], err[512];
	sqlite3 *db = NULL;
	struct hdr want[NIV], want_step;
	int64_t requests = 0, errors = 0;
	struct agm_group *g = NULL;
	int n = 0;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.db", dir);
	assert_int_equal(db_open(path, DB_CREATE, &db, err, sizeof err), 0);
	for (int i = 0; i < NIV; i++)
		assert_int_equal(hdr_init_latency(&want[i], err, sizeof err), 0);
	assert_int_equal(hdr_init_latency(&want_step, err, sizeof err), 0);
	record_agents(db, want, &want_step, &requests, &errors);

	assert_int_equal(agm_fold_all(db, &g, &n, err, sizeof err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].group, "g");
	assert_int_equal(g[0].merged, 3);
	assert_int_equal(g[0].planned, 3);
	assert_int_equal(g[0].intervals, NIV);
	assert_string_equal(g[0].status, "done");
	int64_t m = g[0].run_id;
	free(g);
	assert_int_equal(one(db, "SELECT id FROM runs WHERE uuid = 'group:g:0'"), m);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM runs WHERE merged_into IS NOT NULL"), 3);

	/* every merged interval: the histogram of all agents' latencies, bucket by bucket */
	sqlite3_stmt *st;
	assert_int_equal(db_prepare(db, &st,
	                            "SELECT start_ms, hist, p99_us, max_us, vus, requests, errors, "
	                            "phase, connect_us FROM intervals WHERE run_id = ? "
	                            "ORDER BY start_ms",
	                            err, sizeof err),
	                 0);
	sqlite3_bind_int64(st, 1, m);
	for (int i = 0; i < NIV; i++) {
		struct hdr got;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), T0 + 10000 * i);
		assert_int_equal(hdr_decode(sqlite3_column_blob(st, 1),
		                            (size_t)sqlite3_column_bytes(st, 1), &got, err,
		                            sizeof err),
		                 0);
		assert_int_equal(hdr_total(&got), hdr_total(&want[i]));
		assert_int_equal(got.counts_len, want[i].counts_len);
		assert_memory_equal(got.counts, want[i].counts,
		                    (size_t)got.counts_len * sizeof *got.counts);
		assert_int_equal(sqlite3_column_int64(st, 2),
		                 hdr_value_at_percentile(&want[i], 99));
		assert_int_equal(sqlite3_column_int64(st, 3), hdr_max(&want[i]));
		assert_int_equal(sqlite3_column_int(st, 4), i == 2 ? 5 : 7);
		assert_string_equal(db_col_text(st, 7), i ? "steady" : "warmup");
		/* a connect time only where connections opened: none carried over from the
		 * row before */
		if (i == 0)
			assert_true(fabs(sqlite3_column_double(st, 8) - 1500.0) < 0.5);
		else
			assert_int_equal(sqlite3_column_type(st, 8), SQLITE_NULL);
		hdr_release(&got);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	/* the step: the group's concurrency, the steady intervals' sums, exact percentiles */
	snprintf(path, sizeof path, "SELECT concurrency FROM steps WHERE run_id = %lld",
	         (long long)m);
	assert_int_equal(one(db, path), 7);
	snprintf(path, sizeof path, "SELECT requests FROM steps WHERE run_id = %lld", (long long)m);
	assert_int_equal(one(db, path), requests);
	snprintf(path, sizeof path, "SELECT errors FROM steps WHERE run_id = %lld", (long long)m);
	assert_int_equal(one(db, path), errors);
	snprintf(path, sizeof path, "SELECT p99_us FROM steps WHERE run_id = %lld", (long long)m);
	assert_int_equal(one(db, path), hdr_value_at_percentile(&want_step, 99));
	snprintf(path, sizeof path, "SELECT max_us FROM steps WHERE run_id = %lld", (long long)m);
	assert_int_equal(one(db, path), hdr_max(&want_step));
	snprintf(
	    path, sizeof path,
	    "SELECT SUM(count) FROM interval_errors WHERE run_id = %lld AND class = 'http_5xx'",
	    (long long)m);
	assert_int_equal(one(db, path), 1 * 4 + 2 * 4 + 3 * 3);
	/* the notes: agent 3's silence and agent 2's clock */
	snprintf(
	    path, sizeof path,
	    "SELECT COUNT(*) FROM events WHERE run_id = %lld AND source = 'merge' AND detail = "
	    "'agent 3/3 sent nothing from 22:13:40 to 22:13:50 UTC'",
	    (long long)m);
	assert_int_equal(one(db, path), 1);
	snprintf(path, sizeof path,
	         "SELECT COUNT(*) FROM events WHERE run_id = %lld AND kind = 'agent_clock' AND "
	         "detail LIKE 'the agents'' clocks disagree by 1.497 s, more than a tenth of the "
	         "10.0 s%%'",
	         (long long)m);
	assert_int_equal(one(db, path), 1);
	snprintf(path, sizeof path, "SELECT COUNT(*) FROM events WHERE run_id = %lld",
	         (long long)m);
	assert_int_equal(one(db, path), 2);

	/* folding again gives the same rows, byte for byte */
	size_t l1, l2;
	char *b1 = merged_blobs(db, m, &l1);
	assert_int_equal(agm_fold_all(db, &g, &n, err, sizeof err), 0);
	assert_int_equal(g[0].run_id, m);
	free(g);
	char *b2 = merged_blobs(db, m, &l2);
	assert_int_equal(l1, l2);
	assert_memory_equal(b1, b2, l1);
	free(b1);
	free(b2);
	assert_int_equal(one(db, path), 2);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM runs"), 4);

	/* agent 2 died: its run never closed, its process is gone (pid 0 on another host) */
	exec_ok(db, "UPDATE runs SET status = 'running', ended_ms = NULL, host = 'elsewhere', "
	            "heartbeat_ms = 1700000025000 WHERE id = 2");
	assert_int_equal(agm_fold_all(db, &g, &n, err, sizeof err), 0);
	assert_string_equal(g[0].status, "interrupted");
	free(g);
	snprintf(path, sizeof path, "SELECT reason FROM runs WHERE id = %lld", (long long)m);
	sqlite3_stmt *rs;
	assert_int_equal(db_prepare(db, &rs, path, err, sizeof err), 0);
	assert_int_equal(sqlite3_step(rs), SQLITE_ROW);
	assert_string_equal(
	    db_col_text(rs, 0),
	    "agents 1, 3 of 3 done; agent 2 of 3 crashed (last heard of at 22:13:45 "
	    "UTC)");
	sqlite3_finalize(rs);

	for (int i = 0; i < NIV; i++)
		hdr_release(&want[i]);
	hdr_release(&want_step);
	db_close(db);
	snprintf(path, sizeof path, "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(spec),        cmocka_unit_test(environment),
	    cmocka_unit_test(times),       cmocka_unit_test(plan_and_share),
	    cmocka_unit_test(numbering),   cmocka_unit_test(clock_probe),
	    cmocka_unit_test(merge_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
