#!/usr/bin/env bash
# Where CPU per request moved, against answers known in advance, on real servers and perf:
#   - A/B: the regserver spending 500 µs of CPU per request in regserver_burn_a (label a)
#     against the same in regserver_burn_b (label b), three processes each side by side at
#     a fixed rate, each profiled at 999 Hz: the profile must name both functions as the
#     change, called real, each within 20 % of the 500 µs put in, largest first;
#   - A/A: a second target exactly like a (label a2): no frame may be called real.  Each
#     frame's standard error is never below its samples' Poisson error and is tested with
#     3 + 3 - 2 degrees of freedom after Holm's step-down, so the chance of a false "real"
#     here is about 1e-4, not the family's 5 % bound;
#   - what a profile writes: report.json's comparisons[].profile.frames[], the report's
#     section, the flame graph (SVG with both functions' boxes), soak profile's table;
#   - bad input: perf that cannot run, a process that ends mid-window, a window with no
#     sample: each an event and a sentence, none a failed run or study;
#   - redaction: a frame whose name holds a secret (written into the database as an older
#     or a foreign file might hold it) never reaches the report.
. "$(dirname "$0")/lib.sh"

REGSH=$TOP/targets/regserver/regserver.sh
json() { jq -r "$2" "$1"; }

cat >"$T/rate.ini" <<'EOF'
[scenario]
name = burn rate
label = any
rate = 100/s
duration = 6s
warmup = 3s
interval = 500ms

[collect.app]
every = 500ms
profile = cpu
profile_hz = 999
EOF
cat "$TOP/targets/regserver/register.ini" >>"$T/rate.ini"
{
  echo "[study]"; echo "name = burn"; echo "scenario = rate.ini"; echo "rounds = 2"
  echo "replicas = 3"
  for t in a:a b:b a2:a; do
    echo "[target.${t%:*}]"
    echo "start = $REGSH start $T/${t%:*}\$SOAK_REPLICA --burn-us 500 --burn-fn ${t#*:} --max-users 1000000"
    echo "stop = $REGSH stop $T/${t%:*}\$SOAK_REPLICA"
  done
} >"$T/study.ini"
# perf loads many libraries: the first perf of a fresh machine takes seconds to sample,
# and a window must not end before it does (the warm-up gives it 3 s before the window).
perf record -q -e cpu-clock -o "$T/warm.data" -- true >/dev/null 2>&1
soak study -q --db "$T/s.db" "$T/study.ini" >"$T/study.out" 2>&1
check_eq "a study of three targets, each profiled: exit 0" "$?" 0
check_eq "a window stored for every measured run (3 targets x 3 processes x 2 rounds)" \
  "$(sql "$T/s.db" "SELECT COUNT(*) FROM profile_windows w JOIN study_runs s ON s.run_id = w.run_id WHERE s.slot > 0")" 18
soak merge -o "$T/merged.db" "$T/s.db" >"$T/merge.out" 2>&1
check_eq "soak merge carries every window and stack" \
  "$(sql "$T/merged.db" "SELECT (SELECT COUNT(*) FROM profile_windows) || ' ' || (SELECT SUM(samples) FROM profiles)")" \
  "$(sql "$T/s.db" "SELECT (SELECT COUNT(*) FROM profile_windows) || ' ' || (SELECT SUM(samples) FROM profiles)")"
soak report "$T/s.db" -o "$T/rep" >"$T/rep.out" 2>&1
check_eq "soak report: exit 0" "$?" 0
P='.comparisons[] | select(.label == "b") | .profile'
check_eq "b against a: judged with 3 processes a side" \
  "$(json "$T/rep/report.json" "$P | \"\(.judged) \(.processes) \(.processes_baseline)\"")" "true 3 3"
check_eq "b against a: the two largest changes are the two burning functions" \
  "$(json "$T/rep/report.json" "[$P | .frames[0:2][] | .frame] | sort | join(\" \")")" \
  "regserver_burn_a regserver_burn_b"
check_eq "... both called real" \
  "$(json "$T/rep/report.json" "[$P | .frames[0:2][] | .verdict] | join(\" \")")" "real real"
check_range "... regserver_burn_b: µs per request within 20 % of the 500 put in" \
  "$(json "$T/rep/report.json" "$P | .frames[] | select(.frame == \"regserver_burn_b\") | .change_us")" 400 600
check_range "... regserver_burn_a: within 20 % of -500" \
  "$(json "$T/rep/report.json" "$P | .frames[] | select(.frame == \"regserver_burn_a\") | .change_us")" -600 -400
