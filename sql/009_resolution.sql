-- Round 3: resolution.  Placement: how busy the CPUs the generator may run on were (by
-- any process: with placement they are its own, and a busy one is a flaw; without, they
-- are the whole machine's).  Sequential studies: the precision they run to, their budget,
-- and the looks their error rate was spent over.
ALTER TABLE intervals ADD COLUMN gen_cpus_busy_pct REAL; -- % of the generator's CPUs busy
ALTER TABLE studies ADD COLUMN until TEXT;          -- "tps 3%, cpu.app 3%", or NULL
ALTER TABLE studies ADD COLUMN budget_ms INTEGER;   -- the time it may take, or NULL
ALTER TABLE studies ADD COLUMN max_looks INTEGER;   -- looks its budget allows (sequential)
ALTER TABLE studies ADD COLUMN looks INTEGER;       -- looks taken so far
ALTER TABLE studies ADD COLUMN alpha REAL;          -- the error rate its last look had
ALTER TABLE studies ADD COLUMN stop TEXT;           -- precise | budget | rounds
