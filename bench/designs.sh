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
# shellcheck source=bench/study.lib
. "$top/bench/study.lib"
tc_design "$design" || exit 2
tc_lab_up

# study NAME ITER_A ITER_B: the study run and reported; prints its line.
study() {
  local j
  tc_study "$1" "$2" "$3" 8s || return 1
  j=$out/$1/report.json
  mins=$(awk -v s="$tc_secs" 'BEGIN { printf "%.1f", s / 60 }')
  jq -r --arg m "$mins" '.comparisons[0] | .cpu_per_request.app as $c |
    "  \(.noise): cpu/req app \($c.change_pct * 10 | round / 10)% \($c.verdict), interval \(($c.ci95[0] / $c.baseline * 1000 | round) / 10)..\(($c.ci95[1] / $c.baseline * 1000 | round) / 10)% at \($c.level * 1000 | round / 10)%, df \($c.df); \($m) min"' "$j"
}

aa_real=0 aa_done=0 ab_found=0 ab_done=0 halves=""
echo "design $design: A/A, two Tomcat 10 alike (PBKDF2 1000)"
for i in $(seq "$naa"); do
  study "$design-aa-$i" 1000 1000 || continue
  aa_done=$((aa_done + 1))
  j=$out/$design-aa-$i/report.json
  real=$(tc_any_real "$j")
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
