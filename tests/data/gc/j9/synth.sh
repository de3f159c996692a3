#!/usr/bin/env bash
# Writes the synthetic IBM J9 / OpenJ9 verbose GC logs of this directory from the element
# shapes documented by IBM and Eclipse OpenJ9 (see ../MANIFEST.md, section "j9/") and the
# real samples next to them, and prints the figures a parser must find in each: events by
# kind, the sum of pauses, heap after GC (KB, rounded: (total - free + 512) / 1024) of the
# first and the last collection.  The figures come from the numbers the generator writes,
# not from any parser.  Deterministic: no clock, a fixed LCG for the jitter.
#
#   tests/data/gc/j9/synth.sh [OUTDIR]      (default: the directory of this script)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}

gen() { # SCENARIO FILE
  awk -v scenario="$1" -f - >"$OUT/$2" 2>"$OUT/$2.expect" <<'AWK'
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
function two(x) { return sprintf("%02d", x) }
# Local wall time (no zone, as J9 writes it) of second s (ms resolution) after 10:00:00.
function ts(s,    ms, h, m) {
  ms = int(s * 1000 + 0.5); h = int(ms / 3600000); ms -= h * 3600000
  m = int(ms / 60000); ms -= m * 60000
  if (old) return sprintf("Mar 05 %s:%s:%s 2024", two(10 + h), two(m), two(int(ms / 1000)))
  return sprintf("2024-03-05T%s:%s:%s.%03d", two(10 + h), two(m), two(int(ms / 1000)), ms % 1000)
}
function kb(total, free) { return int((total - free + 512) / 1024) }
function note(kind, pause_ms, after_kb) {
  count[kind]++; events++; pause_sum += pause_ms
  if (after_kb != "") { if (first_after == "") first_after = after_kb; last_after = after_kb }
}
# Newer form: <mem-info> with nursery and tenure (sizes in bytes).
function meminfo(nfree, tfree,    lfree) {
  printf "  <mem-info id=\"%d\" free=\"%d\" total=\"%d\" percent=\"%d\">\n", ++id, nfree + tfree, NT + TT, int(100 * (nfree + tfree) / (NT + TT))
  printf "    <mem type=\"nursery\" free=\"%d\" total=\"%d\" percent=\"%d\">\n", nfree, NT, int(100 * nfree / NT)
  printf "      <mem type=\"allocate\" free=\"%d\" total=\"%d\" percent=\"%d\" />\n", nfree, NT / 2, int(200 * nfree / NT)
  printf "      <mem type=\"survivor\" free=\"0\" total=\"%d\" percent=\"0\" />\n", NT / 2
  printf "    </mem>\n"
  printf "    <mem type=\"tenure\" free=\"%d\" total=\"%d\" percent=\"%d\">\n", tfree, TT, int(100 * tfree / TT)
  lfree = (tfree > LOA) ? LOA : tfree
  printf "      <mem type=\"soa\" free=\"%d\" total=\"%d\" percent=\"%d\" />\n", tfree - lfree, TT - LOA, int(100 * (tfree - lfree) / (TT - LOA))
  printf "      <mem type=\"loa\" free=\"%d\" total=\"%d\" percent=\"%d\" />\n", lfree, LOA, int(100 * lfree / LOA)
  printf "    </mem>\n"
  printf "  </mem-info>\n"
}
function excl_start(t) {
  printf "<exclusive-start id=\"%d\" timestamp=\"%s\" intervalms=\"%.3f\">\n", ++id, ts(t), (t - last_excl) * 1000
  printf "  <response-info timems=\"0.041\" idlems=\"0.030\" threads=\"2\" lastid=\"0000000030022900\" lastname=\"WebContainer : 3\" />\n"
  printf "</exclusive-start>\n"
  last_excl = t
}
function excl_end(t, pause) {
  printf "<exclusive-end id=\"%d\" timestamp=\"%s\" durationms=\"%.3f\" />\n\n", ++id, ts(t + pause / 1000), pause
}
# One collection inside an exclusive block: cycle, gc-start (before), gc-op, gc-end (after).
function cycle(t, type, d, nb, tb, na, ta,    c) {
  c = ++id
  if (split_next) {
    # As IBM's documentation prints it: one element over three lines.
    printf "<cycle-start id=\"%d\" type=\"%s\"\ncontextid=\"0\" timestamp=\"%s\" intervalms=\"%.3f\"\n/>\n", c, type, ts(t), 1000.0
    split_next = 0
  } else {
    printf "<cycle-start id=\"%d\" type=\"%s\" contextid=\"0\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", c, type, ts(t), 1000.0
  }
  printf "<gc-start id=\"%d\" type=\"%s\" contextid=\"%d\" timestamp=\"%s\">\n", ++id, type, c, ts(t)
  meminfo(NT - nb, TT - tb)
  printf "</gc-start>\n"
  printf "<gc-op id=\"%d\" type=\"%s\" timems=\"%.3f\" contextid=\"%d\" timestamp=\"%s\">\n", ++id, type == "scavenge" ? "scavenge" : "mark", d * 0.97, c, ts(t + d / 1000)
  printf "  <scavenger-info tenureage=\"10\" tenuremask=\"7c00\" tiltratio=\"50\" />\n"
  printf "</gc-op>\n"
  printf "<gc-end id=\"%d\" type=\"%s\" contextid=\"%d\" durationms=\"%.3f\" usertimems=\"%.3f\" systemtimems=\"0.100\" timestamp=\"%s\">\n", ++id, type, c, d, d * 1.6, ts(t + d / 1000)
  meminfo(NT - na, TT - ta)
  printf "</gc-end>\n"
  printf "<cycle-end id=\"%d\" type=\"%s\" contextid=\"%d\" timestamp=\"%s\" />\n", ++id, type, c, ts(t + d / 1000)
  return c
}
# Newer form: an allocation-failure scavenge; it promotes `promote` bytes into the tenure.
function scavenge(t, promote,    d, pause, na, ta) {
  d = 20 + 10 * rnd(); pause = d + 0.4
  na = NT / 2 + SURV; ta = tused + promote
  excl_start(t)
  printf "<af-start id=\"%d\" totalBytesRequested=\"64\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", ++id, ts(t), 1000.0
  cycle(t, "scavenge", d, NT, tused, na, ta)
  printf "<allocation-satisfied id=\"%d\" threadId=\"0000000030022900\" bytesRequested=\"64\" />\n", ++id
  printf "<af-end id=\"%d\" timestamp=\"%s\" />\n", ++id, ts(t + d / 1000)
  excl_end(t, pause)
  tused = ta
  note("young", sprintf("%.3f", pause), kb(NT + TT, (NT - na) + (TT - ta)))
}
# Newer form: a global collection in its own block: af, sys (System.gc()) or the final phase
# of a concurrent cycle started earlier (context = that cycle's id).
function global(t, how, live,    d, pause, nb, na, c) {
  d = 300 + 100 * rnd(); pause = d + 0.5
  nb = how == "af" ? NT : NT / 2 + SURV; na = NT / 2 + SURV
  excl_start(t)
  if (how == "af") printf "<af-start id=\"%d\" totalBytesRequested=\"4096\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", ++id, ts(t), 1000.0
  if (how == "sys") printf "<sys-start reason=\"explicit\" id=\"%d\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", ++id, ts(t), 1000.0
  if (how == "concurrent") {
    printf "<concurrent-collection-start id=\"%d\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", ++id, ts(t), 1000.0
    printf "<gc-start id=\"%d\" type=\"global\" contextid=\"%d\" timestamp=\"%s\">\n", ++id, conc_id, ts(t)
    meminfo(NT - nb, TT - tused)
    printf "</gc-start>\n"
    printf "<gc-end id=\"%d\" type=\"global\" contextid=\"%d\" durationms=\"%.3f\" usertimems=\"%.3f\" systemtimems=\"0.300\" timestamp=\"%s\">\n", ++id, conc_id, d, d * 1.5, ts(t + d / 1000)
    meminfo(NT - na, TT - live)
    printf "</gc-end>\n"
    printf "<cycle-end id=\"%d\" type=\"global\" contextid=\"%d\" timestamp=\"%s\" />\n", ++id, conc_id, ts(t + d / 1000)
    printf "<concurrent-collection-end id=\"%d\" timestamp=\"%s\" />\n", ++id, ts(t + d / 1000)
  } else {
    cycle(t, "global", d, nb, tused, na, live)
  }
  if (how == "af") printf "<af-end id=\"%d\" timestamp=\"%s\" />\n", ++id, ts(t + d / 1000)
  if (how == "sys") printf "<sys-end id=\"%d\" timestamp=\"%s\" />\n", ++id, ts(t + d / 1000)
  excl_end(t, pause)
  tused = live
  note("full", sprintf("%.3f", pause), kb(NT + TT, (NT - na) + (TT - live)))
}
# Newer form: a scavenge that cannot tenure its survivors percolates into a global
# collection in the same exclusive block (one event, full, marked failed).
function percolate(t, live,    d1, d2, pause, na) {
  d1 = 15 + 5 * rnd(); d2 = 350 + 50 * rnd(); pause = d1 + d2 + 0.6; na = NT / 2 + SURV
  excl_start(t)
  printf "<af-start id=\"%d\" totalBytesRequested=\"64\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", ++id, ts(t), 1000.0
  cycle(t, "scavenge", d1, NT, tused, NT, tused)
  printf "<percolate-collect id=\"%d\" from=\"nursery\" to=\"global\" reason=\"insufficient remaining tenure space\" timestamp=\"%s\"/>\n", ++id, ts(t + d1 / 1000)
  cycle(t + d1 / 1000, "global", d2, NT, tused, na, live)
  printf "<af-end id=\"%d\" timestamp=\"%s\" />\n", ++id, ts(t + pause / 1000)
  excl_end(t, pause)
  tused = live
  note("full", sprintf("%.3f", pause), kb(NT + TT, (NT - na) + (TT - live)))
  failed++
}
# Newer form: a concurrent global cycle starts (kickoff, then a short block with only the
# cycle-start: an event of kind other, no heap figures).
function conc_start(t,    pause) {
  printf "<concurrent-kickoff id=\"%d\" timestamp=\"%s\">\n", ++id, ts(t - 0.030)
  printf "  <kickoff reason=\"threshold reached\" targetBytes=\"37608078\" thresholdFreeBytes=\"50490372\" />\n"
  printf "</concurrent-kickoff>\n"
  pause = 0.5 + rnd() / 2
  excl_start(t)
  conc_id = ++id
  printf "<cycle-start id=\"%d\" type=\"global\" contextid=\"0\" timestamp=\"%s\" intervalms=\"%.3f\" />\n", conc_id, ts(t), 1000.0
  excl_end(t, pause)
  note("other", sprintf("%.3f", pause), "")
}
# Older form (Java 5/6): <af type="nursery|tenured"> or <sys>, three snapshots of nursery
# and tenured (before, inside <gc> = after the collection, after the allocation).
function old_block(t, tag, type, gctype, nb, tb, na, ta,    d, pause, akb) {
  d = gctype == "scavenger" ? 15 + 10 * rnd() : 250 + 50 * rnd(); pause = d + 0.35
  if (tag == "af") printf "<af type=\"%s\" id=\"%d\" timestamp=\"%s\" intervalms=\"%.3f\">\n", type, ++afid, ts(t), 1000.0
  else printf "<sys id=\"%d\" timestamp=\"%s\" intervalms=\"%.3f\">\n", ++afid, ts(t), 1000.0
  if (tag == "af") printf "  <minimum requested_bytes=\"48\" />\n"
  printf "  <time exclusiveaccessms=\"0.039\" />\n"
  printf "  <nursery freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" />\n", NT - nb, NT, int(100 * (NT - nb) / NT)
  printf "  <tenured freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" >\n", TT - tb, TT, int(100 * (TT - tb) / TT)
  printf "    <soa freebytes=\"%d\" totalbytes=\"%d\" percent=\"0\" />\n", TT - tb - LOA, TT - LOA
  printf "    <loa freebytes=\"%d\" totalbytes=\"%d\" percent=\"100\" />\n", LOA, LOA
  printf "  </tenured>\n"
  printf "  <gc type=\"%s\" id=\"%d\" totalid=\"%d\" intervalms=\"%.3f\">\n", gctype, gctype == "scavenger" ? ++scid : ++glid, ++totalid, 1000.0
  if (gctype == "scavenger") {
    printf "    <flipped objectcount=\"77666\" bytes=\"6260096\" />\n"
    printf "    <tenured objectcount=\"0\" bytes=\"0\" />\n"
    printf "    <scavenger tiltratio=\"50\" />\n"
    printf "    <nursery freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" tenureage=\"10\" />\n", NT - na, NT, int(100 * (NT - na) / NT)
  } else {
    printf "    <timesms mark=\"%.3f\" sweep=\"%.3f\" compact=\"0.000\" total=\"%.3f\" />\n", d * 0.9, d * 0.1, d
    printf "    <nursery freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" />\n", NT - na, NT, int(100 * (NT - na) / NT)
  }
  printf "    <tenured freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" >\n", TT - ta, TT, int(100 * (TT - ta) / TT)
  printf "      <soa freebytes=\"%d\" totalbytes=\"%d\" percent=\"0\" />\n", TT - ta - LOA, TT - LOA
  printf "      <loa freebytes=\"%d\" totalbytes=\"%d\" percent=\"100\" />\n", LOA, LOA
  printf "    </tenured>\n"
  if (gctype == "scavenger") printf "    <time totalms=\"%.3f\" />\n", d
  printf "  </gc>\n"
  # after the allocation: 48 bytes fewer free in the nursery
  printf "  <nursery freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" />\n", NT - na - 48, NT, int(100 * (NT - na - 48) / NT)
  printf "  <tenured freebytes=\"%d\" totalbytes=\"%d\" percent=\"%d\" >\n", TT - ta, TT, int(100 * (TT - ta) / TT)
  printf "    <soa freebytes=\"%d\" totalbytes=\"%d\" percent=\"0\" />\n", TT - ta - LOA, TT - LOA
  printf "    <loa freebytes=\"%d\" totalbytes=\"%d\" percent=\"100\" />\n", LOA, LOA
  printf "  </tenured>\n"
  printf "  <time totalms=\"%.3f\" />\n", pause
  printf "</%s>\n\n", tag
  note(gctype == "scavenger" ? "young" : "full", sprintf("%.3f", pause), kb(NT + TT, (NT - na) + (TT - ta)))
}
function header(policy) {
  printf "<?xml version=\"1.0\" ?>\n\n"
  if (old) { printf "<verbosegc version=\"20110524_AA\">\n\n"; return }
  printf "<verbosegc xmlns=\"http://www.ibm.com/j9/verbosegc\" version=\"R28_Java8_GA_synthetic\">\n\n"
  printf "<initialized id=\"%d\" timestamp=\"%s\">\n", ++id, ts(0)
  printf "  <attribute name=\"gcPolicy\" value=\"-Xgcpolicy:%s\" />\n", policy
  printf "  <attribute name=\"maxHeapSize\" value=\"0x20000000\" />\n"
  printf "  <attribute name=\"initialHeapSize\" value=\"0x20000000\" />\n"
  printf "</initialized>\n\n"
}
BEGIN {
  seed = 42; NT = 134217728; TT = 402653184; LOA = 20131840; SURV = 8388608
  MB = 1048576
  if (scenario == "old-stable") {
    # 30 min: a nursery af every 15 s promoting 2 MB, a tenured af every 5 min back to a
    # live set of 120 MB, one System.gc() at 12:30.
    old = 1; header(""); tused = 120 * MB
    for (t = 15; t <= 1800; t += 15) {
      if (t % 300 == 0) { old_block(t, "af", "tenured", "global", NT, tused, NT / 2 + SURV, 120 * MB); tused = 120 * MB }
      else if (t == 750) { old_block(t, "sys", "", "global", NT / 2, tused, NT / 2 + SURV, 120 * MB); tused = 120 * MB }
      else { old_block(t, "af", "nursery", "scavenger", NT, tused, NT / 2 + SURV, tused + 2 * MB); tused += 2 * MB }
    }
  } else if (scenario == "new-stable") {
    # 30 min of gencon: a scavenge every 15 s promoting 1.5 MB; every 5 min a concurrent
    # global cycle (kickoff, start block, final block 20 s later) back to a 150 MB live
    # set; one System.gc() at 12:30.  One cycle-start is written over three lines.
    header("gencon"); tused = 150 * MB; last_excl = 0
    for (t = 15; t <= 1800; t += 15) {
      if (t == 600) split_next = 1
      scavenge(t, 1.5 * MB)
      if (t % 300 == 0) { conc_start(t + 5); global(t + 25, "concurrent", 150 * MB) }
      if (t == 750) global(t + 7, "sys", 150 * MB)
    }
  } else if (scenario == "new-exhaust") {
    # 12 min at most: the live set grows 25 MB a minute from 100 MB; scavenges every 10 s promote
    # what survives; concurrent cycles every 2 min reclaim down to the live set.  When the
    # tenure is nearly full, scavenges percolate into global collections and allocation
    # failures run global collections back to back at the ceiling; the JVM then stops.
    header("gencon"); tused = 100 * MB; last_excl = 0
    for (t = 10; t <= 720; t += 10) {
      live = 100 * MB + t / 60 * 25 * MB
      if (live > TT - 12 * MB) break
      scavenge(t, 3 * MB)
      if (t % 120 == 0) { conc_start(t + 3); global(t + 6, "concurrent", live) }
    }
    ceiling = TT - 10 * MB
    for (k = 0; k < 6; k++) { percolate(t + k * 1.2, ceiling - (6 - k) * 262144); }
    for (k = 0; k < 10; k++) { tused = TT - 4 * MB; global(t + 8 + k * 0.45, "af", ceiling + k * 131072) }
  }
  printf "</verbosegc>\n"
  printf "events %d young %d full %d other %d\n", events, count["young"], count["full"], count["other"] > "/dev/stderr"
  printf "pause_sum_ms %.3f\n", pause_sum > "/dev/stderr"
  printf "first_after_kb %d last_after_kb %d failed %d\n", first_after, last_after, failed > "/dev/stderr"
}
AWK
}

gen old-stable synthetic-old-stable.xml
gen new-stable synthetic-new-stable.xml
gen new-exhaust synthetic-new-exhaust.xml
for f in synthetic-old-stable synthetic-new-stable synthetic-new-exhaust; do
  echo "$f.xml: $(tr '\n' ' ' <"$OUT/$f.xml.expect")"
done
