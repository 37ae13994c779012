#!/bin/sh
# Compiles every plugin source against the Wireshark 4.2, 4.4 and 4.6
# headers, with the project's warnings as errors. Wireshark 4.0 is what the
# normal build compiles against. The headers come from distribution
# packages, only unpacked under CACHE-DIR, never installed:
#   4.4  Debian trixie          4.6  Debian sid
#   4.2  Ubuntu 24.04 (noble): Debian never packaged 4.2 (it went from 4.0
#        in bookworm to 4.4 in trixie).
# Each archive is read through a private apt state under CACHE-DIR (the
# system's apt configuration is not touched), and apt checks every Release
# file's signature: Debian's against debian-archive-keyring, Ubuntu's
# against the Ubuntu archive signing key taken from Debian's own
# ubuntu-keyring package (downloaded from trixie through the
# Debian-verified state) and pinned by fingerprint.
#
#   compat_check.sh SOURCE-DIR CACHE-DIR [VERSION...]     (default: 4.2 4.4 4.6)
#
# Exit status 77 (CTest: skipped) when an archive cannot be reached and
# nothing failed to compile.
set -eu
src=$1 cache=$2
shift 2
[ $# -gt 0 ] || set -- 4.2 4.4 4.6
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
src=$(cd "$src" && pwd)

# "Ubuntu Archive Automatic Signing Key (2018) <ftpmaster@ubuntu.com>".
ubuntu_key=F6ECB3762474EDA9D21B7022871920D1991BC93C

# apt options for the private state in directory $1.
apt_opts() {
  echo "-o Dir::Etc::sourcelist=$1/sources.list -o Dir::Etc::sourceparts=$1/parts" \
       "-o Dir::State::Lists=$1/lists -o Dir::Cache::archives=$1/archives" \
       "-o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1" \
       "-o APT::Architectures=amd64 -o Acquire::Languages=none"
}

# Sets up the private state $1 with the sources.list on standard input and
# refreshes its package lists at most once a day; fails when that fails.
apt_state() {
  mkdir -p "$1/lists/partial" "$1/archives/partial" "$1/parts"
  cat >"$1/sources.list.new"
  if ! cmp -s "$1/sources.list.new" "$1/sources.list"; then
    mv "$1/sources.list.new" "$1/sources.list"
    rm -f "$1/lists/"*Packages* "$1/lists/"*Release*
  fi
  [ -z "$(find "$1/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ] || return 0
  # shellcheck disable=SC2046
  apt-get $(apt_opts "$1") update -qq >"$1/update.log" 2>&1 &&
    [ -n "$(find "$1/lists" -maxdepth 1 -name '*Packages*' | head -1)" ]
}

debian=$cache/debian
debian_ok=0
apt_state "$debian" <<'LIST' && debian_ok=1
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
LIST

# The Ubuntu archive key: from Debian's ubuntu-keyring, only the pinned key.
ubuntu_keyring() {
  ring=$cache/ubuntu-archive-key.gpg
  [ -s "$ring" ] && return 0
  [ $debian_ok = 1 ] || return 1
  rm -rf "$cache/keyring"
  mkdir -p "$cache/keyring/dl" "$cache/keyring/gnupg"
  # shellcheck disable=SC2046
  (cd "$cache/keyring/dl" && apt-get $(apt_opts "$debian") download -qq ubuntu-keyring) \
    >"$cache/keyring/log" 2>&1 || return 1
  dpkg-deb -x "$cache"/keyring/dl/ubuntu-keyring_*.deb "$cache/keyring/unpacked"
  GNUPGHOME=$cache/keyring/gnupg gpg --batch --quiet --no-default-keyring \
    --keyring "$cache/keyring/unpacked/usr/share/keyrings/ubuntu-archive-keyring.gpg" \
    --export "$ubuntu_key" >"$ring.new" 2>>"$cache/keyring/log"
  if [ ! -s "$ring.new" ]; then
    echo "FAIL: Debian's ubuntu-keyring does not hold the Ubuntu archive key $ubuntu_key"
    rm -f "$ring.new"
    return 2
  fi
  mv "$ring.new" "$ring"
}

ubuntu=$cache/ubuntu
ubuntu_ok=
ubuntu_state() {
  [ -z "$ubuntu_ok" ] || return $ubuntu_ok
  ubuntu_ok=0
  ubuntu_keyring || ubuntu_ok=$?
  [ $ubuntu_ok = 0 ] || return $ubuntu_ok
  ubuntu_ok=1
  apt_state "$ubuntu" <<LIST || return 1
deb [signed-by=$cache/ubuntu-archive-key.gpg] http://archive.ubuntu.com/ubuntu noble universe
deb [signed-by=$cache/ubuntu-archive-key.gpg] http://archive.ubuntu.com/ubuntu noble-updates universe
deb [signed-by=$cache/ubuntu-archive-key.gpg] http://archive.ubuntu.com/ubuntu noble-security universe
LIST
  ubuntu_ok=0
}

# An archive whose signature does not verify fails the check; one that
# cannot be reached only skips it.
bad_signature() {
  if grep -qs 'GPG error\|is not signed\|BADSIG' "$1/update.log"; then
    echo "FAIL: the signature of an archive in $1/sources.list does not verify:"
    grep 'GPG error\|is not signed\|BADSIG' "$1/update.log" | head -5
    return 0
  fi
  return 1
}

glib=$(pkg-config --cflags glib-2.0)
status=0 checked=0 cfail=0 skipped=
for want in "$@"; do
  if [ "$want" = 4.2 ]; then
    state=$ubuntu where="Ubuntu noble"
    reach=0
    ubuntu_state || reach=$?
    if [ $reach = 2 ] || { [ $reach != 0 ] && bad_signature "$ubuntu"; }; then
      status=$((status + 1))
      continue
    elif [ $reach != 0 ]; then
      echo "SKIP: Wireshark $want: cannot reach the Ubuntu archive or its key:"
      cat "$cache/keyring/log" "$ubuntu/update.log" 2>/dev/null | tail -5
      skipped="$skipped $want"
      continue
    fi
  else
    state=$debian where="Debian trixie or sid"
    if [ $debian_ok = 0 ] && bad_signature "$debian"; then
      status=$((status + 1))
      continue
    elif [ $debian_ok = 0 ]; then
      echo "SKIP: Wireshark $want: cannot reach the Debian mirror:"
      tail -5 "$debian/update.log"
      skipped="$skipped $want"
      continue
    fi
  fi
  # shellcheck disable=SC2046
  version=$(apt-cache $(apt_opts "$state") madison libwireshark-dev |
            awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | grep "^$want\." | sort -V | tail -1 || true)
  if [ -z "$version" ]; then
    echo "FAIL: no libwireshark-dev $want.x in $where"
    status=1
    continue
  fi
  root=$cache/root-$version
  if [ ! -f "$root/.done" ]; then
    rm -rf "$root" "$cache/dl"
    mkdir -p "$root" "$cache/dl"
    for pkg in libwireshark-dev libwsutil-dev libwiretap-dev; do
      # shellcheck disable=SC2046
      (cd "$cache/dl" && apt-get $(apt_opts "$state") download -qq "$pkg=$version" >/dev/null 2>&1) || {
        echo "SKIP: cannot download $pkg $version"; exit 77; }
    done
    for deb in "$cache"/dl/*.deb; do dpkg-deb -x "$deb" "$root"; done
    touch "$root/.done"
  fi
  inc=$root/usr/include/wireshark
  got=$(awk '/WIRESHARK_VERSION_(MAJOR|MINOR)/ { printf "%s%s", sep, $3; sep = "." }' "$inc/ws_version.h")
  failed=0
  for c in "$src"/plugin/*.c; do
    checked=$((checked + 1))
    # shellcheck disable=SC2086
    if ! cc -std=c11 -D_DEFAULT_SOURCE -DROCEV2_PLUGIN_VERSION='"compat"' -Wall -Wextra -Werror \
         -Wshadow -Wstrict-prototypes -Wmissing-prototypes -fPIC -isystem "$inc" $glib \
         -I"$src/lib/include" -I"$src/plugin" -c "$c" -o /dev/null 2>"$cache/cc.log"; then
      echo "FAIL: $(basename "$c") against Wireshark $got ($version, $where):"
      cat "$cache/cc.log"
      failed=$((failed + 1))
    fi
  done
  status=$((status + failed)) cfail=$((cfail + failed))
  [ $failed = 0 ] && echo "Wireshark $got headers ($version, $where): every plugin source compiles"
done
echo "$((checked - cfail)) passed, $status failed"
[ $status = 0 ] || exit 1
if [ -n "$skipped" ]; then
  echo "SKIP: not compile-checked:$skipped"
  exit 77
fi
exit 0
