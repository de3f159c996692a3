#!/usr/bin/env python3
"""Records real HTTP responses as files for tests/unit/test_h1.c and the fuzz corpus.

    tests/data/http/record.py [--regserver URL] [--nginx URL] [--tomcat URL] [--jetty URL]

Each capture sends one raw request (or several on one connection) and keeps the bytes the
server sends back until it closes or stays quiet for 0.5 s.  Then each single-response file
is served once to curl, which reports what libcurl makes of it (status, header bytes, body
bytes); those figures go into MANIFEST, so the unit test checks the lean parser against
libcurl on the very same bytes.  Files of several responses (keep-alive sequences) get
their figures from the parser's own rules, written by hand in MANIFEST.extra.

Synthetic responses (SYNTH below: the cases real servers rarely send — interim 1xx,
chunk extensions and trailers, bodies that end at close, broken framing) are written and
checked against curl the same way, with no server needed.

MANIFEST line: NAME METHOD STATUS HEADER_BYTES BODY_BYTES KEEP_ALIVE NEEDS_EOF
STATUS is curl's HTTP code, or xN when curl failed with exit code N (the unit test
classes that code with http_transport_class and expects the lean parser's class to be the
same).  KEEP_ALIVE and NEEDS_EOF are filled in from the response's framing, not by curl.
"""
import argparse
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
FORM = b"username=rec%s&email=rec%s@example.test&password=secret123"


