#!/usr/bin/env bash
# Live metrics and CI gates, with the real tools: a minute-long run (closed model, with
# collectors and a GC log) and an agent's open-model run serve /metrics while Debian's
# Prometheus 2.42 (private config, data directory and port; started and stopped here)
# scrapes them every second; afterwards PromQL over the scraped series agrees with `soak
# runs --json` (TPS within 2 %, histogram_quantile(0.99) within one bucket of the p99) and
# every expression of deploy/grafana's dashboard returns data.  promtool lints the text.
# Meanwhile, in parallel, `soak run --junit`, `soak report --junit` and `soak study --junit
# --metrics` write JUnit XML that tests/it/junit_check.py reads as a CI system would.
# Every check compares two views of the same requests, none bounds a rate or a latency.
. "$(dirname "$0")/lib.sh"

STARTED=$SECONDS
# E24 bounds of the latency histogram (soak/run/metrics.c), in seconds.
e24() {
  awk 'BEGIN { split("10 11 12 13 15 16 18 20 22 24 27 30 33 36 39 43 47 51 56 62 68 75 82 91", m, " ")
               for (d = 0; d < 7; d++) for (i = 1; i <= 24; i++) print m[i] * 10 ^ d / 1e6; print 100 }'
}
# width S: the width (s) of the latency bucket that holds S seconds.
width() { e24 | awk -v v="$1" 'v <= $1 && !done { print $1 - prev; done = 1 } { prev = $1 }'; }
prom() { # prom EXPR TIME: the first result's value, or "none"
  curl -sf --max-time 10 -G "http://127.0.0.1:$PROM_PORT/api/v1/query" \
    --data-urlencode "query=$1" --data-urlencode "time=$2" |
    jq -r '.data.result[0].value[1] // "none"'
}
# conforms NAME BASE: BASE.xml read by junit_check.py as a CI system would; its content
# into BASE.json.  An ok or not ok line NAME.
conforms() {
  if python3 "$TOP/tests/it/junit_check.py" "$2.xml" >"$2.json" 2>"$2.err"; then
    ok "$1"
  else
    fail "$1" "$(cat "$2.err")"
  fi
}
# rel A B: |A/B - 1|
rel() { awk -v a="$1" -v b="$2" 'BEGIN { d = a / b - 1; print d < 0 ? -d : d }'; }

