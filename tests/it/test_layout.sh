#!/usr/bin/env bash
# The layout shows the architecture, and the imports run one way only:
#   commands (soak/*.c) -> report/, run/, import/ -> store/ -> scenario/ -> engine/ -> common/
# (store/ is the results database as soak writes and reads it: the recorder and the
# reader; an imported result is a recorded run without an engine).  Checked on the
# #include lines of every source file, so an arrow that runs back up fails here, not in
# review.  Within a folder, modules include each other one way only (no circle of any
# length).
#
# A folder may hold folders of its own, at any depth (report/'s rooms, say: report/read/,
# report/judge/, report/write/): a file in one belongs to its top folder's layer, and the
# rooms of a folder include each other one way only too (a room is a subfolder; the
# folder's own files are one more room, but a .c file of its own that composes the rooms,
# report/report_load.c, counts alone: nothing includes it).  A folder with rooms is
# entered through its front (report/report.h): from outside, no room's header is
# included, and the front declares only what its rooms define for the rest of soak; the
# folder's internal header (report/report_int.h, the model) serves its rooms.  common/ may
# have folders as well and uses no soak/ header at any depth.
#
# Calls go through the callee's own header: a header X.h declares only functions that
# X.c defines (X_int.h, an internal header, those of its own folder, and only its own
# folder includes it), and no .c file declares another file's function.  The rules and
# the few headers allowed otherwise, with the reason, are in tests/it/layout.py.  Calls
# between rooms run one way as well: report/read/ and report/judge/ call no other room,
# report/write/ may call both (layout.py rule 5; what read/ must judge as it reads is
# handed to it by report/'s top).
. "$(dirname "$0")/lib.sh"
cd "$TOP"

check_eq "every include in soak/ and common/ runs down the layers, one way in every folder and between rooms; calls go through the callee's own header" \
  "$(python3 "$TOP/tests/it/layout.py" "$TOP")" ""

# The check sees what it should, on copies of the tree with one mistake each ($T/NAME),
# all checked by one run of layout.py at the end.
cases=()
copy() { cases+=("$1"); mkdir -p "$T/$1" && cp -r "$TOP/soak" "$TOP/common" "$T/$1/"; }
# expect NAME WHAT TEXT: the check of copy NAME says TEXT (empty: says nothing).
expect=()
expect() { expect+=("$1"$'\t'"$2"$'\t'"$3"); }

copy nohead
printf '#include "vuheap.h"\nint zz_one(void);\n' >"$T/nohead/soak/engine/zz.c"
printf '/* zz: one line only. */\n#include "zz.h"\n' >"$T/nohead/soak/engine/zy.c"
expect nohead "a C file without an opening comment fails the check" \
  "soak/engine/zz.c: opens with no comment (what it owns, what it keeps true)"
expect nohead "... and one whose comment is one line" \
  "soak/engine/zy.c: its opening comment is one line (say what it owns and what it keeps true)"

copy up
printf '#include "scenario/scenario.h"\n' >>"$T/up/soak/engine/vuheap.c"
expect up "an engine file including scenario/ fails the check" \
  "soak/engine/vuheap.c includes scenario/scenario.h (engine/ may not use scenario/)"

copy two
printf '#include "vuheap.h"\n' >>"$T/two/soak/engine/frame.c"
printf '#include "frame.h"\n' >>"$T/two/soak/engine/vuheap.c"
expect two "two engine modules including each other fail the check" \
  "soak/engine/: modules include each other: a circle: frame vuheap"

copy three
printf '#include "dlist.h"\n' >>"$T/three/soak/engine/frame.c"
printf '#include "vuheap.h"\n' >>"$T/three/soak/engine/dlist.c"
printf '#include "frame.h"\n' >>"$T/three/soak/engine/vuheap.c"
expect three "three engine modules in a circle fail the check" \
  "soak/engine/: modules include each other: a circle: dlist vuheap frame"

