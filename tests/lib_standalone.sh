#!/bin/sh
# lib/ alone: copies lib/ and testsupport/ (nothing of plugin/, tester/,
# agent/ or the top-level build) to a scratch folder, then configures lib/
# as the top-level project, builds it and runs its tests there.
# usage: lib_standalone.sh SOURCE-DIR [C-COMPILER]
set -eu
src=$1
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tree"
cp -r "$src/lib" "$src/testsupport" "$tmp/tree/"
rm -rf "$tmp/tree/lib/build"* 2>/dev/null || true
for part in tester agent plugin CMakeLists.txt; do
  [ ! -e "$tmp/tree/$part" ] || { echo "FAIL: $part in the copy"; exit 1; }
done
cmake -S "$tmp/tree/lib" -B "$tmp/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$tmp/cmake.log" 2>&1 ||
  { echo "FAIL: lib/ does not configure on its own"; cat "$tmp/cmake.log"; exit 1; }
cmake --build "$tmp/build" -j2 >"$tmp/build.log" 2>&1 ||
  { echo "FAIL: lib/ does not build on its own"; tail -50 "$tmp/build.log"; exit 1; }
cd "$tmp/build"
ctest --output-on-failure
n=$(ctest -N | sed -n 's/^Total Tests: //p')
echo "lib/ alone: configured, built, $n tests passed"
[ "$n" -ge 12 ] || { echo "FAIL: only $n tests in lib/ alone"; exit 1; }
