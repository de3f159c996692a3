#!/usr/bin/env bash
# soak-gclog end to end: --summary JSON on real logs, import (and re-import adding
# nothing), IBM J9 / OpenJ9 XML through the database, follow mode across torn lines, JDK
# rotation, copy-and-truncate, delete and recreate, bad inputs, --pid-match anchoring and
# --die-with-parent.
. "$(dirname "$0")/lib.sh"
DATA=$TOP/tests/data/gc
G=$BIN/soak-gclog

# --- summary -------------------------------------------------------------------------
out=$("$G" --summary "$DATA/jdk17/leak-g1-gcstar.log" "$DATA/jdk17/stable-g1-gc.log" \
	"$DATA/gcviewer__SampleIBMJ9_R27_SR1_full_header.txt" "$DATA/gen/oom-g1-gc.log") ||
	fail "summary exit" "$?"
check_eq "summary: one object per file" "$(echo "$out" | jq -s length)" 4
check_eq "summary: leak format" "$(echo "$out" | jq -r 'select(.file|test("leak")).format')" unified/g1
check_eq "summary: leak young count" "$(echo "$out" | jq -r 'select(.file|test("leak")).events.young')" 104
check_eq "summary: leak pause total" "$(echo "$out" | jq -r 'select(.file|test("leak")).pause_total_ms')" 316.806
check_eq "summary: leak pause max" "$(echo "$out" | jq -r 'select(.file|test("leak")).pause_max_ms')" 12.618
# One-minute logs: the trend alone is read, the verdict says the window is too short.
check_eq "summary: leak trend" "$(echo "$out" | jq -r 'select(.file|test("leak")).trend')" suspected_leak
check_eq "summary: leak verdict" "$(echo "$out" | jq -r 'select(.file|test("leak")).memory')" too_short
check_eq "summary: stable trend" "$(echo "$out" | jq -r 'select(.file|test("stable")).trend')" normal
check_eq "summary: stable verdict" "$(echo "$out" | jq -r 'select(.file|test("stable")).memory')" too_short
check_eq "summary: stable mixed" "$(echo "$out" | jq -r 'select(.file|test("stable")).events.mixed')" 61
check_eq "summary: J9 read" "$(echo "$out" | jq -r 'select(.file|test("J9")).format')" j9/gencon
check_eq "summary: J9 young" "$(echo "$out" | jq -r 'select(.file|test("J9")).events.young')" 3
check_eq "summary: OutOfMemoryError run exhausted" \
	"$(echo "$out" | jq -r 'select(.file|test("oom")).memory')" exhausted
oom_why=$(echo "$out" | jq -r 'select(.file|test("oom")).why')
check "summary: exhaustion stated with its numbers" \
	grep -Eq '^heap exhausted: [0-9]+ back-to-back full collections and [0-9]+ failed' <<<"$oom_why"
check "summary: why is a sentence" test -n "$(echo "$out" | jq -r 'select(.file|test("leak")).why')"
leak_trend() { echo "$out" | jq -s -e 'map(select(.file|test("leak")))[0] | .heap_after_slope_mb_per_h > 0 and .heap_after_r2 > 0.9' >/dev/null; }
check "summary: slope and r2 present" leak_trend

# --- import and re-import -----------------------------------------------------------------
db=$T/imp.db
"$G" --db "$db" --source app --host h1 --run 7 --import "$DATA/jdk17/leak-parallel-gcstar.log" \
	"$DATA/gctoolkit__bbvc.log.32.current" 2>"$T/imp.err"
check_eq "import: exit 0" "$?" 0
n1=$(sql "$db" "SELECT count(*) FROM gc_events")
check_eq "import: parallel + bbvc events" "$n1" $((236 + 183 + 177 + 767))
check_eq "import: run id and host" "$(sql "$db" "SELECT count(*) FROM gc_events WHERE run_id=7 AND host='h1' AND source='app'")" "$n1"
check_eq "import: pause sum of the jdk17 log (µs)" \
	"$(sql "$db" "SELECT sum(pause_us) FROM gc_events WHERE kind IN ('young','full') AND t_ms > 1790000000000")" 496102
