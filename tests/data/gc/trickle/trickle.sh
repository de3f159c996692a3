#!/usr/bin/env bash
# Regenerates the slow-leak fixtures of tests/data/gc/trickle/: a JVM that retains a
# few tens of KB a second for good, so that the floor of heap after GC rises for many
# minutes before any old-generation collection comes (see ../MANIFEST.md, section "I").
# Unlike ../gen/gen.sh this takes over an hour: each JVM runs RUN_S seconds so that its full log
# shows when the first old-generation collection really came (G1: the concurrent start at
# its initiating occupancy; Parallel and Serial: the first full collection), against what
# the verdict on the log's first PREFIX_S seconds predicted.  The three JVMs run at once;
# each is light (one thread, about 8 MB/s of churn).
#
#   tests/data/gc/trickle/trickle.sh [OUTDIR]    (default: the directory of this script)
#
# Outputs, per collector G (g1, parallel, serial), from one JVM with two log outputs:
#   trickle-G-gcstar.log, trickle-G-gc.log   the first PREFIX_S seconds of -Xlog:gc* and
#                                             -Xlog:gc, cut after the last whole GC event
#   trickle-G-gc-full.log                     the whole -Xlog:gc log (RUN_S seconds)
# and the command lines in OUTDIR/commands.txt.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
RUN_S=${RUN_S:-4500}
PREFIX_S=${PREFIX_S:-1500}
CLS=$(mktemp -d)
trap 'rm -rf "$CLS"' EXIT

javac -d "$CLS" "$HERE/../gen/GcWork.java"
: >"$OUT/commands.txt"

# KB a second each collector's JVM keeps: G1 reaches its 45 % initiating occupancy of a
# 256 MB heap, Parallel and Serial their 170 MB old generations, within about an hour.
pids=()
for spec in G1:34 Parallel:50 Serial:50; do
  gc=${spec%%:*} kb=${spec#*:}
  lc=$(echo "$gc" | tr 'A-Z' 'a-z')
  cmd=(java -Xms256m -Xmx256m "-XX:+Use${gc}GC"
    "-Xlog:gc*:file=trickle-$lc-gcstar.log:time,uptime,level,tags"
    "-Xlog:gc:file=trickle-$lc-gc.log:time,uptime,level,tags"
    -cp . GcWork trickle "$RUN_S" "$kb")
  echo "${cmd[*]}" | tee -a "$OUT/commands.txt"
  (cd "$CLS" && exec "${cmd[@]}" >"trickle-$lc.out" 2>&1) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

# prefix FILE SECONDS: the lines up to the last GC event whose summary line (`GC(N) Pause`,
# `GC(N) Concurrent`, ...) ends before SECONDS of uptime, whole events only.
prefix() {
  awk -v max="$2" '
    { if (match($0, /\]\[[0-9.]+s\]/)) up = substr($0, RSTART + 2, RLENGTH - 4) + 0
      if (up > max) exit
      print }' "$1" | awk '
    { line[NR] = $0
      if ($0 ~ /\[gc *\] GC\([0-9]+\) /) last = NR }
    END { for (i = 1; i <= last; i++) print line[i] }'
}
for lc in g1 parallel serial; do
  cp "$CLS/trickle-$lc-gc.log" "$OUT/trickle-$lc-gc-full.log"
  prefix "$CLS/trickle-$lc-gcstar.log" "$PREFIX_S" >"$OUT/trickle-$lc-gcstar.log"
  prefix "$CLS/trickle-$lc-gc.log" "$PREFIX_S" >"$OUT/trickle-$lc-gc.log"
  echo "trickle-$lc: $(grep -c 'Pause Young' "$OUT/trickle-$lc-gc.log") young in the first ${PREFIX_S}s" |
    tee -a "$OUT/commands.txt"
done
