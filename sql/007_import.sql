-- soak results database: runs that soak did not drive, the thresholds' verdicts, and
-- the gaps of resumed runs.

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

-- `soak run --resume RUN_ID` continues a run that was interrupted or crashed, under the
-- same id: `resumed` counts how often, and each span without load between the last
-- interval before the stop and the restart is a row here (and a `gap` event).  Readers
-- leave these spans out of every figure: no interval covers them.
ALTER TABLE runs ADD COLUMN resumed INTEGER NOT NULL DEFAULT 0;
CREATE TABLE gaps (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  from_ms INTEGER NOT NULL,                -- the end of the last interval before the stop
  to_ms   INTEGER NOT NULL,                -- when the resumed run started sending again
  PRIMARY KEY (run_id, from_ms)
) WITHOUT ROWID;
