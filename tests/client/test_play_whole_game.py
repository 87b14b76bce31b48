"""A whole game played through a client generated from the committed OpenAPI document.

Run by scripts/generated-client.sh, which generates the package `djambi_client` from
openapi/openapi.json with openapi-python-client and starts a server (DJAMBI_URL). Every
request below goes through the generated functions and models: no request is written by
hand, which is the point (the document is enough to write a client).
"""

import os
import random
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
from djambi_client import AuthenticatedClient, Client
from djambi_client.api.accounts import register
from djambi_client.api.games import (
    create_game,
    get_game,
    get_record,
    get_state,
    legal_moves,
    list_events,
    my_games,
    play_move,
    resign,
    take_seat,
)
from djambi_client.api.sessions import login
from djambi_client.api.tokens import create_token
from djambi_client.models import (
    ActionResult,
    CreatedToken,
    CreateGameRequest,
    CreateTokenRequest,
    EventPage,
    GamePage,
    GameSummary,
    LegalMovesView,
    LoginRequest,
    MoveRequest,
    Problem,
    Profile,
    RegisterRequest,
    ResignRequest,
    ResultKind,
    ResultReason,
    Scope,
    StateView,
    Status,
    TakeSeatRequest,
    TokenResponse,
    Visibility,
)

BASE = os.environ["DJAMBI_URL"]
SEED = int(os.environ.get("DJAMBI_CLIENT_SEED", "3"))
# Past this many plies the players still in resign one by one (the game must end).
MAX_PLIES = int(os.environ.get("DJAMBI_CLIENT_MAX_PLIES", "500"))
HERE = Path(__file__).resolve().parent
README = HERE.parent.parent / "README.md"
PASSWORD = "correct horse battery staple"
RUN = uuid.uuid4().hex[:8]


def problem(resp, status: int, slug: str) -> Problem:
    """Checks that `resp` is the problem `slug` with `status`, and returns it."""
    assert resp.status_code == status, (resp.status_code, resp.content)
    assert isinstance(resp.parsed, Problem), resp.content
    assert resp.parsed.type_ == f"/problems/{slug}", resp.parsed.type_
    assert resp.parsed.status == status
    assert resp.headers["content-type"].startswith("application/problem+json")
    return resp.parsed


def ok(resp, status: int, model):
    assert resp.status_code == status, (resp.status_code, resp.content)
    assert isinstance(resp.parsed, model), (type(resp.parsed), resp.content)
    return resp.parsed


def new_player(name: str) -> tuple[str, AuthenticatedClient]:
    """Registers an account and logs in; returns the username and a client with its token."""
    anonymous = Client(base_url=BASE)
    username = f"{name}-{RUN}"
    body = RegisterRequest(username=username, email=f"{username}@example.org", password=PASSWORD)
    profile = ok(register.sync_detailed(client=anonymous, body=body), 201, Profile)
    assert profile.username == username
    tokens = ok(
        login.sync_detailed(
            client=anonymous, body=LoginRequest(username=username, password=PASSWORD)
        ),
        201,
        TokenResponse,
    )
    assert tokens.user.id == profile.id
    # A kept-alive connection is dropped by the client before the server's keep-alive
    # (actix: 5 s) can close it under a request in flight (a player idle while the others
    # move would otherwise race the server's close now and then).
    limits = httpx.Limits(keepalive_expiry=2.0)
    return username, AuthenticatedClient(
        base_url=BASE, token=tokens.access_token, httpx_args={"limits": limits}
    )


def etag(version: int) -> str:
    return f'"{version}"'


STALE_CURSORS = []  # legal-moves pages refused because the game moved on meanwhile


def all_legal_moves(game_id: str, client) -> LegalMovesView:
    """Every legal move, paging with `next_cursor` (100 a page). A cursor is tied to the
    version it was made at: when the game moves on between two pages (the bot played),
    the next page is `412 version-conflict` and paging starts again."""
    while True:
        first = ok(
            legal_moves.sync_detailed(game_id, client=client, limit=100), 200, LegalMovesView
        )
        moves, page = list(first.moves), first
        while page.next_cursor:
            resp = legal_moves.sync_detailed(
                game_id, client=client, after=page.next_cursor, limit=100
            )
            if resp.status_code == 412:
                conflict = problem(resp, 412, "version-conflict")
                assert conflict["current_version"] > first.version
                STALE_CURSORS.append(first.version)
                break
            page = ok(resp, 200, LegalMovesView)
            assert page.version == first.version and page.total == first.total
            moves.extend(page.moves)
        else:
            assert len(moves) == first.total
            texts = [m.text for m in moves]
            assert texts == sorted(texts) and len(set(texts)) == len(texts), "pages overlap"
            first.moves = moves
            return first


