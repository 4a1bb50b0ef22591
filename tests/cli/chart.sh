#!/bin/bash
# cryptoprioctl chart on the host: a real calibration (a fixture: cbc(aes)
# of a 7.2 guest, aesni and virtio-crypto at 16 B to 64 KiB) drawn in the
# terminal in UTF-8 and in ASCII at several widths, no line wider; both
# curves and the crossover at the size the figures say; the SVG well-formed
# with a polyline per implementation and the crossover marked; the model
# under --json valid against the schema; bad documents refused with the
# file and the reason.
# usage: chart.sh CRYPTOPRIOCTL SCHEMA CHECK-JSON-SCHEMA FIXTURE
set -u
ctl=$1 schema=$2 validate=$3 fixture=$4
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# From the figures, not from cryptoprioctl: the drivers, the fastest at each
# size (where two were measured) and the first size where that changes, as
# "DRIVER SIZE" ("16 KiB"); "none" if it never does.
read -r cpu engine < <(python3 -c '
import json, sys
[a] = [a for a in json.load(open(sys.argv[1]))["algorithms"] if a["name"] == "cbc(aes)"]
print(*[i["driver"] for i in a["implementations"]])' "$fixture")
crossover=$(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
[a] = [a for a in doc["algorithms"] if a["name"] == "cbc(aes)"]
at = {}
for i in a["implementations"]:
    for p in i["points"]:
        if p["verdict"] == "measured" and p["depth"] == doc["workload"]["depth"]:
            at.setdefault(p["size"], []).append((p["mb_per_s"]["median"], i["driver"]))
last = None
for size in sorted(at):
    if len(at[size]) < 2:
        continue
    best = max(at[size])[1]
    if last and best != last:
        unit = next(((n, u) for n, u in ((1 << 20, "MiB"), (1 << 10, "KiB")) if size >= n and size % n == 0), (1, "B"))
        print(best, f"{size // unit[0]} {unit[1]}")
        break
    last = best
else:
    print("none")' "$fixture")
ok "the fixture has a crossover (its figures: $crossover)" test "$crossover" != none

# widest FILE: the widest line of FILE, in characters
widest() { python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' "$1"; }
# legend FILE: both curves in FILE's legend, each with its class
legend() { grep -qE "^[^ ]+ $cpu \(cpu\)\$" "$1" && grep -qE "^[^ ]+ $engine \(offload\)\$" "$1"; }
for locale in C.UTF-8 C; do
	for width in 40 80 200; do
		out=$tmp/chart-$locale-$width.txt
		LC_ALL=$locale COLUMNS=$width "$ctl" chart "$fixture" >"$out"
		ok "$locale, $width columns: exit 0" test $? -eq 0
		ok "$locale, $width columns: no line wider ($(widest "$out"))" \
			test "$(widest "$out")" -le "$width"
		ok "$locale, $width columns: the crossover in words" \
			grep -qE "^[^ ]+ ${crossover%% *} wins from ${crossover#* }\$" "$out"
		ok "$locale, $width columns: both curves in the legend" legend "$out"
	done
done
# plotted FILE MARK...: each MARK drawn in the plot (right of the axis)
plotted() {
	local file=$1 mark
	shift
	for mark; do grep -qE "^ *[0-9.]* [|+┤│].*$mark" "$file" || return 1; done
}
ok "UTF-8: both curves drawn" plotted "$tmp/chart-C.UTF-8-80.txt" ● ○
ok "C locale: both curves drawn" plotted "$tmp/chart-C-80.txt" A B
ok "C locale: ASCII only" python3 -c 'open(__import__("sys").argv[1], encoding="ascii").read()' \
	"$tmp/chart-C-80.txt"
# The X under the axis stands under the tick and label of the crossover's size.
ok "C locale: the crossover marked under its size" python3 - "$tmp/chart-C-80.txt" "${crossover#* }" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
[axis] = [i for i, l in enumerate(lines) if l.lstrip().startswith("++-")]
labels, marks = lines[axis + 1], lines[axis + 2]
col = marks.index("X")
n, unit = sys.argv[2].split()
short = n + {"B": "", "KiB": "K", "MiB": "M"}[unit]
start = labels.index(" " + short) + 1
assert lines[axis][col] == "+", (lines[axis], col)
assert start <= col < start + len(short), (labels, marks)
assert "W" in marks, marks
PY
ok "a document on standard input draws the same" \
	cmp -s <(LC_ALL=C COLUMNS=80 "$ctl" chart - <"$fixture") "$tmp/chart-C-80.txt"

# The SVG: well-formed, a polyline per implementation, the crossover marked.
"$ctl" chart --svg "$tmp/chart.svg" "$fixture" >"$tmp/svg.out"
ok "--svg: exit 0, nothing on standard output" test $? -eq 0 -a ! -s "$tmp/svg.out"
ok "--svg: well-formed, a polyline per implementation, the crossover marked" \
	python3 - "$tmp/chart.svg" "$cpu" "$engine" "${crossover%% *} wins from ${crossover#* }" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
lines = root.findall(".//s:polyline", ns)
assert len(lines) == 2, len(lines)
for line in lines:
    assert len(line.get("points").split()) >= 2, line.get("points")
texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
for driver in sys.argv[2:4]:
    assert any(t.startswith(driver) for t in texts), (driver, texts)
cross = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "crossover"]
assert len(cross) == 1 and cross[0].find("s:line", ns) is not None, cross
assert "".join(cross[0].find("s:text", ns).itertext()) == sys.argv[4], sys.argv[4]
assert any(g.get("class") == "workload" for g in root.iter("{http://www.w3.org/2000/svg}g"))
PY
ok "--svg -: the same SVG on standard output" cmp -s <("$ctl" chart --svg - "$fixture") "$tmp/chart.svg"
ok "--svg: no temporary file left beside it" test "$(ls "$tmp" | grep -c chart.svg)" -eq 1

# --json: the model, valid, with the crossover the figures show.
"$ctl" --json chart "$fixture" >"$tmp/model.json"
# valid NAME: $tmp/NAME.json valid against the schema (what the validator says, as comments)
valid() { "$validate" "$schema" "$tmp/$1.json" >"$tmp/$1.check" 2>&1 || { sed 's/^/# /' "$tmp/$1.check"; false; }; }
ok "--json: valid against the schema" valid model
ok "--json: the crossover" test "$(python3 -c '
import json, sys
[a] = json.load(open(sys.argv[1]))["algorithms"]
print(" ".join(c["to"] + " " + c["text"].split(" from ")[1] for c in a["crossovers"][:1]))' "$tmp/model.json")" = "$crossover"
# refused CODE ERE ARGS...: chart ARGS exits CODE, one line on stderr matching ERE
refused() {
	local want=$1 ere=$2 err rc
	shift 2
	err=$("$ctl" chart "$@" 2>&1 >/dev/null)
	rc=$?
	[[ $rc -eq $want && $err =~ $ere && $(wc -l <<<"$err") -eq 1 ]] || { echo "# exit $rc: $err"; false; }
}
# edit NAME PYTHON: the fixture changed by PYTHON (over d) into $tmp/NAME.json
edit() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
		"$fixture" "$2" "$tmp/$1.json"
}
echo 'cbc(aes) 16 256' >"$tmp/text.json"
ok "not JSON: refused, exit 1" refused 1 "^cryptoprioctl: chart: $tmp/text.json: not a JSON document" "$tmp/text.json"
edit plan 'd["verb"] = "plan"'
ok "another verb's document: refused" refused 1 "$tmp/plan.json: not a calibrate document \(its verb: plan\)\$" "$tmp/plan.json"
edit raw 'd["verb"] = "calibrate --raw"'
ok "calibrate --raw's: refused" refused 1 "not a calibrate document \(its verb: calibrate --raw\)" "$tmp/raw.json"
edit unmeasured '[p.update(verdict="unmeasured") for a in d["algorithms"] for i in a["implementations"] for p in i["points"]]'
ok "no point measured: refused" refused 1 "$tmp/unmeasured.json: no point measured at the workload's depth" "$tmp/unmeasured.json"
edit depth 'd["workload"]["depth"] += 1'
ok "no point at the workload's depth: refused" refused 1 "no point measured at the workload's depth" "$tmp/depth.json"
edit nosize '[p.pop("size") for a in d["algorithms"] for i in a["implementations"] for p in i["points"][:1]]'
ok "a point without its size: refused" refused 1 "$tmp/nosize.json: a point without a size" "$tmp/nosize.json"
ok "a missing file: refused with the reason" refused 1 "cannot read $tmp/absent.json: No such file" "$tmp/absent.json"
ok "no document: exit 2" refused 2 "chart: missing DOCUMENT" 
ok "two documents: exit 2" refused 2 "chart: one DOCUMENT" "$fixture" "$fixture"
ok "--svg - with --json: exit 2" refused 2 "--svg - and --json" --json --svg - "$fixture"
ok "--svg FILE under a file: exit 1, the reason" refused 1 "cannot write $tmp/text.json/c.svg: Not a directory" --svg "$tmp/text.json/c.svg" "$fixture"
"$ctl" --json chart "$tmp/plan.json" >"$tmp/error.json" 2>/dev/null
ok "--json: a refused document gets the error document" valid error

# calibrate's side, refused before anything is measured (exit 2: no privilege needed).
# calibrate_refused ERE ARGS...: calibrate ARGS exits 2 saying ERE
calibrate_refused() {
	local ere=$1 err rc
	shift
	err=$("$ctl" -c /dev/null calibrate "$@" 2>&1 >/dev/null)
	rc=$?
	[[ $rc -eq 2 && $err =~ $ere ]] || { echo "# exit $rc: $err"; false; }
}
ok "calibrate --chart with --json: refused" calibrate_refused "--chart draws for a terminal" --chart --json
ok "calibrate --chart=svg - with --json: refused" calibrate_refused "--chart=svg - and --json" --json --chart=svg -
ok "calibrate --chart=svg without FILE: refused" calibrate_refused "--chart=svg needs a FILE" --chart=svg
ok "calibrate --chart=png: refused" calibrate_refused "bad --chart 'png'" --chart=png x.png
ok "calibrate --raw --chart: unknown there" calibrate_refused "unknown option '--chart'" --raw --chart
done_testing
