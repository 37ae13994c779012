#!/bin/sh
# release_root.sh's judgement of the archives, offline (nothing is
# downloaded; the roots it would make are never made):
#   - a mirror that cannot be reached (ROCE_DEBIAN_MIRROR on the .invalid
#     domain, which never resolves) skips 4.4, and 4.2 (whose Ubuntu key
#     comes through the Debian mirror), with the reason; in_release.sh then
#     skips that release's tests with the same reason;
#   - a mirror whose Release file is signed by a key apt does not trust (a
#     local file:// mirror signed by a key made here) fails 4.4, and 4.2;
#   - an unknown release is an error.
#
#   release_root_selftest.sh SOURCE-DIR
set -u
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: release_root.sh needs root (mmdebstrap --mode=root, chroot)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 passed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
# expect NAME STATUS TEXT COMMAND...: COMMAND exits with STATUS and says TEXT.
expect() {
  name=$1 want=$2 text=$3
  shift 3
  "$@" >"$work/out" 2>&1
  got=$?
  if [ $got = "$want" ] && grep -qF -- "$text" "$work/out"; then
    ok "$name"
  else
    bad "$name: exit $got (want $want), output (want '$text'):"
    cat "$work/out"
  fi
}

roots=$work/roots
expect "unreachable mirror: 4.4 skipped with the reason" 77 \
  "SKIP: Wireshark 4.4 (Debian trixie): cannot reach the archive: Could not resolve 'mirror.invalid'" \
  env ROCE_DEBIAN_MIRROR=http://mirror.invalid/debian "$here/release_root.sh" "$src" "$roots" 4.4
expect "in_release.sh skips 4.4's tests with that reason" 77 \
  "SKIP: Wireshark 4.4: cannot reach the archive: Could not resolve 'mirror.invalid'" \
  "$here/in_release.sh" "$roots" 4.4 "$src/captures" false
expect "unreachable Debian mirror: 4.2 skipped (its Ubuntu key comes from Debian)" 77 \
  "SKIP: Wireshark 4.2 (Ubuntu noble): cannot reach the Debian mirror http://mirror.invalid/debian" \
  env ROCE_DEBIAN_MIRROR=http://mirror.invalid/debian "$here/release_root.sh" "$src" "$roots" 4.2

# A mirror signed by a key of our own, which apt must not accept.
mirror=$work/mirror
mkdir -p "$work/gnupg" "$mirror/dists/trixie/main/binary-amd64"
chmod 700 "$work/gnupg"
: >"$mirror/dists/trixie/main/binary-amd64/Packages"
{
  echo "Origin: Debian"
  echo "Suite: trixie"
  echo "Codename: trixie"
  echo "Date: $(date -u -R)"
  echo "Architectures: amd64"
  echo "Components: main"
  echo "SHA256:"
  echo " $(sha256sum <"$mirror/dists/trixie/main/binary-amd64/Packages" | cut -d' ' -f1) 0 main/binary-amd64/Packages"
} >"$mirror/dists/trixie/Release"
if GNUPGHOME=$work/gnupg gpg --batch --quiet --passphrase '' --quick-gen-key 'roce selftest <selftest@example.invalid>' \
     ed25519 sign never 2>"$work/gpg.log" &&
   GNUPGHOME=$work/gnupg gpg --batch --quiet --clearsign -o "$mirror/dists/trixie/InRelease" \
     "$mirror/dists/trixie/Release" 2>>"$work/gpg.log"; then
  chmod -R a+rX "$work"   # apt reads file:// mirrors as user _apt
  expect "a Release signed by an untrusted key fails 4.4" 1 \
    "FAIL: Wireshark 4.4 (Debian trixie): a Release signature does not verify" \
    env ROCE_DEBIAN_MIRROR="file://$mirror" "$here/release_root.sh" "$src" "$roots" 4.4
  expect "... and 4.2, whose Ubuntu key it would carry" 1 \
    "FAIL: Wireshark 4.2 (Ubuntu noble): Debian's Release signature does not verify" \
    env ROCE_DEBIAN_MIRROR="file://$mirror" "$here/release_root.sh" "$src" "$roots" 4.2
else
  bad "gpg could not make a signing key:"
  cat "$work/gpg.log"
fi
[ ! -e "$roots/4.4" ] && [ ! -e "$roots/4.4.new" ] && [ ! -e "$roots/4.2" ] \
  && ok "no root is left behind" || bad "a root was left in $roots"
expect "an unknown release is an error" 2 "no packages known for Wireshark 9.9" \
  "$here/release_root.sh" "$src" "$roots" 9.9
echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
