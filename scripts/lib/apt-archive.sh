# Reaching other Debian releases' packages without naming an archive host.
# Sourced by scripts that download packages of a suite this machine does not
# run (Debian trixie or sid for Wireshark's releases, a newer kernel for the
# rxe VM). Labs sit behind their own mirrors and proxies, so the mirror is
# the one this machine's apt configuration already uses; only the suite
# changes. ROCE_DEBIAN_MIRROR overrides it.
#
#   . scripts/lib/apt-archive.sh
#   mirror=$(roce_debian_mirror) || exit 77      # "cannot reach": skip
#   roce_apt_state DIR "$mirror" trixie sid      # private apt state, signed lists
#   apt-get $(roce_apt_opts DIR) download PKG
#
# The machine's own apt state is never touched: DIR holds the sources, the
# lists and the downloads, and apt checks every Release signature against
# debian-archive-keyring (ROCE_DEBIAN_KEYRING overrides it).

# Prints the URI of the machine's Debian archive mirror (not its security
# archive), from /etc/apt/sources.list and /etc/apt/sources.list.d/ (one-line
# and deb822 formats). Fails with a message on stderr when there is none.
roce_debian_mirror() {
  if [ -n "${ROCE_DEBIAN_MIRROR:-}" ]; then
    printf '%s\n' "${ROCE_DEBIAN_MIRROR%/}"
    return 0
  fi
  local etc=${ROCE_APT_ETC:-/etc/apt} uri
  # A Debian archive mirror carries dists/<codename> with main; the security
  # archive and third-party repositories are told apart by their suites.
  uri=$(
    {
      [ -r "$etc/sources.list" ] && cat "$etc/sources.list"
      for f in "$etc"/sources.list.d/*.list; do [ -r "$f" ] && cat "$f"; done
    } 2>/dev/null | awk '
      /^[[:space:]]*#/ { next }
      $1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
        uri = $i; suite = $(i + 1)
        if (suite ~ /^(bookworm|trixie|forky|sid|unstable|testing|stable|bullseye)(-updates|-backports)?$/ &&
            suite !~ /security/) { print uri; exit }
      }'
  )
  if [ -z "$uri" ]; then
    uri=$(
      for f in "$etc"/sources.list.d/*.sources; do [ -r "$f" ] && { cat "$f"; echo; }; done 2>/dev/null |
        awk '
          function flush() {
            if (types ~ /(^|[[:space:]])deb([[:space:]]|$)/ && uris != "" &&
                suites ~ /(^|[[:space:]])(bookworm|trixie|forky|sid|unstable|testing|stable|bullseye)([[:space:]]|$)/ &&
                suites !~ /security/ && !done) { split(uris, u, /[[:space:]]+/); print u[1]; done = 1 }
            types = uris = suites = ""
          }
          /^[[:space:]]*$/ { flush(); next }
          /^[[:space:]]*#/ { next }
          tolower($1) == "types:" { sub(/^[^:]*:[[:space:]]*/, ""); types = $0 }
          tolower($1) == "uris:" { sub(/^[^:]*:[[:space:]]*/, ""); uris = $0 }
          tolower($1) == "suites:" { sub(/^[^:]*:[[:space:]]*/, ""); suites = $0 }
          END { flush() }'
    )
  fi
  if [ -z "$uri" ]; then
    echo "no Debian archive mirror in $etc/sources.list or $etc/sources.list.d/; set ROCE_DEBIAN_MIRROR" >&2
    return 1
  fi
  printf '%s\n' "${uri%/}"
}

# The apt options that make apt-get and apt-cache use the private state DIR.
roce_apt_opts() {
  echo "-o Dir::Etc::sourcelist=$1/sources.list -o Dir::Etc::sourceparts=$1/parts" \
       "-o Dir::State::Lists=$1/lists -o Dir::Cache::archives=$1/archives" \
       "-o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1" \
       "-o APT::Architectures=amd64 -o Acquire::Languages=none"
}

# roce_apt_state DIR MIRROR SUITE... : a private apt state in DIR whose
# sources are MIRROR's SUITEs (main), refreshed at most once a day (the
# lists are kept, so a cached state works without the network). Fails when
# no package list could be had; DIR/update.log says why. A signature that
# does not verify is a failure to report, not a reason to skip: see
# roce_apt_bad_signature.
roce_apt_state() {
  local dir=$1 mirror=$2 keyring=${ROCE_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg} s
  shift 2
  mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/parts"
  for s in "$@"; do
    echo "deb [signed-by=$keyring] $mirror $s main"
  done >"$dir/sources.list.new"
  if ! cmp -s "$dir/sources.list.new" "$dir/sources.list"; then
    mv "$dir/sources.list.new" "$dir/sources.list"
    rm -f "$dir/lists/"*Packages* "$dir/lists/"*Release*
  else
    rm -f "$dir/sources.list.new"
  fi
  [ -z "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ] || return 0
  # shellcheck disable=SC2046
  apt-get $(roce_apt_opts "$dir") update -qq >"$dir/update.log" 2>&1
  [ -n "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' | head -1)" ]
}

# True when the last update of state DIR failed on a signature (prints the
# lines that say so).
roce_apt_bad_signature() {
  grep -s 'GPG error\|is not signed\|BADSIG\|NO_PUBKEY' "$1/update.log" | head -5 | grep .
}
