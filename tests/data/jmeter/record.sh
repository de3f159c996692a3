#!/usr/bin/env bash
# Records the real JMeter 2.13 result files that tests/it/test_import.sh imports without
# running JMeter (it runs JMeter live once, for the sweep and the three formats):
#   short-ramp.jtl.gz  6 threads started over 3 s, each for 120 iterations (about 6 s),
#                      so they stop one after another: a file shorter than 10 s with a
#                      ramp-up and a ramp-down; JMeter 2.13's default CSV (no header)
#   long-ramp.jtl.gz   8 threads started over 20 s, each for about 100 s: about two
#                      minutes with 20 s ramps; CSV with a header row
#   sweep.jtl.gz       tests/data/jmeter/plan.jmx: 2 threads for 30 s, 2 more from 15 s:
#                      a sweep of 2 and 4 threads whose threads all stop at the end (the
#                      live run in the test is shorter, and a loaded machine can starve
#                      JMeter of its first level); CSV with a header row
# the ramps through tests/data/jmeter/ramp.jmx, all against bin/regserver (2 ms + up to 5 ms, 2 % of
# answers 503).  Run from the repository after `make`: tests/data/jmeter/record.sh [NAME...]
# (all three, or those named: short-ramp long-ramp sweep).
# Needs Debian's jmeter and jmeter-http (JMeter 2.13) and a JDK.  The files are gzipped
# (soak import reads gzip); the tests gunzip them for JMeter's own Aggregate Report.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
jar=/usr/share/jmeter/bin/ApacheJMeter.jar
work=$(mktemp -d)
reg=
cleanup() {
  [ -n "$reg" ] && kill "$reg" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

javac -cp "$jar" -d "$work/launcher" "$here/JMeterLauncher.java"
"$top/bin/regserver" --port 0 --latency 2 --jitter 5 --error-rate 2% --quiet >"$work/reg.log" 2>&1 &
reg=$!
for _ in $(seq 1 100); do
  grep -q 'listening on' "$work/reg.log" && break
  sleep 0.1
done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/reg.log")
[ -n "$port" ] || { cat "$work/reg.log" >&2; exit 1; }
# A port nobody listens on (bound and closed again): the refused connections.
refused=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

want() { [ $# -eq 0 ] || case " $* " in *" $name "*) return 0 ;; *) return 1 ;; esac; }

# ramp NAME HEADER(true|false) THREADS RAMP_S LOOPS THINK_MS: ramp.jmx
ramp() {
  timeout 600 java -Djmeter.home=/usr/share/jmeter -cp "$work/launcher:$jar" JMeterLauncher \
    -n -t "$here/ramp.jmx" -j "$work/$1.log" -l "$work/$1.jtl" \
    -Jjmeter.save.saveservice.print_field_names="$2" -Jport="$port" -Jrefused_port="$refused" \
    -Jthreads="$3" -Jramp_s="$4" -Jloops="$5" -Jthink_ms="$6" >"$work/$1.out" 2>&1
}
# sweep NAME: plan.jmx, 2 threads for 30 s and 2 more from 15 s
sweep() {
  timeout 600 java -Djmeter.home=/usr/share/jmeter -cp "$work/launcher:$jar" JMeterLauncher \
    -n -t "$here/plan.jmx" -j "$work/$1.log" -l "$work/$1.jtl" \
    -Jjmeter.save.saveservice.print_field_names=true -Jport="$port" -Jrefused_port="$refused" \
    -Jbase=2 -Jbase_s=30 -Jmore=2 -Jdelay_s=15 -Jmore_s=15 -Jcsv="$work/$1-h.jtl" \
    -Jxml="$work/$1.xml" >"$work/$1.out" 2>&1
}
for name in short-ramp long-ramp sweep; do
  want "$@" || continue
  case $name in
    short-ramp) ramp "$name" false 6 3 120 20 ;;
    long-ramp) ramp "$name" true 8 20 470 100 ;;
    sweep) sweep "$name" ;;
  esac
  echo "$name: $(grep 'summary =' "$work/$name.out" | tail -1)"
  gzip -9 -n -c "$work/$name.jtl" >"$here/$name.jtl.gz"
done
