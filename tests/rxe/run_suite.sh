#!/bin/sh
# Runs inside scripts/rxe-vm/run-with-rxe (the agent in the guest): the
# conformance suite, or the subset a file lists, against rxe, then checks
# the verdicts against the guest kernel's column of docs/rxe-results.md
# (rxe_results.py).
# usage: run_suite.sh ROCE-TESTER CASES-DIR DOC [SUBSET-FILE]
#   ROCE_RXE_REPORT_DIR  keep results.json and the capture there
#   ROCE_RXE_UPDATE=1    rewrite the kernel's column from a full run
# The kernel comes from run-with-rxe (ROCE_RXE_KERNEL_RELEASE, _SUITE,
# _PACKAGE).
set -u
t=$1 cases=$2 doc=$3 subset=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
release=${ROCE_RXE_KERNEL_RELEASE:?run_suite.sh runs under scripts/rxe-vm/run-with-rxe}
if [ -n "${ROCE_RXE_REPORT_DIR:-}" ]; then
  out=$ROCE_RXE_REPORT_DIR
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
set --
if [ -n "$subset" ]; then
  for f in $(grep -v '^#' "$subset"); do set -- "$@" "$cases/$f"; done
else
  set -- "$cases"
fi
echo "run_suite: rxe on Linux $release (${ROCE_RXE_KERNEL_PACKAGE:-?}${ROCE_RXE_KERNEL_SUITE:+, Debian $ROCE_RXE_KERNEL_SUITE})"
"$t" run --iface "$ROCE_RXE_IFACE" --agent "$ROCE_RXE_AGENT" --token-file "$ROCE_RXE_TOKEN_FILE" \
  --report-dir "$out" "$@"
rc=$?
# 1: some case failed, which rxe's deviations make expected; the check
# below decides. Usage errors, an interrupt or no results end here.
if [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 3 ]; then
  echo "run_suite: roce-tester run exited $rc"
  exit 1
fi
[ -f "$out/results.json" ] || { echo "run_suite: no results"; exit 1; }
if [ -n "$subset" ]; then
  exec /usr/bin/python3 "$here/rxe_results.py" check "$out/results.json" "$doc" --kernel "$release"
fi
if [ "${ROCE_RXE_UPDATE:-0}" = 1 ]; then
  # The suite the package came from: the one asked for, else this
  # machine's own (its apt chose the kernel).
  suite=${ROCE_RXE_KERNEL_SUITE:-$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}
  /usr/bin/python3 "$here/rxe_results.py" update "$out/results.json" "$doc" --kernel "$release" \
    --suite "${suite:-?}" --package "${ROCE_RXE_KERNEL_PACKAGE:-?}" --boot-seconds "${ROCE_RXE_BOOT_SECONDS:-0}" || exit 1
fi
exec /usr/bin/python3 "$here/rxe_results.py" check "$out/results.json" "$doc" --kernel "$release" --all "$cases"
