#!/usr/bin/env bash
# make demo: a real version-upgrade study on this machine.  A private PostgreSQL, then the
# study scenarios/demo-study.ini: Tomcat 9, Tomcat 10 and Jetty 9 each run scenarios/demo.ini
# in three interleaved rounds, the users table emptied before every run, the first run
# after each container starts discarded; then the report, which judges every difference
# across the runs.  Everything it starts it stops, also on failure or Ctrl-C.
#   tools/demo.sh [containers|regserver]      (make demo DEMO_TARGET=regserver: no Java)
# Results: demo/soak.db and demo/report/ (report.html, report.md, pictures).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
target=${1:-containers}
out=$top/demo
# Private server directories live under /tmp: PostgreSQL runs as the postgres user, which
# must be able to reach them (a clone under /root would not be).
lab=${SOAK_DEMO_LAB:-${TMPDIR:-/tmp}/soak-demo-$(id -u)}
db=$out/soak.db
pg_started=

say() { printf '\n== %s\n' "$*"; }

cleanup() {
  local rc=$? c
  trap - EXIT INT TERM
  # The study stops the targets it started; these are a second net when it could not
  # (killed itself).  Each script stops only its own instance in its own directory.
  for c in tomcat9 tomcat10 jetty9; do
    for d in "$lab/$c"-*; do
      [ -d "$d" ] && "$top/targets/containers/$c" stop "$d" >/dev/null 2>&1 || true
    done
  done
  for c in regserver-1t regserver-2t; do
    [ -d "$lab/$c" ] && "$top/targets/regserver/regserver.sh" stop "$lab/$c" >/dev/null 2>&1 || true
  done
  [ -n "$pg_started" ] && { "$top/targets/db/postgres.sh" stop "$lab/pg" >/dev/null 2>&1 || true; }
  [ "$rc" -ne 0 ] && echo "demo: stopped everything it started (status $rc)" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$out" "$lab"
rm -f "$db" "$db-wal" "$db-shm"
rm -rf "$out/report"
export SOAK_TOP=$top SOAK_DEMO_LAB=$lab BIN

if [ "$target" = regserver ]; then
  # The same study without Java and without a database: the C registration server with
  # one worker thread against the same server with two, 1 ms of service latency each.
  for f in demo.ini demo-rate.ini; do
    awk '/^\[/ {skip = ($0 == "[collect.db]")} !skip' "$top/scenarios/$f" >"$lab/$f"
  done
  cat >"$lab/demo-study.ini" <<EOF
[study]
name         = demo: regserver, one worker thread against two
scenario     = demo.ini
scenario     = demo-rate.ini
rounds       = 3
order        = interleaved
warmup_runs  = 1
keep_running = yes
[target.regserver-1t]
start = "\$SOAK_TOP/targets/regserver/regserver.sh" start "\$SOAK_DEMO_LAB/regserver-1t" --threads 1 --latency 1 --max-users 1000000
stop  = "\$SOAK_TOP/targets/regserver/regserver.sh" stop "\$SOAK_DEMO_LAB/regserver-1t"
[target.regserver-2t]
start = "\$SOAK_TOP/targets/regserver/regserver.sh" start "\$SOAK_DEMO_LAB/regserver-2t" --threads 2 --latency 1 --max-users 1000000
stop  = "\$SOAK_TOP/targets/regserver/regserver.sh" stop "\$SOAK_DEMO_LAB/regserver-2t"
EOF
  study=$lab/demo-study.ini
  title="regserver: one worker thread against two"
else
  say "PostgreSQL (private cluster in $lab/pg)"
  pg=$("$top/targets/db/postgres.sh" start "$lab/pg")
  pg_started=1
  SOAK_DB_URL=$(sed -n 's/^jdbc=//p' <<<"$pg")
  export SOAK_DB_URL
  study=$top/scenarios/demo-study.ini
  title="Tomcat 9 to Tomcat 10 upgrade, Jetty 9 beside them"
fi

# No placement: the fixed-rate runs go side by side, in the same seconds, so the machine's
# noise (the generator's share of the cores among it) falls on every container alike and
# cancels in their differences; and six JVMs need both cores to warm up in the time the
# demo has.  (Round 3's one-at-a-time demo placed the generator on CPU 0 and the servers on
# CPU 1: it cut the capacity runs' spread, not the verdicts' intervals.)
place=()
say "the study: $("$BIN/soak" check "${place[@]}" "$study" | sed -n '$s/^ *//p')"
"$BIN/soak" check "${place[@]}" "$study" | sed -n 's/^  round/   round/p'
"$BIN/soak" study -q --db "$db" "${place[@]}" "$study"
versions=$(sqlite3 -batch -noheader "$db" \
  "SELECT group_concat(v, ', ') FROM (SELECT target || ' = ' || version AS v FROM study_runs WHERE version IS NOT NULL GROUP BY target ORDER BY MIN(seq))" 2>/dev/null || true)
[ -n "$pg_started" ] && echo "   users in PostgreSQL after the last run: $("$top/targets/db/postgres.sh" count "$lab/pg")"

say "report"
"$BIN/soak" report "$db" -o "$out/report" --title "$title${versions:+ ($versions)}"
echo
echo "report: $out/report/report.html"
echo "        $out/report/report.md"
if [ -f "$out/report/report.md" ]; then
  # What the report opens with: the verdict (its table, one sentence per label and its note)
  # and what can weaken it, by kind; report.md says the rest, each thing once.
  section() { awk -v h="## $1" '$0 == h {on = 1; next} /^## / && on {exit} on' "$out/report/report.md"; }
  echo
  section "Verdict" | sed '/^$/d; s/^/  /'
  kinds=$(section "Can these numbers be trusted?" | sed -n 's/^- \*\*\([a-z]*\)\*\* \([a-z_]*\):.*/\1 \2/p' |
    sort -k1,1r -k2 | uniq -c | awk '{printf "%s%s %s%s", (NR > 1 ? ", " : ""), $2, $3, ($1 > 1 ? " (" $1 ")" : "")}')
  [ -z "$kinds" ] || echo "  can these numbers be trusted? $kinds: see report.md"
fi
