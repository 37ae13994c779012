#!/bin/sh
# run-with-rxe, where it cannot run, skips (exit 77) with the reason, and
# leaves nothing behind.
# usage: cannot_run.sh RUN-WITH-RXE
set -u
run=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect_skip() { # description, expected text, command...
  d=$1 text=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  st=$?
  if [ $st -eq 77 ] && grep -qF -- "$text" "$tmp/out"; then
    echo "ok: $d"
  else
    echo "FAIL: $d: exit $st, wanted 77 and '$text'"
    sed 's/^/  | /' "$tmp/out"
    fails=$((fails + 1))
  fi
}
[ "$(id -u)" -eq 0 ] || { echo "cannot_run: needs root to drop it"; exit 77; }
chmod 755 "$tmp"
expect_skip "not root" "SKIP: needs root" setpriv --reuid=65534 --regid=65534 --clear-groups "$run" -- true
expect_skip "no qemu" "SKIP: $tmp/no-qemu not found" env ROCE_RXE_QEMU="$tmp/no-qemu" "$run" -- true
# A kernel package that the user named but is not one is an error, not a skip.
env ROCE_RXE_CACHE="$tmp/cache" ROCE_RXE_KERNEL_DEB=/etc/hostname "$run" -- true >"$tmp/out" 2>&1
st=$?
if [ $st -eq 1 ] && grep -qF "ROCE_RXE_KERNEL_DEB=/etc/hostname: not a Debian package" "$tmp/out"; then
  echo "ok: a bad kernel package is an error naming it"
else
  echo "FAIL: bad kernel package: exit $st"
  sed 's/^/  | /' "$tmp/out"
  fails=$((fails + 1))
fi
before=$(ip netns list | grep -c '^roce-rxe-' || true)
[ "$before" -eq 0 ] && echo "ok: no namespace left behind" || { echo "FAIL: namespaces left: $(ip netns list)"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "cannot_run: all passed"
exit $fails
