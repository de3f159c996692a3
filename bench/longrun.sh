#!/usr/bin/env bash
# A long run at full speed: soak against bin/regserver (keep-alive, enough VUs to keep
# both busy, registrations with ${seq}, regserver's store bounded by --max-users) with
# [collect.app] on regserver and [collect.host], for MINUTES (default 10).  Each minute the
# RSS and open fds of the runner and of each collector are read from /proc; the table ends
# with each one's growth after minute 1 (goal: none beyond noise, under 1 MB) and the
# requests made.  Then the size of a 72-hour run's database is estimated from the bytes
# each interval and each sample takes in this one (dbstat; goal: under 1 GB with three
# sources).  Prints figures; never fails on them.
#   bench/longrun.sh [MINUTES]      (BIN=dir of the binaries; default bin/)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
minutes=${1:-10}
vus=${LONGRUN_VUS:-50}
dir=$(mktemp -d "${TMPDIR:-/tmp}/soak-bench-longrun.XXXXXX")
db=$dir/longrun.db
reg= runner=

cleanup() {
  [ -n "$runner" ] && kill "$runner" 2>/dev/null
  [ -n "$reg" ] && kill "$reg" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

"$BIN/regserver" --port 0 --quiet --max-users 200000 >"$dir/reg.log" 2>&1 &
reg=$!
for _ in $(seq 1 100); do grep -qs listening "$dir/reg.log" && break; sleep 0.1; done
port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/reg.log")
[ -n "$port" ] || { echo "regserver did not start: $(cat "$dir/reg.log")" >&2; exit 1; }

cat >"$dir/longrun.ini" <<EOF
[scenario]
name = longrun
duration = $((minutes * 60 + 15))s
interval = 10s
concurrency = $vus
[request]
method = POST
url = http://127.0.0.1:$port/register
header = Content-Type: application/x-www-form-urlencoded
body = username=u\${nonce}_\${seq}&email=\${seq}@example.test&password=secret123
expect_status = 201
timeout = 5s
[collect.app]
pid = $reg
every = 5s
[collect.host]
host = yes
every = 5s
EOF
"$BIN/soak" run -q --db "$db" "$dir/longrun.ini" >"$dir/run.out" 2>"$dir/run.err" &
runner=$!

# rss PID, fds PID: resident KB and open descriptors, or "-" once the process is gone.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -; }
fds() { if [ -d "/proc/$1/fd" ]; then ls "/proc/$1/fd" 2>/dev/null | wc -l; else echo -; fi; }
# child PROGRAM SOURCE: the runner's collector for SOURCE.
child() { pgrep -P "$runner" -f -- "^$1 .*--source $2 " | head -n 1; }

for _ in $(seq 1 50); do [ -n "$(child soak-procstat host)" ] && break; sleep 0.1; done
app=$(child soak-procstat app) host=$(child soak-procstat host)
names=(runner "procstat app" "procstat host" regserver)
procs=("$runner" "$app" "$host" "$reg")
printf 'soak run, %d VUs keep-alive, POST /register, for %d min; RSS KB / open fds each minute\n' \
  "$vus" "$minutes"
printf '%6s' min
for n in "${names[@]}"; do printf ' %21s' "$n"; done
printf ' %12s\n' requests
declare -a first last
t0=$(date +%s)
for m in $(seq 1 "$minutes"); do
  # Sample at each whole minute after the start (bounded: one sample a minute).
  sleep $((t0 + 60 * m - $(date +%s)))
  kill -0 "$runner" 2>/dev/null || break
  printf '%6d' "$m"
  for i in "${!procs[@]}"; do
    r=$(rss "${procs[i]}") f=$(fds "${procs[i]}")
    printf ' %14s / %4s' "$r" "$f"
    [ "$m" = 1 ] && first[i]=$r
    last[i]=$r
  done
  printf ' %12s\n' "$(sqlite3 "$db" 'SELECT IFNULL(sum(requests), 0) FROM intervals' 2>/dev/null)"
done
printf '%6s' growth
for i in "${!procs[@]}"; do
  awk -v a="${first[i]:-0}" -v b="${last[i]:-0}" 'BEGIN { printf " %+11d KB       ", b - a }'
done
echo
for _ in $(seq 1 600); do kill -0 "$runner" 2>/dev/null || break; sleep 0.1; done
wait "$runner"
rc=$?
runner=
sqlite3 "$db" "SELECT printf('run: exit $rc, %s; %.2f million requests, %.0f/s, %d errors, p99 %.1f ms', r.status, sum(i.requests) / 1e6, (SELECT tps FROM steps WHERE run_id = r.id), sum(i.errors), (SELECT p99_us FROM steps WHERE run_id = r.id) / 1000.0) FROM runs r JOIN intervals i ON i.run_id = r.id"

# --- the database of a 72-hour run --------------------------------------------------------
# Bytes per row from dbstat (payload, cells and page slack of each table), multiplied by
# the rows a 72-hour run writes: 25,920 ten-second intervals; per source 51,840 rounds of
# 5 s, each round one row per metric (a process source as [collect.app], the host as
# [collect.host]); three sources = two process sets (app, db) and the host.
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
sqlite3 "$db" "
WITH b AS (SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name),
     t AS (SELECT (SELECT bytes FROM b WHERE name = 'intervals') * 1.0 / (SELECT count(*) FROM intervals) AS per_iv,
                  (SELECT bytes FROM b WHERE name = 'samples') * 1.0 / (SELECT count(*) FROM samples) AS per_sample,
                  (SELECT count(DISTINCT metric) FROM samples WHERE source = 'app') AS proc_metrics,
                  (SELECT count(DISTINCT metric) FROM samples WHERE source = 'host') AS host_metrics,
                  (SELECT count(*) FROM intervals) AS ivs, (SELECT count(*) FROM samples) AS samples)
SELECT printf('database now: %.1f MB (%d intervals, %.0f bytes each with its histogram; %d samples, %.1f bytes each)',
              (SELECT page_count * page_size FROM pragma_page_count, pragma_page_size) / 1e6, ivs, per_iv, samples, per_sample)
       || char(10) ||
       printf('72-hour run, 10 s intervals, three sources every 5 s (%d + %d process metrics, %d host metrics):',
              proc_metrics, proc_metrics, host_metrics)
       || char(10) ||
       printf('  intervals %.0f MB + samples %.0f MB = %.0f MB (goal: under 1 GB; GC events not counted)',
              25920 * per_iv / 1e6, 51840 * (2 * proc_metrics + host_metrics) * per_sample / 1e6,
              (25920 * per_iv + 51840 * (2 * proc_metrics + host_metrics) * per_sample) / 1e6)
FROM t"
