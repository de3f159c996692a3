# Shared helpers for the integration tests (source it).  Each test prints TAP-style
# `ok - name` / `not ok - name: detail` lines; tests/run.sh counts them.
# Processes a test starts with `spawn` are remembered by pid and killed (only those) on exit.
# Every wait is bounded.
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BIN=${BIN:-$TOP/bin}
export PATH="$BIN:$PATH"
T=$(mktemp -d "${TMPDIR:-/tmp}/soak-it.XXXXXX")
_pids=()
_failures=0

ok() { echo "ok - $1"; }
fail() { echo "not ok - $1${2:+: $2}"; _failures=$((_failures + 1)); }
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
check() { local n=$1; shift; if "$@"; then ok "$n"; else fail "$n" "failed: $*"; fi; }
# check_match NAME REGEX TEXT: ok when TEXT holds a match of the (basic) regex; when it
# does not, the failure shows the text, so a log says what was said instead.
check_match() { if grep -q -- "$2" <<<"$3"; then ok "$1"; else fail "$1" "got '$3', want a match of '$2'"; fi; }
# check_eq NAME GOT WANT
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# check_range NAME VALUE LO HI (numbers, inclusive; floats allowed)
check_range() {
  if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v + 0 >= lo + 0 && v + 0 <= hi + 0) }'; then
    ok "$1 ($2 in $3..$4)"
  else
    fail "$1" "$2 is not within $3..$4"
  fi
}

# check_order NAME T1 T2 [T3...]: ok when T1 <= T2 <= ... (moments on one clock, epoch ms
# or a database's t_ms): that things happened in this order.  An order holds on a slow
# machine as on a fast one; an elapsed time against a bound does not, and
# tests/it/timing_lint.py refuses it everywhere but here.
check_order() {
  local n=$1 prev="" t
  shift
  for t in "$@"; do
    if [ -n "$prev" ] && ! awk -v a="$prev" -v b="$t" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
      fail "$n" "$* are not in order ($prev > $t)"
      return
    fi
    prev=$t
  done
  ok "$n"
}

# A TCP port nobody listens on now (the kernel picks it), and none this test was given
# before: the kernel may hand a port it gave a moment ago out again (5 times in 3,000 draws
# of 7), and two servers of one nginx on one port share it silently (test_tls once sent its
# client-certificate case to the server that asks for none).  $T/.ports keeps what was given,
# across the subshells of $(free_port).
free_port() {
  local p
  for _ in 1 2 3 4 5 6 7 8; do
    p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    grep -qx "$p" "$T/.ports" 2>/dev/null && continue
    echo "$p" >>"$T/.ports"
    echo "$p"
    return 0
  done
  return 1
}

# spawn LOG CMD...: starts CMD in the background with output to LOG; sets SPAWNED_PID.
spawn() {
  local log=$1; shift
  "$@" >"$log" 2>&1 &
  SPAWNED_PID=$!
  _pids+=("$SPAWNED_PID")
}

# alive PID: running and not a zombie (PID 1 here reaps late).
alive() {
  [ -r "/proc/$1/status" ] || return 1
  ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# stop_pid PID [SIG]: signals a pid this test started and waits (bounded) for it to end.
stop_pid() {
  local pid=$1 sig=${2:-TERM} i
  kill -"$sig" "$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds; fails after SECONDS.
wait_for() {
  local limit=$1 i; shift
  for i in $(seq 1 $((limit * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}

# wait_line LOG REGEX SECONDS: waits for a line in LOG; prints the first match.
wait_line() {
  local log=$1 re=$2 limit=${3:-10}
  wait_for "$limit" grep -qE "$re" "$log" || return 1
  grep -m1 -E "$re" "$log"
}

# start_regserver [ARGS...]: starts bin/regserver on a free port; sets REG_PID, REG_PORT, REG_URL.
start_regserver() {
  local log=$T/regserver.$RANDOM.log line
  spawn "$log" "$BIN/regserver" --port 0 "$@"
  REG_PID=$SPAWNED_PID
  line=$(wait_line "$log" 'listening on 127\.0\.0\.1:[0-9]+' 10) || { cat "$log" >&2; return 1; }
  REG_PORT=${line##*:}
  REG_URL=http://127.0.0.1:$REG_PORT
}

sql() { sqlite3 -batch -noheader "$@"; }

# new_db FILE: an empty database with soak's schema: every migration, as db_open applies them.
new_db() {
  local f n=0
  {
    for f in "$TOP"/sql/[0-9]*.sql; do cat "$f"; n=$((n + 1)); done
    echo "PRAGMA user_version = $n;"
  } | sqlite3 "$1"
}

# build_report_fixture OUT: compiles tests/it/report_fixture.c to OUT; a failure is a test
# failure (and the caller should stop).
build_report_fixture() {
  cc -O1 -std=gnu11 -D_GNU_SOURCE -I"$TOP/common" -o "$1" "$TOP/tests/it/report_fixture.c" \
    "$TOP/common/hdr.c" "$TOP/common/gcparse.c" "$TOP/common/gcparse_legacy.c" \
    "$TOP/common/gcparse_unified.c" "$TOP/common/gcparse_j9.c" \
    $(pkg-config --cflags --libs libpcre2-8 zlib) -lm \
    >"$T/cc.log" 2>&1 && return 0
  fail "build the fixture builder" "$(head -5 "$T/cc.log")"
  return 1
}

# check_golden GOLD_DIR OUT_DIR FILE...: each OUT_DIR/FILE equals GOLD_DIR/FILE (with
# UPDATE_GOLDEN set, GOLD_DIR/FILE is rewritten instead, on purpose).
check_golden() {
  local gold=$1 out=$2 f
  shift 2
  for f in "$@"; do
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
      mkdir -p "$gold" && cp "$out/$f" "$gold/$f"
      ok "golden $f updated"
    elif cmp -s "$gold/$f" "$out/$f"; then
      ok "golden $f"
    else
      fail "golden $f" "differs: diff $gold/$f $out/$f"
      diff "$gold/$f" "$out/$f" | head -20 | sed 's/^/# /'
    fi
  done
}

_cleanup() {
  local p
  for p in "${_pids[@]}"; do alive "$p" && stop_pid "$p" KILL; done
  if [ "$_failures" -eq 0 ] && [ -z "${KEEP_LOGS:-}" ]; then
    rm -rf "$T"
  else
    echo "# logs kept in $T"
  fi
}
trap _cleanup EXIT

# per_client FUNC: runs `FUNC curl` and `FUNC lean` at the same time, each in a subshell
# of its own (its own processes, killed when it ends; FUNC gives each its own database and
# servers), then prints their lines in that order; a failure in either is the file's.
# Halves the time of the cases every HTTP test runs once per client.
per_client() {
  local fn=$1 c pids=() rcs=()
  for c in curl lean; do
    (
      _pids=()
      _failures=0
      trap 'for p in "${_pids[@]}"; do alive "$p" && stop_pid "$p" KILL; done' EXIT
      "$fn" "$c"
      [ "$_failures" -eq 0 ]
    ) >"$T/per_client.$fn.$c.out" 2>&1 &
    pids+=($!)
  done
  for i in 0 1; do
    wait "${pids[$i]}"
    rcs+=($?)
  done
  for i in 0 1; do
    c=$([ $i -eq 0 ] && echo curl || echo lean)
    cat "$T/per_client.$fn.$c.out"
    [ "${rcs[$i]}" -eq 0 ] || _failures=$((_failures + 1))
  done
}

# done_testing: exit status of the test file.
done_testing() { [ "$_failures" -eq 0 ]; }
