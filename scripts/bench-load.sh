#!/usr/bin/env bash
# Load benchmark of the game API on PostgreSQL.
#
# 1. builds the server and the load generator (release);
# 2. starts the server on a fresh PostgreSQL database;
# 3. runs the load generator (tests/bin/loadgen.rs): many four-player games played at
#    once over HTTP, moves picked locally with the rules crate; reports accepted moves
#    per second and p50/p99 latency;
# 4. reads history: `state?at=N` at random N on a finished game of 400 moves;
# 5. runs pgbench with a single-row insert script against the same PostgreSQL server, for
#    the ceiling, and prints the ratio.
#
# Settings (environment): BENCH_GAMES (128), BENCH_CONCURRENCY (16), BENCH_DURATION (20 s),
# BENCH_WARMUP (3 s), BENCH_WORKERS (server HTTP workers, default: cores),
# BENCH_POOL (database connections, 16), BENCH_PGBENCH_CLIENTS (8), BENCH_PGBENCH_SECONDS (10),
# BENCH_PORT (18080), BENCH_HISTORY_PLIES (400), BENCH_HISTORY_SECONDS (10). The concurrency is the number of clients with a move in flight: more
# clients add queueing latency, not throughput, once the machine is saturated.
set -euo pipefail
cd "$(dirname "$0")/.."

games="${BENCH_GAMES:-128}"
concurrency="${BENCH_CONCURRENCY:-16}"
duration="${BENCH_DURATION:-20}"
warmup="${BENCH_WARMUP:-3}"
pool="${BENCH_POOL:-16}"
pgb_clients="${BENCH_PGBENCH_CLIENTS:-8}"
pgb_seconds="${BENCH_PGBENCH_SECONDS:-10}"
port="${BENCH_PORT:-18080}"
history_plies="${BENCH_HISTORY_PLIES:-400}"
history_seconds="${BENCH_HISTORY_SECONDS:-10}"

admin_url="$(scripts/ensure-postgres.sh)"
db="djambi_bench_$(date +%s)_$$"
db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"

echo "== building (release)"
cargo build --release --locked -q -p api --bin djambi-server -p djambi-e2e --bin loadgen

server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT

psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null
echo "== server on $db (pool $pool, workers ${BENCH_WORKERS:-default})"
env DATABASE_URL="$db_url" \
  DJAMBI_LISTEN="127.0.0.1:$port" \
  DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
  DJAMBI_DB_POOL_SIZE="$pool" \
  DJAMBI_REGISTER_LIMIT_PER_IP="100000/1m" DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=100000 \
  ${BENCH_WORKERS:+DJAMBI_WORKERS="$BENCH_WORKERS"} \
  RUST_LOG="${RUST_LOG:-warn}" \
  "${CARGO_TARGET_DIR:-target}/release/djambi-server" > "${TMPDIR:-/tmp}/djambi-bench-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null

echo "== load generator: $games games, $concurrency clients, ${duration}s"
out="$("${CARGO_TARGET_DIR:-target}/release/loadgen" --url "http://127.0.0.1:$port" --games "$games" \
  --concurrency "$concurrency" --duration "$duration" --warmup "$warmup")"
echo "$out"
moves_per_sec="$(sed -n 's/^RESULT moves_per_sec=\([0-9.]*\).*/\1/p' <<<"$out")"
p99="$(sed -n 's/^RESULT .*p99_ms=\([0-9.]*\).*/\1/p' <<<"$out")"

echo "== history: state?at=N on a finished game of ${history_plies} moves, 4 clients, ${history_seconds}s"
"${CARGO_TARGET_DIR:-target}/release/loadgen" --url "http://127.0.0.1:$port" --history "$history_plies" \
  --concurrency 4 --duration "$history_seconds"

kill "$server_pid" 2>/dev/null || true
wait "$server_pid" 2>/dev/null || true
server_pid=""

echo "== pgbench: single-row inserts, $pgb_clients clients, ${pgb_seconds}s, same PostgreSQL server"
psql -q "$db_url" -c "CREATE TABLE bench_ceiling (game_id TEXT NOT NULL, seq BIGINT NOT NULL, payload TEXT NOT NULL)" >/dev/null
script="$(mktemp)"
cat > "$script" <<'SQL'
\set n random(1, 1000000000)
INSERT INTO bench_ceiling (game_id, seq, payload) VALUES (:client_id, :n, '{"seat":"R","text":"C8-D7"}');
SQL
pgb="$(pgbench -n -c "$pgb_clients" -j 2 -T "$pgb_seconds" -f "$script" "$db_url" 2>&1)"
rm -f "$script"
inserts_per_sec="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$pgb" | head -n 1)"
echo "$pgb" | grep -E "^(tps|latency average|number of transactions actually processed)"

python3 - "$moves_per_sec" "$p99" "$inserts_per_sec" <<'PY'
import sys
moves, p99, inserts = (float(x) for x in sys.argv[1:4])
print("== summary")
print(f"accepted moves/s: {moves:.0f} (target >= 1000), p99 {p99:.1f} ms (target < 50)")
print(f"pgbench single-row inserts/s: {inserts:.0f}")
print(f"ratio moves/s : inserts/s = {moves / inserts:.2f}")
PY
