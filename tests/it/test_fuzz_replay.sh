#!/usr/bin/env bash
# Replays every fuzz harness over its checked-in corpus (seeds and past crashes), so a
# regression in a parser shows up in `make check` without fuzzing.  Builds the harnesses
# with clang on first use (in a clean clone: a minute or two of the lane's time).  How long
# the replay takes is printed, not checked: a slower machine is no regression.
. "$(dirname "$0")/lib.sh"

start=$SECONDS
"$TOP/tests/fuzz/run.sh" build >"$T/build.out" 2>&1
rc=$?
cat "$T/build.out"
check_eq "fuzz harnesses build" "$rc" 0
echo "# build: $((SECONDS - start)) s"
start=$SECONDS
"$TOP/tests/fuzz/run.sh" replay >"$T/replay.out" 2>&1
rc=$?
cat "$T/replay.out"
check_eq "fuzz replay exit status" "$rc" 0
echo "# replay: $((SECONDS - start)) s"
done_testing
