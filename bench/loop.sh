#!/usr/bin/env bash
# Which event loop, and what memory: soak with curl_multi_poll against soak with epoll +
# curl_multi_socket_action, at 50 and at 10,000 virtual users, against one nginx
# (`return 200`) on 127.0.0.1; then soak's peak RSS at 100, 1,000 and 10,000 users.
#   bench/loop.sh [SECONDS]        (default 10)
# Figures only.  Requests per CPU-second = measured-window requests / (user + system CPU
# seconds of soak over the whole run, ramp-up included): a lower bound.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-10}
tmp=$(mktemp -d)
nginx_pid=
cleanup() { [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
bench_nginx "$tmp"
nginx_pid=$NGINX_PID
port=$NGINX_PORT

# run LOOP VUS: prints requests/s, requests per CPU-second, peak RSS MB, errors
run() {
  local loop=$1 vus=$2 db=$tmp/$1-$2.db
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" "${pin_gen[@]}" "$BIN/soak" run -q --db "$db" \
    --threads 1 --loop "$loop" --url "http://127.0.0.1:$port/" -c "$vus" -d "${secs}s" \
    --ramp-up 2s --warmup 1s --interval 1s >/dev/null 2>"$tmp/err" || true
  read -r u s rss <"$tmp/time"
  sqlite3 "$db" "SELECT requests, errors FROM steps" | tr '|' ' ' | {
    read -r req errs
    awk -v n="$req" -v e="$errs" -v u="$u" -v s="$s" -v r="$rss" -v w="$secs" -v l="$loop" -v v="$vus" \
      'BEGIN { printf "%-6s %7d %10.0f %12.0f %9.1f %8d\n", l, v, n/(w-3), n/(u+s), r/1024, e }'
  }
}
printf '%-6s %7s %10s %12s %9s %8s\n' loop VUs "req/s" "req/CPU-s" "RSS MB" errors
for vus in 50 10000; do
  for loop in poll epoll; do run "$loop" "$vus"; done
done
echo
echo "RSS with the default loop (auto):"
for vus in 100 1000 10000; do run auto "$vus"; done
echo
echo "Why auto picks what it picks: a worker with up to 256 VUs uses curl_multi_poll (one"
echo "multi handle; walking a few dozen handles per turn is cheaper than epoll bookkeeping),"
echo "a worker with more uses epoll + curl_multi_socket_action over multis of 128 VUs each:"
echo "curl_multi_poll rescans every socket and libcurl walks every handle of a multi on each"
echo "turn, which at thousands of VUs costs more than the requests themselves."
