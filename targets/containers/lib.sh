# shellcheck shell=bash
# Shared code of targets/containers/{tomcat9,tomcat10,jetty9}: sourced, not run.
#
# Each script defines ct_prepare (lay out the private base in $DIR) and ct_exec (exec the
# server JVM, inheriting $DIR as its working directory), then calls: ct_main NAME "$@".
#
#   NAME start|stop|status DIR [--port P] [--heap 256m] [--gc G1|Parallel|Serial|ZGC|Shenandoah]
#        [--threads 400] [--accept 200] [--jdbc URL] [--db-user U] [--db-password P]
#        [--pool 16] [--iterations 1000] [--wait 60] [--build DIR] [--jvm-opt OPT]...
#        [--tls] [--h2]
#
# start prints key=value lines: pid= port= gc_log= url= version= log=; with --tls, url= is
# the https connector's, and http_url= tls_port= ca= (the test certificate made at the
# first start, to trust) follow.
# status prints the same lines and exits 0 when running, 3 when not.
# Files in DIR: NAME.pid (the JVM), NAME.env (the printed lines), logs/NAME.out (JVM
# stdout+stderr), logs/gc.log (unified GC log).

CT_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CT_ROOT=$(cd "$CT_HERE/../.." && pwd)

JAVA=${JAVA:-java}
STOP_WAIT=20  # seconds after SIGTERM before SIGKILL

die() { printf '%s: error: %s\n' "${NAME:-container}" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$NAME" "$*" >&2; }

ct_usage() {
    cat >&2 <<USAGE
usage: $NAME start|stop|status DIR [options]
  --port P            HTTP port on 127.0.0.1 (default: a free port)
  --heap SIZE         -Xms = -Xmx (default 256m)
  --gc G              G1 | Parallel | Serial | ZGC | Shenandoah (default G1)
  --threads N         max request threads (default 400)
  --accept N          accept queue / backlog (default 200)
  --jdbc URL          PostgreSQL JDBC URL (default \$SOAK_DB_URL; required by start)
  --db-user U         (default soak)   --db-password P (default soak)
  --pool N            JDBC pool size (default 16)
  --iterations N      PBKDF2 iterations (default 1000)
  --wait S            seconds to wait for GET /health = 200 (default 60)
  --build DIR         servlet build output (default build/java; built when stale)
  --jvm-opt OPT       extra JVM option, repeatable
  --tls               an https connector too, on a test certificate made at the first
                      start (DIR/tls: cert.pem is also the CA to trust)
  --h2                HTTP/2: h2 by ALPN on the https connector, h2c on the plain one
  --profile           -XX:+PreserveFramePointer, so that perf (profile = cpu) sees whole
                      Java stacks (the JIT's frames are named by its Compiler.perfmap)
${CT_EXTRA_USAGE:-}
USAGE
    exit 2
}

# ---------------------------------------------------------------- options

ct_parse() {
    CMD="" DIR="" PORT="" HEAP=256m GC=G1 THREADS=400 ACCEPT=200
    JDBC=${SOAK_DB_URL:-} DB_USER=${SOAK_DB_USER:-soak} DB_PASSWORD=${SOAK_DB_PASSWORD:-soak}
    POOL=16 ITERATIONS=1000 WAIT=60 BUILD=${SOAK_JAVA_BUILD:-$CT_ROOT/build/java} STOCK=0
    TLS=0 H2=0
    JVM_EXTRA=()
    local need
    while [ $# -gt 0 ]; do
        case "$1" in
            --stock) STOCK=1; shift; continue ;;
            --tls) TLS=1; shift; continue ;;
            --h2) H2=1; shift; continue ;;
            --profile) JVM_EXTRA+=(-XX:+PreserveFramePointer); shift; continue ;;
            -h|--help) ct_usage ;;
            --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
        esac
        case "$1" in
            --port|--heap|--gc|--threads|--accept|--jdbc|--db-user|--db-password|--pool|--iterations|--wait|--build|--jvm-opt)
                [ $# -ge 2 ] || die "$1 needs a value"
                need=$2
                case "$1" in
                    --port) PORT=$need ;;
                    --heap) HEAP=$need ;;
                    --gc) GC=$need ;;
                    --threads) THREADS=$need ;;
                    --accept) ACCEPT=$need ;;
                    --jdbc) JDBC=$need ;;
                    --db-user) DB_USER=$need ;;
                    --db-password) DB_PASSWORD=$need ;;
                    --pool) POOL=$need ;;
                    --iterations) ITERATIONS=$need ;;
                    --wait) WAIT=$need ;;
                    --build) BUILD=$need ;;
                    --jvm-opt) JVM_EXTRA+=("$need") ;;
                esac
                shift 2 ;;
            -*) die "unknown option: $1 (see --help)" ;;
            *)
                if [ -z "$CMD" ]; then CMD=$1
                elif [ -z "$DIR" ]; then DIR=$1
                else die "unexpected argument: $1"
                fi
                shift ;;
        esac
    done
    if [ -z "$CMD" ] || [ -z "$DIR" ]; then ct_usage; fi
    case "$CMD" in start|stop|status) ;; *) die "unknown command: $CMD (start|stop|status)" ;; esac
    [ "$STOCK" -eq 0 ] || [ -n "${CT_HAS_STOCK:-}" ] || die "--stock is only for tomcat10"
    [ "$STOCK" -eq 0 ] || [ "$TLS$H2" = 00 ] || die "--tls and --h2 are for the embedded launcher (not --stock)"

    local n
    for n in THREADS ACCEPT POOL ITERATIONS WAIT; do
        if ! [[ ${!n} =~ ^[0-9]+$ ]] || [ "${!n}" -lt 1 ]; then
            die "--${n,,}: expected a positive integer, got '${!n}'"
        fi
    done
    if [ -n "$PORT" ]; then
        if ! [[ $PORT =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
            die "--port: bad port '$PORT'"
        fi
    fi
    [[ $HEAP =~ ^[0-9]+[kKmMgG]?$ ]] || die "--heap: expected a size like 256m or 1g, got '$HEAP'"
    case "$GC" in
        G1|g1) GC_FLAG=-XX:+UseG1GC ;;
        Parallel|parallel) GC_FLAG=-XX:+UseParallelGC ;;
        Serial|serial) GC_FLAG=-XX:+UseSerialGC ;;
        ZGC|Z|zgc|z) GC_FLAG=-XX:+UseZGC ;;
        Shenandoah|shenandoah) GC_FLAG=-XX:+UseShenandoahGC ;;
        *) die "--gc: expected G1, Parallel, Serial, ZGC or Shenandoah, got '$GC'" ;;
    esac

    # The -Xlog:gc file option cannot carry ':' and the JVM option strings are split on
    # blanks by catalina.sh, so keep the base path plain.
    case "$DIR" in *[[:space:]:,]*) die "DIR must not contain blanks, ':' or ','" ;; esac
    if [ "$CMD" = start ]; then
        mkdir -p "$DIR" || die "cannot create $DIR"
    fi
    if [ -d "$DIR" ]; then DIR=$(cd "$DIR" && pwd); fi
    PIDFILE=$DIR/$NAME.pid
    ENVFILE=$DIR/$NAME.env
    OUTLOG=$DIR/logs/$NAME.out
    GCLOG=$DIR/logs/gc.log
    MARKER="-Dsoak.target=$NAME"
}

