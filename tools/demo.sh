#!/usr/bin/env bash
# make demo: a real version-upgrade study on this machine.  PostgreSQL, then Tomcat 9,
# Tomcat 10 and Jetty 9 in turn (one at a time, so they never share the cores), each
# driven by a fixed 30-user run and a 10..40-user sweep with its JVM, the database and the
# host sampled; then the report.  Everything it starts it stops, also on failure or Ctrl-C.
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
started=()   # "kind dir" of what to stop
reg_pids=()

say() { printf '\n== %s\n' "$*"; }

cleanup() {
  local rc=$? item
  trap - EXIT INT TERM
  for item in "${started[@]}"; do
    # shellcheck disable=SC2086
    set -- $item
    if [ "$1" = postgres ]; then
      "$top/targets/db/postgres.sh" stop "$2" >/dev/null 2>&1 || true
    else
      "$top/targets/containers/$1" stop "$2" >/dev/null 2>&1 || true
    fi
  done
  for p in "${reg_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  [ "$rc" -ne 0 ] && echo "demo: stopped everything it started (status $rc)" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$out" "$lab"
rm -f "$db" "$db-wal" "$db-shm"
rm -rf "$out/report"

fixed=$top/scenarios/demo.ini
sweep=$top/scenarios/demo-sweep.ini

# run_pair LABEL URL [sets...]: the fixed run and the sweep for one system under test.
run_pair() {
  local label=$1 url=$2; shift 2
  say "$label: fixed run, 30 users, 35 s"
  "$BIN/soak" run --db "$db" --set scenario.label="$label" --set request.url="$url" "$@" "$fixed"
  say "$label: sweep 10..40 users, 4 x 10 s"
  "$BIN/soak" run --db "$db" --set scenario.label="$label" --set request.url="$url" "$@" "$sweep"
}

if [ "$target" = regserver ]; then
  # No database here: the same scenarios without their [collect.db] section.
  for f in demo demo-sweep; do
    awk '/^\[/ {skip = ($0 == "[collect.db]")} !skip' "$top/scenarios/$f.ini" >"$lab/$f.ini"
  done
  fixed=$lab/demo.ini
  sweep=$lab/demo-sweep.ini
  # The same study without Java: the C registration server with one worker thread against
  # the same server with two, each with 1 ms of service latency.
  for threads in 1 2; do
    label=regserver-${threads}t
    "$BIN/regserver" --port 0 --threads "$threads" --latency 1 --max-users 1000000 --quiet \
      >"$lab/$label.log" 2>&1 &
    reg_pids+=("$!")
    for _ in $(seq 100); do grep -q 'listening on' "$lab/$label.log" && break; sleep 0.1; done
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$lab/$label.log")
    [ -n "$port" ] || { cat "$lab/$label.log" >&2; exit 3; }
    run_pair "$label" "http://127.0.0.1:$port/register" --set collect.app.pid_match= \
      --set collect.app.gc_log= --set collect.app.pid="${reg_pids[-1]}"
    kill "${reg_pids[-1]}"; wait "${reg_pids[-1]}" 2>/dev/null || true
  done
  title="regserver: one worker thread against two"
else
  say "PostgreSQL (private cluster in $lab/pg)"
  pg=$("$top/targets/db/postgres.sh" start "$lab/pg")
  started+=("postgres $lab/pg")
  jdbc=$(sed -n 's/^jdbc=//p' <<<"$pg")
  "$top/targets/db/postgres.sh" truncate "$lab/pg" >/dev/null
  versions=()
  for c in tomcat9 tomcat10 jetty9; do
    say "$c: starting (heap 256m, G1, 400 threads, accept 200)"
    info=$("$top/targets/containers/$c" start "$lab/$c" --jdbc "$jdbc" --heap 256m --gc G1)
    started=("$c $lab/$c" "${started[@]}")
    url=$(sed -n 's/^url=//p' <<<"$info")
    gclog=$(sed -n 's/^gc_log=//p' <<<"$info")
    version=$(sed -n 's/^version=//p' <<<"$info")
    versions+=("$c = $version")
    echo "$info" | sed 's/^/   /'
    run_pair "$c" "$url" --set "collect.app.pid_match=soak\\.target=$c" --set "collect.app.gc_log=$gclog"
    "$top/targets/containers/$c" stop "$lab/$c"
    started=("${started[@]:1}")
    echo "   users in PostgreSQL so far: $("$top/targets/db/postgres.sh" count "$lab/pg")"
  done
  title="Tomcat 9 to Tomcat 10 upgrade, Jetty 9 beside them (${versions[*]})"
fi

say "report"
"$BIN/soak" report "$db" -o "$out/report" --title "$title"
echo
echo "report: $out/report/report.html"
echo "        $out/report/report.md"
if [ -f "$out/report/report.md" ]; then
  # What the report opens with: the verdict of each label, whether to trust it, and the
  # five findings that matter most (report.md has everything else).
  section() { awk -v h="## $1" '$0 == h {on = 1; next} /^## / && on {exit} on && /^- /' "$out/report/report.md"; }
  echo
  echo "verdict:"
  section "Verdict" | sed 's/^/  /'
  echo "can these numbers be trusted?"
  section "Can these numbers be trusted?" | sed -e 's/\*\*//g' -e 's/^/  /'
  echo "what matters most:"
  section "What matters most" | sed 's/^/  /'
fi
