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
run_suite() { # name, log, command...
  local name=$1 log=$2; shift 2
  local start=$SECONDS rc p f
  printf '== %s\n' "$name"
  "$@" >"$log" 2>&1
  rc=$?
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
  printf '   %s: %d passed, %d failed (%ds)\n' "$name" "$p" "$f" $((SECONDS - start))
  passed=$((passed + p)) failed=$((failed + f))
}

for kind in $kinds; do
  if [ "$kind" = unit ]; then
    for t in "$UNIT_DIR"/test_*; do
      [ -x "$t" ] || continue
      n=$(basename "$t")
      selected "$n" || continue
      CMOCKA_MESSAGE_OUTPUT=TAP SOAK_TOP="$top" \
        run_suite "$n" "$logs/$n.log" timeout 300 "$t"
    done
  else
    for t in "$here"/it/test_*.sh; do
      [ -f "$t" ] || continue
      n=$(basename "$t" .sh)
      selected "$n" || continue
      run_suite "$n" "$logs/$n.log" timeout 600 bash "$t"
    done
  fi
done

[ ${#failed_suites[@]} -gt 0 ] && echo "failed suites: ${failed_suites[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
