#!/usr/bin/env bash
# What the open model adds on a busy machine: regserver (--latency 5, so every answer is
# served in about 5 ms) at RATE (default 700/s) for SECONDS (default 20) with constant and
# Poisson arrivals, first on a quiet machine, then with one busy loop per core (a machine
# whose cores are all taken by other work).  Per run: the start lag (the generator's own
# lateness, never in latency), the p99 latency soak reports beside the service p99 (from
# the send), and the generator's CPU and run-queue wait.
#   bench/openbusy.sh [RATE] [SECONDS]
# Figures only; nothing passes or fails.  Goal (issue 22): with the machine busy, latency
# p99 stays within a few milliseconds of the service p99 (the lag is reported apart).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
rate=${1:-700}
secs=${2:-20}
tmp=$(mktemp -d)
loops=()
cleanup() {
  local p
  for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done
  BIN=$BIN "$here/targets/regserver/regserver.sh" stop "$tmp/reg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

url=$(BIN=$BIN "$here/targets/regserver/regserver.sh" start "$tmp/reg" --latency 5 --quiet |
  sed -n 's/^url=//p')
cat >"$tmp/reg.ini" <<EOF
[scenario]
name = open busy
[request]
method = POST
url = $url
header = Content-Type: application/x-www-form-urlencoded
body = username=u\${nonce}_\${seq}&email=u\${seq}@example.test&password=\${random:12}
expect_status = 201
client = lean
EOF

run() { # ARRIVAL TAG
  local db=$tmp/$2-$1.db
  "$BIN/soak" run -q --db "$db" --set "scenario.rate=$rate/s" \
    --set "scenario.arrival=$1" --set scenario.max_in_flight=1000 \
    --set "scenario.duration=${secs}s" --set scenario.warmup=2s --set scenario.interval=5s \
    "$tmp/reg.ini" >"$tmp/$2-$1.out" 2>&1 || { echo "$2 $1: the run failed:"; cat "$tmp/$2-$1.out"; }
  sqlite3 -separator ' ' "$db" "
    SELECT '$2', '$1', round(s.tps, 1),
           round(max(i.lag_p99_us) / 1000.0, 2), round(max(i.lag_max_us) / 1000.0, 1),
           round(s.p99_us / 1000.0, 2), round(max(i.svc_p99_us) / 1000.0, 2),
           round(avg(i.gen_cpu_pct), 1), round(avg(i.gen_wait_pct), 1)
    FROM steps s JOIN intervals i ON i.run_id = s.run_id AND i.phase = 'steady'" |
    awk '{ printf "%-6s %-9s %8s %12s %10s %9s %13s %7s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
}

echo "== the open model at $rate/s against a 5 ms server, $secs s a run (2 s warm-up out)"
printf '%-6s %-9s %8s %12s %10s %9s %13s %7s %8s\n' machine arrival TPS "lag p99 ms*" "lag max" \
  "p99 ms" "svc p99 ms*" "gen CPU" "gen wait"
for a in constant poisson; do run "$a" quiet; done
for _ in $(seq "$(nproc)"); do
  timeout $((4 * secs + 30)) sh -c 'while :; do :; done' &
  loops+=($!)
done
for a in constant poisson; do run "$a" busy; done
echo "   (* the worst 5 s interval; gen CPU and wait in % of the engine threads)"
