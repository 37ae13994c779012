#!/bin/sh
# The mutation check itself fails when it should: a case without mutants,
# an unknown profile, and a mutant the case does not catch are each
# reported, and a caught one is not.
# usage: mutation_selftest.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER
set -u
dir=$(dirname "$0")
out=$("$dir/mutation.py" "$1" "$2" "$3" "$dir/mutation-selftest" --mtu 1500 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] && exit 77
fails=0
check() { if echo "$out" | grep -qF -- "$1"; then echo "selftest ok: $2"; else echo "selftest FAIL: $2"; fails=$((fails + 1)); fi; }
[ $rc -eq 1 ] && echo "selftest ok: exit 1" || { echo "selftest FAIL: exit $rc, expected 1"; fails=$((fails + 1)); }
check "ok: MS-CAUGHT fails under --fault no-ack" "a caught mutant"
check "FAIL: MS-UNCAUGHT (" "an uncaught mutant is reported"
check "does not fail under --fault wrong-dscp: IPv4 pass" "the uncaught mutant's verdict"
check "mutant 'no-such-profile' is not a fault profile" "an unknown profile"
check "none.case: the case names no mutant" "a case without mutants"
check "mutation: 1 of 2 mutants caught" "the count"
exit $fails
