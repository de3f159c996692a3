#!/usr/bin/env bash
# Agents: 1, 2 and 4 `soak run --agent K/N` processes on this machine against nginx (one
# group, one start time, the same total concurrency), merged with `soak merge`.  Prints
# total requests per CPU-second of the generators (user + system of every agent process),
# requests per second, and merge time per million requests; then merges 8 agents' 72-hour
# files (25,920 ten-second intervals each, histograms included, as bench/report.sh builds
# them) and prints the time (target: under 30 s).  Figures only; never fails on them.
#   bench/agents.sh [SECONDS] [USERS]      (BIN=dir of the soak binary; default bin/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
secs=${1:-15}
users=${2:-64}
out=$top/build/bench/agents
rm -rf "$out"
mkdir -p "$out"
. "$top/bench/nginx.lib"
bench_nginx "$out"
trap 'kill "$NGINX_PID" 2>/dev/null || true' EXIT

echo "== $users users for ${secs}s against nginx (worker on CPU 1, agents on CPU 0), keep-alive"
printf '%-7s %12s %12s %14s %16s %14s\n' agents requests "req/s" "CPU-s (gen)" "req/CPU-s" "merge s/Mreq"
for n in 1 2 4; do
  at=$(( $(date +%s) + 2 ))
  pids=()
  for k in $(seq 1 "$n"); do
    "${pin_gen[@]}" /usr/bin/time -f '%U %S' -o "$out/cpu-$n-$k" \
      "$BIN/soak" run -q --db "$out/a$n-$k.db" --agent "$k/$n" --group "bench$n" --start-at "$at" \
      --url "http://127.0.0.1:$NGINX_PORT/" -c "$users" -d "${secs}s" --interval 1s --threads 1 \
      >"$out/run-$n-$k.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { echo "agent failed:"; cat "$out"/run-$n-*.log; exit 1; }; done
  cpu=$(cat "$out"/cpu-$n-* | awk '{ s += $1 + $2 } END { printf "%.2f", s }')
  t0=$(date +%s.%N)
  "$BIN/soak" merge -o "$out/m$n.db" "$out"/a$n-*.db >/dev/null
  t1=$(date +%s.%N)
  req=$(sqlite3 "$out/m$n.db" "SELECT SUM(requests) FROM intervals i JOIN runs r ON r.id = i.run_id WHERE r.agents_merged IS NOT NULL")
  printf '%-7s %12d %12.0f %14s %16.0f %14.3f\n' "$n" "$req" "$(echo "$req / $secs" | bc -l)" "$cpu" \
    "$(echo "$req / $cpu" | bc -l)" "$(echo "($t1 - $t0) / ($req / 1000000)" | bc -l)"
done
echo "(each agent also waits for the common start, so CPU-s counts only work: the wait sleeps)"

echo "== merging 8 agents' 72-hour files"
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$top/common" -o "$out/report_gen" "$top/bench/report_gen.c" \
  "$top/common/hdr.c" $(pkg-config --cflags --libs sqlite3 zlib) -lm
base=$out/agent72.db
n=0
{ for f in "$top"/sql/[0-9]*.sql; do cat "$f"; n=$((n + 1)); done; echo "PRAGMA user_version = $n;"; } |
  sqlite3 "$base"
"$out/report_gen" "$base" 72
# An agent's file holds its run only: the collectors' samples and GC events live in the SUT
# hosts' files.
sqlite3 "$base" "DELETE FROM samples; DELETE FROM gc_events; DELETE FROM events; VACUUM;"
for k in $(seq 1 8); do
  cp "$base" "$out/agent72-$k.db"
  sqlite3 "$out/agent72-$k.db" "UPDATE runs SET uuid = 'bench72-$k', agent_group = 'bench72', agent_seq = 0,
    agent_index = $k, agent_count = 8, start_at_ms = started_ms, host = 'gen$k'"
done
printf 'inputs: 8 x %s MB, %s intervals each\n' "$(($(stat -c %s "$base") / 1048576))" \
  "$(sqlite3 "$base" 'SELECT COUNT(*) FROM intervals')"
rm -f "$out/m72.db"
/usr/bin/time -f '%e %M' -o "$out/time72" "$BIN/soak" merge -o "$out/m72.db" "$out"/agent72-*.db >"$out/merge72.out"
read -r el kb <"$out/time72"
grep '^group' "$out/merge72.out"
printf 'soak merge of 8 x 72 h: %.1f s, peak RSS %.0f MB   (target: < 30 s)\n' "$el" "$(echo "$kb / 1024" | bc -l)"
t0=$(date +%s.%N)
"$BIN/soak" merge -o "$out/m72.db" "$out"/agent72-*.db >/dev/null
printf 'merging the same files again (idempotent, the group rebuilt): %.1f s\n' "$(echo "$(date +%s.%N) - $t0" | bc -l)"
