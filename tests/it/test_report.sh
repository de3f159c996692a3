#!/usr/bin/env bash
# soak report end to end: tables and findings of a deterministic fixture against golden
# files, the memory verdict of every JDK 17 GC log read back through the database, real
# sweeps that saturate (and one that does not), a run reported while it runs, the edge
# cases of the command line, byte-identical output, and report.html rendered by headless
# Chromium.
#   UPDATE_GOLDEN=1 bash tests/it/test_report.sh    rewrites tests/golden/report/ on purpose
. "$(dirname "$0")/lib.sh"

GOLD=$TOP/tests/golden/report
JDK17=$TOP/tests/data/gc/jdk17
FIX=$T/report_fixture

# json FILE JQ-FILTER: one value from a report.json.
json() { jq -r "$2" "$1"; }

# --- the fixture builder ----------------------------------------------------------------
build_report_fixture "$FIX" || exit 1

# --- live runs start first; the deterministic checks run while they go -------------------
# A server that serves 4 requests at once, the others queueing: throughput tops out at
# 4 / 50 ms = 80 TPS.  And one without a capacity, which never saturates.
start_regserver --latency 50 --capacity 4 --quiet || fail "regserver --capacity starts"
CAP_PID=$REG_PID
CAP_PORT=$REG_PORT
start_regserver --latency 50 --quiet || fail "regserver starts"

sweep_ini() { # FILE LABEL URL
  cat >"$1" <<EOF
[scenario]
name = sweep $2
label = $2
duration = 6s
warmup = 1s
interval = 1s
[sweep]
concurrency = 2,8,16,32
step_duration = 6s
[request]
method = POST
url = $3
header = Content-Type: application/x-www-form-urlencoded
body = username=u\${nonce}_\${seq}&email=\${seq}@x.test&password=secret123
expect_status = 201
EOF
}
sweep_ini "$T/sat.ini" capped "http://127.0.0.1:$CAP_PORT/register"
sweep_ini "$T/lin.ini" linear "$REG_URL/register"
spawn "$T/sat.log" soak run -q --db "$T/sat.db" "$T/sat.ini"
SAT_PID=$SPAWNED_PID
spawn "$T/lin.log" soak run -q --db "$T/lin.db" "$T/lin.ini"
LIN_PID=$SPAWNED_PID
spawn "$T/live.log" soak run -q --db "$T/live.db" --url "$REG_URL/register" -c 4 -d 60s \
  --interval 1s --label live -H 'Content-Type: application/x-www-form-urlencoded' \
  --body 'username=v${nonce}_${seq}&email=${seq}@x.test&password=secret123' --expect-status 201
LIVE_PID=$SPAWNED_PID

# --- golden tables from the deterministic fixture -----------------------------------------
new_db "$T/g.db"
"$FIX" golden "$JDK17/stable-g1-gc.log" "$JDK17/leak-g1-gc.log" | sqlite3 "$T/g.db" ||
  fail "load the golden fixture"
soak report "$T/g.db" -o "$T/g" --no-plots >"$T/g.out" 2>&1
check_eq "report of the fixture exits 0" "$?" 0
check_golden "$GOLD" "$T/g" report.md summary.csv report.json

# What the fixture was built to show, checked on its own (not only against the golden).
J=$T/g/report.json
check_eq "six runs" "$(json "$J" '.runs | length')" 6
check_eq "run figures merge the steady intervals" "$(json "$J" '.runs[0].figures.requests')" \
  "$(sql "$T/g.db" "SELECT SUM(requests) FROM intervals WHERE run_id = 1 AND phase = 'steady'")"
check_eq "labels in order, baseline first" "$(json "$J" '[.labels[].name] | join(",")')" "tomcat9,tomcat10"
check_eq "20 users: tomcat10's TPS gain is real" \
  "$(json "$J" '.comparisons[] | select(.kind == "fixed" and .concurrency == 20) | .metrics.tps.verdict')" real
check_range "20 users: +20% TPS built in" \
  "$(json "$J" '.comparisons[] | select(.kind == "fixed" and .concurrency == 20) | .metrics.tps.change_pct')" 15 25
check_eq "5 users in the sweeps: same server, within noise" \
  "$(json "$J" '.comparisons[] | select(.kind == "sweep" and .concurrency == 5) | .metrics.tps.verdict')" noise
check_eq "run 1 memory normal (stable-g1)" "$(json "$J" '.runs[0].memory[0].verdict')" normal
check_eq "run 2 memory suspected leak (leak-g1)" "$(json "$J" '.runs[1].memory[0].verdict')" "suspected leak"
check_eq "tomcat9 saturates at its capacity, 10 users" \
  "$(json "$J" '.sweeps[0] | [.label, .saturation.saturated, .saturation.at_concurrency] | join(" ")')" \
  "tomcat9 true 10"
check_eq "tomcat10 saturates at 20 users" \
  "$(json "$J" '.sweeps[1] | [.label, .saturation.at_concurrency] | join(" ")')" "tomcat10 20"
