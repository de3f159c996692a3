-- soak results database: studies and calibrations (soak study, soak calibrate).
-- A study runs its scenario(s) against several targets (each a label) in rounds, in an
-- interleaved or a seeded random order, with the same reset before every run; each of its
-- runs is an ordinary row of `runs`, tagged here.  Reports judge a label against another
-- across the runs (the run, not the interval, is what repeats) and leave warm-up runs out.

-- One row per study (a resumed study continues its row).
CREATE TABLE studies (
  id           INTEGER PRIMARY KEY,
  uuid         TEXT NOT NULL UNIQUE,       -- random; lets `soak merge` recognise it again
  name         TEXT NOT NULL,
  file         TEXT,                       -- the study file as given
  text         TEXT,                       -- its text as run (after --set overrides)
  order_kind   TEXT NOT NULL,              -- interleaved | random
  seed         INTEGER,                    -- the random order's seed (NULL: interleaved)
  rounds       INTEGER NOT NULL,
  warmup_runs  INTEGER NOT NULL,           -- runs after each target start, not compared
  keep_running INTEGER NOT NULL,           -- 1: targets up for the whole study
  before_each  TEXT,                       -- the command run before every run, or NULL
  targets      TEXT NOT NULL,              -- target names (labels) in file order, comma-separated
  managed      INTEGER NOT NULL DEFAULT 0, -- how many of them the study starts and stops
                                           -- (the others were already running)
  slots        INTEGER NOT NULL,           -- measured runs in the schedule
  status       TEXT NOT NULL DEFAULT 'running', -- running | done | interrupted | failed
  started_ms   INTEGER NOT NULL,
  ended_ms     INTEGER
);
CREATE INDEX studies_name ON studies(name, started_ms);

-- Every run a study made, warm-ups included.
CREATE TABLE study_runs (
  run_id      INTEGER PRIMARY KEY,         -- runs.id
  study_id    INTEGER NOT NULL,            -- studies.id
  seq         INTEGER NOT NULL,            -- order of execution in the study, 1-based
  slot        INTEGER,                     -- 1-based place in the schedule of measured runs;
                                           -- NULL for a warm-up (an interrupted slot is run
                                           -- again: only its done run counts)
  round       INTEGER NOT NULL,            -- 1-based; a warm-up has the round it precedes
  position    INTEGER NOT NULL,            -- 1-based place in the round; 0 for a warm-up
  target      TEXT NOT NULL,               -- the target's name (the run's label)
  warmup      INTEGER NOT NULL DEFAULT 0,  -- 1: recorded, not compared
  since_start INTEGER NOT NULL DEFAULT 0,  -- 1: first run after the study started the target
                                           -- (2, 3, ...: later ones; 0: not started by it)
  version     TEXT                         -- version= printed by the target's start, or NULL
);
CREATE INDEX study_runs_study ON study_runs(study_id, seq);

-- Run-to-run spread of repeated runs of one scenario on one host (soak calibrate, or a
-- study with one target): one row per cell and metric.  A report comparing one run with
-- one run takes its noise from here.
CREATE TABLE calibrations (
  id          INTEGER PRIMARY KEY,
  study_id    INTEGER,                     -- the study that measured it
  t_ms        INTEGER NOT NULL,            -- when it was stored
  host        TEXT NOT NULL,               -- the load generator's host name
  scenario    TEXT NOT NULL,               -- runs.name of the runs
  label       TEXT NOT NULL,               -- their label
  kind        TEXT NOT NULL,               -- fixed | sweep
  concurrency INTEGER NOT NULL,
  planned_ms  INTEGER NOT NULL,            -- the step's planned length
  metric      TEXT NOT NULL,               -- tps | mean | p99
  runs        INTEGER NOT NULL,            -- compared runs it saw
  mean        REAL NOT NULL,               -- mean of the run figures
  sd          REAL NOT NULL,               -- their standard deviation
  cv          REAL NOT NULL,               -- sd / mean
  UNIQUE (study_id, host, scenario, label, kind, concurrency, planned_ms, metric)
);
