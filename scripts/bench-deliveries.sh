#!/usr/bin/env bash
# Web Push delivery on PostgreSQL (issue 33): how fast one instance delivers a burst of
# pushes to one push service, and whether hung devices slow anybody else.
#
# Starts one release server on a fresh database and a push-service stand-in on loopback
# (HTTP/1.1 with keep-alive, answers 201 at once; one host and port for every device, as
# all Chrome users share fcm.googleapis.com). Signs up BENCH_ACCOUNTS accounts with two
# devices each, then twice commits BENCH_NOTES notifications (`your_turn`, which pushes by
# default; spread evenly over the accounts) in one transaction, signals it as another
# instance would (one NOTIFY after the commit), and waits for every push:
#
#   1. all devices answer;
#   2. BENCH_HUNG devices accept the connection and never answer.
#
# Each push is decrypted by the stand-in's side (http_ece, the venv of
# scripts/push-test-venv.sh) to learn its notification; latency is from the commit to the
# push's arrival. Reported per run: pushes, time to deliver all, pushes/s, p50/p99/max.
# Targets: >= 500 pushes/s, p99 < 2 s, the hung run's p99 (of the other devices) within
# 10% of the clean run's. The server runs with its default delivery settings.
# Settings: BENCH_ACCOUNTS (1000), BENCH_NOTES (2000), BENCH_HUNG (10), BENCH_PORT (18097),
# BENCH_PROFILE (release), BENCH_SERVER (a djambi-server binary to run instead of building),
# BENCH_KEEP (set: the database is kept, for a look at its rows' times afterwards),
# BENCH_STATEMENTS (1: the statements of the runs, from pg_stat_statements), BENCH_ENV
# (extra server settings, `NAME=value ...`; the targets are for the defaults).
set -euo pipefail
cd "$(dirname "$0")/.."

accounts="${BENCH_ACCOUNTS:-1000}"
notes="${BENCH_NOTES:-2000}"
hung="${BENCH_HUNG:-10}"
port="${BENCH_PORT:-18097}"
profile="${BENCH_PROFILE:-release}"
bin="${CARGO_TARGET_DIR:-target}/$profile"

sh scripts/push-test-venv.sh
py="${DJAMBI_PUSH_VENV:-$HOME/.cache/djambi-ci/push-venv}/bin/python"

admin_url="$(scripts/ensure-postgres.sh)"
db="djambi_deliveries_$(date +%s)_$$"
db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"

server_bin="$bin/djambi-server"
if [ -n "${BENCH_SERVER:-}" ]; then
  # A server built elsewhere (another commit's, or a workspace build of this one).
  server_bin="$BENCH_SERVER"
elif [ "$profile" = release ]; then
  echo "== building ($profile)"
  cargo build --release --locked -q -p api --bin djambi-server
else
  echo "== building ($profile)"
  cargo build --locked -q -p api --bin djambi-server
fi

server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ -n "${BENCH_KEEP:-}" ]; then
    echo "kept the database: ${db_url}"
  else
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null

vapid="$("$py" tests/push/webpush.py keygen | "$py" -c 'import json,sys; print(json.load(sys.stdin)["private"])')"
env DATABASE_URL="$db_url" DJAMBI_LISTEN="127.0.0.1:$port" \
  DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
  DJAMBI_VAPID_PRIVATE_KEY="$vapid" DJAMBI_VAPID_SUBJECT="mailto:bench@example.org" \
  DJAMBI_WEBHOOK_ALLOW_PRIVATE=true \
  DJAMBI_REGISTER_LIMIT_PER_IP="1000000/1m" DJAMBI_LOGIN_LIMIT_PER_IP="1000000/1m" \
  DJAMBI_MAX_CONNECTIONS_PER_ADDRESS=1000000 \
  DJAMBI_ARGON2_MEMORY_KIB=64 DJAMBI_ARGON2_ITERATIONS=1 RUST_LOG="${RUST_LOG:-warn}" \
  ${BENCH_ENV:-} "$server_bin" > "${TMPDIR:-/tmp}/djambi-deliveries-$port.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
echo "server: $(nproc) cores, $accounts accounts x 2 devices, $notes notifications per run"

"$py" - "http://127.0.0.1:$port" "$db_url" "$accounts" "$notes" "$hung" <<'PY'
import asyncio, base64, json, os, subprocess, sys, threading, time, urllib.request
from concurrent.futures import ThreadPoolExecutor

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

base, db_url = sys.argv[1], sys.argv[2]
n_accounts, n_notes, n_hung = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])