check_eq "queueing past saturation" "$(json "$J" '[.sweeps[].queueing] | join(",")')" "true,true"
check_eq "interrupted and crashed runs marked" \
  "$(json "$J" '[.runs[4].status, .runs[5].status] | join(",")')" "interrupted,crashed"
check "run without collectors shows no CPU" grep -q '^| 5 (interrupted) | tomcat10 | 50 .*| — | — | — | — |$' "$T/g/report.md"
check_eq "client-side errors named as such" \
  "$(json "$J" '.runs[1].errors.client_ports.side')" client
check "findings say client-side" grep -q 'client-side error' "$T/g/report.md"
check "findings state the crash" grep -q 'Run 6 (tomcat9) crashed' "$T/g/report.md"
check "the method is stated" grep -q "Welch's t-test" "$T/g/report.md"

# --- edge cases ------------------------------------------------------------------------
new_db "$T/empty.db"
soak report "$T/empty.db" -o "$T/e" >"$T/e.out" 2>&1
check_eq "empty database: exit 2" "$?" 2
check "empty database: a clear message" grep -q "holds no runs" "$T/e.out"
soak report "$T/missing.db" -o "$T/e" >"$T/e.out" 2>&1
check_eq "missing database: exit 2" "$?" 2
check "missing database: names it" grep -q "cannot open '$T/missing.db'" "$T/e.out"
cp "$T/g.db" "$T/newer.db" && sql "$T/newer.db" "PRAGMA user_version = 99"
soak report "$T/newer.db" -o "$T/e" >"$T/e.out" 2>&1
check_eq "newer schema: exit 2" "$?" 2
check "newer schema: db_open's message" grep -q "written by a newer soak" "$T/e.out"
soak report "$T/g.db" -o "$T/one" --label tomcat9 --no-plots >/dev/null 2>&1
check_eq "one label: exit 0" "$?" 0
check "one label: no comparison section" bash -c "! grep -q '^## Comparison' '$T/one/report.md'"
check_eq "one label: its runs only" "$(json "$T/one/report.json" '[.runs[].label] | unique | join(",")')" tomcat9
soak report "$T/g.db" -o "$T/sel" --runs 2,1 --no-plots >/dev/null 2>&1
check_eq "--runs selects" "$(json "$T/sel/report.json" '[.runs[].key] | join(",")')" "1,2"
soak report "$T/g.db" -o "$T/e" --runs 99 >"$T/e.out" 2>&1
check_eq "--runs matching nothing: exit 2" "$?" 2
soak report "$T/g.db" -o "$T/e" --runs x >"$T/e.out" 2>&1
check_eq "bad --runs: exit 2" "$?" 2
soak report "$T/g.db" "$T/g.db" -o "$T/two" --runs 2:3 --no-plots >/dev/null 2>&1
check_eq "two databases: runs named DB:ID" "$(json "$T/two/report.json" '[.runs[].key] | join(",")')" "2:3"
soak report --bogus >"$T/e.out" 2>&1
check_eq "unknown option: exit 2" "$?" 2

# --- the memory verdict of every JDK 17 log, through the database -------------------------
groups=()
for f in "$JDK17"/stable-*.log "$JDK17"/leak-*.log; do
  case "$f" in *rotating*) continue ;; esac
  groups+=("$(basename "$f" .log)=$f")
done
# The rotated set is one JVM: oldest file first, the live file last.
groups+=("leak-g1-rotating=$JDK17/leak-g1-rotating.log.0,$JDK17/leak-g1-rotating.log.1,$JDK17/leak-g1-rotating.log")
new_db "$T/gc.db"
"$FIX" gc "${groups[@]}" | sqlite3 "$T/gc.db" || fail "load the GC fixture"
soak report "$T/gc.db" -o "$T/gc" --no-plots >"$T/gc.out" 2>&1
check_eq "report of the GC logs exits 0" "$?" 0
check_eq "one run per log" "$(json "$T/gc/report.json" '.runs | length')" "${#groups[@]}"
while IFS=$'\t' read -r name verdict; do
  case "$name" in stable-*) want=normal ;; *) want="suspected leak" ;; esac
  check_eq "memory verdict of $name" "$verdict" "$want"
done < <(json "$T/gc/report.json" '.runs[] | [.name, (.memory[0].verdict // "none")] | @tsv')

# --- pictures, byte-identical output, the page in a browser -------------------------------
soak report "$T/g.db" -o "$T/p1" >"$T/p1.out" 2>&1
check_eq "report with pictures exits 0" "$?" 0
soak report "$T/g.db" -o "$T/p2" >/dev/null 2>&1
check "same database twice: byte-identical output" diff -r "$T/p1" "$T/p2"
npics=$(json "$T/p1/report.json" '[.pictures[] | select(.drawn)] | length')
check_eq "every picture drawn" "$npics" "$(json "$T/p1/report.json" '.pictures | length')"
check_range "pictures of the fixture" "$npics" 15 30
missing=0
for n in $(json "$T/p1/report.json" '.pictures[].name'); do
  for e in svg png; do [ -s "$T/p1/img/$n.$e" ] || missing=$((missing + 1)); done
