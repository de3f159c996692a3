-- soak results database: agents.  A run made by `soak run --agent K/N --group G` is one
-- agent's share of a study that several load generators drive together; `soak merge`
-- folds the agents' runs of one group into ONE run (intervals with the same boundaries
-- added, histograms exactly) and keeps the agents' own runs as its parts.
-- (This file is migration 2 on a branch without 002 and 3 once 002 exists: db_open()
-- counts migrations in file order.)

-- The group a run belongs to: for an agent's own run, its place in the group; for a
-- merged run, the group it stands for.  All NULL for a plain run.
ALTER TABLE runs ADD COLUMN agent_group TEXT;     -- --group NAME
ALTER TABLE runs ADD COLUMN agent_seq INTEGER;    -- 0-based place in `soak run a.ini b.ini`:
                                                  -- the runs of one group merge by it
ALTER TABLE runs ADD COLUMN agent_index INTEGER;  -- K of --agent K/N; NULL for a merged run
ALTER TABLE runs ADD COLUMN agent_count INTEGER;  -- N: the agents the group was planned with
ALTER TABLE runs ADD COLUMN agents_merged INTEGER; -- merged run: agents whose runs it holds
ALTER TABLE runs ADD COLUMN start_at_ms INTEGER;  -- the agreed start (wall clock) the agent
                                                  -- waited for; its intervals align on it
ALTER TABLE runs ADD COLUMN start_lag_ms INTEGER; -- how much later than start_at_ms the
                                                  -- agent really started (it came late)
ALTER TABLE runs ADD COLUMN clock_offset_ms INTEGER; -- this agent's clock against the
                                                  -- clock of the file system holding its
                                                  -- database (NULL: not measured)
ALTER TABLE runs ADD COLUMN merged_into INTEGER;  -- an agent's run folded into a merged
                                                  -- run: that run's id (lists hide parts)
CREATE INDEX runs_agent_group ON runs(agent_group, agent_seq);

-- The whole group's concurrency of a step, on an agent's own step rows (whose
-- `concurrency` is the agent's share): a merged step takes it as its concurrency.
ALTER TABLE steps ADD COLUMN group_concurrency INTEGER;