# ---------------------------------------------------------------- processes

# alive PID: the process exists and is not a zombie (PID 1 here reaps late).
alive() {
    local state
    state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# ours PID: its command line carries this target's marker and this base directory.
ours() {
    local cmdline
    cmdline=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null) || return 1
    grep -qxF -- "$MARKER" <<<"$cmdline" && grep -qxF -- "-Dsoak.base=$DIR" <<<"$cmdline"
}

# running_pid: prints the pid of our running JVM, fails when there is none.
running_pid() {
    local pid
    [ -f "$PIDFILE" ] || return 1
    pid=$(head -n 1 "$PIDFILE")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    if ! alive "$pid" || ! ours "$pid"; then return 1; fi
    printf '%s\n' "$pid"
}

# shellcheck source=targets/free_port.sh
. "$CT_ROOT/targets/free_port.sh"

# kill_wait PID SECONDS SIGNAL: signal it, then wait (bounded) until it is gone.
kill_wait() {
    local pid=$1 secs=$2 sig=$3 i
    ours "$pid" || return 0
    kill "-$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 10; i++)); do
        alive "$pid" || return 0
        sleep 0.1
    done
    ! alive "$pid"
}

stop_pid() {
    local pid=$1
    kill_wait "$pid" "$STOP_WAIT" TERM && return 0
    note "pid $pid did not stop within ${STOP_WAIT}s of SIGTERM; sending SIGKILL"
    kill_wait "$pid" 5 KILL || die "pid $pid is still alive after SIGKILL"
}

# ---------------------------------------------------------------- commands

ct_status() {
    local pid
    if pid=$(running_pid) && [ -f "$ENVFILE" ]; then
        cat "$ENVFILE"
        return 0
    fi
    note "not running ($DIR)"
    return 3
}

ct_stop() {
    local pid
    [ -d "$DIR" ] || { note "not running ($DIR does not exist)"; return 0; }
    if pid=$(running_pid); then
        stop_pid "$pid"
        note "stopped pid $pid"
    else
        note "not running ($DIR)"
    fi
    rm -f "$PIDFILE" "$ENVFILE"
}