# --- CI gates (in the background: they need no Prometheus) ----------------------------
junit_part() {
  local D=$T/junit rc
  mkdir -p "$D"
  # A server that stops answering for the run's last third (SIGSTOP once 20 of its 30
  # intervals are recorded, SIGCONT after the 30th): the TPS falls, a drift the verdict
  # sees however slowly the machine runs the test.
  start_regserver --latency 20 --quiet
  cat >"$D/drift.ini" <<EOF
[scenario]
label = drifting
concurrency = 10
duration = 6s
interval = 200ms
[request]
url = $REG_URL/health
[thresholds]
p99 = 10s
error_rate = 50%
tps_min = 1000000
drift_tps = 10%
EOF
  steady() { # steady N: the run has recorded N steady intervals or more
    [ -e "$D/a.db" ] &&
      [ "$(sql "$D/a.db" "SELECT count(*) FROM intervals WHERE phase = 'steady'" 2>/dev/null || echo 0)" -ge "$1" ]
  }
  soak run -q --db "$D/a.db" --junit "$D/a.xml" "$D/drift.ini" >"$D/a.out" 2>&1 &
  local run=$!
  wait_for 60 steady 20 || fail "junit: the drifting run records 20 intervals"
  kill -STOP "$REG_PID"
  wait_for 60 steady 30 || fail "junit: the drifting run records 30 intervals"
  kill -CONT "$REG_PID"
  wait "$run"
  check_eq "junit: a run with a failed threshold and drift exits 1" "$?" 1
  conforms "junit: soak run --junit conforms to the JUnit schema" "$D/a"
  j() { jq -r "$1" "$D/a.json"; }
  check_eq "junit: failures: tps_min and drift; no errors" "$(j '[.failures, .errors] | @tsv')" "2	0"
  check_eq "junit: one suite for the run, its properties" \
    "$(j '.suites[0].properties | [.run, .label, .status] | @tsv')" "1	drifting	done"
  check_eq "junit: a case per threshold of the step (p99, error_rate, tps_min)" \
    "$(j '[.suites[0].cases[] | select(.name | startswith("step 1 (10 VUs)"))] | length')" 3
  check_eq "junit: the failed threshold's message has the value and the limit" \
    "$(j '.suites[0].cases[] | select(.kind == "failure" and .type == "threshold") | .message' |
      grep -cE '^step 1 \(10 VUs\): tps [0-9.]+ req/s is below the limit 1e\+06 req/s$')" 1
  check_eq "junit: passed thresholds keep their measured value" \
    "$(j '.suites[0].cases[] | select(.kind == "passed" and (.name | test("p99 <= 10000 ms"))) | .out' |
      grep -cE '^p99 [0-9.]+ ms, limit 10000 ms$')" 1
  check_eq "junit: the drift case fails with the breach soak run printed" \
    "$(j '.suites[0].cases[] | select(.type == "drift") | [.kind, .name] | @tsv')" \
    "failure	drift: degrading"
  check "junit: the drift failure names the rise and the limit" \
    grep -qE 'drift: TPS fell [0-9.]+% .*at most 10% allowed' <(j '.suites[0].cases[] | select(.type == "drift") | .message')
  check_eq "junit: the same breach is in soak run's output" \
    "$(grep -c 'threshold failed: drift: TPS fell' "$D/a.out")" 1

  # A validity warning (over 1 % failed) is a skipped case; the exit status is the same
  # with and without --junit.
  stop_pid "$REG_PID"
  start_regserver --latency 2 --error-rate 0.2 --quiet
  cat >"$D/errors.ini" <<EOF
[scenario]
label = failing
concurrency = 4
duration = 2s
interval = 500ms
[request]
url = $REG_URL/health
[thresholds]
error_rate = 50%
EOF
  soak run -q --db "$D/b0.db" "$D/errors.ini" >/dev/null 2>&1
  rc=$?
  soak run -q --db "$D/b.db" --junit "$D/b.xml" "$D/errors.ini" >/dev/null 2>&1
  check_eq "junit: the exit status is the same with --junit (0 and 0)" "$rc $?" "0 0"
  conforms "junit: a run with warnings conforms" "$D/b"
  check_eq "junit: a validity warning is a skipped case with its sentence" \
    "$(jq -r '.suites[0].cases[] | select(.name == "validity: errors") | .kind' "$D/b.json") $(jq -r '.suites[0].cases[] | select(.name == "validity: errors") | .message' "$D/b.json" | grep -c 'failed')" \
    "skipped 1"
  check_eq "junit: no failure and no error when the thresholds pass" \
    "$(jq -r '[.failures, .errors] | @tsv' "$D/b.json")" "0	0"

  # Interrupted: an error case, exit 130.  A target that cannot be reached: no run, an
  # error case of its own, exit 3.
  soak run -q --db "$D/c.db" --junit "$D/c.xml" --url "$REG_URL/health" -c 2 -d 30s \
    --interval 500ms >/dev/null 2>&1 &
  local pid=$!
  sleep 1.5
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  conforms "junit: an interrupted run's file conforms" "$D/c"
  check_eq "junit: interrupted: exit 130, the run's case is an error" \
    "$rc $(jq -r '.suites[0].cases[0] | [.kind, .message] | @tsv' "$D/c.json")" \
    "130 error	the run interrupted: SIGINT"
  soak run -q --db "$D/d.db" --junit "$D/d.xml" --url "http://127.0.0.1:$(free_port)/" -d 2s \
    >/dev/null 2>&1
  rc=$?
  conforms "junit: an unreachable target's file conforms" "$D/d"
  check_eq "junit: unreachable target: exit 3, one error case" \
    "$rc $(jq -r '[.tests, .errors] | @tsv' "$D/d.json")" "3 1	1"

  # soak report --junit reads the same from the database.
  soak report "$D/a.db" -o "$D/report" --no-plots --junit "$D/e.xml" >/dev/null 2>"$D/e.out"
  check_eq "junit: soak report --junit exits 0" "$?" 0
  conforms "junit: soak report --junit conforms" "$D/e"
  check_eq "junit: soak report --junit and soak run --junit agree" \
    "$(jq -c '[.tests, .failures, .errors, .skipped, [.suites[].cases[] | [.name, .kind]]]' "$D/e.json")" \
    "$(jq -c '[.tests, .failures, .errors, .skipped, [.suites[].cases[] | [.name, .kind]]]' "$D/a.json")"
}

