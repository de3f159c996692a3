#!/usr/bin/env bash
# soak merge: two databases (real soak-procstat output plus runs, steps, intervals,
# interval errors, GC events and events written with the sqlite3 CLI) folded into one;
# merged again: nothing added; run ids renumbered and every child row following; a later
# copy of a running run updates it; bad inputs refused with exit 2 and OUT untouched.
. "$(dirname "$0")/lib.sh"

A=$T/a.db B=$T/b.db OUT=$T/out.db

# new_db FILE SOURCE: a fresh soak database with some real host samples in it.
new_db() {
  soak-procstat --db "$1" --source "$2" --host --every 100ms --for 250ms --host-name "h-$2" ||
    return 1
}

# add_run FILE UUID ID: a run with 2 steps, 3 intervals, 2 interval errors, 2 run samples,
# 2 GC events and 1 event, all pointing at run ID of that file.
add_run() {
  local f=$1 u=$2 id=$3
  sql "$f" <<EOF
INSERT INTO runs(id, uuid, name, label, mode, connection, host, interval_ms, started_ms,
                 heartbeat_ms, status)
  VALUES ($id, '$u', 'run $u', 'label-$u', 'sweep', 'keepalive', 'gen1', 10000,
          1000000 + $id, 1000000 + $id, 'running');
INSERT INTO steps(run_id, idx, concurrency, started_ms, planned_ms)
  VALUES ($id, 0, 10, 1000, 60000), ($id, 1, 20, 61000, 60000);
INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, requests, errors,
                      bytes, new_conns, p99_us)
  VALUES ($id, 0, 1000, 10000, 'steady', 10, 500, 2, 9000, 10, 1500),
         ($id, 0, 11000, 10000, 'steady', 10, 510, 0, 9100, 0, 1400),
         ($id, 1, 61000, 10000, 'steady', 20, 900, 1, 16000, 10, 2500);
INSERT INTO interval_errors(run_id, step_idx, start_ms, class, count, sample)
  VALUES ($id, 0, 1000, 'http_5xx', 2, '503 Service Unavailable'),
         ($id, 1, 61000, 'timeout', 1, 'operation timed out');
INSERT INTO samples(source, host, metric, t_ms, value, run_id)
  VALUES ('app', 'h-$u', 'cpu_pct', 1000, 55.5, $id), ('app', 'h-$u', 'cpu_pct', 6000, 60, $id);
INSERT INTO gc_events(source, host, t_ms, kind, pause_us, heap_after_kb, run_id)
  VALUES ('app', 'h-$u', 2000, 'young', 1500, 100000, $id),
         ('app', 'h-$u', 9000, 'full', 250000, 90000, $id);
INSERT INTO events(source, host, t_ms, kind, detail, run_id)
  VALUES ('app', 'h-$u', 3000, 'procs_changed', '1 -> 2 processes', $id);
EOF
}

count() { sql "$1" "SELECT count(*) FROM $2"; }
counts() { # FILE: counts of every merged table, one line
  local t out=
  for t in runs steps intervals interval_errors samples gc_events events; do
    out+="$t=$(count "$1" "$t") "
  done
  echo "$out"
}

# --- two inputs; A's run ids are 1 and 2, B's is 1 as well (must be renumbered) ----------
if new_db "$A" a && new_db "$B" b; then ok "inputs created by soak-procstat"
else fail "inputs created by soak-procstat"; fi
add_run "$A" uuid-a1 1
add_run "$A" uuid-a2 2
add_run "$B" uuid-b1 1
# A sample of B naming a run that B does not hold: its run_id means nothing in OUT.
sql "$B" "INSERT INTO samples VALUES ('db', 'h-b', 'rss_kb', 5000, 1.0, 77)"

a_samples=$(count "$A" samples) b_samples=$(count "$B" samples)
soak merge -o "$OUT" "$A" "$B" >"$T/merge1.out" 2>"$T/merge1.err"
check_eq "first merge exits 0" "$?" 0
check "per-input line for A" grep -qE "^$A: \+2 runs \(0 updated\), \+4 steps \(0 updated\), \+6 intervals, \+4 interval_errors, \+[0-9]+ run_env, \+0 thresholds, \+0 gaps, \+0 profile_windows, \+0 profiles, \+$a_samples samples, \+4 gc_events, \+2 events, \+0 studies \(0 updated\), \+0 study_runs, \+0 calibrations$" "$T/merge1.out"
check "per-input line for B" grep -qE "^$B: \+1 runs \(0 updated\), \+2 steps \(0 updated\), \+3 intervals, \+2 interval_errors, \+[0-9]+ run_env, \+0 thresholds, \+0 gaps, \+0 profile_windows, \+0 profiles, \+$b_samples samples, \+2 gc_events, \+1 events, \+0 studies \(0 updated\), \+0 study_runs, \+0 calibrations$" "$T/merge1.out"
first=$(counts "$OUT")
check_eq "OUT holds both inputs" "$first" \
  "runs=3 steps=6 intervals=9 interval_errors=6 samples=$((a_samples + b_samples)) gc_events=6 events=3 "

# --- run ids renumbered, children follow ------------------------------------------------
b_id=$(sql "$OUT" "SELECT id FROM runs WHERE uuid = 'uuid-b1'")
check_eq "B's run got a fresh id" "$b_id" 3
for t in steps intervals interval_errors gc_events events; do
  check_eq "B's $t point at its run" \
    "$(sql "$OUT" "SELECT count(*) FROM $t x JOIN runs r ON r.id = x.run_id WHERE r.uuid = 'uuid-b1'")" \
    "$(count "$B" "$t WHERE run_id = 1")"
done
check_eq "B's run samples point at its run" \
  "$(sql "$OUT" "SELECT count(*) FROM samples WHERE run_id = $b_id AND host = 'h-uuid-b1'")" 2
