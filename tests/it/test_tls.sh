#!/usr/bin/env bash
# https against real servers, for both HTTP clients (libcurl and the lean driver): nginx with
# the test CA's certificate (tests/data/tls) and peers that misbehave (tests/it/tls_target.py).
#   - the system's CAs do not know the test CA: every request is tls_certificate, with the
#     way out in the sample; --cacert or --insecure make the same run pass, and run_env says
#     which (and what the handshake negotiated)
#   - a connection per request: handshakes counted full and resumed, and none resumed with
#     --tls-resume no
#   - a client certificate the server requires: nginx's 400 without one, answers with it
#   - a server of TLS 1.2 only and --tls-min 1.3: tls_alert
#   - a handshake that never completes: tls_timeout; a peer that closes in the middle of a
#     TLS record: reset; a plain-HTTP server: protocol
#   - nothing lost: every request nginx answered is one soak counted, every connection a
#     misbehaving peer accepted is one failed request
#   - HTTP/2 (h2 by ALPN, h2c with prior knowledge): streams multiplexed, GOAWAY mid-run
#     (nginx every 100 requests) with nothing lost, RST_STREAM classed and counted, the open
#     model, libcurl's limits refused up front
#   - Tomcat 10 and Jetty 9 started with a TLS connector and HTTP/2 (targets/containers
#     --tls --h2): HTTP/1.1 over TLS, h2 and h2c answered
#   - a session is offered only to the server that gave it: two servers sharing their
#     ticket keys, B's certificate one soak refuses; before the fix the lean driver's slots
#     offered A's session to B, which resumed it (143 requests answered, B's certificate
#     never seen)
. "$(dirname "$0")/lib.sh"

CA=$TOP/tests/data/tls

# q DB SQL: one value.
q() { sqlite3 "$1" "$2"; }

# start_nginx DIR: nginx with six servers (ports NG_TLS: TLS 1.2 and 1.3, access log;
# NG_TLS12: TLS 1.2 only; NG_MTLS: a client certificate required; NG_PLAIN: plain HTTP;
# NG_H2: h2 over TLS and NG_H2C: h2c, both with a GOAWAY after every 100 requests of a
# connection; NG_H2K: h2 over TLS without, /rst reset with RST_STREAM; access logs).
start_nginx() {
  local d=$1
  mkdir -p "$d"
  NG_TLS=$(free_port) NG_TLS12=$(free_port) NG_MTLS=$(free_port) NG_PLAIN=$(free_port)
  NG_H2=$(free_port) NG_H2C=$(free_port) NG_H2K=$(free_port)
  cat >"$d/nginx.conf" <<NGX
worker_processes 1;
daemon off;
master_process off;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000;
  ssl_certificate $CA/server.pem;
  ssl_certificate_key $CA/server.key;
  server {
    listen 127.0.0.1:$NG_TLS ssl;
    ssl_protocols TLSv1.2 TLSv1.3;
    access_log $d/access.log;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NG_TLS12 ssl;
    ssl_protocols TLSv1.2;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NG_MTLS ssl;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_verify_client on;
    ssl_client_certificate $CA/ca.pem;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NG_PLAIN;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NG_H2 ssl http2;
    listen 127.0.0.1:$NG_H2C http2;
    ssl_protocols TLSv1.2 TLSv1.3;
    keepalive_requests 100;
    access_log $d/h2.log;
    location / { return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$NG_H2K ssl http2;
    ssl_protocols TLSv1.2 TLSv1.3;
    # One connection for the whole run: 100,000 requests (the http block's) take a fast
    # machine 2 s, and nginx then ends the connection with a GOAWAY.
    keepalive_requests 100000000;
    access_log $d/h2k.log;
    location / { return 200 "ok\n"; }
    location /rst { return 444; }
  }
}
NGX
  spawn "$d/nginx.out" nginx -c "$d/nginx.conf" -p "$d"
  wait_for 10 curl -fs --cacert "$CA/ca.pem" "https://localhost:$NG_TLS/" -o /dev/null
}

