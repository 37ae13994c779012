#!/bin/sh
# Runs tshark with the rocev2 plugin staged in PLUGIN-DIR (or with no plugin
# at all when PLUGIN-DIR is "none"), as an unprivileged user when we are root:
# tshark ignores WIRESHARK_PLUGIN_DIR and the personal plugin folder as uid 0.
#
#   tshark.sh PLUGIN-DIR [tshark arguments...]
#
# ROCEV2_TSHARK_PRELOAD (optional) is put in LD_PRELOAD: the sanitizer build
# preloads the ASan/UBSan runtimes so that the instrumented plugin loads
# into Debian's uninstrumented tshark; plugin_conv_filters its probe (a
# path inside the root with ROCEV2_TSHARK_ROOT).
#
# ROCEV2_TSHARK_ROOT (optional) runs the tshark of another Wireshark release
# instead: the one installed in that root file system (release_root.sh makes
# them), through in_root.sh: chrooted, as user nobody, without network.
# PLUGIN-DIR is then a path inside the root, and the folder
# ROCEV2_TSHARK_SHARE (the captures) is bound read-only at the same path
# inside, so that the tests' arguments mean the same there.
set -eu
dir=$1
shift
if [ -n "${ROCEV2_TSHARK_ROOT:-}" ]; then
  root=$ROCEV2_TSHARK_ROOT share=${ROCEV2_TSHARK_SHARE:?ROCEV2_TSHARK_SHARE: the folder the arguments refer to}
  [ "$(id -u)" = 0 ] || { echo "tshark.sh: running tshark in $root needs root (chroot)" >&2; exit 1; }
  home=$(mktemp -d "$root/tmp/rocev2-home.XXXXXX")
  trap 'rm -rf "$home"' EXIT
  mkdir -p "$home/empty"
  chown 65534:65534 "$home"
  [ "$dir" = none ] && dir=${home#"$root"}/empty
  status=0
  "$(dirname "$0")/in_root.sh" --nobody "$root" "$share" HOME="${home#"$root"}" WIRESHARK_PLUGIN_DIR="$dir" \
    ${ROCEV2_TSHARK_PRELOAD:+LD_PRELOAD=$ROCEV2_TSHARK_PRELOAD} tshark "$@" || status=$?
  exit $status
fi
home=$(mktemp -d /tmp/rocev2-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/empty"
[ "$dir" = none ] && dir=$home/empty
# No extcap helpers: the tests never capture live, and tshark runs every
# helper it finds for -G currentprefs (androiddump, with the sanitizer
# runtimes preloaded, waited until the test's 10-minute timeout).
if [ "$(id -u)" = 0 ]; then
  # nobody may not reach the plugin or the files named (a clone under
  # /root): copies in its home then stand in for them (for_nobody.sh).
  . "$(dirname "$0")/for_nobody.sh"
  chmod 755 "$home"
  dir=$(for_nobody "$dir" "$home")
  n=$#
  while [ "$n" -gt 0 ]; do
    a=$1
    shift
    if [ -f "$a" ]; then a=$(for_nobody "$a" "$home"); fi
    set -- "$@" "$a"
    n=$((n - 1))
  done
  nobody_reads . || cd "$home"
fi
set -- env HOME="$home" WIRESHARK_PLUGIN_DIR="$dir" WIRESHARK_EXTCAP_DIR="$home/empty" ${ROCEV2_TSHARK_PRELOAD:+LD_PRELOAD=$ROCEV2_TSHARK_PRELOAD} tshark "$@"
if [ "$(id -u)" = 0 ]; then
  chown 65534:65534 "$home"
  set -- setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
fi
status=0
"$@" || status=$?
exit $status
