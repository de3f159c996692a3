#!/usr/bin/env bash
# Installs the Debian packages a profile needs when any is missing.
#   tools/deps.sh build|check|demo|bench|package
#   tools/deps.sh --list build|check|demo|bench|package    prints the profile's packages, one a line
# As root: `apt-get update` once, then `apt-get install -y` of the exact missing list.
# Not root: prints the exact command to run and exits 1.
set -euo pipefail

# `make` builds bin/monitor too, which needs jansson; libcrypt-dev (libxcrypt) checks the
# bcrypt passwords of `--metrics ...,users=FILE`.  tests/it/test_deps.sh checks that
# every header, pkg-config module and command the build, the demo and the tests use comes
# from its profile.
build=(gcc make pkg-config libcurl4-openssl-dev libsqlite3-dev libpcre2-dev libinih-dev
       libmicrohttpd-dev zlib1g-dev libjansson-dev libhttp-parser-dev libssl-dev
       libnghttp2-dev libcrypt-dev)
# Tests run real servers: PostgreSQL, Tomcat 9/10, Jetty 9 (Java), gnuplot for pictures,
# Chromium to open the HTML report, clang for the fuzz corpora (libclang-rt-dev: its fuzzer
# and sanitizer runtimes, only recommended by clang), iproute2 for namespaces, shfmt to parse
# the scripts in tests/it/deps_check.py; slurm-wlm and munge for a one-node Slurm cluster
# that runs deploy/slurm, python3-kubernetes to check deploy/k8s's manifests against the
# Kubernetes API's models; nginx-light for a target so fast that the load generator is
# the bottleneck; JMeter (with its HTTP sampler) and nmon write the real files `soak
# import` is tested on, tzdata lets those tests read nmon's local times in another zone;
# prometheus (with promtool) scrapes `soak run --metrics` and checks the Grafana dashboard's
# PromQL (it starts no daemon: tests/it/test_metrics.sh runs a private one); groff-base and
# man-db render the man pages (groff -ww, man -l), bash-completion is what the completion
# script is tested under; openssl makes the containers' test certificates (--tls); nginx-light
# is Debian 12's nginx with the ssl and http2 modules test_tls uses.
check=(libcmocka-dev sqlite3 curl gnuplot-nox nginx-light postgresql libpostgresql-jdbc-java
       openjdk-17-jdk-headless tomcat10-user libtomcat9-java libtomcat10-java jetty9
       chromium clang libclang-rt-dev procps iproute2 python3 time jq shfmt slurm-wlm munge
       python3-kubernetes jmeter jmeter-http nmon tzdata prometheus groff-base man-db
       bash-completion openssl linux-perf)
# linux-perf: soak-perf samples stacks with perf (test_profile, the demo's profile).
# python3: targets/free_port.sh lets the kernel pick the servers' free ports with it.
demo=(gnuplot-nox postgresql libpostgresql-jdbc-java openjdk-17-jdk-headless tomcat10-user
      libtomcat9-java libtomcat10-java jetty9 curl sqlite3 procps python3 linux-perf)
bench=(nginx-light wrk procps time linux-perf valgrind openssl nghttp2-client)
# `make check-deb` (tests/pkg/test_deb.sh): dpkg-buildpackage with debhelper (debian/rules),
# lintian, and a minimal Debian from debootstrap (tools/fresh-debian.sh) to install it in.
# debian/control's Build-Depends must be in this profile too (deps_check reads them).
package=(dpkg-dev debhelper fakeroot lintian debootstrap git python3 sqlite3)

list=0
if [ "${1:-}" = --list ]; then list=1; shift; fi
case "${1:-build}" in
  build) want=("${build[@]}") ;;
  # make check also installs the package profile: test_deps judges every profile from the
  # files of its packages, so a fresh machine must have them as a used one does.
  check) want=("${build[@]}" "${check[@]}" "${package[@]}") ;;
  demo)  want=("${build[@]}" "${demo[@]}") ;;
  bench) want=("${build[@]}" "${bench[@]}" "${check[@]}") ;;
  package) want=("${build[@]}" "${package[@]}") ;;
  *) echo "usage: tools/deps.sh [--list] build|check|demo|bench|package" >&2; exit 2 ;;
esac
if [ "$list" -eq 1 ]; then printf '%s\n' "${want[@]}"; exit 0; fi

missing=()
for p in "${want[@]}"; do
  # javac may come from any JDK: accept one already on PATH.
  if [ "$p" = openjdk-17-jdk-headless ] && command -v javac >/dev/null 2>&1; then continue; fi
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$st" in *" installed") ;; *) missing+=("$p") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "soak needs these Debian packages; run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
