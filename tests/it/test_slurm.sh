#!/usr/bin/env bash
# deploy/slurm on a real Slurm cluster of one node on this machine: munged, slurmctld and
# slurmd with a private configuration and state folder (127.0.0.1, free ports), the study
# submitted with deploy/slurm/submit.sh as a user would (three agents in a job array, a
# merge-and-report job after it), then the figures: one merged run of 3 agents, requests
# = the sum of the agents', every registration a 201 that regserver counted, no 409, the
# report written.  Every daemon started here is stopped by its pid.  Skipped (with a line
# saying why) only where slurm-wlm cannot be installed or run.
. "$(dirname "$0")/lib.sh"

skip() { echo "ok - slurm cluster # SKIP $1"; exit 0; }
for cmd in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$cmd" >/dev/null || skip "$cmd not found: slurm-wlm and munge are not installed (tools/deps.sh check installs them)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root here (SlurmdUser=root)"

S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/log"
chmod 700 "$S/munge"
# Daemons daemonise: they are stopped through their pid files, and only those.
stop_cluster() {
  local f p
  for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
    p=$(cat "$f" 2>/dev/null) || continue
    [ -n "$p" ] || continue
    kill -TERM "$p" 2>/dev/null || continue
    for _ in $(seq 1 50); do alive "$p" || break; sleep 0.1; done
    alive "$p" && kill -KILL "$p" 2>/dev/null
  done
}
trap 'stop_cluster; _cleanup' EXIT

head -c 1024 /dev/urandom >"$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
munged --key-file="$S/munge/munge.key" --socket="$S/munge/munge.socket" \
  --pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" \
  --seed-file="$S/munge/munged.seed" -f
check_eq "munged starts" "$?" 0
wait_for 5 test -s "$S/munge/munged.pid" || fail "munged writes its pid file"

node=$(hostname -s)
mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat >"$S/slurm.conf" <<EOF
ClusterName=soaktest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF=$S/slurm.conf
slurmctld -f "$SLURM_CONF"
check_eq "slurmctld starts" "$?" 0
slurmd -f "$SLURM_CONF"
check_eq "slurmd starts" "$?" 0
node_idle() { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }
if wait_for 30 node_idle; then ok "the node is idle"; else
  fail "the node is idle" "sinfo: $(sinfo 2>&1 | tail -1)"
  tail -5 "$S/log/slurmctld.log" "$S/log/slurmd.log" | sed 's/^/# /'
  exit 1
fi

start_regserver --latency 5 || { fail "regserver starts"; exit 1; }
cat >"$T/study.ini" <<EOF
[scenario]
name  = slurm study
label = regserver
concurrency = 7
duration = 5s
warmup = 1s
interval = 1s
[request]
method = POST
url = $REG_URL/register
header = Content-Type: application/x-www-form-urlencoded
body = username=u\${nonce}_\${seq}&email=v\${vu}s\${seq}@example.test&password=\${random:12}
expect_status = 201
timeout = 5s
EOF

# --- the study, submitted as a user would -------------------------------------------------
"$TOP/deploy/slurm/submit.sh" -n 3 -d "$T/study" -l 6 --shared-nodes -c 1 -b "$BIN" \
  "$T/study.ini" >"$T/submit.out" 2>&1
check_eq "submit.sh exits 0" "$?" 0
array=$(sed -nE 's/^agents: job ([0-9]+) .*/\1/p' "$T/submit.out")
merge=$(sed -nE 's/^merge and report: job ([0-9]+) .*/\1/p' "$T/submit.out")
check "submit.sh names both jobs" test -n "$array" -a -n "$merge"
check "the merge job waits for the array" \
  grep -qE "Dependency=afterany:${array}_\*" <(scontrol show job "$merge" 2>&1)
finished() { [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && [ -s "$T/study/report/report.md" ]; }
if wait_for 90 finished; then ok "the agents and the merge-and-report job finish"; else
  fail "the agents and the merge-and-report job finish" "$(squeue 2>&1 | tail -4 | tr '\n' ';')"
fi

# --- what they left --------------------------------------------------------------------------
DB=$T/study/study.db
for k in 1 2 3; do
  check "agent $k knew itself from the array" \
    grep -qE "^soak run: agent $k/3 \(Slurm job array\) of group 'slurm-$array': starting at " "$T/study/logs/agent-$k.out"
  check "agent $k's file is in the shared folder" test -s "$T/study/agents/agent-$k.db"
done
check "the merge job folded the group" \
  grep -qE "^group slurm-$array: run 4 holds 3 of 3 agents, [0-9]+ intervals, 0 notes; done$" "$T/study/logs/merge.out"
check_eq "one merged run of 3 agents" \
  "$(sql "$DB" "SELECT COUNT(*), MAX(agents_merged), MAX(agent_count), MAX(status) FROM runs WHERE merged_into IS NULL")" "1|3|3|done"
sum=0
for k in 1 2 3; do sum=$((sum + $(sql "$T/study/agents/agent-$k.db" "SELECT SUM(requests) FROM intervals"))); done
merged=$(sql "$DB" "SELECT SUM(requests) FROM intervals WHERE run_id = 4")
check_eq "merged requests = the sum of the agents'" "$merged" "$sum"
check "the agents sent something" test "$sum" -gt 100
check_eq "no request failed" "$(sql "$DB" "SELECT SUM(errors) FROM intervals WHERE run_id = 4")" 0
stop_pid "$REG_PID" TERM
created=$(grep -hoE ' 201=[0-9]+' "$T"/regserver.*.log | head -1 | cut -d= -f2)
check_eq "regserver's 201 count = soak's successes" "$created" "$merged"
check_eq "regserver answered no 409" "$(grep -hoE ' 409=[0-9]+' "$T"/regserver.*.log | head -1 | cut -d= -f2)" 0
check "the report shows the run with its 3 agents" \
  grep -qE '^\| 4 \| regserver \| slurm study \| fixed \| keepalive \| done \(agents 1-3 of 3 done\) \| .* \| 3 \|$' "$T/study/report/details.md"
check "report.html was written" test -s "$T/study/report/report.html"
done_testing
