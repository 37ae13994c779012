#!/bin/sh
# scripts/stage-graph fails when it should: on a copy of tester/src, an
# include that runs back up, one that runs sideways and a C file outside
# every stage; on two small static libraries, a call that runs back up
# (and so a circle across two rooms). The untouched copy and libraries
# whose calls run down pass.
# usage: stage_graph_selftest.sh STAGE-GRAPH TESTER-SRC CC AR
set -u
graph=$1 src=$2 cc=$3 ar=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "selftest ok: $1"; }
bad() { echo "selftest FAIL: $1"; fails=$((fails + 1)); }
# expect RC TEXT WHAT -- ARGS...: runs the checker, wants exit RC and TEXT
# in what it printed.
expect() {
  want_rc=$1 want_text=$2 what=$3
  shift 4
  out=$("$graph" "$@" 2>&1)
  rc=$?
  if [ $rc -ne "$want_rc" ]; then
    echo "$out"
    bad "$what: exit $rc, expected $want_rc"
  elif ! printf '%s\n' "$out" | grep -qF -- "$want_text"; then
    echo "$out"
    bad "$what: no line with '$want_text'"
  else
    ok "$what"
  fi
}

fresh() { rm -rf "$tmp/src" && cp -R "$src" "$tmp/src"; }

fresh
expect 0 "back up or sideways: 0 arrows" "the tree as it is" -- "$tmp/src"

# The wire reaching up into the runner.
fresh
printf '#include "runner.h"\n' >> "$tmp/src/wire/rawio.c"
expect 1 "wrong way: wire/rawio.c includes runner/runner.h" "a wrong-way include" -- "$tmp/src"
expect 1 "circle across rooms" "the circle it closes" -- "$tmp/src"

# The case language reaching sideways into the peer engine.
fresh
printf '#include "peer.h"\n' >> "$tmp/src/caselang/caselex.h"
expect 1 "wrong way: caselang/caselex.h includes peer/peer.h" "a sideways include" -- "$tmp/src"

# A C file left in no stage folder.
fresh
printf 'int stray;\n' > "$tmp/src/stray.c"
expect 1 "outside every room: stray.c" "a file outside every stage" -- "$tmp/src"

# A stage the floors name without a folder.
fresh
printf 'nowhere\n' >> "$tmp/src/STAGES"
expect 2 "stage nowhere has no folder" "a STAGES file naming no folder" -- "$tmp/src"

# Calls, read with nm from static libraries: a two-floor house whose wire
# calls up into its runner, then one whose calls run down only.
mkdir -p "$tmp/house/runner" "$tmp/house/wire" "$tmp/obj"
printf 'runner\nwire\n' > "$tmp/house/STAGES"
lib() { # lib STAGE SOURCE-TEXT
  printf '%s\n' "$2" > "$tmp/obj/$1.c" &&
    "$cc" -c -o "$tmp/obj/$1.c.o" "$tmp/obj/$1.c" &&
    rm -f "$tmp/obj/lib$1.a" && "$ar" rcs "$tmp/obj/lib$1.a" "$tmp/obj/$1.c.o"
}
lib runner 'int wire_send(void); int runner_step(void) { return wire_send(); }' || bad "compiling the runner"
lib wire 'int runner_step(void); int wire_send(void) { return 0; } int wire_poll(void) { return runner_step(); }' ||
  bad "compiling the wire"
expect 1 "wrong way: wire.c.o (wire) calls runner_step, defined in stage runner" "a wrong-way call" -- \
  --lib runner="$tmp/obj/librunner.a" --lib wire="$tmp/obj/libwire.a" "$tmp/house"
expect 1 "circle across rooms: runner <-> wire" "the circle of calls" -- \
  --lib runner="$tmp/obj/librunner.a" --lib wire="$tmp/obj/libwire.a" "$tmp/house"
lib wire 'int wire_send(void) { return 0; }' || bad "compiling the wire again"
expect 0 "runner       -> wire           0 includes    1 calls" "calls that run down" -- \
  --lib runner="$tmp/obj/librunner.a" --lib wire="$tmp/obj/libwire.a" "$tmp/house"

exit $fails