done
check_eq "every picture as SVG and PNG" "$missing" 0
check "SVG carries no date" bash -c "! grep -lE '20[0-9]{2}-[01][0-9]-[0-3][0-9]|[Dd]ate' '$T'/p1/img/*.svg"
ntables=$(grep -c '^| ---' "$T/p1/report.md")
check_eq "HTML: one inline SVG per picture" "$(grep -c '<svg' "$T/p1/report.html")" "$npics"
check "HTML: self-contained (no src=, no link)" bash -c "! grep -qE '<(img|link|script)[ >]' '$T/p1/report.html'"
if command -v chromium >/dev/null; then
  prof=$(mktemp -d "$T/chromium.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --dump-dom "file://$T/p1/report.html" >"$T/dom.html" 2>"$T/chromium.log"
  check_eq "browser DOM: every picture" "$(grep -o '<svg' "$T/dom.html" | wc -l)" "$npics"
  check_eq "browser DOM: every table" "$(grep -o '<table' "$T/dom.html" | wc -l)" "$ntables"
  check_eq "browser DOM: no broken image" "$(grep -o '<img' "$T/dom.html" | wc -l)" 0
  check "browser DOM: figures hold their plot" grep -q 'gnuplot_plot_1' "$T/dom.html"
else
  fail "browser DOM" "chromium not installed"
fi
# Scripts found at run time: $SOAK_PLOTS overrides the built-in copies.
cp -r "$TOP/plots" "$T/myplots"
sed -i "s/throughput (requests\/s)/edited axis label/" "$T/myplots/tps_time.gp"
SOAK_PLOTS=$T/myplots soak report "$T/g.db" -o "$T/p3" >/dev/null 2>&1
check "\$SOAK_PLOTS scripts are used" grep -q 'edited axis label' "$T/p3/img/tps_time.svg"
check "the scripts used are kept with the report" cmp -s "$T/myplots/tps_time.gp" "$T/p3/plots/tps_time.gp"
SOAK_GNUPLOT=$T/no-gnuplot soak report "$T/g.db" -o "$T/p4" >"$T/p4.out" 2>&1
check_eq "without gnuplot: still exit 0" "$?" 0
check "without gnuplot: said so" grep -q "gnuplot was not found" "$T/p4.out"

# --- a run reported while it runs, then interrupted ----------------------------------------
wait_for 20 bash -c "[ \"\$(sqlite3 '$T/live.db' \"SELECT COUNT(*) FROM intervals WHERE phase = 'steady'\" 2>/dev/null || echo 0)\" -ge 3 ]" ||
  fail "live run records intervals"
soak report "$T/live.db" -o "$T/live" --no-plots >"$T/live.out" 2>&1
check_eq "report of a running run exits 0" "$?" 0
check_eq "running run marked running" "$(json "$T/live/report.json" '.runs[0].status')" running
check "running run: said so" grep -q 'is still running' "$T/live/report.md"
stop_pid "$LIVE_PID" INT
soak report "$T/live.db" -o "$T/live" --no-plots >/dev/null 2>&1
check_eq "stopped run marked interrupted" "$(json "$T/live/report.json" '.runs[0].status')" interrupted

# --- real sweeps: one saturating at the server's capacity, one linear ----------------------
for p in "$SAT_PID" "$LIN_PID"; do
  for i in $(seq 1 600); do alive "$p" || break; sleep 0.1; done
done
wait "$SAT_PID"
check_eq "saturating sweep ran" "$?" 0
wait "$LIN_PID"
check_eq "linear sweep ran" "$?" 0
soak report "$T/sat.db" -o "$T/sat" --no-plots >/dev/null 2>&1
soak report "$T/lin.db" -o "$T/lin" --no-plots >/dev/null 2>&1
# Capacity 4 at 50 ms: 80 TPS at most, reached from the first level above 4 (at exactly 4
# the client's own turnaround between requests would leave the server idle a little).
check_eq "capacity 4: saturates at the first level above it, 8 users" \
  "$(json "$T/sat/report.json" '.sweeps[0].saturation | [.saturated, .at_concurrency] | join(" ")')" "true 8"
check_range "capacity 4 at 50 ms: peak near 80 TPS" \
  "$(json "$T/sat/report.json" '.sweeps[0].saturation.peak_tps')" 70 81
check_eq "capacity 4: queueing found" "$(json "$T/sat/report.json" '.sweeps[0].queueing')" true
check_eq "regserver: does not saturate" \
  "$(json "$T/lin/report.json" '.sweeps[0].saturation.saturated')" false
check "regserver: said so" grep -q 'does not saturate' "$T/lin/report.md"
check_eq "four levels: USL fitted" "$(json "$T/lin/report.json" '.sweeps[0].usl != null')" true

done_testing
