# What an unprivileged tshark or Wireshark reads, made readable to it:
# sourced by tshark.sh and gui_lib.sh, not run. As root they run Wireshark
# as nobody (it ignores plugin folders as root), and nobody cannot enter a
# clone under a folder like /root (mode 0700) or a `mktemp -d` folder: the
# plugin and the captures are then copied into a folder of nobody's.
#
#   nobody_reads PATH       true when nobody can read PATH (and, for a
#                           folder, enter it)
#   for_nobody PATH STAGE   prints PATH when nobody can read it, else the
#                           path of a copy made in the folder STAGE (which
#                           the caller made, readable by nobody)

nobody_reads() {
  if [ -d "$1" ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$1" -a -x "$1" 2>/dev/null
  else
    setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$1" 2>/dev/null
  fi
}

for_nobody() {
  if nobody_reads "$1"; then
    printf '%s\n' "$1"
    return 0
  fi
  _fn_dest=$(mktemp -d "$2/staged.XXXXXX")
  chmod 755 "$_fn_dest"
  cp -R "$1" "$_fn_dest/" || return 1
  chmod -R a+rX "$_fn_dest"
  printf '%s\n' "$_fn_dest/$(basename "$1")"
}
