#!/usr/bin/env bash
# The HTML report in headless Chromium: the page loads with no console message (the page has no
# script, so any message is Chromium's own complaint: a bad resource, a blocked fetch, a parse
# error), the DOM holds the five charts, and the screenshot shows them: many colours, among them
# the first two line colours and the deadline's red. Name resolution is mapped to nowhere, so a
# page that reached for the network would not render its part.
#   report_chromium_test.sh RENTSIM SOURCE_DIR WORK_DIR PYTHON3
# Exit 77 (skipped) only when chromium is missing and cannot be installed (not root, no apt-get,
# or no package source).
set -euo pipefail
rentsim=$1 src=$2 work=$3 python=$4
fail() { echo "report_chromium_test: $*" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "report_chromium_test: installing chromium (Debian package)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } || true
  fi
  command -v chromium >/dev/null || { echo "SKIPPED: chromium is not installed and could not be (apt-get install chromium as root)"; exit 77; }
fi
"$python" -c "import PIL" 2>/dev/null || fail "$python lacks PIL (Debian package python3-pil)"
cd "$src"
rm -rf "$work" && mkdir -p "$work"
"$rentsim" sweep tests/cli/plots/bert-large-by-instance-and-nodes.json -j 2 --out "$work/r.json" >/dev/null
"$rentsim" report "$work/r.json" -o "$work/report.html" >/dev/null
url="file://$work/report.html"
# Its own profile folder, so that runs do not share state; --v=0 logs console messages to stderr.
flags=(--headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$work/profile"
       --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0)
timeout 120 chromium "${flags[@]}" --window-size=1200,4200 --screenshot="$work/shot.png" "$url" \
  >"$work/screenshot.out" 2>"$work/screenshot.err" || fail "chromium --screenshot failed: $(tail -5 "$work/screenshot.err")"
timeout 120 chromium "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.err" ||
  fail "chromium --dump-dom failed: $(tail -5 "$work/dom.err")"
if grep -h ':CONSOLE' "$work/screenshot.err" "$work/dom.err"; then fail "console messages (above)"; fi
svgs=$(grep -o '<svg ' "$work/dom.html" | wc -l)
[ "$svgs" = 5 ] || fail "the DOM holds $svgs charts, not 5"
"$python" - "$work/shot.png" <<'PY' || fail "the screenshot does not show the charts"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
colours = {c for _, c in im.getcolors(1 << 24)}
assert len(colours) > 100, f"{len(colours)} colours: a blank page?"
for name, rgb in {"blue line": (0x00, 0x72, 0xB2), "orange line": (0xE6, 0x9F, 0x00), "deadline red": (0xC0, 0x39, 0x2B)}.items():
    assert rgb in colours, f"no {name} pixel"
print(f"report_chromium_test: {len(colours)} colours in the screenshot")
PY
rm -rf "$work"
echo "report_chromium_test: ok"