copy int
printf '#include "engine/engine_int.h"\n' >>"$T/int/soak/scenario/study.c"
expect int "an internal header used outside its folder fails the check" \
  "soak/scenario/study.c includes engine/engine_int.h (an internal header of another folder)"

copy hdr
printf 'int rec_open(void);\n' >>"$T/hdr/soak/store/results.h"
expect hdr "a header declaring another file's function fails the check" \
  "soak/store/results.h declares rec_open() of soak/store/recorder.c"

copy decl
printf 'int res_collect(void);\n' >>"$T/decl/soak/run/probe.c"
expect decl "a .c file declaring another file's function fails the check" \
  "soak/run/probe.c declares res_collect(), not a static function of its own"

# Rooms: report/write/ using report/read/ is fine; the other way round as well is not.
rooms() {
  copy "$1"
  mkdir -p "$T/$1/soak/report/read" "$T/$1/soak/report/write"
  printf '/* a scratch file of the test:\n * it owns nothing. */\n#include "report/read/doc.h"\nint rpt_md_pages(void);\n' >"$T/$1/soak/report/write/md.h"
  printf '/* a scratch file of the test:\n * it owns nothing. */\n#include "md.h"\nint rpt_md_pages(void) { return 1; }\n' >"$T/$1/soak/report/write/md.c"
  printf '/* a scratch file of the test:\n * it owns nothing. */\nint rpt_doc_lines(void);\n' >"$T/$1/soak/report/read/doc.h"
  printf '/* a scratch file of the test:\n * it owns nothing. */\n#include "doc.h"\n#include "store/results.h"\nint rpt_doc_lines(void) { return 0; }\n' \
    >"$T/$1/soak/report/read/doc.c"
}
rooms oneway
expect oneway "report/ rooms that include one way pass the check" ""
rooms bothways
printf '#include "report/write/md.h"\n' >>"$T/bothways/soak/report/read/doc.c"
expect bothways "report/ rooms including each other fail the check" \
  "report/'s rooms include each other: a circle: read write"
# report/'s own .c file may compose the rooms, but its headers, which the rooms include,
# may include no room's.
rooms compose
printf '/* a scratch file of the test:\n * it owns nothing. */\nstruct rpt_model { int n; };\n' >"$T/compose/soak/report/report_int.h"
printf '#include "report/report_int.h"\n' >>"$T/compose/soak/report/read/doc.c"
printf '/* a scratch file of the test:\n * it owns nothing. */\n#include "report/read/doc.h"\nint rpt_load(void) { return rpt_doc_lines(); }\n' \
  >"$T/compose/soak/report/compose.c"
expect compose "a .c file at report/'s top including a room's header passes the check" ""
rooms tophdr
printf '/* a scratch file of the test:\n * it owns nothing. */\n#include "report/read/doc.h"\n' >"$T/tophdr/soak/report/report_int.h"
printf '#include "report/report_int.h"\n' >>"$T/tophdr/soak/report/read/doc.c"
expect tophdr "a header at report/'s top including a room's header fails the check" \
  "report/'s rooms include each other: a circle: . read"
# Calls between rooms: write/ calling read/ is fine; read/ calling write/ is not.
rooms callsdown
printf 'int rpt_md_lines(void) { return rpt_doc_lines(); }\n' >>"$T/callsdown/soak/report/write/md.c"
printf 'int rpt_md_lines(void);\n' >>"$T/callsdown/soak/report/write/md.h"
expect callsdown "report/write/ calling report/read/ passes the check" ""
rooms backcall
printf 'int rpt_md_pages(void);\nint rpt_doc_pages(void) { return rpt_md_pages(); }\n' \
  >>"$T/backcall/soak/report/read/doc.c"
expect backcall "report/read/ calling report/write/ fails the check" \
  "soak/report/read/doc.c calls rpt_md_pages() of soak/report/write/md.c (report/read/ may not call report/write/)"
