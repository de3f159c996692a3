#!/usr/bin/env bash
# bin/regserver against curl: the routes and their answers, field validation (form and
# JSON), body caps, keep-alive and Connection: close, the delay/fault knobs, the store
# options, signals and bad usage.  BIN=build/san/bin runs it against the sanitizer build.
. "$(dirname "$0")/lib.sh"

# req CURL-ARGS...: one request; sets CODE (HTTP status, or "fail") and BODY.
req() {
  CODE=$(curl -sS -m 10 -o "$T/body" -w '%{http_code}' "$@" 2>"$T/curl.err") || CODE=fail
  BODY=$(cat "$T/body" 2>/dev/null)
}
# form PATH BODY / json PATH BODY: a POST with that content type to the current server.
form() { req -H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$2" "$REG_URL$1"; }
json() { req -H 'Content-Type: application/json' --data-binary "$2" "$REG_URL$1"; }
# expect NAME CODE BODY: the last answer had this status and exactly this body.
expect() { check_eq "$1" "$CODE $BODY" "$2 $3"; }

dead() { ! alive "$1"; }
# stop_server PID [SIG]: signals a server this test started, waits (bounded); sets STOP_RC.
stop_server() {
  kill -"${2:-TERM}" "$1" 2>/dev/null
  wait_for 10 dead "$1" || kill -KILL "$1" 2>/dev/null
  wait "$1"
  STOP_RC=$?
  [ "$STOP_RC" -eq 0 ] || bad_exits+=("$1:$STOP_RC")
}
bad_exits=()
# start NAME ARGS...: start_regserver, plus REG_LOG (its stdout+stderr); a failure to start
# is a test failure and ends the file.
start() {
  local name=$1; shift
  if ! start_regserver "$@"; then
    fail "$name: server starts" "regserver $* did not print its port"
    exit 1
  fi
  REG_LOG=$(readlink "/proc/$REG_PID/fd/2")
}
# times_ms N CURL-ARGS...: N sequential requests; prints each time_total in ms, sorted.
times_ms() {
  local n=$1 i; shift
  for i in $(seq 1 "$n"); do
    curl -sS -m 10 -o /dev/null -w '%{time_total}\n' "$@" || echo 999
  done | awk '{ printf "%.3f\n", $1 * 1000 }' | sort -n
}
median() { awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# repeat S N: S repeated N times.
repeat() { local i out=; for ((i = 0; i < $2; i++)); do out+=$1; done; printf '%s' "$out"; }
# matches STRING REGEX
matches() { [[ $1 =~ $2 ]]; }

ok_pw=secret123
# --- routes and answers -------------------------------------------------------------------
start basic --threads 2

req -D "$T/h" "$REG_URL/health"
expect "GET /health is 200 ok" 200 ok
check "answers carry Content-Length" grep -qi '^Content-Length: 2' "$T/h"
req -I "$REG_URL/health"
check_eq "HEAD /health is 200" "$CODE" 200

form /register "username=alice&email=alice@example.test&password=$ok_pw"
check "form registration is 201 with an id" matches "$CODE $BODY" '^201 \{"id":[0-9]+\}$'
form /register "username=alice&email=other@example.test&password=$ok_pw"
expect "a taken username is 409" 409 '{"error":"username taken"}'
json /register "{\"username\":\"bob\",\"email\":\"bob@example.test\",\"password\":\"$ok_pw\"}"
check "JSON registration is 201 with an id" matches "$CODE $BODY" '^201 \{"id":[0-9]+\}$'
json /register " { \"password\" : \"$ok_pw\", \"username\" : \"bob\", \"email\" : \"b@x.io\" } "
expect "a taken username is 409 (JSON)" 409 '{"error":"username taken"}'
json /register "{\"username\":\"c\\u0061rol\",\"email\":\"c@x.io\",\"password\":\"$ok_pw\",\"age\":42,\"vip\":true}"
check_eq "JSON escapes are decoded, other scalar keys ignored" "$CODE" 201
form /register "username=carol&email=c%40x.io&password=$ok_pw"
expect "... so the same name by form is taken" 409 '{"error":"username taken"}'
form /register "username=d.a-v_e&email=d%40x.io&password=pass+word&extra=1"
check_eq "form escapes, '+' and other keys are fine" "$CODE" 201

# Boundaries of the rules: all valid.
form /register "username=abc&email=a@b.c&password=12345678"
check_eq "username of 3, email a@b.c, password of 8 is valid" "$CODE" 201
form /register "username=$(repeat u 64)&email=a@b.c&password=$(repeat p 128)"
check_eq "username of 64 and password of 128 are valid" "$CODE" 201
json /register "{\"username\":\"utf8pw\",\"email\":\"u@x.io\",\"password\":\"$(repeat é 128)\"}"
check_eq "password length counts characters, not bytes (128 é = 256 bytes)" "$CODE" 201

# Every bad or missing field is named, by form and by JSON.
bad_cases=(
  "username|email=a@b.c&password=$ok_pw|{\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}"
  "username|username=ab&email=a@b.c&password=$ok_pw|{\"username\":\"ab\",\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}"
  "username|username=$(repeat x 65)&email=a@b.c&password=$ok_pw|{\"username\":\"$(repeat x 65)\",\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}"
  "username|username=bad+name&email=a@b.c&password=$ok_pw|{\"username\":\"bad/name\",\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}"
  "username|username=twice&username=twice2&email=a@b.c&password=$ok_pw|{\"username\":5,\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}"
  "email|username=nomail&password=$ok_pw|{\"username\":\"nomail\",\"password\":\"$ok_pw\"}"
  "email|username=e0mail&email=&password=$ok_pw|{\"username\":\"e0mail\",\"email\":\"\",\"password\":\"$ok_pw\"}"
  "email|username=e1mail&email=nope&password=$ok_pw|{\"username\":\"e1mail\",\"email\":\"a@b\",\"password\":\"$ok_pw\"}"
  "email|username=e2mail&email=a%40%40b.c&password=$ok_pw|{\"username\":\"e2mail\",\"email\":\"@b.c\",\"password\":\"$ok_pw\"}"
  "email|username=e3mail&email=a@b.&password=$ok_pw|{\"username\":\"e3mail\",\"email\":\"a b@c.d\",\"password\":\"$ok_pw\"}"
  "password|username=nopass&email=a@b.c|{\"username\":\"nopass\",\"email\":\"a@b.c\"}"
  "password|username=shortpw&email=a@b.c&password=1234567|{\"username\":\"shortpw\",\"email\":\"a@b.c\",\"password\":\"1234567\"}"
  "password|username=longpw&email=a@b.c&password=$(repeat p 129)|{\"username\":\"longpw\",\"email\":\"a@b.c\",\"password\":null}"
)
for c in "${bad_cases[@]}"; do
  IFS='|' read -r field fbody jbody <<<"$c"
  form /register "$fbody"
  expect "form: bad $field named (${fbody:0:40})" 400 "{\"error\":\"bad field: $field\"}"
  json /register "$jbody"
  expect "JSON: bad $field named (${jbody:0:40})" 400 "{\"error\":\"bad field: $field\"}"
done
for body in '' '[]' '{"username":"x"' '{"username":"x",}' '{"a":{"b":1}}' '{"a":1} x' \
  "{\"username\":\"bad\\q\"}" '{"username":"\ud800"}'; do
  json /register "$body"
  expect "malformed JSON '$body' is 400" 400 '{"error":"malformed body"}'
done
form /register "username=bad%zz&email=a@b.c&password=$ok_pw"
expect "a bad percent escape is 400" 400 '{"error":"malformed body"}'

req -H 'Content-Type: text/plain' --data-binary "username=x" "$REG_URL/register"
check_eq "text/plain is 415" "$CODE" 415
req -H 'Content-Type:' --data-binary "username=x" "$REG_URL/register"
check_eq "no content type is 415" "$CODE" 415
req -H 'Content-Type: Application/JSON; charset=utf-8' --data-binary \
  "{\"username\":\"ctparams\",\"email\":\"a@b.c\",\"password\":\"$ok_pw\"}" "$REG_URL/register"
check_eq "content type parameters and case are fine" "$CODE" 201

req -D "$T/h" "$REG_URL/register"
expect "GET /register is 405" 405 '{"error":"method not allowed"}'
check "405 says Allow: POST" grep -qi '^Allow: POST' "$T/h"
req -X DELETE "$REG_URL/health"
check_eq "DELETE /health is 405" "$CODE" 405
req "$REG_URL/nope"
expect "an unknown path is 404" 404 '{"error":"not found"}'
req -X POST -d x "$REG_URL/register/"
check_eq "a near miss is 404" "$CODE" 404

# Body cap: 64 KiB is accepted, one byte more is 413 (declared or chunked).
base="username=capuser&email=a@b.c&password=$ok_pw&pad="
printf '%s%s' "$base" "$(repeat a $((65536 - ${#base})))" >"$T/cap"
printf '%s%s' "$base" "$(repeat a $((65537 - ${#base})))" >"$T/over"
form /register "@$T/cap"
check_eq "a body of exactly 64 KiB is accepted" "$CODE $(stat -c %s "$T/cap")" "201 65536"
form /register "@$T/over"
expect "a body over 64 KiB is 413" 413 '{"error":"body too large"}'
req -H 'Transfer-Encoding: chunked' -H 'Content-Type: application/x-www-form-urlencoded' \
  --data-binary "@$T/over" "$REG_URL/register"
expect "a chunked body over 64 KiB is 413" 413 '{"error":"body too large"}'

# Connections: keep-alive holds; Connection: close is honoured.
conns=$(curl -sS -m 10 -o /dev/null -o /dev/null -w '%{num_connects} ' "$REG_URL/health" "$REG_URL/health")
check_eq "keep-alive: the second request reuses the connection" "$conns" "1 0 "
curl -sS -m 10 -o /dev/null -D "$T/h" -H 'Connection: close' "$REG_URL/health"
check "Connection: close from the client is answered with Connection: close" \
  grep -qi '^Connection: close' "$T/h"
conns=$(curl -sS -m 10 -o /dev/null -o /dev/null -H 'Connection: close' -w '%{num_connects} ' \
  "$REG_URL/health" "$REG_URL/health")
check_eq "... and the server closes it (a new connection per request)" "$conns" "1 1 "

# Another server may not take the same port: exit 3, with a message.
timeout 10 "$BIN/regserver" --port "$REG_PORT" >"$T/busy.log" 2>&1
check_eq "a busy port is exit 3" "$?" 3
check "... with a message naming it" grep -q "cannot listen on 127.0.0.1:$REG_PORT" "$T/busy.log"

stop_server "$REG_PID" TERM
check_eq "SIGTERM: exit 0" "$STOP_RC" 0
check "exit prints the counts" grep -qE '^regserver: requests=[0-9]+ 201=9 409=3 400=[0-9]+ 503=0 ' "$REG_LOG"

# --- delays -------------------------------------------------------------------------------
# What a delay adds is measured against a server with 10 ms, its requests interleaved with
# the delayed one's: curl's own time, the machine's speed and a timer woken late (a build
# beside, another suite at once) weigh on both alike.
start plain --latency 10 --threads 2
plain_url=$REG_URL plain_pid=$REG_PID
# interleave N FILE CURL-ARGS...: N requests to $REG_URL and N to the plain server,
# alternating, each to PATH with ARGS; lines "URL CODE SECONDS" in FILE.
interleave() {
  local n=$1 file=$2 path=$3 i u
  shift 3
  for i in $(seq 1 "$n"); do
    for u in "$plain_url" "$REG_URL"; do
      curl -sS -m 10 -o /dev/null -w "$u %{http_code} %{time_total}\n" "${@//@N@/$i}" "$u$path" ||
        echo "$u 000 9.999"
    done
  done >"$file"
}
# ms_of FILE URL: the times of URL's requests in FILE, in ms, sorted
ms_of() { awk -v u="$2" '$1 == u { printf "%.3f\n", $3 * 1000 }' "$1" | sort -n; }
# added FILE: the median ms of $REG_URL's requests less the plain server's
added() { ms_of "$1" "$REG_URL" | median | awk -v b="$(ms_of "$1" "$plain_url" | median)" '{ printf "%.3f", $1 - b }'; }

start latency --latency 20 --threads 2
interleave 20 "$T/lat" /register -d "username=lat@N@&email=a@b.c&password=$ok_pw"
check_eq "--latency 20: all 20 registrations are 201" "$(grep -c "^$REG_URL 201 " "$T/lat")" 20
check_range "--latency 20: median ms added to --latency 10's, interleaved" "$(added "$T/lat")" 8 12
check_range "--latency 20: fastest ms (none under 20)" "$(ms_of "$T/lat" "$REG_URL" | head -1)" 20 1000
stop_server "$REG_PID"
# 40 at once on 2 threads, from one `curl --parallel` so that all start together, each held
# back 500 ms: had a delay held a thread, no more than 2 could wait at once.
counted() { sed -n "s/^regserver: requests=.* $1=\([0-9]*\).*/\1/p" "$REG_LOG" | tail -1; }
start parallel --latency 500 --threads 2
par=(-Z --parallel-max 40 --parallel-immediate)
for n in $(seq 1 40); do
  [ "$n" -gt 1 ] && par+=(--next)
  par+=(-sS -m 10 -o /dev/null -w '%{http_code} %{time_total}\n'
    -d "username=par${n}x&email=a@b.c&password=$ok_pw" "$REG_URL/register")
done
curl "${par[@]}" >"$T/par" 2>&1
stop_server "$REG_PID"
check_eq "40 parallel registrations are all 201" "$(grep -c '^201 ' "$T/par")" 40
check "40 parallel: the server held more answers at once than it has threads ($(counted delayed_peak))" \
  test "$(counted delayed_peak)" -gt 2
check_range "40 parallel: none answered before its 500 ms (fastest ms)" \
  "$(awk '/^201 / { print $2 * 1000 }' "$T/par" | sort -n | head -1)" 500 10000

# Jitter against the plain server too: both wait on a timer, so a machine that wakes timers
# late delays both alike.
start jitter --latency 10 --jitter 10 --threads 2 --seed 9
interleave 30 "$T/jit" /health
ms=$(ms_of "$T/jit" "$REG_URL")
# Uniform 0..10 ms on top of 10: the median of 30 draws lands near 5 ms above the plain
# server's (3.2 to 5.8 ms for seed 9's draws, whichever 30 in a row of its first 110 a
# server gives); the spread of 30 draws is several ms.
check_range "--latency 10 --jitter 10: fastest ms" "$(head -1 <<<"$ms")" 10 1000
check_range "--latency 10 --jitter 10: median ms added to --latency 10's, interleaved" "$(added "$T/jit")" 2 8
check_range "--latency 10 --jitter 10: spread ms" \
  "$(awk -v a="$(head -1 <<<"$ms")" -v b="$(tail -1 <<<"$ms")" 'BEGIN { print b - a }')" 2 1000
stop_server "$REG_PID"
stop_server "$plain_pid"

start stall --stall-rate 1 --stall 300
ms=$(times_ms 2 -d "username=stall&email=a@b.c&password=$ok_pw" "$REG_URL/register")
check_range "--stall-rate 1 --stall 300: answers after (ms)" "$(head -1 <<<"$ms")" 300 10000
stop_server "$REG_PID"

# --- injected errors ----------------------------------------------------------------------
start errors --error-rate 1
form /register "username=never&email=a@b.c&password=$ok_pw"
check_eq "--error-rate 1: registration is 503" "$CODE" 503
req "$REG_URL/health"
check_eq "--error-rate 1: health is 503 too" "$CODE" 503
stop_server "$REG_PID" INT
check_eq "SIGINT: exit 0" "$STOP_RC" 0
check "--error-rate 1: the store was not touched" grep -qE '503=2 .* users=0 ' "$REG_LOG"

start half --error-rate 0.5
n503=$(curl -sS -m 30 -w '%{http_code}\n' -o /dev/null "$REG_URL/health?n=[1-200]" | grep -c '^503$')
check_range "--error-rate 0.5: 503s in 200 requests (%)" "$(( n503 * 100 / 200 ))" 35 65
stop_server "$REG_PID"

# --- the store ----------------------------------------------------------------------------
db=$T/users.db
start file --db "$db"
form /register "username=persist&email=p@x.io&password=$ok_pw"
check_eq "--db FILE: registration is 201" "$CODE" 201
check_eq "--db FILE: the file is in WAL mode" "$(sql "$db" 'PRAGMA journal_mode')" wal
stop_server "$REG_PID"
check_eq "--db FILE: the user is in the file" "$(sql "$db" 'SELECT username FROM users')" persist
start file2 --db "$db"
form /register "username=persist&email=p@x.io&password=$ok_pw"
check_eq "--db FILE: a restarted server still knows the user (409)" "$CODE" 409
stop_server "$REG_PID"

start cap --max-users 3
for u in m1 m2 m3 m4; do form /register "username=${u}user&email=a@b.c&password=$ok_pw"; done
check_eq "--max-users 3: the 4th registration is 201 after starting over" "$CODE" 201
form /register "username=m1user&email=a@b.c&password=$ok_pw"
check_eq "--max-users 3: ... and the first name is free again" "$CODE" 201
stop_server "$REG_PID"
check "--max-users 3: one restart, two users at exit" grep -q 'users=2 restarts=1' "$REG_LOG"

# --- --capacity: a queue that saturates at capacity / latency ------------------------------
# Counted, not timed: 12 requests sent together (one curl) reach the server within its
# 500 ms latency, so with 4 slots 8 wait for one; the slowest waits for two waves ahead of it.
start capacity --latency 500 --capacity 4 --threads 2
burst() { # N: N requests at once from one curl; prints the slowest's ms
  local args=() i
  for i in $(seq 1 "$1"); do args+=(-o /dev/null "$REG_URL/health"); done
  curl -s -m 20 --parallel --parallel-immediate --parallel-max "$1" -w '%{time_total}\n' \
    "${args[@]}" 2>/dev/null | sort -n | tail -n 1 | awk '{ printf "%d", $1 * 1000 }'
}
slowest=$(burst 12)
one=$(times_ms 1 "$REG_URL/health")
stop_server "$REG_PID"
check_eq "--capacity 4: of 12 requests at once, 8 waited for a slot" "$(counted queued)" 8
check_range "--capacity 4 --latency 500: the slowest of 12 needed three waves (ms)" "$slowest" 1490 20000
check_range "--capacity 4: a lone request afterwards takes one latency, not more (ms)" "$one" 490 20000

# --capacity-after D:N: the same queue, narrower from D on (a server that degrades on cue):
# before D, 12 slots take 12 requests at once; from D on, 3 slots make 9 of 12 wait.
start capacity-after --latency 500 --capacity 12 --capacity-after 3s:3 --threads 2
before=$(burst 12)
sleep 3.2
after=$(burst 12)
stop_server "$REG_PID"
check_eq "--capacity-after: 12 slots before D, 3 after: 9 requests of the second 12 waited" "$(counted queued)" 9
check_range "--capacity-after: before D, one wave (slowest ms)" "$before" 490 20000
check_range "--capacity-after: from D on, four waves (slowest ms)" "$after" 1990 20000

# --- usage --------------------------------------------------------------------------------
"$BIN/regserver" --help >"$T/help" 2>&1
check_eq "--help: exit 0" "$?" 0
check "--help: a usage line" grep -q '^usage: regserver' "$T/help"
for bad in "--latency abc" "--latency -5" "--error-rate 2" "--stall-rate x" "--threads 0" \
  "--port 70000" "--bogus" "--port" "extra" "--db=" "--capacity -1" \
  "--capacity-after 5s" "--capacity-after 0s:3" "--capacity-after 5s:0" "--capacity-after x:3"; do
  # shellcheck disable=SC2086 # word splitting wanted
  timeout 10 "$BIN/regserver" $bad >"$T/bad" 2>&1
  rc=$?
  check_eq "bad usage '$bad': exit 2" "$rc" 2
  check "bad usage '$bad': a message and a hint" grep -q "try 'regserver --help'" "$T/bad"
done

# Every server above stopped cleanly, and (in a sanitizer build) without a report.
check_eq "every server exited 0 on its signal" "${bad_exits[*]:-}" ""
reports=$(grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: ' "$T"/regserver.*.log 2>/dev/null)
check_eq "no sanitizer report in any server log" "$reports" ""

done_testing
