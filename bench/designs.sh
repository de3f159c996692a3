#!/usr/bin/env bash
# Which study design tells a known difference apart best on this machine, per minute: Tomcat
# 10 against itself (A/A: two targets alike) and against one made slower on purpose (A/B:
# PBKDF2 at 1,000 against 1,100 iterations, a known rise of the app's CPU per request),
# registering into a private PostgreSQL, the app's CPU per request the primary figure.
#   bench/designs.sh DESIGN [AA [AB]]      (BIN=dir of the binaries; default bin/)
# DESIGN:
#   one      one at a time: interleaved rounds at 600/s, one process a side kept running,
#            the generator on CPU 0 and the servers on the others (the round-3 demo's way)
#   pair     side by side, one process a side: both driven in the same seconds at 300/s
#   replicas side by side, three processes a side at once, 200/s each (design = auto's
#            default for the demo)
#   starts   side by side, one process a side, started three times
# Every design warms each start up until each JVM's JIT is quiet (warmup_jit, 2 %).
# Prints each study's verdict on the app's CPU per request with its interval and how long
# the study took, then the A/A false-real count and the A/B detection count with their 95 %
# Wilson intervals, the A/A intervals' half-widths and the minutes per study.  Never fails
# on the figures.  Results: build/bench/designs/DESIGN-{aa,ab}-N/ (databases and reports).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
design=${1:?usage: bench/designs.sh one|pair|replicas|starts [AA [AB]]}
naa=${2:-5}
nab=${3:-5}
out=$top/build/bench/designs
lab=${TMPDIR:-/tmp}/soak-bench-designs-$(id -u)
mkdir -p "$out" "$lab"
chmod 755 "$lab"
pg_up=
trap '[ -n "$pg_up" ] && "$top/targets/db/postgres.sh" stop "$lab/pg" >/dev/null 2>&1 || true' EXIT

case "$design" in
  one) rate=600 keys="rounds = 4
keep_running = yes
design = one-at-a-time" ;;
  pair) rate=300 keys="rounds = 8
keep_running = yes" ;;
  replicas) rate=200 keys="rounds = 4
replicas = 3" ;;
  starts) rate=300 keys="rounds = 2
starts = 3" ;;
  *) echo "designs.sh: unknown design '$design'" >&2; exit 2 ;;
esac
place=()
if [ "$design" = one ] && [ "$(nproc)" -ge 2 ]; then
  place=(--set scenario.cpus=0 --set "collect.app.cpus=1-$(($(nproc) - 1))" \
    --set "collect.db.cpus=1-$(($(nproc) - 1))")
fi

make -s -C "$top" java >/dev/null
pg=$("$top/targets/db/postgres.sh" start "$lab/pg")
pg_up=1
SOAK_DB_URL=$(sed -n 's/^jdbc=//p' <<<"$pg")
export SOAK_DB_URL SOAK_TOP=$top SOAK_DEMO_LAB=$lab

# study NAME ITER_A ITER_B: the study file, run and reported; prints its line.
study() {
  local name=$1 t0=$SECONDS j
  sed -e "s|^rate .*|rate        = $rate/s|" -e 's|^duration .*|duration    = 8s|' \
    -e 's|^warmup .*|warmup      = 1s|' "$top/scenarios/demo-rate.ini" >"$out/rate.ini"
  cat >"$out/$name.ini" <<EOF
[study]
name = $name
scenario = rate.ini
primary = cpu.app
$keys
before_each = "$top/targets/db/postgres.sh" truncate "$lab/pg"
[target.a]
start = "$top/targets/containers/tomcat10" start "$lab/a\$SOAK_REPLICA" --heap 256m --gc G1 --iterations $2
stop = "$top/targets/containers/tomcat10" stop "$lab/a\$SOAK_REPLICA"
[target.b]
start = "$top/targets/containers/tomcat10" start "$lab/b\$SOAK_REPLICA" --heap 256m --gc G1 --iterations $3
stop = "$top/targets/containers/tomcat10" stop "$lab/b\$SOAK_REPLICA"
EOF
  rm -f "$out/$name.db"*
  if ! "$BIN/soak" study -q --db "$out/$name.db" "${place[@]}" "$out/$name.ini" >/dev/null \
    2>"$out/$name.err"; then
    echo "  $name: the study failed (see $out/$name.err)"
    return 1
  fi
  "$BIN/soak" report "$out/$name.db" -o "$out/$name" --no-plots >/dev/null 2>&1
  j=$out/$name/report.json
  mins=$(awk -v s=$((SECONDS - t0)) 'BEGIN { printf "%.1f", s / 60 }')
  jq -r --arg m "$mins" '.comparisons[0] | .cpu_per_request.app as $c |
    "  \(.noise): cpu/req app \($c.change_pct * 10 | round / 10)% \($c.verdict), interval \(($c.ci95[0] / $c.baseline * 1000 | round) / 10)..\(($c.ci95[1] / $c.baseline * 1000 | round) / 10)% at \($c.level * 1000 | round / 10)%, df \($c.df); \($m) min"' "$j"
}
wilson() {
  awk -v k="$1" -v n="$2" 'BEGIN { if (n == 0) { print "n/a"; exit } z = 1.959964; p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n); h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    printf "%.0f %% (95 %% interval %.0f to %.0f %%)", 100 * p, 100 * (c - h < 0 ? 0 : c - h), 100 * (c + h > 1 ? 1 : c + h) }'
}

aa_real=0 aa_done=0 ab_found=0 ab_done=0 halves=""
echo "design $design: A/A, two Tomcat 10 alike (PBKDF2 1000)"
for i in $(seq "$naa"); do
  study "$design-aa-$i" 1000 1000 || continue
  aa_done=$((aa_done + 1))
  j=$out/$design-aa-$i/report.json
  real=$(jq -r '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.verdict == "real") | .key] | join(",")' "$j")
  [ -n "$real" ] && aa_real=$((aa_real + 1)) && echo "    real: $real"
  halves="$halves $(jq -r '.comparisons[0].cpu_per_request.app | ((.ci95[1] - .ci95[0]) / 2 / .baseline * 1000 | round / 10)' "$j")"
done
echo "design $design: A/B, PBKDF2 1000 against 1100 iterations"
for i in $(seq "$nab"); do
  study "$design-ab-$i" 1000 1100 || continue
  ab_done=$((ab_done + 1))
  ok=$(jq -r '.comparisons[0].cpu_per_request.app | (.verdict == "real" and .change_pct > 0)' "$out/$design-ab-$i/report.json")
  [ "$ok" = true ] && ab_found=$((ab_found + 1))
done
echo
echo "design $design: A/A: $aa_real of $aa_done called some figure real (false-real rate $(wilson "$aa_real" "$aa_done"))"
echo "design $design: A/A intervals of the app's CPU per request, half-width %:$halves"
echo "design $design: A/B: $ab_found of $ab_done found the app's CPU per request higher and real (detection rate $(wilson "$ab_found" "$ab_done"))"