def choose(rng: random.Random, view: LegalMovesView, state: StateView) -> str:
    """A move that kills a chief if it can, else often one that kills, else any."""
    alive = {p.square: p for p in state.pieces if p.alive}

    def score(move) -> int:
        targets = [alive.get(move.move.to), alive.get(move.move.victim or "")]
        if any(t is not None and t.kind == "chief" for t in targets):
            return 2
        return 1 if any(t is not None for t in targets) else 0

    if rng.random() < 0.25:
        return rng.choice(view.moves).text
    best = max(score(m) for m in view.moves)
    return rng.choice([m for m in view.moves if score(m) == best]).text


def test_readme_bot_is_bot_py():
    """The README's "Write a bot in 30 lines" block is tests/client/bot.py, verbatim."""
    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Write a bot in 30 lines", 1)
    assert len(section) == 2, "README has no 'Write a bot in 30 lines' section"
    block = re.search(r"```python\n(.*?)```", section[1], re.DOTALL)
    assert block, "the section has no python block"
    bot = (HERE / "bot.py").read_text(encoding="utf-8")
    assert block.group(1) == bot, "README's bot differs from tests/client/bot.py"
    assert len(bot.splitlines()) <= 30


def test_rate_limited_login_says_when_to_retry():
    """Failed logins back off with 429, `Retry-After` and `retry_after`; waiting works."""
    username, _ = new_player("mallory")
    anonymous = Client(base_url=BASE)
    wrong = LoginRequest(username=username, password="not the password at all")
    for _ in range(5):
        problem(login.sync_detailed(client=anonymous, body=wrong), 401, "unauthorized")
    right = LoginRequest(username=username, password=PASSWORD)
    resp = login.sync_detailed(client=anonymous, body=right)
    limited = problem(resp, 429, "rate-limited")
    wait = int(resp.headers["retry-after"])
    assert wait >= 1 and limited["retry_after"] == wait
    time.sleep(wait + 0.2)
    ok(login.sync_detailed(client=anonymous, body=right), 201, TokenResponse)