ct_fail() { # MESSAGE: print the JVM's last log lines, stop what we started, exit 1
    printf '%s: error: %s\n' "$NAME" "$1" >&2
    if [ -f "$OUTLOG" ]; then
        printf -- '--- last lines of %s ---\n' "$OUTLOG" >&2
        tail -n 40 "$OUTLOG" >&2 || true
        printf -- '---\n' >&2
    fi
    if [ -n "${LAUNCHED_PID:-}" ] && alive "$LAUNCHED_PID"; then
        stop_pid "$LAUNCHED_PID" || true
    fi
    rm -f "$PIDFILE" "$ENVFILE"
    exit 1
}

ct_build() {
    "$CT_ROOT/targets/servlet/build.sh" "$BUILD" >/dev/null \
        || die "building the servlet into $BUILD failed"
    BUILD=$(cd "$BUILD" && pwd)
}

# The JVM options every target gets; ct_exec adds its own main class / jar.
ct_jvm_opts() {
    JVM_OPTS=(
        "-Xms$HEAP" "-Xmx$HEAP" "$GC_FLAG"
        "$MARKER" "-Dsoak.base=$DIR" "-Dsoak.instance=$INSTANCE"
        "-Xlog:gc*:file=$GCLOG:time,uptime,level,tags:filecount=5,filesize=20m"
        "-Djava.io.tmpdir=$DIR/tmp" -Djava.awt.headless=true -Dfile.encoding=UTF-8
        "-Dsoak.db.url=$JDBC" "-Dsoak.db.user=$DB_USER"
        "-Dsoak.db.pool=$POOL" "-Dsoak.pbkdf2.iterations=$ITERATIONS"
        ${JVM_EXTRA[@]+"${JVM_EXTRA[@]}"}
    )
}

# tls_material: the test certificate and key of DIR/tls (made once: EC P-256, localhost
# and 127.0.0.1), and the same as a PKCS12 key store for Jetty (password soak-test).
tls_material() {
    local t=$DIR/tls
    [ -s "$t/keystore.p12" ] && return 0
    command -v openssl >/dev/null 2>&1 || die "openssl not found (install openssl)"
    mkdir -p "$t"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$t/key.pem" \
        -out "$t/cert.pem" -days 3650 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >/dev/null 2>&1 \
        || die "openssl could not make a test certificate in $t"
    openssl pkcs12 -export -in "$t/cert.pem" -inkey "$t/key.pem" -name soak \
        -passout pass:soak-test -out "$t/keystore.p12" >/dev/null 2>&1 \
        || die "openssl could not make $t/keystore.p12"
}

# wait_ready PID PORT: 0 ready (sets VERSION), 1 JVM died, 2 timed out.  With --tls the
# https connector must answer too.
wait_ready() {
    local pid=$1 port=$2 i hdr code
    hdr=$DIR/tmp/health.headers
    for ((i = 0; i < WAIT * 5; i++)); do
        [ "$SECONDS" -lt "$DEADLINE" ] || return 2
        alive "$pid" || return 1
        code=$(curl -s -o /dev/null -D "$hdr" -w '%{http_code}' --max-time 2 \
                    "http://127.0.0.1:$port/health" 2>/dev/null) || code=000
        if [ "$code" = 200 ] && [ "$TLS" -eq 1 ]; then
            code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 --cacert "$DIR/tls/cert.pem" \
                        "https://127.0.0.1:$TLS_PORT/health" 2>/dev/null) || code=000
        fi
        if [ "$code" = 200 ] && grep -qi "^X-Soak-Instance: *$INSTANCE" "$hdr"; then
            VERSION=$(sed -n 's/^[Xx]-[Ss]oak-[Ss]erver: *//p' "$hdr" | tr -d '\r')
            return 0
        fi
        sleep 0.2
    done
    return 2
}

