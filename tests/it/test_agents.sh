#!/usr/bin/env bash
# Agents: three `soak run --agent K/3` processes against one regserver, one group, one start
# time, merged by `soak merge` into one run: requests are the sum of the agents', every
# registration was a 201 that regserver counted (no 409: ${seq} and ${vu} are unique across
# agents), intervals line up, the report shows the agent count.  Then an agent killed
# mid-run: the merge keeps the others' intervals, names the gap, and the run's status says
# which agent ended how.  And the usage errors of the agent options.
. "$(dirname "$0")/lib.sh"

BODY='username=u${nonce}_${seq}&email=v${vu}a${agent}s${seq}@example.test&password=${random:12}'

# agents GROUP DURATION LOGPREFIX: starts three agents 2 s from now (aligned on the second);
# sets AGENT_PIDS.
agents() {
  local group=$1 dur=$2 pre=$3 at k
  at=$(( $(date +%s) + 3 ))
  AGENT_PIDS=()
  for k in 1 2 3; do
    spawn "$T/$pre$k.log" soak run --db "$T/$pre$k.db" --agent "$k/3" --group "$group" \
      --start-at "$at" --url "$REG_URL/register" -c 7 -d "$dur" --interval 1s --warmup 1s \
      -H 'Content-Type: application/x-www-form-urlencoded' --expect-status 201 --body "$BODY" \
      --timeout 5s
    AGENT_PIDS+=("$SPAWNED_PID")
  done
}

start_regserver --latency 5 || { fail "regserver starts"; exit 1; }

# --- three agents, merged ------------------------------------------------------------------
agents study1 5s a
rc=0
for p in "${AGENT_PIDS[@]}"; do wait "$p" || rc=$?; done
check_eq "three agents exit 0" "$rc" 0
check "agent 2 says which agent it is and when it starts" \
  grep -qE "^soak run: agent 2/3 \(--agent\) of group 'study1': starting at 20[0-9-]+T[0-9:]+\.000Z" "$T/a2.log"
for k in 1 2 3; do
  check_eq "agent $k recorded its place" \
    "$(sql "$T/a$k.db" "SELECT agent_group, agent_seq, agent_index, agent_count, start_lag_ms FROM runs")" \
    "study1|0|$k|3|0"
done
check_eq "the agents ran VUs 3 + 2 + 2" \
  "$(for k in 1 2 3; do sql "$T/a$k.db" "SELECT concurrency FROM steps"; done | tr '\n' ' ')" "3 2 2 "
check_eq "the agents' intervals start on the same instants" \
  "$(for k in 1 2 3; do sql "$T/a$k.db" "SELECT group_concat(start_ms) FROM (SELECT start_ms FROM intervals ORDER BY start_ms)"; done | sort -u | wc -l)" 1

soak merge -o "$T/out.db" "$T/a1.db" "$T/a2.db" "$T/a3.db" >"$T/merge.out" 2>&1
check_eq "merge exits 0" "$?" 0
check "merge names the group" grep -qE '^group study1: run 4 holds 3 of 3 agents, [0-9]+ intervals, 0 notes; done$' "$T/merge.out"
soak runs --db "$T/out.db" >"$T/runs.out"
check_eq "soak runs lists one run" "$(grep -cE '^ +[0-9]+ ' "$T/runs.out")" 1
check "soak runs shows 3 agents" grep -qE '^ +4 +quick .* done .* 3$' "$T/runs.out"
check_eq "soak runs --all lists the parts too" "$(soak runs --db "$T/out.db" --all | grep -cE '^ +[0-9]+ ')" 4
sum=0
for k in 1 2 3; do sum=$((sum + $(sql "$T/a$k.db" "SELECT SUM(requests) FROM intervals"))); done
merged=$(sql "$T/out.db" "SELECT SUM(requests) FROM intervals WHERE run_id = 4")
check_eq "merged requests = the sum of the agents'" "$merged" "$sum"
check "the agents sent something" test "$sum" -gt 100
check_eq "merged interval rows = the agents' distinct starts" \
  "$(sql "$T/out.db" "SELECT COUNT(*) FROM intervals WHERE run_id = 4")" \
  "$(sql "$T/out.db" "SELECT COUNT(DISTINCT start_ms) FROM intervals WHERE run_id IN (1, 2, 3)")"
