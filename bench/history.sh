#!/usr/bin/env bash
# soak history on a year of nightly runs: 12 real 1-second runs against regserver (six at
# --latency 1, six at --latency 3) are copied into NIGHTS runs a day apart (default 365),
# each night a copy of a random real run of its phase: fast until night 200, slow until
# night 300, fast again after (two change points, both in the newest 200 runs that are
# analysed).  Prints the wall time and peak RSS of `soak history` and of `soak report`
# (no pictures) on them, and the change points found; never fails on the figures.
#   bench/history.sh [NIGHTS]      (BIN=dir of the soak binaries; default bin/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
nights=${1:-365}
out=$top/build/bench/history
mkdir -p "$out"
rm -f "$out"/real.db* "$out"/year.db*

# The real runs.
for lat in 1 3; do
  "$BIN/regserver" --port 0 --latency "$lat" --threads 2 --quiet >"$out/reg.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 50); do grep -q listening "$out/reg.log" && break; sleep 0.1; done
  port=$(grep -o '[0-9]*$' "$out/reg.log" | head -1)
  for _ in 1 2 3 4 5 6; do
    "$BIN/soak" run -q --db "$out/real.db" --set "request.url=http://127.0.0.1:$port/register" \
      --set "collect.app.pid=$pid" --set scenario.duration=1s \
      "$top/tests/data/history/nightly.ini" >/dev/null
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done

# A year of nights from them: every row of a run copied, a day later each night.
n=0
{
  for f in "$top"/sql/[0-9]*.sql; do cat "$f"; n=$((n + 1)); done
  echo "PRAGMA user_version = $n;"
} | sqlite3 "$out/year.db"
python3 - "$out/real.db" "$out/year.db" "$nights" <<'EOF'
import random, sqlite3, sys, uuid
src, dst, nights = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2]), int(sys.argv[3])
cols = lambda db, t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
shifted = {"runs": ("started_ms", "ended_ms", "heartbeat_ms"),
           "steps": ("started_ms", "window_start_ms", "window_end_ms"),
           "intervals": ("start_ms",), "interval_errors": ("start_ms",), "samples": ("t_ms",),
           "run_env": ()}
runs = [r[0] for r in src.execute("SELECT id FROM runs ORDER BY id")]
t0 = src.execute("SELECT MIN(started_ms) FROM runs").fetchone()[0]
rng = random.Random(7)
for night in range(nights):
    fast = night < 200 or night >= 300
    old = rng.choice(runs[:6] if fast else runs[6:])
    new = night + 1
    start = src.execute("SELECT started_ms FROM runs WHERE id = ?", (old,)).fetchone()[0]
    shift = t0 + night * 86400000 - start
    for t, times in shifted.items():
        c = cols(src, t)
        key = "id" if t == "runs" else "run_id"
        for x in src.execute(f"SELECT * FROM {t} WHERE {key} = ?", (old,)).fetchall():
            x = list(x)
            x[c.index(key)] = new
            if t == "runs":
                x[c.index("uuid")] = str(uuid.UUID(int=rng.getrandbits(128)))
            for k in times:
                if x[c.index(k)] is not None:
                    x[c.index(k)] += shift
            dst.execute(f"INSERT INTO {t} ({','.join(c)}) VALUES ({','.join('?' * len(c))})", x)
dst.commit()
EOF

measure() { # NAME CMD...
  local name=$1 log=$out/time.log
  shift
  /usr/bin/time -v "$@" >"$out/out.txt" 2>"$log" || { cat "$log"; return 1; }
  awk -v name="$name" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = p[n] + (n > 1 ? p[n-1] * 60 : 0) }
    /User time/ { u = $2 }
    /Maximum resident set size/ { kb = $2 }
    END { printf "%-28s %6.2f s wall, %5.2f s CPU, peak RSS %6.1f MB\n", name, s, u, kb / 1024 }' "$log"
}
echo "== $nights nightly runs of one scenario (load: $(cut -d' ' -f1-3 /proc/loadavg))"
measure "soak history" "$BIN/soak" history "$out/year.db"
measure "soak history --json" "$BIN/soak" history --json "$out/year.db"
jq -r '.series[0] | "analysed: \([.figures[] | "\(.figure)\(if .source then " " + .source else "" end): \(.tests) tests, \(.permutations) permutations"] | join("; "))",
  (.change_points[] | "change point: \(.figure) at night \(.index + 1): \(.before) -> \(.after) (\(.change_pct)%), p = \(.p_value)")' \
  "$out/out.txt"
measure "soak report --no-plots" "$BIN/soak" report --no-plots -o "$out/report" "$out/year.db"
