#!/bin/sh
# The printed report (`roce-tester report --pdf`), from a real run against
# the soft DUT with congestion management and the fault profile
# seq-nak-wrong-psn (scripts/netns-pair: its own namespaces and agent):
# the PSN sequence NAK case fails, and so does the go-back-N load step
# (thousands of packets and timings), SEND/ACK passes, the rate cut is
# informative with its congestion chart.
#   - the run removes a print of an earlier run (report-print.html, report.pdf);
#   - report --pdf and --pdf-full: the PDFs checked by check_report_pdf.py
#     (page count, cover, page numbers, no navigation, every verdict, the
#     evidence and ladders of the failing case, the ladders of passing
#     cases only in --pdf-full, the chart page), the cover and the chart
#     page kept as PNG images in ARTIFACT-DIR with both PDFs and the
#     run's results.json;
#   - no Chromium in PATH: exit 3 and a message naming the package, the
#     print version written all the same, no PDF left behind;
#   - an older Chromium (ROCE_CHROMIUM, a wrapper answering --version with
#     120): Chromium's own header and footer are kept for the page numbers;
#     Chromium 156: they are off, and it writes nothing into HOME;
#   - a browser that hangs is stopped at --pdf-timeout (exit 4), and its
#     process is gone; one that fails is exit 4 with its status;
#   - bad usage: --pdf with --compare, a --pdf-timeout that is no number.
# usage: report_pdf.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR TESTS-DIR ARTIFACT-DIR
set -u
netns=$1 agent=$2 t=$3 cases=$4 dir=$5 art=$6
work=$(mktemp -d)
sleeper=
cleanup() {
  # Only the stand-in browser this test started, should it still run.
  [ -n "$sleeper" ] && [ -s "$work/sleeper.pid" ] && kill "$(cat "$work/sleeper.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
for tool in pdfinfo pdftotext pdftoppm; do
  command -v $tool >/dev/null || { echo "report_pdf: SKIP: $tool is not installed (Debian package poppler-utils)"; exit 77; }
done
command -v chromium >/dev/null || { echo "report_pdf: SKIP: chromium is not installed (Debian package chromium)"; exit 77; }
rcm=$(grep -v '^#' "$dir/rcm-agent-args" | sed 's/^/--agent-arg /' | tr '\n' ' ')

d=$work/run
mkdir -p "$d"
echo stale >"$d/report-print.html"
echo stale >"$d/report.pdf"
# shellcheck disable=SC2086 # the agent arguments are words
"$netns" --mtu 9000 --agent "$agent" $rcm --agent-arg --fault --agent-arg seq-nak-wrong-psn --timeout 300 -- sh -c \
  "\"$t\" run -q --iface \"\$ROCE_IF_TESTER\" --agent \"\$ROCE_AGENT\" --token-file \"\$ROCE_TOKEN_FILE\" \
    --report-dir \"$d\" \"$cases/rc-responder/psn-sequence-nak.case\" \"$cases/rc-responder/send-ack.case\" \
    \"$cases/congestion/rate-cut.case\" \"$cases/rc-responder/load-go-back-n.case\"" >"$work/run.log" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$work/run.log"; exit 77; }
if [ $rc -eq 1 ]; then ok "run exit 1 (a case fails under the fault)"; else bad "run exit $rc, expected 1"; cat "$work/run.log"; fi
[ -e "$d/report-print.html" ] || [ -e "$d/report.pdf" ] && bad "the run kept the print of an earlier run" \
  || ok "the run removed the print of an earlier run"

# The print, and the print with every case in full.
"$t" report --pdf "$d" >"$work/pdf.out" 2>"$work/pdf.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^print: $d/report-print.html" "$work/pdf.out" && grep -q "^pdf:   $d/report.pdf" "$work/pdf.out"; then
  ok "report --pdf: exit 0, names report-print.html and report.pdf"
else
  bad "report --pdf: exit $rc"; cat "$work/pdf.out" "$work/pdf.err"
fi
"$t" report -q --pdf-full -o "$work/full" "$d" >"$work/full.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s "$work/full/report.pdf" ] && ok "report --pdf-full: exit 0" \
  || { bad "report --pdf-full: exit $rc"; cat "$work/full.out"; }
mkdir -p "$art"
/usr/bin/python3 "$dir/check_report_pdf.py" "$d/results.json" "$d/report.pdf" "$work/full/report.pdf" "$art" \
  && ok "the PDFs (check_report_pdf.py)" || bad "the PDFs (check_report_pdf.py)"
cp "$d/report.pdf" "$art/report.pdf" 2>/dev/null
cp "$work/full/report.pdf" "$art/report-full.pdf" 2>/dev/null
cp "$d/results.json" "$art/results.json" 2>/dev/null

# No Chromium: the package named, the print version written, no PDF.
mkdir -p "$work/nobrowser"
cp "$d/results.json" "$work/nobrowser/"
echo stale >"$work/nobrowser/report.pdf"
env PATH=/nonexistent "$t" report -q --pdf "$work/nobrowser" >"$work/nb.out" 2>"$work/nb.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "install the package chromium (apt-get install chromium)" "$work/nb.err" \
  && grep -q "report-print.html can be printed from any browser" "$work/nb.err" \
  && [ -s "$work/nobrowser/report-print.html" ] && [ ! -e "$work/nobrowser/report.pdf" ] && [ -s "$work/nobrowser/report.html" ]; then
  ok "no Chromium: exit 3, the package named, report-print.html written, no PDF"
else
  bad "no Chromium: exit $rc"; cat "$work/nb.out" "$work/nb.err"; ls -l "$work/nobrowser"
fi

# An older Chromium (before @page margin boxes): its own footer numbers the pages.
cat >"$work/chromium-120" <<'EOF'
#!/bin/sh
if [ "$1" = --version ]; then echo "Chromium 120.0.6099.224 built on Debian GNU/Linux 12 (bookworm)"; exit 0; fi
exec chromium "$@"
EOF
chmod +x "$work/chromium-120"
mkdir -p "$work/old"
cp "$d/results.json" "$work/old/"
ROCE_CHROMIUM=$work/chromium-120 "$t" report -q --pdf "$work/old" >"$work/old.out" 2>&1
rc=$?
pages=$(pdfinfo "$work/old/report.pdf" 2>/dev/null | awk '/^Pages:/ {print $2}')
if [ $rc -eq 0 ] && pdftotext -f 1 -l 1 -layout "$work/old/report.pdf" - 2>/dev/null | grep -Eq "report-print\.html +1/$pages\$"; then
  ok "Chromium 120: its own footer (file and page 1/$pages) is kept"
else
  bad "Chromium 120: exit $rc, no Chromium footer on page 1"; cat "$work/old.out"
fi
mkdir -p "$work/home"
env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$work/home" ROCE_CHROMIUM=chromium "$t" report -q --pdf "$work/old" >/dev/null 2>&1
pdftotext -f 1 -l 1 -layout "$work/old/report.pdf" - | grep -q "report-print.html" \
  && bad "Chromium 156: its own footer was not turned off" || ok "Chromium 156: its own header and footer are off"
[ -z "$(ls -A "$work/home")" ] && ok "the browser wrote nothing into HOME (profile, crash database and caches are temporary)" \
  || { bad "the browser wrote into HOME"; find "$work/home" | head; }

# A browser that hangs is stopped; one that fails is reported.
cat >"$work/hang" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "Chromium 156.0.0.0"; exit 0; fi
echo \$\$ >"$work/sleeper.pid"
exec sleep 120
EOF
chmod +x "$work/hang"
sleeper=1
start=$(date +%s)
ROCE_CHROMIUM=$work/hang "$t" report -q --pdf --pdf-timeout 2 "$work/old" >"$work/hang.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
pid=$(cat "$work/sleeper.pid" 2>/dev/null)
if [ $rc -eq 4 ] && [ "$took" -le 15 ] && grep -q "did not print .* within 2 s (--pdf-timeout); it was stopped" "$work/hang.out" \
  && [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && [ ! -e "$work/old/report.pdf" ]; then
  ok "a hanging browser: stopped after 2 s (exit 4, took ${took} s), its process gone, no PDF"
else
  bad "a hanging browser: exit $rc after ${took} s, pid ${pid:-none}"; cat "$work/hang.out"
fi
ROCE_CHROMIUM=/bin/false "$t" report -q --pdf "$work/old" >"$work/false.out" 2>&1
rc=$?
[ $rc -eq 4 ] && grep -q "could not print .*(exit status 1)" "$work/false.out" && ok "a failing browser: exit 4 with its status" \
  || { bad "a failing browser: exit $rc"; cat "$work/false.out"; }

# Bad usage.
"$t" report --pdf --compare "$d" "$d" >/dev/null 2>&1
[ $? -eq 2 ] && ok "--pdf with --compare: exit 2" || bad "--pdf with --compare accepted"
"$t" report --pdf-timeout soon "$d" >/dev/null 2>"$work/usage.err"
[ $? -eq 2 ] && grep -q "pdf-timeout soon: expected seconds" "$work/usage.err" && ok "--pdf-timeout soon: exit 2, says why" \
  || bad "--pdf-timeout soon accepted"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "report_pdf: all ok (images and PDFs in $art)"
