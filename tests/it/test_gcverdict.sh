#!/usr/bin/env bash
# The memory verdict on real logs whose answer is known (tests/data/gc/MANIFEST.md, sections
# I and K): healthy servlet containers under load whose old generation never needed a
# collection (normal, with the headroom, and no "run longer"), and slow leaks whose floor
# rises with no old-generation collection yet (rising, with when one would come: checked
# against when it came in the same JVM's whole log), through soak-gclog --summary and
# through a report, whose report.md, report.html, report.json and findings must say the
# same.  Load-free: it reads files.
. "$(dirname "$0")/lib.sh"
DATA=$TOP/tests/data/gc
G=$BIN/soak-gclog
FIX=$T/report_fixture

# field FILE JQ: one value of the --summary object of FILE.
field() { "$G" --summary "$1" | jq -r "$2"; }
# no_longer TEXT: TEXT advises no longer run.
no_longer() { ! grep -q 'run at least\|longer' <<<"$1"; }
# uptime_s LINE: the uptime decoration of a unified log line, in seconds.
uptime_s() { grep -o '\]\[[0-9.]*s\]' <<<"$1" | head -n 1 | tr -d '[]s'; }

# --- healthy containers: flat, never needed an old collection ---------------------------------
for f in containers/tomcat10-g1-gcstar.log containers/tomcat10-g1-gc.log \
  containers/tomcat9-g1-gcstar.log containers/tomcat9-g1-gc.log; do
  s=$("$G" --summary "$DATA/$f")
  q() { jq -r "$1" <<<"$s"; }
  check_eq "$f: G1" "$(q .format)" unified/g1
  check_eq "$f: every young pause read" "$(q .events.young)" "$(grep -c '\[gc *\] GC([0-9]*) Pause Young' "$DATA/$f")"
  check_eq "$f: no old-generation collection at all" \
    "$(q '[.events.mixed, .events.full, .events.remark, .events.concurrent] | add')" 0
  check_eq "$f: normal, and so is the trend" "$(q '[.memory, .trend, .old_cycles] | join(",")')" normal,normal,0
  check "$f: the why says what the log shows" \
    grep -q '^heap after GC is flat and never needed an old-generation collection: +[0-9.]* MB/h over [1-9][0-9]m[0-9]*s of steady window' <<<"$(q .why)"
  check_eq "$f: headroom against G1's 45 % of 256 MB" "$(q '.headroom | [.trigger, .trigger_mb, .capacity_mb] | join(",")')" g1_ihop,115.2,256
  check_eq "$f: running longer would decide nothing" "$(q .run_longer_h)" null
  check "$f: no run longer" no_longer "$(q .why)"
done
# -Xlog:gc* gives the old generation: Tomcat 10's holds 13 old + 2 archive regions of 1 MB
# from its 7th young pause to the last (42), Tomcat 9's 9 + 2 from its 5th to the last (48):
# nothing promoted over the window, nothing in sight.  Tomcat 9's floor rises 2.3 MB/h with
# that (its survivor spaces): from -Xlog:gc alone, that is the rate.
headroom() { "$G" --summary "$DATA/containers/$1" | jq -r '.headroom | [.of, .level_mb, .promotion_mb_per_h, .growth_mb_per_h, .to_trigger_h] | join(",")'; }
check_eq "tomcat10 gc*: the old generation, flat" "$(headroom tomcat10-g1-gcstar.log)" "old generation,15,0,0,"
check_eq "tomcat10 gc: the floor of heap after GC, flat" "$(headroom tomcat10-g1-gc.log)" "heap,14,,0,"
check_eq "tomcat9 gc*: the old generation, flat though the floor is not" "$(headroom tomcat9-g1-gcstar.log)" "old generation,11,0,0,"
check_eq "tomcat9 gc: the floor's rise, far off" "$(headroom tomcat9-g1-gc.log)" "heap,12,,2.268,45.495"
s=$("$G" --summary "$DATA/containers/tomcat10-g1-gcstar.log")
check "gc*: the headroom in words" grep -qF 'the old generation holds 15.0 MB (6% of the 256 MB heap), 100.2 MB below the 45% of the heap (115 MB) at which G1 starts a concurrent cycle by default; it gains less than 1 MB over the window (promotion +0.00 MB/h), so none is in sight' <<<"$(jq -r .why <<<"$s")"

# --- slow leaks: rising, and when an old collection comes ----------------------------------
# The first 1500 s of each JVM's log predict its first old-generation collection; its whole
# -Xlog:gc log says when it came.  With the old generation's figures (-Xlog:gc*) or G1's
# initiating occupancy the prediction must fall within 5 % of the time it looked ahead;
# with the heap's capacity only (Parallel and Serial -Xlog:gc) it is a bound: not before.
for c in g1 parallel serial; do
  full=$DATA/trickle/trickle-$c-gc-full.log
  first=$(grep -m1 'Pause Full\|Concurrent Start' "$full")
  actual=$(uptime_s "$first")
  for v in gcstar gc; do
    f=$DATA/trickle/trickle-$c-$v.log
    s=$("$G" --summary "$f")
    q() { jq -r "$1" <<<"$s"; }
    end=$(uptime_s "$(grep '\[gc *\] GC(' "$f" | tail -n 1)")
    check_eq "trickle-$c-$v: rising, trend suspected leak, no old cycle" \
      "$(q '[.memory, .trend, .old_cycles] | join(",")')" rising,suspected_leak,0
    check "trickle-$c-$v: a leak is not ruled out, and how much longer to run" \
      grep -q 'a leak is not ruled out: .*; run at least [0-9hm]* longer to see whether an old collection frees it' <<<"$(q .why)"
    check_eq "trickle-$c-$v: run longer as long as the trigger is away" "$(q '.run_longer_h == .headroom.to_trigger_h')" true
    pred=$(awk -v e="$end" -v h="$(q .headroom.to_trigger_h)" 'BEGIN { printf "%.0f", e + h * 3600 }')
    trig=$(q .headroom.trigger)
    echo "# trickle-$c-$v: $trig at $(q .headroom.trigger_mb) MB from $(q .headroom.level_mb) MB at the floor's $(q .heap_after_slope_mb_per_h) MB/h: predicted at ${pred}s of uptime, came at ${actual}s"
    if [ "$trig" = heap_full ]; then
      check_range "trickle-$c-$v: no old collection before the heap would fill (bound)" "$pred" "$actual" 1e9
    else
      slack=$(awk -v a="$actual" -v e="$end" 'BEGIN { printf "%.0f", (a - e) * 0.05 }')
      check_range "trickle-$c-$v: the old collection came when predicted (5 %)" "$pred" \
        "$(awk -v a="$actual" -v s="$slack" 'BEGIN { print a - s }')" \
        "$(awk -v a="$actual" -v s="$slack" 'BEGIN { print a + s }')"
    fi
  done
