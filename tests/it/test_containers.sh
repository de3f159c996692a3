#!/usr/bin/env bash
# The main job for real, in small: a private PostgreSQL, then Tomcat 9, Tomcat 10 and
# Jetty 9 in turn, 10 seconds of registrations against each with the app, DB and host
# collectors and the GC log followed; then the checks the study depends on and the report.
# Last, an A/A and A/B study on Tomcat 10: the same container under two labels and a
# second one hashing with three times the PBKDF2 iterations, three interleaved rounds, the
# users table emptied before each run: nothing of the A/A may be called real, and the A/B's
# known change (fewer requests per second, more CPU per request) must show in size and direction.
. "$(dirname "$0")/lib.sh"

# PostgreSQL runs as the postgres user: it must reach its directory.
chmod 755 "$T"
DB=$T/study.db
PG=$T/pg
started=()
stop_all() {
  local c
  for c in "${started[@]}"; do "$TOP/targets/containers/$c" stop "$T/$c" >/dev/null 2>&1; done
  started=()
  [ -d "$T/tomcat10x3" ] && "$TOP/targets/containers/tomcat10" stop "$T/tomcat10x3" >/dev/null 2>&1
  "$TOP/targets/db/postgres.sh" stop "$PG" >/dev/null 2>&1
}
trap 'stop_all; _cleanup' EXIT

pg=$("$TOP/targets/db/postgres.sh" start "$PG" 2>"$T/pg.err") || { fail "postgres starts" "$(cat "$T/pg.err")"; exit 1; }
ok "postgres starts"
jdbc=$(sed -n 's/^jdbc=//p' <<<"$pg")

# Tomcat 10 goes last and stays up for the A/A study below (a start costs seconds).
aa_info=
for c in tomcat9 jetty9 tomcat10; do
  if ! info=$("$TOP/targets/containers/$c" start "$T/$c" --jdbc "$jdbc" --heap 256m 2>"$T/$c.err"); then
    fail "$c starts" "$(tail -20 "$T/$c.err")"
    continue
  fi
  started+=("$c")
  ok "$c starts ($(sed -n 's/^version=//p' <<<"$info"))"
  url=$(sed -n 's/^url=//p' <<<"$info")
  gclog=$(sed -n 's/^gc_log=//p' <<<"$info")
  soak run -q --db "$DB" --set scenario.label="$c" --set request.url="$url" \
    --set scenario.duration=10s --set scenario.warmup=3s \
    --set "collect.app.pid_match=soak\\.target=$c" --set collect.app.gc_log="$gclog" \
    "$TOP/scenarios/demo.ini" >"$T/$c.out" 2>"$T/$c.run.err"
  check_eq "$c: soak run exits 0" "$?" 0
  # 10 s of registrations in a 256 MB heap make young GCs: the follower must have seen them.
  [ "$c" = tomcat10 ] && { aa_info=$info; continue; }
  "$TOP/targets/containers/$c" stop "$T/$c" >/dev/null 2>&1
  started=()
done

q() { sql "$DB" "$@"; }
for c in tomcat9 tomcat10 jetty9; do
  run=$(q "SELECT max(id) FROM runs WHERE label='$c'")
  [ -n "$run" ] || { fail "$c: a run was recorded"; continue; }
  check_eq "$c: run done" "$(q "SELECT status FROM runs WHERE id=$run")" done
  # This suite shares the machine with two others (tests/run.sh's lane): a Jetty starved of
  # CPU answered 136 in 7 s once. How many is not the point; that every one is counted is
  # (PostgreSQL's count below).
  check "$c: registrations answered 201" test "$(q "SELECT sum(requests) - sum(errors) FROM intervals WHERE run_id=$run")" -gt 50
  check_eq "$c: zero 409s (and no other error)" "$(q "SELECT IFNULL(sum(count), 0) FROM interval_errors WHERE run_id=$run")" 0
  check "$c: app CPU sampled" test "$(q "SELECT count(*) FROM samples WHERE run_id=$run AND source='app' AND metric='cpu_pct' AND value > 0")" -ge 3
  check "$c: DB CPU sampled" test "$(q "SELECT count(*) FROM samples WHERE run_id=$run AND source='db' AND metric='cpu_pct' AND value > 0")" -ge 3
  check "$c: host sampled" test "$(q "SELECT count(*) FROM samples WHERE run_id=$run AND source='host' AND metric='cpu_idle_pct'")" -ge 3
  check "$c: GC events followed" test "$(q "SELECT count(*) FROM gc_events WHERE run_id=$run")" -ge 1
  # A JVM's threads by class: a container 13 s after its start is still compiling.
  check "$c: the JIT's threads at work in its first seconds" \
    test "$(q "SELECT SUM(value) > 0 FROM samples WHERE run_id=$run AND source='app' AND metric='thr_jit_pct'")" = 1
  check "$c: GC and application threads sampled" \
    test "$(q "SELECT COUNT(DISTINCT metric) FROM samples WHERE run_id=$run AND source='app' AND metric IN ('thr_app_pct', 'thr_gc_pct', 'thr_vm_pct') AND value > 0")" -ge 2
  check_range "$c: the classes sum to the JVM's CPU (%)" "$(q "SELECT ROUND(100.0 *
    SUM(CASE WHEN metric IN ('thr_app_pct', 'thr_jit_pct', 'thr_gc_pct', 'thr_vm_pct') THEN value END) /
    SUM(CASE WHEN metric = 'cpu_pct' THEN value END), 1) FROM samples WHERE run_id=$run AND source='app'
    AND t_ms IN (SELECT t_ms FROM samples WHERE run_id=$run AND source='app' AND metric='thr_jit_pct')")" 85 105
