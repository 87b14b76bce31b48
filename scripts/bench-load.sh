#!/usr/bin/env bash
# Load benchmark of the game API (issue 33): moves over HTTP against the database's own
# ceiling for what a move writes, in the same run.
#
# 1. builds the server and the load generator (release);
# 2. for each round (BENCH_ROUNDS): starts a server on a fresh database and runs the load
#    generator (tests/bin/loadgen.rs: many four-player games played at once over HTTP,
#    moves picked locally with the rules crate): accepted moves/s, p50/p99/max latency.
#    With BENCH_BASELINE_SERVER=<path of another djambi-server binary> (for example a
#    release build of 08cbbeb), that server runs the same load in each round too, before
#    the current one (alternating, each on a fresh database);
# 3. PostgreSQL: the move-transaction ceiling, measured right after on the same server:
#    pgbench with a script that does what one move does (lock the game row, bump its
#    version, insert the event and an outbox row, commit) on copies of the real tables
#    (same columns and indexes), BENCH_CONCURRENCY clients; then the ratio of the server's
#    moves/s to it;
# 4. PostgreSQL, with BENCH_HISTORY=1: `state?at=N` at random N on a finished game.
#
# BENCH_BACKEND=sqlite runs the same load against the embedded default (a SQLite file in
# a temporary directory): no ceiling, the figures are moves/s, p99 and max.
#
# Settings (environment): BENCH_BACKEND (postgres), BENCH_ROUNDS (2), BENCH_GAMES (128),
# BENCH_CONCURRENCY (16), BENCH_DURATION (15 s), BENCH_WARMUP (3 s), BENCH_WORKERS
# (server HTTP workers, default: cores), BENCH_POOL (database connections, 16),
# BENCH_PGBENCH_SECONDS (10), BENCH_PORT (18080), BENCH_HISTORY (0),
# BENCH_HISTORY_PLIES (400), BENCH_HISTORY_SECONDS (10), BENCH_PROFILE (release), BENCH_ENV (extra server settings,
# `NAME=value ...`). The concurrency is the number of clients with a move in flight: more
# clients add queueing latency, not throughput, once the machine is saturated.
set -euo pipefail
cd "$(dirname "$0")/.."

backend="${BENCH_BACKEND:-postgres}"
rounds="${BENCH_ROUNDS:-2}"
games="${BENCH_GAMES:-128}"
concurrency="${BENCH_CONCURRENCY:-16}"
duration="${BENCH_DURATION:-15}"
warmup="${BENCH_WARMUP:-3}"
pool="${BENCH_POOL:-16}"
pgb_seconds="${BENCH_PGBENCH_SECONDS:-10}"
port="${BENCH_PORT:-18080}"
history="${BENCH_HISTORY:-0}"
history_plies="${BENCH_HISTORY_PLIES:-400}"
history_seconds="${BENCH_HISTORY_SECONDS:-10}"
baseline="${BENCH_BASELINE_SERVER:-}"
# BENCH_PROFILE=debug runs the debug binaries already built (a quick A/B on a machine busy
# building; its figures are not the release ones).
profile="${BENCH_PROFILE:-release}"
bin="${CARGO_TARGET_DIR:-target}/$profile"

if [ "$profile" = release ]; then
  echo "== building (release)"
  cargo build --release --locked -q -p api --bin djambi-server -p djambi-e2e --bin loadgen
fi

