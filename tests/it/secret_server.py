#!/usr/bin/env python3
"""An HTTP server for tests/it/test_secrets.sh: it answers every request 201 and writes
what it received (request line, headers, body) to --log, so the test can tell that the
secrets soak keeps out of its own files did reach the server.  Like a real server, it is
given a database password on its command line (--db-password), which soak's collectors
see in /proc.  /echo answers with the X-Tenant header it was sent.  127.0.0.1 only; it stops on SIGTERM.

    secret_server.py --port 0 --log FILE --db-password SECRET
prints `listening on 127.0.0.1:PORT` when ready."""
import argparse
import http.server
import signal
import sys
import threading

MAX_LOGGED = 200  # requests written to the log: enough to see every kind, and bounded


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", required=True)
    ap.add_argument("--db-password", required=True)  # never used: it is there to be seen
    args = ap.parse_args()
    lock = threading.Lock()
    logged = [0]
    log = open(args.log, "ab")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n > 0 else b""
            with lock:
                if logged[0] < MAX_LOGGED:
                    logged[0] += 1
                    log.write(self.requestline.encode("latin-1") + b"\n")
                    log.write(bytes(self.headers))
                    log.write(body + b"\n----\n")
                    log.flush()
            out = b'{"id":1}'
            # /echo answers with the X-Tenant header it got, as a server that quotes what
            # it was sent in an error page does: soak's error sample then quotes it.
            if self.path.startswith("/echo"):
                out = b"X-Tenant: " + (self.headers.get("X-Tenant") or "").encode()
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(out)

        do_GET = do_POST = do_PUT = do_HEAD = answer

        def log_message(self, fmt, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown).start())
    print("listening on 127.0.0.1:%d" % srv.server_address[1], flush=True)
    srv.serve_forever(poll_interval=0.2)
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
