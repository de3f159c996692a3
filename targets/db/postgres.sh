#!/usr/bin/env bash
# A private PostgreSQL 15 cluster for soak's servlet targets, on 127.0.0.1 only.
#
#   targets/db/postgres.sh start    DIR [--port P] [--name N] [--set NAME=VALUE]...
#                                                     init once, start, create role/db/table
#   targets/db/postgres.sh stop     DIR              pg_ctl stop -m fast, waits
#   targets/db/postgres.sh status   DIR              exit 0 running (prints lines), 3 not
#   targets/db/postgres.sh truncate DIR              empty the users table (alias: reset)
#   targets/db/postgres.sh count    DIR              print the number of users
#   targets/db/postgres.sh psql     DIR [ARGS...]    psql as soak on database soak
#
# start and status print key=value lines:
#   pid= port= jdbc=jdbc:postgresql://127.0.0.1:PORT/soak user=soak password=soak datadir=
# Layout: DIR/data (cluster, owned by postgres when run as root), DIR/run (socket
# directory), DIR/postgres.log. When run as root the server runs as the postgres user.
# Never touches the system cluster. Without --port a free port is chosen (and kept for
# later starts while it stays free). --name sets cluster_name (default soakpg), which
# every process of the cluster shows in its command line: a pid_match of its own when
# several clusters run on one machine. --set shared_buffers=16MB sets a server parameter
# for this start, as `postgres -c NAME=VALUE` does (repeatable).
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PROG=postgres.sh
START_WAIT=60  # seconds

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
CMD=$1
shift
case "$CMD" in -h|--help|help) usage ;; esac
[ $# -ge 1 ] || usage
DIR=$1
shift
PORT=""
NAME=soakpg
SETS=""
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --port) [ $# -ge 2 ] || die "--port needs a value"; PORT=$2; shift 2 ;;
        --port=*) PORT=${1#--port=}; shift ;;
        --name) [ $# -ge 2 ] || die "--name needs a value"; NAME=$2; shift 2 ;;
        --name=*) NAME=${1#--name=}; shift ;;
        --set) [ $# -ge 2 ] || die "--set needs NAME=VALUE"
               [[ $2 =~ ^[a-z_]+=[A-Za-z0-9._]+$ ]] || die "bad --set: $2 (such as shared_buffers=16MB)"
               SETS+=" -c $2"; shift 2 ;;
        *) if [ "$CMD" = psql ]; then EXTRA+=("$1"); shift; else die "unknown option: $1"; fi ;;
    esac
done
if [ -n "$PORT" ]; then
    if ! [[ $PORT =~ ^[0-9]+$ ]] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
        die "bad port: $PORT"
    fi
fi

[[ $NAME =~ ^[A-Za-z0-9_]+$ ]] || die "bad --name: $NAME (letters, digits and _)"

for b in initdb pg_ctl postgres psql; do
    [ -x "$PGBIN/$b" ] || [ "$b" = psql ] || die "$PGBIN/$b not found (install postgresql-15)"
done
PSQL=$PGBIN/psql
[ -x "$PSQL" ] || PSQL=$(command -v psql) || die "psql not found"

mkdir -p "$DIR" || die "cannot create $DIR"
DIR=$(cd "$DIR" && pwd)
DATA=$DIR/data
SOCK=$DIR/run
LOG=$DIR/postgres.log

# Run a server-side command as the cluster's owner.
if [ "$(id -u)" -eq 0 ]; then
    PGUSER_OS=postgres
    id "$PGUSER_OS" >/dev/null 2>&1 || die "user postgres does not exist (install postgresql)"
    as_owner() { runuser -u "$PGUSER_OS" -- "$@"; }
else
    PGUSER_OS=$(id -un)
    as_owner() { "$@"; }
fi

# shellcheck source=targets/free_port.sh
. "$(dirname "${BASH_SOURCE[0]}")/../free_port.sh"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Prints the postmaster pid and port when this cluster runs; fails otherwise.
running_info() {
    [ -f "$DATA/postmaster.pid" ] || return 1
    as_owner "$PGBIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1 || return 1
    local pid port
    pid=$(sed -n 1p "$DATA/postmaster.pid")
    port=$(sed -n 4p "$DATA/postmaster.pid")
    [ -n "$pid" ] && [ -n "$port" ] || return 1
    printf '%s %s\n' "$pid" "$port"
}

print_lines() { # PID PORT
    printf 'pid=%s\nport=%s\njdbc=jdbc:postgresql://127.0.0.1:%s/soak\nuser=soak\npassword=soak\ndatadir=%s\n' \
        "$1" "$2" "$2" "$DATA"
}

sql() { # PORT DB USER SQL...: run statements, tuples only, stop on error
    local port=$1 db=$2 user=$3
    shift 3
    PGOPTIONS='-c client_min_messages=warning' \
        "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -h "$SOCK" -p "$port" -U "$user" -d "$db" "$@"
}

