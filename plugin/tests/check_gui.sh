#!/bin/sh
# The GUI check: Wireshark (Qt) under Xvfb opens a sample capture with the
# plugin loaded and jumps to a packet by a rocev2 display filter, which
# opens the RoCEv2 tree down to that field; a screenshot is taken. OCR (Tesseract) must read the RoCEv2 protocol in the
# packet list and the RoCEv2 tree in the details: the protocol, the BTH and
# the decoded Info line. The screenshot is kept as OUT.png (a test artifact).
#
#   check_gui.sh PLUGIN-DIR CAPTURE JUMP-FILTER OUT.png
# JUMP-FILTER picks the packet (wireshark -J) and the field selected in its
# tree, e.g. "rocev2.bth.psn == 1007".
set -eu
dir=$1 cap=$2 jump=$3 png=$4
work=$(mktemp -d /tmp/rocev2-gui.XXXXXX)
. "$(dirname "$0")/gui_lib.sh"
trap gui_cleanup EXIT
gui_start "$work" "$dir" "$cap" -J "$jump"

# Wait for the main window, then expand the subtree of the selected field.
win=$(gui_window 'capture\.pcap') || exit 1
sleep 3
xdotool windowactivate --sync "$win" 2>/dev/null || xdotool windowfocus "$win" 2>/dev/null || true
xdotool windowsize "$win" 1600 1000 2>/dev/null || true
sleep 1
# Find the RoCEv2 line of the packet details on screen (OCR word boxes),
# click it and expand its subtrees (Shift+Right).
import -window root "$work/before.png"
tesseract "$work/before.png" "$work/before" tsv >/dev/null 2>&1
pos=$(awk -F'\t' 'NR > 1 && $12 == "Converged" && $8 > 400 { print int($7 + $9 / 2), int($8 + $10 / 2); exit }' \
      "$work/before.tsv")
if [ -z "$pos" ]; then
  echo "FAIL: no RoCEv2 line in the packet details"; cp "$work/before.png" "$png"; exit 1
fi
# shellcheck disable=SC2086
xdotool mousemove $pos click 1
sleep 0.5
xdotool key shift+Right
sleep 2
import -window root "$png"
tesseract "$png" "$work/ocr" >/dev/null 2>&1
cp "$work/ocr.txt" "${png%.png}.txt"

fail=0 passed=0
need() {
  if grep -qiF "$1" "$work/ocr.txt"; then
    passed=$((passed + 1))
  else
    echo "FAIL: the screenshot does not show '$1'"; fail=1
  fi
}
need "RoCEv2"
need "RDMA over Converged Ethernet v2"
need "Base Transport Header"
need "Packet Sequence Number"
if [ $fail != 0 ]; then
  echo "--- OCR text of $png:"; cat "$work/ocr.txt"
fi
echo "screenshot: $png"
echo "$passed passed, $fail failed"
exit $fail
