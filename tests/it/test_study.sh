#!/usr/bin/env bash
# soak study, soak calibrate and the comparisons they feed, on bin/regserver:
#   the schedule and mistakes of study files (soak check);
#   A/B: regserver --latency 20 against --latency 30, three interleaved rounds, started and
#        stopped by the study: the mean latency +50 % real, TPS lower and real;
#   A/A: two labels on one regserver, five interleaved rounds, interrupted and resumed:
#        no figure real (and none on one run a side, where the floor applies);
#   calibrate: the run-to-run spread stored, then cited by a one-run-a-side comparison.
# Runs are 2 to 8 s (0.5 s intervals): the run, not the interval, is the unit of evidence,
# and a few seconds of 20 users give each run's mean and p99 well enough; the A/B's runs are
# the longest, as a burst of other work on the machine weighs less in a longer run.
. "$(dirname "$0")/lib.sh"

DB=$T/study.db
REGSH=$TOP/targets/regserver/regserver.sh
q() { sql "$DB" "$@"; }
json() { jq -r "$2" "$1"; }
# Every regserver a study's start command launched is stopped at the end, by its pid.
trap 'for f in "$T"/*/regserver.pid; do [ -f "$f" ] && stop_pid "$(cat "$f")"; done; _cleanup' EXIT

cat >"$T/reg.ini" <<'EOF'
[scenario]
name = study regserver
label = any
concurrency = 20
duration = 6s
warmup = 1s
interval = 500ms
EOF
cat "$TOP/targets/regserver/register.ini" >>"$T/reg.ini"

# --- soak check: schedule, total time, mistakes ------------------------------------------
cat >"$T/ab.ini" <<EOF
[study]
name = latency 20 vs 30
scenario = reg.ini
rounds = 3
order = interleaved
warmup_runs = 1
keep_running = yes
before_each = echo "\$SOAK_TARGET \$SOAK_ROUND" >> $T/before_each.log
[target.lat20]
start = $REGSH start $T/lat20 --latency 20
stop = $REGSH stop $T/lat20
[target.lat30]
start = $REGSH start $T/lat30 --latency 30
stop = $REGSH stop $T/lat30
EOF
soak check "$T/ab.ini" >"$T/check.out" 2>&1
check_eq "check of a study exits 0" "$?" 0
check "check prints the interleaved rounds" grep -qx '  round 2: lat30 lat20' "$T/check.out"
check "check prints the total" grep -q '8 runs (6 compared, 2 warm-ups): about 48s' "$T/check.out"

bad() { # NAME EXPECTED-MESSAGE-REGEX: the study file on stdin must be refused so
  cat >"$T/bad.ini"
  soak check "$T/bad.ini" >"$T/bad.out" 2>&1
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qE "$2" "$T/bad.out"; then ok "$1"; else fail "$1" "rc $rc: $(cat "$T/bad.out")"; fi
}
printf '[study]\nscenario = reg.ini\nrounds = 2\norder = sideways\n[target.a]\nurl = http://127.0.0.1:9/x\n' |
  bad "bad order: FILE:LINE" 'bad.ini:4: order: expected interleaved or random'
printf '[study]\nscenario = reg.ini\nrounds = 2\n' | bad "no target" 'needs at least one target'
printf '[study]\nscenario = reg.ini\nrounds = 2\n[target.a]\nstop = true\n' | bad "target without start or url" 'bad.ini:4: \[target.a\] needs start'
printf '[study]\nscenario = reg.ini\nrounds = 2\n[target.a b]\nurl = http://127.0.0.1:9/x\n' | bad "bad target name" "a target's name"
printf '[study]\nscenario = missing.ini\nrounds = 2\n[target.a]\nurl = http://127.0.0.1:9/x\n' | bad "missing scenario" "cannot open '.*missing.ini'"
printf '[study]\nscenario = reg.ini\nrounds = 2\nseed = 3\n[target.a]\nurl = http://127.0.0.1:9/x\n' | bad "seed needs random order" 'bad.ini:4: seed: only with order = random'
printf '[study]\nscenario = reg.ini\nrounds = 2\n[target.a]\nurl = http://127.0.0.1:9/x\nset = scenario.color=red\n' |
  bad "a target's override is checked" "unknown key 'color'"
printf '[study]\nscenario = reg.ini\nrounds = 2\norder = random\nseed = 5\n[target.a]\nurl = http://127.0.0.1:9/x\n[target.b]\nurl = http://127.0.0.1:9/x\n[target.c]\nurl = http://127.0.0.1:9/x\n' >"$T/rnd.ini"
soak check "$T/rnd.ini" >"$T/rnd1.out" 2>&1 && soak check "$T/rnd.ini" >"$T/rnd2.out" 2>&1
check "random order with a seed: the same schedule twice" cmp -s "$T/rnd1.out" "$T/rnd2.out"
check "random order: each round holds every target" \
  test "$(grep -cE '^  round [0-9]: (a b c|a c b|b a c|b c a|c a b|c b a)$' "$T/rnd1.out")" -eq 2

