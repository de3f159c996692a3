-- Round 4: designs that cancel the machine's noise.  A study may run a fixed-rate scenario
-- side by side (every instance driven in the same seconds: a group of runs), start each
-- target several times at once (replicas: processes a side) and again (starts), and name
-- the figure its verdict leads with.  Warm-up ends when a JVM's JIT has gone quiet.
ALTER TABLE studies ADD COLUMN design TEXT;         -- auto | side-by-side | one-at-a-time, as written
ALTER TABLE studies ADD COLUMN together TEXT;       -- per scenario, 1 side by side, 0 alone: "0,1"
ALTER TABLE studies ADD COLUMN replicas INTEGER;    -- processes of each target at once (NULL: 1)
ALTER TABLE studies ADD COLUMN starts INTEGER;      -- starts of the targets (NULL: 1)
ALTER TABLE studies ADD COLUMN primary_fig TEXT;    -- the figure the verdict leads with, or NULL
ALTER TABLE studies ADD COLUMN warmup_jit REAL;     -- JIT share a warm-up ends under, or NULL
ALTER TABLE study_runs ADD COLUMN replica INTEGER;  -- 1-based process of its target (NULL: 1)
ALTER TABLE study_runs ADD COLUMN start_no INTEGER; -- 1-based start of the targets it ran in
ALTER TABLE study_runs ADD COLUMN grp INTEGER;      -- runs driven in the same seconds share it
                                                    -- (a side-by-side group); NULL alone
ALTER TABLE study_runs ADD COLUMN jit_share REAL;   -- warm-up runs: the JIT threads' share of
                                                    -- the app's CPU (NULL: no JVM seen)
