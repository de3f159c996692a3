#!/usr/bin/env bash
# What a planted file, link or cell could do to whoever runs soak (often root), each attack
# made real and its harm looked for, not its code path:
#   - a .gnuplot and a gnuplotrc planted in the report's folder that would create a marker;
#   - links planted at every name the report writes (and at its temporary names, its
#     sub-folders, the JUnit file, the database and its -wal), each pointing at a file
#     outside that must stay as it was; a folder others can write to;
#   - databases from others with a trigger and a view: refused, nothing in them runs;
#   - --save-scenario onto a dangling link (the file would hold the scenario's secrets);
#   - labels and run names that a spreadsheet would run (= + - @ tab CR) in summary.csv;
#   - /metrics: 40 idle connections and a scrape still answered; users= refuses a scrape
#     without the password and takes one with it; cert=,key= serve it over TLS; a real
#     Prometheus scrapes it with basic_auth and tls_config.
# Each check fails on the code before issue 45's fix (run with BIN= a build of it).
. "$(dirname "$0")/lib.sh"

start_regserver --latency 1 --quiet || { fail "regserver starts"; exit 1; }
URL=$REG_URL/register
FORM='Content-Type: application/x-www-form-urlencoded'
BODY='username=u${nonce}_${seq}&email=${seq}@example.test&password=secret123'
quick() { # DB LABEL [more soak run options]: a 2-s run
  local db=$1 label=$2
  shift 2
  soak run -q --db "$db" --url "$URL" -c 2 -d 2s --interval 1s -H "$FORM" --body "$BODY" \
    --expect-status 201 --label "$label" "$@"
}
quick "$T/a.db" base >/dev/null 2>&1 || fail "a run to report on"
victim() { printf 'precious\n' >"$T/victim"; }
untouched() { [ "$(cat "$T/victim" 2>/dev/null)" = precious ]; }

# --- gnuplot's start-up files ------------------------------------------------------------
mkdir -p "$T/g/.config/gnuplot"
printf 'system "touch %s/MARK1"\n' "$T" >"$T/g/.gnuplot"
printf 'system "touch %s/MARK2"\n' "$T" >"$T/g/.config/gnuplot/gnuplotrc"
chmod 700 "$T/g"
soak report "$T/a.db" -o "$T/g" >"$T/g.out" 2>&1
check_eq "a report with pictures in a folder holding a .gnuplot and a gnuplotrc: exit 0" "$?" 0
check "... drew its pictures" test -s "$T/g/img/tps_time.svg"
check "... and neither start-up file ran (no marker)" test ! -e "$T/MARK1" -a ! -e "$T/MARK2"
check "... and left no work folder behind" test -z "$(find "$T/g" -maxdepth 1 -name '.soak-plots-*')"

# --- links at the names the report writes ------------------------------------------------
for name in report.html report.html.tmp report.md.tmp details.md summary.csv report.json data/tps_time.dat \
  data/batch-1.err plots/common.gp plots/pictures.gp img/tps_time.svg; do
  victim
  rm -rf "$T/l"
  mkdir -p "$T/l/data" "$T/l/plots" "$T/l/img"
  chmod 700 "$T/l"
  ln -s "$T/victim" "$T/l/$name"
  soak report "$T/a.db" -o "$T/l" >"$T/l.out" 2>&1
  rc=$?
  check "a link planted at $name: its target untouched (report exit $rc)" untouched
done
check "... and the report written, not through it" grep -q '^# ' "$T/l/report.md"
# Sub-folders that are links: refused, and nothing in the linked folder removed.
mkdir -p "$T/elsewhere" && printf 'keep\n' >"$T/elsewhere/old.svg"
rm -rf "$T/s" && mkdir -m 700 "$T/s" && ln -s "$T/elsewhere" "$T/s/img"
soak report "$T/a.db" -o "$T/s" >"$T/s.out" 2>&1
check_eq "img/ a link to another folder: the report refuses (exit 3)" "$?" 3
check "... saying why" grep -q "img.*symbolic link (not followed)" "$T/s.out"
check "... and that folder's pictures stay" test -s "$T/elsewhere/old.svg"
# A folder anybody may write into (no sticky bit) is refused; a sticky one is fine.
mkdir -p "$T/open" && chmod 777 "$T/open"
soak report "$T/a.db" -o "$T/open" --no-plots >"$T/open.out" 2>&1
check_eq "a report folder others can write to: refused (exit 3)" "$?" 3
check "... saying so" grep -q "others can write to it (mode 0777 without the sticky bit)" "$T/open.out"
chmod 1777 "$T/open"
soak report "$T/a.db" -o "$T/open" --no-plots >/dev/null 2>&1
check_eq "... with the sticky bit (as /tmp): written" "$?" 0
# JUnit: a link at the file and at the old temporary name.
victim
ln -s "$T/victim" "$T/junit.xml"
soak report "$T/a.db" -o "$T/j" --no-plots --junit "$T/junit.xml" >/dev/null 2>&1
check "--junit onto a link: its target untouched" untouched
check "... the JUnit file written in its place, 0600" test "$(stat -c %a "$T/junit.xml")" = 600
# A database at a link (or its -wal at one) is not opened.
victim
ln -s "$T/victim" "$T/link.db"
quick "$T/link.db" x >"$T/ldb.out" 2>&1
check "a database path that is a link: refused, its target untouched" \
  sh -c "grep -q 'is a symbolic link' '$T/ldb.out' && [ \"\$(cat '$T/victim')\" = precious ]"