# --- A/B: 20 ms against 30 ms, started and stopped by the study ----------------------------
start=$SECONDS
soak study -q --db "$DB" --set scenario.duration=3s --set scenario.warmup=1s "$T/ab.ini" \
  >"$T/ab.out" 2>"$T/ab.err"
check_eq "A/B study exits 0" "$?" 0
echo "# A/B study: $((SECONDS - start)) s"
check_eq "A/B: 8 runs tagged (6 slots, 2 warm-ups)" \
  "$(q "SELECT count(*), count(slot), sum(warmup) FROM study_runs" | tr '|' ' ')" "8 6 2"
check_eq "A/B: rounds and positions interleaved" \
  "$(q "SELECT group_concat(target || round || position, ' ') FROM (SELECT * FROM study_runs WHERE slot IS NOT NULL ORDER BY slot)")" \
  "lat2011 lat3012 lat3021 lat2022 lat2031 lat3032"
check_eq "A/B: the warm-up of each target comes first after its start" \
  "$(q "SELECT group_concat(target || ':' || warmup || ':' || since_start, ' ') FROM (SELECT * FROM study_runs ORDER BY seq)")" \
  "lat20:1:1 lat20:0:2 lat30:1:1 lat30:0:2 lat30:0:3 lat20:0:3 lat20:0:4 lat30:0:4"
check_eq "A/B: before_each ran before every run" "$(wc -l <"$T/before_each.log")" 8
check_eq "A/B: the start's version= is recorded" \
  "$(q "SELECT version FROM study_runs WHERE target = 'lat30' LIMIT 1")" "regserver --latency 30"
# Every run samples the process its target's start named (memory and descriptors from the
# first sample on; CPU needs two, which a slow ASan build may not fit in a 5 s run).
check_eq "A/B: the start's pid= feeds the app collector in every run" \
  "$(q "SELECT count(DISTINCT run_id) FROM samples WHERE source = 'app' AND metric = 'rss_kb'")" 8
check_eq "A/B: the study is done" "$(q "SELECT status FROM studies")" done
check "A/B: every target stopped" sh -c "! ls $T/lat2*/regserver.pid 2>/dev/null"
soak report "$DB" -o "$T/ab" --no-plots >"$T/ab.rep" 2>&1
check_eq "A/B: report exits 0" "$?" 0
J=$T/ab/report.json
check_eq "A/B: judged across 3 runs a side" \
  "$(json "$J" '.comparisons[0] | [.noise, .n_runs, .n_runs_baseline] | join(" ")')" "runs 3 3"
check_eq "A/B: mean latency +50% is real" "$(json "$J" '.comparisons[0].metrics.mean.verdict')" real
check_range "A/B: mean latency change (%; +50 % built in, less when timers are late on a busy machine)" "$(json "$J" '.comparisons[0].metrics.mean.change_pct')" 25 75
check_eq "A/B: TPS lower and real" \
  "$(json "$J" '.comparisons[0].metrics.tps | [(.change_pct < 0), .verdict] | join(" ")')" "true real"
check "A/B: the design is named at the top" \
  grep -q "^\*\*Design.\*\* Study 'latency 20 vs 30': 2 targets (lat20, lat30), 3 rounds in interleaved order" "$T/ab/report.md"
check "A/B: the method is named" grep -q "Judged across runs (3 runs a side): each run is one observation of every figure" "$T/ab/report.md"
check_eq "A/B: warm-ups are not compared" "$(json "$J" '.comparisons[0].runs | split(",") | length')" 3

# --- a target's override of the collector its start's pid= fills ----------------------------
cat >"$T/every.ini" <<EOF
[study]
scenario = reg.ini
rounds = 1
warmup_runs = 0
[target.every]
start = $REGSH start $T/every
stop = $REGSH stop $T/every
set = collect.app.every=250ms
EOF
soak check "$T/every.ini" >"$T/every.check" 2>&1
check_eq "a target's set = collect.app.every, pid= from its start: soak check accepts it" "$?" 0
soak study -q --db "$T/every.db" --set scenario.duration=2s --set scenario.warmup=0s "$T/every.ini" \
  >/dev/null 2>"$T/every.err"
check_eq "... and the study runs" "$?" 0
check "... sampling the started process every 250 ms (4 CPU samples or more in 2 s)" \
  test "$(sql "$T/every.db" "SELECT count(*) FROM samples WHERE source = 'app' AND metric = 'cpu_pct'")" -ge 4