study_part() {
  local D=$T/study line port rc
  mkdir -p "$D"
  start_regserver --latency 2 --quiet
  cat >"$D/reg.ini" <<EOF
[scenario]
concurrency = 2
duration = 2s
interval = 500ms
[request]
url = $REG_URL/health
[thresholds]
p99 = 1ms
EOF
  cat >"$D/study.ini" <<EOF
[study]
name = gates
scenario = reg.ini
rounds = 2
warmup_runs = 1
keep_running = yes
[target.reg]
url = $REG_URL/health
EOF
  spawn "$D/study.log" soak study -q --db "$D/s.db" --metrics 127.0.0.1:0 --junit "$D/s.xml" \
    "$D/study.ini"
  local spid=$SPAWNED_PID
  line=$(wait_line "$D/study.log" 'live metrics on http://127\.0\.0\.1:[0-9]+/metrics' 10)
  port=$(echo "$line" | sed -E 's|.*127\.0\.0\.1:([0-9]+)/metrics.*|\1|')
  # the study's series and, once a run goes, the run's
  wait_for 15 sh -c "curl -sf http://127.0.0.1:$port/metrics | grep -q '^soak_requests_total{'" ||
    fail "study: a run's series appear on /metrics"
  curl -sf "http://127.0.0.1:$port/metrics" >"$D/m.txt"
  check_eq "study: /metrics shows the study: 2 rounds, 2 runs planned" \
    "$(grep -cE '^soak_study_(rounds|runs)\{study="1"\} 2$' "$D/m.txt")" 2
  check "study: its text passes promtool check metrics" \
    sh -c "promtool check metrics <'$D/m.txt' >'$D/lint.out' 2>&1"
  wait_for 60 eval "! alive $spid" || fail "study: ends within 60 s"
  wait "$spid"
  rc=$?
  conforms "study: --junit conforms" "$D/s"
  check_eq "study: exit 1 (thresholds), a suite per run (1 warm-up, 2 measured)" \
    "$rc $(jq -r '.suites | length' "$D/s.json")" "1 3"
  check_eq "study: the warm-up run's threshold is skipped, the measured runs' fail" \
    "$(jq -r '[.suites[] | (.properties.warmup // "0") + ":" + ([.cases[] | select(.name | startswith("step ")) | .kind] | join(","))] | join(" ")' "$D/s.json")" \
    "1:skipped 0:failure 0:failure"
}

# in_background FUNC: runs FUNC in a subshell of its own (its processes killed when it
# ends), its TAP lines into $T/FUNC.tap.
in_background() {
  (
    _pids=()
    trap 'for p in "${_pids[@]}"; do alive "$p" && stop_pid "$p" KILL; done' EXIT
    "$1"
  ) >"$T/$1.tap" 2>&1 &
}
in_background junit_part
JUNIT_BG=$!
in_background study_part
STUDY_BG=$!

