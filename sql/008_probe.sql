-- soak results database, migration 8: the machine's own speed, a control for the drift
-- verdict.  Each interval `soak run` times a fixed piece of arithmetic on its own thread
-- (the least CPU time of three tries, µs): the same work every time, so a real change
-- from the first third of a run to the last is a change of the machine soak ran on (a
-- slower or throttled core, time taken by the hypervisor), not of the server.  NULL:
-- not measured (imports, merged runs, rows written before this migration).
ALTER TABLE intervals ADD COLUMN probe_us REAL;
