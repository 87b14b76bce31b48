#!/usr/bin/env bash
# Checks the replay page (api/assets/replay.*) in headless Chromium without the server:
# builds `djambi`, serves a random finished game from tests/browser/mock_server.py, and
# runs tests/browser/replay_test.py against it. Screenshots go to OUTDIR
# (default target/browser).
#
#   tests/browser/run-mock.sh [OUTDIR] [SEED]
set -euo pipefail
cd "$(dirname "$0")/../.."
outdir="${1:-target/browser}"
seed="${2:-2}"
target="${CARGO_TARGET_DIR:-target}"
scripts/ensure-chromium.sh >/dev/null
cargo build -q -p djambi-domain --bin djambi
mkdir -p "$outdir"
python3 tests/browser/mock_server.py --djambi "$target/debug/djambi" \
  --record "$outdir/game.djr" --random-game "$seed" >"$outdir/mock-url" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  [ -s "$outdir/mock-url" ] && break
  sleep 0.1
done
python3 tests/browser/replay_test.py "$(head -n 1 "$outdir/mock-url")" mock-game "$outdir"