# --- A/A: one server, two labels, five rounds; interrupted and resumed ------------------------
start_regserver --latency 20 --quiet
cat >"$T/aa.ini" <<EOF
[study]
name = a against a
scenario = reg.ini
rounds = 5
warmup_runs = 1
[target.a]
url = $REG_URL/register
pid = $REG_PID
[target.b]
url = $REG_URL/register
pid = $REG_PID
EOF
AA=$T/aa.db
start=$SECONDS
spawn "$T/aa1.err" soak study -q --db "$AA" --set scenario.duration=2s "$T/aa.ini"
aa_pid=$SPAWNED_PID
three_done() { [ "$(sql "$AA" "SELECT count(*) FROM runs WHERE status = 'done'" 2>/dev/null || echo 0)" -ge 3 ]; }
wait_for 60 three_done
kill -INT "$aa_pid"
wait "$aa_pid"
check_eq "A/A: SIGINT stops the study (130)" "$?" 130
check_eq "A/A: the study is marked interrupted" "$(sql "$AA" "SELECT status FROM studies")" interrupted
check "A/A: says how to continue" grep -q 'with --resume continues it' "$T/aa1.err"
slots_done=$(sql "$AA" "SELECT count(*) FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE r.status = 'done' AND sr.slot IS NOT NULL")
soak study -q --db "$AA" --resume --set scenario.duration=2s "$T/aa.ini" >"$T/aa2.out" 2>"$T/aa2.err"
check_eq "A/A: --resume finishes it" "$?" 0
echo "# A/A study: $((SECONDS - start)) s"
check "A/A: resumed where it stopped" grep -q "study 1 .* $((10 - slots_done)) of 10 runs to go" "$T/aa2.err"
check_eq "A/A: a warm-up of each label first, again after the resume (not compared)" \
  "$(sql "$AA" "SELECT group_concat(target || ':' || n, ' ') FROM (SELECT target, count(*) AS n FROM study_runs WHERE warmup = 1 AND slot IS NULL GROUP BY target)")" "a:2 b:2"
check_eq "A/A: each warm-up just before its label's first run" \
  "$(sql "$AA" "SELECT count(*) FROM study_runs w JOIN study_runs m ON m.seq = w.seq + 1 WHERE w.warmup = 1 AND m.target = w.target AND m.warmup = 0")" 4
check "A/A: the target's pid feeds the app collector" \
  test "$(sql "$AA" "SELECT count(*) FROM samples WHERE source = 'app' AND metric = 'rss_kb'")" -ge 10
check_eq "A/A: every slot done once" \
  "$(sql "$AA" "SELECT count(DISTINCT sr.slot) FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE r.status = 'done'")" 10
check_eq "A/A: the interrupted run is kept, marked" \
  "$(sql "$AA" "SELECT count(*) FROM runs WHERE status = 'interrupted'")" 1
soak study -q --db "$AA" --resume --set scenario.duration=2s "$T/aa.ini" >/dev/null 2>"$T/aa3.err"
check_eq "A/A: resuming a done study does nothing" "$?" 0
soak study -q --db "$AA" --resume --set scenario.concurrency=5 "$T/aa.ini" >/dev/null 2>"$T/aa4.err"
check_eq "A/A: resuming with another plan is refused" "$?" 2
soak report "$AA" -o "$T/aa" --no-plots >"$T/aa.rep" 2>&1
check_eq "A/A: report exits 0" "$?" 0
J=$T/aa/report.json
check_eq "A/A: judged across 5 runs a side (the interrupted one left out)" \
  "$(json "$J" '.comparisons[0] | [.noise, .n_runs, .n_runs_baseline] | join(" ")')" "runs 5 5"
real=$(json "$J" '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.verdict == "real") | .key] | join(",")')
check_eq "A/A: no figure is called real" "$real" ""
[ -z "$real" ] || json "$J" '.comparisons[0].metrics' | sed 's/^/# /'

# soak merge keeps the study: its tags follow the renumbered runs.
soak merge -o "$T/merged.db" "$T/study.db" "$AA" >/dev/null 2>&1
check_eq "merge: exits 0" "$?" 0
soak report "$T/merged.db" --label a --label b -o "$T/merged" --no-plots >/dev/null 2>&1
check_eq "merge: the A/A still judged across 5 runs a side" \
  "$(json "$T/merged/report.json" '.comparisons[0] | [.noise, .n_runs, .n_runs_baseline] | join(" ")')" "runs 5 5"
check_eq "merge: the study's design" "$(json "$T/merged/report.json" '[.studies[].name] | join(",")')" "a against a"
check_eq "merge: the warm-ups stay warm-ups" "$(sql "$T/merged.db" "SELECT sum(warmup) FROM study_runs")" 6

# One run a side, no calibration: the report says the noise is unknown and uses the floor.
# Two runs of 4 s (3 s measured) on the A/A's server: the study's 1-s windows hold too few
# slow requests for a p99 (one run's p99 was 65 % above the other's, past its 50 % floor).
for l in a b; do
  soak run -q --db "$T/one.db" --set scenario.label=$l --set request.url="$REG_URL/register" \
    --set scenario.duration=4s "$T/reg.ini" >/dev/null 2>&1