ct_start() {
    local pid port tries rc
    if pid=$(running_pid) && [ -f "$ENVFILE" ]; then
        port=$(sed -n 's/^port=//p' "$ENVFILE")
        if [ -n "$PORT" ] && [ "$PORT" != "$port" ]; then
            die "already running on port $port (asked for $PORT); stop it first"
        fi
        cat "$ENVFILE"
        return 0
    fi
    [ -n "$JDBC" ] || die "--jdbc URL is required (or SOAK_DB_URL); start a database with targets/db/postgres.sh start DIR"
    command -v "$JAVA" >/dev/null 2>&1 || die "java not found (install openjdk-17-jre-headless)"
    command -v curl >/dev/null 2>&1 || die "curl not found"
    ct_build
    mkdir -p "$DIR/logs" "$DIR/tmp"
    rm -f "$PIDFILE" "$ENVFILE"
    ct_prepare
    [ "$TLS" -eq 0 ] || tls_material
    DEADLINE=$((SECONDS + WAIT))
    for ((tries = 1; tries <= 3; tries++)); do
        port=${PORT:-$(free_port)} || die "no free port found"
        TLS_PORT=
        if [ "$TLS" -eq 1 ]; then TLS_PORT=$(free_port) || die "no free port found"; fi
        INSTANCE=$NAME-$$-$RANDOM$RANDOM
        ct_jvm_opts
        if [ -f "$OUTLOG" ]; then mv -f "$OUTLOG" "$OUTLOG.1"; fi
        # setsid: the server leaves the caller's process group (a Ctrl-C aimed at the
        # caller does not reach it). The subshell is no group leader, so setsid does not
        # fork and $! is the JVM itself once exec has run.
        (
            cd "$DIR" || exit 1
            export SOAK_DB_PASSWORD="$DB_PASSWORD"
            HTTP_PORT=$port ct_exec
        ) </dev/null >>"$OUTLOG" 2>&1 &
        LAUNCHED_PID=$!
        printf '%s\n' "$LAUNCHED_PID" >"$PIDFILE"
        rc=0
        wait_ready "$LAUNCHED_PID" "$port" || rc=$?
        if [ "$rc" -eq 0 ]; then
            break
        fi
        if [ "$rc" -eq 1 ] && [ -z "$PORT" ] && [ "$tries" -lt 3 ] \
                && grep -q 'Address already in use\|BindException' "$OUTLOG"; then
            note "port $port was taken before the JVM bound it; trying another"
            continue
        fi
        if [ "$rc" -eq 1 ]; then
            ct_fail "the JVM exited during start-up"
        fi
        ct_fail "GET http://127.0.0.1:$port/health did not answer 200 within ${WAIT}s"
    done
    ours "$LAUNCHED_PID" || ct_fail "pid $LAUNCHED_PID is not the JVM (no $MARKER in its command line)"
    {
        printf 'pid=%s\nport=%s\ngc_log=%s\n' "$LAUNCHED_PID" "$port" "$GCLOG"
        if [ "$TLS" -eq 1 ]; then
            # url= is what a study sends to: the https connector, with --tls.
            printf 'url=https://127.0.0.1:%s/register\nhttp_url=http://127.0.0.1:%s/register\n' \
                "$TLS_PORT" "$port"
            printf 'tls_port=%s\nca=%s\n' "$TLS_PORT" "$DIR/tls/cert.pem"
        else
            printf 'url=http://127.0.0.1:%s/register\n' "$port"
        fi
        printf 'version=%s\nlog=%s\n' "$VERSION" "$OUTLOG"
    } >"$ENVFILE"
    cat "$ENVFILE"
}

ct_main() {
    NAME=$1
    shift
    ct_parse "$@"
    case "$CMD" in
        start) ct_start ;;
        stop) ct_stop ;;
        status) ct_status ;;
    esac
}

# ---------------------------------------------------------------- embedded Tomcat

# Lay out DIR for soak.SoakTomcat: the webapp and launcher are copied in, so a rebuild
# of build/java never changes a running server under its feet.
embedded_tomcat_prepare() { # VERSION WEBAPP_FLAVOUR
    local v=$1 flavour=$2
    [ -d "$BUILD/webapp-$flavour" ] || die "$BUILD/webapp-$flavour missing"
    [ -f "$BUILD/launcher-tomcat$v/classpath" ] || die "$BUILD/launcher-tomcat$v missing"
    rm -rf "$DIR/webapps/ROOT" "$DIR/launcher" "$DIR/work"
    mkdir -p "$DIR/webapps"
    cp -R "$BUILD/webapp-$flavour" "$DIR/webapps/ROOT"
    cp -R "$BUILD/launcher-tomcat$v" "$DIR/launcher"
}

embedded_tomcat_exec() {
    local cp
    cp=$(cat "$DIR/launcher/classpath")
    local more=()
    if [ "$TLS" -eq 1 ]; then
        more+=(--tls-port "$TLS_PORT" --tls-cert "$DIR/tls/cert.pem" --tls-key "$DIR/tls/key.pem")
    fi
    if [ "$H2" -eq 1 ]; then more+=(--h2); fi
    exec setsid "$JAVA" "${JVM_OPTS[@]}" -cp "$DIR/launcher:$cp" soak.SoakTomcat \
        --base "$DIR" --webapp "$DIR/webapps/ROOT" --address 127.0.0.1 --port "$HTTP_PORT" \
        --threads "$THREADS" --accept "$ACCEPT" ${more[@]+"${more[@]}"}
}
