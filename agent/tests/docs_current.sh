#!/bin/sh
# docs/agent.md's generated tables (fault profiles, counters, hostile modes) match the agent.
#   docs_current.sh ROCE_AGENT DOCS_AGENT_MD
agent=$1 doc=$2
rc=0
check() { # marker, option
  sed -n "/<!-- $1:begin -->/,/<!-- $1:end -->/p" "$doc" | sed '1d;$d' > "${TMPDIR:-/tmp}/doc.$$"
  if ! "$agent" "$2" --markdown | diff -u "${TMPDIR:-/tmp}/doc.$$" -; then
    echo "docs/agent.md: the $1 table is stale; regenerate with roce-agent $2 --markdown" >&2
    rc=1
  fi
  rm -f "${TMPDIR:-/tmp}/doc.$$"
}
check faults --list-faults
check counters --list-counters
check hostile --list-hostile
exit $rc
