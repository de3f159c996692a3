#!/usr/bin/env bash
# Faults on the target's side and on the runner's, and what a run must do with them: a
# target that stalls, answers garbage or resets connections (each error in its class, the
# run carrying on and recovering), a target killed outright with keep-alive connections
# open and back 10 s later, a second SIGINT that drops requests stuck on a stalled target,
# collectors that never outlive the runner, a collector killed mid-run.
# (test_run.sh covers a 5 s gap after SIGTERM, one signal of each kind and crashed runs.)
. "$(dirname "$0")/lib.sh"

DB=$T/faults.db
q() { sql "$DB" "$@"; }
last_run() { q 'SELECT max(id) FROM runs'; }
ms() { date +%s%3N; }
# at T0 SECONDS: sleeps until SECONDS (fractions allowed) after T0 (epoch ms).
at() { sleep "$(awk -v t0="$1" -v s="$2" -v now="$(ms)" 'BEGIN { d = t0 + s * 1000 - now; printf "%.3f", (d > 0 ? d / 1000 : 0) }')"; }
# finished NAME INTERVALS: waits for $runner; checks it exited 0, closed its run as done
# with INTERVALS steady intervals; sets R to the run's id.
finished() {
  wait "$runner"
  check_eq "$1: run exits 0" "$?" 0
  R=$(last_run)
  check_eq "$1: run is done" "$(q "SELECT status FROM runs WHERE id=$R")" done
  check_eq "$1: every interval recorded" \
    "$(q "SELECT count(*) FROM intervals WHERE run_id=$R AND phase='steady'")" "$2"
}
# collectors DB RUN [PROGRAM SOURCE]: pids of the collectors a run into DB started (other
# tests' runs may have the same id in other files), or of one of them.
collectors() {
  pgrep -af -- "${3:-soak-(procstat|gclog)} " | grep -F -- " --db $1 --source ${4:-}" |
    grep -E -- "--run $2( |\$)" | cut -d ' ' -f 1
}
no_collectors() { [ -z "$(collectors "$1" "$2")" ]; }

# A target that misbehaves on demand (tests/it/test_faults_target.py): ok, stall, garbage,
# reset.  start_faultsrv: starts one on $T/mode; sets FSRV and FURL.
start_faultsrv() {
  local line
  echo ok >"$T/mode"
  spawn "$T/faultsrv.log" python3 "$TOP/tests/it/test_faults_target.py" "$T/mode"
  FSRV=$SPAWNED_PID
  line=$(wait_line "$T/faultsrv.log" 'listening on 127\.0\.0\.1:[0-9]+' 20) || fail "fault server starts" "$(cat "$T/faultsrv.log")"
  FURL=http://127.0.0.1:${line##*:}/x
}

