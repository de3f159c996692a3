#!/usr/bin/env bash
# The soak of issue 35, as a new user runs it: registrations at 500/s (Poisson arrivals)
# into Tomcat 10 (G1, 256 MB heap, GC log followed) on a private PostgreSQL (its defaults
# here: shared_buffers 128 MB, max_connections 300), the load generator on CPU 0 and both
# servers on CPU 1 (as tools/demo.sh places them), a warm-up minute, then MINUTES measured;
# then `soak report` on it.  With --leak, the same with a leak on purpose:
#   jvm      the servlet keeps every body it is sent four times over (-Dsoak.leak=4: about
#            340 bytes a request, 590 MB/h at 500/s: its old generation passes G1's 45 %
#            of the heap after about 10 minutes)
#   backend  one session of the database grows a temporary table by 1 MB every 10 s
#            (its local buffers: the backend's private memory, 360 MB/h)
#   both     both
# Prints, and never fails on the figures: the run (TPS, p99, errors, start lag), the drift
# verdict and its sentence, each source's memory verdict and why (the database's by kind:
# private, shared with the bound it cannot pass, file-backed), and the users the database
# holds against the registrations answered.  Goal: drift `stable`; the database's memory a
# cache filling with its bound; the application's `normal` (its GC log needs 10 minutes);
# a leak still called one.
#   bench/dbsoak.sh [MINUTES] [--leak jvm|backend|both]      (default 15; BIN, TMPDIR)
# Keeps its directory (the database, the report, the servers' logs) and prints where.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
minutes=15 leak=
while [ $# -gt 0 ]; do
  case "$1" in
    --leak) leak=${2:-}; shift 2 ;;
    [0-9]*) minutes=$1; shift ;;
    *) echo "usage: $0 [MINUTES] [--leak jvm|backend|both]" >&2; exit 2 ;;
  esac
done
case "$leak" in '' | jvm | backend | both) ;; *) echo "bad --leak: $leak" >&2; exit 2 ;; esac
dir=$(mktemp -d "${TMPDIR:-/tmp}/soak-bench-dbsoak.XXXXXX")
chmod 755 "$dir"
name=dbsoak$$
pg=$top/targets/db/postgres.sh
tc=$top/targets/containers/tomcat10
leaker=
cleanup() {
  [ -n "$leaker" ] && kill "$leaker" 2>/dev/null
  "$tc" stop "$dir/tomcat10" >/dev/null 2>&1 || true
  "$pg" stop "$dir/pg" >/dev/null 2>&1 || true
  echo "kept: $dir"
}
trap cleanup EXIT

cpus=$(nproc)
gen=0 srv=1
[ "$cpus" -ge 2 ] || srv=0
jdbc=$(taskset -c "$srv" "$pg" start "$dir/pg" --name "$name" 2>/dev/null | sed -n 's/^jdbc=//p')
opts=()
if [ "$leak" = jvm ] || [ "$leak" = both ]; then opts=(--jvm-opt -Dsoak.leak=4); fi
taskset -c "$srv" "$tc" start "$dir/tomcat10" --jdbc "$jdbc" --heap 256m --gc G1 \
  ${opts[@]+"${opts[@]}"} >"$dir/tomcat10.info"
url=$(sed -n 's/^url=//p' "$dir/tomcat10.info")
gclog=$(sed -n 's/^gc_log=//p' "$dir/tomcat10.info")
if [ "$leak" = backend ] || [ "$leak" = both ]; then
  # 128 rows of 8 kB pages' worth (900 bytes, 8 to a page) every 10 s: 1 MB; bounded.
  {
    echo "SET temp_buffers = '2GB'; CREATE TEMP TABLE t (x text);"
    for _ in $(seq 1 $(((minutes + 2) * 6))); do
      echo "INSERT INTO t SELECT repeat('x', 900) FROM generate_series(1, 1024);"
      sleep 10
    done
  } | taskset -c "$srv" "$pg" psql "$dir/pg" -q >"$dir/leak.log" 2>&1 &
  leaker=$!
fi

interval=10s
[ "$minutes" -ge 10 ] || interval=5s
cat >"$dir/soak.ini" <<EOF
[scenario]
name        = tomcat10 500/s${leak:+, leak: $leak}
label       = tomcat10
rate        = 500/s
arrival     = poisson
duration    = $((minutes + 1))m
warmup      = 1m
interval    = $interval
cpus        = $gen
[request]
method  = POST
url     = $url
header  = Content-Type: application/x-www-form-urlencoded
body    = username=u\${nonce}_\${seq}&email=u\${seq}@example.test&password=\${random:12}
timeout = 10s
expect_status = 201
expect_body   = "id":\\s*\\d+
[collect.app]
pid_match = soak\\.base=$dir/tomcat10 
gc_log    = $gclog
every     = 5s
cpus      = $srv
[collect.db]
pid_match = $name
every     = 5s
cpus      = $srv
[collect.host]
host  = yes
every = 5s
EOF
echo "dbsoak: $minutes min measured at 500/s into $(sed -n 's/^version=//p' "$dir/tomcat10.info")${leak:+, leak: $leak}; generator on CPU $gen, servers on CPU $srv"
"$BIN/soak" run -q --db "$dir/soak.db" "$dir/soak.ini" | tail -n 3
"$BIN/soak" report "$dir/soak.db" -o "$dir/report" >/dev/null
j=$dir/report/report.json
jq -r '.runs[0] | "run: \(.figures.tps) TPS, p99 \(.figures.p99_ms) ms, \(.figures.errors) errors",
  "drift: \(.drift.verdict): \(.drift.sentence)"' "$j"
jq -r '"memory (the verdict row): \(.verdict[0].memory)"' "$j"
jq -r '.runs[0].memory[] | "memory (\(.source), GC log): \(.verdict): \(.why)"' "$j"
jq -r '.runs[0].rss[] | "memory (\(.source)): \(.verdict)\(if .by then " by " + .by else "" end): \(.why)"' "$j"
echo "users in the database: $("$pg" count "$dir/pg"); answered: $(sqlite3 "$dir/soak.db" 'SELECT SUM(requests) - SUM(errors) FROM intervals')"
