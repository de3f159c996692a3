#!/usr/bin/env bash
# soak report end to end: tables and findings of a deterministic fixture against golden
# files, the memory verdict of every JDK 17 GC log read back through the database, real
# sweeps that saturate (and one that does not), a run reported while it runs, the edge
# cases of the command line, byte-identical output, and report.html rendered by headless
# Chromium.  Then what a reader must trust: the verdict and every validity code on a
# fixture built for them (golden too), labels escaped in Markdown, GC pictures that keep
# their points, the environment a real run records, host_saturated on a real run that
# shares its host with the server, generator_saturated on one engine thread against
# nginx (and not on a light run), and `soak check` saying how long to run.
#   UPDATE_GOLDEN=1 bash tests/it/test_report.sh    rewrites tests/golden/report/ on purpose
. "$(dirname "$0")/lib.sh"

GOLD=$TOP/tests/golden/report
JDK17=$TOP/tests/data/gc/jdk17
FIX=$T/report_fixture

# json FILE JQ-FILTER: one value from a report.json.
json() { jq -r "$2" "$1"; }

# add_col DB TABLE COLUMN TYPE: adds a column a later migration brings, when it is missing
# (the engine's per-interval generator figures, the agents' clock offsets).
add_col() {
  [ "$(sqlite3 "$1" "SELECT count(*) FROM pragma_table_info('$2') WHERE name = '$3'")" = 1 ] ||
    sqlite3 "$1" "ALTER TABLE $2 ADD COLUMN $3 $4"
}

# golden DIR NAME FILE...: compares DIR/FILE with tests/golden/report/NAME/FILE.
golden() {
  local dir=$1 name=$2 f; shift 2
  for f in "$@"; do
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
      mkdir -p "$GOLD/$name" && cp "$dir/$f" "$GOLD/$name/$f"
      ok "golden $name/$f updated"
    elif cmp -s "$GOLD/$name/$f" "$dir/$f"; then
      ok "golden $name/$f"
    else
      fail "golden $name/$f" "differs: diff $GOLD/$name/$f $dir/$f"
      diff "$GOLD/$name/$f" "$dir/$f" | head -20 | sed 's/^/# /'
    fi
  done
}

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
golden "$T/g" . report.md details.md summary.csv report.json

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
# One-minute runs: every source says the window is too short (the GC source as the
# process-memory one); the trend alone is still there.
check_eq "run 1 memory too short, trend normal (stable-g1)" \
  "$(json "$J" '.runs[0].memory[0] | [.verdict, .trend] | join(",")')" "too short,normal"
check_eq "run 2 memory too short, trend suspected leak (leak-g1)" \
  "$(json "$J" '.runs[1].memory[0] | [.verdict, .trend] | join(",")')" "too short,suspected leak"
check "short window: the GC source says too short" grep -q '^- tomcat9 — .*the GC log of app in run 1 is too short to judge a trend' "$T/g/report.md"
check "short window: the process source says too short" grep -q '^- tomcat9 — .*process memory of db in run 1 over too short a window to judge a trend' "$T/g/report.md"
check_eq "tomcat9 saturates at its capacity, 10 users" \
  "$(json "$J" '.sweeps[0] | [.label, .saturation.saturated, .saturation.at_concurrency] | join(" ")')" \
  "tomcat9 true 10"
check_eq "tomcat10 saturates at 20 users" \
  "$(json "$J" '.sweeps[1] | [.label, .saturation.at_concurrency] | join(" ")')" "tomcat10 20"
check_eq "queueing past saturation" "$(json "$J" '[.sweeps[].queueing] | join(",")')" "true,true"
check_eq "interrupted and crashed runs marked" \
  "$(json "$J" '[.runs[4].status, .runs[5].status] | join(",")')" "interrupted,crashed"
check "run without collectors shows no CPU" grep -q '^| 5 (interrupted) | tomcat10 | 50 .*| — | — | — | — |$' "$T/g/details.md"
check_eq "client-side errors named as such" \
  "$(json "$J" '.runs[1].errors.client_ports.side')" client
check "findings say client-side" grep -q 'client-side error' "$T/g/report.md"
check "findings state the crash" grep -q 'Run 6 (tomcat9) crashed' "$T/g/report.md"
check "the method is stated" grep -q "Welch's t-test" "$T/g/report.md"
check_eq "the report opens with the verdict" "$(grep -m1 '^## ' "$T/g/report.md")" "## Verdict"
check_eq "verdict: a row per label, baseline first" "$(json "$J" '[.verdict[].label] | join(",")')" "tomcat9,tomcat10"
check_eq "verdict: tomcat10 rests on the 20-user fixed runs" \
  "$(json "$J" '.verdict[1].at | [.kind, .concurrency] | join(" ")')" "fixed 20"
