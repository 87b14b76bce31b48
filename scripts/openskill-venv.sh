#!/usr/bin/env bash
# Makes (or reuses) the Python virtual environment with the pinned openskill
# (tests/ratings/requirements.txt) that `cargo test -p djambi-e2e --test ratings_openskill`
# checks the server's rating model against, and prints its python's path.
# DJAMBI_CACHE_DIR: where it lives (default ~/.cache/djambi-ci); PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
venv="${DJAMBI_CACHE_DIR:-${HOME:-/tmp}/.cache/djambi-ci}/venv-openskill"
requirements=tests/ratings/requirements.txt
stamp="$(sha256sum "$requirements" | cut -d' ' -f1) $("$python" -c 'import sys; print(sys.version)' | head -n 1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.djambi-stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "== creating the openskill virtual environment in $venv" >&2
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements" >&2
  echo "$stamp" >"$venv/.djambi-stamp"
fi
echo "$venv/bin/python"
