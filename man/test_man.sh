#!/bin/sh
# The man pages render without a warning (man -l with groff's warnings, and
# groff -ww), and document every option that --help shows, for every
# command of roce-tester and for roce-agent.
# usage: test_man.sh ROCE-TESTER ROCE-AGENT MAN-BUILD-DIR
set -u
tester=$1 agent=$2 dir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
command -v man >/dev/null && command -v groff >/dev/null || { echo "test_man: SKIP: man-db and groff are not installed"; exit 77; }
for page in roce-tester.1 roce-agent.8; do
  f=$dir/$page
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" >"$tmp/$page.txt" 2>"$tmp/err"
  if [ $? -eq 0 ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/$page.txt" ]; then ok "$page: man -l renders it without warnings"
  else bad "$page: man -l"; cat "$tmp/err"; fi
  groff -man -ww -z -Tutf8 "$f" >"$tmp/err" 2>&1
  [ ! -s "$tmp/err" ] && ok "$page: groff -ww finds nothing to warn about" || { bad "$page: groff warnings"; cat "$tmp/err"; }
  grep -q '@[A-Z_]*@' "$f" && bad "$page: an unsubstituted @VARIABLE@" || ok "$page: every @VARIABLE@ filled in"
done
# Every long option of every --help, in the page's source (as \-\-name).
documented() { # page, help output file, what
  missing=
  for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$2" | sort -u); do
    roff=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
    grep -q -- "$roff" "$dir/$1" || missing="$missing $o"
  done
  [ -z "$missing" ] && ok "$1 documents every option of $3" || bad "$1 lacks$missing (from $3)"
}
for cmd in run fuzz report craft lint rules coverage; do
  "$tester" $cmd --help >"$tmp/help" 2>&1 || bad "roce-tester $cmd --help failed"
  documented roce-tester.1 "$tmp/help" "roce-tester $cmd --help"
  grep -q "^   $cmd\$" "$tmp/roce-tester.1.txt" && ok "roce-tester.1 has a section for $cmd" || bad "no section for $cmd"
done
"$tester" --help >"$tmp/help" && documented roce-tester.1 "$tmp/help" "roce-tester --help"
"$agent" --help >"$tmp/help" && documented roce-agent.8 "$tmp/help" "roce-agent --help"
grep -q "EXIT STATUS" "$tmp/roce-tester.1.txt" && grep -q "EXIT STATUS" "$tmp/roce-agent.8.txt" \
  && ok "both pages give the exit status" || bad "EXIT STATUS missing"
[ $fails -eq 0 ] && echo "test_man: all passed"
exit $fails
