#!/usr/bin/env bash
# Makes sure axe-core (the accessibility checker the browser tests run in each page,
# WCAG 2.1 A and AA rules) is installed, at the pinned version, under the cache directory
# (DJAMBI_CACHE_DIR, default ~/.cache/djambi-ci): outside the repository, installed from
# npm the first time, a quick no-op after. Prints the path of axe.min.js on stdout.
# Nothing of it is built into the server or loaded by the pages: the tests inject it
# through the DevTools protocol.
set -euo pipefail

version=4.14.1
dir="${DJAMBI_CACHE_DIR:-${HOME:-/tmp}/.cache/djambi-ci}/axe-core-$version"
script="$dir/node_modules/axe-core/axe.min.js"

installed() {
  [ -s "$script" ] &&
    grep -q "\"version\": \"$version\"" "$dir/node_modules/axe-core/package.json" 2>/dev/null
}

if ! installed; then
  # Browser tests run in parallel: one installs under the lock, the others wait for it.
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
fi
if ! installed; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-axe: npm is needed to install axe-core $version (Debian: apt-get install npm)" >&2
    exit 1
  fi
  echo "ensure-axe: installing axe-core $version into $dir" >&2
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  npm install --prefix "$dir.tmp" --no-save --no-package-lock --no-audit --no-fund \
    --ignore-scripts --loglevel=error "axe-core@$version" >&2
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  installed || { echo "ensure-axe: axe-core $version did not install" >&2; exit 1; }
fi
echo "$script"