check_eq "import: the truncated record is stored as gc_unparsed" \
	"$(sql "$db" "SELECT count(*) FROM events WHERE kind='gc_unparsed'")" 1
"$G" --db "$db" --source app --host h1 --run 7 --import "$DATA/jdk17/leak-parallel-gcstar.log" \
	"$DATA/gctoolkit__bbvc.log.32.current" 2>/dev/null
check_eq "re-import adds nothing" "$(sql "$db" "SELECT count(*) FROM gc_events")" "$n1"
check_eq "re-import adds no events rows" "$(sql "$db" "SELECT count(*) FROM events")" 1

# --- IBM J9 / OpenJ9 XML through the database --------------------------------------------------
# The GCViewer samples (pauses from GCViewer's tests: 42.303 + 41.268 + 34.961, 1255.648,
# 97.756, 1182.375, 0.809, 36.392, 35.912, 837.024 ms) and the generated exhausted log
# (91 events, 9215.443 ms: synth.sh's figures).  J9 writes local time: TZ=UTC pins it.
j9db=$T/j9.db
TZ=UTC "$G" --db "$j9db" --source was --host h9 --import "$DATA/gcviewer__SampleIBMJ9_R27_SR1_full_header.txt" \
	"$DATA"/j9/gcviewer__*.txt 2>"$T/j9.err"
check_eq "j9 import: exit 0" "$?" 0
check_eq "j9 import: events by kind" \
	"$(sql "$j9db" "SELECT group_concat(k, ' ') FROM (SELECT kind || '=' || count(*) AS k FROM gc_events GROUP BY kind ORDER BY kind)")" \
	"full=6 other=1 young=3"
check_eq "j9 import: pause sum (µs)" "$(sql "$j9db" "SELECT sum(pause_us) FROM gc_events")" 3564448
check_eq "j9 import: first scavenge (t, heap before/after/total KB)" \
	"$(sql "$j9db" "SELECT t_ms || ' ' || heap_before_kb || ' ' || heap_after_kb || ' ' || heap_total_kb FROM gc_events WHERE kind='young' ORDER BY t_ms LIMIT 1")" \
	"1411574252116 263265 157135 1048576"
check_eq "j9 import: nothing unparsed" "$(sql "$j9db" "SELECT count(*) FROM events WHERE kind='gc_unparsed'")" 0
TZ=UTC "$G" --db "$j9db" --source was --host h9 --import "$DATA/j9/synthetic-new-exhaust.xml" 2>/dev/null
check_eq "j9 import: the generated log (events, pause µs, failed)" \
	"$(sql "$j9db" "SELECT count(*) || ' ' || sum(pause_us) || ' ' || sum(cause LIKE '%percolated%') FROM gc_events WHERE t_ms >= 1709632800000")" \
	"91 9215443 6"
TZ=UTC "$G" --db "$j9db" --source was --host h9 --import "$DATA/j9/synthetic-new-exhaust.xml" 2>/dev/null
check_eq "j9 re-import adds nothing" "$(sql "$j9db" "SELECT count(*) FROM gc_events")" 101
check_eq "j9 summary: exhausted" \
	"$("$G" --summary "$DATA/j9/synthetic-new-exhaust.xml" | jq -r .memory)" exhausted

