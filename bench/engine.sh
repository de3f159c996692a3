#!/usr/bin/env bash
# soak's engine against wrk on the same nginx (`return 200`, one worker) on 127.0.0.1:
# requests/s, the generator's CPU seconds per 100,000 requests, peak RSS, and soak/wrk
# ratios of requests per generator CPU-second, keep-alive and connection per request.
# The generator is pinned to CPU 0 and nginx to CPU 1 when the machine has two cores.
#   bench/engine.sh [SECONDS] [CONCURRENCY]       (defaults 15 and 50)
# Figures only; nothing passes or fails.  Goal: soak >= 0.6x wrk (keep-alive) and >= 0.9x
# wrk (connection per request).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-15}
conc=${2:-50}
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)"; exit 1; }
tmp=$(mktemp -d)
nginx_pid=
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
bench_nginx "$tmp"
nginx_pid=$NGINX_PID
port=$NGINX_PORT

# measure NAME CMD...: prints requests, user+sys CPU seconds and peak RSS KB.
measure() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || true
  read -r u s rss <"$tmp/time"
  echo "$u $s $rss"
}

printf '%-10s %-5s %12s %12s %14s %10s\n' mode tool "req/s" "CPU s/100k" "req/CPU-s" "RSS MB"
for mode in keepalive close; do
  hdr=()
  [ "$mode" = close ] && hdr=(-H 'Connection: close')
  read -r u s rss < <(measure wrk "${pin_gen[@]}" wrk -t1 -c"$conc" -d"${secs}s" "${hdr[@]}" "http://127.0.0.1:$port/")
  wreq=$(awk '/requests in/ {print $1}' "$tmp/wrk.out")
  wcpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
  wrate=$(awk -v n="$wreq" -v c="$wcpu" 'BEGIN{printf "%.0f", n/c}')
  printf '%-10s %-5s %12.0f %12.3f %14s %10.1f\n' "$mode" wrk "$(awk -v n="$wreq" -v t="$secs" 'BEGIN{print n/t}')" \
    "$(awk -v c="$wcpu" -v n="$wreq" 'BEGIN{print c*100000/n}')" "$wrate" "$(awk -v r="$rss" 'BEGIN{print r/1024}')"
  db=$tmp/soak-$mode.db
  read -r u s rss < <(measure soak "${pin_gen[@]}" "$BIN/soak" run -q --db "$db" --threads 1 \
      ${SOAK_LOOP:+--loop $SOAK_LOOP} --url "http://127.0.0.1:$port/" -c "$conc" -d "${secs}s" \
      --interval 5s --connection "$mode")
  sreq=$(sqlite3 "$db" 'SELECT sum(requests) FROM intervals')
  scpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
  srate=$(awk -v n="$sreq" -v c="$scpu" 'BEGIN{printf "%.0f", n/c}')
  printf '%-10s %-5s %12.0f %12.3f %14s %10.1f\n' "$mode" soak "$(awk -v n="$sreq" -v t="$secs" 'BEGIN{print n/t}')" \
    "$(awk -v c="$scpu" -v n="$sreq" 'BEGIN{print c*100000/n}')" "$srate" "$(awk -v r="$rss" 'BEGIN{print r/1024}')"
  printf '%-10s soak/wrk requests per CPU-second: %.2f\n' "$mode" "$(awk -v a="$srate" -v b="$wrate" 'BEGIN{print a/b}')"
done