done
soak report "$T/one.db" -o "$T/one" --no-plots >/dev/null 2>&1
J=$T/one/report.json
check_eq "one run a side: batch means with the floor" \
  "$(json "$J" '.comparisons[0] | [.noise, .floor_pct] | join(" ")')" "batch means 20"
check "one run a side: the noise is unknown, said so" grep -q "run-to-run noise is unknown" "$T/one/report.md"
check_eq "one run a side: no figure real" \
  "$(json "$J" '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.verdict == "real")] | length')" 0

# --- calibrate: the spread stored, then used for one run a side ------------------------------
CAL=$T/cal.db
soak calibrate "$T/reg.ini" --db "$CAL" --url "$REG_URL/register" --runs 3 --warmup-runs 0 \
  --label cal --set scenario.duration=2s -q >"$T/cal.out" 2>"$T/cal.err"
check_eq "calibrate exits 0" "$?" 0
check_eq "calibrate stores tps, mean and p99 of 3 runs" \
  "$(sql "$CAL" "SELECT group_concat(metric || runs, ' ') FROM (SELECT * FROM calibrations ORDER BY metric)")" "mean3 p993 tps3"
check "calibrate: a spread below 50% of TPS" \
  test "$(sql "$CAL" "SELECT cv < 0.5 FROM calibrations WHERE metric = 'tps'")" = 1
for l in one two; do
  soak run -q --db "$CAL" --set scenario.label=$l --set scenario.duration=2s \
    --set request.url="$REG_URL/register" "$T/reg.ini" >/dev/null 2>&1
done
soak report "$CAL" --label one --label two -o "$T/cal" --no-plots >/dev/null 2>&1
check "one value per quantity in every study report" python3 "$TOP/tests/it/report_consistency.py" "$T/ab" "$T/aa" "$T/merged" "$T/one" "$T/cal"
J=$T/cal/report.json
check_eq "one run a side with a calibration: it is used" "$(json "$J" '.comparisons[0].noise')" calibration
check "the calibration is cited" grep -q "comes from a calibration (3 runs of 'study regserver', label cal" "$T/cal/report.md"
# Judged on a calibration, with no floor: the report's 5 % is a rate (test_calibrate's), so
# one study checks that no figure is real even at 0.1 % for the family (p under 0.001 / k).
check_eq "calibrated same-server comparison: no figure real at 0.1 % for the family" \
  "$(json "$J" '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.p != null)] | length as $k | "\($k > 0) \(map(select(.value.p < 0.001 / $k)) | length)"')" "true 0"
check_eq "soak calibrate --runs 1 is refused" \
  "$(soak calibrate "$T/reg.ini" --url "$REG_URL/register" --runs 1 --db "$CAL" >/dev/null 2>&1; echo $?)" 2

# --- the demo's shape: capacity and efficiency, placed, run until precise -----------------
# One regserver under two labels (an A/A: two processes of one server may differ, by 30 %
# in CPU per request once in a fresh Debian, which one process a side cannot tell from
# the server; b's start prints what a's printed), each label measured at 10 users (capacity) and at 1000/s (a
# fixed rate: efficiency; enough requests in 2 s that the servers' CPU, counted in 10 ms
# ticks, resolves), the generator on CPU 0 and the servers on CPU 1, rounds added
# until TPS and the servers' CPU per request are resolved to 80 % (loose on purpose: the
# study should stop on its own precision, not its budget).
app=1 gen=0
[ "$(nproc)" -ge 2 ] || app=0 # one core: both on it (the lists are still recorded)
for kind in cap rate; do
  {
    echo "[scenario]"
    echo "name = demo shape $kind"
    echo "label = any"
    if [ $kind = cap ]; then echo "concurrency = 10"; else echo "rate = 1000/s"; fi
    echo "duration = 2s"
    echo "warmup = 500ms"
    echo "interval = 250ms"
    sed -n '/^\[request\]/,$p' "$T/reg.ini"
    echo "[collect.app]"
    echo "every = 250ms"
  } >"$T/$kind.ini"
done
cat >"$T/seq.ini" <<EOF
[study]
name = demo shape
scenario = cap.ini
scenario = rate.ini
rounds = 6
until = tps 80%, cpu.app 80%
budget = 3m
warmup_runs = 1
keep_running = yes
[target.a]
start = $REGSH start $T/sa --latency 2 >$T/sa.info && cat $T/sa.info
stop = $REGSH stop $T/sa
cpus = $app
[target.b]
start = cat $T/sa.info
stop = true
cpus = $app
EOF
soak check "$T/seq.ini" >"$T/seq.check" 2>&1
check_eq "sequential study: soak check accepts it" "$?" 0
soak study -q --db "$T/seq.db" --set scenario.cpus=$gen "$T/seq.ini" >"$T/seq.out" 2>"$T/seq.err"
check_eq "sequential study exits 0" "$?" 0
check "sequential study: it looked after a round" grep -q "look 1 of [0-9]* after round 2" "$T/seq.err"
check_eq "sequential study: it stopped when precise" "$(sql "$T/seq.db" "SELECT stop FROM studies")" precise
check "sequential study: each look at a share of 5 %" \
  test "$(sql "$T/seq.db" "SELECT looks >= 1 AND max_looks >= looks AND alpha > 0 AND alpha < 0.05 FROM studies")" = 1
