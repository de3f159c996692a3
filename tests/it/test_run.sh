#!/usr/bin/env bash
# soak run against bin/regserver on 127.0.0.1: figures, connection modes, error classes, a
# target that goes away and comes back, sweeps, signals, crashes, thresholds, queues,
# unique registrations, collectors.  Every run is a few seconds; every wait is bounded.
. "$(dirname "$0")/lib.sh"

DB=$T/run.db
FORM='Content-Type: application/x-www-form-urlencoded'
BODY='username=u${nonce}_${seq}&email=${seq}@example.test&password=secret123'

# run_quick ARGS...: a quick-mode run into $DB; sets RC and LASTRUN (the new run's id).
run_quick() {
  soak run -q --db "$DB" --interval 2s "$@" >"$T/out.txt" 2>"$T/err.txt"
  RC=$?
  LASTRUN=$(sql "$DB" 'SELECT max(id) FROM runs')
}
q() { sql "$DB" "$@"; }

# Sections 1-4 run once per HTTP client, both at once (per_client): the same figures,
# classes and connection counts from libcurl and from the lean driver (a case that passes
# for one only is a bug in one).
client_cases() {
  # Each client's own database and files (run_quick and the logs use $T).
  local CLIENT=$1 DB=$T/run-$1.db T=$T/$1
  mkdir -p "$T"
  # --- 1. fixed latency: figures, every interval, steps = merge of intervals --------------
  start_regserver --latency 20 --quiet
  run_quick --client "$CLIENT" --url "$REG_URL/register" -c 20 -d 8s -H "$FORM" --body "$BODY" --expect-status 201
  check_eq "[$CLIENT] latency run exits 0" "$RC" 0
  check_eq "[$CLIENT] latency run is done" "$(q "SELECT status FROM runs WHERE id=$LASTRUN")" done
  check_eq "[$CLIENT] 4 steady intervals of 2 s" "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND phase='steady' AND length_ms BETWEEN 1900 AND 2100")" 4
  p50=$(q "SELECT p50_us/1000.0 FROM steps WHERE run_id=$LASTRUN")
  check_range "[$CLIENT] p50 ms within 20..22" "$p50" 20 22
  tps=$(q "SELECT tps FROM steps WHERE run_id=$LASTRUN")
  check_range "[$CLIENT] TPS within 10% of 20/0.020 = 1000" "$tps" 880 1010
  check_eq "[$CLIENT] no errors" "$(q "SELECT errors FROM steps WHERE run_id=$LASTRUN")" 0
  check_eq "[$CLIENT] step requests = sum of its intervals" \
    "$(q "SELECT requests FROM steps WHERE run_id=$LASTRUN")" \
    "$(q "SELECT sum(requests) FROM intervals WHERE run_id=$LASTRUN AND phase='steady'")"
  # soak runs rebuilds the step by merging the interval histograms: it must agree with the
  # step row the runner wrote from its own merge.
  json=$(soak runs --db "$DB" --json)
  check_eq "[$CLIENT] merged p99 = step p99" \
    "$(jq -r ".[] | select(.id==$LASTRUN) | .steps[0].p99_ms * 1000 | round" <<<"$json")" \
    "$(q "SELECT p99_us FROM steps WHERE run_id=$LASTRUN")"
  check_eq "[$CLIENT] merged max = step max" \
    "$(jq -r ".[] | select(.id==$LASTRUN) | .steps[0].max_ms * 1000 | round" <<<"$json")" \
    "$(q "SELECT max_us FROM steps WHERE run_id=$LASTRUN")"
  check_eq "[$CLIENT] runs --json has the run's fields" \
    "$(jq -r ".[] | select(.id==$LASTRUN) | [.label,.mode,.status,(.steps|length),.steps[0].concurrency] | join(\",\")" <<<"$json")" \
    "quick,fixed,done,1,20"
  conns=$(q "SELECT new_conns FROM steps WHERE run_id=$LASTRUN")
  check_range "[$CLIENT] keepalive: new connections about the concurrency" "$conns" 20 24

  # --- 2. connection per request ----------------------------------------------------------
  run_quick --client "$CLIENT" --url "$REG_URL/health" -c 10 -d 4s --connection close
  check_eq "[$CLIENT] close run exits 0" "$RC" 0
  check_eq "[$CLIENT] close: new connections = requests" \
    "$(q "SELECT new_conns FROM steps WHERE run_id=$LASTRUN")" \
    "$(q "SELECT requests FROM steps WHERE run_id=$LASTRUN")"
  check "[$CLIENT] close: requests were made" test "$(q "SELECT requests FROM steps WHERE run_id=$LASTRUN")" -gt 100
  stop_pid "$REG_PID"

  # --- 3. server errors are classed and counted -------------------------------------------
  start_regserver --error-rate 0.1 --latency 5 --quiet
  run_quick --client "$CLIENT" --url "$REG_URL/health" -c 10 -d 4s
  pct=$(q "SELECT 100.0*sum(count)/(SELECT sum(requests) FROM intervals WHERE run_id=$LASTRUN) FROM interval_errors WHERE run_id=$LASTRUN AND class='http_5xx'")
  check_range "[$CLIENT] error-rate 0.1: http_5xx about 10%" "$pct" 7 13
  check_eq "[$CLIENT] only http_5xx" "$(q "SELECT group_concat(DISTINCT class) FROM interval_errors WHERE run_id=$LASTRUN")" http_5xx
  check "[$CLIENT] a sample message is kept" grep -q "HTTP 503" <<<"$(q "SELECT sample FROM interval_errors WHERE run_id=$LASTRUN LIMIT 1")"
  stop_pid "$REG_PID"

  # --- 4. the target stops mid-run and comes back on the same port ------------------------
  port=$(free_port)
  spawn "$T/reg-a.log" regserver --port "$port" --latency 10 --quiet
  pid_a=$SPAWNED_PID
  wait_line "$T/reg-a.log" listening 10 >/dev/null
  soak run -q --db "$DB" --client "$CLIENT" --interval 2s --url "http://127.0.0.1:$port/health" -c 10 -d 16s >"$T/out.txt" 2>"$T/err.txt" &
  runner=$!
  sleep 4
  stop_pid "$pid_a"
  sleep 5
  spawn "$T/reg-b.log" regserver --port "$port" --latency 10 --quiet
  wait_line "$T/reg-b.log" listening 10 >/dev/null || fail "[$CLIENT] restart regserver" "$(cat "$T/reg-b.log")"
  wait "$runner"
  RC=$?
  LASTRUN=$(q 'SELECT max(id) FROM runs')
  check_eq "[$CLIENT] target gap: run exits 0" "$RC" 0
  check_eq "[$CLIENT] target gap: run is done" "$(q "SELECT status FROM runs WHERE id=$LASTRUN")" done
  check "[$CLIENT] target gap: connect_refused counted" test "$(q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$LASTRUN AND class='connect_refused'")" -gt 0
  # The last two intervals are well after the restart: TPS back near 10/0.010 = 1000.
  last_tps=$(q "SELECT min(requests*1000.0/length_ms) FROM (SELECT * FROM intervals WHERE run_id=$LASTRUN AND phase='steady' ORDER BY start_ms DESC LIMIT 2)")
  check_range "[$CLIENT] target gap: TPS back after the restart" "$last_tps" 700 1100
  check_eq "[$CLIENT] target gap: no interval missing" "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND phase='steady'")" 8
  stop_pid "$SPAWNED_PID"
  check_eq "[$CLIENT] the run records its client" "$(q "SELECT client FROM runs WHERE id=$LASTRUN")" "$CLIENT"
}
per_client client_cases