# --- live metrics: two runs, a private Prometheus ------------------------------------------
start_regserver --latency 20 --quiet
LIVE_PID=$REG_PID
: >"$T/gc.log"
(
  # A JVM's GC log: a young collection a second, 150-156 MB -> 60-64 MB of 256 MB.
  t0=$(date +%s%3N)
  for i in $(seq 0 90); do
    [ -e "$T/gc.log" ] || break
    now=$(date +%s%3N)
    printf '[%s][%dms][info][gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) %dM->%dM(256M) %d.%03dms\n' \
      "$(date -u -d "@$((now / 1000)).$((now % 1000))" +%Y-%m-%dT%H:%M:%S.%3N+0000)" \
      $((now - t0 + 500)) "$i" $((150 + i % 7)) $((60 + i % 5)) $((2 + i % 3)) $((i * 37 % 1000)) \
      >>"$T/gc.log"
    sleep 1
  done
) &
GC_PID=$!
_pids+=("$GC_PID")
cat >"$T/closed.ini" <<EOF
[scenario]
name = live closed
label = live-closed
concurrency = 10
duration = 60s
warmup = 20s
interval = 5s
[request]
url = $REG_URL/health
[collect.app]
pid = $LIVE_PID
gc_log = $T/gc.log
host = yes
every = 1s
[collect.db]
pid = $GC_PID
every = 1s
EOF
# Prometheus first, ready before the runs begin: how long it takes to start on a busy
# machine (over 20 s once, beside the load-free lane: it then missed the runs' warm-up)
# must not decide what it scrapes.  It finds the runs' /metrics in a file it watches
# (file_sd), written once their ports are known (one is the kernel's choice).
PROM_PORT=$(free_port)
echo '[]' >"$T/targets.json"
cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: soak
    file_sd_configs:
      - files: ['$T/targets.json']
        refresh_interval: 1s
EOF
check "promtool check config: the test's and deploy/grafana's scrape configs" \
  sh -c "promtool check config '$T/prom.yml' '$TOP/deploy/grafana/prometheus.yml' >'$T/promtool.out' 2>&1"
spawn "$T/prom.log" prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom-data" \
  --web.listen-address="127.0.0.1:$PROM_PORT"
PROM=$SPAWNED_PID
wait_for 120 curl -sf -o /dev/null "http://127.0.0.1:$PROM_PORT/-/ready" ||
  fail "Prometheus starts" "$(tail -5 "$T/prom.log")"
spawn "$T/closed.log" soak run --db "$T/closed.db" --metrics 127.0.0.1:0 "$T/closed.ini"
CLOSED=$SPAWNED_PID
# The agent's /metrics comes from the scenario's key (its own listener, for the run).
M2=$(free_port)
spawn "$T/open.log" soak run --db "$T/open.db" --set "scenario.metrics=127.0.0.1:$M2" --agent 2/3 --group live \
  --start-in 0s --url "$REG_URL/health" --label live-open --rate 300/s -d 60s --warmup 20s \
  --interval 5s
OPEN=$SPAWNED_PID
port_of() { wait_line "$1" 'live metrics on http://127\.0\.0\.1:[0-9]+/metrics' 10 |
  sed -E 's|.*127\.0\.0\.1:([0-9]+)/metrics.*|\1|'; }
M1=$(port_of "$T/closed.log")
check_eq "the runs print where /metrics is" "$(port_of "$T/open.log") ${M1:+known}" "$M2 known"
printf '[{"targets": ["127.0.0.1:%s", "127.0.0.1:%s"]}]\n' "$M1" "$M2" >"$T/targets.json.new" &&
  mv "$T/targets.json.new" "$T/targets.json"
