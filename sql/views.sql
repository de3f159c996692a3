-- Report views, created as TEMP views on every connection (see common/db.h), so a file
-- never depends on one soak version's views.  They do the row work of `soak report`
-- (soak/report_data.c); percentiles of a window are never computed here: they come from
-- merging the stored interval histograms (soak/results.h).

-- Steps with their run's label and the figures a soak table shows.
CREATE TEMP VIEW IF NOT EXISTS step_rows AS
SELECT r.id AS run_id, r.label, r.name, r.mode, r.connection, r.status, s.idx AS step_idx,
       s.concurrency, s.window_start_ms, s.window_end_ms,
       (s.window_end_ms - s.window_start_ms) / 1000.0 AS window_s,
       s.requests, s.errors, s.bytes, s.new_conns, s.tps, s.mean_us, s.p50_us, s.p90_us,
       s.p95_us, s.p99_us, s.p999_us, s.max_us,
       CASE WHEN s.requests > 0 THEN 100.0 * s.errors / s.requests ELSE 0 END AS error_pct
FROM steps s JOIN runs r ON r.id = s.run_id;

-- Runs with the end a report uses: ended_ms once closed; while a row is still open (a run
-- in progress, or one that crashed) the end of its last interval, so nothing depends on
-- the time the report is made.
CREATE TEMP VIEW IF NOT EXISTS rpt_runs AS
SELECT r.id, r.name, r.label, r.mode, r.connection, r.status, IFNULL(r.reason, '') AS reason,
       r.host, IFNULL(r.pid, -1) AS pid, IFNULL(r.pid_start, -1) AS pid_start,
       IFNULL(r.boot_id, '') AS boot_id, IFNULL(r.heartbeat_ms, r.started_ms) AS heartbeat_ms,
       r.interval_ms, r.started_ms,
       COALESCE(r.ended_ms,
                (SELECT MAX(i.start_ms + i.length_ms) FROM intervals i WHERE i.run_id = r.id),
                r.heartbeat_ms, r.started_ms) AS end_ms,
       r.protocol, r.merged_into, r.agent_index, r.agent_count, r.agents_merged
FROM runs r;

-- Steps with the measured window their steady intervals cover (the steps row gets its
-- window only when the step ends; a crashed or running step has intervals all the same).
CREATE TEMP VIEW IF NOT EXISTS rpt_steps AS
SELECT s.run_id, s.idx, s.concurrency, s.planned_ms, s.rate,
       (SELECT COUNT(*) FROM intervals i
         WHERE i.run_id = s.run_id AND i.step_idx = s.idx AND i.phase = 'steady') AS n_steady,
       (SELECT MIN(i.start_ms) FROM intervals i
         WHERE i.run_id = s.run_id AND i.step_idx = s.idx AND i.phase = 'steady') AS from_ms,
       (SELECT MAX(i.start_ms + i.length_ms) FROM intervals i
         WHERE i.run_id = s.run_id AND i.step_idx = s.idx AND i.phase = 'steady') AS to_ms
FROM steps s;

-- One interval's own figures: the batch-means observations and the points of the time
-- series (hist: for merging buckets of a long run).  Latency columns are NULL when no
-- request was answered in the interval.
CREATE TEMP VIEW IF NOT EXISTS rpt_interval_rows AS
SELECT run_id, step_idx, start_ms, length_ms, phase, requests, errors, hist,
       CASE WHEN length_ms > 0 THEN requests * 1000.0 / length_ms ELSE 0 END AS tps,
       mean_us / 1000.0 AS mean_ms, p50_us / 1000.0 AS p50_ms, p90_us / 1000.0 AS p90_ms,
       p99_us / 1000.0 AS p99_ms,
       CASE WHEN requests > 0 THEN 100.0 * errors / requests ELSE 0 END AS error_pct
FROM intervals;

-- CPU as one series per name: a process source's cpu_pct (100 = one core) under the
-- source's name; host-wide user + system (% of all cores) as `host`, or `SOURCE:host` when
-- a process source also sampled its host.  Several hosts of one source are summed at a
-- time (host-wide shares: averaged by the report over time, like everything else).  A JVM's
-- JIT compiler threads (thr_jit_pct) are apart, as `SOURCE:jit`: the source's own series is
-- what its application, GC and VM threads used, so that a JIT still compiling is seen as
-- such and not as the application costing more.
CREATE TEMP VIEW IF NOT EXISTS rpt_cpu AS
SELECT c.source, c.source AS series, c.t_ms, c.value - IFNULL(j.value, 0) AS value, c.run_id
FROM samples c LEFT JOIN samples j
  ON j.source = c.source AND j.metric = 'thr_jit_pct' AND j.t_ms = c.t_ms AND j.host = c.host
WHERE c.metric = 'cpu_pct'
UNION ALL
SELECT source, source || ':jit' AS series, t_ms, value, run_id
FROM samples WHERE metric = 'thr_jit_pct'
UNION ALL
SELECT source, CASE WHEN source = 'host' THEN 'host' ELSE source || ':host' END AS series,
       t_ms, SUM(value) AS value, MAX(run_id) AS run_id
FROM samples WHERE metric IN ('cpu_user_pct', 'cpu_sys_pct')
GROUP BY source, host, t_ms;

-- Memory of a process source, MB, summed over hosts at a time: the proportional set size
-- where the collector recorded it (shared pages divided among the processes sharing them,
-- so a set such as PostgreSQL's backends is not counted once per backend), else RSS.
CREATE TEMP VIEW IF NOT EXISTS rpt_rss AS
SELECT source, t_ms,
       COALESCE(SUM(CASE WHEN metric = 'pss_kb' THEN value END),
                SUM(CASE WHEN metric = 'rss_kb' THEN value END)) / 1024.0 AS mb,
       MAX(run_id) AS run_id
FROM samples WHERE metric IN ('rss_kb', 'pss_kb')
GROUP BY source, t_ms;
