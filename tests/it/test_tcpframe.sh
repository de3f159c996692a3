#!/usr/bin/env bash
# soak's tcp-frame driver against bin/monitor and small fake servers on 127.0.0.1: frames
# byte for byte as Java's DataOutputStream writes them, long vs short connections (new
# connections, every message stored exactly once, the drain included), bad replies classed
# while the run goes on, timeouts, refused connects, and the monitor's own checks.
# Every run is a few seconds; every wait is bounded.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
DB=$T/run.db
q() { sql "$DB" "$@"; }

# Frame templates as files: a scenario line is at most 199 bytes (libinih's limit).
cat >"$T/memory.json" <<'EOF'
{"T":"MonitorItemData","S":39,"D":{"UsedPhysicalMemorySize":7412318208,"MemoryHeapUsed":412358144,"MemoryHeapMax":2147483648},"S":{"APP_NUM":"demo","INST_NUM":null},"TS":${now_ms},"MID":${seq}}
EOF
cat >"$T/threading.json" <<'EOF'
{"T":"MonitorItemData","S":39,"D":{"ThreadCount":214,"PeakThreadCount":231,"TopThreads":"exec-17:RUNNABLE"},"S":{"APP_NUM":"demo","INST_NUM":null},"TS":${now_ms},"MID":${seq}}
EOF

# scenario FILE ADDRESS CONNECTION [EXTRA [SECTIONS]]: a tcp-frame scenario with a
# Connect handshake and two data frames.  EXTRA goes into [scenario], SECTIONS at the end.
scenario() {
  cat >"$1" <<EOF
[scenario]
name = tcpframe test
label = $3
concurrency = 10
duration = 4s
interval = 1s
connection = $3
${4:-}

[request]
protocol = tcp-frame
address = $2
timeout = 2s

[handshake]
text = {"T":"Connect","S":1,"HOST_NAME":"agent-\${vu}","IP":["127.0.0.1"],"VERSON":"2.5","CLIENT_SESSION":""}
expect = "T":"ConnectAck"

[frame.memory]
file = $T/memory.json

[frame.threading]
file = $T/threading.json
${5:-}
EOF
}

# run_scn FILE [ARGS...]: a run into $DB; sets RC and LASTRUN.
run_scn() {
  local f=$1; shift
  soak run -q --db "$DB" "$@" "$f" >"$T/out.txt" 2>"$T/err.txt"
  RC=$?
  LASTRUN=$(q 'SELECT max(id) FROM runs')
}
sum_iv() { q "SELECT coalesce(sum($1),0) FROM intervals WHERE run_id=$LASTRUN"; }
errs_of() { q "SELECT coalesce(sum(count),0) FROM interval_errors WHERE run_id=$LASTRUN AND class='$1'"; }
sample_of() { q "SELECT sample FROM interval_errors WHERE run_id=$LASTRUN AND class='$1' LIMIT 1"; }

