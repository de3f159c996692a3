#!/usr/bin/env bash
# Runs the unit tests (cmocka, TAP output) and the integration tests (tests/it/*.sh), prints
# each test's result and ends with one line `N passed, N failed` summed over all suites.
#   tests/run.sh [--unit|--it] [PATTERN...]    PATTERN selects suites by name (substring)
# Environment: BIN (programs), UNIT_DIR (unit test binaries).  A suite's full log is kept in
# build/test-logs/ and printed when it fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
: "${BIN:=$top/bin}" "${UNIT_DIR:=$top/build/rel/tests}"
export BIN TOP="$top"
logs=$top/build/test-logs
mkdir -p "$logs"

kinds="unit it"
case "${1:-}" in --unit) kinds=unit; shift ;; --it) kinds=it; shift ;; esac
patterns=("$@")

selected() {
  [ ${#patterns[@]} -eq 0 ] && return 0
  for p in "${patterns[@]}"; do case "$1" in *"$p"*) return 0 ;; esac; done
  return 1
}

passed=0 failed=0 failed_suites=()
# report_suite NAME LOG RC SECONDS: prints a finished suite's results and adds them up.
report_suite() {
  local name=$1 log=$2 rc=$3 secs=$4 p f
  printf '== %s\n' "$name"
  p=$(grep -c '^ok ' "$log")
  f=$(grep -c '^not ok ' "$log")
  grep -E '^(ok|not ok) ' "$log" | sed 's/^/   /'
  # A suite that dies without saying why still counts as one failure.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    echo "   not ok - $name exited with status $rc"
  fi
  if [ "$f" -gt 0 ]; then
    failed_suites+=("$name")
    echo "   --- log of $name ($log), last 60 lines:"
    tail -n 60 "$log" | sed 's/^/   | /'
  fi
  printf '   %s: %d passed, %d failed (%ds)\n' "$name" "$p" "$f" "$secs"
  passed=$((passed + p)) failed=$((failed + f))
}
run_suite() { # name, log, command...
  local name=$1 log=$2 start=$SECONDS rc
  shift 2
  "$@" >"$log" 2>&1
  rc=$?
  report_suite "$name" "$log" "$rc" $((SECONDS - start))
}

# Integration suites run in two lanes, then alone.
# - The load-free lane: suites whose checks hold under other suites' load (they measure no
#   rate, latency or CPU share against a bound that load could move), LANE_WIDTH (default
#   4) at a time.  test_containers loads the machine (Tomcats driven flat out, JVMs warming
#   up): it runs on one CPU (PINNED, below) in a slot of its own, beside LANE_WIDTH - 1 of
#   the others, which wait on files, daemons and JVMs more than they compute (four at a
#   time passed 1,530 of 1,530 in 595 s beside two helpers' builds at load 10-17).
#   test_memory (two Tomcats at 400/s) ran after it, never beside it: unpinned, together, a
#   Tomcat at 400/s timed out and a JVM's thread classes summed to 114 % of its CPU; one
#   after the other they were 412 s of the lane's 413.  Pinned, test_containers leaves it a
#   core.
# - The timing lane: suites that measure rates, latencies or CPU shares, TIMING_WIDTH
#   (default 2) at a time in TIMING's order (below), on a machine the load-free lane has left.
#   Each waits on its fixed-length runs far more than it computes (test_study uses 21 % of
#   a core over its 264 s, the others 20-90 %: bench/README.md "Where make check's time
#   goes"), so two of them together leave each a core; a timer late by a scheduler's slice
#   moves none of their bounds.
# - Alone: what computes on a core of its own or needs the machine quiet.  test_jvmthreads:
#   when the JIT's queue empties depends on the CPU it gets (beside the fuzz harnesses'
#   clang builds its JVM still compiled a second into the allocation phase: JIT share 5.1 and
#   9.1 % where under 1 % is checked).  A suite named in no list runs alone too: a suite joins
#   a lane only after it passed there beside its neighbours, in full runs (two at least).
# The longest first (in the lane, at 81595b0), so that the lane does not end on one.
LOAD_FREE="test_containers test_tls test_memory test_import test_docs test_security test_metrics test_fuzz_replay test_install test_deploy test_completion test_faults_ports test_servlet test_agents test_slurm test_gclog test_hlog_cmd test_errors test_gcverdict test_faults_gclog test_secrets test_man test_layout test_merge test_scenarios"
LOAD_HEAVY="test_containers"
# Suites whose closed-model runs of fixed length keep as many cores busy as they are given
# (Tomcats and nginx driven flat out: test_containers 277 CPU-s alone, test_tls 121) run
# on one CPU, the last, when there are two or more: their checks count and classify, none
# needs the second core, and the suites beside them then get it (pinned, 115 and 59 CPU-s,
# all their checks passing).
PINNED="test_containers test_tls"
# The timing lane's order puts the suites that compute most beside test_study, which
# computes least, and the light ones last, where they pair with each other.  test_deps
# measures nothing but computes on a core for its 45 s (150-240 s in the load-free lane,
# where Tomcats take the CPU): beside test_study it has that core.  Three at a time (test_study
# in a slot of its own beside two) saved 135 s, but failed twice in three full runs: test_open's
# constant arrivals' gaps (3.3 to 6.6 ms against 5 ± 1.5 ms) and test_study's side-by-side
# latency, 2 ms against 5 ms, which the queueing of a busy machine shrank below +60 %.
TIMING="test_study test_deps test_report test_profile test_faults test_run test_open test_tcpframe test_faults_db test_procstat test_drift test_history test_resume test_regserver"
# The unit tests compute and share nothing: UNIT_WIDTH (default 2) at a time, the
# simulated calibrations (tens of seconds) first, each in a slot, the rest beside them.
UNIT_FIRST="test_calibrate_side test_calibrate"
: "${LANE_WIDTH:=4}" "${TIMING_WIDTH:=2}" "${UNIT_WIDTH:=2}"
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
lane_suite() { # KIND NAME: runs it, its log and "RC SECONDS" in build/test-logs
  local s=$SECONDS
  if [ "$1" = unit ]; then
    CMOCKA_MESSAGE_OUTPUT=TAP SOAK_TOP="$top" timeout 300 "$UNIT_DIR/$2" >"$logs/$2.log" 2>&1
  else
    $(pin "$2") timeout 600 bash "$here/it/$2.sh" >"$logs/$2.log" 2>&1
  fi
  echo "$? $((SECONDS - s))" >"$logs/$2.rc"
}
pin() { # NAME: the command that keeps a PINNED suite on the last CPU it may use, if any
  local last
  last=$(sed -n 's/^Cpus_allowed_list:.*[-,]//p' /proc/self/status)
  in_list "$1" "$PINNED" && [ -n "$last" ] && command -v taskset >/dev/null &&
    echo "taskset -c $last"
}
exists() { # KIND NAME
  if [ "$1" = unit ]; then [ -x "$UNIT_DIR/$2" ]; else [ -f "$here/it/$2.sh" ]; fi
}
# lane TITLE KIND WIDTH CHAIN NAME...: runs the selected NAMEs WIDTH at a time, in the
# order given (the next starts as soon as any running one ends); those in CHAIN run one
# after the other in a slot of their own, which then takes the others'.  Then prints each
# one's results, in the order given.
lane() {
  local title=$1 kind=$2 width=$3 chain=$4 n i done_pid names=() heavy=() light=() pids=()
  local start=$SECONDS
  shift 4
  for n in "$@"; do
    exists "$kind" "$n" && selected "$n" || continue
    names+=("$n")
    if in_list "$n" "$chain"; then heavy+=("$n"); else light+=("$n"); fi
  done
  if [ ${#heavy[@]} -gt 0 ]; then
    (for n in "${heavy[@]}"; do lane_suite "$kind" "$n"; done) &
    pids+=($!) # its slot takes the others' once the chain is done
  fi
  for n in "${light[@]}"; do
    if [ ${#pids[@]} -ge "$width" ]; then
      wait -n -p done_pid "${pids[@]}"
      for i in "${!pids[@]}"; do [ "${pids[$i]}" = "$done_pid" ] && unset 'pids[i]'; done
      pids=("${pids[@]}")
    fi
    lane_suite "$kind" "$n" &
    pids+=($!)
  done
  wait
  for n in "${names[@]}"; do
    # shellcheck disable=SC2046
    report_suite "$n" "$logs/$n.log" $(cat "$logs/$n.rc")
  done
  [ ${#names[@]} -eq 0 ] || echo "   $title: ${#names[@]} suites in $((SECONDS - start)) s"
}

for kind in $kinds; do
  if [ "$kind" = unit ]; then
    units=()
    for t in "$UNIT_DIR"/test_*; do
      in_list "${t##*/}" "$UNIT_FIRST" || units+=("${t##*/}")
    done
    # shellcheck disable=SC2086
    lane "the unit tests" unit "$UNIT_WIDTH" "" $UNIT_FIRST "${units[@]}"
  else
    # shellcheck disable=SC2086
    lane "the load-free lane" it "$LANE_WIDTH" "$LOAD_HEAVY" $LOAD_FREE
    # shellcheck disable=SC2086
    lane "the timing lane" it "$TIMING_WIDTH" "" $TIMING
    for t in "$here"/it/test_*.sh; do
      [ -f "$t" ] || continue
      n=$(basename "$t" .sh)
      in_list "$n" "$LOAD_FREE $TIMING" && continue
      selected "$n" || continue
      run_suite "$n" "$logs/$n.log" timeout 600 bash "$t"
    done
  fi
done

[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
