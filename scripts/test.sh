#!/usr/bin/env bash
# Runs every test of the workspace: the rules engine (unit, property, CLI and worked
# examples), the service, the end-to-end tests on PostgreSQL and SQLite, the pages in
# headless Chromium, then the API contract checks against a server on PostgreSQL (a client
# generated from openapi/openapi.json plays whole games; schemathesis finds no failure).
# PostgreSQL is started when it does not run; its tests are never skipped.
# Arguments go to `cargo test` (e.g. `scripts/test.sh -p djambi-domain`); with arguments
# the contract checks are skipped, as they test the whole server.
set -euo pipefail
cd "$(dirname "$0")/.."

DJAMBI_TEST_PG_URL="$(scripts/ensure-postgres.sh)"
export DJAMBI_TEST_PG_URL
echo "PostgreSQL for the tests: $DJAMBI_TEST_PG_URL"

# The pages are tested in headless Chromium (Debian's package, installed if missing).
echo "Chromium for the browser tests: $(scripts/ensure-chromium.sh)"

cargo test --workspace --locked "$@"

if [ "$#" -eq 0 ]; then
  echo "== the API contract: a generated client plays whole games"
  scripts/generated-client.sh
  echo "== the API contract: schemathesis, every check and phase"
  scripts/conformance.sh
fi
