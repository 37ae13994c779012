#!/bin/sh
# Runs one of the plugin's tshark tests against another Wireshark release:
# the tshark of ROOTS-DIR/RELEASE with the plugin built there against that
# release (release_root.sh makes both), through tshark.sh's root mode
# (chrooted, as nobody, without network). CAPTURES-DIR is what the test's
# arguments refer to: it is bound read-only at the same path in the root.
#
#   in_release.sh ROOTS-DIR RELEASE CAPTURES-DIR TEST [ARGUMENTS...]
#
# Skipped (exit 77), with the reason, when the root could not be made.
set -eu
roots=$1 rel=$2 share=$3
shift 3
root=$roots/$rel
if [ ! -f "$root/roce/ready" ]; then
  if [ -f "$roots/$rel.skip" ]; then
    echo "SKIP: Wireshark $rel: $(cat "$roots/$rel.skip")"
    exit 77
  fi
  echo "FAIL: no Wireshark $rel root with the plugin built in $root (the test plugin_ws${rel}_root makes it)"
  exit 1
fi
echo "Wireshark $rel: $(cat "$root/roce/ready")"
ROCEV2_TSHARK_ROOT=$root ROCEV2_TSHARK_SHARE=$(cd "$share" && pwd)
export ROCEV2_TSHARK_ROOT ROCEV2_TSHARK_SHARE
exec "$@"