# Sections 1-3 run once per HTTP client (libcurl and the lean driver), both at once, each
# on its own fault server, database and files (per_client): the same faults must give the
# same classes, back-offs and recovery from both.
client_faults() {
  local CLIENT=$1 DB=$T/faults-$1.db T=$T/$1 FSRV FURL
  mkdir -p "$T"
  start_faultsrv
  # --- 1. stall, garbage, reset: classed, and the run recovers after each ------------------
  # 18 one-second intervals: ok 0-2 s, stall 2-5, ok 5-8, garbage 8-10, ok 10-13, reset 13-15,
  # ok 15-18; requests time out after 1 s.  (The runner's intervals start a little after the
  # schedule's t0: the checks look at whole intervals well inside a phase.)
  soak run -q --db "$DB" --client "$CLIENT" --interval 1s --url "$FURL" -c 4 -d 18s --timeout 1s \
    >"$T/out1.txt" 2>"$T/err1.txt" &
  runner=$!
  t0=$(ms)
  for step in 2:stall 5:ok 8:garbage 10:ok 13:reset 15:ok; do
    at "$t0" "${step%%:*}"
    echo "${step#*:}" >"$T/mode"
  done
  finished "[$CLIENT] misbehaving target" 18
  cls() { q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$R AND class='$1'"; }
  # Four VUs, 3 s of stall, a 1 s timeout: a round of 4 timeouts a second, and a fourth
  # round when the last requests arrive just before the switch back (a late switch: a fifth).
  check_range "[$CLIENT] stall: timeout errors" "$(cls timeout)" 4 20
  check "[$CLIENT] garbage: protocol errors" test "$(cls protocol)" -ge 4
  check "[$CLIENT] reset: reset errors" test "$(cls reset)" -ge 4
  check_eq "[$CLIENT] no other error class" \
    "$(q "SELECT group_concat(class) FROM (SELECT DISTINCT class FROM interval_errors WHERE run_id=$R ORDER BY class)")" \
    "protocol,reset,timeout"
  first() { q "SELECT min(start_ms) FROM interval_errors WHERE run_id=$R AND class='$1'"; }
  check "[$CLIENT] errors come in the order of the faults (timeout, protocol, reset)" \
    test "$(first timeout)" -lt "$(first protocol)" -a "$(first protocol)" -lt "$(first reset)"
  sample() { q "SELECT sample FROM interval_errors WHERE run_id=$R AND class='$1' LIMIT 1"; }
  # libcurl counts the milliseconds it really waited: 1000, or a few more on a busy machine.
  check "[$CLIENT] timeout sample says so" grep -qE "timed out after 1[0-9]{3} milliseconds" <<<"$(sample timeout)"
  # libcurl: "Received HTTP/0.9 when not allowed"; the lean driver names http-parser's finding.
  check "[$CLIENT] protocol sample says so" grep -qE "HTTP/0.9|not an HTTP/1.x answer" <<<"$(sample protocol)"
  check "[$CLIENT] reset sample says so" grep -qi "reset" <<<"$(sample reset)"
  # Recovery: an ok interval after each fault has no errors and real throughput.
  for s in 6 11 16; do
    row=$(q "SELECT errors || ' ' || requests FROM intervals WHERE run_id=$R AND phase='steady' ORDER BY start_ms LIMIT 1 OFFSET $s")
    check_eq "[$CLIENT] recovered at +${s}s: no errors" "${row% *}" 0
    check "[$CLIENT] recovered at +${s}s: over 500 requests/s (${row#* })" test "${row#* }" -gt 500
  done

  # --- 1b. an answer in pieces: chunked, 20 ms between writes, its body checked whole ------
  echo slow >"$T/mode"
  cat >"$T/slow.ini" <<EOF
[scenario]
duration = 2s
interval = 1s
concurrency = 2
[request.good]
url = $FURL
expect_body = ^hello world\$
[request.bad]
url = $FURL
expect_body = ^goodbye
EOF
  soak run -q --db "$DB" --client "$CLIENT" "$T/slow.ini" >"$T/out1b.txt" 2>"$T/err1b.txt"
  check_eq "[$CLIENT] answers in pieces: exit 0" "$?" 0
  R=$(last_run)
  n=$(q "SELECT sum(requests) FROM intervals WHERE run_id=$R")
  bad=$(q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$R AND class='body_mismatch'")
  check_eq "[$CLIENT] answers in pieces: every error is the bad pattern's body_mismatch" \
    "$(q "SELECT sum(errors) FROM intervals WHERE run_id=$R")" "$bad"
  check_range "[$CLIENT] answers in pieces: about half mismatch (the bad kind's weight)" \
    "$(awk -v b="$bad" -v n="$n" 'BEGIN { printf "%d", 100 * b / n }')" 20 80
  check "[$CLIENT] answers in pieces: the sample shows the de-chunked body" \
    grep -q "/^goodbye/: hello world" <<<"$(q "SELECT sample FROM interval_errors WHERE run_id=$R AND class='body_mismatch' LIMIT 1")"
  # 47 header bytes (status line, Transfer-Encoding, blank line) and 11 body bytes each.
  check_eq "[$CLIENT] answers in pieces: bytes counted as libcurl does (58 each)" \
    "$(q "SELECT sum(bytes) FROM intervals WHERE run_id=$R")" $((58 * n))
  echo ok >"$T/mode"

  # --- 2. the target killed (SIGKILL, keep-alive connections open), back 10 s later --------
  port=$(free_port)
  spawn "$T/reg-a.log" regserver --port "$port" --latency 5 --quiet
  reg_a=$SPAWNED_PID
  wait_line "$T/reg-a.log" listening 10 >/dev/null || fail "[$CLIENT] regserver starts" "$(cat "$T/reg-a.log")"
  soak run -q --db "$DB" --client "$CLIENT" --interval 1s --url "http://127.0.0.1:$port/health" -c 10 -d 18s \
    >"$T/out2.txt" 2>"$T/err2.txt" &
  runner=$!
  t0=$(ms)
  at "$t0" 3
  kill -KILL "$reg_a"
  wait "$reg_a" 2>/dev/null
  at "$t0" 5
  cpu0=$(awk '{ print $14 + $15 }' "/proc/$runner/stat")
  at "$t0" 12
  cpu1=$(awk '{ print $14 + $15 }' "/proc/$runner/stat")
  at "$t0" 13
  spawn "$T/reg-b.log" regserver --port "$port" --latency 5 --quiet
  reg_b=$SPAWNED_PID
  wait_line "$T/reg-b.log" listening 10 >/dev/null || fail "[$CLIENT] regserver restarts" "$(cat "$T/reg-b.log")"
  finished "[$CLIENT] target killed for 10 s" 18
  refused=$(q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$R AND class='connect_refused'")
  # Each VU backs off 50 ms after a refused connect: at most 10 x 20 per second, 10 s.
  check_range "[$CLIENT] target killed: refused connects, backed off (not spun on)" "$refused" 100 2500
  check_range "[$CLIENT] target killed: runner CPU while the target is down (% of a core)" \
    "$(( (cpu1 - cpu0) * 100 / $(getconf CLK_TCK) / 7 ))" 0 25
  check_eq "[$CLIENT] target killed: only connect_refused and reset" \
    "$(q "SELECT group_concat(class) FROM (SELECT DISTINCT class FROM interval_errors WHERE run_id=$R AND class NOT IN ('connect_refused','reset'))")" ""
  before=$(q "SELECT avg(requests) FROM (SELECT requests FROM intervals WHERE run_id=$R AND phase='steady' ORDER BY start_ms LIMIT 2 OFFSET 1)")
  after=$(q "SELECT min(requests) FROM (SELECT requests FROM intervals WHERE run_id=$R AND phase='steady' ORDER BY start_ms DESC LIMIT 3)")
  check_range "[$CLIENT] target back: TPS of the last 3 s against the first (%)" "$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", 100 * a / b }')" 60 130
  # Keep-alive holds again: one new connection per VU, not one per request.
  check_range "[$CLIENT] target back: new connections in the last 3 s" \
    "$(q "SELECT sum(new_conns) FROM (SELECT new_conns FROM intervals WHERE run_id=$R AND phase='steady' ORDER BY start_ms DESC LIMIT 3)")" 0 10
  stop_pid "$reg_b"

  # --- 3. a second SIGINT drops the requests stuck on a stalled target ----------------------
  echo stall >"$T/mode"
  : >"$T/gc.log"
  cat >"$T/stall.ini" <<EOF
[scenario]
duration = 60s
interval = 1s
concurrency = 4
[request]
url = $FURL
timeout = 30s
[collect.app]
pid = $FSRV
gc_log = $T/gc.log
every = 500ms
[collect.host]
host = yes
every = 500ms
EOF
  soak run -q --db "$DB" --client "$CLIENT" "$T/stall.ini" >"$T/out3.txt" 2>"$T/err3.txt" &
  runner=$!
  t0=$(ms)
  at "$t0" 2.5
  kill -INT "$runner"
  at "$t0" 3.5
  check "[$CLIENT] one SIGINT waits for the requests in flight (up to their 30 s timeout)" alive "$runner"
  R=$(last_run)
  check_eq "[$CLIENT] three collectors running (procstat app, gclog app, procstat host)" "$(collectors "$DB" "$R" | wc -l)" 3
  kill -INT "$runner"
  wait "$runner"
  rc=$?
  check_eq "[$CLIENT] second SIGINT: exit 130" "$rc" 130
  check_eq "[$CLIENT] second SIGINT: run is interrupted" "$(q "SELECT status || ' ' || reason FROM runs WHERE id=$R")" "interrupted SIGINT"
  check "[$CLIENT] second SIGINT: intervals kept" test "$(q "SELECT count(*) FROM intervals WHERE run_id=$R")" -ge 3
  # The 4 stalled requests were sent: they are recorded as failed, not forgotten.  Dropped,
  # not timed out: the second SIGINT did not wait for their 30 s.
  check_eq "[$CLIENT] second SIGINT: the dropped requests are counted as errors" \
    "$(q "SELECT IFNULL(sum(count), 0) FROM interval_errors WHERE run_id=$R AND class='other' AND sample LIKE 'dropped in flight%'")" 4
  check_eq "[$CLIENT] second SIGINT: no collector left" "$(collectors "$DB" "$R")" ""
  echo ok >"$T/mode"
}
per_client client_faults

# --- 4. no collector outlives a runner stopped by SIGTERM or killed -------------------------
start_regserver --latency 5 --quiet
# The stall scenario of section 3 (the curl pass's), on this target.
sed -e "s|^url = .*|url = $REG_URL/health|" -e "s|^pid = .*|pid = $REG_PID|" "$T/curl/stall.ini" >"$T/long.ini"
for sig in TERM KILL; do
  soak run -q --db "$DB" "$T/long.ini" >"$T/out4.txt" 2>"$T/err4.txt" &
  runner=$!
  sleep 2.5
  R=$(last_run)
  check_eq "SIG$sig: three collectors running" "$(collectors "$DB" "$R" | wc -l)" 3
  kill -"$sig" "$runner"
  wait "$runner" 2>/dev/null
  rc=$?
  if [ "$sig" = TERM ]; then
    check_eq "SIGTERM: exit 143" "$rc" 143
    check_eq "SIGTERM: no collector left at exit" "$(collectors "$DB" "$R")" ""
  elif wait_for 5 no_collectors "$DB" "$R"; then
    ok "SIGKILL: every collector (procstat and gclog) gone within 5 s"
  else
    fail "SIGKILL: every collector (procstat and gclog) gone within 5 s" "$(collectors "$DB" "$R" | tr '\n' ' ')"
    for p in $(collectors "$DB" "$R"); do kill "$p"; done
  fi
done

# --- 5. a collector killed mid-run: the run carries on, the loss is an event -------------
sed -e 's/^duration = .*/duration = 6s/' "$T/long.ini" >"$T/lost.ini"
soak run -q --db "$DB" "$T/lost.ini" >"$T/out5.txt" 2>"$T/err5.txt" &
runner=$!
sleep 2
R=$(last_run)
victim=$(collectors "$DB" "$R" soak-procstat "app ")
kill -KILL $victim
t_kill=$(ms)
finished "collector killed" 6
check_eq "collector killed: one collector_lost event" \
  "$(q "SELECT source || ': ' || detail FROM events WHERE run_id=$R AND kind='collector_lost'")" \
  "app: soak-procstat for 'app' (pid $victim) was killed by signal 9; its samples stop here"
check "collector killed: the runner said so" grep -q "soak-procstat for 'app' (pid $victim) was killed by signal 9" "$T/err5.txt"
check_order "collector killed: it sampled, and nothing after the kill" \
  "$(q "SELECT min(t_ms) FROM samples WHERE run_id=$R AND source='app' AND metric='rss_kb'")" \
  "$(q "SELECT max(t_ms) FROM samples WHERE run_id=$R AND source='app' AND metric='rss_kb'")" "$t_kill"
# The others go on: the host is sampled in the run's last steady interval.
check_order "collector killed: the others sample to the end" \
  "$(q "SELECT max(start_ms) FROM intervals WHERE run_id=$R AND phase='steady'")" \
  "$(q "SELECT max(t_ms) FROM samples WHERE run_id=$R AND source='host'")"
check "collector killed: requests all along" test "$(q "SELECT min(requests) FROM intervals WHERE run_id=$R AND phase='steady'")" -gt 100

done_testing
