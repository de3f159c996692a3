#!/usr/bin/env bash
# What /metrics costs the load generator: requests per generator CPU-second (user + system
# of the whole soak process, its /metrics thread included) without --metrics, with it, and
# with it scraped every second (as Prometheus would, by curl), side by side.  On a machine
# shared with other work that figure moves by 10-30 % from round to round, so the CPU is
# also split: the engine threads' own (intervals.gen_cpu_pct: requests per engine
# CPU-second is the request path's cost) and the rest of the process (the runner's thread,
# which collects each second with --metrics, and the listener's), in ms per second of run.
#
# nginx (`return 200`, one worker, bench/nginx.lib) is so fast that soak's one engine thread
# is the bottleneck: every CPU-second the metrics took would show as fewer requests per
# CPU-second.  The lean driver, 50 keep-alive connections, --threads 1.  The three cells
# run one after another in each round, the order rotating from round to round; each
# figure is the median over BENCH_ROUNDS rounds (default 5).
#   bench/metrics.sh [SECONDS] [CONNECTIONS]     (defaults: 10 s per cell, 50 connections)
# Figures only; nothing passes or fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-10}
conns=${2:-50}
rounds=${BENCH_ROUNDS:-5}
tmp=$(mktemp -d)
nginx_pid= scraper=
cleanup() {
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
bench_nginx "$tmp"
nginx_pid=$NGINX_PID
url=http://127.0.0.1:$NGINX_PORT/

# cell MODE: one run; prints requests, CPU s, engine CPU s, run s, scrapes.  MODE: off | on |
# scraped.
cell() {
  local mode=$1 args=() port scrapes=0
  rm -f "$tmp"/soak.db*
  if [ "$mode" != off ]; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    args=(--metrics "127.0.0.1:$port")
  fi
  if [ "$mode" = scraped ]; then
    (
      n=0
      for _ in $(seq $((secs + 5))); do
        sleep 1
        curl -sf "http://127.0.0.1:$port/metrics" >/dev/null && n=$((n + 1))
        echo "$n" >"$tmp/scrapes"
      done
    ) &
    scraper=$!
  fi
  /usr/bin/time -f '%U %S' -o "$tmp/time" "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/soak.db" \
    --threads 1 --client lean --url "$url" -c "$conns" -d "${secs}s" --interval 5s \
    "${args[@]}" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  if [ -n "$scraper" ]; then
    kill "$scraper" 2>/dev/null || true
    wait "$scraper" 2>/dev/null || true
    scraper=
    scrapes=$(cat "$tmp/scrapes" 2>/dev/null || echo 0)
  fi
  echo "$(sqlite3 "$tmp/soak.db" 'SELECT coalesce(sum(requests), 0) FROM intervals')" \
    "$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")" \
    "$(sqlite3 "$tmp/soak.db" 'SELECT coalesce(sum(i.gen_cpu_pct * i.length_ms), 0) / 100000.0 * r.threads, sum(i.length_ms) / 1000.0 FROM intervals i JOIN runs r ON r.id = i.run_id' | tr '|' ' ')" \
    "$scrapes"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
modes=(off on scraped)
: >"$tmp/cells"
echo "bench/metrics.sh: $rounds rounds of $secs s per cell, $conns connections, one engine thread, nginx on 127.0.0.1"
for round in $(seq "$rounds"); do
  for k in 0 1 2; do
    mode=${modes[$(((k + round) % 3))]}
    read -r req cpu ecpu runs scrapes < <(cell "$mode")
    per=$(awk -v r="$req" -v c="$cpu" 'BEGIN { printf "%.0f", (c > 0 ? r / c : 0) }')
    eper=$(awk -v r="$req" -v c="$ecpu" 'BEGIN { printf "%.0f", (c > 0 ? r / c : 0) }')
    rest=$(awk -v c="$cpu" -v e="$ecpu" -v s="$runs" 'BEGIN { printf "%.2f", (s > 0 ? 1000 * (c - e) / s : 0) }')
    echo "$mode $per $eper $rest $req $cpu $scrapes" >>"$tmp/cells"
    printf '  round %d %-8s %9d requests %6.2f CPU-s %8d req/CPU-s %8d req/engine-CPU-s %6.2f ms/s outside%s\n' \
      "$round" "$mode" "$req" "$cpu" "$per" "$eper" "$rest" "$([ "$mode" = scraped ] && echo " ($scrapes scrapes)")"
  done
done
base=$(awk '$1 == "off" { print $2 }' "$tmp/cells" | median)
ebase=$(awk '$1 == "off" { print $3 }' "$tmp/cells" | median)
echo
printf '%-34s %10s %7s %17s %7s %20s\n' "" "req/CPU-s" "vs off" "req/engine-CPU-s" "vs off" \
  "outside engine ms/s"
for mode in off on scraped; do
  med=$(awk -v m="$mode" '$1 == m { print $2 }' "$tmp/cells" | median)
  emed=$(awk -v m="$mode" '$1 == m { print $3 }' "$tmp/cells" | median)
  rest=$(awk -v m="$mode" '$1 == m { print $4 }' "$tmp/cells" | median)
  case $mode in
    off) what="without --metrics" ;;
    on) what="--metrics, not scraped" ;;
    scraped) what="--metrics, scraped every second" ;;
  esac
  printf '%-34s %10s %6.3fx %17s %6.3fx %20s\n' "$what" "$med" \
    "$(awk -v a="$med" -v b="$base" 'BEGIN { print a / b }')" "$emed" \
    "$(awk -v a="$emed" -v b="$ebase" 'BEGIN { print a / b }')" "$rest"
done
echo "(medians of $rounds rounds; machine load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
