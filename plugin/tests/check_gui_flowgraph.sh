#!/bin/sh
# Statistics > Flow Graph in the GUI: Wireshark (Qt) under Xvfb opens a
# sample capture with the plugin loaded, the Flow Graph from the Statistics
# menu, and its flow type "RoCEv2 Flows" (typed into the Flow type list:
# the GUI has no -z for it). Two screenshots are taken, the ladder's start
# and, scrolled down, its end; OCR (Tesseract) must read each of the words
# given in one of them. The screenshots are kept as OUT.png and
# OUT-end.png, their OCR text as OUT.txt and OUT-end.txt.
#
#   check_gui_flowgraph.sh PLUGIN-DIR CAPTURE OUT.png WORD...
set -eu
dir=$1 cap=$2 png=$3
shift 3
end=${png%.png}-end.png
work=$(mktemp -d /tmp/rocev2-gui.XXXXXX)
. "$(dirname "$0")/gui_lib.sh"
trap gui_cleanup EXIT
shot() { # window, png: the screenshot and its OCR text (png with .txt)
  import -window "$1" "$2" 2>/dev/null || import -window root "$2"
  # Read at twice the size: OCR misses words of the small fonts otherwise.
  convert "$2" -resize 200% "$work/ocr.png"
  tesseract "$work/ocr.png" "$work/ocr" >/dev/null 2>&1
  cp "$work/ocr.txt" "${2%.png}.txt"
  echo "screenshot: $2"
}
failed() { cp "$work/click.png" "$png"; exit 1; }

gui_start "$work" "$dir" "$cap"
main=$(gui_window 'capture\.pcap') || exit 1
sleep 3
xdotool windowactivate --sync "$main" 2>/dev/null || true
gui_click Statistics || failed
sleep 1
gui_click "Flow" || failed
win=$(gui_window 'Flow') || exit 1
sleep 3
xdotool windowactivate --sync "$win" 2>/dev/null || true
xdotool windowsize "$win" 1500 950 2>/dev/null || true
xdotool windowmove "$win" 0 0 2>/dev/null || true
sleep 2
# The Flow type list (at the bottom, showing "All Flows"): open it, type the
# start of our flow type's name, take it.
gui_click All 700 || failed
sleep 1
xdotool type RoCEv2
xdotool key Return
sleep 4
shot "$win" "$png"
# The ladder's end: scroll the diagram down.
xdotool mousemove 500 400
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do xdotool click 5; done
sleep 2
shot "$win" "$end"
cat "${png%.png}.txt" "${end%.png}.txt" >"$work/both.txt"
fail=0 passed=0
for w in "$@"; do
  if grep -qiF -- "$w" "$work/both.txt"; then
    passed=$((passed + 1))
  else
    echo "FAIL: neither screenshot shows '$w'"; fail=1
  fi
done
[ $fail = 0 ] || { echo "--- OCR text:"; cat "$work/both.txt"; }
echo "$passed passed, $fail failed"
exit $fail
