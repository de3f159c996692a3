#!/usr/bin/env bash
# What profiling costs the server: CPU per request of two soak-regservers driven side by
# side by two soak runs at one fixed rate (the same requests, the same seconds), one of them
# profiled (profile = cpu at HZ), the other not; the roles swap every pair of runs
# (A B B A ...), so that what the machine does falls on both alike.  Each regserver burns
# BURN µs of CPU per request in a named function (a server with work to do, not an echo).
# Each line: the run, which one was profiled, both CPU per request (µs: the process's mean
# CPU over the measured window divided by its TPS) and the profiled one's excess in %;
# then the mean excess over the runs.  Figures, no verdict.
#   bench/profile.sh [RUNS (4)] [HZ (99)] [RATE per server (200)] [DURATION (30s)] [BURN (200)]
set -u
runs=${1:-4} hz=${2:-99} rate=${3:-200} dur=${4:-30s} burn=${5:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
REGSH=$top/targets/regserver/regserver.sh
d=$(mktemp -d /tmp/soak-profbench.XXXXXX)
trap '"$REGSH" stop "$d/x" >/dev/null 2>&1; "$REGSH" stop "$d/y" >/dev/null 2>&1; rm -rf "$d"' EXIT
for s in x y; do
  "$REGSH" start "$d/$s" --burn-us "$burn" --max-users 1000000 >"$d/$s.info" || {
    echo "cannot start a regserver" >&2
    exit 1
  }
done
url() { sed -n 's/^url=//p' "$d/$1.info"; }
pid() { sed -n 's/^pid=//p' "$d/$1.info"; }
# scenario SERVER PROFILE(0|1): RATE a second to SERVER, its CPU collected (and profiled).
scenario() {
  printf '[scenario]\nname = profile cost\nlabel = %s\nrate = %d/s\n' "$1" "$rate"
  printf 'duration = %s\nwarmup = 5s\ninterval = 1s\n' "$dur"
  printf '[request]\nurl = %s\nmethod = POST\n' "$(url "$1")"
  printf 'header = Content-Type: application/x-www-form-urlencoded\n'
  printf 'body = username=u${nonce}_${seq}&email=u${seq}@example.test&password=x\n'
  printf 'expect_status = 201\n[collect.app]\npid = %s\nevery = 1s\n' "$(pid "$1")"
  [ "$2" = 1 ] && printf 'profile = cpu\nprofile_hz = %d\n' "$hz"
}
# µs of CPU per request of the server over the steady window of the run in DB.
cost() {
  sqlite3 "$1" "WITH w AS (SELECT MIN(start_ms) a, MAX(start_ms + length_ms) b,
    SUM(requests) n FROM intervals WHERE phase = 'steady')
    SELECT ROUND(AVG(s.value) * 1e4 * (w.b - w.a) / 1000.0 / w.n, 1) FROM samples s, w
    WHERE s.source = 'app' AND s.metric = 'cpu_pct' AND s.t_ms > w.a AND s.t_ms <= w.b"
}
echo "# $runs runs of $dur, $rate/s to each of two regservers burning $burn µs a request;" \
  "perf at $hz Hz on one; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %-9s %12s %12s %9s %8s\n' run profiled on_us off_us excess samples
sum=0
for i in $(seq 1 "$runs"); do
  case $((i % 4)) in 1 | 0) on=x off=y ;; *) on=y off=x ;; esac
  scenario "$on" 1 >"$d/on.ini"
  scenario "$off" 0 >"$d/off.ini"
  rm -f "$d"/on.db* "$d"/off.db*
  "$BIN/soak" run -q --db "$d/on.db" "$d/on.ini" >"$d/on.out" 2>&1 &
  "$BIN/soak" run -q --db "$d/off.db" "$d/off.ini" >"$d/off.out" 2>&1
  wait
  a=$(cost "$d/on.db") b=$(cost "$d/off.db")
  n=$(sqlite3 "$d/on.db" "SELECT IFNULL(SUM(samples), 0) FROM profile_windows")
  ex=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.2f", (a / b - 1) * 100 }')
  sum=$(awk -v s="$sum" -v e="$ex" 'BEGIN { print s + e }')
  printf '%-4s %-9s %12s %12s %8s%% %8s\n' "$i" "$on" "$a" "$b" "$ex" "$n"
done
awk -v s="$sum" -v n="$runs" 'BEGIN { printf "mean excess of the profiled server: %+.2f %%\n", s / n }'