SYNTH = {
    "synth-chunked-ext-trailer": ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"),
    "synth-chunked-big": ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                          b"".join(b"%x\r\n%s\r\n" % (1000 + i, b"%d" % (i % 10) * (1000 + i))
                                   for i in range(12)) + b"0\r\n\r\n"),
    "synth-interim-102-103": ("GET", b"HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
                              b"Link: </a.css>; rel=preload\r\n\r\n"
                              b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    "synth-eof-body": ("GET", b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end\n"),
    "synth-http10-eof": ("GET", b"HTTP/1.0 200 OK\r\n\r\nbody until close"),
    "synth-http10-keepalive": ("GET", b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
                               b"Content-Length: 2\r\n\r\nok"),
    "synth-204": ("GET", b"HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n"),
    "synth-304-length": ("GET", b"HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n"),
    "synth-head-chunked": ("HEAD", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
    "synth-head-length": ("HEAD", b"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n"),
    "synth-lf-only": ("GET", b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok"),
    "synth-folded-header": ("GET", b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Length: 2\r\n\r\nok"),
    "synth-500-close": ("GET", b"HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\n"
                        b"Content-Length: 5\r\n\r\noops\n"),
    "synth-599": ("GET", b"HTTP/1.1 599 Custom\r\nContent-Length: 0\r\n\r\n"),
    "synth-cut-body": ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"),
    "synth-cut-headers": ("GET", b"HTTP/1.1 200 OK\r\nContent-Len"),
    "synth-cut-chunk": ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"),
    "synth-empty": ("GET", b""),
    "synth-status-00": ("GET", b"HTTP/1.0 00 OK\r\n\r\nbody until close"),
    "synth-not-http": ("GET", b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"),
    "synth-bad-length": ("GET", b"HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\nhello world!"),
    "synth-bad-chunk": ("GET", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
}


def hostport(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port or 80


def exchange(url, raw, quiet=0.5, limit=5.0):
    """Sends raw bytes, returns what came back before close or `quiet` seconds of silence."""
    s = socket.create_connection(hostport(url), timeout=limit)
    s.sendall(raw)
    s.settimeout(quiet)
    out = b""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        if not d:
            break
        out += d
    s.close()
    return out


def req(method, path, host, headers=(), body=b"", version=b"HTTP/1.1"):
    lines = [b"%s %s %s" % (method, path, version), b"Host: " + host.encode(),
             b"User-Agent: soak-record", b"Accept: */*"]
    lines += list(headers)
    if body or method == b"POST":
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def via_curl(data, method):
    """Serves data once on a fresh port; returns curl's [status, header bytes, body bytes],
    the status being xN when curl failed with exit code N."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def serve():
        c, _ = srv.accept()
        c.settimeout(2)
        try:
            c.recv(65536)
            if data:
                c.sendall(data)
        finally:
            c.close()
            srv.close()

    t = threading.Thread(target=serve)
    t.start()
    args = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_header} %{size_download}",
            "--max-time", "3"]
    if method == "HEAD":
        args.append("-I")
    elif method != "GET":
        args += ["-X", method, "--data", "x=1"]
    out = subprocess.run(args + ["http://127.0.0.1:%d/" % port], capture_output=True, text=True)
    t.join()
    f = out.stdout.split()
    if out.returncode != 0:
        f[0] = "x%d" % out.returncode
    return f


def framing(data, method):
    """KEEP_ALIVE and NEEDS_EOF from the last response's head."""
    if not data.startswith(b"HTTP/1."):
        return 0, 0
    data = data.replace(b"\r\n", b"\n")
    head = data.rsplit(b"HTTP/1.", 1)
    head = (b"HTTP/1." + head[1]).split(b"\n\n", 1)[0].lower()
    v10 = head.startswith(b"http/1.0")
    close = b"\nconnection: close" in head
    ka = b"\nconnection: keep-alive" in head
    keep = 0 if close or (v10 and not ka) else 1
    try:
        status = int(head[9:12])
    except ValueError:
        return 0, 0
    length = b"\ncontent-length:" in head or b"\ntransfer-encoding: chunked" in head
    eof = 0 if method == "HEAD" or length or v10 and ka or status in (204, 304) or status < 200 else 1
    return (0 if eof else keep), eof


def main():
    ap = argparse.ArgumentParser()
    for k in ("regserver", "nginx", "tomcat", "jetty"):
        ap.add_argument("--" + k)
    a = ap.parse_args()
    n = str(os.getpid()).encode()
    caps = []  # (name, url, method, raw request)
    if a.regserver:
        h = "%s:%d" % hostport(a.regserver)
        ct = b"Content-Type: application/x-www-form-urlencoded"
        caps += [
            ("regserver-health", a.regserver, "GET", req(b"GET", b"/health", h)),
            ("regserver-head", a.regserver, "HEAD", req(b"HEAD", b"/health", h)),
            ("regserver-201", a.regserver, "POST", req(b"POST", b"/register", h, [ct], FORM % (n, n))),
            ("regserver-409", a.regserver, "POST", req(b"POST", b"/register", h, [ct], FORM % (n, n))),
            ("regserver-400", a.regserver, "POST", req(b"POST", b"/register", h, [ct], b"username=x")),
            ("regserver-415", a.regserver, "POST",
             req(b"POST", b"/register", h, [b"Content-Type: text/plain"], b"hello")),
            ("regserver-405", a.regserver, "GET", req(b"GET", b"/register", h)),
            ("regserver-404", a.regserver, "GET", req(b"GET", b"/nope", h)),
            ("regserver-close", a.regserver, "GET",
             req(b"GET", b"/health", h, [b"Connection: close"])),
        ]
    if a.nginx:
        h = "%s:%d" % hostport(a.nginx)
        caps += [
            ("nginx-200", a.nginx, "GET", req(b"GET", b"/", h)),
            ("nginx-head", a.nginx, "HEAD", req(b"HEAD", b"/", h)),
            ("nginx-404", a.nginx, "GET", req(b"GET", b"/static/missing", h)),
            ("nginx-301", a.nginx, "GET", req(b"GET", b"/static", h)),
            ("nginx-big", a.nginx, "GET", req(b"GET", b"/static/big.txt", h)),
            ("nginx-gzip-chunked", a.nginx, "GET",
             req(b"GET", b"/static/big.txt", h, [b"Accept-Encoding: gzip"])),
            ("nginx-http10", a.nginx, "GET", req(b"GET", b"/", h, version=b"HTTP/1.0")),
            ("nginx-close", a.nginx, "GET", req(b"GET", b"/", h, [b"Connection: close"])),
            ("nginx-keepalive-limit", a.nginx, "GET",
             req(b"GET", b"/limit/", h) + req(b"GET", b"/limit/", h)),
        ]
    for name, url in (("tomcat", a.tomcat), ("jetty", a.jetty)):
        if not url:
            continue
        h = "%s:%d" % hostport(url)
        ct = b"Content-Type: application/x-www-form-urlencoded"
        m = (name.encode() + n)
        caps += [
            (name + "-health", url, "GET", req(b"GET", b"/health", h)),
            (name + "-201", url, "POST", req(b"POST", b"/register", h, [ct], FORM % (m, m))),
            (name + "-409", url, "POST", req(b"POST", b"/register", h, [ct], FORM % (m, m))),
            (name + "-404", url, "GET", req(b"GET", b"/nope", h)),
            (name + "-continue", url, "POST",
             req(b"POST", b"/register", h, [ct, b"Expect: 100-continue"], FORM % (m + b"c", m + b"c"))),
            (name + "-http10", url, "GET", req(b"GET", b"/health", h, version=b"HTTP/1.0")),
        ]
        # The container's keep-alive limit: 100 requests on one connection, the last answer
        # says `Connection: close`.  Only the last two answers are kept.
        raw = b"".join(req(b"GET", b"/health", h) for _ in range(100))
        caps.append((name + "-keepalive-limit", url, "GET", raw))
    manifest = []
    for name, url, method, raw in caps:
        data = exchange(url, raw)
        if not data:
            print("no answer for %s" % name, file=sys.stderr)
            return 1
        if name.endswith("keepalive-limit") and data.count(b"HTTP/1.1 ") > 2:
            parts = data.split(b"HTTP/1.1 ")
            data = b"HTTP/1.1 " + b"HTTP/1.1 ".join(parts[-2:])
        with open(os.path.join(HERE, name + ".http"), "wb") as f:
            f.write(data)
        keep, eof = framing(data, method)
        if data.count(b"HTTP/1.") - data.count(b"HTTP/1.1 100 ") > 1:
            print("%s: several responses; describe it in MANIFEST.extra" % name, file=sys.stderr)
            continue
        code, hb, bb = via_curl(data, method)
        manifest.append("%s %s %s %s %s %d %d" % (name, method, code, hb, bb, keep, eof))
    for name, (method, data) in SYNTH.items():
        with open(os.path.join(HERE, name + ".http"), "wb") as f:
            f.write(data)
        keep, eof = framing(data, method)
        code, hb, bb = via_curl(data, method)
        manifest.append("%s %s %s %s %s %d %d" % (name, method, code, hb, bb, keep, eof))
    with open(os.path.join(HERE, "MANIFEST"), "w") as f:
        f.write("# written by record.py: NAME METHOD STATUS HEADER_BYTES BODY_BYTES KEEP_ALIVE NEEDS_EOF\n")
        f.write("\n".join(manifest) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
