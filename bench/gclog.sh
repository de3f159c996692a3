#!/usr/bin/env bash
# soak-gclog import throughput: a ~200 MB log made of the dated JDK 17 logs repeated, each
# copy moved to another month and day so its events are new rows (not ignored
# duplicates).  Prints MB/s for parsing alone (--summary) and for a full import into a
# fresh database.  Target: 100 MB/s or more on one core.  GCLOG_MB sets the size.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
want_mb=${GCLOG_MB:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/soak-bench-gclog.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

src=("$top"/tests/data/gc/jdk17/*-gcstar.log "$top"/tests/data/gc/jdk17/stable-g1-safepoint-decorations.log)
cat "${src[@]}" >"$tmp/one.log"
one=$(stat -c %s "$tmp/one.log")
copies=$(( (want_mb * 1048576 + one - 1) / one ))
for i in $(seq 0 $((copies - 1))); do
  m=$(printf %02d $((1 + i % 12))) d=$(printf %02d $((1 + i / 12 % 28)))
  sed -e "s/^\[2026-11-30T/[2026-$m-${d}T/" "$tmp/one.log"
done >"$tmp/big.log"
bytes=$(stat -c %s "$tmp/big.log")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "gclog: input $mb MB ($copies copies of ${#src[@]} JDK 17 logs)"

rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.1f", b / 1048576 / s }'; }
t0=$(date +%s.%N)
"$BIN/soak-gclog" --summary "$tmp/big.log" >"$tmp/summary.json"
t1=$(date +%s.%N)
s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
echo "gclog: parse + analysis (--summary): $(rate "$s") MB/s ($s s)"

t0=$(date +%s.%N)
"$BIN/soak-gclog" --db "$tmp/bench.db" --source bench --import "$tmp/big.log"
t1=$(date +%s.%N)
s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
rows=$(sqlite3 "$tmp/bench.db" "SELECT count(*) FROM gc_events")
echo "gclog: import into SQLite: $(rate "$s") MB/s ($s s, $rows rows)"
