#!/usr/bin/env bash
# Whether a profile names the frames that cost more, on real servers with a known answer:
# two Tomcat 10s that differ only in how many PBKDF2 iterations each registration hashes
# (1,000 against --iterations), side by side with --replicas processes a side, every one
# profiled (demo-rate.ini's `profile = cpu`, frame pointers kept by the start's --profile).
# The answer: the frames that move are PBKDF2's own (its HMAC and the digest beneath it),
# by about (ITER_B / 1000 - 1) of their share of a request; nothing else moves.  Prints
# each side's app CPU per request, the change the profile splits, and every frame judged,
# real ones first.  Never fails on a figure.
#   bench/profile_tomcat.sh [--iterations N] [--replicas K] [--duration D]   (BIN=dir)
# Defaults: 1,500 iterations, 3 processes a side, runs of 6 s.
# Results: build/bench/profile_tomcat/ (the study's database and report).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$top/bin}
out=$top/build/bench/profile_tomcat
iter_b=1500 replicas=3 dur=6s
while [ $# -ge 2 ]; do
  case "$1" in
    --iterations) iter_b=$2 ;; --replicas) replicas=$2 ;; --duration) dur=$2 ;;
    *) echo "usage: bench/profile_tomcat.sh [--iterations N] [--replicas K] [--duration D]" >&2; exit 2 ;;
  esac
  shift 2
done
# shellcheck source=bench/study.lib
. "$top/bench/study.lib"
tc_design replicas "$replicas"
rm -rf "$out"
tc_lab_up
tc_start_opts=--profile
tc_study prof 1000 "$iter_b" "$dur" || exit 1
j=$out/prof/report.json
echo "PBKDF2 1000 against $iter_b iterations, $replicas processes a side, $tc_secs s"
jq -r '.comparisons[] | select(.profile) | .profile | .sentence' "$j"
printf '%-60s %10s %10s %10s %s\n' frame "a µs" "b µs" change verdict
jq -r '.comparisons[] | select(.profile) | .profile.frames | sort_by(.verdict != "real", -(.change_us | fabs))[] |
  [.frame[0:60], (.base_us | round), (.us | round), (.change_us * 10 | round / 10), .verdict] | @tsv' "$j" |
  awk -F'\t' '{ printf "%-60s %10s %10s %10s %s\n", $1, $2, $3, $4, $5 }'
