#!/bin/sh
# The packages and the installation:
#   - cpack builds one .deb per component (roce-tester, roce-agent, and
#     roce-wireshark-plugin when the plugin is built), each with a name,
#     version, architecture, maintainer, section, a synopsis and a long
#     description, and library dependencies from dpkg-shlibdeps;
#   - their contents: the programs, gzipped man pages, the suite, the guides;
#   - unpacked into a temporary root, the programs run, parse the installed
#     suite, and their man pages render;
#   - each ships its copyright and Debian changelog, and lintian finds no
#     error or warning in them;
#   - apt-get can satisfy their dependencies on this system (simulated);
#   - `cmake --install --prefix` puts everything under the prefix (and only
#     there), the installed programs run, and a component installs alone.
# usage: test-packaging.sh BUILD-DIR "COMPONENTS"
set -u
build=$1
components=$(echo "$2" | tr ';' ' ')
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || { echo "test-packaging: SKIP: $tool is not installed (dpkg-dev, cmake)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

if ! cpack --config "$build/CPackConfig.cmake" -B "$work/debs" >"$work/cpack.log" 2>&1; then
  bad "cpack failed"; cat "$work/cpack.log"; exit 1
fi
ok "cpack built the packages"
pkgname() { case $1 in tester) echo roce-tester ;; agent) echo roce-agent ;; plugin) echo roce-wireshark-plugin ;; esac; }
debs=
for c in $components; do
  name=$(pkgname "$c")
  deb=$(ls "$work/debs/${name}_"*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || { bad "no .deb for $name"; continue; }
  debs="$debs $deb"
  dpkg-deb -I "$deb" >"$work/$name.info" || { bad "$name: dpkg-deb -I"; continue; }
  for field in Package Version Architecture Maintainer Section Priority Depends Description; do
    grep -q "^ $field: ." "$work/$name.info" || bad "$name: no $field field"
  done
  grep -q "^ Package: $name\$" "$work/$name.info" && grep -q "^ Architecture: $(dpkg --print-architecture)\$" "$work/$name.info" \
    && ok "$name: control fields" || { bad "$name: control"; cat "$work/$name.info"; }
  # A synopsis, then a long description of several lines.
  [ "$(sed -n '/^ Description:/,$p' "$work/$name.info" | wc -l)" -ge 4 ] && ok "$name: a synopsis and a long description" \
    || bad "$name: description too short"
  dpkg-deb -c "$deb" | awk '{print $6}' >"$work/$name.files"
done
have() { grep -q "$2" "$work/$1.info" && ok "$1 depends on $3" || bad "$1 lacks a dependency on $3"; }
contains() { grep -q "$2" "$work/$1.files" && ok "$1 ships $3" || bad "$1 lacks $3"; }
have roce-tester "^ Depends:.*libpcap0.8" libpcap
have roce-tester "^ Depends:.*libdeflate0" "libdeflate (libroce's CRC-32)"
have roce-tester "^ Depends:.*libjson-glib-1.0-0" json-glib
have roce-tester "^ Depends:.*libwiretap" "wiretap (the capture writer)"
have roce-tester "^ Suggests:.*chromium" "chromium (suggested: report --pdf)"
have roce-agent "^ Depends:.*libglib2.0-0" glib
have roce-agent "^ Depends:.*libibverbs1" libibverbs
contains roce-tester '^\./usr/bin/roce-tester$' /usr/bin/roce-tester
contains roce-tester '^\./usr/share/man/man1/roce-tester\.1\.gz$' "the man page"
contains roce-tester '^\./usr/share/roce-tester/conformance-cases/rc-responder/send-ack\.case$' "the suite"
contains roce-tester '^\./usr/share/doc/roce-tester/real-hardware\.md$' "the hardware guide"
contains roce-agent '^\./usr/sbin/roce-agent$' /usr/sbin/roce-agent
contains roce-agent '^\./usr/share/man/man8/roce-agent\.8\.gz$' "the man page"
contains roce-agent '^\./usr/share/doc/roce-agent/examples/roce-agent\.service$' "the example unit"
if grep -q '^\./usr/bin/roce-tester$' "$work/roce-agent.files" || grep -q 'roce-agent' "$work/roce-tester.files"; then
  bad "a program in the other component's package"
else
  ok "each package holds its own component only"
fi
case " $components " in *" plugin "*)
  contains roce-wireshark-plugin '^\./usr/lib/.*/wireshark/plugins/[0-9.]*/epan/rocev2\.so$' "rocev2.so in the global plugin folder"
  contains roce-wireshark-plugin '^\./usr/share/doc/roce-wireshark-plugin/plugin\.md$' "its guide"
  have roce-wireshark-plugin "^ Depends:.*libwireshark" libwireshark
  have roce-wireshark-plugin "^ Depends:.*libdeflate0" "libdeflate (libroce's CRC-32)"
  have roce-wireshark-plugin "^ Depends:.*libwireshark-data (<< " "the Wireshark version it was built for"
  ;;