up2() {
  [ "$(curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode 'query=sum(up{job="soak"})' |
    jq -r '.data.result[0].value[1] // 0')" = 2 ]
}
# A port in use: the run fails before it records anything (exit 3), saying so.
soak run -q --db "$T/busy.db" --url "$REG_URL/health" -d 1s --set "scenario.metrics=127.0.0.1:$M1" \
  >"$T/busy.out" 2>&1
check_eq "a metrics port in use: exit 3, nothing recorded" \
  "$? $(grep -c 'metrics: cannot listen on' "$T/busy.out") $(test -e "$T/busy.db" && echo db)" "3 1 "
if wait_for 30 up2; then
  echo "# Prometheus scrapes both runs $((SECONDS - STARTED)) s after the start"
  ok "Prometheus scrapes both runs"
else
  fail "Prometheus scrapes both runs" "$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets" | head -c 600)"
fi

# The text as served, mid-run, linted.
for p in "$M1" "$M2"; do
  curl -sf -D "$T/h.$p" "http://127.0.0.1:$p/metrics" >"$T/m.$p"
  check "/metrics of :$p passes promtool check metrics" \
    sh -c "promtool check metrics <'$T/m.$p' >'$T/lint.$p' 2>&1 && ! [ -s '$T/lint.$p' ]"
done
check "the content type is Prometheus' text format 0.0.4" \
  grep -qi '^content-type: text/plain; version=0.0.4' "$T/h.$M1"
check_eq "every series of a run carries its id, label and agent" \
  "$(grep -v '^#' "$T/m.$M1" | grep -vc '^[a-z_]*{run="1",label="live-closed",agent="1"[,}]')" 0
check_eq "an agent's series say which agent" \
  "$(grep -c '^soak_requests_total{run="1",label="live-open",agent="2"}' "$T/m.$M2")" 1
check_eq "the open run has its start-lag histogram, the closed one none" \
  "$(grep -c '^soak_start_lag_seconds_count' "$T/m.$M2") $(grep -c '^soak_start_lag_seconds' "$T/m.$M1")" "1 0"
# (as many as soak/engine/stats.c names)
check_eq "errors by class: every class from the start" \
  "$(grep -c '^soak_errors_total{' "$T/m.$M1")" \
  "$(sed -n '/class_names\[ERR_NCLASS\]/,/};/p' "$TOP/soak/engine/stats.c" | grep -o '"[a-z0-9_]*"' | wc -l)"
check_eq "the latency histogram has 169 bounds and +Inf" \
  "$(grep -c '^soak_request_duration_seconds_bucket{' "$T/m.$M1")" 170
for m in soak_source_cpu_ratio soak_source_resident_memory_bytes soak_host_cpu_ratio \
  soak_gc_heap_after_bytes soak_gc_pause_seconds_count; do
  wait_for 10 sh -c "curl -sf http://127.0.0.1:$M1/metrics | grep -q '^$m{.*source=\"app\"'" ||
    fail "the collectors' $m shows" "$(grep "^$m" "$T/m.$M1" | head -3)"
done
ok "the collectors' samples and GC events show (CPU, RSS, host CPU, heap after GC, pauses)"

wait_for 100 eval "! alive $CLOSED && ! alive $OPEN" || fail "both runs end within 100 s"
wait "$CLOSED"
check_eq "the closed run exits 0" "$?" 0
wait "$OPEN"
check_eq "the agent's run exits 0" "$?" 0
rm -f "$T/gc.log"
echo "# runs over: $((SECONDS - STARTED)) s"

read -r WFROM WTO < <(sql "$T/closed.db" -separator ' ' 'SELECT window_start_ms, window_end_ms FROM steps WHERE run_id = 1 AND idx = 0')
W=$((WTO - WFROM))
AT=$(awk -v t="$WTO" 'BEGIN { printf "%.3f", t / 1000 }')
FROM=$(awk -v t="$WFROM" 'BEGIN { printf "%.3f", t / 1000 }')
soak runs --db "$T/closed.db" --json >"$T/runs.json"
TPS=$(jq -r '.[0].tps' "$T/runs.json")
P99=$(jq -r '.[0].p99_ms / 1000' "$T/runs.json")
check "Prometheus had the run's counter before its measured window began" \
  test "$(prom 'soak_requests_total{label="live-closed"}' "$FROM")" != none
