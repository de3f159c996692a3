#!/usr/bin/env python3
"""Writes Burst.java: a JVM whose JIT and GC work is known (tests/it/test_jvmthreads.sh).
Phase 1 calls N distinct methods until each is hot (the JIT compiles them, C1 then C2);
phase 2 only allocates short-lived arrays (the GC works, the JIT has nothing left to do).
Between them it waits until the JIT has drained its queue (its total compilation time
still for two checks 300 ms apart, 20 s at most): on a loaded machine the compilers are
still at work seconds after the calls stop.
Each phase's start is printed with the wall clock: phase=NAME t=EPOCH_MS."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1200
out = ["public class Burst {"]
for i in range(n):
    out.append(f"  static long m{i}(long x) {{ long s = x ^ {i * 7919}L; for (int k = 0; k < {i % 7 + 3}; k++) {{ s = s * {i + 31}L + (s >>> {i % 13 + 1}); if ((s & {i % 5 + 1}) == 0) s += k; }} return s; }}")
for c in range(0, n, 100):
    out.append(f"  static long chunk{c // 100}(long x) {{")
    out += [f"    x = m{i}(x);" for i in range(c, min(c + 100, n))]
    out.append("    return x; }")
out.append("  static long all(long x) {")
out += [f"    x = chunk{c // 100}(x);" for c in range(0, n, 100)]
out.append("    return x; }")
out.append("""  static void say(String p) { System.out.println("phase=" + p + " t=" + System.currentTimeMillis()); System.out.flush(); }
  public static void main(String[] a) throws Exception {
    long jitMs = Long.parseLong(a[0]), allocMs = Long.parseLong(a[1]);
    say("jit");
    long x = 1, end = System.currentTimeMillis() + jitMs;
    for (int it = 0; System.currentTimeMillis() < end; it++) x = all(x + it);
    java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
    long last = -1, quiet = 0, until = System.currentTimeMillis() + 20000;
    while (quiet < 2 && System.currentTimeMillis() < until) {
      Thread.sleep(300);
      long now = jit.getTotalCompilationTime();
      quiet = now == last ? quiet + 1 : 0;
      last = now;
    }
    say("alloc");
    end = System.currentTimeMillis() + allocMs;
    Object[] keep = new Object[64];
    for (int j = 0; System.currentTimeMillis() < end; )
      for (int k = 0; k < 1000; k++) keep[(j++) & 63] = new byte[4096];
    say("end");
    System.out.println("x=" + x + " " + keep.length);
  }
}""")
print("\n".join(out))
