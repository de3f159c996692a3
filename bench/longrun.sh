#!/usr/bin/env bash
# A 72-hour soak's worth of requests through one runner: soak against bin/regserver at full
# speed (keep-alive, enough VUs to keep both busy, registrations with ${seq}, regserver's
# store bounded by --max-users) with the three collectors running: soak-procstat on
# regserver ([collect.app]), soak-gclog following a GC log that a writer appends one young
# collection a second to (as a JVM would), and soak-procstat on the host ([collect.host]).
# A seed study's 72-hour soak at a few hundred TPS is 100-130 million requests: the default
# is 130 million (about an hour at full speed on a small machine).
#
# Prints, and never fails on the figures:
#   - the rate measured by a 20-second calibration run, and the duration that gives REQUESTS
#     (on a busy machine the run may then make fewer: its own count is printed);
#   - RSS (KB) and open fds of the runner, of each collector and of regserver every period
#     (10 minutes; a sixth of the run when it is shorter than an hour), and each one's
#     growth after the first period (goal: none beyond noise, under 1 MB);
#   - the run: requests, TPS, errors, p99;
#   - the database's size, bytes per interval, per sample and per GC event, and the size of
#     a 72-hour run's database from them (this run's intervals, three sources every 5 s, GC
#     events at this run's rate; goal: under 1 GB);
#   - `soak report` on this database: wall time and peak RSS, with pictures;
#   - the run's drift verdict (regserver must come out stable) and its sentence, and its
#     controls: TPS, the machine probe and the generator's CPU per request by third.
#   bench/longrun.sh [REQUESTS]    (BIN=dir of the binaries, default bin/; LONGRUN_VUS=50;
#                                  LONGRUN_EVERY=600 seconds between RSS samples;
#                                  LONGRUN_INTERVAL=10s: a short check of the script needs
#                                  1s, so that its thirds hold 10 intervals each)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
requests=${1:-130000000}
vus=${LONGRUN_VUS:-50}
every=${LONGRUN_EVERY:-600}
interval=${LONGRUN_INTERVAL:-10s}
dir=$(mktemp -d "${TMPDIR:-/tmp}/soak-bench-longrun.XXXXXX")
db=$dir/longrun.db
reg= runner= writer=

case "$requests" in '' | *[!0-9]*) echo "usage: $0 [REQUESTS]" >&2; exit 2 ;; esac

cleanup() {
  [ -n "$writer" ] && kill "$writer" 2>/dev/null
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

# scenario NAME DURATION: the scenario file, on stdout.
scenario() {
  cat <<EOF
[scenario]
name = $1
label = regserver
duration = $2
warmup = 10s
interval = $interval
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
gc_log = $dir/gc.log
every = 5s
[collect.host]
host = yes
every = 5s
EOF
}

# --- calibration: the rate, for the duration that gives REQUESTS ------------------------
scenario calibration 30s >"$dir/cal.ini"
: >"$dir/gc.log"
"$BIN/soak" run -q --db "$dir/cal.db" "$dir/cal.ini" >/dev/null 2>"$dir/cal.err" ||
  { echo "calibration run failed: $(tail -3 "$dir/cal.err")" >&2; exit 1; }
rate=$(sqlite3 "$dir/cal.db" 'SELECT tps FROM steps WHERE run_id = 1')
secs=$(awk -v n="$requests" -v r="$rate" 'BEGIN { s = n / r; printf "%d", (s < 60 ? 60 : s) + 10 }')
[ "$every" -gt $((secs / 6)) ] && every=$(( secs / 6 > 10 ? secs / 6 : 10 ))
printf 'calibration: %.0f requests/s with %d VUs; %d requests take %d s (%.2f h)\n' \
  "$rate" "$vus" "$requests" "$secs" "$(echo "$secs / 3600" | bc -l)"

# --- the run --------------------------------------------------------------------------------
scenario longrun "${secs}s" >"$dir/longrun.ini"
: >"$dir/gc.log"
# A JVM's GC log: one young collection a second, heap after GC steady (the writer stops
# with the runner, and after the planned length at the latest).
(
  t0=$(date +%s%3N) i=0
  while [ "$i" -le $((secs + 120)) ] && [ -e "$dir/gc.log" ]; do
    now=$(date +%s%3N)
    printf '[%s][%dms][info][gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) %dM->%dM(256M) %d.%03dms\n' \
      "$(date -u -d "@$((now / 1000)).$((now % 1000))" +%Y-%m-%dT%H:%M:%S.%3N+0000)" \
      $((now - t0 + 500)) "$i" $((150 + i % 7)) $((60 + i % 5)) $((2 + i % 3)) $((i * 37 % 1000)) \
      >>"$dir/gc.log"
    i=$((i + 1))
    sleep 1
  done
) &
writer=$!
"$BIN/soak" run -q --db "$db" "$dir/longrun.ini" >"$dir/run.out" 2>"$dir/run.err" &
runner=$!

# rss PID, fds PID: resident KB and open descriptors, or "-" once the process is gone.
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo -; }
fds() { if [ -d "/proc/$1/fd" ]; then ls "/proc/$1/fd" 2>/dev/null | wc -l; else echo -; fi; }
# child PROGRAM SOURCE: the runner's collector for SOURCE.
child() { pgrep -P "$runner" -f -- "^$1 .*--source $2 " | head -n 1; }