# --- 5. a sweep: three steps with their own figures -------------------------------------
start_regserver --latency 20 --quiet
cat >"$T/sweep.ini" <<EOF
[scenario]
label = sweep
interval = 2s
[sweep]
concurrency = 10..30 step 10
step_duration = 4s
[request]
url = $REG_URL/health
EOF
soak run -q --db "$DB" "$T/sweep.ini" >"$T/out.txt" 2>"$T/err.txt"
check_eq "sweep exits 0" "$?" 0
LASTRUN=$(q 'SELECT max(id) FROM runs')
check_eq "sweep mode" "$(q "SELECT mode FROM runs WHERE id=$LASTRUN")" sweep
check_eq "client = auto takes the lean driver for plain http://" "$(q "SELECT client FROM runs WHERE id=$LASTRUN")" lean
check_eq "three steps 10,20,30" "$(q "SELECT group_concat(concurrency) FROM (SELECT concurrency FROM steps WHERE run_id=$LASTRUN ORDER BY idx)")" "10,20,30"
for k in 0 1 2; do
  want=$(( (k + 1) * 500 ))
  check_range "sweep step $((k + 1)) TPS near $want" "$(q "SELECT tps FROM steps WHERE run_id=$LASTRUN AND idx=$k")" $((want * 85 / 100)) $((want * 103 / 100))
done
check "sweep summary printed per step" grep -qE '^3 +30 ' "$T/out.txt"