admin_url=""
if [ "$backend" = postgres ]; then admin_url="$(scripts/ensure-postgres.sh)"; fi
tmp="$(mktemp -d)"
server_pid=""
dbs=()
stop_server() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
}
cleanup() {
  stop_server
  for d in "${dbs[@]}"; do psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

db_url=""
# Starts server binary $1 on a fresh database (sets db_url, server_pid).
start_server() {
  local server="$1" n="$2"
  if [ "$backend" = postgres ]; then
    local db="djambi_bench_$(date +%s)_$$_$n"
    dbs+=("$db")
    db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"
    psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null
  else
    db_url="sqlite://$tmp/db$n/djambi.sqlite3"
    mkdir -p "$tmp/db$n"
  fi
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
    echo "port $port is taken by another server" >&2; exit 1
  fi
  # shellcheck disable=SC2086
  env DATABASE_URL="$db_url" \
    DJAMBI_LISTEN="127.0.0.1:$port" \
    DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
    DJAMBI_DB_POOL_SIZE="$pool" \
    DJAMBI_REGISTER_LIMIT_PER_IP="100000/1m" DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=100000 \
    ${BENCH_WORKERS:+DJAMBI_WORKERS="$BENCH_WORKERS"} \
    RUST_LOG="${RUST_LOG:-warn}" ${BENCH_ENV:-} \
    "$server" > "$tmp/server$n.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 150); do
    if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null
}

# Runs the load against server binary $1 (not in a subshell: it sets server_pid and
# db_url); its figures go to $tmp/out.
load() {
  local server="$1" n="$2"
  start_server "$server" "$n"
  "$bin/loadgen" --url "http://127.0.0.1:$port" --games "$games" \
    --concurrency "$concurrency" --duration "$duration" --warmup "$warmup" | grep -E '^(accepted|move latency|RESULT)' > "$tmp/out"
}

results=()
n=0
for round in $(seq 1 "$rounds"); do
  if [ -n "$baseline" ]; then
    n=$((n + 1))
    echo "== round $round: baseline $baseline ($backend, $games games, $concurrency clients, ${duration}s)"
    load "$baseline" "$n"; out="$(cat "$tmp/out")"; echo "$out"
    results+=("baseline $(grep '^RESULT' <<<"$out")")
    stop_server
  fi
  n=$((n + 1))
  echo "== round $round: this build ($backend, $games games, $concurrency clients, ${duration}s)"
  load "$bin/djambi-server" "$n"; out="$(cat "$tmp/out")"; echo "$out"
  results+=("current $(grep '^RESULT' <<<"$out")")
  if [ "$round" = "$rounds" ] && [ "$backend" = postgres ] && [ "$history" = 1 ]; then
    echo "== history: state?at=N on a finished game of ${history_plies} moves, 4 clients, ${history_seconds}s"
    "$bin/loadgen" --url "http://127.0.0.1:$port" --history "$history_plies" \
      --concurrency 4 --duration "$history_seconds" | grep -E '^(RESULT|history)' || true
  fi
  stop_server
done

ceiling=0
if [ "$backend" = postgres ]; then
  echo "== pgbench: the move transaction, $concurrency clients, ${pgb_seconds}s, same PostgreSQL server"
  # Copies of the real tables (columns, defaults, indexes; no foreign keys), seeded with
  # the last round's games; the script is what one move writes.
  psql -q "$db_url" >/dev/null <<'SQL'
CREATE TABLE ceiling_games (LIKE games INCLUDING ALL);
CREATE TABLE ceiling_events (LIKE game_events INCLUDING ALL);
CREATE TABLE ceiling_notes (LIKE notifications INCLUDING ALL);
INSERT INTO ceiling_games SELECT * FROM games ORDER BY id LIMIT 128;
CREATE TABLE ceiling_ids AS SELECT row_number() OVER (ORDER BY id) AS n, id FROM ceiling_games;
ANALYZE;
SQL
  ngames="$(psql -Atq "$db_url" -c "SELECT count(*) FROM ceiling_ids")"
  script="$tmp/move.sql"
  cat > "$script" <<SQL
\\set n random(1, $ngames)
BEGIN;
SELECT g.version FROM ceiling_games g JOIN ceiling_ids i ON i.id = g.id WHERE i.n = :n FOR UPDATE OF g \\gset
UPDATE ceiling_games g SET version = version + 1, ply = ply + 1, updated_at = now(), turn_order_at = now() FROM ceiling_ids i WHERE i.id = g.id AND i.n = :n;
INSERT INTO ceiling_events (game_id, seq, kind, payload, actor_id, created_at) SELECT id, :version + 1, 'moved', '{"seat":"R","move":"C8-D7","effects":[]}', NULL, now() FROM ceiling_ids WHERE n = :n;
INSERT INTO ceiling_notes (id, user_id, kind, game_id, version, payload, created_at) SELECT gen_random_uuid()::text, 'u', 'your_turn', id, :version + 1, '{"seat":"B","deadline":null}', now() FROM ceiling_ids WHERE n = :n;
COMMIT;
SQL
  pgb="$(pgbench -n -c "$concurrency" -j 2 -T "$pgb_seconds" -f "$script" "$db_url" 2>&1)" || { echo "$pgb"; exit 1; }
  ceiling="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$pgb" | head -n 1)"
  echo "$pgb" | grep -E "^(tps|latency average|number of transactions actually processed|number of failed)"
fi

python3 - "$backend" "$ceiling" "${results[@]}" <<'PY'
import sys
backend, ceiling = sys.argv[1], float(sys.argv[2])
def field(line, key):
    for w in line.split():
        if w.startswith(key + "="):
            return float(w.split("=", 1)[1])
    return float("nan")
runs = {"baseline": [], "current": []}
for line in sys.argv[3:]:
    who, rest = line.split(" ", 1)
    runs[who].append(rest)
print("== summary")
for who, lines in runs.items():
    for i, l in enumerate(lines, 1):
        m, p50, p99, mx = (field(l, k) for k in ("moves_per_sec", "p50_ms", "p99_ms", "max_ms"))
        extra = f", {m / ceiling:.2f} of the ceiling" if ceiling else ""
        print(f"{who} round {i}: {m:.0f} moves/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {mx:.1f} ms{extra}")
cur = [field(l, "moves_per_sec") for l in runs["current"]]
if ceiling:
    print(f"move-transaction ceiling (pgbench): {ceiling:.0f}/s")
if runs["baseline"]:
    base = [field(l, "moves_per_sec") for l in runs["baseline"]]
    print(f"this build / baseline, mean moves/s: {sum(cur)/len(cur):.0f} / {sum(base)/len(base):.0f} = {sum(cur)/sum(base)*len(base)/len(cur):.2f}")
if ceiling:
    print(f"ratio moves/s : ceiling = {sum(cur)/len(cur)/ceiling:.2f} (target >= 0.6)")
p99s = [field(l, "p99_ms") for l in runs["current"]]
maxs = [field(l, "max_ms") for l in runs["current"]]
print(f"p99 worst {max(p99s):.1f} ms (target < 20), max worst {max(maxs):.1f} ms" + (" (target < 100)" if backend == "sqlite" else ""))
PY
