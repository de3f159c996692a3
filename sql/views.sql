-- Report views, created as TEMP views on every connection (see common/db.h), so a file
-- never depends on one soak version's views.  They do the row work of `soak report`.

-- Steps with their run's label and the figures a soak table shows.
CREATE TEMP VIEW IF NOT EXISTS step_rows AS
SELECT r.id AS run_id, r.label, r.name, r.mode, r.connection, r.status, s.idx AS step_idx,
       s.concurrency, s.window_start_ms, s.window_end_ms,
       (s.window_end_ms - s.window_start_ms) / 1000.0 AS window_s,
       s.requests, s.errors, s.bytes, s.new_conns, s.tps, s.mean_us, s.p50_us, s.p90_us,
       s.p95_us, s.p99_us, s.p999_us, s.max_us,
       CASE WHEN s.requests > 0 THEN 100.0 * s.errors / s.requests ELSE 0 END AS error_pct
FROM steps s JOIN runs r ON r.id = s.run_id;
