#!/bin/bash
# The chart's SVG as a browser shows it: the 7.2 calibration drawn with
# chart --svg, rendered by chromium headless into a PNG, which must be the
# window's size and show the chart: enough ink, both curves' colours and
# the crossover's red (the PNG decoded with zlib alone). Skipped (77)
# without chromium (scripts/setup-debian installs it).
# usage: chart-browser.sh CRYPTOPRIOCTL FIXTURE
set -u
ctl=$1 fixture=$2
browser=$(command -v chromium || command -v chromium-browser) || {
	echo "1..0 # SKIP no chromium"
	exit 77
}
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ctl" chart --svg "$tmp/chart.svg" "$fixture"
ok "chart --svg wrote the SVG" test -s "$tmp/chart.svg"
# Its own profile and no D-Bus: nothing of the user's, nothing left behind.
HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
	--screenshot="$tmp/chart.png" --window-size=900,600 "file://$tmp/chart.svg" \
	>"$tmp/browser.log" 2>&1
ok "chromium rendered it (exit $?)" test -s "$tmp/chart.png"
ok "the PNG shows the chart" python3 - "$tmp/chart.png" <<'PY' || sed 's/^/# /' "$tmp/browser.log"
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, header = 8, b"", None
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
width, height, depth, colour_type, _, _, interlace = header
assert (width, height) == (900, 600), f"size {width}x{height}, not the window's 900x600"
assert depth == 8 and colour_type in (2, 6) and interlace == 0, header
bpp = 3 if colour_type == 2 else 4
raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
for y in range(height):
    kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + a) & 255
        elif kind == 2:
            line[i] = (line[i] + b) & 255
        elif kind == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
pixels = [tuple(r[x * bpp:x * bpp + 3]) for r in rows for x in range(width)]
ink = sum(1 for p in pixels if p != (255, 255, 255))
colours = set(pixels)
print(f"# {ink} pixels not white, {len(colours)} colours")
assert ink > width * height // 100, f"{ink} pixels not white: blank"
assert len(colours) > 20, f"{len(colours)} colours"
def near(rgb, tolerance=12):
    return sum(1 for p in pixels if all(abs(p[i] - rgb[i]) <= tolerance for i in range(3)))
for name, rgb in (("the first curve's blue", (0x1F, 0x77, 0xB4)),
                  ("the second curve's red", (0xD6, 0x27, 0x28)),
                  ("the crossover's dark red", (0xCC, 0x00, 0x00))):
    n = near(rgb)
    print(f"# {name}: {n} pixels")
    assert n > 200, f"{name}: {n} pixels"
PY
done_testing
