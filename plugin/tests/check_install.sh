#!/bin/sh
# Installing: `cmake --install` puts rocev2.so in Wireshark's global plugin
# folder (checked under a DESTDIR), and -DROCE_PLUGIN_USER_INSTALL=ON in the
# personal folder ~/.local/lib/wireshark/plugins/<major.minor>/epan, from
# where an unprivileged tshark loads it without WIRESHARK_PLUGIN_DIR.
#
#   check_install.sh SOURCE-DIR BUILD-DIR WIRESHARK-PLUGIN-DIR MAJOR.MINOR CAPTURE
set -eu
src=$1 build=$2 global=$3 ver=$4 cap=$5
work=$(mktemp -d /tmp/rocev2-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
fail=0 passed=0

DESTDIR=$work/dest cmake --install "$build" --component plugin >/dev/null
if [ -f "$work/dest$global/epan/rocev2.so" ]; then
  passed=$((passed + 1)); echo "global install: $global/epan/rocev2.so"
else
  echo "FAIL: cmake --install did not put rocev2.so in $global/epan"; find "$work/dest" -type f; fail=1
fi

# The personal folder: a build of just the plugin with the option on (the
# folder is the one of HOME when CMake configures).
home=$work/home
mkdir -p "$home"
HOME=$home cmake -S "$src" -B "$work/build" -DROCE_PLUGIN_USER_INSTALL=ON -DROCE_BUILD_TESTS=OFF \
  -DROCE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" --target rocev2 -j"$(nproc)" >/dev/null
cmake --install "$work/build" --component plugin >/dev/null
so=$home/.local/lib/wireshark/plugins/$ver/epan/rocev2.so
if [ -f "$so" ]; then
  passed=$((passed + 1)); echo "personal install: $so"
else
  echo "FAIL: no $so after the user install"; find "$home" -type f; fail=1
fi

# tshark, unprivileged, finds it there by itself.
chmod -R a+rX "$home"
cp "$cap" "$work/c.pcap" && chmod 644 "$work/c.pcap"
run=""
if [ "$(id -u)" = 0 ]; then
  chown -R 65534:65534 "$home"
  run="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
got=$($run env -u WIRESHARK_PLUGIN_DIR HOME="$home" tshark -n -r "$work/c.pcap" -c 1 -T fields -e frame.protocols)
if [ "$got" = "eth:ethertype:ip:udp:rocev2" ]; then
  passed=$((passed + 1)); echo "tshark loads it from the personal folder: $got"
else
  echo "FAIL: tshark with HOME=$home decodes '$got'"; fail=1
fi
echo "$passed passed, $fail failed"
exit $fail
