#!/usr/bin/env bash
# Every ready scenario in scenarios/ passes `soak check`, also with the overrides its
# comment block tells users to give.
. "$(dirname "$0")/lib.sh"

for f in "$TOP"/scenarios/*.ini; do
  n=$(basename "$f")
  if out=$(soak check "$f" 2>&1); then ok "soak check $n"; else fail "soak check $n" "$out"; fi
  check "$n has a comment block saying what it answers" grep -q '^; What it answers' "$f"
done
check "upgrade-soak with a 72h duration" soak check -q --set scenario.duration=72h "$TOP/scenarios/upgrade-soak.ini"
check "keepalive-vs-close as close" soak check -q --set scenario.connection=close --set scenario.label=close "$TOP/scenarios/keepalive-vs-close.ini"
check_eq "upgrade-sweep has ten levels" "$(soak check "$TOP/scenarios/upgrade-sweep.ini" | grep -c '^  step ')" 10
check "demo.ini with the demo's overrides" soak check -q --set scenario.label=tomcat9 \
  --set request.url=http://127.0.0.1:1/register --set 'collect.app.pid_match=soak\.target=tomcat9' \
  --set collect.app.gc_log=/tmp/x/gc.log "$TOP/scenarios/demo.ini"
done_testing