# --- 6. thresholds ------------------------------------------------------------------------
cat >"$T/thr.ini" <<EOF
[scenario]
duration = 3s
interval = 1s
concurrency = 5
[request]
url = $REG_URL/health
[thresholds]
p99 = 5ms
tps_min = 10
EOF
soak run -q --db "$DB" "$T/thr.ini" >"$T/out.txt" 2>"$T/err.txt"
check_eq "a failed threshold exits 1" "$?" 1
check "the breach is printed" grep -q 'threshold failed: step 1 (5 VUs): p99 .* is above 5.0ms' "$T/err.txt"
LASTRUN=$(q 'SELECT max(id) FROM runs')
check_eq "the breach is an event" "$(q "SELECT count(*) FROM events WHERE run_id=$LASTRUN AND kind='threshold'")" 1
check_eq "a passed threshold is not" "$(q "SELECT count(*) FROM events WHERE run_id=$LASTRUN AND detail LIKE '%requests/s%'")" 0

# --- 7. SIGTERM, SIGINT, SIGKILL --------------------------------------------------------
cat >"$T/long.ini" <<EOF
[scenario]
label = long
duration = 60s
interval = 1s
concurrency = 10
[request]
url = $REG_URL/health
[collect.app]
pid = $REG_PID
every = 500ms
EOF
for sig in TERM INT; do
  soak run -q --db "$DB" "$T/long.ini" >"$T/out.txt" 2>"$T/err.txt" &
  runner=$!
  sleep 3.5
  kill -"$sig" "$runner"
  wait "$runner"
  RC=$?
  LASTRUN=$(q 'SELECT max(id) FROM runs')
  want=143; [ "$sig" = INT ] && want=130
  check_eq "SIG$sig exits $want" "$RC" "$want"
  check_eq "SIG$sig: run is interrupted" "$(q "SELECT status||' '||reason FROM runs WHERE id=$LASTRUN")" "interrupted SIG$sig"
  check "SIG$sig: intervals kept" test "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN")" -ge 3
  check "SIG$sig: partial interval written" test "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND length_ms < 1000")" -ge 1
  check "SIG$sig: step window recorded" test "$(q "SELECT requests FROM steps WHERE run_id=$LASTRUN")" -gt 0
  check "SIG$sig: collector samples of the app" test "$(q "SELECT count(*) FROM samples WHERE run_id=$LASTRUN AND source='app' AND metric='cpu_pct'")" -ge 2
done
soak run -q --db "$DB" "$T/long.ini" >"$T/out.txt" 2>"$T/err.txt" &
runner=$!
sleep 3.5
LASTRUN=$(q 'SELECT max(id) FROM runs')
kill -KILL "$runner"
wait "$runner" 2>/dev/null
check_eq "SIGKILL: soak runs says crashed" "$(soak runs --db "$DB" --json | jq -r ".[] | select(.id==$LASTRUN) | .status")" crashed
check_eq "SIGKILL: database intact" "$(q 'PRAGMA integrity_check')" ok
check "SIGKILL: intervals before the kill kept" test "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN")" -ge 2
# Collectors of this run: its database and its run id in their command line.
pat="soak-procstat --db $DB .*--run $LASTRUN( |\$)"
if wait_for 5 bash -c "! pgrep -f -- '$pat' >/dev/null"; then
  ok "SIGKILL: no collector outlives the runner"
else
  fail "SIGKILL: no collector outlives the runner" "$(pgrep -af soak-procstat)"
  pkill -f -- "$pat"
fi

# --- 8. a queue of scenarios, and bad ones -----------------------------------------------
cat >"$T/q1.ini" <<EOF
[scenario]
label = first
duration = 2s
interval = 1s
concurrency = 2
[request]
url = $REG_URL/health
EOF
sed 's/label = first/label = second/' "$T/q1.ini" >"$T/q2.ini"
before=$(q 'SELECT count(*) FROM runs')
soak run -q --db "$DB" "$T/q1.ini" "$T/q2.ini" >"$T/out.txt" 2>"$T/err.txt"
check_eq "queue exits 0" "$?" 0
check_eq "queue: two runs in order" "$(q "SELECT group_concat(label) FROM (SELECT label FROM runs WHERE id > (SELECT max(id) - 2 FROM runs) ORDER BY id)")" "first,second"
printf '[scenario]\nduration = 2s\nconcurency = 3\n[request]\nurl = %s/health\n' "$REG_URL" >"$T/bad.ini"
before=$(q 'SELECT count(*) FROM runs')
soak run -q --db "$DB" "$T/q1.ini" "$T/bad.ini" >"$T/out.txt" 2>"$T/err.txt"
check_eq "a bad file in a queue: exit 2" "$?" 2
check_eq "a bad file in a queue: FILE:LINE" "$(cat "$T/err.txt")" "soak run: $T/bad.ini:3: unknown key 'concurency' in [scenario]"
check_eq "a bad file in a queue: nothing run" "$(q 'SELECT count(*) FROM runs')" "$before"
soak check "$T/bad.ini" >/dev/null 2>"$T/err.txt"
check_eq "soak check: exit 2" "$?" 2
check "soak check: the plan of a good file" bash -c "soak check '$T/sweep.ini' | grep -q 'step 3: 30 VUs for 4s'"
soak run -q --db "$DB" --url http://127.0.0.1:1/ -c 1 -d 2s >"$T/out.txt" 2>"$T/err.txt"
check_eq "unreachable target: exit 3" "$?" 3
check "unreachable target: said so" grep -q "cannot reach the target 127.0.0.1:1" "$T/err.txt"
stop_pid "$REG_PID"