check "verdict: one sentence per label, what changed beyond noise and where" \
  grep -q '^- tomcat10: at 20 users 20.8% more TPS, .* (all real); 2 validity warnings below\.$' "$T/g/report.md"
check_eq "verdict: the sentence under the table is report.json's answer" \
  "$(grep -c -F -- "- $(json "$J" '.verdict[1].answer')" "$T/g/report.md")" 1
check "verdict: no cell over 40 characters (the fixture's floor cells marked, not worded)" \
  python3 -c 'import re, sys
rows = [l for l in open(sys.argv[1]).read().split("## Verdict", 1)[1].split("\n\n")[1].splitlines() if l.startswith("|")]
sys.exit(max(len(c.strip().replace("\\", "")) for l in rows for c in re.split(r"(?<!\\)\|", l)[1:-1]) > 40)' "$T/g/report.md"
check_eq "verdict: CPU per request of app is real" "$(json "$J" '.verdict[1].cpu_ms_per_request.app.verdict')" real
check_eq "verdict: memory of the leaking label (a minute of GC log, and of the database's samples: too short to judge)" "$(json "$J" '.verdict[1].memory')" "too short to judge (app; db)"
check_eq "verdict: each label's drift (a minute a run is too short to tell)" "$(json "$J" '.verdict[1].drift')" too_short
check_eq "five findings matter most" "$(json "$J" '[.findings[] | select(.top)] | length')" 5
# A minute of GC log cannot prove a leak: the rising heap is named, below the runs that
# crashed and the changes beyond noise.
check "the rising heap of the leaking label is named" bash -c "jq -e '.findings[] | select(.kind == \"memory\" and .label == \"tomcat10\" and (.text | test(\"still rising\")))' '$J' >/dev/null"
check_eq "one line per topic and label" \
  "$(json "$J" '[.findings[] | [.kind, .label] | tostring] | (length == (unique | length))')" true
check_eq "how long: one run a side states no resolution and promises nothing" \
  "$(json "$J" '.comparisons[1].resolve.tps | [.basis, .half_pct, .rounds] | map(tostring) | join(" ")')" "unknown null null"
check "how long: the table" grep -q '^## How long to run' "$T/g/report.md"
# GC time is a share of the run's time, not of the span between its first and last event:
# one pause alone in a run is a small share, never 100 %.
cp "$T/g.db" "$T/g1.db"
in1="source = 'app' AND t_ms BETWEEN (SELECT started_ms FROM runs WHERE id = 1) AND (SELECT ended_ms FROM runs WHERE id = 1)"
sql "$T/g1.db" "DELETE FROM gc_events WHERE $in1 AND id <> (SELECT MIN(id) FROM gc_events WHERE $in1 AND pause_us > 0)"
share="100.0 * pause_us / 1000 / (SELECT ended_ms - started_ms FROM runs WHERE id = 1) FROM gc_events WHERE $in1"
soak report "$T/g1.db" -o "$T/g1" --no-plots >/dev/null 2>&1
check_range "one GC pause in a run: its share of the run's time" \
  "$(json "$T/g1/report.json" '.runs[0].memory[0].gc_time_pct')" \
  "$(sql "$T/g1.db" "SELECT 0.99 * $share")" "$(sql "$T/g1.db" "SELECT 1.01 * $share")"
check_eq "no environment recorded: no confounded" "$(json "$J" '[.validity[] | select(.code == "confounded")] | length')" 0
check_eq "no saturation claimed without evidence" \
  "$(json "$J" '[.validity[] | select(.code | test("saturated"))] | length')" 0

# --- validity: every code on a fixture built for it ---------------------------------------
new_db "$T/v.db"
add_col "$T/v.db" intervals gen_cpu_pct REAL
add_col "$T/v.db" intervals lag_p99_us INTEGER
add_col "$T/v.db" runs clock_offset_ms INTEGER
add_col "$T/v.db" runs merged_into INTEGER
"$FIX" validity | sqlite3 "$T/v.db" || fail "load the validity fixture"
soak report "$T/v.db" --runs 1,2,3,6,7 -o "$T/v" >"$T/v.out" 2>&1
check_eq "report of the validity fixture exits 0" "$?" 0
golden "$T/v" validity report.md details.md report.json
# One quantity, one value: the verdict, the tables, the findings, summary.csv and
# report.json of both reports agree; and the check catches a figure that moved.
check "one value per quantity (golden and validity reports)" \
  python3 "$TOP/tests/it/report_consistency.py" "$T/g" "$T/v"