victim
ln -s "$T/victim" "$T/wal.db-wal"
quick "$T/wal.db" x >"$T/wal.out" 2>&1
check "a link at the database's -wal: refused, its target untouched" \
  sh -c "grep -q 'wal.db-wal. is a symbolic link' '$T/wal.out' && [ \"\$(cat '$T/victim')\" = precious ]"

# --- databases from others -----------------------------------------------------------------
# A database that brings a trigger (it would write a marker row whenever soak adds a run or
# an event) and a view where soak reads a table: soak refuses it, naming them, and nothing
# in it runs.
cp "$T/a.db" "$T/evil.db"
sqlite3 "$T/evil.db" "CREATE TABLE marker (what TEXT);
  CREATE TRIGGER mark AFTER INSERT ON runs BEGIN INSERT INTO marker VALUES ('trigger ran'); END;
  CREATE TRIGGER mark2 AFTER INSERT ON events BEGIN INSERT INTO marker VALUES ('trigger ran'); END;"
cp "$T/a.db" "$T/view.db"
sqlite3 "$T/view.db" "CREATE TABLE marker (what TEXT); ALTER TABLE run_env RENAME TO run_env_real;
  CREATE VIEW run_env AS SELECT run_id, key, value || randomblob(8) AS value FROM run_env_real;"
soak report "$T/evil.db" -o "$T/evil" --no-plots >"$T/evil.out" 2>&1
check_eq "soak report on a database with a trigger: refused (exit 2)" "$?" 2
check "... naming it" grep -q "holds a trigger soak did not make ('mark')" "$T/evil.out"
quick "$T/evil.db" more >"$T/evil2.out" 2>&1
check "soak run into it: refused, the trigger never ran" \
  sh -c "grep -q \"holds a trigger soak did not make\" '$T/evil2.out' && [ \"\$(sqlite3 '$T/evil.db' 'SELECT count(*) FROM marker')\" = 0 ]"
soak merge -o "$T/merged.db" "$T/evil.db" >"$T/evil3.out" 2>&1
check "soak merge of it: refused" grep -q "holds a trigger soak did not make" "$T/evil3.out"
soak report "$T/view.db" -o "$T/view" --no-plots >"$T/view.out" 2>&1
check "a view where a table should be: refused, naming it" \
  grep -q "holds a view soak did not make ('run_env')" "$T/view.out"
check_eq "... and nothing written into either file" \
  "$(sqlite3 "$T/evil.db" 'SELECT count(*) FROM marker') $(sqlite3 "$T/view.db" 'SELECT count(*) FROM marker')" "0 0"

# --- --save-scenario onto a dangling link ------------------------------------------------
ln -s "$T/stolen.ini" "$T/saved.ini"
quick "$T/b.db" x --save-scenario "$T/saved.ini" -H 'Authorization: Bearer s3cr3t-token' \
  >"$T/save.out" 2>&1
check "--save-scenario onto a dangling link: nothing written where it points" test ! -e "$T/stolen.ini"
check "... it says why" grep -q "saved.ini' exists (not overwritten)" "$T/save.out"

# --- cells a spreadsheet would run -------------------------------------------------------
n=0
for label in '=HYPERLINK("http://example.test","x")' '+1+1' '-1+1' '@SUM(1)' $'\tx' $'\rx'; do
  n=$((n + 1))
  quick "$T/csv.db" "$label" --set "scenario.name=$label" >"$T/csv$n.out" 2>&1 || cat "$T/csv$n.out"
done
soak report "$T/csv.db" -o "$T/csv" --no-plots >/dev/null 2>&1
# Read as a spreadsheet reads CSV: no label or run name cell begins with a character that
# makes it a formula; those that would have (soak trims a label's blanks, not a name's)
# begin with a single quote instead.
check_eq "summary.csv: no label or run name a spreadsheet would run" \
  "$(python3 - "$T/csv/summary.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cells = [r[k] for r in rows for k in ("label", "name")]
danger = ("=", "+", "-", "@", "\t", "\r")
bad = [c for c in cells if c[:1] in danger]
quoted = [c for c in cells if c[:1] == "'" and c[1:2] in danger]
print(len(rows), "rows,", len(bad), "cells that would run,", len(quoted), "neutralised")
EOF
)" "$n rows, 0 cells that would run, 10 neutralised"
check "summary.csv: numbers stay numbers (a TPS is unquoted)" \
  grep -qE '^"[^"]*","[0-9]+",.*,[0-9]+\.[0-9]+,' "$T/csv/summary.csv"

