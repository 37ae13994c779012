#!/bin/sh
# A root file system with another Wireshark release in it, made from that
# release's distribution packages, and the plugin built there against that
# release's own development package: the set-up of the tests that run the
# plugin in the Wireshark releases users have (in_release.sh).
#
#   release_root.sh SOURCE-DIR ROOTS-DIR RELEASE [CMAKE-OPTION...]
#
#   RELEASE  packages from
#   4.2      Ubuntu 24.04 (noble, universe): Debian never packaged 4.2 (it
#            went from 4.0 in bookworm to 4.4 in trixie)
#   4.4      Debian 13 (trixie)
#   4.6      Debian unstable (sid)
#
# ROOTS-DIR/RELEASE is made once, by mmdebstrap (minimal: the compiler,
# CMake, Wireshark's development packages, tshark; no documentation), and
# kept: later runs need no network. It is made again only when the recipe
# below changes (or after rm -rf). Debian's packages come from this
# machine's Debian mirror (scripts/lib/apt-archive.sh; ROCE_DEBIAN_MIRROR
# overrides it), Ubuntu's from ROCE_UBUNTU_MIRROR, an Ubuntu source of the
# machine's apt configuration, or else the mirror mmdebstrap knows for
# Ubuntu. apt checks every Release signature: Debian's against
# debian-archive-keyring (ROCE_DEBIAN_KEYRING), Ubuntu's against the Ubuntu
# archive key taken from Debian's ubuntu-keyring package, pinned by
# fingerprint. A signature that does not verify fails; an archive that
# cannot be reached skips (exit 77), with the reason printed and kept in
# ROOTS-DIR/RELEASE.skip for the tests that need the root.
#
# Then lib/ and plugin/ of SOURCE-DIR (bound read-only at the same path) are
# built inside the root, as root, in a network namespace of its own (no
# network), with the CMake options given, into /roce/build: the plugin is
# staged in /roce/build/plugin/plugins. A build that fails, fails.
set -eu
src=$(cd "$1" && pwd) roots=$2 rel=$3
shift 3
mkdir -p "$roots"
roots=$(cd "$roots" && pwd)
root=$roots/$rel
. "$src/scripts/lib/apt-archive.sh"

case $rel in
  4.2) distro=Ubuntu suite=noble components=main,universe ;;
  4.4) distro=Debian suite=trixie components=main ;;
  4.6) distro=Debian suite=sid components=main ;;
  *) echo "release_root.sh: no packages known for Wireshark $rel (4.2, 4.4, 4.6)" >&2; exit 2 ;;
esac
where="$distro $suite"
# What the plugin's build and cpack need (file: dpkg-shlibdeps for cpack;
# libdeflate-dev: libroce's CRC-32).
packages="gcc libc6-dev make cmake pkgconf dpkg-dev file wireshark-dev libwireshark-dev tshark libpcap-dev libjson-glib-dev libdeflate-dev"
recipe="$suite $components $packages"

rm -f "$roots/$rel.skip" "$root/roce/ready"
said=
skip() {
  said=1
  echo "SKIP: Wireshark $rel ($where): $*"
  echo "$* ($where)" >"$roots/$rel.skip"
  exit 77
}
fail() {
  said=1
  echo "FAIL: Wireshark $rel ($where): $*"
  exit 1
}
# shellcheck disable=SC2154
trap 'st=$?; [ $st = 0 ] || [ -n "$said" ] || echo "FAIL: Wireshark $rel ($where): $0 stopped (exit $st)"' EXIT
# What apt said about the archive in log $1: a signature that does not
# verify fails; an archive that cannot be reached skips.
judge_log() {
  if grep -q 'NO_PUBKEY\|BADSIG\|EXPKEYSIG\|is not signed\|GPG error\|signatures couldn.t be verified' "$1"; then
    grep 'NO_PUBKEY\|BADSIG\|EXPKEYSIG\|is not signed\|GPG error\|signatures couldn.t be verified' "$1" | head -3
    fail "a Release signature does not verify (log: $1)"
  fi
  if grep -q 'Could not resolve\|Temporary failure resolving\|Failed to fetch\|Unable to connect\|Could not connect\|timed out\|Connection refused\|No route to host\|Network is unreachable\|does not have a Release file\|404 *Not Found' "$1"; then
    skip "cannot reach the archive: $(grep -m1 'Could not resolve\|Temporary failure resolving\|Failed to fetch\|Unable to connect\|Could not connect\|timed out\|Connection refused\|No route to host\|Network is unreachable\|does not have a Release file\|404 *Not Found' "$1" | sed 's/^[[:space:]]*//')"
  fi
}