cp -r "$T/g" "$T/g-bad"
sed -i '0,/^| tomcat10 | 20 users/s/+20\.8% ±/+21.8% ±/' "$T/g-bad/report.md"
check "the consistency check catches a figure that differs" \
  bash -c "! python3 '$TOP/tests/it/report_consistency.py' '$T/g-bad' >'$T/g-bad.out' 2>&1 && grep -q 'Verdict row tomcat10 at 20 users, TPS' '$T/g-bad.out'"
cp -r "$T/g" "$T/g-cut"
sed -i '0,/^- /s/\.\( Read it with care\|$\)/, runs 108, 109 and\1/' "$T/g-cut/report.md"
check "the consistency check catches a sentence cut mid-list" \
  bash -c "! python3 '$TOP/tests/it/report_consistency.py' '$T/g-cut' >'$T/g-cut.out' 2>&1 && grep -q 'ends on a joiner' '$T/g-cut.out'"
V=$T/v/report.json
for code in host_saturated generator_saturated short_window not_steady errors clock_skew confounded; do
  check "validity: $code" bash -c "jq -e '.validity[] | select(.code == \"$code\" and .severity == \"warn\")' '$V' >/dev/null"
done
check_eq "validity: host_saturated names the shared run" \
  "$(json "$V" '.validity[] | select(.code == "host_saturated") | [.label, .run] | join(" ")')" "cand 2"
check_eq "validity: the lone generator's host is not saturated" \
  "$(json "$V" '[.validity[] | select(.code == "host_saturated" and .label == "base")] | length')" 0
check_eq "validity: generator busy (run 2) and waiting for a core (run 3), apart" \
  "$(json "$V" '[.validity[] | select(.code == "generator_saturated") | .run] | join(" ")')" "2 3"
check "validity: a busy generator is told to get more threads" \
  bash -c "jq -r '.validity[] | select(.code == \"generator_saturated\" and .run == \"2\") | .message' '$V' | grep -q 'more threads'"
check "validity: a starved generator is told to get cores of its own, not threads" \
  bash -c "jq -r '.validity[] | select(.code == \"generator_saturated\" and .run == \"3\") | .message' '$V' | grep -q 'CPUs of its own.*more threads would compete'"
check "validity: confounded names the heap" \
  bash -c "jq -r '.validity[] | select(.code == \"confounded\") | .message' '$V' | grep -q \"app heap max '512M' against '256M'\""
check "validity: not_steady says the server degrades" \
  bash -c "jq -r '.validity[] | select(.code == \"not_steady\") | .message' '$V' | grep -qE 'TPS -[0-9.]+%.* degrade'"
check "validity: errors name the dominant class" \
  bash -c "jq -r '.validity[] | select(.code == \"errors\") | .message' '$V' | grep -q 'mostly http_5xx'"
check_eq "validity: right after the verdict" \
  "$(grep '^## ' "$T/v/report.md" | sed -n 2p)" "## Can these numbers be trusted?"
check "validity: the verdict sentence says to read with care" \
  grep -q '^- cand: .*; 8 validity warnings below\.$' "$T/v/report.md"
check "environment: what both labels share once, then a column per label where they differ" \
  bash -c "grep -q '^## Environment\$' '$T/v/details.md' && grep -q '^## Environment: where the labels differ' '$T/v/details.md' && grep -q '^|  | base | cand |\$' '$T/v/details.md'"

