#!/usr/bin/env bash
# Regenerates the GC log fixtures of tests/data/gc/gen/ with the JVM on PATH (they were made
# with OpenJDK 17; see ../MANIFEST.md, section "gen/").  Each run is one JVM with two log
# outputs: `-Xlog:gc*` with time and uptime decorations into NAME-gcstar.log, and plain
# `-Xlog:gc` (default decorations: uptime only) into NAME-gc.log, so the pair holds the
# same events.  Runs take seconds each; run two at a time at most (the machine is shared).
#
#   tests/data/gc/gen/gen.sh [OUTDIR]        (default: the directory of this script)
#
# The exact command line of every run is printed and kept in OUTDIR/commands.txt.
# Trim rule: none is needed today (every file is under 1 MB); a file over MAX_BYTES is cut
# at its last complete GC event before MAX_BYTES by trim(), which keeps whole lines only.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
MAX_BYTES=1000000
CLS=$(mktemp -d)
trap 'rm -rf "$CLS"' EXIT

javac -d "$CLS" "$HERE/GcWork.java"
java -version 2>"$OUT/java-version.txt"
: >"$OUT/commands.txt"

# run NAME GCFLAG EXPECTED_EXIT ARGS...: one JVM, both logs.
run() {
  local name=$1 gc=$2 want=$3 rc=0
  shift 3
  rm -f "$OUT/$name-gcstar.log" "$OUT/$name-gc.log"
  local cmd=(java -Xmx96m "$gc"
    "-Xlog:gc*:file=$name-gcstar.log:time,uptime,level,tags"
    "-Xlog:gc:file=$name-gc.log"
    -cp . GcWork "$@")
  echo "${cmd[*]}" | tee -a "$OUT/commands.txt"
  (cd "$CLS" && "${cmd[@]}" >"$name.out" 2>&1) || rc=$?
  if [ "$rc" != "$want" ]; then
    echo "$name: exit $rc, expected $want" >&2
    cat "$CLS/$name.out" >&2
    exit 1
  fi
  mv "$CLS/$name-gcstar.log" "$CLS/$name-gc.log" "$OUT/"
  trim "$OUT/$name-gcstar.log"
  trim "$OUT/$name-gc.log"
}

# trim FILE: keeps the file whole when it is under MAX_BYTES, else cuts it before the
# first line past MAX_BYTES that starts a GC id not seen before (so no event is split).
trim() {
  local f=$1
  [ "$(stat -c %s "$f")" -le "$MAX_BYTES" ] && return 0
  awk -v max="$MAX_BYTES" '
    { n += length($0) + 1
      if (match($0, /GC\([0-9]+\)/)) id = substr($0, RSTART, RLENGTH)
      if (n > max && id != last) exit
      last = id; print }' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
  echo "trimmed $f to $(stat -c %s "$f") bytes" | tee -a "$OUT/commands.txt"
}

# The leak retains 64 KB every 10 ms (6.4 MB/s) until the JVM dies of OutOfMemoryError
# (exit 1) after about 15 s; the stable run holds 40 MB for 20 s.
for gc in G1 Parallel Serial; do
  lc=$(echo "$gc" | tr 'A-Z' 'a-z')
  run "oom-$lc" "-XX:+Use${gc}GC" 1 leak 60 64
  run "stable-$lc" "-XX:+Use${gc}GC" 0 stable 20 40
done
