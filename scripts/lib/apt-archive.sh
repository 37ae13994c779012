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
#
# For Ubuntu (Wireshark 4.2 comes from Ubuntu 24.04): roce_ubuntu_mirror
# (ROCE_UBUNTU_MIRROR overrides it) and roce_ubuntu_archive_key, the
# archive's signing key from Debian's ubuntu-keyring, pinned. For tools that
# run apt with a configuration of their own (mmdebstrap): the machine's
# settings for reaching archives, roce_apt_acquire_conf.

# Prints the URI of the first "deb" source in the machine's apt
# configuration (/etc/apt/sources.list and sources.list.d/, one-line and
# deb822 formats; ROCE_APT_ETC stands in for /etc/apt) one of whose suites is
# a name matching the extended regular expression $1, alone or with
# -updates or -backports (so not the security archive).
_roce_apt_source_uri() {
  local etc=${ROCE_APT_ETC:-/etc/apt} names=$1 uri
  uri=$(
    {
      [ -r "$etc/sources.list" ] && cat "$etc/sources.list"
      for f in "$etc"/sources.list.d/*.list; do [ -r "$f" ] && cat "$f"; done
    } 2>/dev/null | awk -v names="$names" '
      /^[[:space:]]*#/ { next }
      $1 == "deb" {
        i = 2
        if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
        if ($(i + 1) ~ ("^(" names ")(-updates|-backports)?$")) { print $i; exit }
      }'
  )
  if [ -z "$uri" ]; then
    uri=$(
      for f in "$etc"/sources.list.d/*.sources; do [ -r "$f" ] && { cat "$f"; echo; }; done 2>/dev/null |
        awk -v names="$names" '
          function flush(  n, s, k) {
            if (types ~ /(^|[[:space:]])deb([[:space:]]|$)/ && uris != "" && !done) {
              n = split(suites, s, /[[:space:]]+/)
              for (k = 1; k <= n; k++)
                if (s[k] ~ ("^(" names ")(-updates|-backports)?$")) {
                  split(uris, u, /[[:space:]]+/); print u[1]; done = 1; break
                }
            }
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
  [ -n "$uri" ] || return 1
  printf '%s\n' "${uri%/}"
}

# Prints the URI of the machine's Debian archive mirror (not its security
# archive), from /etc/apt/sources.list and /etc/apt/sources.list.d/ (one-line
# and deb822 formats). Fails with a message on stderr when there is none.
roce_debian_mirror() {
  if [ -n "${ROCE_DEBIAN_MIRROR:-}" ]; then
    printf '%s\n' "${ROCE_DEBIAN_MIRROR%/}"
    return 0
  fi
  _roce_apt_source_uri 'bookworm|trixie|forky|duke|sid|unstable|testing|stable|oldstable|bullseye' && return 0
  echo "no Debian archive mirror in ${ROCE_APT_ETC:-/etc/apt}/sources.list or sources.list.d/; set ROCE_DEBIAN_MIRROR" >&2
  return 1
}

# Prints the URI of an Ubuntu archive mirror: ROCE_UBUNTU_MIRROR, or an
# Ubuntu source of the machine's apt configuration (a suite named in
# distro-info-data's ubuntu.csv). Prints nothing when there is neither: the
# caller then leaves the choice to the bootstrap tool (mmdebstrap knows
# Ubuntu's archive, as apt knows Debian's), so that the project names no
# archive host itself.
roce_ubuntu_mirror() {
  if [ -n "${ROCE_UBUNTU_MIRROR:-}" ]; then
    printf '%s\n' "${ROCE_UBUNTU_MIRROR%/}"
    return 0
  fi
  local names
  names=$(awk -F, 'NR > 1 && $3 != "" { printf "%s%s", sep, $3; sep = "|" }' \
    /usr/share/distro-info/ubuntu.csv 2>/dev/null)
  if [ -n "$names" ]; then
    _roce_apt_source_uri "$names" || true
  fi
}

# Settings of the machine's apt configuration about reaching archives
# (proxies, TLS, retries, whether an expired Release file is accepted), as
# an apt.conf file: for tools that run apt with a configuration of their own
# (mmdebstrap --aptopt=FILE), so that they reach the archive the way the
# machine's apt does.
roce_apt_acquire_conf() {
  apt-config dump 2>/dev/null |
    grep -E '^Acquire::((https?|ftp|socks)::|(Check-Valid-Until|Check-Date|Max-ValidTime|Min-ValidTime|Retries|ForceIPv4|ForceIPv6) )' \
    >"$1" || true
}

# roce_ubuntu_archive_key STATE OUT: the Ubuntu archive signing key (the
# "Ubuntu Archive Automatic Signing Key (2018)", pinned by fingerprint) from
# Debian's own ubuntu-keyring package, downloaded through the Debian apt
# state STATE (roce_apt_state, whose lists apt verified against Debian's
# keyring), into the keyring file OUT. Kept: a later call reuses OUT.
# Fails with 1 when the package cannot be had (STATE/keyring.log says why),
# with 2 when it does not hold the pinned key.
roce_ubuntu_archive_key() {
  local state=$1 out=$2 fpr=F6ECB3762474EDA9D21B7022871920D1991BC93C tmp
  [ -s "$out" ] && return 0
  tmp=$(mktemp -d)
  mkdir -p "$tmp/dl" "$tmp/gnupg"
  chmod 700 "$tmp/gnupg"
  # shellcheck disable=SC2046
  if ! (cd "$tmp/dl" && apt-get $(roce_apt_opts "$state") download -qq ubuntu-keyring) >"$state/keyring.log" 2>&1; then
    rm -rf "$tmp"
    return 1
  fi
  dpkg-deb -x "$tmp"/dl/ubuntu-keyring_*.deb "$tmp/unpacked"
  GNUPGHOME=$tmp/gnupg gpg --batch --quiet --no-default-keyring \
    --keyring "$tmp/unpacked/usr/share/keyrings/ubuntu-archive-keyring.gpg" \
    --export "$fpr" >"$out.new" 2>>"$state/keyring.log"
  rm -rf "$tmp"
  if [ ! -s "$out.new" ]; then
    echo "Debian's ubuntu-keyring does not hold the Ubuntu archive key $fpr" >>"$state/keyring.log"
    rm -f "$out.new"
    return 2
  fi
  mv "$out.new" "$out"
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