# --- names a user gave stay text in Markdown ------------------------------------------------
cp "$T/g.db" "$T/x.db"
sqlite3 "$T/x.db" "UPDATE runs SET label = '<img src=x onerror=alert(1)>' WHERE label = 'tomcat10'; UPDATE runs SET name = '*bold* [link](http://x) \`code\`' WHERE id = 1"
soak report "$T/x.db" -o "$T/x" --no-plots >/dev/null 2>&1
check_eq "escaping: report exits 0" "$?" 0
check_eq "escaping: no live tag in report.md and details.md" "$(cat "$T/x/report.md" "$T/x/details.md" | grep -c '<img')" 0
check "escaping: the label is shown as text" grep -q '&lt;img src=x onerror=alert(1)>' "$T/x/report.md"
check "escaping: Markdown in a name stays literal" grep -qF '\*bold\* \[link\](http://x) \`code\`' "$T/x/details.md"
check_eq "escaping: no live tag in report.html and details.html" "$(cat "$T/x/report.html" "$T/x/details.html" | grep -c '<img')" 0

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
check "one label: no comparison section" bash -c "! grep -q '^## Comparison' '$T/one/report.md' '$T/one/details.md'"
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

# --- the memory verdict of every JDK 17 log and every generated one, through the database --
groups=()
for f in "$JDK17"/stable-*.log "$JDK17"/leak-*.log "$TOP"/tests/data/gc/gen/*.log; do
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
while IFS=$'\t' read -r name verdict trend; do
  case "$name" in
    oom-*) want="exhausted" ;;                    # OutOfMemoryError: whatever the trend
    stable-*) want="too short,normal" ;;          # one-minute or 20-second runs
    *) want="too short,suspected leak" ;;
  esac
  [ "$want" = exhausted ] || verdict="$verdict,$trend"
  check_eq "memory verdict of $name" "$verdict" "$want"
done < <(json "$T/gc/report.json" '.runs[] | [.name, (.memory[0].verdict // "none"), (.memory[0].trend // "none")] | @tsv')
check "exhausted: the finding states it" grep -q '^- jdk17 — heap exhausted in app in runs .*: heap exhausted: [0-9]* back-to-back full collections' "$T/gc/report.md"

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
# soak draws the pictures a batch per gnuplot; plots/pictures.gp holds the lines of each.
# Drawn again from it, each alone in a gnuplot of its own, every picture is the report's to
# the byte: nothing a picture sets leaks into the next (once, linetype 1's width did: set
# linetype survives gnuplot's reset, and the grid of every picture but a batch's first was
# drawn 2 px wide).
cp -r "$T/p1" "$T/alone" && rm -f "$T"/alone/img/*.svg "$T"/alone/img/*.png
awk -v dir="$T/alone" '/^print .soak-picture / { n++ } n { print > (dir "/one-" n ".gp") }' "$T/p1/plots/pictures.gp"
(cd "$T/alone" && for f in one-*.gp; do gnuplot -d "$f" 2>/dev/null || echo "$f failed"; done) >"$T/alone.out"
check_eq "plots/pictures.gp: one block a picture, each drawn alone" \
  "$(ls "$T"/alone/one-*.gp | wc -l) $(cat "$T/alone.out")" "$npics "
check "... to the report's bytes, SVG and PNG" diff -r "$T/p1/img" "$T/alone/img"
check_eq "labels compared on one time axis" \
  "$(json "$T/p1/report.json" '[.pictures[] | select(.compare) | .name] | join(",")')" \
  "compare_tps,compare_latency,compare_cpu_app,compare_cpu_db,compare_heap_app"
check "comparison pictures in the report, the per-run ones in its details file" \
  bash -c "grep -q '^## Labels over time' '$T/p1/report.md' && grep -q '^## Pictures of each run' '$T/p1/details.md' && ! grep -q '^## Pictures of each run' '$T/p1/report.md'"
check "the report links each section of its details file" \
  bash -c "for h in \$(grep '^## ' '$T/p1/details.md' | sed 's/^## //; s/[^A-Za-z0-9_ -]//g; s/ /-/g' | tr A-Z a-z); do grep -q \"(details.md#\$h)\" '$T/p1/report.md' && grep -q \"id=\\\"\$h\\\"\" '$T/p1/details.html' || { echo \"no link to \$h\"; exit 1; }; done"
check "SVG carries no date" bash -c "! grep -lE '20[0-9]{2}-[01][0-9]-[0-3][0-9]|[Dd]ate' '$T'/p1/img/*.svg"
ntables=$(grep -c '^|---' "$T/p1/report.md")
check_eq "HTML: one inline SVG per picture" "$(cat "$T/p1/report.html" "$T/p1/details.html" | grep -c '<svg')" "$npics"
check_eq "HTML: no heading or table id given twice (report.html's 'verdict' is its table's)" \
  "$(for f in report.html details.html; do grep -oE '<(h2|table) id="[^"]*"' "$T/p1/$f" | sed 's/.* id=//' | sort | uniq -d; done)" ""
check "HTML: self-contained (no src=, no link)" bash -c "! grep -qE '<(img|link|script)[ >]' '$T/p1/report.html' '$T/p1/details.html'"
if command -v chromium >/dev/null; then
  prof=$(mktemp -d "$T/chromium.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --dump-dom "file://$T/p1/report.html" >"$T/dom.html" 2>"$T/chromium.log"
  check_eq "browser DOM: every picture of report.html" "$(grep -o '<svg' "$T/dom.html" | wc -l)" "$(grep -o '<svg' "$T/p1/report.html" | wc -l)"
  check_eq "browser DOM: every table" "$(grep -o '<table' "$T/dom.html" | wc -l)" "$ntables"
  check_eq "browser DOM: no broken image" "$(grep -o '<img' "$T/dom.html" | wc -l)" 0
  check "browser DOM: figures hold their plot" grep -q 'gnuplot_plot_1' "$T/dom.html"
  check_eq "browser DOM: the verdict is the first table" \
    "$(grep -o '<table[^>]*>' "$T/dom.html" | head -1)" '<table id="verdict">'
  check "browser DOM: the verdict's first row is the baseline" \
    bash -c "tr -d '\n' <'$T/dom.html' | grep -qE '<table id=\"verdict\">.*<tbody><tr><td><span class=\"nb\">tomcat9</span> <span class=\"nb\">\(baseline\)</span></td>'"
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
# A gnuplot that exits 0 and draws nothing (seen once on a fresh machine: a report with no
# picture that counted five) is an error that names the picture and what gnuplot said.
printf '#!/bin/sh\necho "no terminal here" >&2\nsleep 0.2\nexit 0\n' >"$T/mute-gnuplot"
chmod +x "$T/mute-gnuplot"
SOAK_GNUPLOT=$T/mute-gnuplot soak report "$T/g.db" -o "$T/p5" >"$T/p5.out" 2>&1
check_eq "a gnuplot that draws nothing: exit 3" "$?" 3
check "... names the missing picture and gnuplot's words" \
  grep -qE "gnuplot exited 0 but wrote no img/[a-z_0-9]+\.svg for the picture '[a-z_0-9]+' \([a-z_]+\.gp\); gnuplot said: no terminal here" "$T/p5.out"
check "... and claims no picture" bash -c "! grep -q ' pictures' '$T/p5.out'"
# A script gnuplot fails on: the error names the first picture in the report's order that
# uses it (the batches run in parallel, each stops at its first error) and quotes gnuplot.
cp -r "$TOP/plots" "$T/badplots"
sed -i 's/^plotcmd = .*/plotcmd = "plot nosuchvar"/' "$T/badplots/latency_time.gp"
SOAK_PLOTS=$T/badplots soak report "$T/g.db" -o "$T/p6" >"$T/p6.out" 2>&1
check_eq "a script gnuplot fails on: exit 3" "$?" 3
first_lat=$(json "$T/p1/report.json" '[.pictures[].name | select(startswith("latency_"))] | first')
check_match "... naming the first picture drawn by it, and gnuplot's words" \
  "gnuplot failed on '$first_lat' (latency_time\.gp): .*undefined variable: nosuchvar" "$(cat "$T/p6.out")"

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
# the client's own turnaround between requests would leave the server idle a little).  A
# timer woken late before a step's window and caught up inside it can put a few more answers
# in the window than 80 a second (81.7 beside another suite and a build): 5 % over is let by.
check_eq "capacity 4: saturates at the first level above it, 8 users" \
  "$(json "$T/sat/report.json" '.sweeps[0].saturation | [.saturated, .at_concurrency] | join(" ")')" "true 8"
