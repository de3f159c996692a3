-- soak results database: runs that soak did not drive, and the thresholds' verdicts.

-- Where a run's figures came from: NULL for `soak run`; 'jmeter' for a JMeter result file
-- brought in by `soak import jmeter` (then scenario_file is that file, scenario a
-- description of what the file shows: its samplers as [request.NAME] sections).
ALTER TABLE runs ADD COLUMN origin TEXT;

-- Each threshold of a scenario checked at the end of each step's measured window: what
-- it allowed, what the step measured, and whether it passed.  A run with thresholds and no
-- row for a step never finished that step.  `soak runs --json` reports them, so a cron job
-- or CI reads one verdict.
CREATE TABLE thresholds (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step_idx  INTEGER NOT NULL,
  metric    TEXT NOT NULL,                 -- p99 | p95 | mean | error_rate | tps_min
  unit      TEXT NOT NULL,                 -- ms (p99, p95, mean) | % (error_rate) | req/s
  limit_val REAL NOT NULL,                 -- the scenario's bound, in unit
  value     REAL NOT NULL,                 -- the step's figure, in unit
  passed    INTEGER NOT NULL,              -- 1 within the bound, 0 beyond it
  PRIMARY KEY (run_id, step_idx, metric)
) WITHOUT ROWID;
