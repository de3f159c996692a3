#!/usr/bin/env bash
# Integration test of the real system under test: the registration servlet on a private
# PostgreSQL, in Tomcat 10, Tomcat 9 and Jetty 9 (one at a time), all on 127.0.0.1.
#
#   tests/it/test_servlet.sh [--only tomcat10|tomcat9|jetty9]...
#
# Prints TAP lines "ok - name" / "not ok - name: detail" per check; exits 1 when a check failed, 2 on
# bad usage. Builds with targets/servlet/build.sh into $SOAK_JAVA_BUILD (default
# build/java). Logs and data go to a temporary directory, printed and kept on failure.
# Stops everything it started (its own pid files only) on any exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${SOAK_JAVA_BUILD:-$ROOT/build/java}
PG=$ROOT/targets/db/postgres.sh
CT=$ROOT/targets/containers
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --only) [ $# -ge 2 ] || { echo "usage: $0 [--only NAME]..." >&2; exit 2; }
                TARGETS+=("$2"); shift 2 ;;
        *) echo "usage: $0 [--only tomcat10|tomcat9|jetty9]..." >&2; exit 2 ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(tomcat10 tomcat9 jetty9)
for t in "${TARGETS[@]}"; do
    case "$t" in tomcat10|tomcat9|jetty9) ;; *) echo "unknown target: $t" >&2; exit 2 ;; esac
done
for tool in curl java; do
    command -v "$tool" >/dev/null 2>&1 || { echo "not ok - setup: $tool not found"; exit 1; }
done

TMP=$(mktemp -d /tmp/soak-it-servlet.XXXXXX)
chmod 0755 "$TMP"  # the postgres user must reach TMP/pg
FAILS=0
CREATED=0
STARTED=()     # "NAME DIR" of containers we started
PG_STARTED=0
T0=$SECONDS

pass() { printf 'ok - %s\n' "$1"; }
fail() { printf 'not ok - %s: %s\n' "$1" "$2"; FAILS=$((FAILS + 1)); }

