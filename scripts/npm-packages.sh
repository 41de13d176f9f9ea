#!/usr/bin/env bash
# The npm packages from the lock file (scripts/setup.sh's first step): `npm ci` when
# node_modules is missing or older than the lock, nothing otherwise.
#
# LAB_NPM_KEEP=DIR keeps the tree `npm ci` made in DIR, named by what made it (the lock file's
# content, Node's version, the machine's architecture), and links that tree into node_modules
# instead of running `npm ci` when the same lock comes again. Why: CI runs in a fresh clone
# every time, and `npm ci` took 52-62 s there (vm, 2 cores: 1,127 packages, 110,000 files,
# most of it the kernel's time creating them). It is what CI services do with node_modules
# keyed by the lock's hash. The files are hard links (`cp -al`: 1.6 s here, where unpacking a
# tar of the same tree took 5.5 to 50 s as the file system slowed after CI runs), so a file
# edited in place in one tree is edited in the other: it is for fresh clones that never edit
# node_modules (CI's), not a checkout whose packages are patched. (On another file system,
# where links cannot go, the tree is copied.) Only what this script names
# (node_modules-<key>, and the node_modules-<key>.tar an earlier version of it kept) is read,
# written or removed in DIR, the two newest trees kept.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

# (The lab installed as a package into a project: npm installed its packages there, and it
# ships no lock file.)
[ -f package-lock.json ] || exit 0
if [ -f node_modules/.package-lock.json ] && ! [ package-lock.json -nt node_modules/.package-lock.json ]; then
  exit 0
fi

# copy FROM TO: a tree of links to FROM's files, or of copies where links cannot go.
copy() { cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2" && cp -a "$1" "$2"; }; }

keep=${LAB_NPM_KEEP:-}
tree=
if [ -n "$keep" ]; then
  key=$({ cat package-lock.json; node --version; uname -m; } | sha256sum | cut -c1-16)
  tree="$keep/node_modules-$key"
  if [ -d "$tree" ]; then
    say "npm packages: linking the tree kept for this lock file ($tree)"
    # Made beside, then renamed: a set-up stopped half-way (Ctrl-C) leaves no half tree that
    # the next one would take for current. (node_modules: what `npm ci` removes first.)
    part="node_modules.link-$$"
    trap 'rm -rf "$part"' EXIT
    rm -rf node_modules "$part"
    if copy "$tree" "$part" && [ -f "$part/.package-lock.json" ]; then
      mv "$part" node_modules
      # Newer than the lock, as after `npm ci`, so the next set-up finds it current; the kept
      # tree too, as the newest used.
      touch node_modules/.package-lock.json "$tree"
      exit 0
    fi
    say "could not link or copy $tree: installing with npm ci instead"
    rm -rf "$part"
  fi
fi

say "installing npm packages from package-lock.json (first time: ~1 min)"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2

if [ -n "$tree" ]; then
  # Made beside, then renamed: a reader never sees half a tree. Failing to keep it is not the
  # install's failure.
  part="$tree.$$.part"
  trap 'rm -rf "$part"' EXIT
  if mkdir -p "$keep" && rm -rf "$tree" && copy node_modules "$part" && mv "$part" "$tree"; then
    touch "$tree"
    # The two newest trees kept; the tars an earlier version of this script kept, removed.
    # shellcheck disable=SC2012
    ls -td "$keep"/node_modules-????????????????/ | tail -n +3 | while read -r old; do rm -rf "$old"; done
    rm -f "$keep"/node_modules-????????????????.tar
  else
    rm -rf "$part"
    say "could not keep node_modules in $keep (the install itself succeeded)"
  fi
fi