def b64e(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


# One key pair for every device: the stand-in decrypts each push to learn its notification.
device = ec.generate_private_key(ec.SECP256R1())
p256dh = b64e(device.public_key().public_bytes(
    serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
auth = os.urandom(16)

# -- the push service stand-in --------------------------------------------------------
arrivals = []          # (wall time, path, body)
hung_paths = set()
state = {"connections": 0, "hung_requests": 0}
lock = threading.Lock()


async def handle(reader, writer):
    with lock:
        state["connections"] += 1
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            path = line.split()[1].decode()
            length = 0
            while True:
                h = await reader.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode().partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v)
            body = await reader.readexactly(length)
            now = time.time()
            if path in hung_paths:
                with lock:
                    state["hung_requests"] += 1
                await asyncio.sleep(3600)
                return
            with lock:
                arrivals.append((now, path, body))
            writer.write(b"HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


loop = asyncio.new_event_loop()
ready = threading.Event()
push_port = []


def serve():
    asyncio.set_event_loop(loop)
    srv = loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024))
    push_port.append(srv.sockets[0].getsockname()[1])
    ready.set()
    loop.run_forever()


threading.Thread(target=serve, daemon=True).start()
ready.wait()
push_base = f"http://127.0.0.1:{push_port[0]}"

# -- accounts and devices ---------------------------------------------------------------


def http(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def account(i):
    name = f"bench{i:05d}"
    http("POST", "/v1/accounts", {"username": name, "email": f"{name}@example.org",
                                  "password": "correct horse battery"})
    tok = http("POST", "/v1/sessions",
               {"username": name, "password": "correct horse battery"})["access_token"]
    me = http("GET", "/v1/me", token=tok)["id"]
    for d in range(2):
        http("POST", "/v1/me/push-subscriptions",
             {"endpoint": f"{push_base}/push/{i}-{d}", "keys": {"p256dh": p256dh, "auth": b64e(auth)}},
             tok)
    return me


t = time.monotonic()
with ThreadPoolExecutor(8) as pool:
    users = list(pool.map(account, range(n_accounts)))
print(f"set-up: {n_accounts} accounts, {2 * n_accounts} devices in {time.monotonic() - t:.1f} s")


def sql(text):
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", db_url], input=text.encode(),
                   check=True, stdout=subprocess.DEVNULL)


def sql_rows(text):
    out = subprocess.run(["psql", "-Atq", "-F", "\t", db_url, "-c", text], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return [l.split("\t") for l in out.splitlines() if l]


def run(label, tag, hung_accounts):
    hung_paths.clear()
    hung_paths.update(f"/push/{i}-0" for i in hung_accounts)
    with lock:
        arrivals.clear()
        state["connections"] = 0
        state["hung_requests"] = 0
    # The notifications, committed in one transaction (the outbox rows a write commits);
    # the accounts in turn, so each gets n_notes / n_accounts.
    values = ",\n".join(
        f"('{tag}-{n:05d}', '{users[n % n_accounts]}', 'your_turn', '{{}}', "
        f"(clock_timestamp() AT TIME ZONE 'UTC'))"
        for n in range(n_notes))
    # Then signalled as another instance signals its writes (a coalesced NOTIFY after
    # the commit, see store/live.rs): one user's topic wakes the fan-out.
    sql("INSERT INTO notifications (id, user_id, kind, payload, created_at) VALUES\n"
        + values + ";\n"
        + f"SELECT pg_notify('djambi_live', '@bench u:{users[0]}');")
    expected = 2 * n_notes - sum(
        (n_notes // n_accounts) + (1 if i < n_notes % n_accounts else 0) for i in hung_accounts)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 300:
        with lock:
            if len(arrivals) >= expected:
                break
        time.sleep(0.05)
    with lock:
        got = list(arrivals)
        conns, hung_reqs = state["connections"], state["hung_requests"]
    committed = {r[0]: float(r[1]) for r in sql_rows(
        f"SELECT id, extract(epoch FROM created_at) FROM notifications WHERE id LIKE '{tag}-%'")}
    lat = []
    for at, path, body in got:
        plain = json.loads(http_ece.decrypt(body, private_key=device, auth_secret=auth,
                                            version="aes128gcm"))
        lat.append(at - committed[plain["id"]])
    lat.sort()
    if not lat:
        sys.exit(f"{label}: no push arrived")
    first = min(committed.values())
    span = max(at for at, _, _ in got) - first
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    missing = expected - len(got)
    print(f"{label}: {len(got)} pushes in {span:.2f} s ({len(got) / span:.0f} pushes/s); "
          f"commit to arrival p50 {q(0.5):.3f} s, p99 {q(0.99):.3f} s, max {lat[-1]:.3f} s; "
          f"{conns} connections; {hung_reqs} attempts to hung devices"
          + (f"; MISSING {missing}" if missing else ""))
    return q(0.99)


# BENCH_STATEMENTS=1 (PostgreSQL with pg_stat_statements loaded): what the database did
# during the runs, the statements by their total time.
statements = os.environ.get("BENCH_STATEMENTS") == "1"
# A site's tables have statistics (autovacuum analyses them within a minute of such a
# set-up); a fresh database planned without them scans push_subscriptions and users in
# full for each fan-out batch's `user_id = ANY(...)`.
sql("ANALYZE;")
if statements:
    sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset();")

clean = run("clean", "c", [])
hung = run(f"{n_hung} hung", "h", list(range(0, n_accounts, max(1, n_accounts // max(1, n_hung))))[:n_hung])
print(f"others' p99 with {n_hung} hung devices: {hung / clean * 100 - 100:+.0f}% "
      f"(target within 10%)")
if statements:
    print("statements of both runs (calls, total ms, mean ms, rows, statement):")
    for r in sql_rows(
            "SELECT calls, round(total_exec_time::numeric, 1), round(mean_exec_time::numeric, 3), "
            "rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "ORDER BY total_exec_time DESC LIMIT 20"):
        print("  " + " | ".join(r))
PY
