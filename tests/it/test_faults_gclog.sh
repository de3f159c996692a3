#!/usr/bin/env bash
# soak-gclog --follow while the JVM is killed and restarted, the case test_gclog.sh does
# not cover (it covers rotation, copy-and-truncate, delete-and-recreate of one JVM's log):
#  1. an uptime-only log (-Xlog:gc, or JDK 8 -Xloggc) rewritten in place by the new JVM,
#     which writes more than the old one had before the follower looks again;
#  2. a log with wall-clock time whose old file the new JVM renames away at start
#     (-Xlog file rotation), the killed JVM's last line cut short.
# Every event of both JVMs must be stored once: no event lost, none counted twice.
. "$(dirname "$0")/lib.sh"
DATA=$TOP/tests/data/gc/jdk17
G=$BIN/soak-gclog
COLS="uptime_ms, gc_id, kind, cause, pause_us, conc_us, heap_before_kb, heap_after_kb, heap_total_kb"

# settle DB: waits (bounded) until the follower has stored a stable number of events.
settle() {
  local last=-1 cur i
  for i in $(seq 1 40); do
    sleep 0.5
    cur=$(sql "$1" "SELECT count(*) FROM gc_events" 2>/dev/null || echo -1)
    [ "$cur" = "$last" ] && [ "$cur" -gt 0 ] && return 0
    last=$cur
  done
  return 1
}
# head_lines FILE PERCENT: the file's first lines, cut at a line end near PERCENT of it.
head_lines() { head -n $(($(wc -l <"$1") * $2 / 100)) "$1"; }
# expected OUT COLUMNS FILE...: each file imported alone (a JVM of its own), rows together.
expected() {
  local out=$1 cols=$2 f i=0
  shift 2
  for f in "$@"; do
    i=$((i + 1))
    rm -f "$out.$i.db"
    "$G" --db "$out.$i.db" --source app --jvm-start 1000000000000 --import "$f" 2>/dev/null
    sql "$out.$i.db" "SELECT $cols FROM gc_events"
  done | sort >"$out"
}
# killed_jvm LOG FILE TORN DB: appends FILE to LOG in two writes a poll apart (the first
# ends inside a line), then TORN, the line a killed JVM left half-written; waits until
# the follower into DB has stored the events.
killed_jvm() {
  local half=$(($(wc -c <"$2") / 3))
  head -c "$half" "$2" >>"$1"
  sleep 1.2
  tail -c +$((half + 1)) "$2" >>"$1"
  printf '%s' "$3" >>"$1"
  settle "$4" || fail "$(basename "$1"): the follower stores the first JVM's events"
}
# same_events NAME DB COLUMNS FILE...: the events the follower stored in DB are those of
# importing each FILE alone (one JVM each), each once.
same_events() {
  local name=$1 db=$2 cols=$3
  shift 3
  expected "$T/$name.exp" "$cols" "$@"
  sql "$db" "SELECT $cols FROM gc_events" | sort >"$T/$name.got"
  check_eq "$name: every event of both JVMs, once" "$(wc -l <"$T/$name.got")" "$(wc -l <"$T/$name.exp")"
  check "$name: the same events ($cols) as importing each JVM's log alone" \
    cmp -s "$T/$name.got" "$T/$name.exp"
}
live=$T/live
mkdir -p "$live"

# --- 1. uptime-only log rewritten in place by a restarted JVM -----------------------------
db=$T/inplace.db
head_lines "$DATA/leak-g1-gc.log" 40 >"$T/jvm1.log"
: >"$live/gc.log"
spawn "$T/follow1.out" "$G" --db "$db" --source app --follow "$live/gc.log" --every 1s --for 60s
f1=$SPAWNED_PID
killed_jvm "$live/gc.log" "$T/jvm1.log" '[25.123s][info][gc] GC(60) Pause Young (Normal) (G1 Evac' "$db"
# The new JVM truncates the file and writes more than the old one had, within one poll.
cat "$DATA/stable-g1-gc.log" >"$live/gc.log"
settle "$db" || fail "in place: the follower stores the second JVM's events"
stop_pid "$f1" TERM
same_events "in place" "$db" "$COLS" "$T/jvm1.log" "$DATA/stable-g1-gc.log"
check_eq "in place: the rewrite is an event" "$(sql "$db" "SELECT count(*) FROM events WHERE kind='gc_log_truncated'")" 1
check_eq "in place: the restart is an event" "$(sql "$db" "SELECT count(*) FROM events WHERE kind='gc_jvm_restart'")" 1
check_eq "in place: each JVM anchored at its own start, the second later" \
  "$(sql "$db" "SELECT count(DISTINCT t_ms - uptime_ms), (SELECT t_ms - uptime_ms FROM gc_events WHERE uptime_ms > 0 ORDER BY id DESC LIMIT 1) > (SELECT t_ms - uptime_ms FROM gc_events ORDER BY id LIMIT 1) FROM gc_events")" \
  "2|1"
check_eq "in place: the cut line is not an event" "$(sql "$db" "SELECT count(*) FROM gc_events WHERE gc_id = 60 AND uptime_ms = 25123")" 0

# --- 2. timestamped log, the new JVM renames the killed one's file away ------------------
db=$T/rotate.db
: >"$live/star.log"
spawn "$T/follow2.out" "$G" --db "$db" --source app --follow "$live/star.log" --every 500ms --for 60s
f2=$SPAWNED_PID
killed_jvm "$live/star.log" "$DATA/killed-parallel-gcstar.log" \
  '[2026-11-30T01:27:55.712+0000][16.859s][info][gc             ] GC(76) Pause Young (Allocation Failure) 8' "$db"
mv "$live/star.log" "$live/star.log.0"
# A round may fall between the rename and the new file (the old flake: got 0 rotations, the
# round saw no file and called it missing); a gap of most of a poll makes that round likely.
sleep 0.3
head -c 20000 "$DATA/leak-g1-gcstar.log" >"$live/star.log"
sleep 0.7
tail -c +20001 "$DATA/leak-g1-gcstar.log" >>"$live/star.log"
settle "$db" || fail "rotation: the follower stores the second JVM's events"
stop_pid "$f2" TERM
same_events rotation "$db" "t_ms, $COLS" "$DATA/killed-parallel-gcstar.log" "$DATA/leak-g1-gcstar.log"
check_eq "rotation: the rotation is an event" "$(sql "$db" "SELECT count(*) FROM events WHERE kind='gc_log_rotated'")" 1
check_eq "rotation: the gap between rename and new file is no loss" \
  "$(sql "$db" "SELECT count(*) FROM events WHERE kind IN ('gc_log_missing', 'gc_log_reappeared')")" 0

done_testing
