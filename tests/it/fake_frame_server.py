#!/usr/bin/env python3
"""A misbehaving (or recording) frame server for tests/it/test_tcpframe.sh, on 127.0.0.1.

  fake_frame_server.py MODE [--record FILE]

Prints `listening on 127.0.0.1:PORT` when ready.  For every connection it reads frames
(2-byte type, 4-byte length, payload) and answers the first one, the handshake, as MODE says:
  ok        a ConnectAck frame (type 1); later frames are read and not answered
  badtype   a frame of type 2
  toolong   a header announcing 2 MB (over soak's default max_frame of 1 MB)
  midframe  three bytes of a header, then close
  silent    nothing (the client must time out)
--record FILE appends every byte the first connection that sends anything sent to FILE
(soak's reachability check before a run connects and closes without a byte).
Stops by itself after 60 s; every socket has a timeout.
"""
import socket
import struct
import sys
import threading
import time


def read_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


CLAIM = threading.Lock()
CLAIMED = []


def serve(conn, mode, record):
    conn.settimeout(10)
    first = True
    mine = False
    try:
        while True:
            hdr = read_exact(conn, 6)
            if hdr is None:
                return
            _, length = struct.unpack(">HI", hdr)
            payload = read_exact(conn, length)
            if payload is None:
                return
            if record is not None and not mine:
                with CLAIM:
                    if not CLAIMED:
                        CLAIMED.append(conn)
                        mine = True
            if mine:
                with open(record, "ab") as f:
                    f.write(hdr + payload)
            if not first:
                continue
            first = False
            ack = b'{"T":"ConnectAck","S":1,"CLIENT_SESSION":"1"}'
            if mode == "ok":
                conn.sendall(struct.pack(">HI", 1, len(ack)) + ack)
            elif mode == "badtype":
                conn.sendall(struct.pack(">HI", 2, len(ack)) + ack)
            elif mode == "toolong":
                conn.sendall(struct.pack(">HI", 1, 2 << 20) + ack)
            elif mode == "midframe":
                conn.sendall(b"\x00\x01\x00")
                return
            elif mode == "silent":
                pass
    except OSError:
        return
    finally:
        conn.close()


def main():
    mode = sys.argv[1]
    record = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--record" else None
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    srv.settimeout(1)
    print("listening on 127.0.0.1:%d" % srv.getsockname()[1], flush=True)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(conn, mode, record), daemon=True).start()


if __name__ == "__main__":
    main()
