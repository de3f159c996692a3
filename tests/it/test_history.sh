#!/usr/bin/env bash
# soak history on a real series: twelve 1.5-second runs of one scenario against regserver,
# the first six at --latency 1, the last six at --latency 40 (a new server: another port,
# another command line), in two databases.  The change point is found at run 7 in TPS and
# in p99 and nowhere else in them, sure (p <= 0.01), sized, and what changed names the
# flag; the same across two files, in a `soak merge`d file and in `soak report` (report.md,
# report.html, report.json: the same change points), not for a series too short; runs not
# done are left out; bad input exits 2.  Not load-free: beside test_memory's Tomcats one
# 1.5-s run of the fast server made 743 TPS (2,200-2,500 the others) and the change point
# moved onto it; it runs alone.
. "$(dirname "$0")/lib.sh"

A=$T/a.db B=$T/b.db M=$T/m.db
# jtrue FILTER: the JSON on stdin makes FILTER true.
jtrue() { jq -e "$1" >/dev/null; }
INI=$TOP/tests/data/history/nightly.ini

# nights DB LATENCY: six runs into DB against a regserver started with --latency LATENCY.
nights() {
  local db=$1 lat=$2 i
  start_regserver --latency "$lat" --threads 2 --quiet || { fail "regserver --latency $lat starts"; exit 1; }
  for i in 1 2 3 4 5 6; do
    soak run -q --db "$db" --set "request.url=$REG_URL/register" --set "collect.app.pid=$REG_PID" \
      "$INI" >>"$T/runs.log" 2>&1 || fail "run $i at --latency $lat" "$(tail -3 "$T/runs.log")"
  done
  stop_pid "$REG_PID"
}
nights "$A" 1
nights "$B" 40

# --- two databases: one series across them --------------------------------------------
soak history --json "$A" "$B" >"$T/two.json" 2>"$T/err" || fail "soak history A B" "$(cat "$T/err")"
check_eq "one series of 12 runs across both files" \
  "$(jq -r '[.series[] | "\(.label)/\(.scenario)/\(.kind)/\(.concurrency)/\(.runs_n)/\(.analysed)"] | join(" ")' "$T/two.json")" \
  "reg/nightly/fixed/4/12/true"
check_eq "the runs are named K:ID, oldest first" \
  "$(jq -r '[.series[0].runs[].run] | join(",")' "$T/two.json")" "1:1,1:2,1:3,1:4,1:5,1:6,2:1,2:2,2:3,2:4,2:5,2:6"
check_eq "TPS and p99 change once, at the first run of the slow server" \
  "$(jq -r '[.series[0].change_points[] | select(.figure == "tps" or .figure == "p99_ms") | "\(.figure)@\(.run)<\(.previous_run)"] | join(" ")' "$T/two.json")" \
  "tps@2:1<1:6 p99_ms@2:1<1:6"
tps=$(jq -c '.series[0].change_points[] | select(.figure == "tps")' "$T/two.json")
check "the TPS change is sure: p <= 0.01" jtrue '.p_value <= 0.01 and .permutations > 0' <<<"$tps"
check "... worse, six runs on each side" \
  jtrue '.direction == "worse" and .runs_before == 6 and .runs_after == 6' <<<"$tps"
# 4 users against 40 ms can make 100 requests a second at most; at 1 ms, far more.
check_range "... after: at most 100 TPS" "$(jq -r .after <<<"$tps")" 1 100
check_range "... before: at least 3 times that" "$(jq -r '.before / .after' <<<"$tps")" 3 1000000
p99=$(jq -c '.series[0].change_points[] | select(.figure == "p99_ms")' "$T/two.json")
check_range "the p99 after is at least the server's 40 ms" "$(jq -r .after <<<"$p99")" 40 1000
check_range "... and rose by more than 100 %" "$(jq -r .change_pct <<<"$p99")" 100 1000000
check_eq "what changed: the server's command line, by the flag that changed" \
  "$(jq -r '[.env_changes[] | select(.key == "cmdline") | "\(.source): \(.diff) \(.steady)"] | join(";")' <<<"$tps")" \
  "app: --latency 1 → --latency 40 true"
