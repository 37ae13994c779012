# Wireshark (Qt) under Xvfb for the GUI checks (check_gui.sh,
# check_gui_stats.sh): sourced, not run.
#
#   gui_start WORK-DIR PLUGIN-DIR CAPTURE [wireshark arguments...]
#     starts Xvfb on a free display and Wireshark on a copy of CAPTURE, as
#     nobody when we are root, with a large main window and no bytes pane;
#     sets DISPLAY, xvfb_pid and ws_pid. Lines in gui_recent (if set) go
#     into Wireshark's recent file too. gui_cleanup (an EXIT trap) stops
#     both and removes WORK-DIR.
#   gui_window NAME-REGEX   waits for a visible window, prints its id
#   gui_ocr PNG OUT-BASE     screenshot of the whole screen, and its OCR text
#   gui_click WORD [MIN-Y] [DX] [DY] [MAX-Y]  clicks the first word on
#                            screen OCR reads as starting with WORD (any case),
#                            between MIN-Y and MAX-Y pixels from the top, DX
#                            pixels right of and DY below its middle; fails
#                            when there is none
xvfb_pid="" ws_pid="" gui_work=""
# Tesseract on one thread: its OpenMP threads spin against each other and
# the other tests on a 2-core machine; one thread read a 3000x1900
# screenshot in 4.1 s where the default took 16.5 s, the same text.
export OMP_THREAD_LIMIT=1
gui_cleanup() {
  [ -n "$ws_pid" ] && kill "$ws_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  [ -n "$gui_work" ] && rm -rf "$gui_work"
}

gui_start() {
  gui_work=$1 dir=$2 cap=$3
  shift 3
  chmod 755 "$gui_work"
  mkdir -p "$gui_work/home/.config/wireshark"
  cat >"$gui_work/home/.config/wireshark/recent" <<'RECENT'
gui.bytes_view_show: FALSE
gui.geometry_main_x: 0
gui.geometry_main_y: 0
gui.geometry_main_width: 1600
gui.geometry_main_height: 1000
gui.geometry_main_maximized: TRUE
RECENT
  [ -z "${gui_recent:-}" ] || printf '%s\n' "$gui_recent" >>"$gui_work/home/.config/wireshark/recent"
  cp "$cap" "$gui_work/capture.pcap"
  chmod 644 "$gui_work/capture.pcap"
  # A display of our own: the first free number from 90, no TCP listener.
  n=90
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp -ac >"$gui_work/xvfb.log" 2>&1 &
  xvfb_pid=$!
  i=0
  while [ ! -e "/tmp/.X11-unix/X$n" ]; do
    i=$((i + 1)); [ $i -lt 100 ] || { echo "FAIL: Xvfb did not start"; cat "$gui_work/xvfb.log"; exit 1; }
    sleep 0.1
  done
  export DISPLAY=":$n"
  run=""
  if [ "$(id -u)" = 0 ]; then
    chown -R 65534:65534 "$gui_work/home"
    run="setpriv --reuid=65534 --regid=65534 --clear-groups"
    # A plugin folder nobody cannot reach (a clone under /root) is copied.
    # (Sourced by a script of this folder: $0 is that script.)
    . "$(dirname "$0")/for_nobody.sh"
    dir=$(for_nobody "$dir" "$gui_work")
  fi
  $run env HOME="$gui_work/home" WIRESHARK_PLUGIN_DIR="$dir" QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$gui_work/home" \
    ${ROCEV2_TSHARK_PRELOAD:+LD_PRELOAD=$ROCEV2_TSHARK_PRELOAD} \
    wireshark -r "$gui_work/capture.pcap" -o gui.update.enabled:FALSE "$@" \
    >"$gui_work/wireshark.log" 2>&1 &
  ws_pid=$!
}

gui_window() {
  i=0
  win=""
  while [ -z "$win" ]; do
    i=$((i + 1))
    if [ $i -gt 120 ] || ! kill -0 "$ws_pid" 2>/dev/null; then
      echo "FAIL: no Wireshark window named '$1'" >&2; cat "$gui_work/wireshark.log" >&2; return 1
    fi
    sleep 0.5
    win=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -1 || true)
  done
  echo "$win"
}

gui_ocr() {
  import -window root "$1"
  tesseract "$1" "$2" >/dev/null 2>&1
}

gui_click() {
  # Read at twice the size: OCR misses the small menu font otherwise.
  import -window root "$gui_work/click.png"
  convert "$gui_work/click.png" -resize 200% "$gui_work/click2.png"
  tesseract "$gui_work/click2.png" "$gui_work/click" tsv >/dev/null 2>&1
  pos=$(awk -F'\t' -v w="$1" -v y="${2:-0}" -v dx="${3:-0}" -v dy="${4:-0}" -v maxy="${5:-100000}" \
        'NR > 1 && index(tolower($12), tolower(w)) == 1 && $8 / 2 >= y && $8 / 2 <= maxy {
        print int(($7 + $9 / 2) / 2) + dx, int(($8 + $10 / 2) / 2) + dy; exit }' "$gui_work/click.tsv")
  [ -n "$pos" ] || { echo "FAIL: no '$1' on screen" >&2; return 1; }
  # shellcheck disable=SC2086
  xdotool mousemove $pos click 1
}
