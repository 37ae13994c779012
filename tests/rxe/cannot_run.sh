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
expect_skip() { # description, expected text, command...
  d=$1 text=$2
  shift 2
  run_bg "$@"
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
run_bg env ROCE_RXE_CACHE="$tmp/cache" ROCE_RXE_KERNEL_DEB=/etc/hostname "$run" -- true
st=$?
if [ $st -eq 1 ] && grep -qF "ROCE_RXE_KERNEL_DEB=/etc/hostname: not a Debian package" "$tmp/out"; then
  echo "ok: a bad kernel package is an error naming it"
else
  echo "FAIL: bad kernel package: exit $st"
  sed 's/^/  | /' "$tmp/out"
  fails=$((fails + 1))
fi
# Only the namespaces of the runs above count: other tests may be running.
left=""
for pid in $pids; do
  left="$left$(ip netns list | awk -v p="roce-rxe-$pid-" 'index($1, p) == 1 {print $1}')"
done
[ -z "$left" ] && echo "ok: no namespace left behind" || { echo "FAIL: namespaces left: $left"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "cannot_run: all passed"
exit $fails