rooms roomlayer
printf '#include "run/runner.h"\n' >"$T/roomlayer/soak/report/read/bad.c"
expect roomlayer "a room's file is held to its top folder's layer" \
  "soak/report/read/bad.c includes run/runner.h (report/ may not use run/)"

# The front: report/report.h may declare what a room defines when a command calls it, and
# only then; from outside report/, only the front is included; report/'s internal header
# serves its rooms.
rooms front
printf 'int rpt_md_pages(void);\n' >>"$T/front/soak/report/report.h"
printf '#include "report/report.h"\nint cmd_pages(void) { return rpt_md_pages(); }\n' \
  >>"$T/front/soak/cmd_report.c"
printf '/* a scratch file of the test:\n * it owns nothing. */\nstruct rpt_model { int n; };\n' >"$T/front/soak/report/report_int.h"
printf '#include "report/report_int.h"\n' >>"$T/front/soak/report/read/doc.c"
expect front "a front declaring what a command calls, and a room using the folder's internal header, pass the check" ""
rooms unused
printf 'int rpt_doc_lines(void);\n' >>"$T/unused/soak/report/report.h"
expect unused "a front declaring what nothing outside calls fails the check" \
  "soak/report/report.h declares rpt_doc_lines(), which nothing outside soak/report/ calls"
rooms inside
printf '#include "report/write/md.h"\n' >>"$T/inside/soak/cmd_report.c"
expect inside "a command including a room's header fails the check" \
  "soak/cmd_report.c includes report/write/md.h (a room's header: outside report/, only its front)"

copy common
mkdir -p "$T/common/common/stats"
printf '#include "store/results.h"\n' >"$T/common/common/stats/x.c"
expect common "a file in a folder of common/ including a soak/ header fails the check" \
  "common/stats/x.c (common/) includes a soak/ header"

got=$(cd "$T" && python3 "$TOP/tests/it/layout.py" "${cases[@]}")
for e in "${expect[@]}"; do
  IFS=$'\t' read -r name what text <<<"$e"
  lines=$(grep "^$name: " <<<"$got" | sed "s/^$name: //")
  if [ -z "$text" ]; then
    check_eq "$what" "$lines" ""
  else
    case "$lines" in
      *"$text"*) ok "$what" ;;
      *) fail "$what" "got: $lines" ;;
    esac
  fi
done

# No check of how long something took on this machine (tests/it/timing_lint.py): a suite
# that times itself fails on the first slow machine.  The lint on the suites, then on a
# scratch suite with one check of each kind.
check_eq "no integration check compares an elapsed time with a bound" \
  "$(python3 "$TOP/tests/it/timing_lint.py" "$TOP")" ""
cat >"$T/test_timed.sh" <<'EOF'
start=$SECONDS
check_range "suite seconds" $((SECONDS - start)) 0 120
t0=$(date +%s%N)
run_something
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "took under a second" test "$ms" -lt 1000
now() { date +%s%3N; }
t1=$(now)
check_order "after the start" "$t1" "$(now)"
# not a speed: a CPU share, ticks over the span they were counted in
check_range "share" "$(awk -v t="$t1" 'BEGIN { print t }')" 0 100
ms=$(sql "SELECT 5")
check_eq "a database figure, not the clock" "$ms" 5
EOF
check_eq "the timing lint flags elapsed times in checks, not orders, waived figures or reused names" \
  "$(python3 "$TOP/tests/it/timing_lint.py" "$T" "$T/test_timed.sh" | cut -d: -f2 | tr '\n' ' ')" "2 6 "

# Nothing committed is what .gitignore calls an output (a perf.data, a sanitizer's log at the
# top: m.data came in with 5ffd034, san.out with 0e44f6b).  Only in a git checkout.
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
  check_eq "no committed file is one .gitignore calls an output" \
    "$(git -C "$TOP" ls-files --cached --ignored --exclude-standard | tr '\n' ' ')" ""
fi

done_testing
