#!/bin/sh
# Compiles every plugin source against the Wireshark 4.4 and 4.6 headers,
# as Debian packages them (trixie has 4.4, sid 4.6), with the project's
# warnings as errors. The packages come from the Debian mirror through a
# private apt state under CACHE-DIR (the system's apt configuration is not
# touched) and are only unpacked there, never installed. Wireshark 4.0 is
# what the normal build compiles against; 4.2 was never packaged by Debian
# (it went from 4.0 in bookworm to 4.4 in trixie), so it is not checked here.
#
#   compat_check.sh SOURCE-DIR CACHE-DIR [VERSION...]     (default: 4.4 4.6)
#
# Exit status 77 (CTest: skipped) when the mirror cannot be reached.
set -eu
src=$1 cache=$2
shift 2
[ $# -gt 0 ] || set -- 4.4 4.6
mkdir -p "$cache/lists/partial" "$cache/archives/partial" "$cache/etc/parts"
cache=$(cd "$cache" && pwd)
src=$(cd "$src" && pwd)
cat >"$cache/etc/sources.list" <<'LIST'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
LIST
apt_opts="-o Dir::Etc::sourcelist=$cache/etc/sources.list -o Dir::Etc::sourceparts=$cache/etc/parts \
 -o Dir::State::Lists=$cache/lists -o Dir::Cache::archives=$cache/archives \
 -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1"

# Refresh the package lists at most once a day.
if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
  if ! apt-get $apt_opts update -qq >"$cache/update.log" 2>&1 ||
     [ -z "$(find "$cache/lists" -maxdepth 1 -name '*Packages*' | head -1)" ]; then
    echo "SKIP: cannot reach the Debian mirror (apt-get update failed):"
    cat "$cache/update.log"
    exit 77
  fi
fi

glib=$(pkg-config --cflags glib-2.0)
status=0 checked=0
for want in "$@"; do
  version=$(apt-cache $apt_opts madison libwireshark-dev | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
            grep "^$want\." | sort -V | tail -1 || true)
  if [ -z "$version" ]; then
    echo "FAIL: no libwireshark-dev $want.x in trixie or sid"
    status=1
    continue
  fi
  root=$cache/root-$version
  if [ ! -f "$root/.done" ]; then
    rm -rf "$root" "$cache/dl"
    mkdir -p "$root" "$cache/dl"
    for pkg in libwireshark-dev libwsutil-dev libwiretap-dev; do
      (cd "$cache/dl" && apt-get $apt_opts download -qq "$pkg=$version" >/dev/null 2>&1) || {
        echo "SKIP: cannot download $pkg $version"; exit 77; }
    done
    for deb in "$cache"/dl/*.deb; do dpkg-deb -x "$deb" "$root"; done
    touch "$root/.done"
  fi
  inc=$root/usr/include/wireshark
  got=$(awk '/WIRESHARK_VERSION_(MAJOR|MINOR)/ { printf "%s%s", sep, $3; sep = "." }' "$inc/ws_version.h")
  for c in "$src"/plugin/*.c; do
    checked=$((checked + 1))
    # shellcheck disable=SC2086
    if ! cc -std=c11 -D_DEFAULT_SOURCE -DROCEV2_PLUGIN_VERSION='"compat"' -Wall -Wextra -Werror \
         -Wshadow -Wstrict-prototypes -Wmissing-prototypes -fPIC -isystem "$inc" $glib \
         -I"$src/lib/include" -I"$src/plugin" -c "$c" -o /dev/null 2>"$cache/cc.log"; then
      echo "FAIL: $(basename "$c") against Wireshark $got ($version):"
      cat "$cache/cc.log"
      status=1
    fi
  done
  [ $status = 0 ] && echo "Wireshark $got headers ($version): every plugin source compiles"
done
echo "$checked compiled, $status failed"
exit $status
