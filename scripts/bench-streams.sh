#!/usr/bin/env bash
# Stream benchmark on PostgreSQL (issue 19): what idle Server-Sent Events streams cost.
#
# 1. builds the server, the load generator and the stream client (release);
# 2. starts one server on a fresh database; measures database commits/s while idle, and
#    accepted moves/s and p99 with the load generator (tests/bin/loadgen.rs);
# 3. opens BENCH_STREAMS idle streams (tests/bin/streamload.rs: half game streams over
#    BENCH_STREAM_GAMES games, half notification streams over BENCH_STREAM_USERS users);
#    measures the commits/s again, the server's RSS and threads, the load generator again,
#    and the time from a move's answer to its arrival on every stream of its game;
# 4. with BENCH_TWO=1 (default): a second instance on the same database holds the game
#    streams while the moves go through the first: delivery across instances.
#
# Everything targets 127.0.0.1; every loop is bounded by count and time. Every stream comes
# from one address, so the per-client limit (DJAMBI_STREAMS_PER_ACCOUNT, which also bounds
# anonymous game streams per address) is lifted for the run.
# Settings: BENCH_STREAMS (10000), BENCH_STREAM_GAMES (250), BENCH_STREAM_USERS (1000),
# BENCH_HOLD (10 s), BENCH_PROBES (60), BENCH_DURATION (15 s load), BENCH_CONCURRENCY (16),
# BENCH_GAMES (128), BENCH_PORT (18090), BENCH_TWO (1), BENCH_PROFILE (release),
# BENCH_SETTLE (15 s: the wait before idle figures, see below).
set -euo pipefail
cd "$(dirname "$0")/.."

streams="${BENCH_STREAMS:-10000}"
sgames="${BENCH_STREAM_GAMES:-250}"
susers="${BENCH_STREAM_USERS:-1000}"
hold="${BENCH_HOLD:-10}"
probes="${BENCH_PROBES:-60}"
duration="${BENCH_DURATION:-15}"
concurrency="${BENCH_CONCURRENCY:-16}"
games="${BENCH_GAMES:-128}"
port="${BENCH_PORT:-18090}"
two="${BENCH_TWO:-1}"
settle="${BENCH_SETTLE:-15}"
# BENCH_PROFILE=debug uses the debug binaries of `cargo test` (a quick check on a machine
# busy building; its figures are not the release ones).
profile="${BENCH_PROFILE:-release}"
bin="${CARGO_TARGET_DIR:-target}/$profile"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

admin_url="$(scripts/ensure-postgres.sh)"
db="djambi_streams_$(date +%s)_$$"
db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"

echo "== building ($profile)"
if [ "$profile" = release ]; then
  cargo build --release --locked -q -p api --bin djambi-server -p djambi-e2e --bin loadgen --bin streamload
else
  cargo build --workspace --locked -q --bins
fi

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null

start_server() { # port
  env DATABASE_URL="$db_url" DJAMBI_LISTEN="127.0.0.1:$1" \
    DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
    DJAMBI_DB_POOL_SIZE=16 DJAMBI_REGISTER_LIMIT_PER_IP="1000000/1m" \
    DJAMBI_LOGIN_LIMIT_PER_IP="1000000/1m" DJAMBI_STREAMS_PER_INSTANCE=100000 \
    DJAMBI_STREAMS_PER_ACCOUNT=100000 \
    DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=1000000 DJAMBI_MAX_CONNECTIONS=1000000 \
    DJAMBI_ARGON2_MEMORY_KIB=64 DJAMBI_ARGON2_ITERATIONS=1 RUST_LOG="${RUST_LOG:-warn}" \
    "$bin/djambi-server" > "${TMPDIR:-/tmp}/djambi-streams-$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "server on $1 did not start" >&2; exit 1
}

