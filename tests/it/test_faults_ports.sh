#!/usr/bin/env bash
# The load generator runs out of ephemeral ports: a connection per request, the client
# closing first (so its sockets wait in TIME_WAIT for 60 s), in a network namespace of
# this test with 101 ports (40000-40100) and tcp_tw_reuse=0, as against a remote target.
# soak sends `Connection: close` so that a normal server closes first; this target keeps
# every connection open after answering, so soak closes first (libcurl's FORBID_REUSE, the
# lean driver's close mode).  The errors must be classed client_ports (EADDRNOTAVAIL),
# backed off, reported as client-side, and the run must go on.  Runs as root (ip netns); a
# missing capability is a failure.  Once per HTTP client, each in a fresh namespace:
# TIME_WAIT sockets belong to their namespace, so the second client starts with every
# port free.
. "$(dirname "$0")/lib.sh"

NS=
cleanup_ns() {
  local p
  for p in "${_pids[@]}"; do alive "$p" && stop_pid "$p" KILL; done
  [ -n "$NS" ] && ip netns del "$NS"
  _cleanup
}
trap cleanup_ns EXIT
in_ns() { ip netns exec "$NS" "$@"; }

DB=$T/ports.db
URL=http://127.0.0.1:8080/x
q() { sql "$DB" "$@"; }

for CLIENT in curl lean; do
  if ! ip netns add "soak-it-ports-$$-$CLIENT" 2>"$T/ns.err"; then
    fail "[$CLIENT] create a network namespace" "$(cat "$T/ns.err") (this test needs root with CAP_SYS_ADMIN)"
    exit 1
  fi
  NS=soak-it-ports-$$-$CLIENT
  in_ns ip link set lo up
  in_ns sysctl -q -w net.ipv4.ip_local_port_range="40000 40100" net.ipv4.tcp_tw_reuse=0
  check_eq "[$CLIENT] namespace: 101 ephemeral ports, no TIME_WAIT reuse" \
    "$(in_ns sysctl -n net.ipv4.ip_local_port_range net.ipv4.tcp_tw_reuse | tr -s '\t\n' '  ')" "40000 40100 0 "

  # The target answers every request and never closes a connection itself.
  spawn "$T/keepsrv-$CLIENT.log" ip netns exec "$NS" python3 "$TOP/tests/it/test_faults_target.py" "$T/mode" 8080
  srv=$SPAWNED_PID
  wait_line "$T/keepsrv-$CLIENT.log" listening 20 >/dev/null ||
    fail "[$CLIENT] target starts in the namespace" "$(cat "$T/keepsrv-$CLIENT.log")"

  # Control: keep-alive needs four ports and has no errors.
  in_ns soak run -q --db "$DB" --client "$CLIENT" --interval 1s --url "$URL" -c 4 -d 3s >"$T/out.txt" 2>"$T/err.txt"
  check_eq "[$CLIENT] keep-alive in the namespace: exit 0" "$?" 0
  R=$(q 'SELECT max(id) FROM runs')
  check_eq "[$CLIENT] keep-alive in the namespace: no errors" "$(q "SELECT sum(errors) FROM intervals WHERE run_id=$R")" 0

  in_ns soak run -q --db "$DB" --client "$CLIENT" --interval 1s --url "$URL" -c 4 -d 8s --connection close \
    >"$T/out.txt" 2>"$T/err.txt"
  check_eq "[$CLIENT] connection per request: exit 0" "$?" 0
  R=$(q 'SELECT max(id) FROM runs')
  check_eq "[$CLIENT] connection per request: run is done" "$(q "SELECT status FROM runs WHERE id=$R")" done
  tw=$(in_ns ss -Htan state time-wait | wc -l)
  check_range "[$CLIENT] the client's ports sit in TIME_WAIT" "$tw" 80 101
  check_range "[$CLIENT] connections made before the ports ran out" "$(q "SELECT sum(new_conns) FROM intervals WHERE run_id=$R")" 80 101
  cp=$(q "SELECT IFNULL(sum(count),0) FROM interval_errors WHERE run_id=$R AND class='client_ports'")
  check_eq "[$CLIENT] every error is client_ports" "$(q "SELECT sum(errors) FROM intervals WHERE run_id=$R")" "$cp"
  # Each VU backs off 250 ms after EADDRNOTAVAIL: at most 4 x 4 a second.
  check_range "[$CLIENT] client_ports errors, backed off (per second, last 6 s)" \
    "$(q "SELECT sum(count) / 6 FROM (SELECT count FROM interval_errors WHERE run_id=$R ORDER BY start_ms DESC LIMIT 6)")" 1 100
  check_eq "[$CLIENT] the run goes on: every interval has requests" \
    "$(q "SELECT count(*) FROM intervals WHERE run_id=$R AND phase='steady' AND requests > 0")" 8
  check "[$CLIENT] the sample names EADDRNOTAVAIL" grep -q "EADDRNOTAVAIL: the load generator ran out of ephemeral ports" \
    <<<"$(q "SELECT sample FROM interval_errors WHERE run_id=$R AND class='client_ports' LIMIT 1")"

  stop_pid "$srv" KILL
  ip netns del "$NS"
  NS=
done

R=$(q 'SELECT max(id) FROM runs')
soak report "$DB" -o "$T/report" --no-plots >"$T/report.out" 2>"$T/report.err"
check_eq "soak report: exit 0" "$?" 0
check_eq "soak report: client_ports is a client-side class" \
  "$(jq -r ".runs[] | select(.id==$R) | .errors.client_ports.side" "$T/report/report.json" 2>&1)" client
check "soak report: a finding blames the load generator, not the server" \
  grep -q "client-side errors, the load generator's own limits (out of ephemeral ports" "$T/report/report.md"

done_testing