check_range "capacity 4 at 50 ms: peak near 80 TPS" \
  "$(json "$T/sat/report.json" '.sweeps[0].saturation.peak_tps')" 70 84
check_eq "capacity 4: queueing found" "$(json "$T/sat/report.json" '.sweeps[0].queueing')" true
check_eq "regserver: does not saturate" \
  "$(json "$T/lin/report.json" '.sweeps[0].saturation.saturated')" false
check "regserver: said so" grep -q 'does not saturate' "$T/lin/report.md"
check_eq "four levels: USL fitted" "$(json "$T/lin/report.json" '.sweeps[0].usl != null')" true

# --- the first screen of report.html ------------------------------------------------------
# After the real sweeps: Chromium's start-ups must not share the cores with their timing.
if command -v chromium >/dev/null; then
  # The first screen of a 1280x800 window (tests/it/first_screen.js, the browser's own
  # layout): the title, the verdict table and every label's one-sentence answer, no word
  # broken inside a cell, no table past the edge, no sideways scroll; and its screenshot.
  first_screen() { # NAME REPORT_DIR: checks the page's first screen
    local name=$1 dir=$2 out ans l
    { sed '/<\/body>/,$d' "$dir/report.html"
      printf '<script>\n'; cat "$TOP/tests/it/first_screen.js"; printf '</script>\n</body>\n</html>\n'
    } >"$dir/layout.html"
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --user-data-dir="$prof" --window-size=1280,800 --dump-dom "file://$dir/layout.html" \
      >"$T/$name.dom" 2>>"$T/chromium.log"
    out=$(sed -n '/<pre id="layout">/,/<\/pre>/p' "$T/$name.dom" | sed -e 's/<[^>]*>//g' -e 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g')
    grep -v '^text=' <<<"$out" | sed "s/^/# $name: /"
    field() { sed -n "s/^$1=//p" <<<"$out"; }
    check_eq "$name: laid out 1280 px wide, no sideways scroll" "$(field vw) $(field scroll)" "1280 1280"
    check_eq "$name: no table past the window's edge" "$(field overflow)" ""
    check_eq "$name: no word broken inside a cell" "$(field broken)" ""
    check_eq "$name: no verdict cell over two lines" "$(field tall)" ""
    check_range "$name: the title ends in the first screen" "$(field h1)" 1 800
    check_range "$name: the verdict table ends in the first screen" "$(field verdict)" 1 800
    ans=$(field answers)
    check_eq "$name: an answer per label" "${ans%%,*}" "$(json "$dir/report.json" '.labels | length')"
    check_range "$name: the last answer ends in the first screen" "${ans#*,}" 1 800
    check "$name: the first screen shows the title" \
      grep -qF -- "$(json "$dir/report.json" '.title')" <<<"$(field text)"
    while IFS= read -r l; do
      check "$name: the first screen holds the answer '$l...'" grep -qF -- "$l" <<<"$(field text)"
    # (its warnings' count may be said once, in the note under the answers, for every label)
    done < <(json "$dir/report.json" '.verdict[].answer | sub("(; [0-9]+ validity warnings? below)?[.]$"; "") | .[0:60]')
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --user-data-dir="$prof" --window-size=1280,800 --screenshot="$T/$name.png" \
      "file://$dir/report.html" >/dev/null 2>>"$T/chromium.log"
    check_eq "$name: its screenshot is 1280x800" "$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
print(*struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$T/$name.png")" "1280 800"
  }
  first_screen "first screen" "$T/p1"
  # Three labels with long hyphenated names and a long title: the words still hold.
  cp "$T/g.db" "$T/long.db"
  sqlite3 "$T/long.db" "UPDATE runs SET label = 'apache-tomcat-9.0.70' WHERE label = 'tomcat9'; UPDATE runs SET label = 'apache-tomcat-10.1.60' WHERE label = 'tomcat10' AND id <> 5; UPDATE runs SET label = 'eclipse-jetty-9.4.57' WHERE id = 5"
  soak report "$T/long.db" -o "$T/long" --no-plots \
    --title "Apache Tomcat 9.0.70 to Apache Tomcat 10.1.60 upgrade, Eclipse Jetty 9.4.57 beside them, on PostgreSQL 15" >/dev/null 2>&1
  first_screen "first screen, three long labels" "$T/long"
  # The README's picture (tools/readme-picture.sh): its database's first screen.
  soak report "$TOP/docs/img/report-first-screen.db" -o "$T/readme" --no-plots >/dev/null 2>&1
  first_screen "the README's picture" "$T/readme"
fi

# --- GC pictures keep room above their highest point --------------------------------------
# The validity fixture's heap after GC tops out at exactly 100 MB, a round tic: a range
# that ends there would cut the top points in half.
soak report "$T/v.db" --runs 1,2,3,6,7 -o "$T/vp" >/dev/null 2>&1
check_eq "validity fixture with pictures exits 0" "$?" 0
top_tic() { grep -A1 'text-anchor="end"' "$1" | sed -n 's/.*<text> *\([-0-9.]*\)<\/text>.*/\1/p' | sort -g | tail -1; }
data_max() { awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ { if ($2 > m) m = $2 } END { print m + 0 }' "$1"; }
for pic in heap_1_app gc_pauses_1_app; do
  if [ -s "$T/vp/img/$pic.svg" ]; then
    tic=$(top_tic "$T/vp/img/$pic.svg") max=$(data_max "$T/vp/data/$pic.dat")
    check "$pic: the y range ends above the highest point ($tic > $max)" \
      awk -v a="$tic" -v b="$max" 'BEGIN { exit !(a + 0 > b + 0) }'
  else
    fail "$pic drawn" "missing $T/vp/img/$pic.svg"
  fi
done
check_eq "the heap's highest point is on a tic (the case that was cut)" "$(data_max "$T/vp/data/heap_1_app.dat")" 100

# --- per-run pictures: the compared runs first ----------------------------------------------
# A study's warm-up runs come first in time (make demo's 90 of them): 44 here, more than the
# 40 runs whose pictures are drawn, must not take every place from the 6 compared runs.
new_db "$T/warm.db"
"$FIX" warmups | sqlite3 "$T/warm.db" || fail "load the warm-ups fixture"
soak report "$T/warm.db" -o "$T/warm" >"$T/warm.out" 2>&1
check_eq "warm-ups first: the report exits 0" "$?" 0
pictured() { ls "$T/warm/img" | sed -n 's/^latency_\([0-9]*\)\.svg$/\1/p' | sort -n | tr '\n' ' '; }
check_eq "warm-ups first: every compared run pictured, then the first 34 warm-ups" \
  "$(pictured)" "$(seq -s ' ' 1 34) $(seq -s ' ' 45 50) "
check "warm-ups first: the report says which runs are pictured" \
  grep -q 'Pictures of single runs are drawn for 40 runs only (the first compared ones, then warm-ups)' "$T/warm/details.md"

# --- a real run records what ran, and shares its host with the server -----------------------
# Generator and server on the same cores, each with as many threads as there are cores: the
# host's CPU reaches 90% and the report must say so.
cores=$(getconf _NPROCESSORS_ONLN)
start_regserver --threads "$cores" --quiet || fail "regserver for the busy run starts"
BUSY_PID=$REG_PID
cp "$JDK17/stable-g1-gcstar.log" "$T/busy-gc.log"
cat >"$T/busy.ini" <<EOF
[scenario]
name = busy host
label = busy
concurrency = $((32 * cores))
threads = $cores
duration = 6s
warmup = 2s
interval = 1s
[request]
url = $REG_URL/health
[collect.app]
pid = $BUSY_PID
gc_log = $T/busy-gc.log
every = 1s
[collect.host]
host = yes
every = 1s
EOF
soak run -q --db "$T/busy.db" "$T/busy.ini" >"$T/busy.log" 2>&1
check_eq "busy run exits 0" "$?" 0
envq() { sqlite3 "$T/busy.db" "SELECT value FROM run_env WHERE run_id = 1 AND source = '$1' AND key = '$2'"; }
check_eq "env: kernel" "$(envq '' kernel)" "$(uname -s) $(uname -r)"
check_eq "env: cores" "$(envq '' cores)" "$cores"
check_eq "env: ulimit -n" "$(envq '' nofile)" "$(ulimit -n)"
check_eq "env: engine threads" "$(envq '' threads)" "$cores"
check_eq "env: port range" "$(envq '' ip_local_port_range)" "$(tr -s '\t ' '-' </proc/sys/net/ipv4/ip_local_port_range)"
check_eq "env: somaxconn" "$(envq '' somaxconn)" "$(cat /proc/sys/net/core/somaxconn)"
check_eq "env: soak version" "$(envq '' soak_version)" "$(soak --version | awk '{print $2}')"
check "env: libcurl version" grep -q '^libcurl/' <<<"$(envq '' curl_version)"
check_eq "env: the app's executable" "$(envq app exe)" "$(readlink "/proc/$BUSY_PID/exe")"
check "env: the app's command line" grep -q -- "--threads $cores" <<<"$(envq app cmdline)"
check_eq "env: JVM version from the GC log's header" "$(envq app jvm_version)" "17.0.15+6-Debian-1deb12u1"
check_eq "env: collector and heap from the GC log" "$(envq app gc) $(envq app heap_max)" "G1 128M"
soak report "$T/busy.db" -o "$T/busy" --no-plots >/dev/null 2>&1
check_eq "busy report exits 0" "$?" 0
check_eq "host_saturated on a generator sharing its host" \
  "$(json "$T/busy/report.json" '[.validity[] | select(.code == "host_saturated") | .run] | join(",")')" 1
check "the environment table shows the JVM" grep -q '^| app: JVM | 17.0.15' "$T/busy/details.md"
soak check --db "$T/busy.db" "$T/busy.ini" >"$T/check.out" 2>&1
check_eq "soak check with a run of the scenario exits 0" "$?" 0
check "soak check says how long to run" grep -q '^how long to run, from 1 run of label busy at 64 users' "$T/check.out"
check "soak check: one run cannot tell the run-to-run noise" grep -q '^  one run: the run-to-run noise is unknown' "$T/check.out"
soak check --db "$T/missing.db" "$T/busy.ini" >"$T/check.out" 2>&1
check "soak check without a run: no estimate" bash -c "! grep -q 'how long' '$T/check.out'"
stop_pid "$BUSY_PID"

# --- one engine thread against nginx: the generator sets the pace ----------------------------
. "$TOP/bench/nginx.lib"
mkdir -p "$T/ngx"
bench_nginx "$T/ngx"
_pids+=("$NGINX_PID")
# The premise is that one engine thread, not nginx, sets the pace.  On a shared machine nginx's
# core can be taken by other work and nginx becomes the bottleneck, so the run is made again
# once when the generator was not busy; both attempts' figures are logged.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
one_thread() { # $1: label
  local t0 w0 rc
  t0=$(ticks "$NGINX_PID") w0=$(date +%s%N)
  # libcurl, not the lean driver: the lean thread can outrun one nginx worker (61 % busy
  # while nginx used 98 % of its core); with libcurl's cost per request the thread sets the
  # pace (100 % busy, nginx at 46-60 %, measured here).
  "${pin_gen[@]}" "$BIN/soak" run -q --db "$T/ngx.db" --url "http://127.0.0.1:$NGINX_PORT/" -c 256 \
    --client curl --threads 1 -d 5s --warmup 1s --interval 1s --label "$1" >"$T/ngx1.log" 2>&1
  rc=$?
  echo "# $1: nginx used $(( ($(ticks "$NGINX_PID") - t0) * 1000000000 / $(getconf CLK_TCK) * 100 / ($(date +%s%N) - w0) ))% of a core"
  return $rc
}
gen_busy() { sqlite3 "$T/ngx.db" "SELECT group_concat(round(gen_cpu_pct + gen_wait_pct), ' ') FROM intervals JOIN runs ON runs.id = run_id WHERE label = '$1' AND phase = 'steady'"; }
one_thread one-thread
rc=$?
echo "# one-thread: generator busy-or-waiting % by interval: $(gen_busy one-thread)"
if ! awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; exit !(NF && s / NF >= 90) }' <<<"$(gen_busy one-thread)"; then
  echo "# the generator was not the bottleneck: once more, into a new file"
  rm -f "$T"/ngx.db*
  one_thread one-thread
  rc=$?
  echo "# one-thread, second: $(gen_busy one-thread)"
fi
check_eq "one thread, 256 users against nginx: exit 0" "$rc" 0
"${pin_gen[@]}" "$BIN/soak" run -q --db "$T/ngx.db" --url "http://127.0.0.1:$NGINX_PORT/" -c 4 \
  --think 20ms --threads 1 -d 4s --warmup 1s --interval 1s --label light >"$T/ngx2.log" 2>&1
check_eq "a light run against nginx: exit 0" "$?" 0
stop_pid "$NGINX_PID"
soak report "$T/ngx.db" -o "$T/ngx" --no-plots >/dev/null 2>&1
check_eq "nginx report exits 0" "$?" 0
check "env: nginx's Server banner" grep -q '^nginx/' <<<"$(sqlite3 "$T/ngx.db" "SELECT value FROM run_env WHERE run_id = 1 AND key = 'server_banner'")"
if [ "$(sqlite3 "$T/ngx.db" "SELECT count(*) FROM pragma_table_info('intervals') WHERE name = 'gen_cpu_pct'")" = 1 ]; then
  check_eq "generator_saturated on one busy thread, not on the light run" \
    "$(json "$T/ngx/report.json" '[.validity[] | select(.code == "generator_saturated") | .label] | join(",")')" one-thread
else
  ok "generator_saturated on a real run # SKIP the engine does not record intervals.gen_cpu_pct yet (the fixture covers the check)"
fi

done_testing

