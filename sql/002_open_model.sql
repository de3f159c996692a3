-- soak results database, migration 2: the open model (a fixed arrival rate, latency from
-- the intended start) and the generator watching itself.
-- In an open run the latency columns (mean_us .. max_us, hist) are measured from each
-- request's intended start on the schedule; svc_* hold the service time (sent -> answered)
-- and lag_* the start lag (sent - intended).  Closed runs leave svc_* and lag_* NULL.

ALTER TABLE runs ADD COLUMN model TEXT NOT NULL DEFAULT 'closed'; -- closed | open
ALTER TABLE runs ADD COLUMN arrival TEXT;          -- open: constant | poisson
ALTER TABLE runs ADD COLUMN max_in_flight INTEGER; -- open: requests outstanding at most
ALTER TABLE runs ADD COLUMN max_lag_ms INTEGER;    -- open: arrivals later than this are dropped
ALTER TABLE runs ADD COLUMN threads INTEGER;       -- engine threads (gen_cpu_pct: 100 = all busy)

ALTER TABLE steps ADD COLUMN rate REAL;            -- open: target arrivals per second
ALTER TABLE steps ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0; -- arrivals dropped (class dropped)
ALTER TABLE steps ADD COLUMN svc_mean_us REAL;
ALTER TABLE steps ADD COLUMN svc_p50_us INTEGER;
ALTER TABLE steps ADD COLUMN svc_p99_us INTEGER;
ALTER TABLE steps ADD COLUMN lag_p99_us INTEGER;
ALTER TABLE steps ADD COLUMN lag_max_us INTEGER;
ALTER TABLE steps ADD COLUMN svc_hist BLOB;         -- service-time histogram of the window
ALTER TABLE steps ADD COLUMN lag_hist BLOB;         -- start-lag histogram of the window
ALTER TABLE steps ADD COLUMN gen_cpu_pct REAL;      -- the generator's CPU over the window

ALTER TABLE intervals ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE intervals ADD COLUMN svc_mean_us REAL;
ALTER TABLE intervals ADD COLUMN svc_p50_us INTEGER;
ALTER TABLE intervals ADD COLUMN svc_p99_us INTEGER;
ALTER TABLE intervals ADD COLUMN lag_p99_us INTEGER;
ALTER TABLE intervals ADD COLUMN lag_max_us INTEGER;
ALTER TABLE intervals ADD COLUMN svc_hist BLOB;
ALTER TABLE intervals ADD COLUMN lag_hist BLOB;
-- The engine threads' CPU over the interval, as % of all of them (100 = every engine thread
-- busy all the time); NULL for rows written before this migration.
ALTER TABLE intervals ADD COLUMN gen_cpu_pct REAL;
-- The time the engine threads were ready to run but waited for a core (the kernel's
-- run-queue wait), as % of all of them: a generator starved by other work on its machine
-- is as much the bottleneck as a busy one.
ALTER TABLE intervals ADD COLUMN gen_wait_pct REAL;
-- 1 when the generator itself was the bottleneck: gen_cpu_pct + gen_wait_pct >= 90 or lag
-- p99 > 10 ms.
ALTER TABLE intervals ADD COLUMN gen_saturated INTEGER NOT NULL DEFAULT 0;
