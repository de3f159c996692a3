#!/usr/bin/env python3
"""Two HTTPS servers that share their session tickets, for tests/it/test_tls.sh: port A shows
CERT_A, port B CERT_B, but both take their ticket keys from one context (a connection on B
switches to B's certificate in the server-name callback, which OpenSSL calls with or without
SNI; the tickets stay the first context's), as a fleet behind one name that shares ticket
keys does.  So B resumes a session A gave, and a client that offers it one never sees B's
certificate.  Every answer is 200; FILE gets one line a request: `PORT resumed|full`.
127.0.0.1 only; it stops on SIGTERM.

    shared_tickets.py CERT_A KEY_A CERT_B KEY_B LOG
prints `listening on 127.0.0.1:PORT_A 127.0.0.1:PORT_B` when ready."""
import signal
import socket
import ssl
import sys
import threading


def main():
    cert_a, key_a, cert_b, key_b, log_path = sys.argv[1:6]
    ctx_a = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx_a.load_cert_chain(cert_a, key_a)
    ctx_b = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx_b.load_cert_chain(cert_b, key_b)
    listeners = []
    for _ in range(2):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        listeners.append(s)
    port_b = listeners[1].getsockname()[1]

    def on_name(sock, name, ctx):
        if sock.getsockname()[1] == port_b:
            sock.context = ctx_b

    ctx_a.sni_callback = on_name
    lock = threading.Lock()
    log = open(log_path, "a")

    def serve(conn, port):
        try:
            tls = ctx_a.wrap_socket(conn, server_side=True)
            buf = b""
            while True:
                data = tls.recv(65536)
                if not data:
                    break
                buf += data
                while b"\r\n\r\n" in buf:
                    head, buf = buf.split(b"\r\n\r\n", 1)
                    with lock:
                        log.write("%d %s\n" % (port, "resumed" if tls.session_reused else "full"))
                        log.flush()
                    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
        except (OSError, ssl.SSLError):
            pass
        finally:
            conn.close()

    def accept(s):
        port = s.getsockname()[1]
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn, port), daemon=True).start()

    for s in listeners:
        threading.Thread(target=accept, args=(s,), daemon=True).start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    print("listening on 127.0.0.1:%d 127.0.0.1:%d" % (listeners[0].getsockname()[1], port_b),
          flush=True)
    done.wait(600)  # bounded: a test that forgets it does not leave it running
    return 0


if __name__ == "__main__":
    sys.exit(main())
