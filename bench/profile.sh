#!/usr/bin/env bash
# What profiling costs the server: CPU per request of two soak-regservers, each driven by a
# soak run of its own at one fixed rate, in rounds of two runs back to back: one with both
# servers profiled (profile = cpu at HZ, a soak-perf each, as a study of two sets runs it),
# one with neither; the order alternates from round to round (on off, off on, ...), so that
# a drift of the machine falls on both alike, and what perf's own processes take from the
# machine is counted too.  Not side by side within a run: perf on every CPU
# (SOAK_PERF_SCOPE=all) samples the other server too.  Each server burns BURN µs of
# CPU per request in a named function (a server with work to do, not an echo).  Each line:
# the round, both servers' CPU per request (µs: the process's mean CPU over the measured
# window divided by its TPS) profiled and not, the excess in %; then the mean excess and
# its spread over the rounds.  Figures, no verdict.  SOAK_PERF_SCOPE=all in the
# environment measures perf on every CPU (perf -a) instead of the servers' tasks (perf -p).
#   bench/profile.sh [ROUNDS (4)] [HZ (99)] [RATE per server (200)] [DURATION (30s)] [BURN (200)]
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
echo "# $runs rounds of 2 x $dur, $rate/s to each of two regservers burning $burn µs a request;" \
  "perf at $hz Hz (scope ${SOAK_PERF_SCOPE:-task}); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# both PROFILE(0|1): a run of both servers side by side; "X_US Y_US SAMPLES".
both() {
  for s in x y; do
    scenario "$s" "$1" >"$d/$s.ini"
    rm -f "$d/$s".db*
    "$BIN/soak" run -q --db "$d/$s.db" "$d/$s.ini" >"$d/$s.out" 2>&1 &
  done
  wait
  echo "$(cost "$d/x.db") $(cost "$d/y.db") $(sqlite3 "$d/x.db" "SELECT IFNULL(SUM(samples), 0) FROM profile_windows")"
}
printf '%-6s %10s %10s %10s %10s %8s %8s\n' round x_on x_off y_on y_off excess samples
all=""
for i in $(seq 1 "$runs"); do
  if [ $((i % 2)) -eq 1 ]; then on=$(both 1) off=$(both 0); else off=$(both 0) on=$(both 1); fi
  read -r xa ya n <<<"$on"
  read -r xb yb _ <<<"$off"
  ex=$(awk -v a="$xa" -v b="$xb" -v c="$ya" -v e="$yb" 'BEGIN { printf "%+.2f", ((a / b + c / e) / 2 - 1) * 100 }')
  all="$all $ex"
  printf '%-6s %10s %10s %10s %10s %7s%% %8s\n' "$i" "$xa" "$xb" "$ya" "$yb" "$ex" "$n"
done
awk -v v="$all" 'BEGIN { n = split(v, x, " "); for (i = 1; i <= n; i++) s += x[i]; m = s / n
  for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2; sd = n > 1 ? sqrt(q / (n - 1)) : 0
  printf "mean excess of a profiled server: %+.2f %% (sd %.2f over %d rounds, standard error %.2f)\n", m, sd, n, sd / sqrt(n) }'