check_eq "every merged interval adds its agents' requests" \
  "$(sql "$T/out.db" "SELECT COUNT(*) FROM intervals m WHERE m.run_id = 4 AND m.requests <> (SELECT SUM(requests) FROM intervals a WHERE a.run_id IN (1, 2, 3) AND a.start_ms = m.start_ms)")" 0
# (VUs are counted at an interval's end: the last one may see some already stopped)
check_eq "every merged interval's VUs are the sum of its agents'" \
  "$(sql "$T/out.db" "SELECT COUNT(*) FROM intervals m WHERE m.run_id = 4 AND m.vus <> (SELECT SUM(vus) FROM intervals a WHERE a.run_id IN (1, 2, 3) AND a.start_ms = m.start_ms)")" 0
check_eq "the merged run had 7 VUs while steady" \
  "$(sql "$T/out.db" "SELECT MAX(vus) FROM intervals WHERE run_id = 4 AND phase = 'steady'")" 7
check_eq "the merged step has the group's 7 users" \
  "$(sql "$T/out.db" "SELECT concurrency FROM steps WHERE run_id = 4")" 7
check_eq "the merged run's maximum is the agents' maximum" \
  "$(sql "$T/out.db" "SELECT max_us FROM steps WHERE run_id = 4")" \
  "$(sql "$T/out.db" "SELECT MAX(max_us) FROM steps WHERE run_id IN (1, 2, 3)")"
errors=$(sql "$T/out.db" "SELECT SUM(errors) FROM intervals WHERE run_id = 4")
check_eq "no request failed (no 409: names unique across agents)" "$errors" 0
stop_pid "$REG_PID" TERM
created=$(grep -oE ' 201=[0-9]+' "$T"/regserver.*.log | head -1 | cut -d= -f2)
conflicts=$(grep -oE ' 409=[0-9]+' "$T"/regserver.*.log | head -1 | cut -d= -f2)
check_eq "regserver's 201 count = soak's successes" "$created" "$((merged - errors))"
check_eq "regserver answered no 409" "$conflicts" 0
soak merge -o "$T/out.db" "$T/a1.db" "$T/a2.db" "$T/a3.db" >"$T/merge2.out" 2>&1
check "merging again adds nothing" test "$(grep -c ': +0 runs (0 updated), +0 steps (0 updated), +0 intervals' "$T/merge2.out")" -eq 3
check_eq "merging again: the same merged run" \
  "$(sql "$T/out.db" "SELECT COUNT(*), SUM(requests) FROM intervals WHERE run_id = 4")" \
  "$(sql "$T/out.db" "SELECT COUNT(*), $merged FROM intervals WHERE run_id = 4")"
soak report "$T/out.db" -o "$T/rep" --no-plots >/dev/null 2>"$T/rep.err"
check_eq "report exits 0" "$?" 0
check "the report's runs table shows 3 agents" \
  grep -qE '^\| 4 \| quick \| quick \| fixed \| keepalive \| done \(agents 1-3 of 3 done\) \| .* \| 3 \|$' "$T/rep/details.md"
check "report.json has the agent count" grep -q '"agents": 3, "agents_planned": 3' "$T/rep/report.json"

