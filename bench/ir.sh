#!/usr/bin/env bash
# Instructions per request of two soak builds, interleaved (A B A B), under valgrind's
# callgrind: a count that does not move with the machine's load, for a change to the
# engine that must not cost anything per request (issue 46's one bring-up).  Three
# clients on 127.0.0.1: the lean driver over HTTP/1.1 against soak-regserver, and over
# HTTPS and HTTP/2 (h2 over TLS) against nginx; 1,000 requests a second (a fixed rate, so
# that both builds make the same requests whatever the machine does), one engine thread, 4 s.
# Each line: CLIENT BUILD instructions-per-request (whole process over requests: start-up
# is a few million instructions, under 1 % of a run).  Figures, no verdict.
#   bench/ir.sh OLD_BIN_DIR NEW_BIN_DIR
set -u
old=${1:?usage: bench/ir.sh OLD_BIN_DIR NEW_BIN_DIR} new=${2:?}
top=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d /tmp/soak-ir.XXXXXX)
trap 'kill $reg $ngx 2>/dev/null; rm -rf "$d"' EXIT
CA=$top/tests/data/tls
free() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
"$old/regserver" --port 0 --quiet --threads 1 >"$d/reg.out" 2>&1 &
reg=$!
np=$(free)
cat >"$d/ngx.conf" <<NGX
worker_processes 1; daemon off; master_process off; pid $d/ngx.pid; error_log $d/ngx.err;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 1000000; ssl_certificate $CA/server.pem;
  ssl_certificate_key $CA/server.key;
  server { listen 127.0.0.1:$np ssl http2; location / { return 200 "ok\n"; } } }
NGX
nginx -c "$d/ngx.conf" -p "$d" &
ngx=$!
sleep 1
rp=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$d/reg.out" | head -1)
# run NAME BUILD BIN_DIR ARGS...: one callgrind run, its line
run() {
  local name=$1 b=$2 bin=$3 ir req
  shift 3
  rm -f "$d"/r.db*
  valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" "$bin/soak" run -q --db "$d/r.db" \
    --rate 1000/s -d 4s --interval 1s --threads 1 "$@" >/dev/null 2>"$d/cg.err" || { tail -2 "$d/cg.err"; return; }
  ir=$(awk '/^summary:/ {print $2}' "$d/cg.out")
  req=$(sqlite3 "$d/r.db" 'SELECT sum(requests) FROM intervals')
  printf '%-6s %-4s %8d instructions/request (%d requests)\n' "$name" "$b" $((ir / req)) "$req"
}
tls=(--url "https://localhost:$np/" --cacert "$CA/ca.pem")
for round in 1 2; do
  for b in old new; do
    bin=$old; [ $b = new ] && bin=$new
    run h1 $b "$bin" --url "http://127.0.0.1:$rp/health" --client lean
    run https $b "$bin" "${tls[@]}" --client lean
    run h2 $b "$bin" "${tls[@]}" --http 2
  done
done
