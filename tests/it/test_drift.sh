#!/usr/bin/env bash
# Does a run degrade over time: the drift verdict end to end.  The four cases of a
# deterministic fixture (stable with memory that levels off and one at its limit, latency
# rising in steps, warming up, too short) against golden files and on their own; a real
# run against regserver whose capacity halves halfway through, which must come out
# degrading on TPS and p99 and fail its drift thresholds (exit 1, events); the drain
# interval never a rate in any picture or table; the scenario keys and the collector
# option.
#   UPDATE_GOLDEN=1 bash tests/it/test_drift.sh    rewrites tests/golden/drift/ on purpose
. "$(dirname "$0")/lib.sh"

GOLD=$TOP/tests/golden/drift
FIX=$T/report_fixture

json() { jq -r "$2" "$1"; }

# --- the live run starts first; the fixture's checks run while it goes --------------------
# 16 users against 8 slots of 20 ms: 400 TPS at 40 ms; from 12 s on, 2 slots: 100 TPS at
# 160 ms.  The run's measured window is 1..24 s, so the switch falls in its middle third.
# (A drop this clear stays real on a busy machine, whose hiccups make a third's per-interval
# p99s spread widely: 13 of them a third is little evidence for a small change.)
start_regserver --latency 20 --capacity 8 --capacity-after 12s:2 --threads 2 --quiet ||
  fail "regserver --capacity-after starts"
cat >"$T/live.ini" <<EOF
[scenario]
name = drift live
label = halved
concurrency = 16
duration = 24s
warmup = 1s
interval = 500ms
[request]
method = POST
url = $REG_URL/register
header = Content-Type: application/x-www-form-urlencoded
body = username=d\${nonce}_\${seq}&email=\${seq}@x.test&password=secret123
expect_status = 201
[thresholds]
drift_p99 = 20%
drift_tps = 10%
drift_mean = 500%
[collect.app]
pid = $REG_PID
every = 1s
memory_limit = 8G
EOF
spawn "$T/live.log" soak run --db "$T/live.db" "$T/live.ini"
LIVE_PID=$SPAWNED_PID

build_report_fixture "$FIX" || exit 1

# --- golden: the four cases --------------------------------------------------------------
new_db "$T/f.db"
"$FIX" drift | sqlite3 "$T/f.db" || fail "load the drift fixture"
soak report "$T/f.db" -o "$T/g" --no-plots >"$T/g.out" 2>&1
check_eq "report of the drift fixture exits 0" "$?" 0
check_golden "$GOLD" "$T/g" report.md details.md report.json

# What each case was built to show, checked on its own.
J=$T/g/report.json
check_eq "verdicts: stable, degrading, improving, too_short, degrading" \
  "$(json "$J" '[.runs[].drift.verdict] | join(",")')" "stable,degrading,improving,too_short,degrading"