check_eq "... every interval holds its change at its centre" \
  "$(json "$T/rep/report.json" "[$P | .frames[] | select(.ci95[0] != null) | ((.ci95[0] + .ci95[1]) / 2 - .change_us) | fabs < 0.01] | all")" true
check_eq "A/A: a2 against a, no frame called real" \
  "$(json "$T/rep/report.json" '[.comparisons[] | select(.label == "a2") | .profile.frames[] | select(.verdict == "real")] | length')" 0
check_eq "A/A: ... and it was judged (3 processes a side)" \
  "$(json "$T/rep/report.json" '.comparisons[] | select(.label == "a2") | .profile.judged')" true
check "the report's section says it in one sentence" \
  grep -qE "Real: regserver_burn_[ab] [+-][0-9]+ µs \([-0-9]+ to [-0-9]+\), regserver_burn_[ab] [+-][0-9]+ µs" "$T/rep/report.md"
check "... and the A/A's: nothing beyond noise" \
  grep -q "No frame moved beyond noise" "$T/rep/report.md"
svg=$T/rep/$(json "$T/rep/report.json" "$P | .flame_graph")
check "the flame graph is an SVG with a box for each burning function" \
  sh -c "grep -q '<svg' '$svg' && grep -q '<title>regserver_burn_a' '$svg' && grep -q '<title>regserver_burn_b' '$svg'"
check "report.html holds the flame graph inline (its tooltips work)" \
  grep -q 'figure class="flame"' "$T/rep/report.html"
soak profile "$T/s.db" --label b --against a --top 3 >"$T/prof.out" 2>&1
check_eq "soak profile: exit 0" "$?" 0
check "soak profile: the same answer as the report" \
  grep -qF "$(grep -m1 '^app.s CPU per request' "$T/rep/report.md" | sed 's/\\//g')" "$T/prof.out"
check_eq "soak profile --top 3: three frames" "$(grep -c ' → ' "$T/prof.out")" 3
soak profile "$T/s.db" --label b --against nosuch >"$T/none.out" 2>&1
check_eq "soak profile against a label with no profile: exit 1" "$?" 1
check "... saying why" grep -q "no CPU profile of b to compare with nosuch" "$T/none.out"
soak profile "$T/s.db" --label b >"$T/usage.out" 2>&1
check_eq "soak profile without --against: exit 2" "$?" 2

# --- redaction: what a report shows of a stack goes through it like every other text -----
cp "$T/s.db" "$T/leak.db"
sql "$T/leak.db" "UPDATE profiles SET stack = stack || ';Config.load(password=hunter2)' WHERE stack LIKE '%;regserver_burn_a'"
soak report "$T/leak.db" -o "$T/leak" >/dev/null 2>&1
check_eq "a frame holding a secret: the report is written" "$?" 0
check "... and the secret is in none of its files" sh -c "! grep -rq hunter2 '$T/leak'"
check "... while the frame is (redacted)" grep -rq 'password=\[redacted\]' "$T/leak/report.json"

# --- bad input: each an event and a sentence, the run goes on -------------------------------
start_regserver --burn-us 200 --quiet || { fail "regserver starts"; exit 1; }
busy() { # DB [soak run options]: a 3-s run of the busy regserver, its app set profiled
  local db=$1
  shift
  soak run -q --db "$db" --url "$REG_URL/register" --rate 50/s -d 3s --interval 500ms \
    -H 'Content-Type: application/x-www-form-urlencoded' --body 'username=u${seq}&email=e${seq}@x.test&password=p' \
    --set collect.app.pid="$REG_PID" --set collect.app.every=500ms --profile --label x "$@"
}
SOAK_PERF=/bin/false busy "$T/false.db" >"$T/false.out" 2>&1
check_eq "perf that cannot run: the run still ends 0" "$?" 0
check_eq "... its intervals are all there" \
  "$(sql "$T/false.db" "SELECT COUNT(*) > 0 FROM intervals WHERE phase = 'steady'")" 1
check_eq "... an event says so" \
  "$(sql "$T/false.db" "SELECT kind FROM events WHERE kind LIKE 'profile%'")" profile_unavailable
SOAK_PERF=/nonexistent/perf busy "$T/missing.db" >/dev/null 2>&1
check "perf missing: the event names the package" \
  sh -c "sqlite3 '$T/missing.db' \"SELECT detail FROM events WHERE kind = 'profile_unavailable'\" | grep -q 'linux-perf'"
