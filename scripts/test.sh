#!/usr/bin/env bash
# Runs every test of the workspace: the rules engine (unit, property, CLI and worked
# examples), the service, and the end-to-end tests on PostgreSQL and SQLite.
# PostgreSQL is started when it does not run; its tests are never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

DJAMBI_TEST_PG_URL="$(scripts/ensure-postgres.sh)"
export DJAMBI_TEST_PG_URL
echo "PostgreSQL for the tests: $DJAMBI_TEST_PG_URL"

# The replay page is tested in headless Chromium (Debian's package, installed if missing).
echo "Chromium for the browser tests: $(scripts/ensure-chromium.sh)"

cargo test --workspace --locked "$@"
