#!/usr/bin/env bash
# The register map picture in a real browser: `khal map --html` of each arch,
# a headless Chromium screenshot of each page, and a check that every
# screenshot is not blank (mostly white background, but a good share of
# drawn pixels, and the HIGH and MED grade colours present).
#
#   bash scripts/map-picture.sh [OUT_DIR]     (default: a fresh temporary folder)
#
# Installs Debian's `chromium` when it is missing (as scripts/on-target.sh
# installs qemu). The khal binary is run through `cargo run`, so it is found
# wherever cargo builds (CARGO_TARGET_DIR honoured). Prints one line per arch
# and exits 0 only when every screenshot passes.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-$(mktemp -d)}"
mkdir -p "$out"

if ! command -v chromium > /dev/null; then
  echo "installing chromium (Debian package)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq > /dev/null
  apt-get install -y -qq --no-install-recommends chromium > /dev/null
fi

cargo build -q -p khal-cli
fail=0
for arch in sunda cayman mariana; do
  html="$out/$arch.html"
  png="$out/$arch.png"
  cargo run -q -p khal-cli -- map --arch "$arch" --html "$html" > /dev/null
  # The page's height is the picture's (its first height attribute).
  # awk reads the file itself: no pipe whose early close (SIGPIPE) would
  # fail the assignment under pipefail.
  height=$(awk 'match($0, /height="[0-9]+"/) { print substr($0, RSTART + 8, RLENGTH - 9); exit }' "$html")
  rm -f "$png"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --no-first-run --window-size="1500,${height}" --screenshot="$png" \
    "file://$(realpath "$html")" > "$out/$arch.chromium.log" 2>&1 || true
  if [ ! -s "$png" ]; then
    echo "map picture $arch ... FAILED (no screenshot; see $out/$arch.chromium.log)"
    fail=1
    continue
  fi
  if python3 - "$png" <<'EOF'
# A PNG reader in the standard library (8-bit RGB/RGBA, not interlaced, as
# Chromium writes them) and the non-blank checks.
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and ctype in (2, 6) and interlace == 0, hdr
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
rows = []
i = 0
for _ in range(h):
    f = raw[i]
    line = bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pr) & 255
    rows.append(line)
    prev = line
total = w * h
drawn = 0
colours = set()
for line in rows:
    for x in range(0, stride, bpp):
        px = tuple(line[x:x + 3])
        if px != (255, 255, 255):
            drawn += 1
        colours.add(px)
share = drawn / total
high = (0x2e, 0x7d, 0x32) in colours
med = (0xf9, 0xa8, 0x25) in colours
print(f"{w}x{h}, {share:.1%} drawn, {len(colours)} colours, HIGH {high}, MED {med}")
ok = w >= 1000 and h >= 400 and 0.03 < share < 0.9 and len(colours) > 16 and high and med
sys.exit(0 if ok else 1)
EOF
  then
    echo "map picture $arch ... ok ($png)"
  else
    echo "map picture $arch ... FAILED ($png)"
    fail=1
  fi
done
exit "$fail"