esac

for c in $components; do
  name=$(pkgname "$c")
  contains "$name" "^\./usr/share/doc/$name/copyright\$" "its copyright file"
  contains "$name" "^\./usr/share/doc/$name/changelog\.Debian\.gz\$" "its Debian changelog"
done

# Debian's package checker: no error and no warning. The one tag left out
# is about the Debian archive (a first upload there closes an ITP bug).
if command -v lintian >/dev/null; then
  if lintian --fail-on error,warning --suppress-tags initial-upload-closes-no-bugs $debs >"$work/lintian.log" 2>&1; then
    ok "lintian finds no error or warning"
  else
    bad "lintian:"; grep -E '^[EW]:' "$work/lintian.log" || cat "$work/lintian.log"
  fi
else
  bad "lintian is not installed (./scripts/setup-deps installs it)"
fi

# Unpacked into a root of its own.
root=$work/root
for deb in $debs; do dpkg-deb -x "$deb" "$root"; done
"$root/usr/bin/roce-tester" --version >"$work/v" 2>&1 && grep -q "^roce-tester " "$work/v" && ok "the unpacked roce-tester runs" \
  || { bad "unpacked roce-tester"; cat "$work/v"; }
"$root/usr/bin/roce-tester" run --check "$root/usr/share/roce-tester/conformance-cases" >"$work/v" 2>&1 \
  && ok "it parses the installed suite: $(tail -1 "$work/v")" || { bad "installed suite"; cat "$work/v"; }
"$root/usr/sbin/roce-agent" --version >"$work/v" 2>&1 && ok "the unpacked roce-agent runs" || { bad "unpacked roce-agent"; cat "$work/v"; }
for page in man1/roce-tester.1.gz man8/roce-agent.8.gz; do
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$root/usr/share/man/$page" >/dev/null 2>"$work/err" && [ ! -s "$work/err" ] \
    && ok "$page renders from the package" || { bad "$page"; cat "$work/err"; }
done
if command -v apt-get >/dev/null; then
  (cd "$work" && apt-get install -s -q -o Debug::NoLocking=1 $debs) >"$work/apt.log" 2>&1 \
    && grep -q "^Inst roce-tester" "$work/apt.log" && ok "apt-get can install them here (dependencies satisfiable)" \
    || { bad "apt-get -s install"; tail -20 "$work/apt.log"; }
fi

# cmake --install with a prefix. A first install under DESTDIR shows where
# every file goes without touching this system even if a rule is absolute.
prefix=$work/prefix
DESTDIR=$work/dest cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 \
  || { bad "cmake --install (DESTDIR)"; cat "$work/install.log"; }
outside=$(cd "$work/dest" && find . ! -type d | sed 's/^\.//' | grep -v "^$prefix/" || true)
if [ -z "$outside" ]; then
  ok "cmake --install --prefix writes under the prefix only"
  cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { bad "cmake --install"; cat "$work/install.log"; }
else
  bad "cmake --install --prefix would write outside the prefix: $outside"
  cp -a "$work/dest$prefix" "$prefix" 2>/dev/null
fi
"$prefix/bin/roce-tester" --version >/dev/null && "$prefix/bin/roce-tester" rules >/dev/null \
  && "$prefix/bin/roce-tester" run --check "$prefix/share/roce-tester/conformance-cases" >/dev/null \
  && ok "the installed roce-tester runs and parses the installed suite" || bad "installed roce-tester"
case " $components " in *" plugin "*)
  [ -n "$(find "$prefix/lib" -name rocev2.so 2>/dev/null)" ] && ok "the plugin installs under the prefix too" \
    || bad "the plugin is not under the prefix";;
esac
"$prefix/sbin/roce-agent" --list-faults | grep -q "^no-seq-nak" && ok "the installed roce-agent runs" || bad "installed roce-agent"
for page in man1/roce-tester.1.gz man8/roce-agent.8.gz; do
  [ -s "$prefix/share/man/$page" ] && ok "$page installed" || bad "$page not installed"
done
zcat "$prefix/share/man/man1/roce-tester.1.gz" | grep -q "$prefix/share/roce\\\\-tester/conformance\\\\-cases" \
  && ok "the man page names the suite where this prefix put it" || bad "man page paths"
zcat "$root/usr/share/man/man1/roce-tester.1.gz" | grep -q " /usr/share/roce\\\\-tester/conformance\\\\-cases" \
  && ok "the packaged man page names /usr/share/roce-tester/conformance-cases" || bad "packaged man page paths"
DESTDIR=$work/agent-dest cmake --install "$build" --prefix /agent-only --component agent >/dev/null 2>&1
mv "$work/agent-dest/agent-only" "$work/agent-only" 2>/dev/null
[ -x "$work/agent-only/sbin/roce-agent" ] && [ ! -e "$work/agent-only/bin/roce-tester" ] \
  && ok "a component installs alone" || bad "component install"
[ $fails -eq 0 ] && echo "test-packaging: all passed"
exit $fails