# --- bad inputs ---------------------------------------------------------------------------
err=$("$G" --db "$T/bad.db" --source app --import "$T/missing.log" 2>&1); rc=$?
check_eq "missing file: exit 2" "$rc" 2
check_eq "missing file: message" "$err" "soak-gclog: cannot open '$T/missing.log': No such file or directory"
check "missing file: no database created" test ! -e "$T/bad.db"
# Tests run as root, so chmod 000 would not stop a read: a directory really is unreadable.
mkdir -p "$T/adir"
err=$("$G" --db "$T/bad2.db" --source app --import "$T/adir" 2>&1); rc=$?
check_eq "unreadable file (a directory): exit 2" "$rc" 2
check_eq "unreadable file: message" "$err" "soak-gclog: cannot read '$T/adir': Is a directory"
err=$("$G" --db "$T/bad3.db" --source app --pid-match 'java(' --import "$DATA/jdk17/leak-g1-gc.log" 2>&1); rc=$?
check_eq "bad --pid-match: exit 2" "$rc" 2
check "bad --pid-match: message" bash -c "echo \"$err\" | grep -q \"^soak-gclog: bad --pid-match 'java(': missing closing parenthesis\""
"$G" --db "$T/bad4.db" --source app 2>/dev/null; check_eq "no input: exit 2" "$?" 2
"$G" --db "$T/bad4.db" --source app --every 0s --follow "$T/x.log" 2>/dev/null; check_eq "bad --every: exit 2" "$?" 2
"$G" --help | grep -q -- '--pid-match'; check_eq "--help" "$?" 0
head -c 200000 /bin/ls >"$T/binary.log"
"$G" --db "$T/bin.db" --source app --import "$T/binary.log" 2>"$T/bin.err"
check_eq "binary log: not fatal" "$?" 0
check_eq "binary log: no events" "$(sql "$T/bin.db" "SELECT count(*) FROM gc_events")" 0
check "binary log: unparsed lines stored (capped)" \
	test "$(sql "$T/bin.db" "SELECT count(*) FROM events WHERE kind='gc_unparsed'")" -ge 1
check "binary log: count reported" grep -q "could not be placed" "$T/bin.err"
bsum=$("$G" --summary "$T/binary.log")
check "binary log: summary counts unparsed lines" test "$(echo "$bsum" | jq .unparsed_lines)" -gt 0

# --- anchoring ------------------------------------------------------------------------------
spawn "$T/marker.log" bash -c 'exec -a soak-it-jvm-marker-4711 sleep 30'
marker=$SPAWNED_PID
wait_for 5 grep -q soak-it-jvm-marker-4711 "/proc/$marker/cmdline"
"$G" --db "$T/pid.db" --source app --pid-match 'soak-it-jvm-marker-4711' \
	--import "$DATA/jdk17/leak-g1-gc.log" 2>/dev/null
anchor=$(sql "$T/pid.db" "SELECT min(t_ms - uptime_ms) FROM gc_events")
# The process's start as the kernel tells it: boot time (s) plus its start in clock ticks.
started=$(awk -v t="$(awk '{ print $22 }' "/proc/$marker/stat")" -v hz="$(getconf CLK_TCK)" \
	'/^btime / { printf "%.0f", $2 * 1000 + int(t * 1000 / hz) }' /proc/stat)
check_eq "pid-match: anchored at the process start" "$anchor" "$started"
check_eq "pid-match: one anchor for all events" \
	"$(sql "$T/pid.db" "SELECT count(DISTINCT t_ms - uptime_ms) FROM gc_events")" 1
stop_pid "$marker"
"$G" --db "$T/js.db" --source app --jvm-start 1796001727218 --import "$DATA/jdk17/leak-g1-gc.log"
"$G" --db "$T/js.db" --source star --import "$DATA/jdk17/leak-g1-gcstar.log"
check_eq "jvm-start: -gc.log lands on the gcstar times (+-1 ms)" \
	"$(sql "$T/js.db" "SELECT count(*) FROM gc_events a JOIN gc_events b ON a.source='app' AND b.source='star' AND a.gc_id=b.gc_id AND a.kind=b.kind AND abs(a.t_ms-b.t_ms)<=1")" \
	"$(sql "$T/js.db" "SELECT count(*) FROM gc_events WHERE source='app'")"

