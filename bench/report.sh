#!/usr/bin/env bash
# soak report on a database the size of a 72-hour run: 25,920 ten-second intervals with
# histograms, three sources of 20 metrics sampled every 5 s (3.1 million samples) and
# 100,000 GC events.  Prints the report's wall time and peak RSS (target: under 10 s and
# 200 MB) with and without pictures; never fails on the figures.
#   bench/report.sh [HOURS]      (BIN=dir of the soak binary; default bin/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
hours=${1:-72}
out=$top/build/bench/report
mkdir -p "$out"

cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$top/common" -o "$out/report_gen" "$top/bench/report_gen.c" \
  "$top/common/hdr.c" $(pkg-config --cflags --libs sqlite3 zlib) -lm

db=$out/bench-${hours}h.db
if [ ! -s "$db" ]; then
  rm -f "$db"
  n=0
  {
    for f in "$top"/sql/[0-9]*.sql; do cat "$f"; n=$((n + 1)); done
    echo "PRAGMA user_version = $n;"
  } | sqlite3 "$db"
  start=$(date +%s.%N)
  "$out/report_gen" "$db" "$hours"
  printf 'generated %s in %.1f s: %s intervals, %s samples, %s GC events, %s MB\n' "$db" \
    "$(echo "$(date +%s.%N) - $start" | bc)" \
    "$(sqlite3 "$db" 'SELECT COUNT(*) FROM intervals')" \
    "$(sqlite3 "$db" 'SELECT COUNT(*) FROM samples')" \
    "$(sqlite3 "$db" 'SELECT COUNT(*) FROM gc_events')" \
    "$(($(stat -c %s "$db") / 1048576))"
fi

measure() { # NAME ARGS...
  local name=$1 log=$out/time.log
  shift
  rm -rf "$out/report"
  /usr/bin/time -v "$BIN/soak" report "$db" -o "$out/report" "$@" >/dev/null 2>"$log" || {
    cat "$log"
    return 1
  }
  awk -v name="$name" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = p[n] + (n > 1 ? p[n-1] * 60 : 0) + (n > 2 ? p[n-2] * 3600 : 0) }
    /Maximum resident set size/ { kb = $2 }
    END { printf "soak report %-14s %6.2f s  peak RSS %6.1f MB   (target: < 10 s, < 200 MB)\n", name, s, kb / 1024 }' "$log"
}
echo "== soak report, one ${hours} h run"
measure "(tables only)" --no-plots
measure "(with pictures)"
echo "pictures: $(ls "$out/report/img" | wc -l) files, report.html $(($(stat -c %s "$out/report/report.html") / 1024)) KB"
