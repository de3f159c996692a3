#!/usr/bin/env bash
# The picture on the README's front page: the first screen (1280x800) of a real report's
# report.html, taken by headless Chromium, in 16 greys so that it stays small in git.
#   tools/readme-picture.sh [REPORT_DIR] [OUT.png]
# (default: demo/report/ of `make demo DEMO_TARGET=regserver`, docs/img/report-first-screen.png)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/demo/report}
out=${2:-$top/docs/img/report-first-screen.png}
[ -f "$dir/report.html" ] || { echo "readme-picture: no $dir/report.html" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$tmp/profile" --window-size=1280,800 --screenshot="$tmp/shot.png" \
  "file://$(cd "$dir" && pwd)/report.html" >/dev/null 2>"$tmp/chromium.log"
# Chromium's RGB(A) PNG, decoded (zlib and the five filters), as a 4-bit grey palette PNG.
python3 - "$tmp/shot.png" "$out" <<'PY'
import struct
import sys
import zlib

d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(d):
    n, t = struct.unpack(">I", d[pos:pos + 4])[0], d[pos + 4:pos + 8]
    c = d[pos + 8:pos + 8 + n]
    pos += 12 + n
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", c[:10])
    elif t == b"IDAT":
        idat += c
assert depth == 8 and ctype in (2, 6), "an 8-bit RGB or RGBA PNG"
bpp = 3 if ctype == 2 else 4
raw, stride, prev, i, levels = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0, 16
out = bytearray()
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    grey = [min(levels - 1, (line[x * bpp] * 299 + line[x * bpp + 1] * 587 +
                             line[x * bpp + 2] * 114) * levels // 256000) for x in range(w)]
    grey.append(0)
    out.append(0)
    out += bytes((grey[x] << 4) | grey[x + 1] for x in range(0, w, 2))


def chunk(t, c):
    return struct.pack(">I", len(c)) + t + c + struct.pack(">I", zlib.crc32(t + c))


pal = b"".join(bytes([v] * 3) for v in (round(k * 255 / (levels - 1)) for k in range(levels)))
open(sys.argv[2], "wb").write(b"\x89PNG\r\n\x1a\n" +
                              chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 4, 3, 0, 0, 0)) +
                              chunk(b"PLTE", pal) + chunk(b"IDAT", zlib.compress(bytes(out), 9)) +
                              chunk(b"IEND", b""))
PY
echo "$out: $(stat -c %s "$out") bytes"
