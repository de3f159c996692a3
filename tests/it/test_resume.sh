#!/usr/bin/env bash
# soak run --resume: a sweep (2 then 4 users, 6 s each) against regserver is killed with
# SIGKILL in its first step, left dead for a few seconds, then resumed under the same id.
# The resumed run must: run what was left (the rest of step 1, all of step 2: the gap
# moves the end, it does not shorten the run), leave no interval in the gap, record the
# gap (gaps row, `gap` event) and count it out of every figure (TPS over the measured time
# only, as before the kill), lose only the interval the kill cut (checked against the
# server's own count), show as resumed in `soak runs` and the report.  Resuming a run
# still alive, already done, imported, or with another scenario text is refused.
. "$(dirname "$0")/lib.sh"

DB=$T/r.db
now_ms() { date +%s%3N; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

start_regserver --latency 10 --quiet || { fail "regserver starts"; exit 1; }
cat >"$T/s.ini" <<EOF
[scenario]
name     = resume sweep
label    = resumed
warmup   = 1s
interval = 1s
[sweep]
concurrency   = 2,4
step_duration = 6s
[request]
url = $REG_URL/health
[thresholds]
error_rate = 1%
EOF

spawn "$T/run1.log" soak run --db "$DB" -q "$T/s.ini"
RUN=$SPAWNED_PID
wait_for 20 bash -c "[ \"\$(sqlite3 '$DB' 'SELECT COUNT(*) FROM intervals' 2>/dev/null)\" -ge 4 ]" ||
  fail "the run records 4 intervals within 20 s" "$(cat "$T/run1.log")"

# Alive: refused, and the run goes on untouched.
soak run --db "$DB" --resume 1 >"$T/alive.out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "run 1 is still running (pid $RUN" "$T/alive.out"; then
  ok "resuming a live run is refused: $(cat "$T/alive.out")"
else
  fail "resuming a live run is refused" "exit $rc: $(cat "$T/alive.out")"
fi

kill -KILL "$RUN"
t_kill=$(now_ms)
wait "$RUN" 2>/dev/null
check_eq "soak runs: the killed run is crashed" \
  "$(soak runs --db "$DB" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["status"])')" \
  crashed

# Refusals while it lies there.
sed 's/^concurrency   = 2,4/concurrency   = 2,5/' "$T/s.ini" >"$T/other.ini"
refused() { # NAME PATTERN ARGS...: exit 2 and the message
  local name=$1 pat=$2 rc
  shift 2
  soak run --db "$DB" "$@" >"$T/refused.out" 2>&1
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q -- "$pat" "$T/refused.out"; then ok "$name: $(cat "$T/refused.out")"
  else fail "$name" "exit $rc: $(cat "$T/refused.out")"; fi
}
refused "another scenario text is refused" "is not the scenario run 1 ran" --resume 1 "$T/other.ini"
refused "--set without the file is refused" "--set changes the scenario" --resume 1 \
  --set scenario.warmup=2s
refused "a run that is not there is refused" "no run 9 in" --resume 9
refused "--resume with a queue is refused" "--resume continues one run" --resume 1 "$T/s.ini" \
  "$T/s.ini"
check_eq "refusals wrote nothing" "$(sql "$DB" "SELECT resumed || status FROM runs")" "0running"

sleep 2
t_resume=$(now_ms)
soak run --db "$DB" --resume 1 --json "$T/s.ini" >"$T/resume.json" 2>"$T/resume.err"
check_eq "resumed with the same scenario file: exit status" "$?" 0
check "... it said what it continues" grep -q "resuming run 1 'resume sweep'.*step 1 of 2" "$T/resume.err"
stop_pid "$REG_PID"
served=$(sed -n 's/.*regserver: requests=\([0-9]*\).*/\1/p' "$T"/regserver.*.log)

check_eq "the run is done, resumed once, the same id" \
  "$(json "$T/resume.json" "'%d %s %d' % (d['id'], d['status'], d['resumed'])")" "1 done 1"
read -r gfrom gto <<<"$(sql "$DB" "SELECT from_ms || ' ' || to_ms FROM gaps WHERE run_id = 1")"
check_eq "the gap starts where the last interval before the kill ends" "$gfrom" \
  "$(sql "$DB" "SELECT max(start_ms + length_ms) FROM intervals WHERE run_id = 1 AND start_ms < $gfrom")"
check_order "... before the kill" "$gfrom" "$t_kill"
check_order "the gap ends when the resume started, before its first interval" "$t_resume" "$gto" \
  "$(sql "$DB" "SELECT min(start_ms) FROM intervals WHERE run_id = 1 AND start_ms >= $gto")"
check_eq "a gap event at the gap's start" \
  "$(sql "$DB" "SELECT COUNT(*) FROM events WHERE run_id = 1 AND kind = 'gap' AND t_ms = $gfrom")" 1
check_eq "no interval in the gap" \
  "$(sql "$DB" "SELECT COUNT(*) FROM intervals WHERE run_id = 1 AND start_ms < $gto
                AND start_ms + length_ms > $gfrom")" 0
# The load ran as long as planned: 2 x 6 s, the gap moving the end (plus the last drain,
# 0.6 s on a loaded machine).  A gap counted as load would end it seconds (the gap's) early,
# a gap counted twice as late.
gap_ms=$((gto - gfrom))
check_range "time with load, ms (12 s planned; the gap $gap_ms ms)" \
  "$(sql "$DB" "SELECT ended_ms - started_ms - $gap_ms FROM runs WHERE id = 1")" 11800 $((12000 + gap_ms / 2))
check_eq "both steps, their measured windows recorded" \
  "$(sql "$DB" "SELECT group_concat(concurrency || ':' || (window_end_ms IS NOT NULL), ' ')
                FROM (SELECT * FROM steps WHERE run_id = 1 ORDER BY idx)")" "2:1 4:1"
check_eq "step 1 was measured on both sides of the gap" \
  "$(sql "$DB" "SELECT (SELECT COUNT(*) FROM intervals WHERE run_id = 1 AND step_idx = 0
                AND phase = 'steady' AND start_ms < $gfrom) > 0 AND (SELECT COUNT(*)
                FROM intervals WHERE run_id = 1 AND step_idx = 0 AND phase = 'steady'
                AND start_ms >= $gto) > 0")" 1
check_eq "... after a new ramp-up or warm-up" \
  "$(sql "$DB" "SELECT phase FROM intervals WHERE run_id = 1 AND start_ms >= $gto
                ORDER BY start_ms LIMIT 1")" warmup
# TPS over the measured time: its steady intervals' requests over their seconds, both sides
# of the gap, not diluted by the gap (which would take a third of it away).  Against the
# intervals, not against the TPS before the kill: the machine's load may move between the
# two (75 % of it once, beside another suite and a build).
pre=$(sql "$DB" "SELECT 1000.0 * SUM(requests) / SUM(length_ms) FROM intervals WHERE run_id = 1
                 AND step_idx = 0 AND phase = 'steady' AND start_ms < $gfrom")
step1=$(json "$T/resume.json" "d['steps'][0]['tps']")
measured=$(sql "$DB" "SELECT 1000.0 * SUM(requests) / SUM(length_ms) FROM intervals WHERE run_id = 1
                      AND step_idx = 0 AND phase = 'steady'")
check_range "step 1's TPS against its steady intervals' requests per second, %" \
  "$(awk -v a="$step1" -v b="$measured" 'BEGIN { printf "%.1f", 100 * a / b }')" 99 101
check_eq "step 1's window seconds are its steady intervals' (the gap left out)" \
  "$(json "$T/resume.json" "'%.3f' % d['steps'][0]['window_s']")" \
  "$(sql "$DB" "SELECT printf('%.3f', SUM(length_ms) / 1000.0) FROM intervals WHERE run_id = 1
                AND step_idx = 0 AND phase = 'steady'")"
check_range "the steps row's TPS (the runner's) against soak runs', %" \
  "$(awk -v a="$(sql "$DB" "SELECT tps FROM steps WHERE run_id = 1 AND idx = 0")" -v b="$step1" \
     'BEGIN { printf "%.1f", 100 * a / b }')" 99 101
check_eq "thresholds judged for both steps" \
  "$(json "$T/resume.json" "'%s %d' % (d['thresholds']['pass'], len(d['thresholds']['checks']))")" \
  "True 2"
# What the server answered and soak did not count: the interval the kill cut short (from
# the last recorded interval's end to the kill), and the requests in flight then.
recorded=$(sql "$DB" "SELECT SUM(requests) FROM intervals WHERE run_id = 1")
lost_want=$(awk -v t="$pre" -v ms=$((t_kill - gfrom)) 'BEGIN { printf "%.0f", t * ms / 1000 }')
# not a speed: a count against the rate times the span the kill cut short
check_range "requests lost to the kill (server $served, soak $recorded; ~$lost_want expected)" \
  $((served - recorded)) 0 $((lost_want * 13 / 10 + 20))

soak runs --db "$DB" >"$T/runs.out"
check "soak runs: the run is starred done" grep -qE '^ +1 +resumed +sweep +done\* ' "$T/runs.out"
check "soak runs: the note under the table" \
  grep -q '^\* run 1 was resumed 1 time (soak run --resume): [0-9]*s without load' "$T/runs.out"
soak report "$DB" -o "$T/report" --no-plots >/dev/null 2>&1
check "the report says how long the gap was" \
  grep -qE 'Run 1 \(resumed\) was resumed once: [0-9]+s without load .*left out of every figure' \
  "$T/report/report.md"
check_eq "the report's figures are soak runs' (both from the intervals)" \
  "$(json "$T/report/report.json" "d['runs'][0]['figures']['requests']")" \
  "$(json "$T/resume.json" "d['requests']")"

refused "a done run is refused" "run 1 is already done" --resume 1
printf 'timeStamp,elapsed,label,responseCode,success,allThreads\n1796100000000,5,a,200,true,1\n' \
  >"$T/one.jtl"
soak import jmeter "$T/one.jtl" --label imported --db "$DB" >/dev/null 2>&1
refused "an imported run is refused" "run 2 was imported from jmeter" --resume 2

done_testing