done
# Every request sent is accounted for (the last interval drains those in flight): the
# users table holds exactly the 201s soak counted.
counted=$(q "SELECT sum(requests) - sum(errors) FROM intervals")
check_eq "users in PostgreSQL = 201s counted by soak" "$("$TOP/targets/db/postgres.sh" count "$PG")" "$counted"

soak report "$DB" -o "$T/report" >"$T/report.out" 2>"$T/report.err"
check_eq "soak report exits 0" "$?" 0
for c in tomcat9 tomcat10 jetty9; do
  check "report names $c" grep -q "$c" "$T/report/report.md"
done
check "report has pictures" test "$(find "$T/report" -name '*.svg' | wc -l)" -ge 3
check "report.html inlines them" test "$(grep -c '<svg' "$T/report/report.html")" -ge 3
check "one value per quantity in the containers' report" \
  python3 "$TOP/tests/it/report_consistency.py" "$T/report"
# --- A/A and A/B on Tomcat 10: one container under two labels, one made slower ------------
ab_info=
if [ -n "$aa_info" ]; then
  ab_info=$("$TOP/targets/containers/tomcat10" start "$T/tomcat10x3" --jdbc "$jdbc" --heap 256m \
    --iterations 3000 2>"$T/tomcat10x3.err") || fail "tomcat10 x3 starts" "$(tail -20 "$T/tomcat10x3.err")"
fi
if [ -n "$aa_info" ] && [ -n "$ab_info" ]; then
  kv() { sed -n "s/^$1=//p" <<<"$aa_info"; }
  kx() { sed -n "s/^$1=//p" <<<"$ab_info"; }
  cat >"$T/aa.ini" <<EOF