cleanup() {
    local rc=$? entry name dir
    trap - EXIT INT TERM
    for entry in ${STARTED[@]+"${STARTED[@]}"}; do
        name=${entry%% *} dir=${entry#* }
        "$CT/$name" stop "$dir" >/dev/null 2>&1 || printf 'warning: stopping %s failed\n' "$name" >&2
    done
    if [ "$PG_STARTED" -eq 1 ]; then
        "$PG" stop "$TMP/pg" >/dev/null 2>&1 || printf 'warning: stopping postgres failed\n' >&2
    fi
    if [ "$FAILS" -gt 0 ] || [ "$rc" -ne 0 ]; then
        printf 'logs kept in %s\n' "$TMP" >&2
        [ "$rc" -ne 0 ] || rc=1
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# kv KEY FILE: value of a key=value line
kv() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# req METHOD URL [CONTENT_TYPE BODY]: sets CODE, RBODY, RTYPE
req() {
    local method=$1 url=$2 out
    local -a args=(-s -o "$TMP/body" -w '%{http_code} %{content_type}' --max-time 15 -X "$method")
    if [ $# -ge 4 ]; then args+=(-H "Content-Type: $3" --data-binary "$4"); fi
    out=$(curl "${args[@]}" "$url" 2>"$TMP/curl.err") || out="000 -"
    CODE=${out%% *}
    RTYPE=${out#* }
    RBODY=$(cat "$TMP/body" 2>/dev/null || true)
}

# expect NAME CODE BODY_REGEX: check the last answer
expect() {
    local name=$1 code=$2 re=$3
    if [ "$CODE" != "$code" ]; then
        fail "$name" "status $CODE, expected $code (body: ${RBODY:0:200})"
    elif ! [[ $RBODY =~ $re ]]; then
        fail "$name" "body '${RBODY:0:200}' does not match $re"
    else
        pass "$name"
        if [ "$code" = 201 ]; then CREATED=$((CREATED + 1)); fi
    fi
}

check_count() { # NAME
    local n
    if n=$("$PG" count "$TMP/pg" 2>"$TMP/count.err"); then
        if [ "$n" = "$CREATED" ]; then pass "$1"; else fail "$1" "users table has $n rows, $CREATED answers were 201"; fi
    else
        fail "$1" "postgres.sh count failed: $(cat "$TMP/count.err")"
    fi
}

# ---------------------------------------------------------------- build and database

if "$ROOT/targets/servlet/build.sh" "$BUILD" >"$TMP/build.log" 2>&1; then
    pass build
else
    fail build "targets/servlet/build.sh failed: $(tail -n 5 "$TMP/build.log")"
    exit 1
fi
if [ -d "$BUILD/webapp-javax/WEB-INF/classes/soak" ] && [ -d "$BUILD/webapp-jakarta/WEB-INF/lib" ] \
        && [ -f "$BUILD/launcher-tomcat9/soak/SoakTomcat.class" ] \
        && [ -f "$BUILD/launcher-tomcat10/soak/SoakTomcat.class" ]; then
    pass build-outputs
else
    fail build-outputs "missing files under $BUILD"
fi
if grep -q 'jakarta/servlet' "$BUILD/webapp-jakarta/WEB-INF/classes/soak/RegisterServlet.class" \
        && ! grep -q 'javax/servlet' "$BUILD/webapp-jakarta/WEB-INF/classes/soak/RegisterServlet.class"; then
    pass build-jakarta-imports
else
    fail build-jakarta-imports "the jakarta class still refers to javax.servlet"
fi

PG_STARTED=1
if "$PG" start "$TMP/pg" >"$TMP/pg.env" 2>"$TMP/pg.err"; then
    pass postgres-start
else
    fail postgres-start "$(tail -n 5 "$TMP/pg.err")"
    exit 1
fi
JDBC=$(kv jdbc "$TMP/pg.env")
if "$PG" start "$TMP/pg" 2>/dev/null | cmp -s - "$TMP/pg.env"; then
    pass postgres-start-idempotent
else
    fail postgres-start-idempotent "a second start printed different lines"
fi
if "$PG" status "$TMP/pg" >/dev/null 2>&1; then pass postgres-status; else fail postgres-status "exit $?"; fi
check_count postgres-empty

# ---------------------------------------------------------------- each container

PREFIX="it$$r$RANDOM"
for name in "${TARGETS[@]}"; do
    dir=$TMP/$name
    if ! "$CT/$name" start "$dir" --jdbc "$JDBC" --heap 128m --wait 45 >"$TMP/$name.env" 2>"$TMP/$name.err"; then
        fail "$name:start" "$(tail -n 15 "$TMP/$name.err")"
        # it may have half-started: stop it by its own pid file
        "$CT/$name" stop "$dir" >/dev/null 2>&1 || true
        continue
    fi
    STARTED+=("$name $dir")
    port=$(kv port "$TMP/$name.env")
    pid=$(kv pid "$TMP/$name.env")
    url=$(kv url "$TMP/$name.env")
    version=$(kv version "$TMP/$name.env")
    base=http://127.0.0.1:$port
    case "$name:$version" in
        tomcat9:"Apache Tomcat/9."*|tomcat10:"Apache Tomcat/10."*|jetty9:jetty/9.*) pass "$name:start ($version, pid $pid)" ;;
        *) fail "$name:start" "unexpected version '$version'" ;;
    esac
    if [ "$url" = "$base/register" ]; then pass "$name:url"; else fail "$name:url" "url=$url"; fi
    if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "soak\.target=$name"; then
        pass "$name:marker"
    else
        fail "$name:marker" "pid $pid has no -Dsoak.target=$name"
    fi
    if "$CT/$name" status "$dir" >/dev/null 2>&1; then pass "$name:status-running"; else fail "$name:status-running" "exit $?"; fi

    u=${PREFIX}_$name
    req GET "$base/health"
    expect "$name:health-200" 200 '^ok'
    req POST "$base/register" application/x-www-form-urlencoded "username=${u}_form&email=f%40example.test&password=s3cret-pass"
    expect "$name:form-201" 201 '^\{"id":[0-9]+\}$'
    case "$RTYPE" in application/json*) pass "$name:content-type-json" ;; *) fail "$name:content-type-json" "Content-Type: $RTYPE" ;; esac
    req POST "$base/register" application/json "{\"username\": \"${u}_json\", \"email\": \"j@example.test\", \"password\": \"p\\u00e4ssword-1\"}"
    expect "$name:json-201" 201 '^\{"id":[0-9]+\}$'
    req POST "$base/register" application/x-www-form-urlencoded "username=${u}_form&email=other%40example.test&password=another-pass"
    expect "$name:duplicate-409" 409 '^\{"error":"username taken"\}$'
    req POST "$base/register" application/json "{\"username\": \"${u}_json\", \"email\": \"j@example.test\", \"password\": \"password-2\"}"
    expect "$name:duplicate-json-409" 409 '^\{"error":"username taken"\}$'

    req POST "$base/register" application/x-www-form-urlencoded "email=m%40example.test&password=password-1"
    expect "$name:missing-username-400" 400 '^\{"error":"bad field: username"\}$'
    req POST "$base/register" application/x-www-form-urlencoded "username=a+b&email=m%40example.test&password=password-1"
    expect "$name:bad-username-400" 400 '^\{"error":"bad field: username"\}$'
    req POST "$base/register" application/json "{\"username\":\"ab\",\"email\":\"m@example.test\",\"password\":\"password-1\"}"
    expect "$name:short-username-400" 400 '^\{"error":"bad field: username"\}$'
    req POST "$base/register" application/x-www-form-urlencoded "username=${u}_e1&password=password-1"
    expect "$name:missing-email-400" 400 '^\{"error":"bad field: email"\}$'
    req POST "$base/register" application/json "{\"username\":\"${u}_e2\",\"email\":\"a@b@example.test\",\"password\":\"password-1\"}"
    expect "$name:bad-email-400" 400 '^\{"error":"bad field: email"\}$'
    req POST "$base/register" application/x-www-form-urlencoded "username=${u}_e3&email=nodot%40example&password=password-1"
    expect "$name:email-no-dot-400" 400 '^\{"error":"bad field: email"\}$'
    req POST "$base/register" application/json "{\"username\":\"${u}_p1\",\"email\":\"p@example.test\"}"
    expect "$name:missing-password-400" 400 '^\{"error":"bad field: password"\}$'
    req POST "$base/register" application/x-www-form-urlencoded "username=${u}_p2&email=p%40example.test&password=short"
    expect "$name:short-password-400" 400 '^\{"error":"bad field: password"\}$'
    req POST "$base/register" application/json '{"username": "x", '
    expect "$name:broken-json-400" 400 '^\{"error":"bad json"\}$'
    req POST "$base/register" text/plain "username=${u}_t&email=t%40example.test&password=password-1"
    expect "$name:text-plain-415" 415 'error'
    req GET "$base/register"
    expect "$name:get-register-405" 405 'error'
    req POST "$base/health" application/x-www-form-urlencoded "x=1"
    expect "$name:post-health-405" 405 'error'

    # a little concurrency: 20 parallel registrations, all must be 201
    ok=0
    for i in $(seq 1 20); do
        curl -s -o /dev/null -w '%{http_code}\n' --max-time 15 \
            -d "username=${u}_par$i&email=p$i%40example.test&password=password-$i" "$base/register" &
    done >"$TMP/$name.par" 2>/dev/null
    wait
    ok=$(grep -c '^201$' "$TMP/$name.par" || true)
    CREATED=$((CREATED + ok))
    if [ "$ok" -eq 20 ]; then pass "$name:parallel-20x201"; else fail "$name:parallel-20x201" "$ok of 20 were 201: $(sort "$TMP/$name.par" | uniq -c | tr '\n' ' ')"; fi

    check_count "$name:db-count-equals-201s"

    gclog=$(kv gc_log "$TMP/$name.env")
    if [ -s "$gclog" ] && grep -q 'Using G1' "$gclog"; then pass "$name:gc-log"; else fail "$name:gc-log" "$gclog empty or missing"; fi

    if "$CT/$name" stop "$dir" >"$TMP/$name.stop" 2>&1; then pass "$name:stop"; else fail "$name:stop" "$(cat "$TMP/$name.stop")"; fi
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
    if [ -z "$state" ] || [ "$state" = Z ]; then pass "$name:jvm-gone"; else fail "$name:jvm-gone" "pid $pid state $state"; fi
    rc=0
    "$CT/$name" status "$dir" >/dev/null 2>&1 || rc=$?
    if [ "$rc" -eq 3 ]; then pass "$name:status-stopped"; else fail "$name:status-stopped" "exit $rc, expected 3"; fi
done

check_count db-count-total
printf '%d registrations created, %d s\n' "$CREATED" "$((SECONDS - T0))"
if [ "$FAILS" -gt 0 ]; then
    printf '%d check(s) failed\n' "$FAILS"
    exit 1
fi
