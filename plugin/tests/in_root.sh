#!/bin/sh
# Runs a command in a root file system that release_root.sh made: chrooted,
# in a network namespace of its own (no network at all: what runs there
# only reads files), with the folder SHARE bound read-only at the same path
# inside, and a clean environment (PATH, HOME=/root, LC_ALL=C.UTF-8, then
# the NAME=VALUE settings given). As root, or with --nobody as user nobody
# (tshark ignores plugin folders as root). Needs root.
#
#   in_root.sh [--nobody] ROOT SHARE [NAME=VALUE...] COMMAND [ARGUMENT...]
set -eu
user=
if [ "$1" = --nobody ]; then
  user=--userspec=65534:65534
  shift
fi
root=$1 share=$2
shift 2
mkdir -p "$root$share"
# nobody must reach the share inside: a share under /root crosses the root
# file system's own /root (mode 0700). The root is ours (release_root.sh).
d=$root$share
while [ "$d" != "$root" ] && [ "$d" != / ]; do
  chmod o+x "$d"
  d=$(dirname "$d")
done
# shellcheck disable=SC2016
exec unshare --mount --net --fork sh -c '
  root=$1 share=$2 user=$3
  shift 3
  mount --bind -o ro "$share" "$root$share"
  exec chroot $user "$root" env -i PATH=/usr/bin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"' \
  sh "$root" "$share" "$user" "$@"
