#!/usr/bin/env bash
# The layout shows the architecture, and the imports run one way only:
#   commands (soak/*.c) -> report/, run/, import/ -> store/ -> scenario/ -> engine/ -> common/
# (store/ is the results database as soak writes and reads it: the recorder and the
# reader; an imported result is a recorded run without an engine).  Checked on the
# #include lines of every source file, so an arrow that runs back up fails here, not in
# review.  Within a folder, no two modules use each other.
. "$(dirname "$0")/lib.sh"
cd "$TOP"

# allowed DIR: the soak/ folders DIR may include from (besides itself and common/).
allowed() {
  case "$1" in
    engine) echo "" ;;
    scenario) echo "engine" ;;
    store) echo "scenario engine" ;;
    run) echo "store scenario engine" ;;
    report) echo "store scenario engine" ;;
    import) echo "store scenario engine" ;;
    top) echo "report run import store scenario engine" ;;
  esac
}

# violations ROOT: prints one line per include that runs the wrong way under ROOT.
violations() {
  local root=$1 f dir ok_dirs inc to
  for f in "$root"/soak/*.[ch] "$root"/soak/*/*.[ch]; do
    [ -f "$f" ] || continue
    dir=${f#"$root"/soak/}
    case "$dir" in */*) dir=${dir%%/*} ;; *) dir=top ;; esac
    ok_dirs=" $(allowed "$dir") "
    while IFS= read -r inc; do
      case "$inc" in
        */*)
          to=${inc%%/*}
          [ "$to" = "$dir" ] && continue
          case "$ok_dirs" in *" $to "*) ;; *) echo "${f#"$root"/} includes $inc ($dir/ may not use $to/)" ;; esac
          ;;
        cmd.h)
          [ "$dir" = top ] || echo "${f#"$root"/} includes cmd.h (only the commands may)"
          ;;
        *)
          # A bare name is common/ or the file's own folder.
          [ -f "$root/common/$inc" ] || [ -f "$(dirname "$f")/$inc" ] ||
            echo "${f#"$root"/} includes \"$inc\", neither in common/ nor in its own folder"
          ;;
      esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
  done
  for f in "$root"/common/*.[ch]; do
    [ -f "$f" ] || continue
    grep -q '#include "\(engine\|scenario\|store\|run\|report\|import\)/' "$f" &&
      echo "${f#"$root"/} (common/) includes a soak/ header"
  done
  # Within a folder: module A's code must not use B while B's code uses A.  A module is
  # a .c file; it uses the module of each header its .c includes (X.h and X_int.h are
  # module X).  Headers including a header for its types do not count: that is not code
  # calling code.
  local d m h k a b
  for d in "$root"/soak/*/; do
    declare -A uses=()
    for f in "$d"*.c; do
      [ -f "$f" ] || continue
      m=$(basename "$f" .c)
      while IFS= read -r inc; do
        h=${inc%.h}
        h=${h%_int}
        [ "$h" = "$m" ] || [ ! -f "$d$inc" ] && continue
        uses["$m>$h"]=1
      done < <(sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$f")
    done
    for k in "${!uses[@]}"; do
      a=${k%%>*} b=${k#*>}
      [ -n "${uses[$b>$a]:-}" ] && [[ "$a" < "$b" ]] &&
        echo "${d#"$root"/}: $a and $b include each other"
    done
    unset uses
  done
  return 0
}

v=$(violations "$TOP")
check_eq "every include in soak/ and common/ runs down the layers, no cycles in a folder" "$v" ""

# The check sees what it should: a copy of the tree with an arrow back up, and with a
# cycle inside a folder.
cp -r "$TOP/soak" "$TOP/common" "$T/"
printf '#include "scenario/scenario.h"\n' >>"$T/soak/engine/vuheap.c"
v=$(violations "$T")
case "$v" in
  *"soak/engine/vuheap.c includes scenario/scenario.h"*) ok "an engine file including scenario/ fails the check" ;;
  *) fail "an engine file including scenario/ fails the check" "got: $v" ;;
esac
cp "$TOP/soak/engine/vuheap.c" "$T/soak/engine/vuheap.c"
printf '#include "vuheap.h"\n' >>"$T/soak/engine/frame.c"
printf '#include "frame.h"\n' >>"$T/soak/engine/vuheap.c"
v=$(violations "$T")
case "$v" in
  *"frame and vuheap include each other"*) ok "two engine modules including each other fail the check" ;;
  *) fail "two engine modules including each other fail the check" "got: $v" ;;
esac

done_testing
