#!/usr/bin/env bash
# HTTP/2: soak's lean h2 driver against h2load (nghttp2-client), side by side in one run.
#
# nginx (`return 200`, one worker on CPU 1, http2_max_concurrent_streams 1000: see
# bench/nginx.lib) on 127.0.0.1, the generator on CPU 0, one thread; h2 over TLS (ALPN,
# a self-signed ECDSA certificate made at bench time) and h2c with prior knowledge.
#
# Throughput: 1 and 10 connections with 100 streams each (h2load -c N -m 100 -D SECONDS;
# soak --http 2 --connections N -c 100N): requests per generator CPU-second (user + system
# of the whole process), the ratio to h2load's, RSS, errors.
#
# Latency at the same rate: h2load --rps paces each client's requests; soak's open model
# runs the same rate (--rate, latency from the intended start) on as many connections,
# at a rate both keep (BENCH_H2_RATE per connection, default 1,000/s); p50, p90 and p99
# of each (h2load's from its --log-file, every request's duration) and soak's against
# h2load's.
#
# Every figure is the median of BENCH_ROUNDS (3) interleaved rounds.
#   bench/h2.sh [SECONDS] [CONNECTIONS...]     (defaults: 8 s per cell; 1 10)
#   BENCH_SCHEMES="https http" BENCH_ROUNDS=N BENCH_H2_RATE=R narrow a run.
# Figures only; nothing passes or fails.  Goals (issue 31): soak >= 1.0x h2load's requests
# per CPU-second at 1 and 10 connections with 100 streams each; latency percentiles within
# 5 % of h2load's at the same rate.
#
# Measured on the 2-core lab machine (shared; absolute rates move), `nice -n 15 bench/h2.sh
# 8 1 10`, median of 3 rounds, requests per generator CPU-second (h2load 1.52.0, nghttp2
# 1.52.0 in both, nginx 1.22):
#   conns scheme  h2load    soak
#   1     h2      111,363   118,276 (1.06x)
#   1     h2c      86,858    96,981 (1.12x)
#   10    h2      116,507   148,001 (1.27x)
#   10    h2c     133,398   166,348 (1.25x)
# Latency at 1,000/s per connection (h2): h2load p50/p90/p99 32.4/101.1/174.8 ms (1 conn),
# 34.5/103.0/190.1 ms (10); soak 0.45/3.4/20.5 ms and 3.4/34.4/89.8 ms.  They do not
# agree, and not by a few per cent: h2load's --rps paces by bursts and its durations carry
# the bursts' queueing, while soak's open model sends each request on its own schedule.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-8}
rounds=${BENCH_ROUNDS:-3}
shift || true
levels=("$@")
[ ${#levels[@]} -eq 0 ] && levels=(1 10)
schemes=(${BENCH_SCHEMES:-https http})
rate_per=${BENCH_H2_RATE:-1000}
command -v h2load >/dev/null || { echo "bench: h2load is missing (apt-get install nghttp2-client)"; exit 1; }
tmp=$(mktemp -d)
nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
# shellcheck source=bench/cells.lib
. "$here/bench/cells.lib"
CELLS=$tmp/cells
bench_nginx_tls "$tmp"
nginx_pid=$NGINX_PID

url() { [ "$1" = https ] && echo "https://localhost:$NGINX_TLS_PORT/" || echo "http://localhost:$NGINX_H2C_PORT/"; }


# h2load_run SCHEME CONNS: requests, CPU s, RSS KB, errors.
h2load_run() {
  read -r cpu rss < <(measure "${pin_gen[@]}" h2load -c "$2" -m 100 -D "$secs" "$(url "$1")")
  awk -v c="$cpu" -v r="$rss" '/^requests:/ { print $6, c, r, $10 + $12 + $14 }' "$tmp/out"
}

# soak_run SCHEME CONNS: the same for soak.
soak_run() {
  rm -f "$tmp"/soak.db*
  read -r cpu rss < <(measure "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/soak.db" --threads 1 \
    --url "$(url "$1")" $([ "$1" = https ] && echo -k) --http 2 --connections "$2" \
    -c $(($2 * 100)) -d "${secs}s" --interval 4s --timeout 10s)
  sqlite3 -separator ' ' "$tmp/soak.db" "SELECT coalesce(sum(requests), 0), $cpu, $rss,
    coalesce(sum(errors), 0) FROM intervals"
}

: >"$CELLS"
for round in $(seq "$rounds"); do
  for c in "${levels[@]}"; do
    for s in "${schemes[@]}"; do
      for tool in h2load soak; do
        read -r n cpu rss errs < <("${tool}_run" "$s" "$c")
        echo "$c $s $tool $round $n $cpu $rss $errs" >>"$CELLS"
      done
    done
  done
done
declare -A rate
printf '%-6s %-7s %-7s %9s %10s %8s %7s %7s   %s\n' conns scheme tool "req/s" "req/CPU-s" "x h2load" \
  "RSS MB" errors "req/CPU-s of each round"
for c in "${levels[@]}"; do
  for s in "${schemes[@]}"; do
    for tool in h2load soak; do
      r=$(cell "$c" "$s" "$tool" 9)
      rate[$c.$s.$tool]=$r
      printf '%-6s %-7s %-7s %9.0f %10.0f %8.2f %7.1f %7s   %s\n' "$c" "$s" "$tool" \
        "$(awk -v n="$(cell "$c" "$s" "$tool" 5)" -v t="$secs" 'BEGIN { print n / t }')" "$r" \
        "$(awk -v a="$r" -v b="${rate[$c.$s.h2load]}" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(awk -v k="$(cell_max "$c" "$s" "$tool" 7)" 'BEGIN { print k / 1024 }')" \
        "$(cell_sum "$c" "$s" "$tool" 8)" "$(cell_rounds "$c" "$s" "$tool")"
    done
  done
done

# --- latency at the same rate ------------------------------------------------------------------
# pct FILE P: the P-th percentile (ms) of a column of µs, nearest rank.
pct() { sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { r = int(p / 100 * NR + 0.5); if (r < 1) r = 1; printf "%.3f\n", v[r] / 1000 }'; }
: >"$tmp/lat"
for _ in $(seq "$rounds"); do
  for c in "${levels[@]}"; do
    s=${schemes[0]}
    r=$((rate_per * c))
    # h2load: each of c clients paced at rate_per requests/s for the duration; every
    # request's duration (µs, third column) from its log.
    "${pin_gen[@]}" h2load -c "$c" -m 100 --rps "$rate_per" -D "$secs" --log-file="$tmp/h2.log" \
      "$(url "$s")" >/dev/null 2>&1 || true
    cut -f3 "$tmp/h2.log" >"$tmp/h2.us"
    echo "$c h2load $(pct "$tmp/h2.us" 50) $(pct "$tmp/h2.us" 90) $(pct "$tmp/h2.us" 99)" >>"$tmp/lat"
    rm -f "$tmp"/lat.db*
    "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/lat.db" --threads 1 --url "$(url "$s")" \
      $([ "$s" = https ] && echo -k) --http 2 --connections "$c" --rate "$r/s" \
      --max-in-flight $((c * 100)) -d "$((secs + 2))s" --warmup 2s --interval 2s >/dev/null 2>&1 || true
    echo "$c soak $(sqlite3 -separator ' ' "$tmp/lat.db" 'SELECT p50_us / 1000.0, p90_us / 1000.0, p99_us / 1000.0 FROM steps')" >>"$tmp/lat"
  done
done
printf '\nlatency at the same rate (%s/s per connection, %s, %s s, median of %s rounds)\n' "$rate_per" \
  "${schemes[0]}" "$secs" "$rounds"
printf '%-6s %-7s %9s %9s %9s %12s\n' conns tool "p50 ms" "p90 ms" "p99 ms" "p99 x h2load"
for c in "${levels[@]}"; do
  for tool in h2load soak; do
    p50=$(awk -v c="$c" -v t="$tool" '$1 == c && $2 == t {print $3}' "$tmp/lat" | median)
    p90=$(awk -v c="$c" -v t="$tool" '$1 == c && $2 == t {print $4}' "$tmp/lat" | median)
    p99=$(awk -v c="$c" -v t="$tool" '$1 == c && $2 == t {print $5}' "$tmp/lat" | median)
    [ "$tool" = h2load ] && hp99=$p99
    printf '%-6s %-7s %9.3f %9.3f %9.3f %12.2f\n' "$c" "$tool" "$p50" "$p90" "$p99" \
      "$(awk -v a="$p99" -v b="$hp99" 'BEGIN { print (b > 0 ? a / b : 0) }')"
  done
done
