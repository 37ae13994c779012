#!/bin/sh
# The statistics dialogs in the GUI: Wireshark (Qt) under Xvfb opens a
# sample capture with the plugin loaded and a dialog given by -z (the
# Conversations dialog on its RoCEv2 tab with "conv,rocev2", Service
# Response Time with "rocev2,srt"); a screenshot is taken and OCR
# (Tesseract) must read each of the words given in it. The screenshot is
# kept as OUT.png, its OCR text as OUT.txt.
#
#   check_gui_stats.sh PLUGIN-DIR CAPTURE Z-ARG WINDOW-REGEX OUT.png WORD...
#
# Z-ARG "menu:ITEM:TAB[:FILTER:WORD]" opens the dialog from the Statistics
# menu instead (Wireshark 4.0 cannot open Conversations by -z) with its
# tab TAB alone (Wireshark's recent gui.conversation_tabs, a short name
# without spaces: Wireshark's list reader splits at them). With FILTER
# and WORD, it then narrows the protocol list by typing FILTER in its
# filter box, ticks the protocol whose name has the word WORD (its box,
# left of the name) and opens that tab, found by WORD too (OCR reads
# "RoCE v1" as two words, each unlike "RoCEv2").
#
# A WORD given as !TEXT must NOT be read in the screenshot (the rows of
# another tab kept apart).
#
# With --check-only, no Wireshark: the words are looked for in an existing
# OUT.png (the screenshots kept in docs/ are checked so).
#   check_gui_stats.sh --check-only PNG WORD...
set -eu
need_words() { # ocr-text, words...
  txt=$1
  shift
  fail=0 passed=0
  for w in "$@"; do
    case $w in
    !?*)
      if grep -qiF -- "${w#!}" "$txt"; then
        echo "FAIL: the screenshot shows '${w#!}'"; fail=1
      else
        passed=$((passed + 1))
      fi
      continue ;;
    esac
    if grep -qiF -- "$w" "$txt"; then
      passed=$((passed + 1))
    else
      echo "FAIL: the screenshot does not show '$w'"; fail=1
    fi
  done
  [ $fail = 0 ] || { echo "--- OCR text:"; cat "$txt"; }
  echo "$passed passed, $fail failed"
  return $fail
}

if [ "$1" = --check-only ]; then
  png=$2
  shift 2
  out=$(mktemp -d /tmp/rocev2-ocr.XXXXXX)
  trap 'rm -rf "$out"' EXIT
  tesseract "$png" "$out/ocr" >/dev/null 2>&1
  need_words "$out/ocr.txt" "$@"
  exit $?
fi

dir=$1 cap=$2 z=$3 name=$4 png=$5
shift 5
work=$(mktemp -d /tmp/rocev2-gui.XXXXXX)
. "$(dirname "$0")/gui_lib.sh"
trap gui_cleanup EXIT
case $z in
menu:*)
  item=$(echo "$z" | cut -d: -f2) filter=$(echo "$z" | cut -d: -f4) word=$(echo "$z" | cut -d: -f5)
  gui_recent="gui.conversation_tabs: $(echo "$z" | cut -d: -f3)"
  gui_start "$work" "$dir" "$cap"
  main=$(gui_window 'capture\.pcap') || exit 1
  sleep 3
  xdotool windowactivate --sync "$main" 2>/dev/null || true
  gui_click Statistics || { cp "$work/click.png" "$png"; exit 1; }
  sleep 1
  gui_click "$item" || { cp "$work/click.png" "$png"; exit 1; }
  win=$(gui_window "$name") || exit 1
  sleep 3
  xdotool windowactivate --sync "$win" 2>/dev/null || true
  xdotool windowsize "$win" 1400 600 2>/dev/null || true
  xdotool windowmove "$win" 0 0 2>/dev/null || true
  sleep 2
  if [ -n "$filter" ]; then
    # The filter box under the protocol list (its grey hint is no text OCR
    # finds reliably): at the bottom left of the window sized above.
    xdotool mousemove --window "$win" 100 536 click 1
    xdotool type "$filter"
    sleep 1
    gui_click "$word" 250 -66 0 520 || { cp "$work/click.png" "$png"; exit 1; }
    sleep 2
    gui_click "$word" 0 0 0 60 || { cp "$work/click.png" "$png"; exit 1; }
    sleep 1
  fi
  ;;
*)
  gui_start "$work" "$dir" "$cap" -z "$z"
  win=$(gui_window "$name") || exit 1
  ;;
esac
sleep 3
xdotool windowactivate --sync "$win" 2>/dev/null || true
xdotool windowsize "$win" 1400 600 2>/dev/null || true
xdotool windowmove "$win" 0 0 2>/dev/null || true
sleep 2
import -window "$win" "$png" 2>/dev/null || import -window root "$png"
tesseract "$png" "$work/ocr" >/dev/null 2>&1
cp "$work/ocr.txt" "${png%.png}.txt"
echo "screenshot: $png"
need_words "$work/ocr.txt" "$@"
