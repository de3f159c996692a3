#!/usr/bin/env bash
# The open model against bin/regserver and bin/monitor on 127.0.0.1: coordinated omission
# (a server frozen by SIGSTOP shows in the latency from the intended start, not in a closed
# run's), the arrival process as the server saw it (constant and Poisson), max_in_flight
# and max_lag (waits, then drops, never a burst), tcp-frame in the open model, the capacity
# search, and what `soak runs --json` says.  Every run is a few seconds; every wait bounded.
. "$(dirname "$0")/lib.sh"

DB=$T/open.db
FORM='Content-Type: application/x-www-form-urlencoded'
BODY='username=u${nonce}_${seq}&email=${seq}@example.test&password=secret123'
q() { sql "$DB" "$@"; }
run() {
  soak run -q --db "$DB" --interval 1s "$@" >"$T/out.txt" 2>"$T/err.txt"
  RC=$?
  LASTRUN=$(q 'SELECT max(id) FROM runs')
}
jrun() { soak runs --db "$DB" --json | jq -r ".[] | select(.id==$LASTRUN) | $1"; }
# cv FILE [FROM_US]: coefficient of variation of the gaps between consecutive times.
cv() {
  sort -n "$1" | awk -v from="${2:-0}" '$1 >= from { if (n++) { g = $1 - p; s += g; q += g * g } p = $1 }
    END { m = s / (n - 1); print sqrt(q / (n - 1) - m * m) / m }'
}

# gaps FILE FROM: the 5th and 95th percentiles of the gaps (ms) between arrivals after FROM.
gaps() {
  sort -n "$1" | awk -v from="$2" '$1 >= from { if (n++) print ($1 - p) / 1000; p = $1 }' | sort -n |
    awk '{ g[NR] = $1 } END { print g[int(NR * 0.05) + 1], g[int(NR * 0.95)] }'
}

# --- 1. coordinated omission: the server freezes 1 s in every 4 -----------------------
# freeze PID: SIGSTOP for 1 s at +1.5 s and +5.5 s of an 8 s run (25 % of the time).
freeze() {
  sleep 1.5
  kill -STOP "$1"; sleep 1; kill -CONT "$1"
  sleep 3
  kill -STOP "$1"; sleep 1; kill -CONT "$1"
}
# The open model on both HTTP clients (libcurl, the lean driver), both at once, each on its
# own server (per_client).
open_co() {
  local CLIENT=$1 DB=$T/open-$1.db T=$T/$1
  mkdir -p "$T"
  start_regserver --latency 20 --quiet
  freeze "$REG_PID" &
  FREEZER=$!
  run --client "$CLIENT" --url "$REG_URL/register" --rate 200/s -d 8s -H "$FORM" --body "$BODY" --expect-status 201
  wait "$FREEZER"
  check_eq "[$CLIENT] open run exits 0" "$RC" 0
  check_eq "[$CLIENT] open run recorded as the open model" "$(q "SELECT model || ' ' || client FROM runs WHERE id=$LASTRUN")" "open $CLIENT"
  p90=$(jrun .p90_ms)
  check_range "[$CLIENT] open: p90 from the intended start shows the freezes (ms)" "$p90" 400 1100
  check_range "[$CLIENT] open: service time p50 is the server's 20 ms" "$(jrun .service_p50_ms)" 20 25
  check_eq "[$CLIENT] open: nothing dropped" "$(jrun .dropped)" 0
  check_range "[$CLIENT] open: achieved rate within 2% of 200/s" "$(jrun .tps)" 196 204
  check_eq "[$CLIENT] open: no errors" "$(jrun .errors)" 0
  stop_pid "$REG_PID"
}
per_client open_co

start_regserver --latency 20 --quiet
freeze "$REG_PID" &
FREEZER=$!
run --url "$REG_URL/register" -c 4 -d 8s -H "$FORM" --body "$BODY" --expect-status 201
wait "$FREEZER"
check_eq "closed run exits 0" "$RC" 0
check_range "closed: the same freezes hide in p90 (ms)" "$(jrun .p90_ms)" 0 100
check_eq "closed: recorded as the closed model" "$(jrun .model)" closed
check_eq "closed: no rate, no service or lag figures" "$(jrun '[.rate, .service_p50_ms, .lag_p99_ms] | map(tostring) | join(" ")')" "null null null"
stop_pid "$REG_PID"

