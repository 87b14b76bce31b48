#!/usr/bin/env bash
# Memory benchmark of the server: peak resident memory while it registers and logs in
# 4,000 players (each a 19 MiB argon2id hash), hosts 1,000 active four-player games and
# answers 200 parallel logins with unknown names.
#
# 1. builds the release server and the driver (tests/bin/memload.rs);
# 2. starts the server on a fresh PostgreSQL database (BENCH_BACKEND=sqlite: an SQLite file)
#    with the production argon2id cost and rate limits opened wide (everything comes from
#    127.0.0.1, and the point is to make every request reach the password hashing);
# 3. runs the driver, which prints the server's VmRSS and VmHWM (peak) from
#    /proc/PID/status after each phase; the last line is `RESULT peak_rss_kib=...`.
#
# Settings (environment): BENCH_PLAYERS (4000), BENCH_GAMES (1000), BENCH_MOVES (4, moves
# per game), BENCH_CONCURRENCY (8, requests in flight while setting up), BENCH_BURST (200),
# BENCH_BACKEND (postgres), BENCH_PORT (18081), BENCH_ENV (extra server settings, e.g.
# "DJAMBI_HASH_CONCURRENCY=4"), BENCH_TARGET (the budget in MiB, 96; the script fails above).
set -euo pipefail
cd "$(dirname "$0")/.."

players="${BENCH_PLAYERS:-4000}"
games="${BENCH_GAMES:-1000}"
moves="${BENCH_MOVES:-4}"
concurrency="${BENCH_CONCURRENCY:-8}"
burst="${BENCH_BURST:-200}"
backend="${BENCH_BACKEND:-postgres}"
port="${BENCH_PORT:-18081}"
target_mib="${BENCH_TARGET:-96}"
target_dir="${CARGO_TARGET_DIR:-target}"

echo "== building (release)"
cargo build --release --locked -q -p api --bin djambi-server -p djambi-e2e --bin memload

server_pid=""
db=""
tmp="$(mktemp -d)"
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$db" ]; then psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$backend" = "sqlite" ]; then
  db_url="sqlite://$tmp/bench.sqlite"
else
  admin_url="$(scripts/ensure-postgres.sh)"
  db="djambi_membench_$(date +%s)_$$"
  db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"
  psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null
fi

echo "== server ($backend), argon2id defaults, ${BENCH_ENV:-no extra settings}"
# shellcheck disable=SC2086
env DATABASE_URL="$db_url" \
  DJAMBI_LISTEN="127.0.0.1:$port" \
  DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
  DJAMBI_REGISTER_LIMIT_PER_IP="1000000/1m" DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=1000000 \
  DJAMBI_LOGIN_LIMIT_PER_IP="1000000/1m" \
  RUST_LOG="${RUST_LOG:-warn}" \
  ${BENCH_ENV:-} \
  "$target_dir/release/djambi-server" > "$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null

echo "== load: $players players, $games games x $moves moves, burst of $burst unknown logins"
echo "   (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
out="$("$target_dir/release/memload" --url "http://127.0.0.1:$port" --pid "$server_pid" \
  --players "$players" --games "$games" --moves "$moves" --concurrency "$concurrency" \
  --burst "$burst")"
echo "$out"
echo "   (load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
peak_kib="$(sed -n 's/^RESULT peak_rss_kib=\([0-9]*\).*/\1/p' <<<"$out")"
peak_mib=$((peak_kib / 1024))
echo "== peak resident memory: ${peak_mib} MiB (budget ${target_mib} MiB)"
if [ "$peak_mib" -ge "$target_mib" ]; then
  echo "over budget" >&2
  exit 1
fi
