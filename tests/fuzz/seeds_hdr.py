#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_hdr_decode and fuzz_hlog from the reference logs.

    tests/fuzz/seeds_hdr.py        (from the top of the tree; rewrites only seed-* files)

fuzz_hdr_decode seeds: every distinct histogram of tests/data/hdr as an envelope (mode byte
0), as inflated content (1) and as base64 text (2), plus hand-made empty and one-count ones.
fuzz_hlog seeds: both logs whole, their first lines, and variants for each header rule
(BaseTime, EndTimestamp legend, CRLF, absolute timestamps, tags).
"""
import base64
import hashlib
import os
import struct
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(TOP, "tests", "data", "hdr")
CORPUS = os.path.join(TOP, "tests", "fuzz", "corpus")


def save(name, blob):
    d = os.path.join(CORPUS, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + hashlib.sha1(blob).hexdigest()[:16]), "wb") as f:
        f.write(blob)


def envelope(inflated):
    z = zlib.compress(inflated, 9)
    return struct.pack(">II", 0x1C849314, len(z)) + z


def inflated(digits, lo, hi, tokens):
    payload = b""
    for t in tokens:
        u = ((t << 1) ^ (t >> 63)) & 0xFFFFFFFFFFFFFFFF
        for _ in range(8):
            if u < 0x80:
                break
            payload += bytes([(u & 0x7F) | 0x80])
            u >>= 7
        payload += bytes([u & 0xFF])
    head = struct.pack(">IiiiqqQ", 0x1C849313, len(payload), 0, digits, lo, hi,
                       0x3FF0000000000000)
    return head + payload


def main():
    for f in os.listdir(os.path.join(CORPUS, "hdr_decode")) if os.path.isdir(
            os.path.join(CORPUS, "hdr_decode")) else []:
        if f.startswith("seed-"):
            os.remove(os.path.join(CORPUS, "hdr_decode", f))
    seen = set()
    logs = {}
    for name in sorted(os.listdir(DATA)):
        if not name.endswith(".hlog"):
            continue
        with open(os.path.join(DATA, name), "rb") as f:
            logs[name] = f.read()
        for line in logs[name].splitlines():
            if line.startswith(b"#") or line.startswith(b'"'):
                continue
            b64 = line.split(b",")[-1]
            if b64 in seen:
                continue
            seen.add(b64)
            env = base64.b64decode(b64)
            save("hdr_decode", b"\x00" + env)
            save("hdr_decode", b"\x01" + zlib.decompress(env[8:]))
            save("hdr_decode", b"\x02" + b64)
    made = [inflated(3, 1, 3600000000, []), inflated(3, 1, 3600000000, [0, -5, 7]),
            inflated(0, 1, 1000, [1] * 11), inflated(5, 1, 3600000000000, [-300000, 2]),
            inflated(2, 20000, 3600000000000, [12, 9, -82, 1, 0, 1 << 62])]
    for m in made:
        save("hdr_decode", b"\x00" + envelope(m))
        save("hdr_decode", b"\x01" + m)
        save("hdr_decode", b"\x02" + base64.b64encode(envelope(m)))

    d = os.path.join(CORPUS, "hlog")
    if os.path.isdir(d):
        for f in os.listdir(d):
            if f.startswith("seed-"):
                os.remove(os.path.join(d, f))
    v2 = logs["jHiccup-2.0.7S.logV2.hlog"]
    tagged = logs["tagged-Log.logV2.hlog"]
    lines = v2.splitlines(keepends=True)
    for text in (v2, tagged, b"".join(lines[:6]), b"".join(tagged.splitlines(True)[:8])):
        save("hlog", text)
    interval = lines[4]
    save("hlog", lines[0] + lines[1] + b"#[BaseTime: 1441812279.474 (seconds since epoch)]\n"
         + interval)
    save("hlog", b'"StartTimestamp","EndTimestamp","Interval_Max",'
         b'"Interval_Compressed_Histogram"\n0.127,1.134,2.769,' + interval.split(b",")[3])
    save("hlog", b"".join(l.rstrip(b"\n") + b"\r\n" for l in lines[:7]))
    save("hlog", lines[2] + b"1441812279.601,1.007,2.769," + interval.split(b",")[3])
    save("hlog", b"Tag=A," + interval + b"Tag=get_users," + lines[5] + interval)
    save("hlog", b"0.000,0.000,0.000," + base64.b64encode(envelope(made[0])) + b"\n")


if __name__ == "__main__":
    main()