for _ in $(seq 1 50); do [ -n "$(child soak-gclog app)" ] && [ -n "$(child soak-procstat host)" ] && break; sleep 0.1; done
app=$(child soak-procstat app) gc=$(child soak-gclog app) host=$(child soak-procstat host)
names=(runner "procstat app" "gclog app" "procstat host" regserver)
procs=("$runner" "$app" "$gc" "$host" "$reg")
printf 'soak run, %d VUs keep-alive, POST /register, %d s; RSS KB / open fds every %d s\n' \
  "$vus" "$secs" "$every"
printf '%7s' time
for n in "${names[@]}"; do printf ' %18s' "$n"; done
printf ' %12s\n' requests
declare -a first last
t0=$(date +%s)
for m in $(seq 1 $((secs / every))); do
  # Sample at each whole period after the start (bounded: one sample a period).
  sleep $((t0 + every * m - $(date +%s)))
  kill -0 "$runner" 2>/dev/null || break
  printf '%6ds' $((every * m))
  for i in "${!procs[@]}"; do
    r=$(rss "${procs[i]}") f=$(fds "${procs[i]}")
    printf ' %11s / %4s' "$r" "$f"
    [ "$m" = 1 ] && first[i]=$r
    last[i]=$r
  done
  printf ' %12s\n' "$(sqlite3 "$db" 'SELECT IFNULL(sum(requests), 0) FROM intervals' 2>/dev/null)"
done
printf '%7s' growth
for i in "${!procs[@]}"; do
  awk -v a="${first[i]:-0}" -v b="${last[i]:-0}" 'BEGIN { printf " %+10d KB       ", b - a }'
done
echo
for _ in $(seq 1 $((secs * 10 + 1200))); do kill -0 "$runner" 2>/dev/null || break; sleep 0.1; done
wait "$runner"
rc=$?
runner=
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
writer=
sqlite3 "$db" "SELECT printf('run: exit $rc, %s; %.2f million requests, %.0f/s, %d errors, p99 %.1f ms', r.status, sum(i.requests) / 1e6, (SELECT tps FROM steps WHERE run_id = r.id), sum(i.errors), (SELECT p99_us FROM steps WHERE run_id = r.id) / 1000.0) FROM runs r JOIN intervals i ON i.run_id = r.id"