def test_four_players_and_a_bot_play_a_whole_game():
    started = time.monotonic()
    rng = random.Random(SEED)
    (alice_name, alice), (_, bob), (_, carol), (_, dave) = (
        new_player(n) for n in ("alice", "bob", "carol", "dave")
    )

    # Alice creates the game; a retry with the same Idempotency-Key gets the same answer
    # and creates nothing; the same key with another body is refused.
    key = f"create-{RUN}"
    body = CreateGameRequest(seats=4, seat="R", visibility=Visibility.PUBLIC)
    first = create_game.sync_detailed(client=alice, body=body, idempotency_key=key)
    game = ok(first, 201, GameSummary)
    again = create_game.sync_detailed(client=alice, body=body, idempotency_key=key)
    assert ok(again, 201, GameSummary).to_dict() == game.to_dict()
    assert again.headers["idempotent-replayed"] == "true"
    other = CreateGameRequest(seats=3, seat="R", visibility=Visibility.PUBLIC)
    problem(
        create_game.sync_detailed(client=alice, body=other, idempotency_key=key),
        422,
        "idempotency-key-reused",
    )
    mine = ok(my_games.sync_detailed(client=alice), 200, GamePage)
    assert [g.id for g in mine.items] == [game.id]
    assert game.status == Status.OPEN and game.open_seats == ["B", "Y", "G"]
    gid = game.id

    # GET gives the version as ETag.
    resp = get_game.sync_detailed(gid, client=bob)
    assert resp.headers["etag"] == etag(ok(resp, 200, GameSummary).version)

    # Bob takes B, first with a stale If-Match: 412 with the current version, nothing
    # written; then with the right one.
    stale = problem(
        take_seat.sync_detailed(
            gid, "B", client=bob, body=TakeSeatRequest(), if_match=etag(game.version - 1)
        ),
        412,
        "version-conflict",
    )
    assert stale["current_version"] == game.version
    game = ok(
        take_seat.sync_detailed(
            gid, "B", client=bob, body=TakeSeatRequest(), if_match=etag(stale["current_version"])
        ),
        200,
        GameSummary,
    )
    # Carol gives the version in the body instead; Dave sends none (seats need none).
    # (Empty requests go as `{}`: with a document that types an optional body as
    # `oneOf: [null, ...]`, openapi-python-client's functions fail when it is omitted.)
    game = ok(
        take_seat.sync_detailed(
            gid, "Y", client=carol, body=TakeSeatRequest(expected_version=game.version)
        ),
        200,
        GameSummary,
    )
    no_version = TakeSeatRequest()
    problem(take_seat.sync_detailed(gid, "Y", client=dave, body=no_version), 409, "seat-taken")
    game = ok(take_seat.sync_detailed(gid, "G", client=dave, body=no_version), 200, GameSummary)
    assert game.status == Status.ACTIVE and game.open_seats == []
    assert {s.seat: s.username for s in game.seats}["R"] == alice_name
    seated_version = game.version

    # Alice's seat is played by the README's bot, with a personal access token.
    pat = ok(
        create_token.sync_detailed(
            client=alice,
            body=CreateTokenRequest(name="bot", scopes=[Scope.READ, Scope.PLAY]),
        ),
        201,
        CreatedToken,
    )
    bot = subprocess.Popen(
        [sys.executable, str(HERE / "bot.py"), gid],
        env={**os.environ, "DJAMBI_TOKEN": pat.token, "DJAMBI_SEED": str(SEED)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    players = {"B": bob, "Y": carol, "G": dave}
    played: dict[int, str] = {}  # version after a move of ours -> DFEN it answered
    checked_retry = checked_stale = checked_turn = False
    resigned: list[str] = []
    try:
        while True:
            assert bot.poll() is None or bot.returncode == 0, bot.stdout.read()
            assert time.monotonic() - started < 300, "the game took too long"
            view = all_legal_moves(gid, bob)
            if view.status == Status.FINISHED:
                break
            assert view.status == Status.ACTIVE and view.moves
            if view.seat not in players:  # the bot's turn
                time.sleep(0.05)
                continue
            client = players[view.seat]
            ply = ok(get_state.sync_detailed(gid, client=client), 200, StateView)
            if ply.version != view.version:
                continue  # moved on between the two reads: read again
            if ply.ply >= MAX_PLIES:
                # Long enough: the seat to move resigns (If-Match, like every write here).
                res = ok(
                    resign.sync_detailed(
                        gid, client=client, body=ResignRequest(), if_match=etag(view.version)
                    ),
                    201,
                    ActionResult,
                )
                resigned.append(view.seat)
                continue
            move = choose(rng, view, ply)
            if not checked_turn:
                # Someone else's turn: 409 not-your-turn, nothing written.
                someone_else = next(c for s, c in players.items() if s != view.seat)
                problem(
                    play_move.sync_detailed(
                        gid,
                        client=someone_else,
                        body=MoveRequest(move=move),
                        if_match=etag(view.version),
                    ),
                    409,
                    "not-your-turn",
                )
                checked_turn = True
            if not checked_stale and view.version > seated_version + 4:
                # A stale version: 412 with the current one, nothing written.
                conflict = problem(
                    play_move.sync_detailed(
                        gid, client=client, body=MoveRequest(move=move), if_match=etag(3)
                    ),
                    412,
                    "version-conflict",
                )
                assert conflict["current_version"] == view.version
                checked_stale = True
            # Every move carries its version, alternately as If-Match and in the body,
            # and an Idempotency-Key.
            key = f"{gid}/{view.version}"
            if view.version % 2:
                kwargs = {"body": MoveRequest(move=move), "if_match": etag(view.version)}
            else:
                kwargs = {"body": MoveRequest(move=move, expected_version=view.version)}
            resp = play_move.sync_detailed(gid, client=client, idempotency_key=key, **kwargs)
            res = ok(resp, 201, ActionResult)
            assert res.version > view.version and res.move.text == move
            assert res.move.seat == view.seat
            played[res.version] = res.dfen
            if not checked_retry and res.turn and res.turn.seat in players:
                # A retry (same key, same request) answers the same and writes nothing;
                # nobody else can move in between, it is one of our seats' turn.
                retry = play_move.sync_detailed(gid, client=client, idempotency_key=key, **kwargs)
                assert retry.status_code == 201 and retry.content == resp.content
                assert retry.headers["idempotent-replayed"] == "true"
                assert "idempotent-replayed" not in resp.headers
                now = ok(get_game.sync_detailed(gid, client=client), 200, GameSummary)
                assert now.version == res.version
                checked_retry = True
        bot_out, _ = bot.communicate(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, bot_out
    assert checked_retry and checked_stale and checked_turn

    # The end, as the state, the summary, the legal moves and the log tell it.
    state = ok(get_state.sync_detailed(gid, client=bob), 200, StateView)
    summary = ok(get_game.sync_detailed(gid, client=bob), 200, GameSummary)
    assert state.status == summary.status == Status.FINISHED
    assert state.version == summary.version and state.ply == summary.ply
    assert state.result is not None and summary.result is not None
    assert state.result.to_dict() == summary.result.to_dict()
    assert not state.turn and not summary.to_move
    result = state.result
    ranked = [seat for place in result.ranking for seat in place]
    assert sorted(ranked) == sorted(["R", "B", "Y", "G"])
    if result.kind == ResultKind.WIN:
        assert len(result.seats) == 1 and result.ranking[0] == result.seats
    by_rules = (
        ResultReason.LAST_SEAT_STANDING,
        ResultReason.MUTUAL_ELIMINATION,
        ResultReason.NO_LEGAL_MOVES,
    )
    assert result.reason in (*by_rules, ResultReason.RESIGNATION), result.reason
    assert resigned or result.reason in by_rules
    final_moves = ok(legal_moves.sync_detailed(gid, client=bob), 200, LegalMovesView)
    assert final_moves.total == 0 and final_moves.moves == [] and not final_moves.seat

    # The log, paged with next_cursor: every event once, in order; our moves and the
    # bot's are all there.
    events, after, pages = [], None, 0
    while True:
        kwargs = {"after": after} if after else {}
        page = ok(list_events.sync_detailed(gid, client=carol, limit=40, **kwargs), 200, EventPage)
        events.extend(page.items)
        pages += 1
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert [e.seq for e in events] == list(range(1, state.version + 1))
    assert pages == -(-state.version // 40)
    moves = [e for e in events if e.kind == "move_played"]
    bot_moves = [e for e in moves if e.payload["seat"] == "R"]
    assert len(moves) == len(played) + len(bot_moves)
    assert len(bot_moves) >= 3, "the bot played fewer than 3 moves"
    assert bot_out.strip().endswith(f"played {len(bot_moves)} moves"), bot_out
    assert all(e.actor_id == summary.created_by for e in bot_moves)

    # History: the position after each of our moves is still there (?at=N).
    for version in sorted(played)[:: max(1, len(played) // 10)]:
        at = ok(get_state.sync_detailed(gid, client=dave, at=version), 200, StateView)
        assert at.dfen == played[version] and at.version == version

    # The record ends with the last move, and every player finds the game among its finished.
    record = get_record.sync_detailed(gid, client=bob)
    assert record.status_code == 200 and isinstance(record.parsed, str)
    assert "[Result " in record.parsed and moves[-1].payload["text"] in record.parsed
    for client in (alice, bob, carol, dave):
        finished = ok(my_games.sync_detailed(client=client, status="finished"), 200, GamePage)
        assert gid in [g.id for g in finished.items]

    print(
        f"\ngame {gid}: {state.ply} plies ({len(played)} by the test's players, "
        f"{len(bot_moves)} by bot.py), {state.version} events, ended by "
        f"{result.reason} ({result.kind}, ranking {result.ranking}), "
        f"resigned: {resigned or 'none'}, legal-moves pagings restarted on 412: "
        f"{len(STALE_CURSORS)}, {time.monotonic() - started:.1f}s"
    )