make_root() {
  roce_apt_acquire_conf "$roots/acquire.conf"
  debian_mirror=$(roce_debian_mirror 2>"$roots/$rel.log") || skip "$(cat "$roots/$rel.log")"
  # apt trusts the one keyring given below and nothing else: an empty
  # directory stands in for the machine's trusted.gpg.d, and mmdebstrap
  # does not pick a keyring of its own (check/signed-by).
  mkdir -p "$roots/no-keys"
  set -- --aptopt="$roots/acquire.conf" --components="$components" --keyring="$roots/no-keys" \
    --skip=check/signed-by
  if [ $distro = Debian ]; then
    keyring=${ROCE_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
    set -- "$@" --keyring="$keyring" "$suite" "$root.new" \
      "deb [signed-by=$keyring] $debian_mirror $suite $components"
    echo "Wireshark $rel: making its root from $where ($debian_mirror) in $root"
  else
    # The Ubuntu archive key, from Debian's ubuntu-keyring (from trixie).
    state=$roots/apt-debian
    if ! roce_apt_state "$state" "$debian_mirror" trixie; then
      roce_apt_bad_signature "$state" && fail "Debian's Release signature does not verify ($state/update.log)"
      skip "cannot reach the Debian mirror $debian_mirror for Ubuntu's key: $(grep -m1 '^E:' "$state/update.log" || tail -1 "$state/update.log")"
    fi
    key=0
    roce_ubuntu_archive_key "$state" "$roots/ubuntu-archive-key.gpg" || key=$?
    [ $key = 2 ] && fail "$(tail -1 "$state/keyring.log")"
    [ $key = 0 ] || skip "cannot download Debian's ubuntu-keyring: $(tail -1 "$state/keyring.log")"
    set -- "$@" --keyring="$roots/ubuntu-archive-key.gpg" "$suite" "$root.new"
    ubuntu_mirror=$(roce_ubuntu_mirror)
    if [ -n "$ubuntu_mirror" ]; then
      for s in $suite $suite-updates $suite-security; do
        set -- "$@" "deb [signed-by=$roots/ubuntu-archive-key.gpg] $ubuntu_mirror $s $(echo "$components" | tr , ' ')"
      done
    fi
    echo "Wireshark $rel: making its root from $where (${ubuntu_mirror:-the Ubuntu mirror mmdebstrap knows}) in $root"
  fi
  rm -rf "$root.new"
  start=$(date +%s)
  if ! mmdebstrap --mode=root --variant=essential --include="$(echo "$packages" | tr ' ' ,)" \
       --dpkgopt=force-unsafe-io --dpkgopt='path-exclude=/usr/share/doc/*' \
       --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
       --dpkgopt='path-exclude=/usr/share/locale/*' "$@" >"$roots/$rel.log" 2>&1; then
    rm -rf "$root.new"
    judge_log "$roots/$rel.log"
    tail -20 "$roots/$rel.log"
    fail "mmdebstrap failed (log: $roots/$rel.log)"
  fi
  # The suite must still hold the release the table above says it does.
  got=$(dpkg-query --admindir="$root.new/var/lib/dpkg" -W -f '${Version}' tshark)
  case $got in
    "$rel".*|[0-9]:"$rel".*) ;;
    *) rm -rf "$root.new"
       fail "$where now has Wireshark $got, not $rel: update the table in $0 and docs/plugin.md" ;;
  esac
  mkdir -p "$root.new/roce"
  echo "$recipe" >"$root.new/roce/recipe"
  rm -rf "$root"
  mv "$root.new" "$root"
  echo "Wireshark $rel: root made in $(($(date +%s) - start)) s, $(du -sm "$root" | cut -f1) MB"
}

if [ "$(cat "$root/roce/recipe" 2>/dev/null)" != "$recipe" ]; then
  make_root
else
  echo "Wireshark $rel: root kept from an earlier run ($root)"
fi

# Build lib/, the plugin and its Conversations probe (conv_filter_probe.c, for
# plugin_ws*_conv_filters) in the root; a build directory made from another
# source tree is made again.
if [ -f "$root/roce/build/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$root/roce/build/CMakeCache.txt"; then
  rm -rf "$root/roce/build"
fi
start=$(date +%s)
# shellcheck disable=SC2016
if ! "$(dirname "$0")/in_root.sh" "$root" "$src" JOBS="$(nproc)" sh -c '
      cmake -S "$0" -B /roce/build -DROCE_BUILD_TESTS=OFF -DROCE_BUILD_BENCH=OFF \
        -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON "$@" &&
      cmake --build /roce/build -j"$JOBS" --target rocev2 rocev2_conv_probe' "$src" "$@" >"$roots/$rel.build.log" 2>&1; then
  tail -40 "$roots/$rel.build.log"
  fail "the plugin does not build against Wireshark $rel (log: $roots/$rel.build.log)"
fi
so=$(ls "$root"/roce/build/plugin/plugins/"$rel"/epan/rocev2.so 2>/dev/null || true)
[ -n "$so" ] || fail "the build made no rocev2.so for $rel (log: $roots/$rel.build.log)"
tshark=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' tshark)
gcc=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' gcc)
echo "Wireshark $tshark from $where, gcc $gcc" >"$root/roce/ready"
echo "Wireshark $rel: rocev2.so built in $(($(date +%s) - start)) s ($(cat "$root/roce/ready"))"