check_eq "two scenarios: a warm-up of each after each start, the first scenario's first" \
  "$(sql "$T/seq.db" "SELECT group_concat(r.label || ':' || r.name, ' ') FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE sr.warmup = 1 ORDER BY sr.seq")" \
  "a:demo shape cap a:demo shape rate b:demo shape cap b:demo shape rate"
check "two scenarios: soak check says so" grep -q "1 warm-up run of each scenario after each start" "$T/seq.check"
check_eq "placement: the generator's CPUs recorded" \
  "$(sql "$T/seq.db" "SELECT DISTINCT value FROM run_env WHERE source = '' AND key = 'cpu_list'")" "$gen"
check_eq "placement: the servers' CPUs recorded" \
  "$(sql "$T/seq.db" "SELECT DISTINCT value FROM run_env WHERE source = 'app' AND key = 'cpu_list'")" "$app"
soak report "$T/seq.db" -o "$T/seq" --no-plots >/dev/null 2>&1
J=$T/seq/report.json
check "sequential study: the design says how it stopped" \
  grep -q "Sequential: rounds were added until tps 80%, cpu.app 80% .* stopped because every figure was resolved" "$T/seq/report.md"
if [ "$app" != "$gen" ]; then
  check "placement: the design names it" grep -q "Placement: the generator on CPU $gen; app on CPU $app (a, b)" "$T/seq/report.md"
fi
check_eq "efficiency beside capacity: the verdict rests on 10 users and on 1000/s" \
  "$(json "$J" '. as $r | .verdict[1] | [($r.comparisons[.comparison] | .concurrency), ($r.comparisons[.rate_comparison] | .rate)] | map(tostring) | join(" ")')" "10 1000"
check "efficiency beside capacity: the sentence gives CPU per request at 1000/s" \
  bash -c "jq -r '.verdict[1].sentence' '$J' | grep -q 'at 1000/s (fixed runs of 2s) it costs [-+0-9.]*% CPU per request on app'"
check_eq "the verdict's intervals are the sequential look's (alpha below 5 %)" \
  "$(json "$J" '[.comparisons[] | .alpha < 0.05] | unique | map(tostring) | join(" ")')" true
check_eq "an A/A study calls nothing real" \
  "$(json "$J" '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.verdict == "real")] | length')" 0
check "one process a side (kept running): memory is not compared, and the method says why" \
  grep -q "Memory is not compared: each label ran in one process (the study kept its targets running)" "$T/seq/report.md"
check_eq "one process a side: no memory verdict" \
  "$(json "$J" '[.comparisons[] | .memory | to_entries[] | .value.verdict] | unique | join(" ")')" "n/a"
check "one value per quantity in the sequential study's report" \
  python3 "$TOP/tests/it/report_consistency.py" "$T/seq"

# --- warm-up until steady: a server that speeds up on cue ---------------------------------
# regserver serves 2 at a time for its first 1.5 s, then 8 (100/s, then 400/s at 20 ms): the
# warm-up runs go on until two in a row agree within 10 %, so the compared run is fast.
cat >"$T/warm.ini" <<EOF
[study]
name = warm until steady
scenario = cap.ini
rounds = 1
warmup_steady = 10%
warmup_max = 6
[target.w]
start = $REGSH start $T/sw --latency 20 --capacity 2 --capacity-after 1500ms:8
stop = $REGSH stop $T/sw
EOF
soak check "$T/warm.ini" >"$T/warm.check" 2>&1
check "warm-up until steady: soak check states the rule" \
  grep -q "2 to 6 warm-up runs after each start (or the study's), until two in a row agree within 10%" "$T/warm.check"
soak study -q --db "$T/warm.db" --set scenario.duration=1s --set scenario.warmup=0s "$T/warm.ini" \
  >"$T/warm.out" 2>"$T/warm.err"
check_eq "warm-up until steady: the study exits 0" "$?" 0
# The TPS of the warm-up (1) or compared (0) runs, in the order they ran.
wtps() {
  sql "$T/warm.db" "SELECT s.tps FROM steps s JOIN study_runs sr ON sr.run_id = s.run_id
                    WHERE sr.warmup = $1 ORDER BY sr.seq"
}
echo "# warm-up TPS: $(wtps 1 | tr '\n' ' '); compared: $(wtps 0)"
nwarm=$(wtps 1 | wc -l)
check_range "warm-up until steady: more warm-up runs than the slow start's" "$nwarm" 3 6
check_eq "warm-up until steady: the last two warm-up runs agree within 10 %" \
  "$(wtps 1 | tail -2 | awk 'NR == 1 { a = $1 } NR == 2 { d = $1 / a - 1; print (d <= 0.1 && d >= -0.1) }')" 1
