#!/bin/sh
# cpack in another Wireshark release's root (in_release.sh sets
# ROCEV2_TSHARK_ROOT; release_root.sh built the plugin there) makes the
# roce-wireshark-plugin package for that release:
#   - the .deb exists and holds rocev2.so in that release's global plugin
#     folder (<libdir>/wireshark/plugins/<major.minor>/epan);
#   - its Depends name the release's libwireshark ABI package (the one
#     installed in the root: libwireshark18 for 4.4, ...) and bound
#     libwireshark-data to that major.minor;
#   - they are satisfied by the release's packages (dpkg-checkbuilddeps in
#     the root), and the plugin unpacked from the .deb loads into that
#     release's tshark and decodes RoCEv2.
#
#   check_release_package.sh SOURCE-DIR TSHARK-WRAPPER CAPTURES-DIR RELEASE
set -u
src=$(cd "$1" && pwd) tshark=$2 caps=$3 rel=$4
root=${ROCEV2_TSHARK_ROOT:?run through in_release.sh}
fails=0 passed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
in_root() { # a command line for sh -c in the root, as root, SOURCE-DIR bound
  "$(dirname "$0")/in_root.sh" "$root" "$src" sh -c "$1"
}

rm -rf "$root/roce/debs" "$root/roce/pkg"
if ! in_root "cd /roce/build && cpack -G DEB -D CPACK_COMPONENTS_ALL=plugin -B /roce/debs" >"$root/roce/cpack.log" 2>&1; then
  cat "$root/roce/cpack.log"
  bad "cpack failed in the Wireshark $rel root"
  echo "$passed passed, $fails failed"
  exit 1
fi
deb=$(ls "$root"/roce/debs/roce-wireshark-plugin_*.deb 2>/dev/null | head -1)
if [ -z "$deb" ]; then
  cat "$root/roce/cpack.log"
  bad "cpack made no roce-wireshark-plugin .deb"
  echo "$passed passed, $fails failed"
  exit 1
fi
ok "cpack made $(basename "$deb")"

multiarch=$(in_root "dpkg-architecture -qDEB_HOST_MULTIARCH" 2>/dev/null)
plugins=usr/lib/$multiarch/wireshark/plugins
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$root/roce/files"
grep -qx "\./$plugins/$rel/epan/rocev2\.so" "$root/roce/files" && ok "it holds /$plugins/$rel/epan/rocev2.so" \
  || { bad "no /$plugins/$rel/epan/rocev2.so in it:"; cat "$root/roce/files"; }

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
abi=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${db:Status-Status} ${Package}\n' 'libwireshark[0-9]*' |
      awk '$1 == "installed" { print $2 }')
[ -n "$abi" ] || bad "no libwireshark ABI package installed in the root"
for p in $abi; do
  echo "$depends" | grep -q "\(^\|, \)$p\( (\|,\|$\)" && ok "it depends on $p, Wireshark $rel's library" \
    || bad "its Depends do not name $p"
done
next=$(echo "$rel" | awk -F. '{ print $1 "." $2 + 1 }')
echo "$depends" | grep -q "libwireshark-data (>= $rel)" && echo "$depends" | grep -q "libwireshark-data (<< $next)" \
  && ok "it needs libwireshark-data $rel.x" || bad "its Depends do not bound libwireshark-data to $rel.x"
in_root "cd /tmp && dpkg-checkbuilddeps -d '$depends' /dev/null" >"$root/roce/deps.log" 2>&1 \
  && ok "Wireshark $rel's packages satisfy them" || { bad "unmet in the root:"; cat "$root/roce/deps.log"; }

# The packaged plugin, unpacked in the root, in that release's tshark.
dpkg-deb -x "$deb" "$root/roce/pkg"
out=$("$tshark" "/roce/pkg/$plugins" -G plugins 2>&1)
echo "$out" | grep -q "^rocev2\.so.*/roce/pkg/$plugins/$rel/epan/rocev2\.so" \
  && ok "the packaged rocev2.so loads into Wireshark $rel's tshark" || { bad "tshark -G plugins:"; echo "$out"; }
out=$("$tshark" "/roce/pkg/$plugins" -n -r "$caps/cnp.pcap" -T fields -e rocev2.bth.opcode -e rocev2.icrc.status 2>&1)
[ "$(echo "$out" | head -1)" = "$(printf '0x81\t1')" ] \
  && ok "and decodes cnp.pcap (CNP, ICRC correct)" || { bad "cnp.pcap with the packaged plugin:"; echo "$out"; }
rm -rf "$root/roce/pkg"
echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