# run CLIENT NAME URL [OPTIONS...]: a short run into $T/CLIENT/NAME.db; its output in .log.
run() {
  local c=$1 name=$2 url=$3
  shift 3
  "$BIN/soak" run -q --db "$T/$c/$name.db" --client "$c" --threads 1 --url "$url" -c 4 \
    -d 2s --interval 1s --timeout 5s "$@" >"$T/$c/$name.log" 2>&1
}

# errors_are DB CLASS: every request failed, all of them with CLASS.
errors_are() {
  local req errs cls
  req=$(q "$1" "SELECT sum(requests) FROM intervals")
  errs=$(q "$1" "SELECT IFNULL(sum(count), 0) FROM interval_errors WHERE class = '$2'")
  cls=$(q "$1" "SELECT group_concat(DISTINCT class) FROM interval_errors")
  [ "${req:-0}" -gt 0 ] && [ "$req" = "$errs" ] && [ "$cls" = "$2" ]
}
# sample DB CLASS: the class's first message.
sample() { q "$1" "SELECT sample FROM interval_errors WHERE class = '$2' LIMIT 1"; }
env_of() { q "$1" "SELECT value FROM run_env WHERE source = '' AND key = '$2'"; }

# peer MODE: a misbehaving peer (tls_target.py); sets PEER_PORT and PEER_LOG.
peer() {
  PEER_LOG=$T/$C/peer-$1.log
  spawn "$PEER_LOG" python3 "$TOP/tests/it/tls_target.py" "$1" "$CA/server.pem" "$CA/server.key"
  local line
  line=$(wait_line "$PEER_LOG" 'listening on 127\.0\.0\.1:[0-9]+' 10) || return 1
  PEER_PORT=${line##*:}
}

cases() {
  C=$1
  local db url n
  mkdir -p "$T/$C"
  start_nginx "$T/$C/ngx" || { fail "[$C] nginx with TLS starts"; return; }
  url=https://localhost:$NG_TLS/

  # The test CA is not the system's: a certificate failure, worded with the way out.
  # (libcurl loads the system's CA bundle for each connection: slow under ASan, hence the
  # longer timeout)
  run "$C" untrusted "$url" --timeout 20s
  db=$T/$C/untrusted.db
  check "[$C] an untrusted certificate: every request tls_certificate" errors_are "$db" tls_certificate
  check "[$C] ... and the sample says why" grep -qiE 'self.signed|unable to get local issuer' <<<"$(sample "$db" tls_certificate)"
  [ "$C" = lean ] && check "[$C] ... and the way out" grep -q 'ca_file = its CA, or insecure = yes' <<<"$(sample "$db" tls_certificate)"

  # The same run with the CA given: every request answered, and nothing lost.
  : >"$T/$C/ngx/access.log"
  run "$C" trusted "$url" --cacert "$CA/ca.pem"
  db=$T/$C/trusted.db
  n=$(q "$db" "SELECT sum(requests) FROM intervals")
  check_eq "[$C] --cacert: no errors" "$(q "$db" "SELECT sum(errors) FROM intervals")" 0
  # (the Server-banner probe's HEAD is the run's own, not one of its requests)
  check_eq "[$C] --cacert: every request nginx answered is one soak counted" \
    "$(grep -c '"GET / ' "$T/$C/ngx/access.log")" "$n"
  check_eq "[$C] run_env: verified against the CA file" "$(env_of "$db" tls_verify)" "on (ca_file $CA/ca.pem)"
  check_eq "[$C] run_env: TLS 1.3 negotiated" "$(env_of "$db" tls_version)" TLSv1.3
  check "[$C] run_env: a TLS 1.3 cipher" grep -q '^TLS_' <<<"$(env_of "$db" tls_cipher)"
  check_eq "[$C] run_env: ALPN chose http/1.1" "$(env_of "$db" alpn)" http/1.1
  check_eq "[$C] keep-alive: one full handshake per connection, none resumed" \
    "$(q "$db" "SELECT sum(tls_full) || ' ' || sum(tls_resumed) FROM intervals")" \
    "$(q "$db" "SELECT sum(new_conns) FROM intervals") 0"

  # The system's CAs where OpenSSL's variable says they are.
  SSL_CERT_FILE=$CA/ca.pem run "$C" certfile "$url"
  check_eq "[$C] SSL_CERT_FILE names the CAs to trust: no errors" \
    "$(q "$T/$C/certfile.db" "SELECT sum(errors) = 0 AND sum(requests) > 0 FROM intervals")" 1

  # A connection per request, certificates not checked: resumed after the first ones.
  run "$C" close "$url" --insecure --connection close
  db=$T/$C/close.db
  check_eq "[$C] -k: no errors" "$(q "$db" "SELECT sum(errors) FROM intervals")" 0
  check_eq "[$C] -k: run_env says insecure" "$(env_of "$db" tls_verify)" "off (insecure)"
  check_eq "[$C] close: a handshake per request" \
    "$(q "$db" "SELECT sum(tls_full) + sum(tls_resumed) FROM intervals")" \
    "$(q "$db" "SELECT sum(requests) FROM intervals")"
  check "[$C] close: most handshakes resumed" test "$(q "$db" "SELECT sum(tls_resumed) > 4 * sum(tls_full) FROM intervals")" = 1
  check "[$C] close: the handshake histogram, in the step" test "$(q "$db" "SELECT tls_p50_us > 0 AND tls_p99_us >= tls_p50_us AND length(tls_hist) > 0 FROM steps")" = 1
  run "$C" noresume "$url" --insecure --connection close --tls-resume no
  db=$T/$C/noresume.db
  check_eq "[$C] --tls-resume no: every handshake a full one" \
    "$(q "$db" "SELECT sum(tls_resumed) || ' ' || (sum(tls_full) = sum(requests)) FROM intervals")" "0 1"

  # A client certificate the server requires: nginx finishes the handshake without one and
  # answers 400 (its way of saying so).
  run "$C" nocert "https://localhost:$NG_MTLS/" --cacert "$CA/ca.pem"
  check "[$C] a client certificate required, none given: nginx's 400" errors_are "$T/$C/nocert.db" http_4xx
  run "$C" cert "https://localhost:$NG_MTLS/" --cacert "$CA/ca.pem" --cert "$CA/client.pem" --key "$CA/client.key"
  check_eq "[$C] ... given: answered" "$(q "$T/$C/cert.db" "SELECT sum(errors) = 0 AND sum(requests) > 0 FROM intervals")" 1

  # No version in common: the server's alert.
  run "$C" version "https://localhost:$NG_TLS12/" --cacert "$CA/ca.pem" --tls-min 1.3
  check "[$C] TLS 1.2 server, --tls-min 1.3: tls_alert" errors_are "$T/$C/version.db" tls_alert

  # A plain server on an https URL.
  run "$C" plain "https://localhost:$NG_PLAIN/" --insecure
  check "[$C] a plain-HTTP server: protocol" errors_are "$T/$C/plain.db" protocol

  # A handshake that never completes: the request's timeout, as tls_timeout.
  peer stall || { fail "[$C] the stalling peer starts"; return; }
  run "$C" stall "https://localhost:$PEER_PORT/" --insecure --timeout 500ms -d 2s
  db=$T/$C/stall.db
  check "[$C] a handshake that never completes: tls_timeout" errors_are "$db" tls_timeout
  # (two connections are the run's own: the preflight's and the Server-banner probe's)
  check_eq "[$C] ... each connection the peer took is one failed request" \
    "$(grep -c '^conn' "$PEER_LOG")" "$(q "$db" "SELECT sum(requests) + 2 FROM intervals")"

  # A peer that closes in the middle of a TLS record.
  peer cut || { fail "[$C] the cutting peer starts"; return; }
  run "$C" cut "https://localhost:$PEER_PORT/" --insecure
  db=$T/$C/cut.db
  check "[$C] a close in the middle of a record: reset" errors_are "$db" reset
  [ "$C" = lean ] && check "[$C] ... said so" grep -q 'in the middle of a record' <<<"$(sample "$db" reset)"
  check_eq "[$C] ... each connection the peer took is one failed request" \
    "$(grep -c '^conn' "$PEER_LOG")" "$(q "$db" "SELECT sum(requests) + 2 FROM intervals")"
}
per_client cases

# --- HTTP/2 -------------------------------------------------------------------------------------
# h2run CLIENT NAME URL [OPTIONS...]: an HTTP/2 run into $T/CLIENT/NAME.db.
h2run() {
  local c=$1 name=$2 url=$3
  shift 3
  "$BIN/soak" run -q --db "$T/$c/$name.db" --client "$c" --threads 1 --url "$url" --http 2 \
    -d 2s --interval 1s --timeout 5s "$@" >"$T/$c/$name.log" 2>&1
}

h2cases() {
  C=$1
  local db
  mkdir -p "$T/$C"
  start_nginx "$T/$C/ngx2" || { fail "[$C] nginx with h2 starts"; return; }
  # h2 over TLS, streams multiplexed on one connection.
  : >"$T/$C/ngx2/h2k.log"
  h2run "$C" h2 "https://localhost:$NG_H2K/" --cacert "$CA/ca.pem" -c 20 --connections 1
  db=$T/$C/h2.db
  check_eq "[$C] h2: answered, no errors" "$(q "$db" "SELECT sum(errors) = 0 AND sum(requests) > 200 FROM intervals")" 1
  check_eq "[$C] h2: every request nginx answered is one soak counted" \
    "$(grep -c '"GET / HTTP/2.0"' "$T/$C/ngx2/h2k.log")" "$(q "$db" "SELECT sum(requests) FROM intervals")"
  check_eq "[$C] h2: 20 streams on one connection" "$(q "$db" "SELECT sum(new_conns) FROM intervals")" 1
  check_eq "[$C] run_env: HTTP/2 over ALPN h2" "$(env_of "$db" http_version) $(env_of "$db" alpn)" "2 h2"
  # A stream the server resets.
  h2run "$C" h2rst "https://localhost:$NG_H2K/rst" --cacert "$CA/ca.pem" -c 4 -d 1s
  check "[$C] RST_STREAM: every request h2_rst_stream" errors_are "$T/$C/h2rst.db" h2_rst_stream
  [ "$C" = lean ] || return 0
  check_eq "[$C] the lean h2 driver ran" "$(q "$db" "SELECT client FROM runs")" lean-h2
  check_eq "[$C] run_env: the server's stream limit (nginx: 128)" "$(env_of "$db" h2_max_streams)" 128
  check "[$C] RST_STREAM frames counted" test "$(q "$T/$C/h2rst.db" "SELECT sum(h2_rst) = sum(requests) FROM intervals")" = 1
  # nginx sends GOAWAY after 100 requests of a connection: the streams it did not take are
  # sent again on a fresh connection, and nothing is lost; h2 and h2c.
  for scheme in https http; do
    : >"$T/$C/ngx2/h2.log"
    db=$T/$C/goaway-$scheme.db
    h2run "$C" "goaway-$scheme" "$scheme://localhost:$([ $scheme = https ] && echo "$NG_H2" || echo "$NG_H2C")/" \
      $([ $scheme = https ] && echo --cacert "$CA/ca.pem") -c 20 --connections 2
    check_eq "[$C] $scheme GOAWAY every 100 requests: no errors" "$(q "$db" "SELECT sum(errors) = 0 AND sum(requests) > 200 FROM intervals")" 1
    check_eq "[$C] $scheme ... every request nginx answered is one soak counted" \
      "$(grep -c '"GET / HTTP/2.0"' "$T/$C/ngx2/h2.log")" "$(q "$db" "SELECT sum(requests) FROM intervals")"
    check "[$C] $scheme ... a new connection about every 100 requests, each GOAWAY counted" \
      test "$(q "$db" "SELECT sum(new_conns) * 100 >= sum(requests) AND sum(h2_goaway) >= sum(new_conns) - 2 FROM intervals")" = 1
  done
  # The open model over HTTP/2: arrivals on a clock, latency from the intended start.
  h2run "$C" h2open "http://localhost:$NG_H2C/" --rate 400/s -d 3s
  check_range "[$C] open model over h2c: requests at 400/s for 3 s" \
    "$(q "$T/$C/h2open.db" "SELECT sum(requests) FROM intervals")" 1080 1260
  check_eq "[$C] ... no errors" "$(q "$T/$C/h2open.db" "SELECT sum(errors) FROM intervals")" 0
  # A TLS server without h2: it refuses the handshake when only h2 is offered.
  h2run "$C" noh2 "https://localhost:$NG_TLS/" --cacert "$CA/ca.pem" -c 2 -d 1s
  check "[$C] a server without h2: tls_alert" errors_are "$T/$C/noh2.db" tls_alert
  check "[$C] ... no application protocol" grep -q 'no application protocol' <<<"$(sample "$T/$C/noh2.db" tls_alert)"
}
per_client h2cases

# --- a TLS session is only ever offered to the server that gave it --------------------------
# Two servers that share their session tickets (tests/it/shared_tickets.py: as a fleet
# behind one name that shares ticket keys): A shows the test CA's certificate, B a
# self-signed one soak must refuse.  The requests alternate between them.  A session A
# gave, offered to B, is resumed there and B's certificate is never seen: B must answer
# no request, and every request to B must fail on its certificate.
cross_sessions() {
  local c=$1 d=$T/cross-$1 line pa pb
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/b.key" -out "$d/b.pem" -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
  spawn "$d/server.out" python3 "$TOP/tests/it/shared_tickets.py" "$CA/server.pem" \
    "$CA/server.key" "$d/b.pem" "$d/b.key" "$d/requests.log"
  line=$(wait_line "$d/server.out" 'listening on 127\.0\.0\.1:[0-9]+ 127\.0\.0\.1:[0-9]+' 10) ||
    { fail "[$c] two servers sharing their tickets start" "$(cat "$d/server.out")"; return; }
  read -r _ _ pa pb <<<"$line"
  pa=${pa##*:} pb=${pb##*:}
  cat >"$d/cross.ini" <<INI
[scenario]
concurrency = 2
duration    = 2s
interval    = 1s
threads     = 1
[tls]
ca_file = $CA/ca.pem
[request.a]
url = https://127.0.0.1:$pa/a
weight = 1
[request.b]
url = https://127.0.0.1:$pb/b
weight = 1
INI
  "$BIN/soak" run -q --client "$c" --db "$d/cross.db" "$d/cross.ini" >"$d/cross.log" 2>&1
  check "[$c] sessions: A answered" grep -q "^$pa " "$d/requests.log"
  check_eq "[$c] sessions: B answered nothing (no session of A's offered to it)" \
    "$(grep -c "^$pb " "$d/requests.log")" 0
  check "[$c] sessions: the requests to B failed on B's certificate" \
    test "$(q "$d/cross.db" "SELECT IFNULL(sum(count), 0) FROM interval_errors WHERE sample LIKE '%certificate%'")" -gt 0
}
per_client cross_sessions

# libcurl before 8.0 breaks h2c on reused connections (curl issue 10634): refused up front.
if [ "$(curl-config --vernum 2>/dev/null || echo 080000)" \< 080000 ]; then
  "$BIN/soak" run --client curl --http 2 --url http://127.0.0.1:9/ -d 1s >"$T/h2c-curl.out" 2>&1
  rc=$?
  check_eq "$(curl-config --version) and h2c: refused (exit status 2)" "$rc" 2
  check "... said why" grep -q 'cannot send h2c' "$T/h2c-curl.out"
fi

# --- lean only: SNI, soak check ---------------------------------------------------------------
mkdir -p "$T/lean"
start_nginx "$T/lean/ngx2" || fail "nginx with TLS starts"
run lean sni "https://127.0.0.1:$NG_TLS/" --cacert "$CA/ca.pem" --sni other.example
check "[lean] --sni a name the certificate lacks: tls_certificate" errors_are "$T/lean/sni.db" tls_certificate
check "[lean] ... hostname mismatch said" grep -qi 'hostname mismatch' <<<"$(sample "$T/lean/sni.db" tls_certificate)"
run lean ip "https://127.0.0.1:$NG_TLS/" --cacert "$CA/ca.pem"
check_eq "[lean] an IP address URL verified against the certificate's IP entry" \
  "$(q "$T/lean/ip.db" "SELECT sum(errors) = 0 AND sum(requests) > 0 FROM intervals")" 1
printf '[scenario]\nduration = 10s\n[request]\nurl = https://localhost/\n[tls]\ninsecure = yes\n' >"$T/s.ini"
"$BIN/soak" check "$T/s.ini" >"$T/check.out" 2>&1
check "soak check shows that certificates are not verified" grep -q 'TLS: certificates NOT verified (insecure)' "$T/check.out"

# --- servlet containers: Tomcat 10 and Jetty 9 with a TLS connector and HTTP/2 -------------
# targets/containers/* --tls --h2 (a test certificate made at start; h2 by ALPN, h2c with
# prior knowledge), the registration servlet's /health on a private PostgreSQL.
chmod 755 "$T" # PostgreSQL runs as postgres and must enter its folder
PG=$T/pg
ct_started=()
ct_stop() {
  local c
  for c in ${ct_started[@]+"${ct_started[@]}"}; do "$TOP/targets/containers/$c" stop "$T/$c" >/dev/null 2>&1; done
  "$TOP/targets/db/postgres.sh" stop "$PG" >/dev/null 2>&1
}
trap 'ct_stop; _cleanup' EXIT
if pg=$("$TOP/targets/db/postgres.sh" start "$PG" 2>"$T/pg.err"); then
  jdbc=$(sed -n 's/^jdbc=//p' <<<"$pg")
  for c in tomcat10 jetty9; do
    if ! info=$("$TOP/targets/containers/$c" start "$T/$c" --jdbc "$jdbc" --heap 128m --tls --h2 2>"$T/$c.err"); then
      fail "$c starts with --tls --h2" "$(tail -3 "$T/$c.err")"
      continue
    fi
    ct_started+=("$c")
    port=$(sed -n 's/^port=//p' <<<"$info") tls=$(sed -n 's/^tls_port=//p' <<<"$info")
    ca=$(sed -n 's/^ca=//p' <<<"$info")
    mkdir -p "$T/$c-runs"
    for what in "h1 https://localhost:$tls/health --cacert $ca" \
                "h2 https://localhost:$tls/health --cacert $ca --http 2" \
                "h2c http://127.0.0.1:$port/health --http 2"; do
      read -r name url opts <<<"$what"
      db=$T/$c-runs/$name.db
      # shellcheck disable=SC2086
      "$BIN/soak" run -q --db "$db" --threads 1 --url "$url" $opts -c 10 -d 2s --interval 1s \
        >"$T/$c-runs/$name.log" 2>&1
      check_eq "$c $name: answered, no errors" \
        "$(q "$db" "SELECT sum(errors) = 0 AND sum(requests) > 10 FROM intervals")" 1
    done
    check_eq "$c h2: over ALPN h2, streams on one connection" \
      "$(env_of "$T/$c-runs/h2.db" alpn) $(q "$T/$c-runs/h2.db" "SELECT sum(new_conns) FROM intervals")" "h2 1"
    check "$c h2c: the server's stream limit recorded" test -n "$(env_of "$T/$c-runs/h2c.db" h2_max_streams)"
  done
else
  fail "postgres starts" "$(cat "$T/pg.err")"
fi
done_testing
