#!/usr/bin/env bash
# Bot fairness on PostgreSQL (issue 19): how long a person's computer opponents take to
# answer while many games of computer players alone play on the same instance.
#
# Starts one release server on a fresh database, creates BENCH_BOT_GAMES games of four
# level-5 bots (the slowest search), then a person's game against three level-1 bots, and
# plays BENCH_ROUNDS of the person's moves (the first legal move each time; when Red is
# taken, that game goes on with bots alone and the person starts another). Each bot
# reply is timed from the previous move's arrival (the game's version, polled every
# 10 ms) and compared with `DJAMBI_BOT_DELAY` + 1 s; the bot-only games' plies in the same
# time are counted (their rate limit is `DJAMBI_BOT_ONLY_PLIES_PER_SEC` each).
# Settings: BENCH_BOT_GAMES (50), BENCH_ROUNDS (10), BENCH_BOT_DELAY (1s), BENCH_PORT
# (18095), BENCH_PROFILE (release).
#
# BENCH_ANALYSES=N (default 0) adds N engine analyses of games running at once (issue
# 37): N random games of BENCH_ANALYSIS_PLIES (200) moves, played through `djambi batch`,
# are imported and their analyses asked for before the person plays; the analyses' moves
# done meanwhile are counted. `BENCH_ANALYSES=20 BENCH_BOT_GAMES=0` measures what 20
# analyses at once do to a person's bot reply alone.
set -euo pipefail
cd "$(dirname "$0")/.."

bot_games="${BENCH_BOT_GAMES:-50}"
rounds="${BENCH_ROUNDS:-10}"
analyses="${BENCH_ANALYSES:-0}"
analysis_plies="${BENCH_ANALYSIS_PLIES:-200}"
delay="${BENCH_BOT_DELAY:-1s}"
port="${BENCH_PORT:-18095}"
profile="${BENCH_PROFILE:-release}"
bin="${CARGO_TARGET_DIR:-target}/$profile"

admin_url="$(scripts/ensure-postgres.sh)"
db="djambi_fairness_$(date +%s)_$$"
db_url="$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$admin_url" "$db")"

echo "== building ($profile)"
if [ "$profile" = release ]; then
  cargo build --release --locked -q -p api --bin djambi-server
  [ "$analyses" -gt 0 ] && cargo build --release --locked -q -p djambi-cli --bin djambi
else
  cargo build --workspace --locked -q --bins
fi

server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" >/dev/null

env DATABASE_URL="$db_url" DJAMBI_LISTEN="127.0.0.1:$port" \
  DJAMBI_JWT_SECRET="bench-secret-0123456789-abcdefghijklmnop" \
  DJAMBI_BOT_DELAY="$delay" DJAMBI_BOT_GAMES_PER_ACCOUNT="$bot_games" \
  DJAMBI_BOT_GAMES_TOTAL="$((bot_games + 10))" DJAMBI_BOT_DRAW_PLIES=100000 \
  DJAMBI_ANALYSIS_PER_ACCOUNT_PER_DAY="$((analyses + 1))" \
  DJAMBI_ANALYSIS_CONCURRENCY="$((analyses > 0 ? analyses : 1))" \
  DJAMBI_ARGON2_MEMORY_KIB=64 DJAMBI_ARGON2_ITERATIONS=1 RUST_LOG="${RUST_LOG:-warn}" \
  "$bin/djambi-server" > "${TMPDIR:-/tmp}/djambi-fairness-$port.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
echo "server: $(nproc) cores, DJAMBI_BOT_DELAY=$delay, $bot_games bot-only games"

BENCH_DJAMBI="$bin/djambi" BENCH_ANALYSES="$analyses" BENCH_ANALYSIS_PLIES="$analysis_plies" \
python3 - "http://127.0.0.1:$port" "$bot_games" "$rounds" "$delay" <<'PY'
import json, os, random, subprocess, sys, time, urllib.request

base, n_busy, rounds, delay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
delay_s = float(delay[:-2]) / 1000 if delay.endswith("ms") else float(delay.rstrip("s"))