# metric RUN PARTS NAME [SOURCE]: the metric object of a run's comparison.
metric() {
  json "$J" ".runs[$1].drift.comparisons[] | select(.parts == \"$2\") | .metrics[] |
    select(.metric == \"$3\" and .source == ${4:-null})"
}
check_eq "stable: TPS within noise" "$(metric 0 thirds tps | jq -r .verdict)" noise
check_range "stable: the database's memory grows from the first third to the last (%) ..." \
  "$(metric 0 thirds memory '"db"' | jq -r .change_pct)" 30 45
check_eq "... but levels off, so it does not count" \
  "$(metric 0 thirds memory '"db"' | jq -r '[.counted, .effect] | join(",")')" "false,none"
check "... and the sentence says so, with the memory verdict" \
  grep -q '^stable .*memory (db) +[0-9.]*% ([a-z]*) from the first third to the last, not counted: memory is judged on its own (levels off)' <<<"$(json "$J" '.runs[0].drift.sentence')"
check "the findings name the label's stable run" grep -q '^- drift — .*run 1 stable from the first third' "$T/g/report.md"
check_eq "stable: memory verdicts levels_off (db), at_limit (cache), filling (pg)" \
  "$(json "$J" '[.runs[0].rss[] | .source + "=" + .verdict] | join(",")')" "cache=at_limit,db=levels_off,pg=filling"
# The issue's PostgreSQL: its memory rises steadily all the run (+300 MB/h, R² 1), its
# shared buffers filling: a cache filling towards the 165.4 MB it maps, and the run stable.
pg() { json "$J" ".runs[$1].rss[] | select(.source == \"pg\") | $2"; }
check_eq "stable: the PostgreSQL's whole memory keeps rising ..." "$(pg 0 .kinds.shared.verdict)" rising
check_eq "... its private memory does not: a cache filling, by its shared memory" \
  "$(pg 0 '[.kinds.private.verdict, .by, (.shared_bound_mb | floor), (.shared_buffers_mb | floor)] | join(",")')" "flat,shared,165,128"
check "... said with its level and its bound, and what it is" \
  grep -q '^cache filling (1[0-9][0-9] of 165 MB): shared memory grew .* +300\.[0-9] MB/h to the end, about [0-9]* bytes per request answered, full in about .* (shared_buffers 128 MB .*: data that grows with every request .*not a leak; private memory flat at 2[45]\.[0-9] MB$' <<<"$(pg 0 .why)"
check "... named beside the stable verdict, not counted" \
  grep -q 'memory (pg) +[0-9.]*% (real) from the first third to the last, not counted: memory is judged on its own (a cache filling: 1[0-9][0-9] of 165 MB)' <<<"$(json "$J" '.runs[0].drift.sentence')"
check "the Process memory table names the level and the bound" \
  grep -q '^| 1 | drift | pg | .* | filling (1[0-9][0-9] of 165 MB) |$' "$T/g/details.md"
check_eq "degrading: a backend leaking beside a full cache is a leak, by its private memory" \
  "$(pg 1 '[.verdict, .by, .kinds.shared.verdict] | join(",")')" "rising,private,flat"
check "... with its rate" grep -q '^private memory keeps rising: +\(59\|60\)\.[0-9] MB/h over the 19m55s measured' <<<"$(pg 1 .why)"
check_range "levels off: the growth of the first minutes is named (MB)" \
  "$(json "$J" '.runs[0].rss[] | select(.source == "db") | .growth_mb')" 170 190
check_range "at its limit: the limit is named (MB)" \
  "$(json "$J" '.runs[0].rss[] | select(.source == "cache") | .limit_mb')" 255.9 256.1
# Latency 100 -> 175 % in steps of 15 every 40 intervals: the first third averages 107.5 %,
# the last 167.5 %: +56 % mean, and TPS (30 users, Little's law) -36 %.
check_range "degrading: mean +56 % built in" "$(metric 1 thirds mean | jq -r .change_pct)" 50 62
check_eq "degrading: mean, real and worse" "$(metric 1 thirds mean | jq -r '[.verdict, .effect] | join(",")')" "real,worse"
check_range "degrading: TPS -36 % built in" "$(metric 1 thirds tps | jq -r .change_pct)" -40 -32
check_eq "degrading: p99 worse" "$(metric 1 thirds p99 | jq -r .effect)" worse
check_eq "degrading: the same CPU for fewer requests costs more per request" \
  "$(metric 1 thirds cpu_per_request '"app"' | jq -r .effect)" worse
# The verdict is about the service: GC and memory are said beside it, never in it.
check_eq "degrading: the GC works harder, named, not counted" \
  "$(metric 1 thirds gc_time '"app"' | jq -r '[.verdict, .counted, .effect] | join(",")')" "real,false,none"
check_eq "degrading: memory that keeps rising is named, not counted" \
  "$(metric 1 thirds memory '"db"' | jq -r '[.verdict, .counted, .effect] | join(",")')" "real,false,none"
check "degrading: the sentence gives the memory verdict beside the drift's" \
  grep -q 'fragmentation); .*memory (db) +[0-9.]*% (real) from the first third to the last, not counted: memory is judged on its own (rising)\.$' <<<"$(json "$J" '.runs[1].drift.sentence')"
check "degrading: the sentence says what and how much" \
  grep -q '^degrading over its 20m measured window: .*p99 +[0-9.]*% (real)' <<<"$(json "$J" '.runs[1].drift.sentence')"
check "degrading: the findings give it in full" \
  grep -q '^- drift — run 2: degrading over its 20m measured window: .*p99 +[0-9.]*% (real)' "$T/g/report.md"
check_eq "improving: TPS better" "$(metric 2 thirds tps | jq -r .effect)" better
check "improving: warming up, said so" grep -q 'run 3: improving .*warming up' "$T/g/report.md"
check "too short: said why" grep -q '^too short to judge drift: 12 steady intervals' <<<"$(json "$J" '.runs[3].drift.sentence')"
check_eq "too short: no comparison" "$(json "$J" '.runs[3].drift.comparisons | length')" 0
# The machine probe: flat on runs 1-4 (180..188 µs), rising with the latency on run 5.
check_eq "machine probe: only run 5's machine is suspected" \
  "$(json "$J" '[.runs[].drift.machine_suspect] | map(tostring) | join(",")')" "false,false,false,false,true"
check_eq "machine probe: flat on the degrading run, noise" "$(metric 1 thirds machine_probe | jq -r '[.verdict, .counted] | join(",")')" "noise,false"
check_range "machine probe: +56 % built in on run 5" "$(metric 4 thirds machine_probe | jq -r .change_pct)" 50 62
check_eq "machine probe: real, and never counted" "$(metric 4 thirds machine_probe | jq -r '[.verdict, .counted, .effect] | join(",")')" "real,false,none"
check_eq "machine probe: run 5 is still degrading on the same figures as run 2" \
  "$(metric 4 thirds mean | jq -r '[.verdict, .effect] | join(",")')" "real,worse"
check "machine probe: run 5's sentence suspects the machine" \
  grep -q "but the machine's own probe time +[0-9.]*% (real) from the first third to the last as well: the machine soak ran on slowed under the run .*suspect the machine before the server" <<<"$(json "$J" '.runs[4].drift.sentence')"
check "machine probe: run 2's sentence blames the server" \
  grep -q ': each request costs more CPU as the run goes on' <<<"$(json "$J" '.runs[1].drift.sentence')"
check "machine probe: the drift table names it with run 5" \
  grep -q "^| 5 | drift | .* degrading (.*the machine's own probe time +[0-9.]*% (not counted)" "$T/g/details.md"
check "the drift table" grep -q '^## Drift: does it degrade over time?' "$T/g/details.md"

# --- pictures, and the drain interval (30 requests in 5 ms) never a rate -------------------
soak report "$T/f.db" -o "$T/p" >"$T/p.out" 2>&1
check_eq "report with pictures exits 0" "$?" 0
check_eq "drift pictures of the four judged runs, none of the short one" \
  "$(json "$T/p/report.json" '[.pictures[].name | select(startswith("drift_"))] | join(",")')" \
  "drift_latency_1,drift_tps_1,drift_latency_2,drift_tps_2,drift_latency_3,drift_tps_3,drift_latency_5,drift_tps_5"
check_eq "every drift picture drawn" \
  "$(json "$T/p/report.json" '[.pictures[] | select(.name | startswith("drift_")) | select(.drawn)] | length')" 8
check_eq "latency picture: first and last third" \
  "$(grep -c '^x "' "$T/p/data/drift_latency_2.dat")" 2
drain_rate=$(sql "$T/f.db" "SELECT requests * 1000 / length_ms FROM intervals WHERE phase = 'drain'")
check_eq "the fixture's drain interval, as a rate, would be 6,000/s" "$drain_rate" 6000
# Every rate in every picture's data and every table stays within the run's own range.
max_rate=$(sql "$T/f.db" "SELECT MAX(requests * 1000.0 / length_ms) FROM intervals WHERE phase != 'drain'")
over=$(awk -v m="$max_rate" 'FNR > 1 && NF == 2 && $2 + 0 > m * 1.001 { print FILENAME ": " $0 }' \
  "$T/p/data/tps_time.dat" "$T/p/data"/drift_tps_*.dat)
check_eq "no TPS point above the highest interval's rate (the drain left out)" "$over" ""
check "the drain is no row of any TPS picture" \
  bash -c "! grep -q '^20\.08[0-9]* ' '$T/p/data/tps_time.dat' '$T/p/data/drift_tps_1.dat'"
check "no table shows 6,000/s" bash -c "! grep -qE '(^|[^0-9.])(5|6)[0-9]{3}\.[0-9] ' '$T/p/report.md' '$T/p/details.md'"
check_eq "summary.csv: run 1's TPS is its measured window's" \
  "$(awk -F, 'NR == 2 { print ($15 > 280 && $15 < 320) }' "$T/p/summary.csv")" 1

# --- scenario keys and the collector option -----------------------------------------------
printf '[scenario]\nname = x\nduration = 1m\n[request]\nurl = http://127.0.0.1:1/\n[thresholds]\ndrift_p99 = lots\n' >"$T/bad.ini"
soak check "$T/bad.ini" >"$T/bad.out" 2>&1
check_eq "bad drift_p99: exit 2" "$?" 2
check "bad drift_p99: FILE:LINE" grep -q "bad.ini:7: drift_p99: expected a change in percent such as 20%, not 'lots'" "$T/bad.out"
printf '[scenario]\nname = x\nduration = 1m\n[request]\nurl = http://127.0.0.1:1/\n[collect.db]\npid = 1\nmemory_limit = 12 apples\n' >"$T/bad2.ini"
soak check "$T/bad2.ini" >"$T/bad2.out" 2>&1
check_eq "bad memory_limit: exit 2" "$?" 2
check "bad memory_limit: FILE:LINE" grep -q "bad2.ini:8: memory_limit: bad size" "$T/bad2.out"
soak check "$T/live.ini" >"$T/check.out" 2>&1
check "soak check shows the drift thresholds" \
  grep -q 'drift thresholds .*tps falls <= 10% mean rises <= 500% p99 rises <= 20%' "$T/check.out"
check "soak check shows the memory limit" grep -q 'memory limit 8192.0 MB' "$T/check.out"
soak-procstat --db "$T/ps.db" --source me --pid $$ --memory-limit 512M --every 200ms --for 1s \
  >"$T/ps.out" 2>&1
check_eq "soak-procstat --memory-limit: exit 0" "$?" 0
check_eq "soak-procstat --memory-limit: recorded as mem_limit_kb" \
  "$(sql "$T/ps.db" "SELECT DISTINCT value FROM samples WHERE metric = 'mem_limit_kb'")" 524288.0
soak-procstat --db "$T/ps.db" --source me --pid $$ --memory-limit 0 --for 1s >"$T/ps.out" 2>&1
check_eq "soak-procstat --memory-limit 0: exit 2" "$?" 2

# --- the live run: capacity halved halfway through ----------------------------------------
for i in $(seq 1 900); do alive "$LIVE_PID" || break; sleep 0.1; done
wait "$LIVE_PID"
check_eq "live run: the drift thresholds fail it (exit 1)" "$?" 1
stop_pid "$REG_PID" TERM
check "live run: the verdict is printed" grep -q 'soak run: run 1 drift: degrading' "$T/live.log"
check "live run: TPS fell beyond 10 %" grep -q 'threshold failed: drift: TPS fell [0-9.]*% from the first third to the last (real; at most 10% allowed)' "$T/live.log"
check "live run: p99 rose beyond 20 %" grep -q 'threshold failed: drift: p99 rose [0-9.]*% from the first third to the last (real; at most 20% allowed)' "$T/live.log"
check "live run: mean within its 500 %" bash -c "! grep -q 'drift: mean rose' '$T/live.log'"
check_eq "live run: two threshold events" \
  "$(sql "$T/live.db" "SELECT COUNT(*) FROM events WHERE kind = 'threshold' AND detail LIKE 'drift:%'")" 2
check "live run: the drain line is a count, not a rate" \
  grep -qE 'drain +\+[0-9a-z]+: [0-9]+ requests in flight answered in [0-9a-z]+, p99' "$T/live.log"
check "live run: no interval line of the drain with a rate" bash -c "! grep -E ' drain .*/s' '$T/live.log'"
soak report "$T/live.db" -o "$T/live" >"$T/live.out" 2>&1
check_eq "live run: report exits 0" "$?" 0
check_eq "live run: the drift line soak run printed is the report's sentence, whole" \
  "$(sed -n 's/^soak run: run 1 drift: //p' "$T/live.log")" "$(json "$T/live/report.json" '.runs[0].drift.sentence')"
LJ=$T/live/report.json
check_eq "live run: degrading" "$(json "$LJ" '.runs[0].drift.verdict')" degrading
check_eq "live run: on TPS and p99, real and worse" \
  "$(json "$LJ" '[.runs[0].drift.comparisons[0].metrics[] | select(.metric == "tps" or .metric == "p99") | .verdict + "/" + .effect] | join(",")')" \
  "real/worse,real/worse"
check_range "live run: TPS falls to a quarter (%)" \
  "$(json "$LJ" '.runs[0].drift.comparisons[0].metrics[] | select(.metric == "tps") | .change_pct')" -85 -60
check_eq "soak runs --json: the same drift" \
  "$(soak runs --db "$T/live.db" --json | jq -r '.[0].drift | .verdict + ": " + .sentence')" \
  "$(json "$LJ" '.runs[0].drift | .verdict + ": " + .sentence')"
max_live=$(sql "$T/live.db" "SELECT MAX(requests * 1000.0 / length_ms) FROM intervals WHERE phase != 'drain'")
over=$(awk -v m="$max_live" 'FNR > 1 && NF == 2 && $2 + 0 > m * 1.001 { print FILENAME ": " $0 }' \
  "$T/live/data/tps_time.dat" "$T/live/data"/drift_tps_*.dat)
check_eq "live run: no TPS point above an interval's own rate (the drain left out)" "$over" ""
check_eq "live run: the application's memory is judged (too short a window)" \
  "$(json "$LJ" '.runs[0].rss[0] | .source + "=" + .verdict')" "app=unknown"
# The machine probe: measured every interval, and the server made slower on purpose is not
# the machine's doing (the probe's change is printed whatever it is).
check_eq "live run: a machine probe on every interval" \
  "$(sql "$T/live.db" "SELECT COUNT(*) FROM intervals WHERE NOT (probe_us > 0 AND probe_us < 100000)")" 0
probe=$(json "$LJ" '.runs[0].drift.comparisons[0].metrics[] | select(.metric == "machine_probe") | "\(.first) \(.last) \(.change_pct) \(.verdict)"')
echo "# live run: machine probe first third, last third (µs), change %, verdict: $probe"
check "live run: the machine probe judged" test -n "$probe"
check_eq "live run: the halved server is not blamed on the machine" "$(json "$LJ" '.runs[0].drift.machine_suspect')" false

done_testing
