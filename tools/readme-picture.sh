#!/usr/bin/env bash
# The picture on the README's front page: the first screen (1280x800) of report.html, taken
# by headless Chromium in 16 greys (small in git), of a fresh study on bin/regserver that
# shows what soak resolves: v2, the same server made to spend 60 us more CPU per request
# than v1 (--burn-us), three processes a side at 100 requests/s each, side by side.
#   tools/readme-picture.sh                 the study (about a minute), its report, the picture
#   tools/readme-picture.sh --reuse         the same from the committed study database
#   tools/readme-picture.sh --figures DIR   the verdict's figures of DIR/report.{json,md}
# Writes docs/img/report-first-screen.{png,db,json}: the picture, the study's database and
# the verdict's figures (test_docs.sh renders the database again and compares them).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
img=$top/docs/img/report-first-screen
export PATH=$top/bin:$PATH BIN=$top/bin

# figures DIR: each compared label's figures and intervals as report.json gives them (the
# half-width in % of the baseline, error % in points), and the verdict table as report.md.
figures() {
  jq --arg db "${img##*/}.db" --rawfile md "$1/report.md" '
    def half($k): if .ci95[0] == null then null
      else (.ci95[1] - .ci95[0]) / 2 * (if $k == "error" then 1
        else 100 / ((.interval_mean_baseline // .baseline) | fabs) end) * 100 | round / 100 end;
    def fig($k): {change_pct, ci95, half: half($k), verdict};
    . as $r | {database: $db, title,
      verdict: [.verdict[] | select(.baseline | not) | . as $v
        | [.comparison, .rate_comparison][] | select(. != null) | $r.comparisons[.]
        | {label: .label, baseline, rate, concurrency, noise,
           figures: ((.metrics | with_entries(.key as $k | .value |= fig($k)))
             + (.cpu_per_request | with_entries((.key |= "cpu." + .) | .value |= fig("cpu"))))}],
      table: [$md | split("\n") | .[(index("## Verdict") // 0) + 1:]
        | .[:(map(startswith("## ")) | index(true))][] | select(startswith("|"))]}' "$1/report.json"
}

# shot DIR OUT.png: DIR/report.html's first screen, as a 4-bit grey PNG.
shot() {
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1280,800 --screenshot="$tmp/shot.png" \
    "file://$1/report.html" >/dev/null 2>"$tmp/chromium.log"
  # Chromium's RGB(A) PNG, decoded (zlib and the five filters), as a 4-bit grey palette PNG.
  python3 - "$tmp/shot.png" "$2" <<'PY'
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
}

# study DB: the study on 127.0.0.1, its regservers started and stopped by it (in $tmp, so
# that the commands the database keeps name no folder of this machine).
study() {
  ln -s "$top/targets/regserver/regserver.sh" "$tmp/regserver.sh"
  cat >"$tmp/rate.ini" <<'EOF'
[scenario]
name = register at 100/s
label = any
rate = 100/s
duration = 8s
warmup = 1s
interval = 500ms
EOF
  cat "$top/targets/regserver/register.ini" >>"$tmp/rate.ini"
  printf '[collect.app]\nevery = 500ms\n' >>"$tmp/rate.ini"
  cat >"$tmp/study.ini" <<EOF
[study]
name = v1 against v2
scenario = rate.ini
rounds = 3
replicas = 3
primary = cpu.app
[target.v1]
start = ./regserver.sh start v1\$SOAK_REPLICA --latency 20 --threads 1 --burn-us 300
stop = ./regserver.sh stop v1\$SOAK_REPLICA
[target.v2]
start = ./regserver.sh start v2\$SOAK_REPLICA --latency 20 --threads 1 --burn-us 360
stop = ./regserver.sh stop v2\$SOAK_REPLICA
EOF
  rm -f "$1"
  (cd "$tmp" && timeout 300 soak study -q --db "$1" study.ini >study.out)
  sqlite3 "$1" 'VACUUM'
}

# Whatever the study left running (it stops its targets itself), stopped by its pid file.
cleanup() {
  local d
  for d in "$tmp"/v*/; do
    [ ! -f "$d/regserver.pid" ] || "$top/targets/regserver/regserver.sh" stop "$d" || true
  done
  rm -rf "$tmp"
}
tmp=$(mktemp -d)
trap cleanup EXIT
case "${1:-}" in
  --figures) figures "$2" && exit ;;
  --reuse) ;;
  "") study "$img.db" ;;
  *) sed -n '2,10p' "$0" >&2 && exit 2 ;;
esac
soak report "$img.db" -o "$tmp/report" --no-plots >/dev/null
figures "$tmp/report" >"$img.json"
shot "$tmp/report" "$img.png"
jq -r '.table[]' "$img.json"
echo "$img.png: $(stat -c %s "$img.png") bytes; $img.db: $(stat -c %s "$img.db") bytes"