def http(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


http("POST", "/v1/accounts", {"username": "ann", "email": "ann@example.org",
                              "password": "correct horse battery"})
tok = http("POST", "/v1/sessions", {"username": "ann", "password": "correct horse battery"})["access_token"]
me = http("GET", "/v1/me", token=tok)["id"]
busy = []
t_create = time.monotonic()
for _ in range(n_busy):
    busy.append(http("POST", "/v1/games", {"seats": 4, "bots": [{"seat": s, "level": 5} for s in "RBYG"]},
                     tok)["id"])
print(f"{n_busy} bot-only games created in {time.monotonic() - t_create:.1f} s", flush=True)

# Engine analyses running at once (BENCH_ANALYSES): random games played through
# `djambi batch`, imported, their analyses asked for.
n_analyses = int(os.environ.get("BENCH_ANALYSES", "0"))
analysed = []
if n_analyses:
    plies = int(os.environ.get("BENCH_ANALYSIS_PLIES", "200"))
    batch = subprocess.Popen([os.environ["BENCH_DJAMBI"], "batch"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)

    def ask(request):
        batch.stdin.write(json.dumps(request) + "\n")
        batch.stdin.flush()
        return json.loads(batch.stdout.readline())

    def random_record(seed):
        rng = random.Random(seed)
        dfen = ask({"op": "start"})["dfen"]
        lines = []
        while len(lines) < plies:
            moves = ask({"op": "moves", "dfen": dfen})["moves"]
            if not moves:
                break
            mv = rng.choice(moves)
            lines.append(f"{len(lines) + 1}. {dfen.split()[1][0]} {mv}")
            dfen = ask({"op": "play", "dfen": dfen, "moves": [mv]})["dfen"]
        return "\n".join(lines) + "\n", len(lines)

    seed = 0
    while len(analysed) < n_analyses:
        seed += 1
        text, n = random_record(seed)
        if n < plies:
            continue
        g = http("POST", "/v1/games/import", {"record": text, "visibility": "public"}, tok)["id"]
        http("POST", f"/v1/games/{g}/analysis", {}, tok)
        analysed.append(g)
    batch.stdin.close()
    print(f"{n_analyses} analyses of {plies}-move games asked for", flush=True)


def person_game():
    return http("POST", "/v1/games", {"seats": 4, "seat": "R",
                                      "bots": [{"seat": s, "level": 1} for s in "BYG"]}, tok)["id"]


def person_in(g):
    """Whether the person still plays game g (it is going on and Red is still in)."""
    return (http("GET", f"/v1/games/{g}")["status"] == "active"
            and "R" in http("GET", f"/v1/games/{g}/state")["active_seats"])


game, games = person_game(), 1
print(f"{len(busy)} bot-only games and the person's game {game} created", flush=True)
time.sleep(3)  # the bot-only games under way
version = lambda g: http("GET", f"/v1/games/{g}")["version"]
busy0 = [version(b) for b in busy]
t0 = time.monotonic()
replies = []
# The person plays the first legal move, so Red may be taken: the game then goes on with
# bots alone (rate-limited like the others) and the person starts another.
while len(replies) < 3 * rounds and time.monotonic() - t0 < 600:
    if not person_in(game):
        game, games = person_game(), games + 1
        continue
    s = http("GET", f"/v1/games/{game}")
    waited = time.monotonic()
    while s["to_move_user_id"] != me and time.monotonic() - waited < 60:
        time.sleep(0.01)
        s = http("GET", f"/v1/games/{game}")
    if s["to_move_user_id"] != me:
        if person_in(game):
            sys.exit(f"not the person's turn after 60 s: {s}")
        continue
    mv = http("GET", f"/v1/games/{game}/legal-moves")["moves"][0]["text"]
    http("POST", f"/v1/games/{game}/moves", {"move": mv, "expected_version": s["version"]}, tok)
    v, since = s["version"] + 1, time.monotonic()
    for _ in range(3):
        while True:
            now = version(game)
            if now > v:
                t = time.monotonic()
                replies.append(t - since)
                v, since = now, t
                break
            if time.monotonic() - since > 60:
                sys.exit("no bot reply in 60 s")
            time.sleep(0.01)
        if not person_in(game):
            break
elapsed = time.monotonic() - t0
if analysed:
    done = [http("GET", f"/v1/games/{g}/analysis")["plies_done"] for g in analysed]
    print(f"analyses meanwhile: {sum(done)} moves analysed in {elapsed:.1f} s "
          f"({sum(done) / elapsed:.1f} moves/s in all; per game min {min(done)}, max {max(done)})")
plies = [version(b) - v0 for b, v0 in zip(busy, busy0)]
active = sum(http("GET", f"/v1/games/{b}")["status"] == "active" for b in busy)
replies.sort()
q = lambda p: replies[min(len(replies) - 1, int(p * len(replies)))]
print(f"bot replies in the person's games ({games}): {len(replies)}; p50 {q(0.5):.2f} s, "
      f"p99 {q(0.99):.2f} s, max {replies[-1]:.2f} s (target p99 <= {delay_s + 1:.2f} s)")
if plies:
    print(f"bot-only games meanwhile: {sum(plies)} plies in {elapsed:.1f} s "
          f"({sum(plies) / elapsed:.1f} plies/s in all; per game min {min(plies)}, max {max(plies)}; "
          f"{active} of {n_busy} still active)")
PY
