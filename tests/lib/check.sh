# Sourced by the command-line tests: a scratch folder removed at exit, and
# checks that print "ok: ..." or "FAIL: ..." and count the failures in
# $fails (the test ends with `exit $fails`). expect runs a command into
# $tmp/out; contains and lacks look at that output.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
expect() { # description, expected exit code, command...
  d=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  got=$?
  if [ "$got" = "$want" ]; then ok "$d"; else bad "$d: exit $got, expected $want"; sed 's/^/  | /' "$tmp/out"; fi
}
contains() { # description, text
  if grep -qF -- "$2" "$tmp/out"; then ok "$1"; else bad "$1: output lacks '$2'"; sed 's/^/  | /' "$tmp/out"; fi
}
lacks() { # description, text
  if grep -qF -- "$2" "$tmp/out"; then bad "$1: output has '$2'"; else ok "$1"; fi
}
