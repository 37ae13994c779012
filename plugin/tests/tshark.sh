#!/bin/sh
# Runs tshark with the rocev2 plugin staged in PLUGIN-DIR (or with no plugin
# at all when PLUGIN-DIR is "none"), as an unprivileged user when we are root:
# tshark ignores WIRESHARK_PLUGIN_DIR and the personal plugin folder as uid 0.
#
#   tshark.sh PLUGIN-DIR [tshark arguments...]
#
# ROCEV2_TSHARK_PRELOAD (optional) is put in LD_PRELOAD: the sanitizer build
# preloads the ASan/UBSan runtimes so that the instrumented plugin loads
# into Debian's uninstrumented tshark.
set -eu
dir=$1
shift
home=$(mktemp -d /tmp/rocev2-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/empty"
[ "$dir" = none ] && dir=$home/empty
set -- env HOME="$home" WIRESHARK_PLUGIN_DIR="$dir" ${ROCEV2_TSHARK_PRELOAD:+LD_PRELOAD=$ROCEV2_TSHARK_PRELOAD} tshark "$@"
if [ "$(id -u)" = 0 ]; then
  chown 65534:65534 "$home"
  set -- setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
fi
status=0
"$@" || status=$?
exit $status