# --- follow -----------------------------------------------------------------------------------
# The log is written in four parts, each ending at a line end (the JVM writes whole lines),
# in chunks cut anywhere inside lines; between the parts it is rotated (rename + new file),
# copied and truncated, and deleted and recreated.
src=$DATA/jdk17/leak-g1-gcstar.log
size=$(stat -c %s "$src")
cut_at() { # byte offset of the line end at or after $1
	local n; n=$(head -c "$1" "$src" | wc -l)
	head -n $((n + 1)) "$src" | wc -c
}
b1=$(cut_at $((size * 30 / 100))) b2=$(cut_at $((size * 55 / 100))) b3=$(cut_at $((size * 75 / 100)))
part() { tail -c +$(($1 + 1)) "$src" | head -c $(($2 - $1)); }
write_torn() { # FROM TO FILE: appends the byte range in 3 chunks that cut lines
	local from=$1 to=$2 f=$3 a b
	a=$((from + (to - from) / 3 + 17)) b=$((from + 2 * (to - from) / 3 + 5))
	part "$from" "$a" >>"$f"; sleep 0.4
	part "$a" "$b" >>"$f"; sleep 0.4
	part "$b" "$to" >>"$f"
}
live=$T/live; mkdir -p "$live"; fdb=$T/follow.db
settle() { # waits (bounded) until the follower has stored a stable number of events
	local last=-1 cur i
	for i in $(seq 1 40); do
		sleep 0.5
		cur=$(sql "$fdb" "SELECT count(*) FROM gc_events" 2>/dev/null || echo -1)
		[ "$cur" = "$last" ] && return 0
		last=$cur
	done
	return 1
}
: >"$live/gc.log"
spawn "$T/follow.out" "$G" --db "$fdb" --source app --follow "$live/gc.log" --every 200ms --for 120s
fpid=$SPAWNED_PID
write_torn 0 "$b1" "$live/gc.log"; settle
# JDK rotation: the old file renamed, a new one in its place.  Done as link + atomic
# replace so the path never goes missing between the two (a poll in that gap would see
# a vanished file, not a rotation).
ln "$live/gc.log" "$live/gc.log.0"; : >"$live/gc.log.new"; mv "$live/gc.log.new" "$live/gc.log"
write_torn "$b1" "$b2" "$live/gc.log"; settle
cp "$live/gc.log" "$live/gc.log.1"; : >"$live/gc.log"   # copy and truncate
write_torn "$b2" "$b3" "$live/gc.log"; settle
rm -f "$live/gc.log"; sleep 1                     # the file vanishes ...
write_torn "$b3" "$size" "$live/gc.log"; settle   # ... and comes back
check "follow: still running" alive "$fpid"
stop_pid "$fpid" TERM
check "follow: stopped by SIGTERM" bash -c "! kill -0 $fpid 2>/dev/null"
"$G" --db "$T/once.db" --source app --import "$src"
q="SELECT t_ms,uptime_ms,gc_id,kind,cause,pause_us,conc_us,heap_before_kb,heap_after_kb,heap_total_kb,young_before_kb,young_after_kb,old_before_kb,old_after_kb,meta_after_kb FROM gc_events ORDER BY 1,2,3,4,6,7"
sql "$fdb" "$q" >"$T/follow.rows"; sql "$T/once.db" "$q" >"$T/once.rows"
check_eq "follow: as many events as a one-shot import" "$(wc -l <"$T/follow.rows")" "$(wc -l <"$T/once.rows")"
check "follow: the same rows as a one-shot import" cmp -s "$T/follow.rows" "$T/once.rows"
check_eq "follow: 147 events (133 pauses + 14 cycles)" "$(wc -l <"$T/once.rows")" 147
for k in gc_log_rotated gc_log_truncated gc_log_missing gc_log_reappeared; do
	check "follow: $k recorded" test "$(sql "$fdb" "SELECT count(*) FROM events WHERE kind='$k'")" -ge 1
done
check_eq "follow: nothing unparsed" "$(sql "$fdb" "SELECT count(*) FROM events WHERE kind='gc_unparsed'")" 0

# --for ends the follower by itself (the suite's timeout would catch one that does not);
# --die-with-parent ends it with its parent.
"$G" --db "$T/for.db" --source app --follow "$live/gc.log" --every 100ms --for 1s
check_eq "follow --for: exit 0" "$?" 0
bash -c "'$G' --db '$T/dp.db' --source app --follow '$live/gc.log' --every 100ms --for 60s --die-with-parent & echo \$! >'$T/dp.pid'; sleep 0.5"
dp=$(cat "$T/dp.pid")
wait_for 5 bash -c "! kill -0 $dp 2>/dev/null"
check_eq "die-with-parent: gone with its parent" "$?" 0

done_testing