# --- 1b. the generator's own lateness is start lag, never the server's latency -----------
# Poisson arrivals at 700/s against a 5 ms server with one busy loop per core on the
# machine, and soak itself stopped (SIGSTOP) for 300 ms halfway: the stop stands out as
# start lag (outside its intervals the lag p99 is a third of the stop's at most: no
# catch-up tail; how late a generator is among busy loops is this machine's speed, not
# soak's), and every interval's p99 is the service p99 (no slot ever waited, so latency
# is service).
late_gen() {
  local i hogs=()
  start_regserver --latency 5 --quiet
  for i in $(seq "$(nproc)"); do
    timeout 20 bash -c 'while :; do :; done' &
    hogs+=($!)
  done
  soak run --db "$DB" --interval 1s --warmup 1s --url "$REG_URL/health" --rate 700/s \
    --arrival poisson -d 7s >"$T/late.out" 2>"$T/late.err" &
  local soak_pid=$!
  sleep 3.5
  STOP=$(date +%s%3N)
  kill -STOP "$soak_pid"
  sleep 0.3
  kill -CONT "$soak_pid"
  CONT=$(date +%s%3N)
  wait "$soak_pid"
  RC=$?
  kill "${hogs[@]}" 2>/dev/null
  wait "${hogs[@]}" 2>/dev/null
  stop_pid "$REG_PID"
  LASTRUN=$(q 'SELECT max(id) FROM runs')
  # Intervals clear of the stop and the half second after it.
  CLEAR="run_id=$LASTRUN AND phase='steady' AND (start_ms + length_ms <= $STOP OR start_ms >= $CONT + 500)"
  LAG_CLEAR=$(q "SELECT max(lag_p99_us) FROM intervals WHERE $CLEAR")
  echo "# stop $STOP..$CONT; intervals: $(q "SELECT group_concat((start_ms - $STOP) || ':' || lag_p99_us || '/' || lag_max_us || '/' || p99_us || '/' || svc_p99_us || '/' || round(gen_cpu_pct) || '/' || round(gen_wait_pct), ' ') FROM intervals WHERE run_id=$LASTRUN AND phase='steady'")"
}
late_gen
LAG_STOP=$(q "SELECT max(lag_max_us) FROM intervals WHERE run_id=$LASTRUN")
check_eq "late generator: run exits 0" "$RC" 0
# not a speed: the lag away from the stop against the stop's own, in one run
check_range "late generator: start lag p99 clear of the stop, against the stop's lag" \
  "$(awk -v a="${LAG_CLEAR:-0}" -v b="$LAG_STOP" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 1) }')" 0 0.333
check_eq "late generator: every interval's p99 is its service p99 (no lateness in latency)" \
  "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND phase='steady' AND abs(p99_us - svc_p99_us) > 1000")" 0
check "late generator: the 300 ms stop shows as start lag ($LAG_STOP us)" test "$LAG_STOP" -ge 250000
check_eq "late generator: the run's p99 is its service p99" "$(jrun '.p99_ms == .service_p99_ms')" true
check "late generator: says the start lag is not latency" grep -q "never in the latency figures" "$T/late.err"
# not a speed: the two moments pick out the intervals that overlap the stop
check_range "late generator: the stop's intervals are marked late" \
  "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND phase='steady' AND gen_saturated & 4 AND start_ms < $CONT + 500 AND start_ms + length_ms > $STOP")" 1 2
soak report --db "$DB" --runs "$LASTRUN" --no-plots -o "$T/late-report" >/dev/null 2>&1
check "late generator: the report names it generator_late, and says latency holds none of it" \
  bash -c "jq -r '.validity[] | select(.code == \"generator_late\") | .message' '$T/late-report/report.json' | grep -q 'Latency never holds that lateness'"
check "late generator: not told to add threads while not busy" bash -c "! grep -q 'give it more threads' '$T/late.err'"