# --- the database of a 72-hour run --------------------------------------------------------
# Bytes per row from dbstat (payload, cells and page slack of each table and its indexes),
# multiplied by the rows a 72-hour run writes: an interval row every interval; per source
# 51,840 rounds of 5 s, each round one row per metric (two process sets, app and db, and
# the host); GC events at this run's rate.
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
sqlite3 "$db" "
WITH b AS (SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name),
     g AS (SELECT (SELECT bytes FROM b WHERE name = 'gc_events') +
                  IFNULL((SELECT sum(bytes) FROM b WHERE name IN
                          (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gc_events')), 0) AS bytes),
     t AS (SELECT (SELECT bytes FROM b WHERE name = 'intervals') * 1.0 / (SELECT count(*) FROM intervals) AS per_iv,
                  (SELECT bytes FROM b WHERE name = 'samples') * 1.0 / (SELECT count(*) FROM samples) AS per_sample,
                  (SELECT bytes FROM g) * 1.0 / MAX(1, (SELECT count(*) FROM gc_events)) AS per_gc,
                  (SELECT count(*) FROM gc_events) * 1000.0 / MAX(1, (SELECT MAX(ended_ms) - MIN(started_ms) FROM runs)) AS gc_per_s,
                  (SELECT count(DISTINCT metric) FROM samples WHERE source = 'app') AS proc_metrics,
                  (SELECT count(DISTINCT metric) FROM samples WHERE source = 'host') AS host_metrics,
                  (SELECT count(*) FROM intervals) AS ivs, (SELECT count(*) FROM samples) AS samples,
                  259200000.0 / (SELECT interval_ms FROM runs LIMIT 1) AS ivs72,
                  (SELECT count(*) FROM gc_events) AS gcs)
SELECT printf('database: %.1f MB (%d intervals, %.0f bytes each with its histogram; %d samples, %.1f bytes each; %d GC events, %.1f bytes each, %.2f a second)',
              (SELECT page_count * page_size FROM pragma_page_count, pragma_page_size) / 1e6, ivs, per_iv, samples, per_sample, gcs, per_gc, gc_per_s)
       || char(10) ||
       printf('72-hour run, %.0f intervals, three sources every 5 s (%d + %d process metrics, %d host metrics), %.2f GC events a second:',
              ivs72, proc_metrics, proc_metrics, host_metrics, gc_per_s)
       || char(10) ||
       printf('  intervals %.0f MB + samples %.0f MB + GC events %.0f MB = %.0f MB (goal: under 1 GB)',
              ivs72 * per_iv / 1e6, 51840 * (2 * proc_metrics + host_metrics) * per_sample / 1e6,
              259200 * gc_per_s * per_gc / 1e6,
              (ivs72 * per_iv + 51840 * (2 * proc_metrics + host_metrics) * per_sample + 259200 * gc_per_s * per_gc) / 1e6)
FROM t"

# --- soak report on it, and the drift verdict -----------------------------------------------
/usr/bin/time -v "$BIN/soak" report "$db" -o "$dir/report" >"$dir/report.out" 2>"$dir/time.log" ||
  { echo "soak report failed: $(tail -3 "$dir/time.log")" >&2; exit 1; }
awk -F': ' '
  /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = p[n] + (n > 1 ? p[n-1] * 60 : 0) + (n > 2 ? p[n-2] * 3600 : 0) }
  /Maximum resident set size/ { kb = $2 }
  END { printf "soak report (with pictures): %.2f s, peak RSS %.1f MB\n", s, kb / 1024 }' "$dir/time.log"
verdict=$(jq -r '.runs[0].drift.verdict' "$dir/report/report.json")
case "$verdict" in
  stable) note="regserver should be stable: it is" ;;
  too_short) note="too few intervals to judge: more requests, or LONGRUN_INTERVAL=1s" ;;
  *) note="regserver should be stable: IT IS NOT (a busy machine? see the sentence)" ;;
esac
printf 'drift: %s (%s)\n  %s\n' "$verdict" "$note" "$(jq -r '.runs[0].drift.sentence' "$dir/report/report.json")"
# The controls beside that verdict: the rate per third of the window, the machine probe
# (the same arithmetic timed every interval; the drift sentence itself names it when it
# moved with the verdict) and the generator's own CPU per request.  The probe moves only
# with the machine; the generator's CPU per request moves with the machine and also with
# the pace (a saturated generator spends the same CPU on fewer requests).
sqlite3 "$db" "
WITH w AS (SELECT requests, length_ms, gen_cpu_pct, probe_us, ntile(3) OVER (ORDER BY start_ms) AS t
           FROM intervals WHERE phase = 'steady'),
     s AS (SELECT t, sum(requests) * 1000.0 / sum(length_ms) AS tps, avg(probe_us) AS probe,
                  sum(gen_cpu_pct * length_ms) / sum(requests) AS cpu FROM w GROUP BY t)
SELECT printf('controls: TPS by third %.0f, %.0f, %.0f; machine probe by third %.1f, %.1f, %.1f us (last against first %+.1f%%); the generator''s CPU per request, last third against first: %+.1f%%',
              (SELECT tps FROM s WHERE t = 1), (SELECT tps FROM s WHERE t = 2), (SELECT tps FROM s WHERE t = 3),
              (SELECT probe FROM s WHERE t = 1), (SELECT probe FROM s WHERE t = 2), (SELECT probe FROM s WHERE t = 3),
              100.0 * ((SELECT probe FROM s WHERE t = 3) / (SELECT probe FROM s WHERE t = 1) - 1),
              100.0 * ((SELECT cpu FROM s WHERE t = 3) / (SELECT cpu FROM s WHERE t = 1) - 1))"
