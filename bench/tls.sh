#!/usr/bin/env bash
# HTTPS: soak's lean driver (and libcurl) against wrk, side by side in one run.
#
# Throughput: nginx with TLS (`return 200`, one worker on CPU 1; a self-signed ECDSA P-256
# certificate made at bench time with openssl; TLS 1.2 and 1.3: bench/nginx.lib) on
# 127.0.0.1, the generator on CPU 0, one thread.  For 50 and 1,000 connections and three
# modes:
#   keepalive     connections kept: a handshake per connection, then only records
#   close-resume  a new connection and handshake per request (`Connection: close`, the
#                 server closes first); nginx sends session tickets, so after the first
#                 ones every handshake resumes (wrk too: it keeps each connection's session
#                 across SSL_clear)
#   close-full    the same against a server with no tickets and no session cache: every
#                 handshake a full one, for both tools
# each tool's requests per generator CPU-second (user + system of the whole process), the
# ratio to wrk's, the handshakes soak counted (full/resumed), peak RSS and errors.  Both
# tools skip certificate verification here (wrk cannot verify; soak -k) so that they do
# the same work.
#
# Memory: soak alone, N keep-alive TLS connections that each made one request and then idle
# (think time longer than the run): RSS at 100 and at 10,000 connections, and the difference
# per connection (the SSL object and OpenSSL's read and write buffers); the 10,000 must all
# be up, with no error.
#
# Every figure is the median of BENCH_ROUNDS (3) interleaved rounds.
#   bench/tls.sh [SECONDS] [CONNECTIONS...]      (defaults: 8 s per cell; 50 1000)
#   BENCH_CLIENTS="lean curl" BENCH_MODES="keepalive close-resume close-full" BENCH_ROUNDS=N
#   BENCH_IDLE=10000 (the memory test's connections; 0 skips it) narrow a run.
# Figures only; nothing passes or fails.  Goal (issue 31): lean >= 1.0x wrk per CPU-second in
# every mode at 50 and 1,000 connections; 10,000 keep-alive TLS connections in one runner.
#
# Measured on the 2-core lab machine (shared with other work, so absolute rates move a lot
# between runs; the per-CPU-second ratios held), `nice -n 15 bench/tls.sh 8 50 1000`, median
# of 3 rounds; requests per generator CPU-second and the ratio to wrk (Debian's wrk 4.1 and
# soak both on OpenSSL 3.0.19, TLS 1.3, nginx 1.22):
#   conns mode           wrk     soak-lean        soak-curl
#   50    keepalive      47,920  64,954 (1.36x)   21,757 (0.45x)
#   50    close-resume    1,826   2,094 (1.15x)    1,357 (0.74x)
#   50    close-full      1,086   1,189 (1.09x)      854 (0.79x)
#   1000  keepalive      33,167  39,759 (1.20x)   13,668 (0.41x)
#   1000  close-resume    1,759   2,050 (1.17x)    1,093 (0.62x)
#   1000  close-full        857   1,303 (1.52x)      854 (1.00x)
# An earlier run the same day (a busier machine): 1.17, 1.08, 1.07 / 1.55, 1.36, 1.02.
# Idle keep-alive TLS connections: 100 in 18.6 MB, 10,000 in 346.6 MB (all up, no error):
# 33.9 KB each (the SSL object, a 17 KB read buffer, a 4.5 KB write buffer, the session).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-8}
rounds=${BENCH_ROUNDS:-3}
shift || true
levels=("$@")
[ ${#levels[@]} -eq 0 ] && levels=(50 1000)
clients=(${BENCH_CLIENTS:-lean curl})
modes=(${BENCH_MODES:-keepalive close-resume close-full})
idle=${BENCH_IDLE:-10000}
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)"; exit 1; }
tmp=$(mktemp -d)
nginx_pid=
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# shellcheck source=bench/nginx.lib
. "$here/bench/nginx.lib"
# shellcheck source=bench/cells.lib
. "$here/bench/cells.lib"
CELLS=$tmp/cells
bench_nginx_tls "$tmp"
nginx_pid=$NGINX_PID

# url MODE: the server for a mode.
url() {
  case $1 in
    close-full) echo "https://localhost:$NGINX_FULL_PORT/" ;;
    *) echo "https://localhost:$NGINX_TLS_PORT/" ;;
  esac
}


# wrk_run CONNS MODE: prints requests, CPU s, RSS KB, errors, handshakes (-: not counted).
wrk_run() {
  local hdr=()
  [ "$2" = keepalive ] || hdr=(-H 'Connection: close')
  read -r cpu rss < <(measure "${pin_gen[@]}" wrk -t1 -c"$1" -d"${secs}s" --timeout 10s \
    "${hdr[@]}" "$(url "$2")")
  echo "$(awk '/requests in/ {print $1}' "$tmp/out") $cpu $rss" \
    "$(awk '/Socket errors/ {gsub(/,/, ""); e = $4 + $6 + $8 + $10} /Non-2xx/ {e += $NF} END {print e + 0}' "$tmp/out")" -
}

