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
xvfb_pid="" ws_pid=""
cleanup() {
  [ -n "$ws_pid" ] && kill "$ws_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
mkdir -p "$work/home/.config/wireshark"
# A large main window without the bytes pane, so that the details show.
cat >"$work/home/.config/wireshark/recent" <<'RECENT'
gui.bytes_view_show: FALSE
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: 1600
gui.geometry_main_height: 1000
gui.geometry_main_maximized: TRUE
RECENT
cp "$cap" "$work/capture.pcap"
chmod 644 "$work/capture.pcap"

# A display of our own: the first free number from 90, no TCP listener.
n=90
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp -ac >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
i=0
while [ ! -e "/tmp/.X11-unix/X$n" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "FAIL: Xvfb did not start"; cat "$work/xvfb.log"; exit 1; }
  sleep 0.1
done
export DISPLAY=":$n"

run=""
if [ "$(id -u)" = 0 ]; then
  chown -R 65534:65534 "$work/home"
  run="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
$run env HOME="$work/home" WIRESHARK_PLUGIN_DIR="$dir" QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$work/home" \
  ${ROCEV2_TSHARK_PRELOAD:+LD_PRELOAD=$ROCEV2_TSHARK_PRELOAD} \
  wireshark -r "$work/capture.pcap" -J "$jump" -o gui.update.enabled:FALSE \
  >"$work/wireshark.log" 2>&1 &
ws_pid=$!

# Wait for the main window, then expand the subtree of the selected field.
i=0
win=""
while [ -z "$win" ]; do
  i=$((i + 1))
  if [ $i -gt 120 ] || ! kill -0 "$ws_pid" 2>/dev/null; then
    echo "FAIL: no Wireshark window"; cat "$work/wireshark.log"; exit 1
  fi
  sleep 0.5
  win=$(xdotool search --onlyvisible --name 'capture\.pcap' 2>/dev/null | head -1 || true)
done
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
