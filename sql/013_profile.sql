-- soak results database: CPU profiles of the collected processes (a [collect.NAME]
-- section's `profile = cpu`, or soak run --profile).  soak-perf samples the processes'
-- stacks with perf on the cpu-clock event while a step's window is measured (never in
-- warm-up), folds them into stacks (root;...;leaf) and stores the stacks that matter: a
-- frame's CPU per request is its samples / hz / the window's requests.
CREATE TABLE profile_windows (     -- what one source's sampling of one window saw
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  step_idx    INTEGER NOT NULL,
  source      TEXT NOT NULL,       -- the [collect.NAME]
  hz          INTEGER NOT NULL,    -- samples per second of CPU
  from_ms     INTEGER NOT NULL,    -- sampled from ...
  to_ms       INTEGER NOT NULL,    -- ... to (wall clock, epoch ms)
  sampled_ms  INTEGER NOT NULL,    -- time perf was recording (segments' sum)
  samples     INTEGER NOT NULL,    -- every sample, stored or not
  stacks      INTEGER NOT NULL,    -- distinct stacks seen
  kept        INTEGER NOT NULL,    -- stacks stored in profiles (the rest: its '[other]' row)
  unnamed     INTEGER NOT NULL,    -- samples whose leaf frame had no name
  jit_unnamed INTEGER NOT NULL,    -- ... of them, JIT code no symbol map named
  cut         INTEGER NOT NULL,    -- samples whose stack was deeper than kept (leaf side kept)
  pids        TEXT NOT NULL,       -- the processes sampled, comma-separated: processes
                                   -- tell a JVM's JIT from a real change
  jvm         INTEGER NOT NULL,    -- some of them are JVMs
  PRIMARY KEY (run_id, step_idx, source)
);
CREATE TABLE profiles (            -- a window's stacks and their samples
  run_id   INTEGER NOT NULL REFERENCES runs(id),
  step_idx INTEGER NOT NULL,
  source   TEXT NOT NULL,
  stack    TEXT NOT NULL,          -- frames root first, ';' between; '[other]': the rest
  samples  INTEGER NOT NULL,
  PRIMARY KEY (run_id, step_idx, source, stack)
);
