#!/usr/bin/env bash
# A private regserver on 127.0.0.1 for studies (soak study [target.NAME] start/stop),
# speaking as the container scripts do:
#
#   targets/regserver/regserver.sh start DIR [REGSERVER OPTIONS...]   e.g. --latency 20
#   targets/regserver/regserver.sh stop  DIR
#
# start prints key=value lines (pid= port= url= version= log=) once GET /health answers,
# within 10 s; stop sends SIGTERM to that pid (only when it is still this regserver) and
# waits for it, at most 10 s.  Files in DIR: regserver.pid, regserver.log.
# The server: $BIN/regserver when BIN is set, else the source tree's bin/regserver (this
# script in targets/regserver/), else the installed soak-regserver (this script in
# PREFIX/share/soak/targets/regserver/, the server in PREFIX/bin), else soak-regserver on PATH.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${BIN:-}" ]; then
  server=$BIN/regserver
elif [ -x "$here/../../bin/regserver" ]; then
  server=$here/../../bin/regserver
elif [ -x "$here/../../../../bin/soak-regserver" ]; then
  server=$here/../../../../bin/soak-regserver
else
  server=$(command -v soak-regserver) || server=soak-regserver
fi

die() { printf 'regserver.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -ge 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
cmd=$1 dir=$2
shift 2

# alive PID: exists and is not a zombie (PID 1 here reaps late).
alive() {
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
# ours PID: alive and a regserver (not a recycled pid).
ours() {
  alive "$1" && tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1 | grep -q 'regserver$'
}

case "$cmd" in
start)
  mkdir -p "$dir"
  log=$dir/regserver.log
  : >"$log"
  # setsid: its own session, so a Ctrl-C aimed at the caller does not reach it.
  setsid "$server" --port 0 --quiet "$@" </dev/null >"$log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/regserver.pid"
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && break
    alive "$pid" || die "regserver exited: $(tail -3 "$log")"
    sleep 0.1
  done
  [ -n "$port" ] || { kill "$pid" 2>/dev/null; die "regserver did not listen within 10 s"; }
  printf 'pid=%s\nport=%s\nurl=http://127.0.0.1:%s/register\n' "$pid" "$port" "$port"
  printf 'version=regserver %s\nlog=%s\n' "$*" "$log"
  ;;
stop)
  [ -f "$dir/regserver.pid" ] || exit 0
  pid=$(cat "$dir/regserver.pid")
  if ours "$pid"; then
    kill "$pid"
    for _ in $(seq 100); do ours "$pid" || break; sleep 0.1; done
    ! ours "$pid" || die "pid $pid still running 10 s after SIGTERM"
  fi
  rm -f "$dir/regserver.pid"
  ;;
*) die "unknown command '$cmd' (start or stop)" ;;
esac
