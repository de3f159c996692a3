#!/usr/bin/env bash
# soak-procstat's own CPU: three collectors at --every 1s (one --match over several
# processes, one --pid, one --host) for BENCH_SECONDS (default 60), each measured from its
# /proc/PID/stat utime+stime before and after (and /proc/PID/schedstat for ns precision),
# printed as % of one core.  Target: under 0.5% each.  Prints figures; never fails on them.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
secs=${BENCH_SECONDS:-60}
dir=$(mktemp -d "${TMPDIR:-/tmp}/soak-bench-procstat.XXXXXX")
mk=benchps_$$_$RANDOM
pids=() targets=()

cleanup() {
  local p
  for p in "${pids[@]}" "${targets[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

# ticks PID: utime + stime in clock ticks; runns PID: on-CPU time in ns.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
runns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null || echo 0; }

# Four targets for --match (shells waiting on a sleep: the marker is in the shell's argv).
for i in 1 2 3 4; do
  sh -c 'sleep "$1"' "$mk" $((secs + 30)) &
  targets+=("$!")
done
sleep 0.5

"$BIN/soak-procstat" --db "$dir/bench.db" --source app --match "$mk" --every 1s &
pids+=("$!")
"$BIN/soak-procstat" --db "$dir/bench.db" --source one --pid "${targets[0]}" --every 1s &
pids+=("$!")
"$BIN/soak-procstat" --db "$dir/bench.db" --source host --host --every 1s &
pids+=("$!")
names=("--match '$mk' (${#targets[@]} processes)" "--pid ${targets[0]}" "--host")

# Start-up (creating the database) is not the steady cost: measure from the 2nd second.
sleep 1
declare -a t0 n0
for i in 0 1 2; do t0[i]=$(ticks "${pids[i]}"); n0[i]=$(runns "${pids[i]}"); done
s0=$(date +%s%N)
sleep "$secs"
s1=$(date +%s%N)
hz=$(getconf CLK_TCK)
nproc_box=$(ls -d /proc/[0-9]* | wc -l)
printf 'soak-procstat own CPU at --every 1s over %d s, 3 collectors, %d processes on the box\n' \
  "$secs" "$nproc_box"
for i in 0 1 2; do
  t1=$(ticks "${pids[i]}") n1=$(runns "${pids[i]}")
  awk -v name="${names[i]}" -v a="${t0[i]}" -v b="$t1" -v na="${n0[i]}" -v nb="$n1" \
    -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN {
      wall = (e - s) / 1e9
      printf "  %-45s %6.3f%% of one core (utime+stime %d ticks)   %6.3f%% (schedstat %.1f ms)\n",
        name, (b - a) / hz * 100 / wall, b - a, (nb - na) / 1e9 * 100 / wall, (nb - na) / 1e6
    }'
done
rounds=$(sqlite3 "$dir/bench.db" "SELECT count(DISTINCT t_ms) FROM samples WHERE source = 'app'" 2>/dev/null)
echo "  rounds written by the --match collector: ${rounds:-?} (target: under 0.5% each)"
