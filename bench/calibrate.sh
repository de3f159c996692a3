#!/usr/bin/env bash
# Whether the report's intervals hold what they promise on real servers: A/A and A/B studies
# of two Tomcat 10s (the registration servlet on a private PostgreSQL, the app's CPU per
# request the primary figure), as tests/unit/test_calibrate.c does on simulated ones.
#   A/A: both PBKDF2 1,000 iterations.  How many studies call any figure real (the report
#        promises at most 5 %), with its 95 % Wilson interval.
#   A/B: 1,000 against --iterations.  The true change of the app's CPU per request is
#        measured first by a longer study (one process a side started --truth-starts times,
#        runs of --truth-duration), or given with --truth PCT; then how many A/B intervals
#        cover it.
# Prints each study's primary figure (change, interval, verdict, minutes), then the
# false-real rate, the coverage, the median half-width and the minutes per study.  Never
# fails on a figure.
#   bench/calibrate.sh [--aa N] [--ab N] [--design one|pair|replicas|starts|default] [--replicas K]
#                      [--duration D] [--iterations N] [--truth PCT | --truth-starts S
#                      --truth-rounds R --truth-duration D] [--out DIR] [--more] [--tsv FILE]
#                      (BIN=dir of the binaries)
# Defaults: 4 A/A and 4 A/B studies, design replicas with 2 processes a side (make demo's),
# runs of 6 s, B at 1,100 iterations, the truth from 3 starts of 3 rounds of 12 s.
# Results: --out DIR, build/bench/calibrate/ by default (each study's database and
# report, calibrate.tsv: a line a study, with the commit it ran).  --more keeps DIR's
# studies and adds to them (20 a side take hours: several sittings, one directory); the
# figures printed are then over every study in DIR.  Give the same design and the same
# --truth each time: a sitting's truth is not stored.  --tsv FILE keeps the lines in FILE
# instead (bench/calibrate-default.tsv holds issue 43's sittings: a new checkout, whose
# build/ is empty, adds to them with --more --tsv bench/calibrate-default.tsv).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
out=$top/build/bench/calibrate
naa=4 nab=4 design=replicas replicas=2 dur=6s iter_b=1100 more=0
truth='' truth_starts=3 truth_rounds=3 truth_dur=12s tsv=''
usage() { sed -n '/^#   bench\/calibrate.sh \[/,/BIN=dir/s/^#   //p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  [ "$1" = --more ] && { more=1; shift; continue; }
  [ $# -ge 2 ] || usage
  case "$1" in
    --aa) naa=$2 ;; --ab) nab=$2 ;; --design) design=$2 ;; --replicas) replicas=$2 ;;
    --duration) dur=$2 ;; --iterations) iter_b=$2 ;; --truth) truth=$2 ;;
    --truth-starts) truth_starts=$2 ;; --truth-rounds) truth_rounds=$2 ;;
    --truth-duration) truth_dur=$2 ;; --out) out=$2 ;; --tsv) tsv=$2 ;;
    *) usage ;;
  esac
  shift 2
done
# shellcheck source=bench/study.lib
. "$top/bench/study.lib"
tc_design "$design" "$replicas" || exit 2
[ -z "$tsv" ] || [ "$more" -eq 1 ] || { echo "calibrate.sh: --tsv FILE adds to FILE's studies: give --more" >&2; exit 2; }
[ "$more" -eq 1 ] || rm -rf "$out"
tc_lab_up
tsv=${tsv:-$out/calibrate.tsv}
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)

# primary JSON: the primary figure's change, interval ends and half-width (% of the
# interval's own baseline) and verdict, tab-separated.
primary() {
  jq -r '.comparisons[0].cpu_per_request.app | . as $c | ($c.interval_mean_baseline) as $b |
    [($c.change_pct * 100 | round / 100), ($c.ci95[0] / $b * 10000 | round / 100),
     ($c.ci95[1] / $b * 10000 | round / 100),
     (($c.ci95[1] - $c.ci95[0]) / 2 / $b * 10000 | round / 100), $c.verdict] | @tsv' "$1"
}