check_eq "A's second run kept its rows" \
  "$(sql "$OUT" "SELECT count(*) FROM intervals x JOIN runs r ON r.id = x.run_id WHERE r.uuid = 'uuid-a2'")" 3
check_eq "a sample naming a run not in its file gets NULL" \
  "$(sql "$OUT" "SELECT IFNULL(run_id, 'null') FROM samples WHERE source = 'db' AND t_ms = 5000")" null
check_eq "no orphan rows" \
  "$(sql "$OUT" "SELECT (SELECT count(*) FROM steps WHERE run_id NOT IN (SELECT id FROM runs)) + (SELECT count(*) FROM intervals WHERE run_id NOT IN (SELECT id FROM runs))")" 0
check_eq "host samples kept their source and host" \
  "$(sql "$OUT" "SELECT count(DISTINCT host) FROM samples WHERE source IN ('a', 'b')")" 2

# --- idempotent ---------------------------------------------------------------------------
soak merge -o "$OUT" "$A" "$B" "$A" >"$T/merge2.out" 2>&1
check_eq "second merge exits 0" "$?" 0
check_eq "second merge adds nothing" \
  "$(grep -c ': +0 runs (0 updated), +0 steps (0 updated), +0 intervals, +0 interval_errors, +0 run_env, +0 thresholds, +0 gaps, +0 profile_windows, +0 profiles, +0 samples, +0 gc_events, +0 events, +0 studies (0 updated), +0 study_runs, +0 calibrations$' "$T/merge2.out")" 3
check_eq "counts unchanged" "$(counts "$OUT")" "$first"
check_eq "ids unchanged" "$(sql "$OUT" "SELECT group_concat(uuid || '=' || id, ' ') FROM (SELECT * FROM runs ORDER BY id)")" \
  "uuid-a1=1 uuid-a2=2 uuid-b1=3"

# --- a later copy of a running run brings it (and its unfinished step) up to date ---------
sql "$A" "UPDATE runs SET status = 'done', ended_ms = 2000000, heartbeat_ms = 2000000 WHERE id = 2;
          UPDATE steps SET window_start_ms = 1000, window_end_ms = 61000, requests = 1010, tps = 16.8
            WHERE run_id = 2 AND idx = 0;
          INSERT INTO intervals(run_id, step_idx, start_ms, length_ms, phase, vus, requests,
                                errors, bytes, new_conns)
            VALUES (2, 1, 71000, 10000, 'steady', 20, 880, 0, 15000, 0);"
soak merge -o "$OUT" "$A" >"$T/merge3.out" 2>&1
check "later copy: one run and one step updated, one interval added" \
  grep -qF "$A: +0 runs (1 updated), +0 steps (1 updated), +1 intervals," "$T/merge3.out"
check_eq "run status followed" "$(sql "$OUT" "SELECT status || ' ' || ended_ms FROM runs WHERE uuid = 'uuid-a2'")" "done 2000000"
check_eq "step figures followed" "$(sql "$OUT" "SELECT requests || ' ' || window_end_ms FROM steps s JOIN runs r ON r.id = s.run_id WHERE r.uuid = 'uuid-a2' AND idx = 0")" "1010 61000"
soak merge -o "$OUT" "$A" >"$T/merge4.out" 2>&1
check "and again: nothing" grep -qF "$A: +0 runs (0 updated), +0 steps (0 updated), +0 intervals," "$T/merge4.out"

# --- bad inputs: exit 2, a clear message, OUT untouched -----------------------------------
before=$(counts "$OUT")
# bad_input NAME WANT-REGEX ARGS...: merge must exit 2 and say WANT on stderr.
bad_input() {
  local name=$1 want=$2 rc; shift 2
  soak merge "$@" >"$T/bad.out" 2>"$T/bad.err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qE "$want" "$T/bad.err"; then ok "$name"
  else fail "$name" "exit $rc, stderr: $(cat "$T/bad.err")"; fi
}
echo "not a database at all" >"$T/text.db"
sql "$T/plain.db" "CREATE TABLE notes(x); INSERT INTO notes VALUES (1)"
cp "$B" "$T/newer.db" && sql "$T/newer.db" "PRAGMA user_version = 99" >/dev/null
ln -s "$OUT" "$T/link.db"
bad_input "missing input" "cannot open '$T/nope.db': No such file" -o "$OUT" "$A" "$T/nope.db"
bad_input "text file" "'$T/text.db' is not a soak database" -o "$OUT" "$T/text.db"
bad_input "plain sqlite file" "'$T/plain.db' is not a soak database" -o "$OUT" "$T/plain.db"
bad_input "newer schema" "written by a newer soak \(schema 99" -o "$OUT" "$T/newer.db"
bad_input "OUT as input" "'$OUT' is the output" -o "$OUT" "$A" "$OUT"
bad_input "OUT as input through a link" "is the output" -o "$OUT" "$T/link.db"
bad_input "OUT not a soak database" "'$T/plain.db' is not a soak database" -o "$T/plain.db" "$A"
bad_input "no -o" "missing -o" "$A"
bad_input "no inputs" "no input databases" -o "$OUT"
check_eq "OUT untouched by refused merges" "$(counts "$OUT")" "$before"
check "nothing created for a refused merge" test ! -e "$T/new-out.db"
soak merge -o "$T/new-out.db" "$A" "$T/nope.db" >/dev/null 2>&1
check "a bad last input leaves no OUT behind" test ! -e "$T/new-out.db"
soak merge --help >"$T/help.out" 2>&1
check_eq "--help exits 0" "$?" 0
check "--help shows the usage" grep -q "usage: soak merge -o OUT.db DB..." "$T/help.out"

done_testing
