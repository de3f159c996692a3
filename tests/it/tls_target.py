#!/usr/bin/env python3
"""The misbehaving TLS peer of tests/it/test_tls.sh (a helper, not a test).

    tls_target.py MODE CERT KEY

Listens on 127.0.0.1 (any free port), prints `listening on 127.0.0.1:PORT`, and one line
`conn N` per connection it accepts, and plays MODE on each:
  stall  accepts and never says a word: a TLS handshake that never completes
  cut    completes the TLS handshake (CERT, KEY), reads the request, encrypts a whole
         HTTP/1.1 200 answer and sends only the first half of its TLS record, then closes:
         a peer that closes in the middle of a record
One thread per connection; stop it with a signal.
"""
import socket, ssl, sys, threading, time

mode, cert, key = sys.argv[1], sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ANSWER = b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n' + b'x' * 1000


def pump(c, tls, inb, outb):
    """Sends what the TLS object wrote; reads into it when it wants more. False at EOF."""
    data = outb.read()
    if data:
        c.sendall(data)
    d = c.recv(65536)
    if not d:
        return False
    inb.write(d)
    return True


def cut(c):
    inb, outb = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inb, outb, server_side=True)
    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            if not pump(c, tls, inb, outb):
                return
    c.sendall(outb.read())  # the handshake's last flight (and session tickets)
    req = b''
    while b'\r\n\r\n' not in req:
        try:
            req += tls.read(65536)
        except ssl.SSLWantReadError:
            if not pump(c, tls, inb, outb):
                return
    outb.read()  # anything queued (tickets) is dropped: only the answer's record follows
    tls.write(ANSWER)
    record = outb.read()
    c.sendall(record[: len(record) // 2])


def serve(c):
    try:
        if mode == 'stall':
            time.sleep(600)
        else:
            cut(c)
    except (OSError, ssl.SSLError):
        pass
    finally:
        c.close()


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0))
s.listen(1024)
print('listening on 127.0.0.1:%d' % s.getsockname()[1], flush=True)
n = 0
while True:
    c, _ = s.accept()
    n += 1
    print('conn %d' % n, flush=True)
    threading.Thread(target=serve, args=(c,), daemon=True).start()
