#!/usr/bin/env python3
"""How much a JIT still at work moves a side-by-side run's CPU per request.

    bench/jit_bursts.py DB...      (the databases of side-by-side studies, e.g.
                                    build/bench/designs/replicas-*.db)

For every measured run of a group: its application CPU per request (cpu_pct less the JIT's
thr_jit_pct, over its TPS), as its offset (%) from its group's mean (the machine's share
cancels), less its process's mean offset over its runs whose JIT was quiet (under 2 % of
its CPU).  Prints, by the JIT's share of the run's CPU, how many runs and the mean and
standard deviation of what is left: the bias and the noise a run of that JIT activity adds.
"""
import collections
import math
import sqlite3
import statistics
import sys

RUNS = """SELECT sr.target || sr.replica, sr.grp,
  (SELECT AVG(value) FROM samples s WHERE s.run_id = sr.run_id AND s.source = 'app'
     AND s.metric = 'cpu_pct'),
  (SELECT AVG(value) FROM samples s WHERE s.run_id = sr.run_id AND s.source = 'app'
     AND s.metric = 'thr_jit_pct'),
  (SELECT tps FROM steps WHERE run_id = sr.run_id)
FROM study_runs sr WHERE sr.warmup = 0 AND sr.grp IS NOT NULL"""
BINS = [(0, 2, "under 2 %"), (2, 5, "2-5 %"), (5, 10, "5-10 %"), (10, 20, "10-20 %"),
        (20, 101, "20 % and more")]


def offsets(path):
    """(process, offset from its quiet runs in %, JIT share %) of one database's runs."""
    db = sqlite3.connect(path)
    runs = [(p, g, math.log((cpu - jit) / tps), 100 * jit / cpu)
            for p, g, cpu, jit, tps in db.execute(RUNS) if cpu and jit is not None and tps]
    groups = collections.defaultdict(list)
    for p, g, y, j in runs:
        groups[g].append(y)
    z = [(p, y - statistics.mean(groups[g]), j) for p, g, y, j in runs]
    quiet = collections.defaultdict(list)
    for p, y, j in z:
        if j < 2:
            quiet[p].append(y)
    return [(p, 100 * (y - statistics.mean(quiet[p])), j) for p, y, j in z if quiet[p]]


def main():
    by_bin = collections.defaultdict(list)
    for path in sys.argv[1:]:
        for _, d, j in offsets(path):
            for lo, hi, name in BINS:
                if lo <= j < hi:
                    by_bin[name].append(d)
    print("JIT share of the run's CPU | runs | CPU per request against the process's quiet runs")
    for _, _, name in BINS:
        v = by_bin[name]
        if v:
            print("%s | %d | %+.1f %% (sd %.1f %%)" % (name, len(v), statistics.mean(v),
                                                      statistics.pstdev(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