done
check_eq "G1 gc*: G1's initiating occupancy" "$(field "$DATA/trickle/trickle-g1-gcstar.log" .headroom.trigger)" g1_ihop
check_eq "Parallel gc*: the old generation's capacity" "$(field "$DATA/trickle/trickle-parallel-gcstar.log" '.headroom | [.trigger, .trigger_mb] | join(",")')" old_full,171
check_eq "Serial gc: the heap's capacity, at the latest" "$(field "$DATA/trickle/trickle-serial-gc.log" '.headroom | [.trigger, .trigger_mb] | join(",")')" heap_full,247
# Once the old collections came, they told: G1's concurrent cycles free nothing and the
# floor keeps rising (a suspected leak); Parallel and Serial ran out of heap.
check_eq "G1 whole log: suspected leak" "$(field "$DATA/trickle/trickle-g1-gc-full.log" .memory)" suspected_leak
for c in parallel serial; do
  check_eq "$c whole log: exhausted" "$(field "$DATA/trickle/trickle-$c-gc-full.log" .memory)" exhausted
done

# --- the report says the same in every form ----------------------------------------------
build_report_fixture "$FIX" || exit 1
new_db "$T/r.db"
"$FIX" gc healthy="$DATA/containers/tomcat10-g1-gcstar.log" leak="$DATA/trickle/trickle-g1-gcstar.log" |
  sqlite3 "$T/r.db" || fail "load the fixture"
soak report "$T/r.db" -o "$T/r" --no-plots >"$T/r.out" 2>&1
check_eq "report exits 0" "$?" 0
J=$T/r/report.json MD=$T/r/report.md DET=$T/r/details.md HTML=$T/r/report.html
json() { jq -r "$1" "$J"; }
check_eq "report.json: normal, then rising" "$(json '[.runs[].memory[0].verdict] | join(",")')" normal,rising
check_eq "report.json: the healthy run's headroom, as --summary gives it" \
  "$(json '.runs[0].memory[0] | [.old_cycles, .headroom.trigger, .headroom.level_mb, .headroom.trigger_mb, .run_longer_h] | join(",")')" \
  "0,g1_ihop,15,115.2,"
check_eq "report.json: the leak's why is --summary's" "$(json '.runs[1].memory[0].why')" \
  "$("$G" --summary "$DATA/trickle/trickle-g1-gcstar.log" | jq -r .why)"
finding=$(json '.findings[] | select(.kind == "memory") | .text')
check "findings: the flat heap with its headroom" grep -qF 'heap after GC never needed an old-generation collection in app in run 1 (run 1, app: +0.0 MB/h; the old generation holds 15.0 MB (6% of the 256 MB heap), 100.2 MB below the 45% of the heap (115 MB)' <<<"$finding"
longer=$(json '.runs[1].memory[0].run_longer_h * 60 | ceil | tostring + "m"')
check "findings: the rising heap, not ruled out, and how much longer ($longer)" \
  grep -qF "heap after GC rising with no old-generation collection to tell a leak in app in run 2 (run 2, app: +121.1 MB/h, R² 1.00; the old generation holds 51.0 MB (20% of the 256 MB heap), 64.2 MB below the 45% of the heap (115 MB) at which G1 starts a concurrent cycle by default; at the floor's +121.1 MB/h (promotion +140.6 MB/h) it would get there in about $longer): a leak is not ruled out; run at least $longer longer" <<<"$finding"
check "report.md: the same finding" grep -qF -- "- $finding" "$MD"
# report.html escapes what HTML needs and keeps the words: compare with its tags removed.
check "report.html: the same finding" bash -c "sed -e 's/<[^>]*>//g' -e 's/&amp;/\&/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' '$HTML' | grep -qF -- \"\$1\"" _ "$finding"
# The verdict row says the worst in a word, marked; report.json's verdict names both.
check "report.md: the verdict says the worst, marked" grep -qF '| rising\* |' "$MD"
check_eq "report.json: the verdict names both" "$(json '.verdict[0].memory')" "rising (app, run 2), normal (app, run 1)"
check "details.md: the GC table counts no old cycle" grep -qE '^\| 1 \| jdk17 \| app \| .* \| 0 \| normal \|$' "$DET"
check "details.md: ... and says rising" grep -qE '^\| 2 \| jdk17 \| app \| .* \| 0 \| rising \|$' "$DET"
check_eq "no short_window: the windows are long enough" "$(json '[.validity[] | select(.code == "short_window")] | length')" 0

done_testing