# --- 2. the arrival process as the server saw it -----------------------------------------
# arrivals A: a 5 s open run at 200/s with arrival process A; the server's arrival times go
# to $T/arrivals.A, and GAPS holds the 5th and 95th percentiles of their gaps after the
# first 200 ms (connections being opened).
arrivals() {
  start_regserver --latency 5 --quiet --arrivals "$T/arrivals.$1"
  # /health: no database write in regserver, whose stalls on the disk would show as jitter.
  run --url "$REG_URL/health" --rate 200/s --arrival "$1" -d 5s
  stop_pid "$REG_PID"
  first=$(sort -n "$T/arrivals.$1" | head -1)
  GAPS=$(gaps "$T/arrivals.$1" $((first + 200000)))
  c=$(cv "$T/arrivals.$1" $((first + 200000)))
}
# steady: whether 90 % of the gaps lie within 5 +- 1.5 ms (a Poisson stream's lie within 0.26-15 ms;
# this VM's constant ones, both processes waking late now and then, measured 3.8-6.2 ms on a
# quiet machine); prints them when they do not.
steady() { awk '{ if ($1 >= 3.5 && $2 <= 6.5) exit 0; print $1 " .. " $2 " ms"; exit 1 }' <<<"$GAPS"; }
for a in constant poisson; do
  arrivals $a
  # One stall of this shared VM (seen: 20 ms, and seconds in which either process wakes
  # 1-4 ms late) spoils a 5-second window at the server; a generator whose schedule is
  # wrong fails twice in a row.  So constant arrivals get a second run when the first's
  # gaps or CV are off, and the checks read the second.
  # The CV's bound is 0.3, not 0.1: one 20 ms stall gives 0.1 by itself, and a quiet run
  # of this VM once had gaps of 4.4-5.6 ms (90 %) with a CV of 0.113, then 3.7-6.1 ms with
  # 0.205; a Poisson stream's CV is 1.
  if [ $a = constant ] && ! { steady >/dev/null && awk -v c="$c" 'BEGIN { exit !(c <= 0.3) }'; }; then
    echo "# constant arrivals: gaps $GAPS ms, CV $c at the first try; once more"
    arrivals $a
  fi
  check_eq "$a arrivals: run exits 0" "$RC" 0
  n=$(wc -l <"$T/arrivals.$a")
  if [ $a = constant ]; then
    check_range "constant arrivals: the server got 5 s x 200/s" "$n" 960 1040
  else
    # A Poisson count over 5 s is itself random: 1000 +- 32 (one sigma); +-4 sigma here.
    check_range "poisson arrivals: the server got about 5 s x 200/s" "$n" 870 1130
  fi
  # Every interval, warm-up and the drain included: each request sent is counted once; the
  # one more is the HEAD that reads the target's Server: banner at the start (run_env).
  check_eq "$a arrivals: the server got every request soak counted, and the banner's HEAD" "$n" \
    "$(q "SELECT sum(requests) + 1 FROM intervals WHERE run_id=$LASTRUN")"
  if [ $a = constant ]; then
    # A CV is thrown by one stall of the VM (20 ms once in 5 s gives 0.1 by itself): the
    # bulk of the gaps is judged instead, and a Poisson stream fails this by far (its
    # 5th and 95th percentiles are 0.26 and 15 ms).
    check_eq "constant arrivals: 90 % of the gaps at the server within 5 +- 1.5 ms" "$(steady && echo yes)" yes
    check_range "constant arrivals: inter-arrival CV at the server" "$c" 0 0.3
  else
    check_range "poisson arrivals: inter-arrival CV at the server" "$c" 0.9 1.1
  fi
done
check_eq "the arrival process is recorded" "$(q "SELECT group_concat(arrival, ' ') FROM (SELECT arrival FROM runs WHERE model = 'open' GROUP BY arrival ORDER BY arrival)")" "constant poisson"

# --- 3. max_in_flight and max_lag: 400/s asked of a server that serves 200/s -------------
start_regserver --latency 20 --capacity 4 --quiet --arrivals "$T/arrivals.over"
run --url "$REG_URL/register" --rate 400/s --max-in-flight 20 --max-lag 1s -d 6s \
  -H "$FORM" --body "$BODY" --expect-status 201
stop_pid "$REG_PID"
check_eq "overload run exits 0" "$RC" 0
dropped=$(jrun .dropped)
check_range "overload: arrivals past max_lag dropped and counted" "$dropped" 600 1400
check_eq "overload: dropped is a client-side class" \
  "$(q "SELECT count(*) FROM interval_errors WHERE run_id=$LASTRUN AND class='dropped' AND sample LIKE '%generator''s limit%'")" \
  "$(q "SELECT count(*) FROM interval_errors WHERE run_id=$LASTRUN AND class='dropped'")"
