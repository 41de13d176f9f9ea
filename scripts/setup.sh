#!/usr/bin/env bash
# Installs what the lab needs, only what is missing, and says exactly what to run when it
# cannot (not root). Called by `npm test` and `npm run scenario` before they start, so a
# fresh clone needs no other step. Usage: scripts/setup.sh [run|test|containers|all]
#   run        - what a scenario run needs (npm packages, nginx)
#   test       - that, plus what the test suite exercises (docker-compose validates compose/;
#                HAProxy, Caddy and Varnish, whose kinds the contract tests run; PostgreSQL
#                and Redis, the stores of --with, which the run installs itself otherwise)
#   containers - that, plus Docker's engine and debootstrap for the container smoke test
#   cluster    - that, plus QEMU and the rest `npm run cluster` needs (npm run test:cluster)
#   all        - everything, including the optional monitoring and browser packages
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"

say() { printf 'setup: %s\n' "$*" >&2; }

major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  say "Node.js 20 or newer is needed (found $(node --version))"
  exit 1
fi

# npm packages from the lock file, when node_modules is missing or older than the lock
# (LAB_NPM_KEEP: a tree kept for the same lock, scripts/npm-packages.sh).
bash "$(dirname "$0")/npm-packages.sh"

# Debian packages: required ones stop the run when missing; optional ones only warn.
# Optional: Graphite's carbon for the monitoring (runs skip it when missing), Chromium for
# the report's browser test, wrk, ab (apache2-utils) and h2load (nghttp2-client) for the
# benchmarks.
# The packages of the deployment's own nodes (the balancer and edge kinds, the data stores)
# come from their declarations (scripts/programs.js reads lab/kinds/ and lab/stores/); the
# tools around them are listed here.
programs() {
  node "$(dirname "$0")/programs.js" apt "$1" || { say "could not read the lab's programs (scripts/programs.js)"; exit 1; }
}
required=($(programs run))
optional=(graphite-carbon python3-whisper)
case "$what" in
  run) ;;
  test) required+=(docker-compose $(programs all)) optional+=(chromium) ;;
  containers) required+=(docker-compose docker.io debootstrap nftables iproute2) ;;
  cluster) required+=(docker-compose docker.io debootstrap nftables iproute2 qemu-system-x86 qemu-utils e2fsprogs) ;;
  all) required+=(docker-compose $(programs all)) optional+=(chromium wrk apache2-utils nghttp2-client docker.io debootstrap) ;;
  *) say "unknown target '$what' (run, test, containers, cluster, all)"; exit 2 ;;
esac

missing() {
  local out=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p"); done
  echo "${out[@]:-}"
}

# apt's own output (150 lines of "Reading database ... 5%" on a first run) goes to a log
# file; the terminal gets one line per group of packages, and the file's name when it fails.
APT_LOG="${LAB_SETUP_LOG:-$PWD/.lab-setup.log}"
apt_install() {
  say "installing Debian packages: $* (apt's output: $APT_LOG)"
  {
    echo "=== $(date -Is) apt-get install $*"
    if [ ! -f /var/lib/apt/lists/.lab-updated ] || [ -z "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]; then
      apt-get update -q && touch /var/lib/apt/lists/.lab-updated
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends "$@"
  } >>"$APT_LOG" 2>&1 && return 0
  say "apt-get could not install $*: its output is in $APT_LOG; the last lines:"
  tail -n 5 "$APT_LOG" | sed 's/^/setup:   /' >&2
  return 1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  command -v nginx >/dev/null 2>&1 || command -v /usr/sbin/nginx >/dev/null 2>&1 || {
    say "nginx is missing and this is not a Debian/Ubuntu system: install nginx (with its stream module) yourself"
    exit 1
  }
  exit 0
fi

req=$(missing "${required[@]}")
opt=$(missing "${optional[@]}")
if [ "$(id -u)" = 0 ]; then
  [ -z "$req" ] || apt_install $req
  # Optional ones may not exist everywhere (Ubuntu ships Chromium as a snap): never fatal.
  if [ -n "$opt" ] && ! apt_install $opt; then
    say "could not install $opt; the features that need them will be skipped"
  fi
else
  if [ -n "$req" ]; then
    say "missing Debian packages; run: sudo apt-get install -y $req $opt"
    exit 1
  fi
  [ -z "$opt" ] || say "optional Debian packages missing (some features will be skipped); to add them: sudo apt-get install -y $opt"
fi
