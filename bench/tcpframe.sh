#!/usr/bin/env bash
# soak's tcp-frame driver against a plain C client (bench/frameclient.c: blocking sockets,
# a thread per agent, the same bytes) on the same bin/monitor on 127.0.0.1, long and short
# connections: iterations/s, iterations per generator CPU-second, and the soak/plain ratio;
# then libcurl's CONNECT_ONLY against plain sockets (bench/curl_connect_only.c), CPU per batch.
# The generator is pinned to CPU 0 and the monitor to CPU 1 when the machine has two cores.
#   bench/tcpframe.sh [SECONDS] [VUS]       (defaults 10 and 20)
# Figures only; nothing passes or fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
secs=${1:-10}
vus=${2:-20}
tmp=$(mktemp -d)
mon_pid=
cleanup() { [ -n "$mon_pid" ] && kill "$mon_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

cc -O2 -std=gnu11 -pthread -o "$tmp/frameclient" "$here/bench/frameclient.c"
cc -O2 -std=gnu11 -o "$tmp/curl_connect_only" "$here/bench/curl_connect_only.c" \
  $(pkg-config --cflags --libs libcurl)
pin_gen=() pin_srv=()
if [ "$(nproc)" -ge 2 ]; then pin_gen=(taskset -c 0); pin_srv=(taskset -c 1); fi
frames=$here/scenarios/frames
kinds=(memory jvm gc threading)
files=()
for k in "${kinds[@]}"; do files+=("$frames/$k.json"); done

# start_monitor: a fresh server storing a row per message, not per item: with item rows
# (the study's default) the server, not the generator, is the bottleneck and both clients
# mostly wait for it.
start_monitor() {
  [ -n "$mon_pid" ] && { kill "$mon_pid"; wait "$mon_pid" 2>/dev/null || true; }
  rm -f "$tmp"/m.db*
  "${pin_srv[@]}" "$BIN/monitor" --port 0 --db "$tmp/m.db" --store messages >"$tmp/mon.log" 2>&1 &
  mon_pid=$!
  for _ in $(seq 50); do grep -q 'listening on' "$tmp/mon.log" && break; sleep 0.1; done
  addr=$(sed -n 's/^listening on //p' "$tmp/mon.log")
  [ -n "$addr" ] || { echo "bench: the monitor did not start:"; cat "$tmp/mon.log"; exit 1; }
}

printf '%-6s %-6s %12s %14s %10s %12s\n' mode tool "iter/s" "iter/CPU-s" "CPU s" "server RSS MB"
for mode in long short; do
  conn=keepalive
  [ "$mode" = short ] && conn=close
  # soak: the study's frames, no collectors, one interval per second.
  start_monitor
  {
    printf '[scenario]\nconcurrency = %s\nduration = %ss\ninterval = 1s\nconnection = %s\n' "$vus" "$secs" "$conn"
    printf '[request]\nprotocol = tcp-frame\naddress = %s\ntimeout = 5s\n' "$addr"
    printf '[handshake]\nfile = %s/connect.json\nexpect = ConnectAck\n' "$frames"
    for k in "${kinds[@]}"; do printf '[frame.%s]\nfile = %s/%s.json\n' "$k" "$frames" "$k"; done
  } >"$tmp/bench.ini"
  rm -f "$tmp"/s.db*
  /usr/bin/time -f '%U %S' -o "$tmp/time" "${pin_gen[@]}" "$BIN/soak" run -q --db "$tmp/s.db" \
    "$tmp/bench.ini" >/dev/null 2>"$tmp/soak.err" || { cat "$tmp/soak.err"; exit 1; }
  read -r u s <"$tmp/time"
  sit=$(sqlite3 "$tmp/s.db" 'SELECT sum(requests) FROM intervals')
  serr=$(sqlite3 "$tmp/s.db" "SELECT coalesce(group_concat(class || ' ' || n, ', '), '0')
    FROM (SELECT class, sum(count) n FROM interval_errors GROUP BY class)")
  scpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
  srss=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$mon_pid/status")
  srate=$(awk -v n="$sit" -v c="$scpu" 'BEGIN{printf "%.0f", n/c}')
  printf '%-6s %-6s %12.0f %14s %10.2f %12s   (%s errors)\n' "$mode" soak \
    "$(awk -v n="$sit" -v t="$secs" 'BEGIN{print n/t}')" "$srate" "$scpu" "$srss" "$serr"
  # the plain client, same frames, same server (restarted: same empty state).
  start_monitor
  read -r _ pit _ perr _ pcpu < <("${pin_gen[@]}" "$tmp/frameclient" "${addr%:*}" "${addr##*:}" \
    "$mode" "$vus" "$secs" "$frames/connect.json" "${files[@]}")
  prss=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$mon_pid/status")
  prate=$(awk -v n="$pit" -v c="$pcpu" 'BEGIN{printf "%.0f", n/c}')
  printf '%-6s %-6s %12.0f %14s %10.2f %12s   (%s errors)\n' "$mode" plain \
    "$(awk -v n="$pit" -v t="$secs" 'BEGIN{print n/t}')" "$prate" "$pcpu" "$prss" "$perr"
  printf '%-6s %-6s %12s %14s\n' "$mode" ratio \
    "$(awk -v a="$sit" -v b="$pit" 'BEGIN{printf "%.2fx", a/b}')" \
    "$(awk -v a="$srate" -v b="$prate" 'BEGIN{printf "%.2fx", a/b}')"
done
echo "iter = one batch (4 frames, 5 KB); short adds connect + Connect/ConnectAck + close per batch."

# Would libcurl's CONNECT_ONLY do as well as plain sockets?  One agent, batches in a row.
echo
echo "libcurl CONNECT_ONLY vs plain sockets, one agent, 3000 batches (bench/curl_connect_only.c):"
start_monitor
for mode in short long; do
  "${pin_gen[@]}" "$tmp/curl_connect_only" "${addr%:*}" "${addr##*:}" "$mode" 3000 \
    "$frames/connect.json" "${files[@]}"
done