# --- /metrics ------------------------------------------------------------------------------
hash=$(python3 -W ignore -c "import crypt; print(crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH)))")
printf '# who may scrape\nprometheus:%s\n' "$hash" >"$T/users"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
M1=$(free_port) M2=$(free_port)
spawn "$T/m1.log" soak run -q --db "$T/m1.db" --url "$URL" -c 1 -d 20s -H "$FORM" --body "$BODY" \
  --metrics "127.0.0.1:$M1,users=$T/users"
spawn "$T/m2.log" soak run -q --db "$T/m2.db" --url "$URL" -c 1 -d 20s -H "$FORM" --body "$BODY" \
  --metrics "127.0.0.1:$M2,cert=$T/cert.pem,key=$T/key.pem"
code() { curl -s -m 5 -o /dev/null -w '%{http_code}' "$@"; }
wait_for 10 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$M1/metrics)\" = 401 ]"
check_eq "users=: a scrape without the password is refused (401)" "$(code "http://127.0.0.1:$M1/metrics")" 401
check_eq "users=: ... with a wrong one too" "$(code -u prometheus:wrong "http://127.0.0.1:$M1/metrics")" 401
check_eq "users=: ... and answered with the right one" "$(code -u prometheus:s3cret "http://127.0.0.1:$M1/metrics")" 200
# 40 connections opened and left idle (the old limit was 32, each held for 60 s).
python3 - "$M1" >"$T/idle.out" 2>&1 <<'EOF' &
import socket, sys, time
socks = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(40)]
print("open", len(socks), flush=True)
time.sleep(8)
EOF
IDLE=$!
_pids+=("$IDLE")
wait_line "$T/idle.out" '^open 40' 10 >/dev/null
check_eq "40 idle connections held open: a scrape is still answered" \
  "$(code -u prometheus:s3cret "http://127.0.0.1:$M1/metrics")" 200
wait "$IDLE" 2>/dev/null
wait_for 10 bash -c "curl -s --cacert '$T/cert.pem' -o /dev/null https://127.0.0.1:$M2/metrics"
check_eq "cert=,key=: served over TLS" "$(code --cacert "$T/cert.pem" "https://127.0.0.1:$M2/metrics")" 200
check "cert=,key=: the address printed is https://" grep -q "live metrics on https://127.0.0.1:$M2/metrics" "$T/m2.log"
# Prometheus itself (Debian's, private to the test) scrapes with the password over TLS, as
# deploy/grafana/prometheus.yml's remote job says; a job without the password is refused.
M3=$(free_port) PROM_PORT=$(free_port)
spawn "$T/m3b.log" soak run -q --db "$T/m3b.db" --url "$URL" -c 1 -d 30s -H "$FORM" --body "$BODY" \
  --metrics "127.0.0.1:$M3,users=$T/users,cert=$T/cert.pem,key=$T/key.pem"
printf 's3cret' >"$T/prom.pass"
cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: with-password
    scheme: https
    basic_auth: {username: prometheus, password_file: $T/prom.pass}
    tls_config: {ca_file: $T/cert.pem}
    static_configs: [{targets: ['127.0.0.1:$M3']}]
  - job_name: without
    scheme: https
    tls_config: {ca_file: $T/cert.pem}
    static_configs: [{targets: ['127.0.0.1:$M3']}]
EOF
spawn "$T/prom.log" prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom-data" \
  --web.listen-address="127.0.0.1:$PROM_PORT"
upq() { # JOB: its up value as Prometheus last scraped it ("" before the first scrape)
  curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=up{job=\"$1\"}" |
    jq -r '.data.result[0].value[1] // empty'
}
wait_for 30 bash -c "[ -n \"\$(curl -sf -G 'http://127.0.0.1:$PROM_PORT/api/v1/query' --data-urlencode 'query=up{job=\"without\"}' | jq -r '.data.result[0].value[1] // empty')\" ] && [ \"\$(curl -sf -G 'http://127.0.0.1:$PROM_PORT/api/v1/query' --data-urlencode 'query=up{job=\"with-password\"}' | jq -r '.data.result[0].value[1] // empty')\" = 1 ]"
check_eq "Prometheus scrapes over TLS with basic_auth; without the password it is refused" \
  "$(upq with-password) $(upq without)" "1 0"

soak run -q --db "$T/m3.db" --url "$URL" -d 1s --metrics "127.0.0.1:0,users=$T/victim" >"$T/m3.out" 2>&1
check "users= a file that is no password file: FILE:LINE, nothing run" \
  grep -q "$T/victim:1: expected USER:HASH with a bcrypt hash" "$T/m3.out"

done_testing