soak report "$T/missing.db" -o "$T/missing" --no-plots >/dev/null 2>&1
check "... and the report says a profile is missing, and why" \
  grep -q "a CPU profile is missing: app: perf is not installed" "$T/missing/report.md"

# soak-perf on its own: a process that ends within the window, and one that never runs.
# The busy one ends when this script ends it, once perf has sampled it a while (however
# long perf takes to attach on this machine).
sh -c 'while :; do :; done' &
short=$!
_pids+=("$short")
soak-perf --db "$T/false.db" --run 1 --step 7 --source burst --pid "$short" --hz 999 --segment 1s >"$T/gone.out" 2>&1 &
perf_pid=$!
_pids+=("$perf_pid")
for _ in $(seq 1 300); do pgrep -P "$perf_pid" -x perf >/dev/null && break; sleep 0.1; done
sleep 2 # not a speed: two segments' samples of the busy process
kill "$short" 2>/dev/null
wait "$short" 2>/dev/null
sleep 1.5 # not a speed: the next segment, which finds the process gone
kill -INT "$perf_pid" 2>/dev/null
wait "$perf_pid"
check_eq "a process that ends mid-window: soak-perf exits 0" "$?" 0
check_eq "... says it as an event" \
  "$(sql "$T/false.db" "SELECT COUNT(*) FROM events WHERE kind = 'profile_process_gone'")" 1
check_eq "... and keeps what it sampled" \
  "$(sql "$T/false.db" "SELECT samples > 0 FROM profile_windows WHERE source = 'burst'")" 1
sleep 30 &
idle=$!
_pids+=("$idle")
soak-perf --db "$T/false.db" --run 1 --step 8 --source idle --pid "$idle" --segment 1s >"$T/idle.out" 2>&1 &
perf_pid=$!
_pids+=("$perf_pid")
sleep 3 # not a speed: three segments of an idle process, the window below
kill -INT "$perf_pid" 2>/dev/null
wait "$perf_pid"
check_eq "a window with no sample: soak-perf exits 0" "$?" 0
check_eq "... says it as an event" \
  "$(sql "$T/false.db" "SELECT COUNT(*) FROM events WHERE kind = 'profile_empty' AND source = 'idle'")" 1
kill "$idle" 2>/dev/null

# A JVM: the frames its JIT compiled are named from the symbol map soak-perf asks it for
# through its attach socket (not jcmd, a JVM itself: soak-perf runs here with perf alone on
# its PATH).  tests/it/jvm_burst.py's program keeps 300 methods hot for the window.
mkdir -p "$T/jvm" "$T/onlyperf" && ln -sf "$(command -v perf)" "$T/onlyperf/perf"
(cd "$T/jvm" && python3 "$TOP/tests/it/jvm_burst.py" 300 >Burst.java && javac Burst.java) ||
  fail "Burst.java compiles"
spawn "$T/burst.out" java -Xmx64m -XX:+PreserveFramePointer -cp "$T/jvm" Burst 20000 500
jvm=$SPAWNED_PID
wait_for 20 grep -q '^phase=jit' "$T/burst.out" || fail "the JVM starts" "$(cat "$T/burst.out")"
rm -f "/tmp/perf-$jvm.map"
PATH=$T/onlyperf "$BIN/soak-perf" --db "$T/false.db" --run 1 --step 9 --source jvm --pid "$jvm" \
  --hz 499 --segment 1s >"$T/jvm.out" 2>&1 &
perf_pid=$!
_pids+=("$perf_pid")
for _ in $(seq 1 300); do pgrep -P "$perf_pid" -x perf >/dev/null && break; sleep 0.1; done
sleep 3 # not a speed: segments of a busy JVM, each ended by asking it for its map
kill -INT "$perf_pid" 2>/dev/null
wait "$perf_pid"
check_eq "a JVM: soak-perf exits 0" "$?" 0
check "... its JIT wrote its symbol map when asked through its socket" test -s "/tmp/perf-$jvm.map"
check_eq "... the program's compiled methods are named in the stacks" \
  "$(sql "$T/false.db" "SELECT SUM(samples) > 0 FROM profiles WHERE source = 'jvm' AND stack LIKE '%Burst.%'")" 1
check_eq "... and next to no JIT code is left unnamed" \
  "$(sql "$T/false.db" "SELECT jit_unnamed * 10 <= samples FROM profile_windows WHERE source = 'jvm'")" 1
stop_pid "$jvm"
rm -f "/tmp/perf-$jvm.map"

done_testing
