#!/usr/bin/env bash
# A JVM's CPU by thread class (soak-procstat's thr_*_pct) against a JVM whose work is known:
# tests/it/jvm_burst.py writes a program that first makes 1,200 methods hot (the JIT
# compiles them) and then only allocates (the GC works, the JIT has nothing to do), and
# prints when each phase starts.  The classes must follow the phases, sum to the process's
# CPU, and say nothing of a process that is no JVM.
. "$(dirname "$0")/lib.sh"
command -v javac >/dev/null || { fail "setup" "javac is missing (tools/deps.sh check installs a JDK)"; exit 1; }
cd "$T" || exit 1
python3 "$TOP/tests/it/jvm_burst.py" 1200 >Burst.java && javac Burst.java ||
  { fail "setup" "Burst.java does not compile"; exit 1; }
spawn "$T/burst.out" java -Xmx64m -XX:+UseG1GC -cp "$T" Burst 4000 3000
jvm=$SPAWNED_PID
spawn "$T/procstat.out" soak-procstat --db "$T/t.db" --source app --pid "$jvm" --every 250ms --for 40s
ps_pid=$SPAWNED_PID
wait_for 40 grep -q '^phase=end' "$T/burst.out" || fail "the JVM ran its phases" "$(cat "$T/burst.out")"
stop_pid "$ps_pid"
classes="'thr_app_pct', 'thr_jit_pct', 'thr_gc_pct', 'thr_vm_pct'"
t_jit=$(sed -n 's/^phase=jit t=//p' "$T/burst.out")
t_alloc=$(sed -n 's/^phase=alloc t=//p' "$T/burst.out")
t_end=$(sed -n 's/^phase=end t=//p' "$T/burst.out")
# share CLASS FROM TO: the class's share (%) of the process's CPU in samples taken in
# [FROM, TO] (ms), each of which covers the 250 ms before it.
share() {
  sql "$T/t.db" "SELECT ROUND(100.0 * SUM(CASE WHEN metric = 'thr_$1_pct' THEN value END) /
    SUM(CASE WHEN metric = 'cpu_pct' THEN value END), 1) FROM samples
    WHERE t_ms >= $2 + 300 AND t_ms <= $3 AND metric IN ('cpu_pct', 'thr_$1_pct')"
}
check_range "compiling: the JIT's threads' share of the JVM's CPU" "$(share jit "$t_jit" "$t_alloc")" 15 100
check_range "compiling: the GC's share" "$(share gc "$t_jit" "$t_alloc")" 0 3
# (the allocation phase starts when the JIT's queue is empty; the allocation loop itself is
# compiled in its first second)
check_range "allocating: the JIT's share (nothing left to compile)" "$(share jit $((t_alloc + 1000)) "$t_end")" 0 1
check_range "allocating: the GC's share" "$(share gc "$t_alloc" "$t_end")" 4 60
check_range "allocating: the application's share" "$(share app "$t_alloc" "$t_end")" 30 96
check_range "the classes sum to the process's CPU (%)" "$(sql "$T/t.db" "SELECT ROUND(100.0 *
  SUM(CASE WHEN metric IN ($classes) THEN value END) / SUM(CASE WHEN metric = 'cpu_pct' THEN value END), 1)
  FROM samples WHERE t_ms IN (SELECT t_ms FROM samples WHERE metric = 'thr_jit_pct')")" 90 105
# A multi-threaded process that is no JVM: soak-procstat's own regserver neighbour.
spawn "$T/reg.out" regserver --port 0 --threads 4 --quiet
reg=$SPAWNED_PID
soak-procstat --db "$T/r.db" --source app --pid "$reg" --every 100ms --for 600ms >/dev/null 2>&1
check_eq "no JVM, no classes" "$(sql "$T/r.db" "SELECT COUNT(*) FROM samples WHERE metric IN ($classes)")" 0
check "... but its CPU as ever" test "$(sql "$T/r.db" "SELECT COUNT(*) FROM samples WHERE metric = 'cpu_pct'")" -gt 0
stop_pid "$reg"
done_testing
