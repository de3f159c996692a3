#!/usr/bin/env bash
# The profile's answer on real JVMs, against a known change: Tomcat 10 registering users
# into a private PostgreSQL, PBKDF2 at ITER_A against ITER_B iterations (B's extra CPU goes
# to the JDK's SHA code: DigestBase, SHA2, StubRoutines), side by side with REPLICAS
# processes a side, each started with --profile (-XX:+PreserveFramePointer) and profiled
# in every measured window; then an A/A of ITER_A against itself.  Prints, per study, the
# app's CPU per request change with its verdict and the profile's frames (self change,
# interval, verdict), largest first, and how long the study took.  Figures, no verdict.
#   bench/profile_tomcat.sh [ITER_A (1000)] [ITER_B (1500)] [REPLICAS (3)] [ROUNDS (2)]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
ia=${1:-1000} ib=${2:-1500} reps=${3:-3} rounds=${4:-2}
out=$top/build/bench/profile_tomcat
lab=${TMPDIR:-/tmp}/soak-bench-prof-$(id -u)
mkdir -p "$out" "$lab"
chmod 755 "$lab"
pg_up=
trap '[ -n "$pg_up" ] && "$top/targets/db/postgres.sh" stop "$lab/pg" >/dev/null 2>&1 || true' EXIT
make -s -C "$top" java >/dev/null
pg=$("$top/targets/db/postgres.sh" start "$lab/pg")
pg_up=1
SOAK_DB_URL=$(sed -n 's/^jdbc=//p' <<<"$pg")
export SOAK_DB_URL

# study NAME ITER_A ITER_B: runs it, prints what the report says of it.
study() {
  local name=$1 t0=$SECONDS j
  sed -e 's|^rate .*|rate        = 200/s|' -e 's|^duration .*|duration    = 10s|' \
    -e 's|^warmup .*|warmup      = 1s|' "$top/scenarios/demo-rate.ini" >"$out/rate.ini"
  {
    printf '[study]\nname = %s\nscenario = rate.ini\nprimary = cpu.app\nrounds = %d\n' "$name" "$rounds"
    printf 'replicas = %d\nbefore_each = "%s" truncate "%s"\n' "$reps" "$top/targets/db/postgres.sh" "$lab/pg"
    for t in a:"$2" b:"$3"; do
      printf '[target.%s]\nstart = "%s" start "%s" --heap 256m --gc G1 --profile --iterations %s\n' \
        "${t%%:*}" "$top/targets/containers/tomcat10" "$lab/${t%%:*}\$SOAK_REPLICA" "${t#*:}"
      printf 'stop = "%s" stop "%s"\n' "$top/targets/containers/tomcat10" "$lab/${t%%:*}\$SOAK_REPLICA"
    done
  } >"$out/$name.ini"
  rm -f "$out/$name.db"*
  if ! "$BIN/soak" study -q --db "$out/$name.db" "$out/$name.ini" >/dev/null 2>"$out/$name.err"; then
    echo "  $name: the study failed (see $out/$name.err)"
    return 1
  fi
  "$BIN/soak" report "$out/$name.db" -o "$out/$name" --no-plots >/dev/null 2>&1
  j=$out/$name/report.json
  echo "== $name: PBKDF2 $2 against $3, $reps processes a side, $rounds rounds, $(((SECONDS - t0) / 60)) min"
  jq -r '.comparisons[0].cpu_per_request.app | "  app CPU per request \(.change_pct * 10 | round / 10) % \(.verdict)"' "$j"
  jq -r '.comparisons[0].profile | "  profile: \(.base_cpu_us | round) µs against \(.cpu_us | round) µs, family \(.family), \(.processes_baseline) and \(.processes) processes, judged \(.judged)", (.frames[0:8][] | "    \(.frame[0:70])  \(.change_us * 10 | round / 10) µs [\(.ci95[0] // "n/a")..\(.ci95[1] // "n/a")] \(.verdict)")' "$j"
}
study ab "$ia" "$ib"
study aa "$ia" "$ia"