check "warm-up until steady: the compared run is the fast server's (over 300/s)" \
  awk -v x="$(wtps 0)" 'BEGIN { exit !(x > 300) }'
check "warm-up until steady: each warm-up run says how far it moved" \
  grep -q "warm-up run 2: TPS [-+]" "$T/warm.err"
check_eq "warm-up until steady: the rule is recorded" \
  "$(sql "$T/warm.db" "SELECT warmup_steady || ' ' || warmup_max FROM studies")" "0.1 6"
soak report "$T/warm.db" -o "$T/warm" --no-plots >/dev/null 2>&1
check "warm-up until steady: the design states the rule and how many runs it took" \
  grep -q "warm-up runs after each start went on until two in a row agreed within 10 % in TPS (at least 2, at most 6) and were not compared: w $nwarm\. " "$T/warm/report.md"

# --- rounds_trend: runs that move with the order they ran in -------------------------------
# Every start of either target starts a regserver 2 ms slower than the last (4, 6, ... 18
# ms): both labels' TPS fall round after round, which the report must name as a trend, not
# pass off as the servers' run-to-run noise.
cat >"$T/slower.sh" <<EOF
#!/bin/sh
n=\$(cat "$T/starts" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$T/starts"
exec "$REGSH" start "\$1" --latency \$((4 + 2 * n))
EOF
chmod +x "$T/slower.sh"
cat >"$T/trend.ini" <<EOF
[study]
name = slower every start
scenario = cap.ini
rounds = 4
warmup_runs = 0
[target.a]
start = $T/slower.sh $T/ta
stop = $REGSH stop $T/ta
[target.b]
start = $T/slower.sh $T/tb
stop = $REGSH stop $T/tb
EOF
soak study -q --db "$T/trend.db" --set scenario.duration=1s --set scenario.warmup=0s "$T/trend.ini" \
  >"$T/trend.out" 2>"$T/trend.err"
check_eq "rounds_trend: the study exits 0" "$?" 0
echo "# TPS in the order the runs ran: $(sql "$T/trend.db" "SELECT group_concat(CAST(tps AS INT), ' ') FROM (SELECT s.tps FROM steps s JOIN study_runs sr ON sr.run_id = s.run_id ORDER BY sr.seq)")"
soak report "$T/trend.db" -o "$T/trend" --no-plots >/dev/null 2>&1
check_eq "rounds_trend: one warning" \
  "$(json "$T/trend/report.json" '[.validity[] | select(.code == "rounds_trend") | .severity] | join(" ")')" warn
check "rounds_trend: it names the fall of both labels' TPS" \
  grep -q "At 10 users (fixed runs of 1s), the compared runs moved with the order they ran in: TPS fell [0-9.]* % on average from the first run to the last (a [0-9]* to [0-9]*, b [0-9]* to [0-9]*; Mann-Kendall over the labels' runs, p = 0.0" "$T/trend/report.md"
check_eq "a process for every run (keep_running = no): memory is compared" \
  "$(json "$T/trend/report.json" '[.comparisons[] | select(.concurrency == 10) | .memory.app.verdict] | join(" ")')" noise
check "rounds_trend: the advice is to warm up longer, not to add rounds" \
  grep -q "more rounds only average. Warm up longer after each start" "$T/trend/report.md"
# --- side by side: replicas, groups, the processes as observations -------------------------
# regserver --latency 2 against --latency 5, three processes of each at once (replicas), a
# fixed rate run side by side (design = auto) and a capacity scenario one at a time.
{
  echo "[scenario]"; echo "name = sbs rate"; echo "label = any"; echo "rate = 50/s"
  echo "duration = 2s"; echo "warmup = 500ms"; echo "interval = 250ms"
  sed -n '/^\[request\]/,$p' "$T/reg.ini"
  echo "[collect.app]"; echo "every = 250ms"
  echo "[collect.host]"; echo "host = yes"; echo "every = 250ms"
} >"$T/sbs-rate.ini"
sed -e 's/^name = .*/name = sbs cap/' -e 's/^duration = .*/duration = 1500ms/' -e 's/^warmup = .*/warmup = 500ms/' "$T/reg.ini" >"$T/sbs-cap.ini"
{
  echo "[study]"; echo "name = side by side"; echo "scenario = sbs-cap.ini"
  echo "scenario = sbs-rate.ini"; echo "rounds = 3"; echo "replicas = 3"; echo "primary = mean"
  for t in fast:2 slow:5; do
    echo "[target.${t%:*}]"
    echo "start = $REGSH start $T/${t%:*}\$SOAK_REPLICA --latency ${t#*:}"
    echo "stop = $REGSH stop $T/${t%:*}\$SOAK_REPLICA"
  done
} >"$T/sbs.ini"
soak check "$T/sbs.ini" >"$T/sbs.check" 2>&1
check_eq "side by side: soak check accepts it" "$?" 0
check "side by side: soak check says the design" \
  grep -q "design: scenario 1 one at a time; scenario 2 side by side (every instance in the same seconds); 3 processes of each target at once (replicas); primary figure mean" "$T/sbs.check"
check "side by side: the schedule shows the group" \
  grep -q "round 1, side by side: \[ fast#1/2 fast#2/2 fast#3/2 slow#1/2 slow#2/2 slow#3/2 \]" "$T/sbs.check"
check "side by side: ... before the round's runs alone" \
  grep -q "round 1: fast#1/1 fast#2/1 fast#3/1 slow#1/1 slow#2/1 slow#3/1$" "$T/sbs.check"
soak study -q --db "$T/sbs.db" "$T/sbs.ini" >"$T/sbs.out" 2>"$T/sbs.err"
check_eq "side by side: the study exits 0" "$?" 0
S=$T/sbs.db
check_eq "side by side: every process started once, three a target" \
  "$(sql "$S" "SELECT COUNT(DISTINCT target || replica) || ' ' || (SELECT COUNT(*) FROM study_runs WHERE warmup = 1) FROM study_runs")" "6 6"
check_eq "side by side: 3 groups of 6 runs, one per round, the rate scenario's" \
  "$(sql "$S" "SELECT COUNT(*) || ' ' || MIN(n) || ' ' || MAX(n) FROM (SELECT COUNT(*) n FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE sr.grp IS NOT NULL AND r.name = 'sbs rate' GROUP BY sr.grp)")" "3 6 6"
check_eq "side by side: a group's runs load in the same instant, their intervals aligned" \
  "$(sql "$S" "SELECT MAX(d) < 20 FROM (SELECT MAX(f) - MIN(f) d FROM (SELECT sr.grp g, (SELECT MIN(start_ms) FROM intervals i WHERE i.run_id = sr.run_id) f FROM study_runs sr WHERE sr.grp IS NOT NULL) GROUP BY g)")" 1
check_eq "side by side: the capacity scenario ran alone" \
  "$(sql "$S" "SELECT COUNT(*) FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE r.name = 'sbs cap' AND sr.grp IS NOT NULL")" 0
check_eq "side by side: the host, which a group shares, is sampled by its first run only" \
  "$(sql "$S" "SELECT COUNT(DISTINCT s.run_id) FROM samples s JOIN study_runs sr ON sr.run_id = s.run_id WHERE s.source = 'host' AND sr.grp IS NOT NULL")" 3
check_eq "side by side: every run has app samples of its own (none replaced by another's)" \
  "$(sql "$S" "SELECT MIN(n) > 0 FROM (SELECT COUNT(s.t_ms) n FROM study_runs sr LEFT JOIN samples s ON s.run_id = sr.run_id AND s.source = 'app' AND s.metric = 'rss_kb' GROUP BY sr.run_id)")" 1
soak report "$S" -o "$T/sbs" --no-plots >/dev/null 2>&1
J=$T/sbs/report.json
check_eq "side by side: the rate comparison judged side by side, the capacity one across runs" \
  "$(json "$J" '[.comparisons[] | "\(.rate // 0):\(.noise)"] | sort | join(" ")')" "0:runs 50:side by side"
check "side by side: the method names the processes as the observations" \
  grep -q "Each label ran 3 and 3 processes at once: each process's offset from its groups is one observation" "$T/sbs/report.md"
check "side by side: ... and says nothing of one process a side (a method text once did)" \
  test "$(grep -c "One process a side" "$T/sbs/report.md")" = 0
check_eq "side by side: mean latency +150 % is real" \
  "$(json "$J" '.comparisons[] | select(.rate == 50) | .metrics.mean | "\(.verdict) \(.change_pct > 60)"')" "real true"
check_eq "the primary figure holds 4 % of the 5 % (tested at 96 %)" \
  "$(json "$J" '.comparisons[] | select(.rate == 50) | .metrics.mean.level')" 0.96
check_eq "side by side: the host is not compared" \
  "$(json "$J" '.comparisons[] | select(.rate == 50) | [.cpu_per_request | keys[] | select(test("host"))] | length')" 0
check "side by side: the design says it" \
  grep -q "Design: the fixed-rate scenario ran side by side .*, as design = auto chooses; the others one at a time" "$T/sbs/report.md"
check "one value per quantity in the side-by-side report" python3 "$TOP/tests/it/report_consistency.py" "$T/sbs"

# starts: the targets started again; each start's difference is one observation.
sed -e 's/^replicas = 3/starts = 2/' -e 's/^rounds = 3/rounds = 2/' -e 's/^name = side by side/name = starts/' \
  -e '/^scenario = sbs-cap.ini/d' "$T/sbs.ini" >"$T/starts.ini"
soak study -q --db "$T/st.db" "$T/starts.ini" >/dev/null 2>"$T/st.err"
check_eq "starts: the study exits 0" "$?" 0
check_eq "starts: two starts of each target, each warmed up" \
  "$(sql "$T/st.db" "SELECT group_concat(n, ' ') FROM (SELECT COUNT(*) n FROM study_runs WHERE warmup = 1 GROUP BY start_no ORDER BY start_no)")" "2 2"
check_eq "starts: each target started twice" "$(grep -c 'starting target' "$T/st.err")" 4
soak report "$T/st.db" -o "$T/st" --no-plots >/dev/null 2>&1
check "starts: judged over the starts" grep -q "Each of the 2 starts is one observation, its difference" "$T/st/report.md"
check "starts: nothing said of one process a side" test "$(grep -c "One process a side" "$T/st/report.md")" = 0

# The default of two targets at a fixed rate, no design chosen: starts = auto for ten minutes
# (soak check says so); with a budget of 1s no second start fits after the first, whatever
# this machine's speed (a start lasts over 1s: its runs last 2s), so it stops after one.
sed -e '/^replicas = 3/d' -e '/^scenario = sbs-cap.ini/d' -e 's/^rounds = 3/rounds = 1/' \
  -e 's/^name = side by side/name = auto/' "$T/sbs.ini" >"$T/auto.ini"
check "the default of two targets at a fixed rate: starts = auto, ten minutes (soak check)" \
  grep -q "the targets started again and again while another start fits in 10m (at most 20 starts; starts = auto, the default for two targets at a fixed rate), 1 round each" \
  <(soak check "$T/auto.ini" 2>&1)
sed -i -e 's/^rounds = 1/rounds = 1\nstarts = auto\nbudget = 1s/' "$T/auto.ini"
soak study -q --db "$T/auto.db" "$T/auto.ini" >/dev/null 2>"$T/auto.err"
check_eq "starts = auto: the study exits 0" "$?" 0
check_eq "starts = auto, budget 1s: one start, stopped by the budget, its slots all done" \
  "$(sql "$T/auto.db" "SELECT starts || ' ' || stop || ' ' || slots || ' ' || (SELECT COUNT(DISTINCT start_no) FROM study_runs) FROM studies")" "1 budget 2 1"
check "starts = auto: says why it stopped" grep -q "1 start made; another would not fit in the budget" "$T/auto.err"
soak report "$T/auto.db" -o "$T/auto" --no-plots >/dev/null 2>&1
check "starts = auto: the report says how many starts the budget held" \
  grep -q "The targets were started 1 time (as many as fit in its budget of 1s), each start warmed up" "$T/auto/report.md"
check "starts = auto, one start: held to one process a side's floor" grep -q "One process a side" "$T/auto/report.md"

# Interrupted while a group runs: every run of the group stops at once (the signal is passed
# on), each keeps its intervals, the status is the signal's; --resume finishes the study.
sed -e 's/^duration = 2s/duration = 8s/' "$T/sbs-rate.ini" >"$T/int-rate.ini"
sed -e 's/^scenario = sbs-rate.ini/scenario = int-rate.ini/' -e '/^scenario = sbs-cap.ini/d' \
  -e 's/^replicas = 3/keep_running = yes/' -e 's/^name = side by side/name = interrupted/' "$T/sbs.ini" >"$T/int.ini"
soak study -q --db "$T/int.db" "$T/int.ini" >/dev/null 2>"$T/int.err" &
int_pid=$!
_pids+=("$int_pid")
in_group() { [ "$(sql "$T/int.db" "SELECT COUNT(*) FROM study_runs WHERE grp IS NOT NULL" 2>/dev/null)" = 2 ]; }
wait_for 60 in_group || fail "interrupted: a group began"
sleep 2
kill -INT "$int_pid"
wait "$int_pid"
rc=$?
t_end=$(date +%s%3N)
check_eq "interrupted: the study's status is SIGINT's" "$rc" 130
check_order "interrupted: it stopped before the group's 8 s were up" "$t_end" \
  "$(sql "$T/int.db" "SELECT min(r.started_ms) + 8000 FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE sr.grp IS NOT NULL")"
check_eq "interrupted: both runs of the group stopped, each with its intervals" \
  "$(sql "$T/int.db" "SELECT group_concat(r.status || ':' || ((SELECT COUNT(*) FROM intervals i WHERE i.run_id = r.id) > 0), ' ') FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE sr.grp IS NOT NULL")" \
  "interrupted:1 interrupted:1"
soak study -q --resume --db "$T/int.db" "$T/int.ini" >/dev/null 2>"$T/int2.err"
check_eq "interrupted: --resume finishes it" \
  "$(sql "$T/int.db" "SELECT status || ' ' || (SELECT COUNT(DISTINCT sr.slot) FROM study_runs sr JOIN runs r ON r.id = sr.run_id WHERE r.status = 'done') FROM studies")" "done 6"

done_testing
