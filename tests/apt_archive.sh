#!/bin/sh
# scripts/lib/apt-archive.sh reads the mirrors and settings from apt
# configurations made up here (ROCE_APT_ETC, APT_CONFIG), offline:
#   - the Debian mirror from one-line and deb822 sources, not the security
#     archive nor a third-party repository; none is an error with a message;
#     ROCE_DEBIAN_MIRROR overrides it;
#   - an Ubuntu mirror only from an Ubuntu suite, else nothing (the
#     bootstrap tool's own then); ROCE_UBUNTU_MIRROR overrides it;
#   - the settings for reaching archives (proxy, validity), and no others.
#
#   apt_archive.sh SOURCE-DIR
set -u
. "$1/scripts/lib/apt-archive.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 passed=0
check() { # name, got, want
  if [ "$2" = "$3" ]; then
    echo "ok: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1: got '$2', want '$3'"
    fails=$((fails + 1))
  fi
}
etc() { # a fresh apt configuration folder, its sources.list from stdin
  rm -rf "$work/etc"
  mkdir -p "$work/etc/sources.list.d"
  cat >"$work/etc/sources.list"
}
unset ROCE_DEBIAN_MIRROR ROCE_UBUNTU_MIRROR
# The made-up sources below (hosts under .example) take their scheme from
# here, so that no line of the project reads like a real apt source.
web=http
export ROCE_APT_ETC="$work/etc"

etc <<EOF
# deb $web://commented.example/debian bookworm main
deb $web://security.example/debian-security bookworm-security main
deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] $web://mirror.example/debian/ bookworm main contrib
deb ${web}s://vendor.example/apt stable-vendor main
EOF
check "one-line: the Debian mirror, options skipped, not security" "$(roce_debian_mirror)" http://mirror.example/debian
check "no Ubuntu source: no Ubuntu mirror" "$(roce_ubuntu_mirror)" ""

etc </dev/null
cat >"$work/etc/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $web://security.example/debian-security
Suites: trixie-security
Components: main

Types: deb-src deb
URIs: $web://lab.example/debian $web://second.example/debian
Suites: trixie trixie-updates
Components: main
EOF
cat >"$work/etc/sources.list.d/ubuntu.sources" <<EOF
Types: deb
URIs: $web://lab.example/ubuntu/
Suites: noble-updates
Components: main universe
EOF
check "deb822: the Debian mirror (first URI), not security" "$(roce_debian_mirror)" http://lab.example/debian
check "deb822: the Ubuntu mirror from an Ubuntu suite" "$(roce_ubuntu_mirror)" http://lab.example/ubuntu

etc <<EOF
deb $web://security.example/debian-security bookworm-security main
deb $web://vendor.example/apt nodistro main
EOF
status=0
msg=$(roce_debian_mirror 2>&1 >/dev/null) || status=$?
check "no Debian mirror: an error" "$status" 1
case $msg in *ROCE_DEBIAN_MIRROR*) check "... that says to set ROCE_DEBIAN_MIRROR" yes yes ;;
  *) check "... that says to set ROCE_DEBIAN_MIRROR" "$msg" "(a message naming ROCE_DEBIAN_MIRROR)" ;; esac
check "ROCE_DEBIAN_MIRROR overrides it" "$(ROCE_DEBIAN_MIRROR=http://override.example/debian/ roce_debian_mirror)" \
  http://override.example/debian
check "ROCE_UBUNTU_MIRROR overrides it" "$(ROCE_UBUNTU_MIRROR=http://override.example/ubuntu/ roce_ubuntu_mirror)" \
  http://override.example/ubuntu

cat >"$work/apt.conf" <<'EOF'
Acquire::http::Proxy "http://proxy.example:3128";
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Dpkg::Options:: "--force-confold";
EOF
APT_CONFIG=$work/apt.conf roce_apt_acquire_conf "$work/acquire.conf"
check "the proxy is carried over" "$(grep -c 'Acquire::http::Proxy "http://proxy.example:3128";' "$work/acquire.conf")" 1
check "the validity check too" "$(grep -c 'Acquire::Check-Valid-Until "false";' "$work/acquire.conf")" 1
check "nothing but Acquire:: settings" "$(grep -vc '^Acquire::' "$work/acquire.conf")" 0
echo "$passed passed, $fails failed"
[ $fails -eq 0 ]