[study]
name = tomcat10 against itself
scenario = $TOP/scenarios/demo.ini
rounds = 3
warmup_runs = 1
warmup_max = 3
before_each = "$TOP/targets/db/postgres.sh" truncate "$PG"
[target.a]
url = $(kv url)
pid = $(kv pid)
gc_log = $(kv gc_log)
[target.b]
url = $(kv url)
pid = $(kv pid)
gc_log = $(kv gc_log)
[target.x3]
url = $(kx url)
pid = $(kx pid)
gc_log = $(kx gc_log)
EOF
  # Half-second intervals: 3 s measured are 6 points, what a change point needs (3 a side).
  soak study -q --db "$T/aa.db" --set scenario.duration=5s --set scenario.warmup=2s \
    --set scenario.interval=500ms "$T/aa.ini" \
    >"$T/aa.out" 2>"$T/aa.err"
  check_eq "tomcat10 A/A: the study exits 0" "$?" 0
  # Warm-ups go on until the JIT is quiet twice in a row, three at most (a and b are one process;
  # a Tomcat under 30 closed users may compile at 5-10 % through a dozen runs, so six were no
  # better than three).
  check_eq "tomcat10 A/A: 9 runs measured, 3 to 9 warm-ups" \
    "$(sql "$T/aa.db" "SELECT count(slot) || ' ' || (sum(warmup) BETWEEN 3 AND 9) FROM study_runs")" "9 1"
  check "tomcat10 A/A: each warm-up's JIT share recorded" \
    test "$(sql "$T/aa.db" "SELECT COUNT(*) FROM study_runs WHERE warmup = 1 AND jit_share IS NULL")" = 0
  check_eq "tomcat10 A/A: the users table emptied before each run" \
    "$("$TOP/targets/db/postgres.sh" count "$PG")" \
    "$(sql "$T/aa.db" "SELECT sum(requests) - sum(errors) FROM intervals WHERE run_id = (SELECT max(id) FROM runs)")"
  soak report "$T/aa.db" -o "$T/aa" --no-plots >/dev/null 2>&1
  # Runs whose JIT still compiled (over 5 % of the app's CPU) have no steady state and are
  # left out. How many remain is the JVM's: a Tomcat 10 under 30 closed users may compile
  # at 5-10 % through a dozen 5-s runs, and again after the other process's runs (JIT 8 %
  # in a run after one at 0.03 %). What is checked is that the comparison follows them (a
  # label with fewer than two steady runs is compared on all its runs, with a warning: one
  # run alone would leave the comparison one run a side).
  check_eq "tomcat10 A/A: a run has no steady state exactly when its JIT compiled" \
    "$(jq -r '[.runs[] | select(.warmup == false and .jit_pct != null) |
      select((.jit_pct > 5) != (.steady == "no steady state")) | .key] | join(",")' "$T/aa/report.json")" ""
  check "tomcat10 A/A: judged on the runs with a steady window, by runs when 2 a side remain" \
    jq -e 'def kept($l): [.runs[] | select(.warmup == false and .label == $l)] |
        ([.[] | select(.steady != "no steady state")] | length) as $s | if $s >= 2 then $s else length end;
      kept("a") as $na | kept("b") as $nb | .comparisons[0] |
      .n_runs_baseline == $na and .n_runs == $nb and
      ((.noise == "runs") == ($na >= 2 and $nb >= 2))' "$T/aa/report.json"
  for l in a b; do
    if [ "$(jq "[.runs[] | select(.warmup == false and .label == \"$l\" and .steady != \"no steady state\")] | length" "$T/aa/report.json")" -lt 2 ]; then
      check "tomcat10 A/A: $l, with fewer than two steady runs, is said to be compared as it is" \
        grep -q "no_steady_state: $l: runs compared as they are" "$T/aa/report.md"
    fi
  done
  jq -r '"# A/A: runs left a side \(.comparisons[0].n_runs_baseline) and \(.comparisons[0].n_runs), noise by \(.comparisons[0].noise)"' "$T/aa/report.json"
  check_eq "tomcat10 A/A: every measured run classed" \
    "$(jq -r '[.runs[] | select(.warmup == false) | .steady // "none"] | map(select(. == "none")) | length' "$T/aa/report.json")" 0
  # The report calls some figure of an A/A real in up to 5 % of studies: its promise, whose
  # rate test_calibrate and bench/calibrate.sh measure over thousands of studies.  One study
  # cannot check a 5 % rate (this check failed once so, on db CPU per request in a clean-
  # clone make check): it checks that no figure is real even at 0.1 % for the family
  # (p under 0.001 / k), which a report whose intervals were wrong would break.
  figs='[.comparisons[] | select(.label == "b") | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.p != null)]'
  check_eq "tomcat10 A/A: no figure real at 0.1 % for the family" \
    "$(jq -r "$figs"' | length as $k | "\($k > 0) " + (map(select(.value.p < 0.001 / $k) | .key) | join(","))' "$T/aa/report.json")" "true "
  real=$(jq -r "$figs"' | map(select(.value.verdict == "real") | .key) | join(",")' "$T/aa/report.json")
  [ -z "$real" ] || echo "# A/A: called real at the report's 5 %: $real"
  # Three times the hashing: far fewer requests per second and far more CPU per request.
  # Three 4-s runs a side cannot always call it real: a Tomcat still compiling spreads its
  # runs so widely (TPS -68 %, interval -4,087 to +686 TPS, in one of six clean runs)
  # that the verdict said noise; the size and direction of the change always showed.
  check "tomcat10 A/B (3x PBKDF2): TPS at least 30 % lower" \
    jq -e '.comparisons[] | select(.label == "x3") | .metrics.tps.change_pct < -30' "$T/aa/report.json"
  check "tomcat10 A/B (3x PBKDF2): CPU per request of app at least 50 % higher" \
    jq -e '.comparisons[] | select(.label == "x3") | .cpu_per_request.app.change_pct > 50' "$T/aa/report.json"
  jq -r '.comparisons[] | "# \(.label): TPS \(.metrics.tps.change_pct)% [\(.metrics.tps.ci95 | map(tostring) | join(", "))], CPU per request of app \(.cpu_per_request.app.change_pct)% (\(.cpu_per_request.app.verdict))"' "$T/aa/report.json"
  check "tomcat10 A/A and A/B: one value per quantity" python3 "$TOP/tests/it/report_consistency.py" "$T/aa"
  [ -z "$real" ] || jq -c '.comparisons[] | (.metrics, .cpu_per_request)' "$T/aa/report.json" | sed 's/^/# /'
  check "tomcat10 A/A: the report names the design" \
    grep -q "^\*\*Design.\*\* Study 'tomcat10 against itself': 3 targets (a, b, x3), 3 rounds in interleaved order" "$T/aa/report.md"
else
  fail "tomcat10 A/A and A/B: no Tomcat 10 to study (one did not start above)"
fi
"$TOP/targets/containers/tomcat10" stop "$T/tomcat10" >/dev/null 2>&1
"$TOP/targets/containers/tomcat10" stop "$T/tomcat10x3" >/dev/null 2>&1
started=()
done_testing
