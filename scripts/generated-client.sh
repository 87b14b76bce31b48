#!/usr/bin/env bash
# Proves that the committed OpenAPI document is enough to write a client:
#
# 1. makes (or reuses) a Python virtual environment with the pinned generator and test
#    runner (tests/client/requirements.txt);
# 2. generates a Python client from openapi/openapi.json with openapi-python-client, anew
#    at every run, into the target directory (the generated code is never committed), and
#    fails on any generator warning other than the known ones listed below;
# 3. builds the server and starts it on a fresh PostgreSQL database (dropped at the end)
#    on a free port;
# 4. runs tests/client/ with pytest: the generated client registers four players, creates
#    a game, takes the seats and plays it to its end, the README's bot (tests/client/bot.py)
#    playing one seat.
#
# Settings (environment): CARGO_TARGET_DIR (default ./target), DJAMBI_CACHE_DIR (where the
# virtual environment lives, default ~/.cache/djambi-ci), DJAMBI_TEST_PG_URL (see
# scripts/ensure-postgres.sh), PYTHON (default python3, 3.11 or newer). Extra arguments go
# to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
python="${PYTHON:-python3}"
venv="${DJAMBI_CACHE_DIR:-${HOME:-/tmp}/.cache/djambi-ci}/venv-client"
requirements=tests/client/requirements.txt

# 1. The virtual environment, rebuilt only when the pins or the interpreter change.
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "$python is not Python 3.11 or newer (the generated client needs it); set PYTHON" >&2
  exit 1
fi
stamp="$(sha256sum "$requirements" | cut -d' ' -f1) $("$python" -c 'import sys; print(sys.version)' | head -n 1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.djambi-stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "== creating the client's virtual environment in $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements"
  "$venv/bin/python" -m pip check --disable-pip-version-check
  echo "$stamp" >"$venv/.djambi-stamp"
fi

# 2. The client, generated from the committed document.
out="$target/generated-client"
rm -rf "$out"
mkdir -p "$out"
echo "== generating the client from openapi/openapi.json ($("$venv/bin/openapi-python-client" --version))"
# The venv's bin first: the generator formats its output with the venv's ruff.
if ! PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
  --path openapi/openapi.json --config tests/client/generator.yaml --meta none \
  --output-path "$out/djambi_client" >"$out/generator.log" 2>&1; then
  cat "$out/generator.log" >&2
  echo "the generator failed" >&2
  exit 1
fi
# Known warnings: operations whose only or extra content type the generator does not
# model. `POST /v1/games/import` also takes the record as text/plain (the JSON form is
# generated); `GET /v1/games/{id}/board.svg` and `GET /v1/positions/board.svg` answer image/svg+xml (the function exists,
# without a parsed body). Anything else the generator warns about fails the run.
# POST /v1/inbound-mail takes message/rfc822 from the site's MTA: no client calls it.
known='^WARNING parsing ((POST /v1/games/import|GET /v1/games/\{id\}/board\.svg) within games\.|GET /v1/positions/board\.svg within positions\.|POST /v1/inbound-mail within mail\. Endpoint will not be generated\.)$'
unexpected="$(grep -E '^(WARNING|ERROR)' "$out/generator.log" | grep -Ev "$known" || true)"
if grep -q 'Error(s) encountered' "$out/generator.log" || [ -n "$unexpected" ]; then
  cat "$out/generator.log" >&2
  echo "the generator reported problems with openapi/openapi.json: $unexpected" >&2
  exit 1
fi
"$venv/bin/python" -c "import sys; sys.path.insert(0, '$out'); import djambi_client.api.games.play_move"

# 3. The server, on a fresh PostgreSQL database and a free port.
echo "== building the server"
# --workspace: the same features as `cargo test --workspace`, so nothing is rebuilt.
cargo build --locked -q --workspace --bin djambi-server
admin_url="$(scripts/ensure-postgres.sh)"
db="djambi_client_$(date +%s)_$$"
db_url="$("$python" -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"
log="$out/server.log"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null

# Port 0: the system picks a free port, and the server logs the one it got.
env DATABASE_URL="$db_url" \
  DJAMBI_LISTEN=127.0.0.1:0 \
  DJAMBI_JWT_SECRET="generated-client-test-secret-0123456789abcdef" \
  DJAMBI_WORKERS=2 \
  DJAMBI_DB_POOL_SIZE=4 \
  DJAMBI_ARGON2_MEMORY_KIB=64 \
  DJAMBI_ARGON2_ITERATIONS=1 \
  DJAMBI_REGISTER_LIMIT_PER_IP=1000/1m DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=100000 \
  DJAMBI_LOG_FORMAT=json \
  RUST_LOG=info,djambi::access=warn \
  "$target/debug/djambi-server" >"$log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 300); do
  url="$(grep -o 'listening on http://[0-9.:]*' "$log" | head -n 1 | sed 's/^listening on //' || true)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ] || ! curl -fsS "$url/readyz" >/dev/null; then
  cat "$log" >&2
  echo "the server did not start" >&2
  exit 1
fi
echo "== server at $url (database $db)"

# 4. The tests, with the generated package importable.
status=0
PYTHONPATH="$out" DJAMBI_URL="$url" "$venv/bin/python" -m pytest -p no:cacheprovider -q -s \
  tests/client "$@" || status=$?
if [ "$status" != 0 ]; then
  echo "== the server's log ($log), last lines:" >&2
  tail -n 40 "$log" >&2
fi
exit "$status"
