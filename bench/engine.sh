#!/usr/bin/env bash
# soak's two HTTP clients against wrk, side by side in one run.
#
# Throughput: nginx (`return 200`, one worker) on 127.0.0.1; for each number of connections
# and each connection mode (keep-alive, and a connection per request with the server
# closing first), wrk, soak on libcurl (`--client curl`) and soak's lean driver
# (`--client lean`), each on one thread: requests/s, requests per generator CPU-second
# (user + system of the whole process, the figure that does not depend on who else uses
# the machine), the ratio of that to wrk's, peak RSS and errors.
#
# Latency: bin/regserver --latency 20 with 50 keep-alive connections: p50 and p99 of wrk
# (--latency) and of both soak clients.
#
# Every figure is the median of BENCH_ROUNDS (3) interleaved rounds.  The generator is
# pinned to CPU 0 and the server to CPU 1 when the machine has two cores.
#   bench/engine.sh [SECONDS] [CONNECTIONS...]     (defaults: 10 s per cell; 50 1000 10000)
#   BENCH_CLIENTS="curl lean" BENCH_MODES="keepalive close" BENCH_ROUNDS=N narrow a run.
# Figures only; nothing passes or fails.  Goals (issue 15): lean >= 0.9x wrk per CPU-second
# in both modes; lean at 1,000 and 10,000 connections >= 0.8x its own 50-connection rate;
# RSS at 1,000 connections <= 16 MB; latency within 0.3 ms of wrk's at p50, 1 ms at p99.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-10}
rounds=${BENCH_ROUNDS:-3}
shift || true
levels=("$@")
[ ${#levels[@]} -eq 0 ] && levels=(50 1000 10000)
clients=(${BENCH_CLIENTS:-curl lean})
modes=(${BENCH_MODES:-keepalive close})
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)"; exit 1; }
tmp=$(mktemp -d)
nginx_pid= reg_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  [ -n "$reg_pid" ] && kill "$reg_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
# 10,000 connections need as many descriptors, for wrk and soak alike.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
bench_nginx "$tmp"
nginx_pid=$NGINX_PID
url=http://127.0.0.1:$NGINX_PORT/

# measure CMD...: runs CMD under /usr/bin/time; prints user+sys CPU seconds and peak RSS KB.
measure() {
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || true
  awk '{printf "%.3f %d\n", $1 + $2, $3}' "$tmp/time"
}

# wrk_run CONNS MODE: prints requests, CPU s, RSS KB, errors.
wrk_run() {
  local hdr=()
  [ "$2" = close ] && hdr=(-H 'Connection: close')
  read -r cpu rss < <(measure "${pin_gen[@]}" wrk -t1 -c"$1" -d"${secs}s" --timeout 10s "${hdr[@]}" "$url")
  echo "$(awk '/requests in/ {print $1}' "$tmp/out") $cpu $rss" \
    "$(awk '/Socket errors/ {gsub(/,/, ""); e = $4 + $6 + $8 + $10} /Non-2xx/ {e += $NF} END {print e + 0}' "$tmp/out")"
}

# soak_run CLIENT CONNS MODE [URL]: prints requests, CPU s, RSS KB, errors; the run's
# database is $tmp/soak.db.
soak_run() {
  rm -f "$tmp"/soak.db*
  read -r cpu rss < <(measure "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/soak.db" --threads 1 \
      --client "$1" --url "${4:-$url}" -c "$2" -d "${secs}s" --interval 5s --timeout 10s \
      --connection "$3")
  echo "$(sqlite3 "$tmp/soak.db" 'SELECT coalesce(sum(requests), 0) FROM intervals')" \
    "$cpu $rss $(sqlite3 "$tmp/soak.db" 'SELECT coalesce(sum(errors), 0) FROM intervals')"
}

# Each cell is measured once per round, the tools interleaved within a round; the table
# shows each figure's median over the rounds (RSS: the largest), so a round disturbed by
# the machine's other tenants does not decide.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
: >"$tmp/cells"
for round in $(seq "$rounds"); do
  for c in "${levels[@]}"; do
    for mode in "${modes[@]}"; do
      for tool in wrk "${clients[@]}"; do
        if [ "$tool" = wrk ]; then
          read -r n cpu rss errs < <(wrk_run "$c" "$mode")
        else
          read -r n cpu rss errs < <(soak_run "$tool" "$c" "$mode")
        fi
        echo "$c $mode $tool $round $n $cpu $rss $errs" >>"$tmp/cells"
      done
    done
  done
done
# fig CONNS MODE TOOL FIELD: the median of a field over the rounds (5 requests, 6 CPU s,
# 7 RSS KB, 8 errors; 9: requests per CPU-second).
fig() {
  awk -v c="$1" -v m="$2" -v t="$3" -v f="$4" '$1 == c && $2 == m && $3 == t {
    print (f == 9 ? ($6 > 0 ? $5 / $6 : 0) : $f) }' "$tmp/cells" | median
}
declare -A rate
printf '%-7s %-10s %-10s %10s %12s %8s %8s %8s   %s\n' conns mode tool "req/s" "req/CPU-s" "x wrk" \
  "RSS MB" errors "req/CPU-s of each round"
