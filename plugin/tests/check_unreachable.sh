#!/bin/sh
# The plugin's tests from a tree nobody can enter: a clone under /root
# (mode 0700 on Debian) or in a `mktemp -d` folder, where the unprivileged
# tshark or Wireshark the tests run cannot read the plugin or the captures
# (for_nobody.sh stages copies). The staged plugin folder and the captures
# are copied into such a folder, nobody is shown unable to read them there
# (or the test would prove nothing), and the tests run on those paths.
#
#   check_unreachable.sh tshark PLUGIN-DIR CAPTURES-DIR PYTHON3
#       check_expect.py, check_fields.py and check_stats.sh
#   check_unreachable.sh gui PLUGIN-DIR CAPTURES-DIR
#       check_gui.sh (Wireshark under Xvfb)
set -eu
what=$1 plugins=$2 captures=$3 python3=${4:-python3}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "check_unreachable: SKIP: needs root (as another user the tests read the tree as that user)"; exit 77; }
. "$here/for_nobody.sh"
work=$(mktemp -d /tmp/rocev2-unreachable.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
mkdir "$work/clone"
cp -R "$plugins" "$work/clone/plugins"
cp -R "$captures" "$work/clone/captures"
p=$work/clone/plugins c=$work/clone/captures
if nobody_reads "$c/flows-rc.pcap" || nobody_reads "$p"; then
  echo "FAIL: nobody can read $work/clone: the test would not show anything"
  exit 1
fi
echo "nobody cannot enter $work; the tests run on the plugin and captures there"
case $what in
  tshark)
    "$python3" "$here/check_expect.py" "$here/tshark.sh" "$p" "$c"
    "$python3" "$here/check_fields.py" "$here/tshark.sh" "$p" "$c" "$here/fields.tsv"
    "$here/check_stats.sh" "$here/tshark.sh" "$p" "$c"
    ;;
  gui)
    "$here/check_gui.sh" "$p" "$c/flows-rc.pcap" "rocev2.bth.psn == 1007" "$work/gui.png"
    ;;
  *) echo "check_unreachable: what to run: tshark or gui, not '$what'" >&2; exit 2 ;;
esac
echo "ok: the plugin's $what tests pass from a folder nobody can enter"
