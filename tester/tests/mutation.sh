#!/bin/sh
# The mutation check: every case must fail against each soft-DUT fault
# profile its 'mutants' header names (and pass without it, which
# e2e_suite.sh checks). Each profile gets its own namespaces and agent.
# usage: mutation.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR
set -u
netns=$1 agent=$2 t=$3 cases=$4
list=$("$t" run --list-mutants "$cases") || { echo "mutation: cannot list the cases"; exit 1; }
[ -n "$list" ] || { echo "mutation: FAIL: no case names a mutant"; exit 1; }
fails=0 n=0
tab=$(printf '\t')
echo "$list" | {
  while IFS="$tab" read -r file id fault; do
    n=$((n + 1))
    out=$(mktemp -d)
    "$netns" --agent "$agent" --agent-arg --fault --agent-arg "$fault" --timeout 120 -- \
      sh -c '"$1" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$2" --ip 4 -q "$3"' \
      sh "$t" "$out" "$file" >"$out/log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
      cat "$out/log"
      rm -rf "$out"
      exit 77
    fi
    verdict=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cases"][0]["verdict"])' "$out/results.json" 2>/dev/null)
    if [ $rc -eq 1 ] && [ "$verdict" = fail ]; then
      echo "ok: $id fails under --fault $fault"
    else
      echo "FAIL: $id under --fault $fault: exit $rc, verdict '$verdict' (expected exit 1, fail)"
      sed 's/^/  | /' "$out/log"
      fails=$((fails + 1))
    fi
    rm -rf "$out"
  done
  [ $fails -eq 0 ] && echo "mutation: all $n mutants caught"
  exit $fails
}