for c in "${levels[@]}"; do
  for mode in "${modes[@]}"; do
    for tool in wrk "${clients[@]}"; do
      name=$tool
      [ "$tool" = wrk ] || name=soak-$tool
      r=$(fig "$c" "$mode" "$tool" 9)
      rate[$c.$mode.$tool]=$r
      printf '%-7s %-10s %-10s %10.0f %12.0f %8.2f %8.1f %8s   %s\n' "$c" "$mode" "$name" \
        "$(awk -v n="$(fig "$c" "$mode" "$tool" 5)" -v t="$secs" 'BEGIN { print n / t }')" "$r" \
        "$(awk -v a="$r" -v b="${rate[$c.$mode.wrk]}" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(awk -v c="$c" -v m="$mode" -v t="$tool" '$1 == c && $2 == m && $3 == t && $7 > x { x = $7 }
            END { print x / 1024 }' "$tmp/cells")" \
        "$(awk -v c="$c" -v m="$mode" -v t="$tool" '$1 == c && $2 == m && $3 == t { e += $8 } END { print e + 0 }' "$tmp/cells")" \
        "$(awk -v c="$c" -v m="$mode" -v t="$tool" '$1 == c && $2 == m && $3 == t {
            printf "%s%.0f", (k++ ? " " : ""), ($6 > 0 ? $5 / $6 : 0) }' "$tmp/cells")"
    done
  done
done
first=${levels[0]}
for tool in "${clients[@]}"; do
  for mode in "${modes[@]}"; do
    for c in "${levels[@]:1}"; do
      printf 'soak-%s %s: %s connections at %.2fx its %s-connection rate per CPU-second\n' \
        "$tool" "$mode" "$c" \
        "$(awk -v a="${rate[$c.$mode.$tool]}" -v b="${rate[$first.$mode.$tool]}" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$first"
    done
  done
done

# --- latency against regserver --latency 20 -------------------------------------------------
# The same rounds, interleaved, and medians.
kill "$nginx_pid" 2>/dev/null
nginx_pid=
"${pin_srv[@]}" "$BIN/regserver" --port 0 --latency 20 --quiet >"$tmp/reg.log" 2>&1 &
reg_pid=$!
for _ in $(seq 50); do grep -q 'listening on' "$tmp/reg.log" && break; sleep 0.1; done
reg_url=http://127.0.0.1:$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/reg.log")/health
# ms_of VALUE: wrk's "20.53ms" / "1.02s" / "950.00us" in ms.
ms_of() { awk -v v="$1" 'BEGIN { u = v; sub(/[0-9.]+/, "", u); n = v + 0;
  print (u == "us" ? n / 1000 : u == "s" ? n * 1000 : n) }'; }
: >"$tmp/lat"
for _ in $(seq "$rounds"); do
  measure "${pin_gen[@]}" wrk -t1 -c50 -d"${secs}s" --latency "$reg_url" >/dev/null
  echo "wrk $(ms_of "$(awk '$1 == "50%" {print $2}' "$tmp/out")") $(ms_of "$(awk '$1 == "99%" {print $2}' "$tmp/out")")" >>"$tmp/lat"
  for tool in "${clients[@]}"; do
    soak_run "$tool" 50 keepalive "$reg_url" >/dev/null
    echo "soak-$tool $(sqlite3 -separator ' ' "$tmp/soak.db" 'SELECT p50_us / 1000.0, p99_us / 1000.0 FROM steps')" >>"$tmp/lat"
  done
done
printf '\nlatency against regserver --latency 20, 50 keep-alive connections, %s s, median of %s rounds\n' "$secs" "$rounds"
printf '%-10s %9s %9s %12s %12s   %s\n' tool "p50 ms" "p99 ms" "p50 - wrk" "p99 - wrk" "p99 of each round"
wp50=$(awk '$1 == "wrk" {print $2}' "$tmp/lat" | median)
wp99=$(awk '$1 == "wrk" {print $3}' "$tmp/lat" | median)
for tool in wrk "${clients[@]/#/soak-}"; do
  p50=$(awk -v t="$tool" '$1 == t {print $2}' "$tmp/lat" | median)
  p99=$(awk -v t="$tool" '$1 == t {print $3}' "$tmp/lat" | median)
  printf '%-10s %9.3f %9.3f %+12.3f %+12.3f   %s\n' "$tool" "$p50" "$p99" \
    "$(awk -v a="$p50" -v b="$wp50" 'BEGIN { print a - b }')" \
    "$(awk -v a="$p99" -v b="$wp99" 'BEGIN { print a - b }')" \
    "$(awk -v t="$tool" '$1 == t {printf "%s%.1f", (n++ ? " " : ""), $3}' "$tmp/lat")"
done
