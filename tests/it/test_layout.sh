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
# folder's own files are one more room).  common/ may have folders as well and uses no
# soak/ header at any depth.
#
# Calls go through the callee's own header: a header X.h declares only functions that
# X.c defines (X_int.h, an internal header, those of its own folder, and only its own
# folder includes it), and no .c file declares another file's function.  The rules and
# the few headers allowed otherwise, with the reason, are in tests/it/layout.py.
. "$(dirname "$0")/lib.sh"
cd "$TOP"
start=$SECONDS

check_eq "every include in soak/ and common/ runs down the layers, one way in every folder and between rooms; calls go through the callee's own header" \
  "$(python3 "$TOP/tests/it/layout.py" "$TOP")" ""

# The check sees what it should, on copies of the tree with one mistake each.
fresh() { rm -rf "$T/soak" "$T/common" && cp -r "$TOP/soak" "$TOP/common" "$T/"; }
# sees NAME TEXT: the check on the copy says TEXT.
sees() {
  local got
  got=$(python3 "$TOP/tests/it/layout.py" "$T")
  case "$got" in
    *"$2"*) ok "$1" ;;
    *) fail "$1" "got: $got" ;;
  esac
}

fresh
printf '#include "scenario/scenario.h"\n' >>"$T/soak/engine/vuheap.c"
sees "an engine file including scenario/ fails the check" "soak/engine/vuheap.c includes scenario/scenario.h (engine/ may not use scenario/)"

fresh
printf '#include "vuheap.h"\n' >>"$T/soak/engine/frame.c"
printf '#include "frame.h"\n' >>"$T/soak/engine/vuheap.c"
sees "two engine modules including each other fail the check" "soak/engine/: modules include each other: a circle: frame vuheap"

fresh
printf '#include "dlist.h"\n' >>"$T/soak/engine/frame.c"
printf '#include "vuheap.h"\n' >>"$T/soak/engine/dlist.c"
printf '#include "frame.h"\n' >>"$T/soak/engine/vuheap.c"
sees "three engine modules in a circle fail the check" "soak/engine/: modules include each other: a circle: dlist vuheap frame"

fresh
printf '#include "engine/engine_int.h"\n' >>"$T/soak/scenario/study.c"
sees "an internal header used outside its folder fails the check" "soak/scenario/study.c includes engine/engine_int.h (an internal header of another folder)"

fresh
printf 'int rec_open(void);\n' >>"$T/soak/store/results.h"
sees "a header declaring another file's function fails the check" "soak/store/results.h declares rec_open() of soak/store/recorder.c"

fresh
printf 'int res_collect(void);\n' >>"$T/soak/run/probe.c"
sees "a .c file declaring another file's function fails the check" "soak/run/probe.c declares res_collect(), not a static function of its own"

# Rooms: report/write/ using report/read/ is fine; the other way round as well is not.
fresh
mkdir -p "$T/soak/report/read" "$T/soak/report/write"
printf '#include "report/read/doc.h"\nint rpt_md_pages(void);\n' >"$T/soak/report/write/md.h"
printf '#include "md.h"\nint rpt_md_pages(void) { return 1; }\n' >"$T/soak/report/write/md.c"
printf 'int rpt_doc_lines(void);\n' >"$T/soak/report/read/doc.h"
printf '#include "doc.h"\n#include "store/results.h"\nint rpt_doc_lines(void) { return 0; }\n' >"$T/soak/report/read/doc.c"
check_eq "report/ rooms that include one way pass the check" "$(python3 "$TOP/tests/it/layout.py" "$T")" ""
printf '#include "report/write/md.h"\n' >>"$T/soak/report/read/doc.c"
sees "report/ rooms including each other fail the check" "report/'s rooms include each other: a circle: read write"
printf '#include "run/runner.h"\n' >"$T/soak/report/read/bad.c"
sees "a room's file is held to its top folder's layer" "soak/report/read/bad.c includes run/runner.h (report/ may not use run/)"

fresh
mkdir -p "$T/common/stats"
printf '#include "store/results.h"\n' >"$T/common/stats/x.c"
sees "a file in a folder of common/ including a soak/ header fails the check" "common/stats/x.c (common/) includes a soak/ header"

check_range "suite seconds" "$((SECONDS - start))" 0 60
done_testing
