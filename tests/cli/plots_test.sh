#!/usr/bin/env bash
# rentsim plot, --plot and report end to end: every SVG well-formed (python3's xml.etree), the
# same bytes for -j 1 and -j 2, two charts equal to their goldens, PNGs where rsvg-convert is
# on PATH and a note where it is not, the HTML page well-formed.
#   plots_test.sh RENTSIM SOURCE_DIR WORK_DIR
# With RENTSIM_UPDATE_GOLDEN=1 the golden SVGs are rewritten instead of compared.
set -euo pipefail
rentsim=$1 src=$2 work=$3
cd "$src"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "plots_test: $*" >&2; exit 1; }

sweep=tests/cli/plots/bert-large-by-instance-and-nodes.json
"$rentsim" sweep "$sweep" -j 1 --out "$work/r1.json" --plot "$work/p1" >/dev/null 2>"$work/p1.log"
"$rentsim" sweep "$sweep" -j 2 --out "$work/r2.json" --plot "$work/p2" >/dev/null 2>/dev/null
"$rentsim" run scenarios/bert-large-a100-8-vs-16.json -j 2 --plot "$work/demo" >/dev/null 2>/dev/null
charts="time-vs-gpus cost-vs-gpus cost-vs-time scaling-efficiency memory-by-part"
for c in $charts; do
  for d in p1 p2 demo; do test -s "$work/$d/$c.svg" || fail "$d/$c.svg was not written"; done
  cmp -s "$work/p1/$c.svg" "$work/p2/$c.svg" || fail "$c.svg differs between -j 1 and -j 2"
done

# Well-formed XML with an <svg> root, and text only from the fixed set of elements.
python3 - "$work" <<'PY' || fail "an SVG is not well-formed"
import sys, glob, xml.etree.ElementTree as ET
files = sorted(glob.glob(sys.argv[1] + "/*/*.svg"))
assert len(files) == 15, files
allowed = {"svg", "rect", "line", "polyline", "polygon", "circle", "text"}
for f in files:
    root = ET.parse(f).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", (f, root.tag)
    tags = {e.tag.split("}")[1] for e in root.iter()}
    assert tags <= allowed, (f, tags - allowed)
    assert root.get("width") == "720" and root.get("height") == "440", f
PY

# Goldens: a small shipped sweep (the demo) and the richer test sweep (two lines, a deadline).
for pair in "demo/time-vs-gpus.svg:plots/golden-demo-time-vs-gpus.svg" "p1/cost-vs-time.svg:plots/golden-by-instance-cost-vs-time.svg"; do
  got=$work/${pair%%:*} golden=tests/cli/${pair#*:}
  if [ "${RENTSIM_UPDATE_GOLDEN:-}" = 1 ]; then cp "$got" "$golden"; echo "updated $golden"; continue; fi
  diff -u "$golden" "$got" || fail "$got differs from $golden (RENTSIM_UPDATE_GOLDEN=1 rewrites it)"
done

# PNGs where rsvg-convert is on PATH; without it, SVG only and a note.
if command -v rsvg-convert >/dev/null; then
  for c in $charts; do
    head -c 8 "$work/p1/$c.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a' || fail "$c.png is not a PNG"
  done
  grep -q "wrote $work/p1/cost-vs-time.svg and cost-vs-time.png" "$work/p1.log" || fail "--plot did not say what it wrote: $(cat "$work/p1.log")"
fi
env PATH=/nonexistent "$rentsim" plot "$work/r1.json" -o "$work/nopng" >"$work/nopng.log"
grep -qx "no PNG: rsvg-convert is not on PATH (Debian package librsvg2-bin); SVG only" "$work/nopng.log" || fail "no note without rsvg-convert"
! ls "$work"/nopng/*.png 2>/dev/null || fail "PNGs written without rsvg-convert"
for c in $charts; do cmp -s "$work/p1/$c.svg" "$work/nopng/$c.svg" || fail "plot and --plot differ for $c.svg"; done
# Charts of an earlier result that this one leaves out are removed: a one-point result into p1.
"$rentsim" run scenarios/gpt3-175b-a100-1024.json --out "$work/one.json" >/dev/null
"$rentsim" plot "$work/one.json" -o "$work/p1" >"$work/one.log"
[ "$(cd "$work/p1" && ls)" = "$(printf 'memory-by-part.png\nmemory-by-part.svg')" ] ||
  [ "$(cd "$work/p1" && ls)" = "memory-by-part.svg" ] || fail "stale charts left: $(ls "$work/p1")"
grep -qx "cost-vs-time: left out: needs two finished points" "$work/one.log" || fail "no note for cost-vs-time: $(cat "$work/one.log")"

# The HTML report: written, parsed by python3's HTML parser with every tag closed that opened.
"$rentsim" report "$work/r1.json" -o "$work/report.html" >"$work/report.log"
grep -qx "wrote $work/report.html (5 charts)" "$work/report.log" || fail "report said: $(cat "$work/report.log")"
python3 - "$work/report.html" <<'PY' || fail "report.html is not balanced HTML"
import sys
from html.parser import HTMLParser
void = {"meta", "br", "img", "hr", "link", "input"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.svgs = 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg": self.svgs += 1
        if tag not in void: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs): pass
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])
        self.stack.pop()
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); p.close()
assert not p.stack, p.stack
assert p.svgs == 5, p.svgs
PY
rm -rf "$work"
echo "plots_test: ok"
