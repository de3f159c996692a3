#!/usr/bin/env bash
# deploy/: the Kubernetes manifests against the Kubernetes API's models (python3-kubernetes,
# deploy/k8s/validate.py), and broken copies refused; the systemd template units through
# `systemd-analyze verify` and their command lines run with the example settings; the
# Slurm scripts parse and submit.sh refuses bad usage before queueing anything.
. "$(dirname "$0")/lib.sh"

D=$TOP/deploy
PY=/usr/bin/python3

# --- Kubernetes ------------------------------------------------------------------------------
if $PY -c 'import kubernetes, yaml' 2>/dev/null; then
  out=$($PY "$D/k8s/validate.py" "$D/k8s/study.yaml" 2>&1)
  check_eq "study.yaml is valid" "$out" "$D/k8s/study.yaml: ok (4 documents)"
  broken() { # NAME WANT SED-EXPRESSION
    sed -e "$3" "$D/k8s/study.yaml" >"$T/broken.yaml"
    out=$($PY "$D/k8s/validate.py" "$T/broken.yaml" 2>&1); rc=$?
    if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qF -- "$2"; then ok "refused: $1"
    else fail "refused: $1" "exit $rc: $out"; fi
  }
  broken "a misspelt field" "Job.spec.template.spec.restartPolicyy: unknown field" \
    's/restartPolicy: Never/restartPolicyy: Never/'
  broken "parallelism below completions" "spec.completions (4) and spec.parallelism (3) must be equal" \
    's/parallelism: 4/parallelism: 3/'
  broken "--agents that disagrees" "--agents 5 disagrees with completions 4" \
    's/--agents "$SOAK_AGENTS"/--agents 5/'
  broken "pods restarted" "restartPolicy: must be Never" '0,/restartPolicy: Never/s//restartPolicy: OnFailure/'
  broken "a wrong type" "invalid literal for int()" 's/completions: 4/completions: four/'
  broken "no shared claim" "the Jobs share no persistent volume claim" \
    '$s/claimName: soak-study/claimName: other/'
else
  echo "ok - kubernetes manifests # SKIP python3-kubernetes is not installed (tools/deps.sh check installs it)"
fi

# --- systemd ---------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  mkdir -p "$T/units"
  for u in soak-procstat soak-gclog; do
    sed "s|/usr/local/bin/|$BIN/|" "$D/systemd/$u@.service" >"$T/units/$u@app.service"
  done
  out=$(systemd-analyze verify "$T/units/soak-procstat@app.service" "$T/units/soak-gclog@app.service" 2>&1)
  check_eq "systemd-analyze verify accepts both units" "$?" 0
  [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
  sed 's/^ExecStart=/ExecStrat=/' "$T/units/soak-gclog@app.service" >"$T/units/soak-gclog@bad.service"
  systemd-analyze verify "$T/units/soak-gclog@bad.service" >/dev/null 2>&1
  check_eq "systemd-analyze verify refuses a broken unit" "$?" 1
else
  echo "ok - systemd units # SKIP systemd-analyze is not installed"
fi
# The units' command lines with the example settings, as systemd would run them (the
# database and the GC log moved to this test's folder, the match to a process of ours).
line() { sed -n 's/^ExecStart=[^ ]*\/\([a-z-]*\) /\1 /p' "$D/systemd/$1@.service"; }
check_eq "procstat's command line" "$(line soak-procstat)" \
  'soak-procstat --db ${SOAK_DB} --source %i --match ${SOAK_MATCH} $SOAK_PROCSTAT_OPTS'
check_eq "gclog's command line" "$(line soak-gclog)" \
  'soak-gclog --db ${SOAK_DB} --source %i --follow ${SOAK_GC_LOG} --pid-match ${SOAK_MATCH}'
(
  . "$D/systemd/app.env.example"
  SOAK_DB=$T/app-host.db SOAK_MATCH="sleep 30" SOAK_GC_LOG=$T/gc.log
  sleep 30 & sl=$!
: >"$T/gc.log"
  for f in "$TOP"/tests/data/gc/*.log; do cp "$f" "$T/gc.log"; break; done
  # shellcheck disable=SC2086 # split like systemd's $SOAK_PROCSTAT_OPTS
  soak-procstat --db "$SOAK_DB" --source app --match "$SOAK_MATCH" $SOAK_PROCSTAT_OPTS --every 300ms --for 1300ms
  echo "procstat=$?"
  soak-gclog --db "$SOAK_DB" --source app --follow "$SOAK_GC_LOG" --pid-match "$SOAK_MATCH" --for 500ms
  echo "gclog=$?"
  kill "$sl"
) >"$T/units.out" 2>&1
check "soak-procstat@app's command line runs" grep -qx 'procstat=0' "$T/units.out"
check "soak-gclog@app's command line runs" grep -qx 'gclog=0' "$T/units.out"
check "it sampled the matched process and the host" \
  test "$(sql "$T/app-host.db" "SELECT COUNT(DISTINCT metric) FROM samples WHERE source = 'app' AND metric IN ('cpu_pct', 'cpu_user_pct')")" -eq 2
soak merge -o "$T/study.db" "$T/app-host.db" >/dev/null 2>&1
check_eq "the host's file folds into a study" "$?" 0

# --- Slurm scripts -----------------------------------------------------------------------------
for f in submit.sh agent.sbatch merge.sbatch; do
  check "bash parses deploy/slurm/$f" bash -n "$D/slurm/$f"
done
out=$("$D/slurm/submit.sh" -d "$T/x" "$TOP/scenarios/demo.ini" 2>&1); rc=$?
check "submit.sh without -n is refused" test "$rc" -eq 2 -a -n "$(printf '%s' "$out" | grep -F -- '-n N (agents) is required')"
printf '[scenario]\nduration = 1m\nbogus = 1\n[request]\nurl = http://127.0.0.1:1/\n' >"$T/bad.ini"
out=$(PATH=$BIN:$PATH "$D/slurm/submit.sh" -n 2 -d "$T/x" "$T/bad.ini" 2>&1); rc=$?
check "submit.sh checks the scenario before queueing" test "$rc" -ne 0 -a -n "$(printf '%s' "$out" | grep -F "bad.ini:3:")"
done_testing
