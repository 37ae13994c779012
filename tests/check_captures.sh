#!/bin/sh
# The committed sample captures are exactly what the generator writes, and
# every one of them is a pcap that tshark reads frame for frame. The rxe-*
# captures are recorded, not generated (scripts/rxe-vm/lossy-captures,
# between two Linux rxe hosts): they are only read and counted.
# usage: check_captures.sh ROCE-TESTER CAPTURES-DIR
set -eu
tester=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tester" craft --samples "$tmp"
status=0
for f in "$tmp"/*; do
  name=$(basename "$f")
  if [ ! -f "$dir/$name" ]; then
    echo "missing from $dir: $name (run: cmake --build build --target captures)"
    status=1
  elif ! cmp -s "$f" "$dir/$name"; then
    echo "differs from a fresh generation: $dir/$name (run: cmake --build build --target captures)"
    status=1
  fi
done
for f in "$dir"/*.pcap; do
  case $(basename "$f") in rxe-*) continue ;; esac
  [ -f "$tmp/$(basename "$f")" ] || { echo "not generated any more: $f"; status=1; }
done

if command -v tshark >/dev/null 2>&1; then
  for f in "$dir"/*.pcap; do
    want=$(grep -cv '^#' "${f%.pcap}.expect")
    got=$(tshark -n -r "$f" -T fields -e frame.number 2>/dev/null | wc -l)
    if [ "$want" != "$got" ]; then
      echo "$f: tshark read $got frames, the .expect file lists $want"
      status=1
    fi
  done
fi
# captures/README.md states each file's frame count.
for f in "$dir"/*.pcap; do
  name=$(basename "$f")
  want=$(grep -cv '^#' "${f%.pcap}.expect")
  row=$(grep -F "| \`$name\` |" "$dir/README.md" | awk -F'|' '{gsub(/ /, "", $3); print $3}')
  if [ "$row" != "$want" ]; then
    echo "captures/README.md says $name has '${row}' frames; it has $want"
    status=1
  fi
done
[ $status = 0 ] && echo "captures: all $(ls "$tmp" | wc -l) generated files identical, and all $(ls "$dir"/*.pcap | wc -l) readable"
exit $status
