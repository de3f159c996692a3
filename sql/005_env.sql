-- soak results database: what ran.  When a run starts, `soak run` records the facts every
-- figure of the run depends on: the load generator's host and settings, and for each
-- collected process its executable, command line, JVM and Server banner.  A report shows
-- them per label and warns when the labels it compares differ in more than the label.
-- (db_open() counts migrations in file order: on a branch without 002..004 this file is
-- migration 2.)

-- One fact per row.  source '' is the load generator (its host, its settings, the
-- target's Server banner); otherwise the [collect.NAME] source the fact belongs to.
-- Keys are listed in soak/run/env.h; a value is text as shown (sizes keep their unit).
CREATE TABLE run_env (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  source  TEXT NOT NULL,
  key     TEXT NOT NULL,
  value   TEXT NOT NULL,
  PRIMARY KEY (run_id, source, key)
) WITHOUT ROWID;