check_range "overload: latency grows toward max_lag, not hidden (p99 ms)" "$(jrun .p99_ms)" 900 1400
check_range "overload: served at the server's 200/s" "$(jrun '(.requests - .dropped) / .window_s')" 170 215
# No second at the server above 1.1 x the target rate.
peak=$(awk '{ print int($1 / 1000000) }' "$T/arrivals.over" | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')
check_range "overload: no second at the server above 1.1 x 400/s" "$peak" 1 440

# --- 4. tcp-frame in the open model: what the monitor stored = what soak counted ---------
spawn "$T/mon.log" "$BIN/monitor" --port 0 --db "$T/mon.db" --tag soak-it-open
MON_PID=$SPAWNED_PID
line=$(wait_line "$T/mon.log" 'listening on 127\.0\.0\.1:[0-9]+' 10) || fail "monitor starts"
MON_ADDR=${line#listening on }
cat >"$T/frames.ini" <<EOF
[scenario]
label = frames-open
rate = 100/s
duration = 3s
interval = 1s
[request]
protocol = tcp-frame
address = $MON_ADDR
timeout = 2s
[handshake]
text = {"T":"Connect","S":1,"HOST_NAME":"agent-\${vu}","IP":["127.0.0.1"],"VERSON":"2.5","CLIENT_SESSION":""}
expect = "T":"ConnectAck"
[frame.one]
text = {"T":"MonitorItemData","S":39,"D":{"ThreadCount":214},"S":{"APP_NUM":"demo"},"TS":\${now_ms},"MID":\${seq}}
EOF
soak run -q --db "$DB" "$T/frames.ini" >"$T/out.txt" 2>"$T/err.txt"
check_eq "tcp-frame open run exits 0" "$?" 0
LASTRUN=$(q 'SELECT max(id) FROM runs')
stop_pid "$MON_PID"
iters=$(q "SELECT sum(requests) FROM intervals WHERE run_id=$LASTRUN")
check_range "tcp-frame open: 3 s x 100/s iterations" "$iters" 290 310
check_eq "tcp-frame open: the monitor stored every message soak counted" \
  "$(sql "$T/mon.db" 'SELECT count(*) FROM messages')" "$iters"

# --- 5. capacity search: a server that serves 400/s at most --------------------------------
start_regserver --latency 20 --capacity 8 --quiet
soak run --db "$DB" --url "$REG_URL/register" --rate 100/s -d 2500ms --warmup 500ms --interval 400ms \
  -H "$FORM" --body "$BODY" --expect-status 201 \
  --find-max-rate --slo 'p99<100ms,errors<1%' --from 300/s --to 460/s >"$T/search.out" 2>"$T/search.err"
check_eq "capacity search exits 0" "$?" 0
LASTRUN=$(q 'SELECT max(id) FROM runs')
stop_pid "$REG_PID"
best=$(sed -n 's/^highest rate meeting p99<100ms,errors<1%: \([0-9.]*\)\/s.*/\1/p' "$T/search.out")
check_range "capacity search: highest rate for p99<100ms is below the server's 400/s" "${best:-0}" 300 400
check "capacity search: recorded as an event" test -n "$(q "SELECT detail FROM events WHERE run_id=$LASTRUN AND kind='max_rate' AND detail LIKE 'highest rate meeting p99<100ms%'")"
check_eq "capacity search: every step is a sweep step" "$(q "SELECT mode FROM runs WHERE id=$LASTRUN") $(q "SELECT count(*) >= 5 FROM steps WHERE run_id=$LASTRUN AND rate > 0")" "sweep 1"
check "capacity search: it bisected (a step between two tried rates)" \
  test "$(q "SELECT count(*) FROM steps WHERE run_id=$LASTRUN AND rate * 1000 % 20000 != 0")" -ge 1

# --- 6. bad usage -------------------------------------------------------------------------
soak run --db "$DB" --url "$REG_URL/register" -c 3 --rate 10/s -d 1s >/dev/null 2>"$T/bad.err"
check_eq "rate and concurrency: exit 2" "$?" 2
check "rate and concurrency: says so" grep -q "give rate (the open model) or concurrency" "$T/bad.err"
soak run --db "$DB" --url "$REG_URL/register" -c 3 -d 1s --find-max-rate --slo 'p99<1s' >/dev/null 2>"$T/bad.err"
check_eq "search on the closed model: exit 2" "$?" 2
check "search on the closed model: says so" grep -q "needs the open model" "$T/bad.err"
soak run --db "$DB" --url "$REG_URL/register" --rate 3/s -d 1s --find-max-rate --slo 'p98<1s' >/dev/null 2>"$T/bad.err"
check_eq "bad slo: exit 2" "$?" 2
check "bad slo: names the term" grep -q "'p98<1s': expected p50" "$T/bad.err"

done_testing