# one KIND I ITER_B: a study, its line printed and appended to calibrate.tsv.
one() {
  local name=$1-$2 p real
  tc_study "$name" 1000 "$3" "$dur" || return 0
  p=$(primary "$out/$name/report.json")
  real=$(tc_any_real "$out/$name/report.json")
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$p" "${real:--}" "$tc_secs" "$commit" >>"$tsv"
  awk -F'\t' -v n="$name" -v r="$real" -v s="$tc_secs" '{ printf "  %s: cpu/req app %+.2f %% (%+.2f .. %+.2f %%, ±%.2f %%) %s; real: %s; %.1f min\n",
    n, $1, $2, $3, $4, $5, (r == "" ? "none" : r), s / 60 }' <<<"$p"
}

# count KIND: the KIND lines in the tsv (--more numbers a sitting's studies after them).
count() {
  if [ -s "$tsv" ]; then awk -F'\t' -v k="$1" '$1 == k { n++ } END { print n + 0 }' "$tsv"; else echo 0; fi
}

echo "design $design (${replicas} processes a side where it has replicas) at $tc_rate/s, runs of $dur"
if [ -z "$truth" ] && [ "$nab" -gt 0 ]; then
  echo "the true change: PBKDF2 1000 against $iter_b, one process a side started $truth_starts times, $truth_rounds rounds of $truth_dur"
  rm -rf "$out/truth" "$out"/truth.* "$out"/truth-*
  if tc_study truth 1000 "$iter_b" "$truth_dur" "rounds = $truth_rounds
starts = $truth_starts"; then
    p=$(primary "$out/truth/report.json")
    truth=$(cut -f1 <<<"$p")
    echo "  truth: cpu/req app $truth % ($(cut -f2 <<<"$p") .. $(cut -f3 <<<"$p") %); $(awk -v s="$tc_secs" 'BEGIN { printf "%.1f", s / 60 }') min"
  fi
fi
echo "A/A: $naa studies, PBKDF2 1000 against 1000"
for i in $(seq "$naa"); do one aa $(($(count aa) + 1)) 1000; done
echo "A/B: $nab studies, PBKDF2 1000 against $iter_b"
for i in $(seq "$nab"); do one ab $(($(count ab) + 1)) "$iter_b"; done

echo
[ -s "$tsv" ] || { echo "no study finished"; exit 0; }
# kind $1's rows: false real (any figure), coverage of $2, half-widths, minutes.
summary() {
  awk -F'\t' -v k="$1" -v t="$2" '$1 == k { n++; real += ($7 != "-"); cov += (t != "" && $3 <= t + 0 && t + 0 <= $4)
    print "H", $5; print "M", $8 / 60 } END { print "N", n + 0, real + 0, cov + 0 }' "$tsv" >"$out/$1.sum"
  read -r _ n real cov < <(grep '^N' "$out/$1.sum")
  med_half=$(awk '$1 == "H" { print $2 }' "$out/$1.sum" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "n/a" }')
  mins=$(awk '$1 == "M" { s += $2; n++ } END { if (n) printf "%.1f", s / n; else print "n/a" }' "$out/$1.sum")
}
summary aa 0
echo "A/A: $real of $n called some figure real: false-real rate $(wilson "$real" "$n")"
echo "A/A: the primary figure's interval covered 0 in $cov of $n: $(wilson "$cov" "$n"); median half-width ±$med_half %; $mins min per study"
if [ "$(count ab)" -gt 0 ]; then
  summary ab "$truth"
  echo "A/B: the primary figure's interval covered the true change (${truth:-unknown} %) in $cov of $n: coverage $(wilson "$cov" "$n"); median half-width ±$med_half %; $mins min per study"
  echo "A/B: pooled change of the $n studies: $(awk -F'\t' '$1 == "ab" { s += $2; n++ } END { if (n) printf "%+.2f %%", s / n }' "$tsv")"
fi