# --- 9. registrations: every username unique --------------------------------------------
spawn "$T/reg-u.log" regserver --port 0 --db "$T/users.db"
reg_u=$SPAWNED_PID
line=$(wait_line "$T/reg-u.log" 'listening on' 10)
url="http://127.0.0.1:${line##*:}/register"
run_quick --url "$url" -c 50 -d 6s -H "$FORM" --body "$BODY" --expect-status 201
check_eq "registration run exits 0" "$RC" 0
n201=$(q "SELECT sum(requests) - sum(errors) FROM intervals WHERE run_id=$LASTRUN")
check "registration run made over 10,000 requests" test "$(q "SELECT sum(requests) FROM intervals WHERE run_id=$LASTRUN")" -gt 10000
check_eq "no 409: every username unique" "$(q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$LASTRUN AND class='http_4xx'")" 0
stop_pid "$reg_u"
check_eq "the server stored every 201" "$(sql "$T/users.db" 'SELECT count(DISTINCT username) FROM users')" "$n201"

# --- 10. --save-scenario: the quick options as a file that sends the same requests --------
# A server that logs what it receives; one user with a think time, so both runs send the
# same sequence (${seq} 1, 2, 3...), through the lean driver and through libcurl.
spawn "$T/log-srv.log" python3 "$TOP/tests/it/secret_server.py" --port 0 --log "$T/seen.log" \
  --db-password unused
log_srv=$SPAWNED_PID
line=$(wait_line "$T/log-srv.log" 'listening on' 10)
lurl="http://127.0.0.1:${line##*:}"
for client in lean curl; do
  : >"$T/seen.log"
  soak run -q --db "$T/save.db" --url "$lurl/things?x=1" --method PUT -c 1 -d 1500ms --think 50ms \
    --interval 500ms --timeout 5s -H "$FORM" -H 'X-Case: save' --body 'n=${seq}&v=${vu}:${iter}' \
    --expect-status 201 --client "$client" --threads 1 --label saved --set scenario.warmup=0 \
    --set 'request.header=X-From-Set: 1' --set 'thresholds.p99=2s' \
    --save-scenario "$T/saved-$client.ini" >"$T/out.txt" 2>"$T/err.txt"
  check_eq "[$client] --save-scenario: the quick run exits 0" "$?" 0
  cp "$T/seen.log" "$T/seen-quick.log"
  : >"$T/seen.log"
  soak run -q --db "$T/save.db" "$T/saved-$client.ini" >"$T/out.txt" 2>"$T/err.txt"
  check_eq "[$client] the saved scenario runs: exit 0" "$?" 0
  cp "$T/seen.log" "$T/seen-file.log"
  # The same requests, byte for byte, as far as the shorter run went (the same think time
  # gives about 30 each; the last ones differ only in how many fit).  The HEAD a run
  # starts with (the Server banner) races the first request: left out.
  check "[$client] the saved file sends the same requests" python3 - "$T/seen-quick.log" "$T/seen-file.log" <<'PY'
import sys
a, b = ([e for e in open(p, "rb").read().split(b"\n----\n")[:-1] if not e.startswith(b"HEAD ")]
        for p in sys.argv[1:3])
n = min(len(a), len(b))
sys.exit(0 if n >= 10 and a[:n] == b[:n] and b"X-From-Set: 1" in a[0] and a[2].endswith(b"\n\nn=3&v=1:3") else 1)
PY
  check_eq "[$client] ... and the run is labelled alike" \
    "$(sql "$T/save.db" "SELECT group_concat(label || '/' || client, ' ') FROM (SELECT label, client FROM runs ORDER BY id DESC LIMIT 2)")" \
    "saved/$client saved/$client"
  check "[$client] ... its thresholds kept" grep -qx 'p99 = 2s' "$T/saved-$client.ini"
done
stop_pid "$log_srv"
soak run -q --db "$T/save.db" --url "$lurl/" -d 1s --save-scenario "$T/saved-lean.ini" >/dev/null 2>"$T/err.txt"
check_eq "--save-scenario does not overwrite a file: exit 2" "$?" 2
check "... and says so" grep -q "exists (not overwritten)" "$T/err.txt"
soak run -q --db "$T/save.db" --save-scenario "$T/x.ini" "$T/saved-lean.ini" >/dev/null 2>"$T/err.txt"
check_eq "--save-scenario without --url: exit 2" "$?" 2

done_testing
