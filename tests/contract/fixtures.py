"""Fixtures for the contract check (scripts/conformance.sh).

Usage: fixtures.py BASE_URL COMMITTED_OPENAPI_JSON OUT_DIR
(with the server's DATABASE_URL and DJAMBI_JWT_SECRET in the environment)

- Checks that the server serves exactly the committed OpenAPI document.
- Registers four players, logs them in, and gives the first one a personal access token
  with the `read` and `play` scopes, the run's credential; the operations that need a
  login session get sessions of the second player. They are printed as NAME=VALUE lines,
  for tests/contract/schemathesis.toml's `${...}` placeholders.
- Makes games in several states (open, invite-only, three seats, active with the token's
  owner to move) and writes their ids to OUT_DIR/games.dict (a libFuzzer dictionary, one quoted id a line): schemathesis
  draws path ids from it part of the time (tests/contract/schemathesis.toml), so requests
  reach real games as well as unknown ids. Likewise a webhook endpoint
  (OUT_DIR/webhooks.dict) and unsubscribe links (OUT_DIR/unsubscribe.dict).

Only the standard library: it runs in the contract virtual environment or any python3.
"""

import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

PASSWORD = "violet tangerine harbour 1975"


def call(base, method, path, body=None, token=None, expect=(200, 201)):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            status, raw = res.status, res.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    if status not in expect:
        sys.exit(f"fixtures: {method} {path} answered {status}: {raw[:500]!r}")
    return json.loads(raw) if raw else None


def main():
    base, committed, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    with urllib.request.urlopen(base + "/openapi.json", timeout=30) as res:
        served = res.read()
    with open(committed, "rb") as f:
        if f.read() != served:
            sys.exit(
                "fixtures: the served /openapi.json differs from openapi/openapi.json; "
                "run UPDATE_OPENAPI=1 cargo test -p djambi-e2e --test openapi"
            )

    tokens, users = [], []
    for i in range(1, 5):
        name = f"contract{i}"
        users.append(call(base, "POST", "/v1/accounts",
                          {"username": name, "email": f"{name}@example.org",
                           "password": PASSWORD})["id"])
        login = call(base, "POST", "/v1/sessions", {"username": name, "password": PASSWORD})
        tokens.append(login["access_token"])
    owner = tokens[0]
    pat = call(base, "POST", "/v1/me/tokens",
               {"name": "contract check", "scopes": ["read", "play"]}, token=owner)["token"]

    games = []
    # Open, public, the owner in R.
    games.append(call(base, "POST", "/v1/games", {"seats": 4, "seat": "R"}, token=owner)["id"])
    # Invite-only, the owner in B.
    games.append(call(base, "POST", "/v1/games",
                      {"seat": "B", "visibility": "invite"}, token=owner)["id"])
    # Three seats, timed, nobody seated.
    games.append(call(base, "POST", "/v1/games",
                      {"seats": 3, "empty_seat": "Y",
                       "time_control": {"per_move_secs": 86400, "max_bank_secs": None}},
                      token=owner)["id"])
    # Active, the owner (Red) to move.
    active = call(base, "POST", "/v1/games", {"seat": "R"}, token=owner)["id"]
    for seat, token in zip("BYG", tokens[1:]):
        call(base, "POST", f"/v1/games/{active}/seats/{seat}", token=token)
    games.append(active)
    # Active, one move played, a draw offered.
    drawn = call(base, "POST", "/v1/games", {"seat": "R"}, token=owner)["id"]
    for seat, token in zip("BYG", tokens[1:]):
        call(base, "POST", f"/v1/games/{drawn}/seats/{seat}", token=token)
    moves = call(base, "GET", f"/v1/games/{drawn}/legal-moves?limit=1")
    call(base, "POST", f"/v1/games/{drawn}/moves",
         {"move": moves["moves"][0]["text"], "expected_version": moves["version"]}, token=owner)
    call(base, "POST", f"/v1/games/{drawn}/draw-offer", {"action": "offer"}, token=tokens[1])
    games.append(drawn)

    with open(f"{out_dir}/games.dict", "w") as f:
        f.write("".join(f'"{g}"\n' for g in games))

    # The credentials: the personal access token for everything, and login sessions of
    # another player (so that nothing the run does to them touches the token's owner)
    # for the operations that need one. Logging out gets a session of its own.
    def session():
        return call(base, "POST", "/v1/sessions",
                    {"username": "contract2", "password": PASSWORD})["access_token"]

    account, leaving = session(), session()

    # A webhook endpoint of the second player, written straight into the database: the
    # API only takes hosts that resolve to public addresses, and this machine resolves
    # none (deliveries to it fail and are retried, harmlessly).
    webhook = str(uuid.uuid4())
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", os.environ["DATABASE_URL"], "-c",
         "INSERT INTO webhooks (id, user_id, url, secret, created_at) VALUES "
         f"('{webhook}', '{users[1]}', 'https://hooks.example.org/djambi', "
         "'whsec_Y29udHJhY3QtY2hlY2stc2VjcmV0', now() AT TIME ZONE 'UTC')"],
        check=True,
    )
    with open(f"{out_dir}/webhooks.dict", "w") as f:
        f.write(f'"{webhook}"\n')
    # Unsubscribe links of two players: `{user id}.{HMAC}`, keyed by the JWT secret.
    secret = os.environ["DJAMBI_JWT_SECRET"].encode()
    with open(f"{out_dir}/unsubscribe.dict", "w") as f:
        for user in users[2:]:
            mac = hmac.new(secret, b"djambi-unsubscribe\0" + user.encode(), hashlib.sha256)
            sig = base64.urlsafe_b64encode(mac.digest()[:18]).decode().rstrip("=")
            f.write(f'"{user}.{sig}"\n')

    print(f"DJAMBI_CONTRACT_PAT={pat}")
    print(f"DJAMBI_CONTRACT_SESSION={account}")
    print(f"DJAMBI_CONTRACT_LOGOUT_SESSION={leaving}")


if __name__ == "__main__":
    main()
