#!/usr/bin/env python3
"""The misbehaving target of tests/it/test_faults*.sh (a helper, not a test).

    test_faults_target.py MODEFILE [PORT]

Listens on 127.0.0.1:PORT (default: any free port), prints `listening on 127.0.0.1:PORT`,
and answers HTTP/1.1 requests as MODEFILE says when each request has arrived:
  ok       200 "ok", keep-alive; it never closes a connection first (so a client that
           closes after each request, as soak's connection = close does, leaves its own
           port in TIME_WAIT)
  stall    reads the request and never answers (the connection stays open)
  garbage  writes bytes that are not HTTP and closes
  reset    closes with SO_LINGER 0: the client gets a RST
  slow     200 with a chunked body "hello world" in three writes 20 ms apart (headers,
           then each chunk), keep-alive: an answer that arrives in pieces
A missing or empty MODEFILE means ok.  One thread per connection; stop it with a signal.
"""
import socket, struct, sys, threading, time

modefile = sys.argv[1]


def mode():
    try:
        with open(modefile) as f:
            return f.read().strip() or 'ok'
    except OSError:
        return 'ok'


def read_request(c, buf):
    while b'\r\n\r\n' not in buf:
        d = c.recv(65536)
        if not d:
            return None, b''
        buf += d
    head, rest = buf.split(b'\r\n\r\n', 1)
    n = 0
    for line in head.split(b'\r\n')[1:]:
        k, _, v = line.partition(b':')
        if k.strip().lower() == b'content-length':
            n = int(v)
    while len(rest) < n:
        d = c.recv(65536)
        if not d:
            return None, b''
        rest += d
    return head, rest[n:]


def serve(c):
    buf = b''
    try:
        while True:
            head, buf = read_request(c, buf)
            if head is None:
                break
            m = mode()
            if m == 'stall':
                time.sleep(600)
            elif m == 'garbage':
                c.sendall(b'\x00\x01garbage, not HTTP at all\r\n\r\n')
                break
            elif m == 'slow':
                for part in (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n',
                             b'5\r\nhello\r\n', b'6\r\n world\r\n0\r\n\r\n'):
                    c.sendall(part)
                    time.sleep(0.02)
            elif m == 'reset':
                c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                break
            else:
                c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    except OSError:
        pass
    finally:
        c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[2]) if len(sys.argv) > 2 else 0))
s.listen(1024)
print('listening on 127.0.0.1:%d' % s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