PTPS=$(prom "sum(rate(soak_requests_total{label=\"live-closed\"}[${W}ms]))" "$AT")
echo "# measured window ${W} ms; soak runs: TPS $TPS, p99 ${P99} s; PromQL: rate $PTPS"
check_range "rate(soak_requests_total) over the window agrees with soak runs' TPS (|ratio - 1|)" \
  "$(rel "$PTPS" "$TPS")" 0 0.02
# How short a window would do: the last 15 s alone (three intervals), a figure only.
read -r N15 L15 < <(sql "$T/closed.db" -separator ' ' "SELECT sum(requests), sum(length_ms) FROM intervals WHERE run_id = 1 AND phase = 'steady' AND start_ms >= $WTO - 15000")
P15=$(prom "sum(rate(soak_requests_total{label=\"live-closed\"}[15s]))" "$AT")
echo "# the last 15 s alone: PromQL rate $P15, the intervals' $(awk -v n="$N15" -v l="$L15" 'BEGIN { print n * 1000 / l }') ($(rel "$P15" "$(awk -v n="$N15" -v l="$L15" 'BEGIN { print n * 1000 / l }')") apart)"
PP99=$(prom "histogram_quantile(0.99, sum by (le) (rate(soak_request_duration_seconds_bucket{label=\"live-closed\"}[${W}ms])))" "$AT")
BW=$(awk -v a="$(width "$P99")" -v b="$(width "$PP99")" 'BEGIN { print (a > b ? a : b) }')
echo "# histogram_quantile(0.99): $PP99 s against soak's p99 $P99 s; bucket width $BW s"
check_range "histogram_quantile(0.99) is within one bucket of soak runs' p99 (|difference| s)" \
  "$(awk -v a="$PP99" -v b="$P99" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 0 "$BW"
check_eq "no errors, in both views" \
  "$(prom 'sum(soak_errors_total{label="live-closed"})' "$AT") $(jq -r '.[0].errors' "$T/runs.json")" "0 0"
HEAP=$(prom 'soak_gc_heap_after_bytes{label="live-closed",source="app"}' "$AT")
check_range "heap after GC is the log's newest (60-64 MB)" "$HEAP" $((60 * 1048576)) $((64 * 1048576))
check_eq "the agent's share of the rate: 300/s over 3 agents" \
  "$(prom 'soak_step_arrivals_per_second{label="live-open"}' "$AT")" 100

# Every PromQL expression of the dashboard returns data, at the closed run's window end.
python3 "$TOP/tests/it/grafana_check.py" "http://127.0.0.1:$PROM_PORT" "$AT" 20s \
  "$TOP/deploy/grafana/soak-live.json" "$TOP"/deploy/grafana/provisioning/*/*.yaml 2>&1 | sed 's/^ok - /ok - grafana: /; s/^not ok - /not ok - grafana: /' >"$T/grafana.tap"
cat "$T/grafana.tap"
_failures=$((_failures + $(grep -c '^not ok' "$T/grafana.tap")))

stop_pid "$PROM"
check "Prometheus stops on SIGTERM" grep -q 'See you next time' "$T/prom.log"
stop_pid "$LIVE_PID"
echo "# Prometheus part: $((SECONDS - STARTED)) s"

wait "$JUNIT_BG"
cat "$T/junit_part.tap"
wait "$STUDY_BG"
cat "$T/study_part.tap"
_failures=$((_failures + $(cat "$T/junit_part.tap" "$T/study_part.tap" | grep -c '^not ok')))
echo "# test_metrics: $((SECONDS - STARTED)) s"
done_testing
