#!/bin/sh
# run-with-rxe (or run-pair), where it cannot run, skips (exit 77) with the reason, and
# leaves nothing behind.
# usage: cannot_run.sh RUN-WITH-RXE|RUN-PAIR
set -u
run=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pids=""
# Runs a command in the background and waits, so that its PID (which
# run-with-rxe puts in its namespace's name) is known.
run_bg() {
  "$@" >"$tmp/out" 2>&1 &
  pid=$!
  pids="$pids $pid"
  wait $pid
}
# expect_exit STATUS DESCRIPTION TEXT COMMAND...: the command exits with
# STATUS (77: a skip; 1: an error, for what the user named wrongly) and
# says TEXT.
expect_exit() {
  want=$1 d=$2 text=$3
  shift 3
  run_bg "$@"
  st=$?
  if [ $st -eq "$want" ] && grep -qF -- "$text" "$tmp/out"; then
    echo "ok: $d"
  else
    echo "FAIL: $d: exit $st, wanted $want and '$text'"
    sed 's/^/  | /' "$tmp/out"
    fails=$((fails + 1))
  fi
}
expect_skip() { expect_exit 77 "$@"; }
expect_error() { expect_exit 1 "$@"; }
[ "$(id -u)" -eq 0 ] || { echo "cannot_run: needs root to drop it"; exit 77; }
chmod 755 "$tmp"
# nobody runs a copy when it cannot reach the tree (a clone under /root).
as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
run_nobody=$run
if ! $as_nobody test -x "$run" 2>/dev/null; then
  scripts=$(cd "$(dirname "$run")/.." && pwd)
  cp -R "$scripts" "$tmp/scripts"
  chmod -R a+rX "$tmp/scripts"
  run_nobody=$tmp/scripts/$(basename "$(dirname "$run")")/$(basename "$run")
fi
expect_skip "not root" "SKIP: needs root" $as_nobody "$run_nobody" -- true
expect_skip "no qemu" "SKIP: $tmp/no-qemu not found" env ROCE_RXE_QEMU="$tmp/no-qemu" "$run" -- true
# What the user named wrongly is an error naming it, not a skip.
expect_error "a bad kernel package is an error naming it" "ROCE_RXE_KERNEL_DEB=/etc/hostname: not a Debian package" \
  env ROCE_RXE_CACHE="$tmp/cache" ROCE_RXE_KERNEL_DEB=/etc/hostname "$run" -- true
expect_error "a malformed suite is an error naming it" "a Debian suite name" \
  env ROCE_RXE_CACHE="$tmp/cache3" "$run" --kernel-suite "no such" -- true
# A kernel suite asked for offline that the cache does not hold: a skip
# naming it (nothing downloaded).
expect_skip "an uncached kernel, offline" "SKIP: no trixie kernel in $tmp/cache2" \
  env ROCE_RXE_CACHE="$tmp/cache2" "$run" --kernel-suite trixie --offline -- true
# Only the namespaces of the runs above count: other tests may be running.
left=""
for pid in $pids; do
  left="$left$(ip netns list | awk -v p="roce-rxe-$pid-" 'index($1, p) == 1 {print $1}')"
done
[ -z "$left" ] && echo "ok: no namespace left behind" || { echo "FAIL: namespaces left: $left"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "cannot_run: all passed"
exit $fails
