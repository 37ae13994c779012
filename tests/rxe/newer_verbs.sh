#!/bin/sh
# The verbs this machine's rdma-core lacks (FLUSH: ibv_wr_flush, rdma-core
# 45 and later; Debian 12 has 44), built against a newer Debian suite's
# rdma-core and run against rxe on that suite's kernel:
#  1. the ibverbs backend check in the guest, whose FLUSH checks are
#     compiled only against such a library (they must have run);
#  2. the agent built the same way, as the DUT of a case in which it posts
#     FLUSH and ATOMIC WRITE, captured: rxe's own FLUSH on the wire. On the
#     kernels docs/rxe-results.md records, its ICRC covers the headers
#     twice (R13), which libroce names (headers-twice); its ATOMIC WRITE's
#     ICRC is right.
#
# usage: newer_verbs.sh RUN-WITH-RXE SOURCE-DIR WORK-DIR ROCE-TESTER CMAKE-ARGS...
#   ROCE_RXE_USERLAND_SUITE  the suite whose rdma-core and kernel (default trixie)
# Exit 77 (skipped, with the reason) when the VM or the suite cannot be had.
set -eu
run=$1 src=$2 work=$3 tester=$4
shift 4
suite=${ROCE_RXE_USERLAND_SUITE:-trixie}
say() { echo "newer_verbs: $*"; }

st=0
root=$("$src/scripts/rxe-vm/fetch-userland" --suite "$suite") || st=$?
[ $st -eq 0 ] || exit $st
say "rdma-core $(cat "$root/rdma-core-version") of $suite, in $root"

# The agent and the backend check against it (CMake says whether FLUSH
# is there: ROCE_AGENT_HAVE_IBV_FLUSH).
build=$work/build
mkdir -p "$build"
cmake -S "$src" -B "$build" -DROCE_IBVERBS_ROOT="$root" -DROCE_BUILD_BENCH=OFF "$@" >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; say "configure failed"; exit 1; }
grep -q "ROCE_AGENT_HAVE_IBV_FLUSH - Success" "$build/CMakeFiles/CMakeOutput.log" "$work/configure.log" 2>/dev/null ||
  grep -q "^ROCE_AGENT_HAVE_IBV_FLUSH:INTERNAL=1" "$build/CMakeCache.txt" ||
  { say "rdma-core $(cat "$root/rdma-core-version") has no ibv_wr_flush for this build"; exit 1; }
cmake --build "$build" -j2 --target roce-agent rxe-ibverbs-backend-check >"$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; say "build failed"; exit 1; }

# 1. The backend check.
st=0
"$run" --kernel-suite "$suite" --offline --userland "$root" \
  --guest-check "$build/tests/rxe/rxe-ibverbs-backend-check" >"$work/check.log" 2>&1 || st=$?
[ $st -ne 77 ] || { cat "$work/check.log"; exit 77; }
grep -E '^(ok|FAIL)' "$work/check.log" | grep -i flush
[ $st -eq 0 ] || { tail -40 "$work/check.log"; say "the backend check failed on $suite's kernel"; exit 1; }
grep -q '^ok: FLUSH posted through ibv_wr_flush' "$work/check.log" ||
  { say "the FLUSH checks did not run (the device reports no FLUSH?)"; exit 1; }

# 2. rxe's own FLUSH on the wire. The case's 100 ms windows are the soft
# DUT's; a guest under TCG on a loaded host can take longer (7.2 did).
out=$work/wire
rm -rf "$out"
sed 's/within 100ms/within 2s/' "$src/tester/tests/services/placement-dut.case" >"$work/placement-dut.case"
st=0
"$run" --kernel-suite "$suite" --offline --mtu 9000 --userland "$root" --agent "$build/agent/roce-agent" -- \
  sh -c '"$1" run --iface "$ROCE_RXE_IFACE" --agent "$ROCE_RXE_AGENT" --token-file "$ROCE_RXE_TOKEN_FILE" \
    --report-dir "$2" "$3"; echo "kernel $ROCE_RXE_KERNEL_RELEASE" >"$2/kernel"' \
  sh "$tester" "$out" "$work/placement-dut.case" >"$work/wire.log" 2>&1 || st=$?
[ $st -ne 77 ] || { cat "$work/wire.log"; exit 77; }
[ -f "$out/capture.pcapng" ] || { tail -40 "$work/wire.log"; say "no capture"; exit 1; }
"$tester" lint "$out/capture.pcapng" >"$out/lint.txt" 2>&1 || true
exec /usr/bin/python3 - "$out/lint.txt" "$(cat "$out/kernel")" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
kernel = sys.argv[2]
frames = {}  # frame number -> (description, [findings])
cur = None
for line in lines:
    m = re.match(r"  frame (\d+): (.*)", line)
    if m:
        cur = int(m.group(1))
        frames[cur] = (m.group(2), [])
    elif cur is not None and re.match(r"    (error|warning|note|info) ", line):
        frames[cur][1].append(line.strip())
flush = {n: f for n, f in frames.items() if " FLUSH " in f[0] + " "}
aw = {n: f for n, f in frames.items() if " ATOMIC WRITE " in f[0] + " "}
bad = {n: f for n, f in flush.items() if any("CA17-22" in x for x in f[1])}
fail = []
if not aw:
    fail.append("no ATOMIC WRITE from the DUT was captured")
for n, (d, fs) in aw.items():
    if any("CA17-22" in x for x in fs):
        fail.append(f"frame {n} ({d}): ATOMIC WRITE with a wrong ICRC: {fs}")
if not bad:
    fail.append(f"no FLUSH with a wrong ICRC on {kernel}: rxe's own FLUSH is now right, and R13 of "
                "docs/rxe-results.md (the headers covered twice) no longer holds there; update it")
for n, (d, fs) in bad.items():
    icrc = [x for x in fs if "CA17-22" in x]
    if not all("(likely cause: the headers were covered again after the BTH as payload)" in x for x in icrc):
        fail.append(f"frame {n} ({d}): the wrong ICRC is not (only) the headers covered twice: {icrc}")
print(f"newer_verbs: {kernel}: {len(flush)} FLUSH frames, {len(bad)} from rxe with its ICRC over the headers "
      f"twice (headers-twice), {len(aw)} ATOMIC WRITE with a right ICRC")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
EOF
