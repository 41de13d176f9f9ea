#!/usr/bin/env bash
# The npm packages from the lock file (scripts/setup.sh's first step): `npm ci` when
# node_modules is missing or older than the lock, nothing otherwise.
#
# LAB_NPM_KEEP=DIR keeps the tree `npm ci` made as a tar in DIR, named by what made it (the
# lock file's content, Node's version, the machine's architecture), and unpacks that tar
# instead of running `npm ci` when the same lock comes again. Why: CI runs in a fresh clone
# every time, and `npm ci` took 52-62 s there (vm, 2 cores: 1,127 packages, 110,000 files,
# most of it the kernel's time creating them); unpacking the same tree takes about 6 s. It is
# what CI services do with node_modules keyed by the lock's hash. Only files this script
# names (node_modules-<key>.tar) are read, written or removed in DIR, the two newest kept.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

# (The lab installed as a package into a project: npm installed its packages there, and it
# ships no lock file.)
[ -f package-lock.json ] || exit 0
if [ -f node_modules/.package-lock.json ] && ! [ package-lock.json -nt node_modules/.package-lock.json ]; then
  exit 0
fi

keep=${LAB_NPM_KEEP:-}
tar=
if [ -n "$keep" ]; then
  key=$({ cat package-lock.json; node --version; uname -m; } | sha256sum | cut -c1-16)
  tar="$keep/node_modules-$key.tar"
  if [ -f "$tar" ]; then
    say "npm packages: unpacking the tree kept for this lock file ($tar)"
    # Unpacked beside, then renamed: a set-up stopped half-way (Ctrl-C) leaves no half tree
    # that the next one would take for current. (node_modules: what `npm ci` removes first.)
    part="node_modules.unpack-$$"
    trap 'rm -rf "$part"' EXIT
    rm -rf node_modules "$part"
    mkdir "$part"
    if tar -C "$part" -xf "$tar" && [ -f "$part/node_modules/.package-lock.json" ]; then
      mv "$part/node_modules" node_modules
      # Newer than the lock, as after `npm ci`, so the next set-up finds it current.
      touch node_modules/.package-lock.json "$tar"
      exit 0
    fi
    say "could not unpack $tar: installing with npm ci instead"
    rm -rf "$part"
  fi
fi

say "installing npm packages from package-lock.json (first time: ~1 min)"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2

if [ -n "$tar" ]; then
  # Written beside, then renamed: a reader never sees half a tree. Failing to keep it is not
  # the install's failure.
  part="$tar.$$.part"
  if mkdir -p "$keep" && tar -cf "$part" node_modules && mv "$part" "$tar"; then
    # shellcheck disable=SC2012
    ls -t "$keep"/node_modules-*.tar | tail -n +3 | while read -r old; do rm -f "$old"; done
  else
    rm -f "$part"
    say "could not keep node_modules in $keep (the install itself succeeded)"
  fi
fi