init_cluster() {
    if [ "$(id -u)" -eq 0 ]; then
        # The postgres user must reach DIR; refuse rather than loosen a parent we do not own.
        chmod 0755 "$DIR"
        runuser -u "$PGUSER_OS" -- test -x "$DIR" \
            || die "user postgres cannot enter $DIR (a parent directory is private); use a directory under /tmp or /work"
    fi
    mkdir -p "$DATA" "$SOCK"
    chmod 0700 "$DATA"
    chmod 0755 "$SOCK"
    if [ "$(id -u)" -eq 0 ]; then
        chown "$PGUSER_OS": "$DATA" "$SOCK"
        touch "$LOG"
        chown "$PGUSER_OS": "$LOG"
    fi
    [ -f "$DATA/PG_VERSION" ] && return 0
    [ -z "$(ls -A "$DATA")" ] || die "$DATA is not empty and holds no cluster; refusing to initdb over it"
    printf '%s: initdb in %s\n' "$PROG" "$DATA" >&2
    as_owner "$PGBIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 --no-instructions >"$DIR/initdb.log" 2>&1 \
        || { tail -n 20 "$DIR/initdb.log" >&2; die "initdb failed (log: $DIR/initdb.log)"; }
    cat >"$DIR/soak.conf.tmp" <<CONF
# soak benchmark settings (written by targets/db/postgres.sh)
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCK'
max_connections = 300
shared_buffers = 128MB
# fsync stays on, so the data survives a crash of the machine. synchronous_commit = off
# lets a COMMIT return before its WAL is flushed: an OS crash can lose the last few
# hundred milliseconds of committed registrations, but nothing is corrupted. That
# trade is acceptable for a load-test database and keeps the container, not the
# disk's flush latency, the thing being measured.
fsync = on
synchronous_commit = off
wal_buffers = 16MB
checkpoint_timeout = 15min
max_wal_size = 2GB
log_min_messages = warning
log_line_prefix = '%m [%p] '
CONF
    chmod 0644 "$DIR/soak.conf.tmp"
    if [ "$(id -u)" -eq 0 ]; then chown "$PGUSER_OS": "$DIR/soak.conf.tmp"; fi
    mv "$DIR/soak.conf.tmp" "$DATA/soak.conf"
    printf "include 'soak.conf'\n" >>"$DATA/postgresql.conf"
}

setup_schema() { # PORT
    local port=$1
    sql "$port" postgres postgres <<'SQL' >/dev/null
SELECT 'role ok';
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'soak') THEN
    CREATE ROLE soak LOGIN PASSWORD 'soak';
  END IF;
END $$;
SQL
    if [ -z "$(sql "$port" postgres postgres -c "SELECT 1 FROM pg_database WHERE datname = 'soak'")" ]; then
        sql "$port" postgres postgres -c "CREATE DATABASE soak OWNER soak" >/dev/null
    fi
    sql "$port" soak soak <<'SQL' >/dev/null
CREATE TABLE IF NOT EXISTS users (
    id       bigserial PRIMARY KEY,
    username text NOT NULL,
    email    text NOT NULL,
    pw_hash  text NOT NULL,
    created  timestamptz DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS users_username_key ON users (username);
SQL
}

cmd_start() {
    local info pid port tries
    if info=$(running_info); then
        read -r pid port <<<"$info"
        if [ -n "$PORT" ] && [ "$PORT" != "$port" ]; then
            die "already running on port $port (asked for $PORT); stop it first"
        fi
        setup_schema "$port"
        print_lines "$pid" "$port"
        return 0
    fi
    init_cluster
    for ((tries = 1; tries <= 3; tries++)); do
        port=$PORT
        if [ -z "$port" ]; then
            port=$(cat "$DIR/port" 2>/dev/null || true)
            if [ -z "$port" ] || port_in_use "$port"; then
                port=$(free_port) || die "no free port found"
            fi
        fi
        # -w waits until the server accepts connections (bounded by -t).
        if as_owner "$PGBIN/pg_ctl" start -D "$DATA" -l "$LOG" -w -t "$START_WAIT" \
                -o "-p $port -c listen_addresses=127.0.0.1 -c cluster_name=$NAME -k $SOCK$SETS" >/dev/null 2>&1; then
            break
        fi
        if [ -z "$PORT" ] && [ "$tries" -lt 3 ] && tail -n 5 "$LOG" | grep -q 'could not bind\|in use'; then
            continue  # somebody took the port between our probe and the bind: try another
        fi
        tail -n 20 "$LOG" >&2 || true
        die "pg_ctl start failed (log: $LOG)"
    done
    printf '%s\n' "$port" >"$DIR/port"
    info=$(running_info) || die "server started but pg_ctl status disagrees (log: $LOG)"
    read -r pid port <<<"$info"
    setup_schema "$port" || die "creating role/database/table failed (log: $LOG)"
    print_lines "$pid" "$port"
}

cmd_stop() {
    if ! running_info >/dev/null; then
        printf '%s: not running (%s)\n' "$PROG" "$DATA" >&2
        return 0
    fi
    as_owner "$PGBIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >/dev/null \
        || die "pg_ctl stop failed (log: $LOG)"
}

cmd_status() {
    local info pid port
    if info=$(running_info); then
        read -r pid port <<<"$info"
        print_lines "$pid" "$port"
        return 0
    fi
    printf '%s: not running (%s)\n' "$PROG" "$DATA" >&2
    return 3
}

need_port() {
    local info pid port
    info=$(running_info) || { printf '%s: not running (%s)\n' "$PROG" "$DATA" >&2; exit 3; }
    read -r pid port <<<"$info"
    printf '%s\n' "$port"
}

case "$CMD" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    truncate|reset) sql "$(need_port)" soak soak -c 'TRUNCATE users RESTART IDENTITY' >/dev/null ;;
    count) sql "$(need_port)" soak soak -c 'SELECT count(*) FROM users' ;;
    psql) exec "$PSQL" -X -h "$SOCK" -p "$(need_port)" -U soak -d soak "${EXTRA[@]}" ;;
    *) usage ;;
esac
