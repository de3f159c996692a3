#!/usr/bin/env bash
# What each integration suite costs alone: its wall time and the CPU time of everything it
# started (a cgroup v1 cpuacct group of its own), the figures tests/run.sh's lanes are
# planned with (bench/README.md, "Where make check's time goes").  Run on a quiet machine,
# as root, after `make all java`:
#   tools/suite-cost.sh [SUITE...]     (default: every tests/it/test_*.sh)
# Prints `SUITE wall S cpu S ok N notok N` per suite; each suite's log, every line prefixed
# with the seconds since its start, in build/suite-cost/SUITE.log.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
acct=/sys/fs/cgroup/cpuacct
out=$top/build/suite-cost
[ -w "$acct" ] || { echo "suite-cost: needs cgroup v1's cpuacct ($acct), as root" >&2; exit 2; }
export BIN=${BIN:-$top/bin} TOP=$top
mkdir -p "$out"
suites=("$@")
if [ ${#suites[@]} -eq 0 ]; then
  for f in "$top"/tests/it/test_*.sh; do n=${f##*/}; suites+=("${n%.sh}"); done
fi
for n in "${suites[@]}"; do
  cg=$acct/suite-cost-$$-$n
  mkdir "$cg" || exit 1
  s=$(date +%s.%N)
  bash -c "echo \$\$ >$cg/tasks && exec timeout 900 bash $top/tests/it/$n.sh" 2>&1 |
    while IFS= read -r l; do
      printf '%6.1f %s\n' "$(echo "$(date +%s.%N) - $s" | bc)" "$l"
    done >"$out/$n.log"
  e=$(date +%s.%N)
  printf '%-20s wall %6.1f cpu %6.1f ok %d notok %d\n' "$n" "$(echo "$e - $s" | bc)" \
    "$(echo "$(cat "$cg/cpuacct.usage") / 1000000000" | bc -l)" \
    "$(grep -c '^ *[0-9.]* ok ' "$out/$n.log")" "$(grep -c '^ *[0-9.]* not ok ' "$out/$n.log")"
  sleep 1 # the last of its processes leave the group
  rmdir "$cg" 2>/dev/null || echo "suite-cost: $cg still holds processes" >&2
done
