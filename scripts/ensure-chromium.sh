#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is on PATH for the browser tests
# (tests/browser/replay_test.py), installing Debian's `chromium` package when it is not.
# A quick no-op when it is there. Prints the browser's path on stdout.
set -euo pipefail

for name in "${CHROMIUM:-}" chromium chromium-browser; do
  if [ -n "$name" ] && command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no chromium on PATH and no apt-get to install it" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "ensure-chromium: installing Debian's chromium package" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
command -v chromium
