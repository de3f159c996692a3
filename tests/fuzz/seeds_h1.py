#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_h1 from the recorded responses (tests/data/http).

    tests/fuzz/seeds_h1.py        (from the top of the tree; rewrites only seed-* files)

Each seed is the 2-byte prefix fuzz_h1 reads (flags: HEAD, EOF after the bytes, chunking
seed; keep-buffer choice) and a stream: every recorded response as it came, keep-alive
streams of two and three answers, an interim answer before a final one, and mutations
(cut short, a header line doubled, Content-Length off by one, chunk sizes in upper case,
LF line ends, the status line of HTTP/1.0).
"""
import hashlib
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(TOP, "tests", "data", "http")
OUT = os.path.join(TOP, "tests", "fuzz", "corpus", "h1")


def save(flags, keep, blob):
    b = bytes([flags, keep]) + blob
    with open(os.path.join(OUT, "seed-" + hashlib.sha1(b).hexdigest()[:16]), "wb") as f:
        f.write(b)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.startswith("seed-"):
            os.remove(os.path.join(OUT, f))
    rows = []
    for mf in ("MANIFEST", "MANIFEST.extra"):
        for line in open(os.path.join(DATA, mf)):
            if line.startswith("#") or not line.strip():
                continue
            name, method, status, _, _, keep, eof = line.split()
            rows.append((name, method, status, int(keep), int(eof)))
    seen = set()
    ka = []
    for name, method, status, keep, eof in rows:
        if name in seen:
            continue
        seen.add(name)
        blob = open(os.path.join(DATA, name + ".http"), "rb").read()
        head = 1 if method == "HEAD" else 0
        close = 2 if eof or status.startswith("x") else 0
        for i, k in enumerate((4, 0, 3)):
            save(head | close | (i * 37 << 2 & 0xfc), k, blob)
            if len(blob) > 4096:
                break  # one copy of a big body is enough
        if keep and not status.startswith("x") and not head:
            ka.append(blob)
        if len(blob) > 4096:
            continue
        # Mutations of each file.
        save(head | 2, 4, blob[: len(blob) // 2])
        save(head, 3, blob.replace(b"\r\n", b"\n"))
        save(head, 4, blob.replace(b"HTTP/1.1 ", b"HTTP/1.0 ", 1))
        lines = blob.split(b"\r\n")
        if len(lines) > 2:
            save(head, 4, b"\r\n".join(lines[:2] + lines[1:]))
        m = re.search(rb"Content-Length: (\d+)\r\n", blob)
        if m:
            n = int(m.group(1))
            save(head | 2, 4, blob.replace(b"Content-Length: %d" % n, b"Content-Length: %d" % (n + 1), 1))
            save(head, 4, blob.replace(b"Content-Length: %d" % n, b"Content-Length: %d" % max(n - 1, 0), 1))
    for i in range(len(ka)):
        save(0, 4, ka[i] + ka[(i + 1) % len(ka)])
        save(1 << 2, 2, ka[i] + ka[(i + 3) % len(ka)] + ka[(i + 5) % len(ka)])
        save(0, 4, b"HTTP/1.1 100 Continue\r\n\r\n" + ka[i])
    chunked = open(os.path.join(DATA, "synth-chunked-ext-trailer.http"), "rb").read()
    save(0, 4, chunked.replace(b"5;ext=1", b"5").replace(b"\r\n6\r\n", b"\r\nA\r\n").replace(b" world", b" world....."))
    save(0, 4, chunked + chunked)


if __name__ == "__main__":
    main()