# start_monitor LOG DB [ARGS...]: sets MON_PID, MON_ADDR.
start_monitor() {
  local log=$1 db=$2 line; shift 2
  spawn "$log" "$BIN/monitor" --port 0 --db "$db" --tag soak-it-monitor "$@"
  MON_PID=$SPAWNED_PID
  line=$(wait_line "$log" 'listening on 127\.0\.0\.1:[0-9]+' 10) || { cat "$log" >&2; return 1; }
  MON_ADDR=${line#listening on }
}
# exit_count LOG KEY: a figure of the monitor's exit line.
exit_count() { sed -n "s/^exit:.* $2=\([0-9]*\).*/\1/p" "$1"; }

# start_fake MODE [--record FILE]: sets FAKE_PID, FAKE_ADDR.
start_fake() {
  local log=$T/fake.$1.log line
  spawn "$log" python3 "$HERE/fake_frame_server.py" "$@"
  FAKE_PID=$SPAWNED_PID
  line=$(wait_line "$log" 'listening on 127\.0\.0\.1:[0-9]+' 10) || { cat "$log" >&2; return 1; }
  FAKE_ADDR=${line#listening on }
}

# --- 1. frames byte for byte: soak's bytes on the wire = DataOutputStream's ------------
if command -v javac >/dev/null && command -v java >/dev/null &&
  javac -d "$T/java" "$HERE/FrameVectors.java" 2>"$T/javac.log"; then
  start_fake ok --record "$T/wire.bin"
  HS='{"T":"Connect","S":1,"HOST_NAME":"hôte-中","CLIENT_SESSION":""}'
  F1='{"T":"MonitorItemData","D":{"naïve€":1.5e3},"MID":7}'
  F2='{"T":"X","t":"\u00e9 and é"}'
  cat >"$T/bytes.ini" <<EOF
[scenario]
concurrency = 1
duration = 1s
think_time = 1h
[request]
protocol = tcp-frame
address = $FAKE_ADDR
[handshake]
text = $HS
[frame.one]
text = $F1
[frame.two]
text = $F2
type = 513
[frame.empty]
text =
type = 65535
EOF
  run_scn "$T/bytes.ini"
  check_eq "bytes run exits 0" "$RC" 0
  check_eq "bytes run: one iteration" "$(sum_iv requests)" 1
  printf '1\t%s\n1\t%s\n513\t%s\n65535\t\n' "$HS" "$F1" "$F2" |
    java -cp "$T/java" FrameVectors >"$T/java.bin"
  wait_for 5 test -s "$T/wire.bin"
  check "java vectors were written" test -s "$T/java.bin"
  if cmp -s "$T/wire.bin" "$T/java.bin"; then
    ok "soak's frames equal DataOutputStream's, byte for byte ($(wc -c <"$T/java.bin") bytes)"
  else
    fail "soak's frames equal DataOutputStream's" \
      "wire $(od -An -tx1 "$T/wire.bin" | head -3 | tr -s ' \n' ' ') java $(od -An -tx1 "$T/java.bin" | head -3 | tr -s ' \n' ' ')"
  fi
  stop_pid "$FAKE_PID"
else
  fail "javac/java 17 builds FrameVectors.java" "$(cat "$T/javac.log" 2>/dev/null)"
fi

# --- 2. long: one connection per VU; the server stores every message sent --------------
start_monitor "$T/mon.long.log" "$T/mon.long.db"
scenario "$T/long.ini" "$MON_ADDR" keepalive "think_time = 20ms"
run_scn "$T/long.ini"
check_eq "long run exits 0" "$RC" 0
check_eq "long run is done" "$(q "SELECT status FROM runs WHERE id=$LASTRUN")" done
check_eq "long run: protocol and address recorded" \
  "$(q "SELECT protocol || ' ' || url FROM runs WHERE id=$LASTRUN")" "tcp-frame $MON_ADDR"
iters=$(sum_iv requests)
check "long: iterations were made" test "$iters" -gt 200
check_eq "long: no errors" "$(sum_iv errors)" 0
check_eq "long: new connections = VUs" "$(sum_iv new_conns)" 10
check_eq "long: a drain interval closes the run" \
  "$(q "SELECT count(*) FROM intervals WHERE run_id=$LASTRUN AND phase='drain'")" 1
check "long: handshake time recorded as ttfb" test -n "$(q "SELECT ttfb_us FROM intervals WHERE run_id=$LASTRUN AND ttfb_us > 0 LIMIT 1")"
stop_pid "$MON_PID"
check_eq "long: the server stored iterations x 2 messages" \
  "$(sql "$T/mon.long.db" 'SELECT count(*) FROM messages')" $((iters * 2))
check_eq "long: its exit line agrees" "$(exit_count "$T/mon.long.log" messages)" $((iters * 2))
check_eq "long: items stored (3 + 3 per iteration)" \
  "$(sql "$T/mon.long.db" 'SELECT count(*) FROM items')" $((iters * 6))
# One more connection than agents: soak checks the address is reachable before the run.
check_eq "long: the server saw 10 (+1 reachability check) connections and 10 Connects" \
  "$(exit_count "$T/mon.long.log" connections) $(exit_count "$T/mon.long.log" connects)" "11 10"
check_eq "long: every MID (= \${seq}) stored twice" \
  "$(sql "$T/mon.long.db" 'SELECT count(*) FROM (SELECT mid FROM messages GROUP BY mid HAVING count(*) = 2)')" "$iters"

# --- 3. short: a connection per iteration ------------------------------------------------
start_monitor "$T/mon.short.log" "$T/mon.short.db"
scenario "$T/short.ini" "$MON_ADDR" close "think_time = 20ms"
run_scn "$T/short.ini"
check_eq "short run exits 0" "$RC" 0
check_eq "short run is done" "$(q "SELECT status FROM runs WHERE id=$LASTRUN")" done
iters=$(sum_iv requests)
check "short: iterations were made" test "$iters" -gt 200
check_eq "short: no errors" "$(sum_iv errors)" 0
check_eq "short: new connections = iterations" "$(sum_iv new_conns)" "$iters"
check "short: connect time recorded" test -n "$(q "SELECT connect_us FROM intervals WHERE run_id=$LASTRUN AND connect_us > 0 LIMIT 1")"
stop_pid "$MON_PID"
check_eq "short: the server stored iterations x 2 messages" \
  "$(sql "$T/mon.short.db" 'SELECT count(*) FROM messages')" $((iters * 2))
check_eq "short: one connection and one Connect per iteration (+1 reachability check)" \
  "$(exit_count "$T/mon.short.log" connections) $(exit_count "$T/mon.short.log" connects)" "$((iters + 1)) $iters"
check "short: sessions outlive connections (peak sessions > 10)" \
  test "$(exit_count "$T/mon.short.log" peak_sessions)" -gt 10

# --- 3b. saturation: no think time; every agent's batches get through -------------------
# The agents write as fast as the kernel takes bytes; the server must still serve every
# connection in turn (one that is never out of bytes must not starve the others).
start_monitor "$T/mon.sat.log" "$T/mon.sat.db" --store messages
scenario "$T/sat.ini" "$MON_ADDR" keepalive "think_time = 0
duration = 3s"
sed -i 's/^timeout = 2s/timeout = 20s/' "$T/sat.ini"
run_scn "$T/sat.ini"
check_eq "saturated run exits 0" "$RC" 0
iters=$(sum_iv requests)
check_eq "saturated: no errors" "$(sum_iv errors)" 0
stop_pid "$MON_PID"
check_eq "saturated: the server stored iterations x 2 messages" \
  "$(sql "$T/mon.sat.db" 'SELECT count(*) FROM messages')" $((iters * 2))
read -r smin smax < <(sql "$T/mon.sat.db" "SELECT min(c), max(c) FROM
  (SELECT session, count(*) c FROM messages GROUP BY session)" | tr '|' ' ')
check "saturated: every agent got at least a quarter of the busiest one's share ($smin vs $smax)" \
  test "$((smin * 4))" -ge "$smax"

# --- 4. replies awaited: --ack and expect_reply -------------------------------------------
start_monitor "$T/mon.ack.log" "$T/mon.ack.db" --ack --latency 5 --store messages
# Every frame waits for its ack: a reply left unread would make the client's close a reset,
# and a reset discards what the server had not read yet.
scenario "$T/ack.ini" "$MON_ADDR" keepalive "concurrency = 4"
sed -i 's/^file = .*/&\nexpect_reply = yes/' "$T/ack.ini"
run_scn "$T/ack.ini"
check_eq "ack run exits 0" "$RC" 0
iters=$(sum_iv requests)
check_eq "ack: no errors" "$(sum_iv errors)" 0
# Each iteration waits for two acks, each held 5 ms: the batch takes >= 10 ms.
check_range "ack: median batch time includes two 5 ms holds" \
  "$(q "SELECT p50_us/1000.0 FROM steps WHERE run_id=$LASTRUN")" 10 40
stop_pid "$MON_PID"
check_eq "ack: acks = messages = iterations x 2" \
  "$(exit_count "$T/mon.ack.log" acks) $(exit_count "$T/mon.ack.log" messages)" "$((iters * 2)) $((iters * 2))"

# --- 5. bad replies are classed; the run goes on and ends done -------------------------
bad_case() { # MODE CLASS SAMPLE-REGEX
  start_fake "$1"
  scenario "$T/bad.$1.ini" "$FAKE_ADDR" keepalive "concurrency = 2
duration = 2s"
  sed -i 's/^timeout = 2s/timeout = 300ms/' "$T/bad.$1.ini"
  run_scn "$T/bad.$1.ini"
  check_eq "$1: run exits 0 and is done" "$RC $(q "SELECT status FROM runs WHERE id=$LASTRUN")" "0 done"
  local n=$(errs_of "$2")
  check "$1: several iterations failed as $2 ($n)" test "$n" -ge 3
  check_eq "$1: every iteration failed" "$(sum_iv errors)" "$(sum_iv requests)"
  if [[ "$(sample_of "$2")" =~ $3 ]]; then ok "$1: sample says why"; else fail "$1: sample says why" "$(sample_of "$2")"; fi
  stop_pid "$FAKE_PID"
}
bad_case badtype protocol 'frame type 2, expected 1'
bad_case toolong protocol 'frame length 2097152 is over max_frame 1048576'
bad_case midframe reset 'in the middle of a frame \(3 of 6 bytes\)'
bad_case silent timeout 'handshake with .* not done within 300ms'

# --- 6. nobody listening: refused at start (exit 3), refused mid-run (counted, backed off) -
port=$(free_port)
scenario "$T/refused.ini" "127.0.0.1:$port" close "concurrency = 2
duration = 3s"
before=$(q 'SELECT count(*) FROM runs')
run_scn "$T/refused.ini"
check_eq "refused at start: exit 3" "$RC" 3
check "refused at start: said so" grep -q "cannot reach the target 127.0.0.1:$port" "$T/err.txt"
check_eq "refused at start: no run recorded" "$(q 'SELECT count(*) FROM runs')" "$before"
start_fake ok
scenario "$T/refused.ini" "$FAKE_ADDR" close "concurrency = 2
duration = 3s"
soak run -q --db "$DB" "$T/refused.ini" >"$T/out.txt" 2>"$T/err.txt" &
runner=$!
sleep 0.5
stop_pid "$FAKE_PID"
wait "$runner"
RC=$?
LASTRUN=$(q 'SELECT max(id) FROM runs')
check_eq "refused mid-run: run is done" "$(q "SELECT status FROM runs WHERE id=$LASTRUN")" done
n=$(errs_of connect_refused)
# Two VUs backing off 50 ms for 2.5 s: about 100 attempts, not a spin.
check_range "refused mid-run: connect_refused counted with a back-off" "$n" 10 150

# --- 7. the monitor closes a connection on a bad frame, with its reason ---------------
start_monitor "$T/mon.bad.log" "$T/mon.bad.db" --max-frame 1000
python3 - "${MON_ADDR%:*}" "${MON_ADDR##*:}" <<'EOF' >"$T/bad-client.txt" 2>&1
import socket, struct, sys
host, port = sys.argv[1], int(sys.argv[2])
def frame(t, payload): return struct.pack(">HI", t, len(payload)) + payload
cases = [frame(2, b"{}"), struct.pack(">HI", 1, 5000), frame(1, b"not json"),
         frame(1, b'{"T":"MonitorItemData"}'), frame(1, b'{"T":"Connect"}') + b"\x00\x01\x00"]
for c in cases:
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(c)
    s.shutdown(socket.SHUT_WR)
    data = b""
    while True:
        d = s.recv(4096)
        if not d: break
        data += d
    s.close()
    print(len(data))
EOF
check_eq "monitor: closed each bad connection (Connect acked once)" "$(tr '\n' ' ' <"$T/bad-client.txt")" "0 0 0 0 51 "
stop_pid "$MON_PID"
check_eq "monitor: 4 bad frames and 1 truncated counted" \
  "$(exit_count "$T/mon.bad.log" bad_frames) $(exit_count "$T/mon.bad.log" truncated)" "4 1"
for re in 'type 2 \(only 1' 'length 5000 over the cap of 1000' 'not a JSON object' \
  'MonitorItemData" message before Connect' 'ended in the middle of a frame'; do
  check "monitor logs: $re" grep -qE "$re" "$T/mon.bad.log"
done

# --- 8. the study's scenario is valid --------------------------------------------------
check "soak check scenarios/tcp-long-vs-short.ini" soak check "$TOP/scenarios/tcp-long-vs-short.ini"

done_testing