check_eq "... and the run_env facts that held are not listed" \
  "$(jq -r '[.env_changes[] | select(.key == "kernel" or .key == "soak_version" or .key == "host")] | length' <<<"$tps")" 0

# --- the text -------------------------------------------------------------------------
soak history "$A" "$B" >"$T/two.txt" 2>"$T/err" || fail "soak history (text)" "$(cat "$T/err")"
check "the table names the series" grep -q '^History: reg · nightly (fixed, 4 users, 1s500ms): 12 runs$' "$T/two.txt"
check "... marks the run where TPS changed" grep -Eq '^2:1 .*TPS -[0-9.]+%' "$T/two.txt"
check "... and lists the change point with what changed" \
  grep -Eq '^2:1 +TPS .* worse .* app cmdline: --latency 1 → --latency 40$' "$T/two.txt"
soak history "$A" "$B" >"$T/again.txt"
check "the same databases give the same output" cmp -s "$T/two.txt" "$T/again.txt"

# --- a merged file, and soak report ---------------------------------------------------
soak merge -o "$M" "$A" "$B" >/dev/null 2>"$T/err" || fail "soak merge" "$(cat "$T/err")"
soak history --json "$M" >"$T/m.json" 2>"$T/err" || fail "soak history merged" "$(cat "$T/err")"
check_eq "a merged file: the same change points, runs renumbered" \
  "$(jq -r '[.series[0].change_points[] | select(.figure == "tps" or .figure == "p99_ms") | "\(.figure)@\(.run)"] | join(" ")' "$T/m.json")" \
  "tps@7 p99_ms@7"
soak report --no-plots -o "$T/rep" "$M" >/dev/null 2>"$T/err" || fail "soak report" "$(cat "$T/err")"
check_eq "report.json carries the same change points" \
  "$(jq -c '[.history.series[0].change_points[] | [.figure, .run, .p_value, .before, .after]]' "$T/rep/report.json")" \
  "$(jq -c '[.series[0].change_points[] | [.figure, .run, .p_value, .before, .after]]' "$T/m.json")"
check "report.md has the history section" grep -q '^## History: reg · nightly (fixed, 4 users, 1s500ms): 12 runs' "$T/rep/report.md"
check "... and its change points" grep -q '^| 7 | TPS | .* worse | .*--latency 1 → --latency 40 |$' "$T/rep/report.md"
check "report.html too" grep -q '<h2>History: reg · nightly: change points</h2>' "$T/rep/report.html"
soak report --no-plots -o "$T/rep_a" "$A" >/dev/null 2>&1
check_eq "six runs are no series: no history in report.json" "$(jq -r 'has("history")' "$T/rep_a/report.json")" false
check "... nor in report.md" bash -c "! grep -q '^## History' '$T/rep_a/report.md'"
soak history --json "$A" >"$T/a.json"
check_eq "soak history shows it, not analysed" \
  "$(jq -r '.series[0] | "\(.runs_n) \(.analysed) \(.change_points | length)"' "$T/a.json")" "6 false 0"

# --- runs left out, filters, bad input --------------------------------------------------
cp "$M" "$T/cut.db"
sql "$T/cut.db" "UPDATE runs SET status = 'interrupted' WHERE id = 12"
soak history --json "$T/cut.db" >"$T/cut.json"
check_eq "a run not done is left out and counted" \
  "$(jq -r '"\(.left_out.not_done) \(.series[0].runs_n)"' "$T/cut.json")" "1 11"
soak history --json --label reg --scenario nightly "$M" >"$T/f.json"
check_eq "--label and --scenario select the series" "$(jq -r '.series | length' "$T/f.json")" 1
soak history --label nope "$M" >/dev/null 2>"$T/err"
check_eq "no run selected: exit 2" "$?" 2
check "... saying so" grep -q 'no run matches' "$T/err"
soak history "$T/missing.db" >/dev/null 2>"$T/err"
check_eq "a missing database: exit 2" "$?" 2
check "... naming it" grep -q "missing.db" "$T/err"
new_db "$T/empty.db"
soak history "$T/empty.db" >/dev/null 2>"$T/err"
check_eq "a database without runs: exit 2" "$?" 2
soak history --bogus "$M" >/dev/null 2>"$T/err"
check_eq "an unknown option: exit 2" "$?" 2

done_testing
