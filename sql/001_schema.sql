-- soak results database, migration 1: the core tables.
-- Names here are the contract between the writers (soak run, soak-procstat, soak-gclog,
-- soak merge) and the reader (soak report).  Times are epoch milliseconds UTC (`*_ms`),
-- latencies microseconds (`*_us`), sizes KB (`*_kb`) unless a column says otherwise.
-- Later changes are new files sql/002_*.sql, ... applied in order by db_open().

-- One row per `soak run` scenario execution.
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  uuid          TEXT NOT NULL UNIQUE,      -- random; lets `soak merge` recognise a run again
  name          TEXT NOT NULL,
  label         TEXT NOT NULL,             -- the system under test; reports compare labels
  scenario_file TEXT,
  scenario      TEXT,                      -- the scenario text as run (after --set overrides)
  mode          TEXT NOT NULL,             -- fixed | sweep
  protocol      TEXT NOT NULL DEFAULT 'http',
  connection    TEXT NOT NULL,             -- keepalive | close
  url           TEXT,
  host          TEXT NOT NULL,             -- hostname of the load generator
  pid           INTEGER,                   -- runner's pid, with pid_start (clock ticks after
  pid_start     INTEGER,                   -- boot) and boot_id: "is that process still alive?"
  boot_id       TEXT,
  soak_version  TEXT,
  curl_version  TEXT,
  status        TEXT NOT NULL DEFAULT 'running', -- running | done | interrupted | failed
  reason        TEXT,                      -- why it ended, when not plainly done
  interval_ms   INTEGER NOT NULL,
  started_ms    INTEGER NOT NULL,
  ended_ms      INTEGER,
  heartbeat_ms  INTEGER
);
CREATE INDEX runs_label ON runs(label, started_ms);

-- One row per step (a fixed run has one; a sweep one per concurrency level).  The figures
-- cover the measured window only (warm-up and ramp-up excluded); `hist` is that window's
-- whole latency histogram (HdrHistogram V2 compressed, µs, lowest 1, 3 digits).
CREATE TABLE steps (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,        -- 0-based
  concurrency     INTEGER NOT NULL,
  started_ms      INTEGER NOT NULL,        -- step start, warm-up included
  window_start_ms INTEGER,                 -- measured window
  window_end_ms   INTEGER,
  planned_ms      INTEGER NOT NULL,        -- planned length of the step, warm-up included
  requests        INTEGER NOT NULL DEFAULT 0, -- completed (answered or failed) in the window
  errors          INTEGER NOT NULL DEFAULT 0,
  bytes           INTEGER NOT NULL DEFAULT 0,
  new_conns       INTEGER NOT NULL DEFAULT 0,
  tps             REAL,
  mean_us         REAL,
  p50_us          INTEGER,
  p90_us          INTEGER,
  p95_us          INTEGER,
  p99_us          INTEGER,
  p999_us         INTEGER,
  max_us          INTEGER,
  connect_us      REAL,                    -- mean connect time of new connections
  ttfb_us         REAL,                    -- mean time to first byte
  hist            BLOB,
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

-- One row per interval (default 10 s), written and committed as the interval closes.
-- phase: rampup | warmup | steady | drain (requests still in flight when the run ended,
-- outside the measured window).  An interrupted run's last interval keeps its phase and
-- is simply shorter.
CREATE TABLE intervals (
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step_idx    INTEGER NOT NULL,
  start_ms    INTEGER NOT NULL,
  length_ms   INTEGER NOT NULL,
  phase       TEXT NOT NULL,
  vus         INTEGER NOT NULL,            -- virtual users active at the interval's end
  requests    INTEGER NOT NULL,
  errors      INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  new_conns   INTEGER NOT NULL,
  connect_us  REAL,
  ttfb_us     REAL,
  mean_us     REAL,
  p50_us      INTEGER,
  p90_us      INTEGER,
  p95_us      INTEGER,
  p99_us      INTEGER,
  p999_us     INTEGER,
  max_us      INTEGER,
  hist        BLOB,
  PRIMARY KEY (run_id, start_ms)
) WITHOUT ROWID;

-- Errors of an interval by class, with one sample message per class.
CREATE TABLE interval_errors (
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step_idx  INTEGER NOT NULL,
  start_ms  INTEGER NOT NULL,
  class     TEXT NOT NULL,                 -- http_4xx, http_5xx, timeout, client_ports, ...
  count     INTEGER NOT NULL,
  sample    TEXT,
  PRIMARY KEY (run_id, start_ms, class)
) WITHOUT ROWID;

-- Collector samples: one value of one metric of one source at one time.  `run_id` is set
-- when `soak run` started the collector; standalone collectors leave it NULL and reports
-- match them to runs by time.
CREATE TABLE samples (
  source  TEXT NOT NULL,                   -- app, db, host, ...
  host    TEXT NOT NULL,
  metric  TEXT NOT NULL,                   -- cpu_pct, rss_kb, ... (see collectors/)
  t_ms    INTEGER NOT NULL,
  value   REAL NOT NULL,
  run_id  INTEGER,
  PRIMARY KEY (source, metric, t_ms, host)
) WITHOUT ROWID;

-- JVM GC events parsed from GC logs.
CREATE TABLE gc_events (
  id              INTEGER PRIMARY KEY,
  source          TEXT NOT NULL,
  host            TEXT NOT NULL,
  t_ms            INTEGER NOT NULL,        -- wall time of the event's start
  uptime_ms       INTEGER,                 -- JVM uptime at the event, when logged
  gc_id           INTEGER,                 -- GC(N) / #N, when logged
  kind            TEXT NOT NULL,           -- young|mixed|full|remark|cleanup|concurrent|other
  cause           TEXT,
  pause_us        INTEGER NOT NULL DEFAULT 0, -- stop-the-world time; 0 for concurrent phases
  conc_us         INTEGER,                 -- duration of a concurrent phase
  heap_before_kb  INTEGER,
  heap_after_kb   INTEGER,
  heap_total_kb   INTEGER,
  young_before_kb INTEGER,
  young_after_kb  INTEGER,
  young_total_kb  INTEGER,
  old_before_kb   INTEGER,
  old_after_kb    INTEGER,
  old_total_kb    INTEGER,
  meta_before_kb  INTEGER,
  meta_after_kb   INTEGER,
  meta_total_kb   INTEGER,
  run_id          INTEGER
);
-- The identity of an event: importing or merging the same event twice adds nothing.
CREATE UNIQUE INDEX gc_events_identity
  ON gc_events(source, host, t_ms, kind, IFNULL(gc_id, -1), pause_us, IFNULL(conc_us, -1));

-- Things that happened: process restarts, log rotations, collector loss, threshold
-- breaches, unparsed GC lines (the first few).
CREATE TABLE events (
  id      INTEGER PRIMARY KEY,
  source  TEXT NOT NULL,
  host    TEXT NOT NULL,
  t_ms    INTEGER NOT NULL,
  kind    TEXT NOT NULL,
  detail  TEXT NOT NULL DEFAULT '',
  run_id  INTEGER
);
CREATE UNIQUE INDEX events_identity ON events(source, host, t_ms, kind, detail);