# --- an agent killed mid-run ---------------------------------------------------------------
start_regserver --latency 5 || { fail "regserver starts again"; exit 1; }
agents study2 8s k
# The agents start within 3 s; agent 2 dies 3 s into the run.
wait_line "$T/k2.log" 'steady' 10 >/dev/null
sleep 2
kill -KILL "${AGENT_PIDS[1]}"
wait "${AGENT_PIDS[1]}" 2>/dev/null
for p in "${AGENT_PIDS[0]}" "${AGENT_PIDS[2]}"; do wait "$p"; done
soak merge -o "$T/kill.db" "$T/k1.db" "$T/k2.db" "$T/k3.db" >"$T/kmerge.out" 2>&1
check_eq "merge with a dead agent exits 0" "$?" 0
check "the merge line says interrupted" grep -qE '^group study2: run 4 holds 3 of 3 agents, [0-9]+ intervals, [1-9][0-9]* notes; interrupted$' "$T/kmerge.out"
check_eq "the merged run says which agent ended how" \
  "$(sql "$T/kill.db" "SELECT status || ': ' || reason FROM runs WHERE id = 4" | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/')" \
  "interrupted: agents 1, 3 of 3 done; agent 2 of 3 crashed (last heard of at HH:MM:SS UTC)"
check "the gap is named" test "$(sql "$T/kill.db" "SELECT COUNT(*) FROM events WHERE run_id = 4 AND kind = 'agent_gap' AND detail GLOB 'agent 2/3 sent nothing from [0-2][0-9]:[0-5][0-9]:[0-6][0-9] to [0-2][0-9]:[0-5][0-9]:[0-6][0-9] UTC (its run crashed)'")" -eq 1
last_k2=$(sql "$T/k2.db" "SELECT MAX(start_ms) FROM intervals")
check_eq "after agent 2's last interval, the merged run holds the others' requests" \
  "$(sql "$T/kill.db" "SELECT SUM(requests) FROM intervals WHERE run_id = 4 AND start_ms > $last_k2")" \
  "$(sql "$T/kill.db" "SELECT SUM(requests) FROM intervals WHERE run_id IN (1, 3) AND start_ms > $last_k2")"
check "the others kept sending after agent 2 died" \
  test "$(sql "$T/kill.db" "SELECT SUM(requests) FROM intervals WHERE run_id = 4 AND start_ms > $last_k2")" -gt 50
check "soak runs shows the merged run interrupted" grep -qE '^ +4 +quick .* interrupted .* 3$' <(soak runs --db "$T/kill.db")
soak report "$T/kill.db" -o "$T/krep" --no-plots >/dev/null 2>&1
check "the report's findings name the gap" \
  grep -qE '^- Run 4 \(quick\), merged from 3 of 3 agents: agent 2/3 sent nothing from .* UTC \(its run crashed\)\.$' "$T/krep/report.md"
check "the report's status finding says which agent crashed" \
  grep -qE 'Run 4 \(quick\) was interrupted \(agents 1, 3 of 3 done; agent 2 of 3 crashed' "$T/krep/report.md"
stop_pid "$REG_PID" TERM

# --- usage -----------------------------------------------------------------------------------
usage() { # NAME WANT-MESSAGE ARGS...
  local name=$1 want=$2 out rc; shift 2
  out=$(soak run --url http://127.0.0.1:1/ -d 1s "$@" 2>&1); rc=$?
  if [ "$rc" -eq 2 ] && printf '%s\n' "$out" | grep -qF "$want"; then ok "$name"
  else fail "$name" "exit $rc: $out"; fi
}
usage "--group alone" "soak run: --group needs --agent" --group g
usage "--agent without a group" "soak run: --agent needs --group NAME" --agent 1/2
usage "--agent 3/2" "soak run: --agent 3/2: expected 1 <= K <= N <= 10000" --agent 3/2 --group g
usage "--agent auto outside a scheduler" "soak run: --agent auto: no Slurm job array" --agent auto --group g
usage "a bad --start-at" "soak run: --start-at 'noon': expected RFC 3339" --agent 1/2 --group g --start-at noon
usage "both starts" "soak run: give --start-at or --start-in, not both" --agent 1/2 --group g --start-at 1 --start-in 1s
out=$(JOB_COMPLETION_INDEX=1 soak run --url http://127.0.0.1:1/ -d 1s --agent auto --group g 2>&1)
check "--agent auto in an Indexed Job needs --agents" grep -qF -- "--agent auto in a Kubernetes Indexed Job needs --agents N" <<<"$out"
done_testing