# soak_run CLIENT CONNS MODE: the same for soak; handshakes as FULL/RESUMED.
soak_run() {
  local conn=keepalive
  [ "$3" = keepalive ] || conn=close
  rm -f "$tmp"/soak.db*
  read -r cpu rss < <(measure "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/soak.db" --threads 1 \
    --client "$1" --url "$(url "$3")" -k -c "$2" -d "${secs}s" --interval 4s --timeout 10s \
    --connection "$conn")
  sqlite3 -separator ' ' "$tmp/soak.db" "SELECT coalesce(sum(requests), 0), $cpu, $rss,
    coalesce(sum(errors), 0), coalesce(sum(tls_full), 0) || '/' || coalesce(sum(tls_resumed), 0)
    FROM intervals"
}

: >"$CELLS"
for round in $(seq "$rounds"); do
  for c in "${levels[@]}"; do
    for mode in "${modes[@]}"; do
      for tool in wrk "${clients[@]}"; do
        if [ "$tool" = wrk ]; then
          read -r n cpu rss errs hs < <(wrk_run "$c" "$mode")
        else
          read -r n cpu rss errs hs < <(soak_run "$tool" "$c" "$mode")
        fi
        echo "$c $mode $tool $round $n $cpu $rss $errs $hs" >>"$CELLS"
      done
    done
  done
done
declare -A rate
printf '%-6s %-13s %-10s %9s %10s %7s %7s %7s %15s   %s\n' conns mode tool "req/s" "req/CPU-s" \
  "x wrk" "RSS MB" errors "full/resumed" "req/CPU-s of each round"
for c in "${levels[@]}"; do
  for mode in "${modes[@]}"; do
    for tool in wrk "${clients[@]}"; do
      name=$tool
      [ "$tool" = wrk ] || name=soak-$tool
      r=$(cell "$c" "$mode" "$tool" 9)
      rate[$c.$mode.$tool]=$r
      printf '%-6s %-13s %-10s %9.0f %10.0f %7.2f %7.1f %7s %15s   %s\n' "$c" "$mode" "$name" \
        "$(awk -v n="$(cell "$c" "$mode" "$tool" 5)" -v t="$secs" 'BEGIN { print n / t }')" "$r" \
        "$(awk -v a="$r" -v b="${rate[$c.$mode.wrk]}" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
        "$(awk -v k="$(cell_max "$c" "$mode" "$tool" 7)" 'BEGIN { print k / 1024 }')" \
        "$(cell_sum "$c" "$mode" "$tool" 8)" \
        "$(awk -v c="$c" -v m="$mode" -v t="$tool" '$1 == c && $2 == m && $3 == t { h = $9 } END { print h }' "$CELLS")" \
        "$(cell_rounds "$c" "$mode" "$tool")"
    done
  done
done

# --- memory: idle keep-alive TLS connections -----------------------------------------------
[ "$idle" -gt 0 ] || exit 0
# idle_rss N: soak with N connections that each make one request and then think for longer
# than the run: prints the runner's RSS (KB) once all are up, connections, errors.
idle_rss() {
  local n=$1 pid rss=0 ramp=$(($1 / 2000 + 1))
  rm -f "$tmp"/idle.db*
  "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/idle.db" --threads 1 --url "$(url keepalive)" -k \
    -c "$n" --ramp-up "${ramp}s" --think 120s -d "$((ramp + 6))s" --interval 2s --timeout 20s \
    >/dev/null 2>&1 &
  pid=$!
  sleep "$((ramp + 4))"
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  wait "$pid" || true
  echo "$rss $(sqlite3 -separator ' ' "$tmp/idle.db" "SELECT sum(new_conns), sum(errors) FROM intervals")"
}
read -r r0 c0 e0 < <(idle_rss 100)
read -r r1 c1 e1 < <(idle_rss "$idle")
printf '\nidle keep-alive TLS connections in one runner (one thread):\n'
printf '  %6d connections: RSS %7.1f MB (%s connections made, %s errors)\n' 100 "$(awk -v r="$r0" 'BEGIN { print r / 1024 }')" "$c0" "$e0"
printf '  %6d connections: RSS %7.1f MB (%s connections made, %s errors)\n' "$idle" "$(awk -v r="$r1" 'BEGIN { print r / 1024 }')" "$c1" "$e1"
printf '  per idle TLS connection: %.1f KB\n' "$(awk -v a="$r0" -v b="$r1" -v n="$idle" 'BEGIN { print (b - a) / (n - 100) }')"