commits_per_sec() { # seconds
  local a b
  a="$(psql -Atq "$db_url" -c "SELECT pg_stat_clear_snapshot(); SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()" | tail -n1)"
  sleep "$1"
  b="$(psql -Atq "$db_url" -c "SELECT pg_stat_clear_snapshot(); SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()" | tail -n1)"
  # minus the two statistics queries themselves
  python3 -c "print(f'{(($b - $a) - 2) / $1:.1f}')"
}

mem() { # pid -> "rss_kib threads"
  awk '/^VmRSS/{r=$2} /^Threads/{t=$2} END{print r, t}' "/proc/$1/status"
}

loadgen() {
  "$bin/loadgen" --url "http://127.0.0.1:$port" --games "$games" --concurrency "$concurrency" \
    --duration "$duration" --warmup 2 | grep '^RESULT'
}

start_server "$port"
server="${pids[0]}"
sleep "$settle"
idle0="$(commits_per_sec 10)"
read -r rss0 thr0 <<<"$(mem "$server")"
load0="$(loadgen)"
echo "without streams: idle commits/s $idle0, rss ${rss0} KiB, threads $thr0; $load0"

fifo="$(mktemp -u)"; mkfifo "$fifo"
"$bin/streamload" --url "http://127.0.0.1:$port" --streams "$streams" --games "$sgames" \
  --users "$susers" --hold "$((settle + hold + 10 + duration + 10))" --probes "$probes" \
  --pause "$((settle + 2))" > "$fifo" &
pids+=($!)
exec 3<"$fifo"
# Memory per stream is the growth from half the streams to all of them: what the set-up
# (users, games, their caches) costs is in both figures.
read -r half <&3
echo "$half"
sleep "$settle"
read -r rss_half _ <<<"$(mem "$server")"
read -r ready <&3
echo "$ready"
# Opening the streams made thousands of commits; PostgreSQL's backends report their
# statistics up to 10 s after they go idle, and the runtime's blocking threads linger
# 10 s: measure after both.
sleep "$settle"
read -r rss1 thr1 <<<"$(mem "$server")"
idle1="$(commits_per_sec 10)"
load1="$(loadgen)"
echo "with streams: idle commits/s $idle1, rss ${rss1} KiB, threads $thr1; $load1"
read -r result <&3
echo "delivery (one instance): $result"
exec 3<&-; rm -f "$fifo"

python3 - "$idle0" "$idle1" "$rss0" "$rss1" "$streams" "$load0" "$load1" "$result" "$rss_half" <<'PY'
import re, sys
idle0, idle1, rss0, rss1, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rss_half = int(sys.argv[9])
def f(s, k): return float(re.search(k + r"=([0-9.]+)", s).group(1))
m0, m1 = f(sys.argv[6], "moves_per_sec"), f(sys.argv[7], "moves_per_sec")
p0, p1 = f(sys.argv[6], "p99_ms"), f(sys.argv[7], "p99_ms")
d99 = f(sys.argv[8], "p99_ms")
per = (rss1 - rss_half) / max(n - n // 2, 1)
print("== summary (one instance)")
print(f"idle commits/s: {idle0} -> {idle1} (streams add {idle1 - idle0:.1f}; target < 5)")
print(f"moves/s: {m0:.0f} -> {m1:.0f} ({100 * m1 / m0:.0f}%; target >= 90%), p99 {p0:.1f} -> {p1:.1f} ms")
print(f"delivery p99 {d99:.1f} ms (target < 1000)")
print(f"memory per idle stream: {per:.1f} KiB (RSS {rss_half} KiB with {n // 2} streams -> {rss1} KiB "
      f"with {n}; {rss0} KiB before the set-up; target < 16)")
PY

if [ "$two" = "1" ]; then
  port2=$((port + 1))
  start_server "$port2"
  out="$("$bin/streamload" --url "http://127.0.0.1:$port" --url2 "http://127.0.0.1:$port2" \
    --streams "$((streams / 5))" --games "$((sgames / 5 + 1))" --users "$((susers / 5 + 4))" \
    --hold 3 --probes "$probes" | grep '^RESULT')"
  echo "== two instances (moves through :$port, game streams on :$port2): $out"
fi
