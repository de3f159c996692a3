#!/usr/bin/env bash
# libFuzzer harnesses: every tests/fuzz/fuzz_<name>.c, built with clang
# -fsanitize=fuzzer,address,undefined into build/fuzz/fuzz_<name>.
#
#   tests/fuzz/run.sh build  [NAME...]  build only
#   tests/fuzz/run.sh fuzz   [NAME...]  fuzz each for $FUZZ_SECONDS (default 60); a crash,
#                                       leak or timeout is copied into the corpus and printed
#   tests/fuzz/run.sh replay [NAME...]  run each harness once over every corpus file;
#                                       prints `ok - fuzz NAME corpus (N files)` / `not ok`
#
# A harness declares, in comments, what it links besides itself:
#   // fuzz-sources: common/hdr.c common/hlog.c     (paths from the top of the tree)
#   // fuzz-pkgs: zlib                              (pkg-config packages; default: all of
#                                                    the Makefile's, which is always enough)
#   // fuzz-libs: -lhttp_parser                     (libraries without a pkg-config file)
# Its seed corpus is tests/fuzz/corpus/<name>/ (checked in, including every crash ever
# found, so `make check` replays them), its dictionary tests/fuzz/<name>.dict when present.
# Inputs that fuzzing finds go to build/fuzz/corpus/<name>/, which is not checked in.
# Environment: FUZZ_SECONDS, FUZZ_CC (default clang), FUZZ_ARGS (extra libFuzzer flags).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/fuzz
cc=${FUZZ_CC:-clang}
default_pkgs="libcurl libpcre2-8 inih libmicrohttpd sqlite3 zlib"
mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in build | fuzz | replay) ;; *)
  echo "usage: tests/fuzz/run.sh build|fuzz|replay [NAME...]" >&2
  exit 2
  ;;
esac

names=()
if [ $# -gt 0 ]; then
  names=("$@")
else
  for f in "$here"/fuzz_*.c; do
    [ -f "$f" ] || continue
    n=${f##*/fuzz_}
    names+=("${n%.c}")
  done
fi

# directive FILE KEY: the words after `// KEY:` (all such lines).
directive() { sed -n "s|^// $2:[[:space:]]*||p" "$1" | tr '\n' ' '; }

# build NAME: (re)builds build/fuzz/fuzz_NAME when any input is newer; output on failure.
build() {
  local name=$1 src=$here/fuzz_$1.c bin=$out/fuzz_$1 srcs pkgs inputs f stale=0
  if [ ! -f "$src" ]; then
    echo "no harness $src" >&2
    return 1
  fi
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "$cc not found (tools/deps.sh check installs clang)" >&2
    return 1
  fi
  srcs=$(directive "$src" fuzz-sources)
  pkgs=$(directive "$src" fuzz-pkgs)
  pkgs=${pkgs:-$default_pkgs}
  libs=$(directive "$src" fuzz-libs)
  inputs=("$src" "$0")
  for f in $srcs; do inputs+=("$top/$f"); done
  for f in "$top"/common/*.h "$top"/soak/*.h "$top"/soak/*/*.h; do [ -f "$f" ] && inputs+=("$f"); done
  if [ -x "$bin" ]; then
    for f in "${inputs[@]}"; do [ "$f" -nt "$bin" ] && stale=1; done
  else
    stale=1
  fi
  [ "$stale" -eq 0 ] && return 0
  mkdir -p "$out"
  # shellcheck disable=SC2046,SC2086 # word splitting of flag lists is intended
  (cd "$top" && "$cc" -g -O1 -std=gnu11 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -D_GNU_SOURCE -DSOAK_VERSION='"fuzz"' -Icommon -Isoak \
    $(pkg-config --cflags $pkgs) -o "$bin.tmp" "$src" $srcs \
    $(pkg-config --libs $pkgs) $libs -lm -pthread) >"$out/fuzz_$name.build.log" 2>&1 || {
    cat "$out/fuzz_$name.build.log" >&2
    return 1
  }
  mv "$bin.tmp" "$bin"
}

# Build every harness first, in parallel: clang with sanitizers is the slow part of a replay.
pids=()
for name in "${names[@]}"; do
  build "$name" &
  pids+=($!)
done
built=()
for i in "${!names[@]}"; do
  if wait "${pids[$i]}"; then built+=(1); else built+=(0); fi
done

failed=0
for i in "${!names[@]}"; do
  name=${names[$i]}
  corpus=$here/corpus/$name
  dict=$here/$name.dict
  if [ "${built[$i]}" -ne 1 ]; then
    echo "not ok - fuzz $name: build failed"
    failed=$((failed + 1))
    continue
  fi
  bin=$out/fuzz_$name
  case "$mode" in
  build)
    echo "ok - fuzz $name built ($bin)"
    ;;
  replay)
    files=()
    if [ -d "$corpus" ]; then
      while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$corpus" -type f -print0 | sort -z)
    fi
    log=$out/replay_$name.log
    if [ ${#files[@]} -eq 0 ]; then
      echo "not ok - fuzz $name corpus: no files in $corpus"
      failed=$((failed + 1))
    elif "$bin" -timeout=25 -rss_limit_mb=2560 "${files[@]}" >"$log" 2>&1; then
      echo "ok - fuzz $name corpus (${#files[@]} files)"
    else
      echo "not ok - fuzz $name corpus: a file fails; log $log"
      tail -n 40 "$log" | sed 's/^/# /'
      failed=$((failed + 1))
    fi
    ;;
  fuzz)
    work=$out/corpus/$name
    art=$out/artifacts/$name
    log=$out/fuzz_$name.log
    mkdir -p "$work" "$art" "$corpus"
    args=(-max_total_time="${FUZZ_SECONDS:-60}" -timeout=25 -rss_limit_mb=2560
      -print_final_stats=1 -artifact_prefix="$art/")
    [ -f "$dict" ] && args+=(-dict="$dict")
    # shellcheck disable=SC2206 # FUZZ_ARGS is a list of flags
    args+=(${FUZZ_ARGS:-})
    start=$SECONDS
    "$bin" "${args[@]}" "$work" "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    found=()
    for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
      [ -f "$f" ] || continue
      cp "$f" "$corpus/"
      found+=("$corpus/${f##*/}")
      rm -f "$f"
    done
    if [ "$rc" -eq 0 ] && [ ${#found[@]} -eq 0 ]; then
      echo "ok - fuzz $name (${execs:-?} execs in $((SECONDS - start)) s)"
    else
      echo "not ok - fuzz $name: status $rc, found ${found[*]:-nothing}; log $log"
      grep -m1 -A30 -E '^==[0-9]+==ERROR|runtime error|^SUMMARY' "$log" | sed 's/^/# /'
      for f in "${found[@]}"; do
        echo "# $f:"
        od -A d -c "$f" | head -n 20 | sed 's/^/#   /'
      done
      failed=$((failed + 1))
    fi
    ;;
  esac
done
[ "$failed" -eq 0 ]
