#!/usr/bin/env bash
# The verdicts' own error rates, measured on this machine with bin/regserver:
#   A/A: 20 studies (two labels on one regserver --latency 20, five rounds, order random
#        with seeds 1..20): how many call any figure real (wanted: at most 2 of 20; the
#        method promises at most 5 % of studies);
#   A/B: 10 studies of --latency 20 against --latency 23, three interleaved rounds (the
#        first run after each start discarded): how many find the mean latency +15 % real
#        and TPS lower and real (wanted: all).
#   Tomcat 10 A/A and A/B: bench/designs.sh replicas TOMCAT_AA TOMCAT_AB (two Tomcat 10
#        alike, and PBKDF2 at 1000 against 1100 iterations, side by side with three
#        processes a side, as a study gets them by default).
# Runs are 6 s (1 s warm-up) of 20 users for regserver; a Tomcat study takes about 4
# minutes.  Prints the counts with their 95 % binomial (Wilson) intervals and each study's
# figures; never fails on them.
#   bench/aa.sh [AA [AB [TOMCAT_AA [TOMCAT_AB]]]]   (BIN=dir of the binaries; default bin/)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
naa=${1:-20}
nab=${2:-10}
ntaa=${3:-5}
ntab=${4:-5}
out=$top/build/bench/aa
rm -rf "$out"
mkdir -p "$out"
pids=()
# shellcheck source=bench/study.lib
. "$top/bench/study.lib"
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

cat >"$out/reg.ini" <<'EOF'
[scenario]
name = aa bench
concurrency = 20
duration = 6s
warmup = 1s
interval = 500ms
EOF
cat "$top/targets/regserver/register.ini" >>"$out/reg.ini"

# The A/A's server, started again should it be gone (a shared machine's other work may
# end it); each study then gets the address of the one that is up.
reg_pid=
ensure_reg() {
  if [ -n "$reg_pid" ] && kill -0 "$reg_pid" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$reg_pid/status"; then
    return 0
  fi
  [ -n "$reg_pid" ] && echo "  (regserver $reg_pid is gone: starting another)"
  "$BIN/regserver" --port 0 --latency 20 --quiet >"$out/reg.log" 2>&1 &
  reg_pid=$!
  pids+=("$reg_pid")
  for _ in $(seq 100); do grep -q listening "$out/reg.log" && break; sleep 0.1; done
  url=http://127.0.0.1:$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out/reg.log")/register
}

# real_figures REPORT.JSON: the figures called real, comma-separated ("" when none).
real_figures() {
  jq -r '[.comparisons[] | (.metrics, .cpu_per_request, .memory) | to_entries[] | select(.value.verdict == "real") | .key] | join(",")' "$1"
}
# figures REPORT.JSON: method and the changes with their verdicts, for the log.
figures() {
  jq -r '.comparisons[0] | "\(.noise) \(.n_runs)+\(.n_runs_baseline): " + ([.metrics | to_entries[] | select(.key != "error") | "\(.key) \(.value.change_pct | . * 10 | round / 10)% \(.value.verdict)"] | join(", "))' "$1"
}

aa_real=0
echo "A/A: $naa studies, 2 labels x 5 rounds on one regserver, random order"
for seed in $(seq "$naa"); do
  ensure_reg
  cat >"$out/aa.ini" <<EOF
[study]
name = aa $seed
scenario = reg.ini
rounds = 5
order = random
seed = $seed
warmup_runs = 0
[target.a]
url = $url
[target.b]
url = $url
EOF
  db=$out/aa-$seed.db
  "$BIN/soak" study -q --db "$db" "$out/aa.ini" >/dev/null 2>"$out/aa-$seed.err" || {
    echo "  seed $seed: the study failed (see $out/aa-$seed.err)"; continue; }
  "$BIN/soak" report "$db" -o "$out/aa-$seed" --no-plots >/dev/null 2>&1
  real=$(real_figures "$out/aa-$seed/report.json")
  [ -n "$real" ] && aa_real=$((aa_real + 1))
  printf '  seed %2d: %s%s\n' "$seed" "$(figures "$out/aa-$seed/report.json")" "${real:+  <- real: $real}"
done

ab_found=0
echo "A/B: $nab studies, --latency 20 against --latency 23, 3 interleaved rounds"
for i in $(seq "$nab"); do
  cat >"$out/ab.ini" <<EOF
[study]
name = ab $i
scenario = reg.ini
rounds = 3
warmup_runs = 1
keep_running = yes
[target.lat20]
start = "$top/targets/regserver/regserver.sh" start "$out/lat20" --latency 20
stop = "$top/targets/regserver/regserver.sh" stop "$out/lat20"
[target.lat23]
start = "$top/targets/regserver/regserver.sh" start "$out/lat23" --latency 23
stop = "$top/targets/regserver/regserver.sh" stop "$out/lat23"
EOF
  db=$out/ab-$i.db
  BIN=$BIN "$BIN/soak" study -q --db "$db" "$out/ab.ini" >/dev/null 2>"$out/ab-$i.err" || {
    echo "  study $i: failed (see $out/ab-$i.err)"; continue; }
  "$BIN/soak" report "$db" -o "$out/ab-$i" --no-plots >/dev/null 2>&1
  j=$out/ab-$i/report.json
  ok=$(jq -r '.comparisons[0].metrics | (.mean.verdict == "real" and .mean.change_pct > 0 and .tps.verdict == "real" and .tps.change_pct < 0)' "$j")
  [ "$ok" = true ] && ab_found=$((ab_found + 1))
  printf '  study %2d: %s\n' "$i" "$(figures "$j")"
done

# --- Tomcat 10, the demo's servlet on PostgreSQL -------------------------------------------
# The design a study gets by default (side by side, three processes a side, the app's CPU
# per request the primary figure): bench/designs.sh, which prints its own counts.
if [ $((ntaa + ntab)) -gt 0 ] && command -v java >/dev/null && [ -x /usr/lib/postgresql/15/bin/postgres ]; then
  BIN=$BIN "$top/bench/designs.sh" replicas "$ntaa" "$ntab"
fi

echo
echo "A/A: $aa_real of $naa studies called some figure real (false-real rate $(wilson "$aa_real" "$naa"))"
echo "A/B: $ab_found of $nab studies found mean +15 % and TPS lower, both real (detection rate $(wilson "$ab_found" "$nab"))"

