-- Warm-up until steady: a study may repeat each start's warm-up run until two in a row
-- agree (a container's JIT keeps warming for several runs after its start).
ALTER TABLE studies ADD COLUMN warmup_steady REAL;  -- the share they must agree within, or NULL
ALTER TABLE studies ADD COLUMN warmup_max INTEGER;  -- at most this many warm-up runs a start
