#!/usr/bin/env python3
"""A stand-in for the server's history endpoints, to test the replay page without it.

Standard library only. It serves one game, built from a game record replayed by the
`djambi` command (`djambi record replay`, `djambi svg`), with the shapes of the real API
(openapi/openapi.json):

  GET /games/{id}                   api/assets/replay.html, placeholders filled
  GET /assets/replay.js, .css       the page's assets
  GET /v1/games/{id}/events         EventPage: items, next_cursor, paged by ?after=&limit=
  GET /v1/games/{id}/state?at=N     StateView (dfen, ply, turn, result, version, ...)
  GET /v1/games/{id}/board.svg?at=N the picture of `djambi svg`, with the last move

The page is served with the Content-Security-Policy the real server will send.

  mock_server.py --djambi target/debug/djambi --record game.djr [--random-game SEED]
                 [--port 0] [--game-id mock-game]

With --random-game it first writes a finished random game to --record (random moves by
`djambi moves`/`djambi play`, then resignations and a timeout). It prints its base URL on
the first line of standard output, then serves until killed.
"""

import argparse
import html
import json
import os
import random
import re
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETS = os.path.join(ROOT, "api", "assets")


def english_messages():
    """The simple `id = text` messages (and `.attribute`s) of locales/en/*.ftl."""
    out = {}
    root = os.path.join(ROOT, "locales", "en")
    for name in sorted(os.listdir(root)):
        last = None
        with open(os.path.join(root, name), encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^([A-Za-z][A-Za-z0-9_-]*) = (.*)$", line.rstrip("\n"))
                a = re.match(r"^\s+\.([A-Za-z0-9_-]+) = (.*)$", line.rstrip("\n"))
                if m:
                    last = m.group(1)
                    out[last] = m.group(2)
                elif a and last:
                    out[f"{last}.{a.group(1)}"] = a.group(2)
    return out


MESSAGES = english_messages()
CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'"
ICON_LINKS = ('<link rel="icon" href="/favicon.ico" sizes="16x16 32x32">\n'
              '<link rel="icon" href="/favicon.svg" type="image/svg+xml">')
NOT_FOUND = ('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
             f'{ICON_LINKS}\n<title>Not found · Djambi</title>\n'
             '<link rel="stylesheet" href="/assets/replay.css">\n</head>\n<body>\n<main id="not-found">\n'
             '<h1>Not found</h1>\n<p>There is no such game.</p>\n</main>\n</body>\n</html>\n')


def run(djambi, *args):
    out = subprocess.run([djambi, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"djambi {' '.join(args[:2])} failed ({out.returncode}): {out.stderr}")
    return out.stdout


def random_record(djambi, seed, plies):
    """A finished game: random moves, then seats leave until one is left."""
    rng = random.Random(seed)
    seats = "RBYG" if seed % 2 == 0 else "RBY"
    dfen = run(djambi, "start", "--seats", seats).strip()
    lines = [f'[Event "mock game {seed}"]', '[Red "alice"]', '[Blue "bob"]',
             '[Yellow "mirror"]', '[YellowType "bot"]', f'[Seats "{seats}"]', ""]
    if seats == "RBYG":
        lines.insert(4, '[Green "carol"]')
    for _ in range(plies):
        fields = dfen.split(" ")
        if fields[1] == "-":
            break
        moves = run(djambi, "moves", dfen).split()
        move = rng.choice(moves)
        seat = fields[1][0]
        lines.append(f"{int(fields[3]) + 1}. {seat} {move}")
        dfen = run(djambi, "play", dfen, move).strip()
    leaving = ["resigns", "timed out"]
    while dfen.split(" ")[1] != "-":
        parties = dfen.split(" ")[2]
        active = [s for i, s in enumerate("RBYG") if parties[i] == s]
        seat = active[-1]
        how = leaving[len(lines) % 2]
        lines.append(f"-- {seat} {how}")
        dfen = run(djambi, "resign", dfen, seat).strip()
    return "\n".join(lines) + "\n"


def parse_turn(field):
    if field == "-":
        return None
    seat, _, after = field.partition("*")
    return {"seat": seat, "bonus_after": after or None}


class Game:
    def __init__(self, djambi, record_path, game_id):
        self.djambi = djambi
        self.id = game_id
        run(djambi, "record", "check", record_path)
        rows = [line.split("\t") for line in run(djambi, "record", "replay", record_path).splitlines()]
        seats = rows[0][2].split(" ")[2]
        self.events = [self.event(1, "created", {"seats": sum(c != "h" for c in seats)})]
        for seat in "RBYG":
            if seat in seats:
                self.events.append(self.event(len(self.events) + 1, "seat_taken", {"seat": seat}))
        self.events.append(self.event(len(self.events) + 1, "started", {}))
        # version -> (dfen, last move text or None)
        self.positions = {}
        for v in range(1, len(self.events) + 1):
            self.positions[v] = (rows[0][2], None)
        for _, line, dfen in rows[1:]:
            words = line.split()
            seq = len(self.events) + 1
            if words[0] == "--" and words[1] == "draw":
                kind, payload = "ended", {"result": {"kind": "draw", "reason": "draw_agreed", "seats": []}}
            elif words[0] == "--":
                kind = "resigned" if words[2].startswith("resign") else "timed_out"
                payload = {"seat": words[1]}
            else:
                kind, payload = "move_played", {"seat": words[1], "text": words[2], "move": {}}
            self.events.append(self.event(seq, kind, payload))
            self.positions[seq] = (dfen, words[2] if kind == "move_played" else None)
        final = rows[-1][2]
        if final.split(" ")[1] == "-" and self.events[-1]["kind"] != "ended":
            seq = len(self.events) + 1
            self.events.append(self.event(seq, "ended", {"result": {"kind": "win", "reason": "resignation"}}))
            self.positions[seq] = (final, None)
        self.version = len(self.events)
        self.svgs = {}

    @staticmethod
    def event(seq, kind, payload):
        return {"seq": seq, "kind": kind, "payload": payload, "actor_id": None,
                "created_at": "2026-11-30T12:00:00Z"}

    def state(self, at):
        dfen, _ = self.positions[at]
        fields = dfen.split(" ")
        parties = fields[2]
        return {
            "game_id": self.id, "version": at, "dfen": dfen, "ply": int(fields[3]),
            "status": "finished" if fields[1] == "-" else "active",
            "turn": parse_turn(fields[1]), "ruler": None, "result": None,
            "active_seats": [s for i, s in enumerate("RBYG") if parties[i] == s],
            "controls": {}, "pieces": [], "players": {},
        }

    def svg(self, at):
        if at not in self.svgs:
            dfen, last = self.positions[at]
            args = ["svg", dfen] + (["--last", last] if last else [])
            self.svgs[at] = run(self.djambi, *args)
        return self.svgs[at]


def handler_for(game):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body, content_type, extra=()):
            data = body if isinstance(body, bytes) else body.encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            for key, value in extra:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def problem(self, status, detail):
            body = json.dumps({"type": "/problems/not-found", "title": "error", "status": status,
                               "detail": detail})
            self.send(status, body, "application/problem+json")

        def version_arg(self, query):
            try:
                at = int(query.get("at", [str(game.version)])[0])
            except ValueError:
                return None
            return at if 1 <= at <= game.version else None

        def do_GET(self):
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            prefix = f"/v1/games/{game.id}"
            if url.path == f"/games/{game.id}":
                with open(os.path.join(ASSETS, "replay.html"), encoding="utf-8") as f:
                    page = f.read()
                page = re.sub(r"\{\{t:([A-Za-z0-9_.-]+)\}\}", lambda m: html.escape(MESSAGES.get(m.group(1), m.group(1))), page)
                page = page.replace("{{lang}}", "en")
                page = page.replace("{{game_id}}", html.escape(game.id))
                page = page.replace("{{title}}", html.escape(f"Game {game.id}"))
                page = page.replace("{{icon}}", ICON_LINKS)
                return self.send(200, page, "text/html; charset=utf-8",
                                 [("content-security-policy", CSP)])
            if url.path.startswith("/games/"):
                return self.send(404, NOT_FOUND, "text/html; charset=utf-8",
                                 [("content-security-policy", CSP)])
            if url.path == "/assets/i18n/messages.js":
                script = "window.DjambiLanguage = \"en\";\nwindow.DjambiMessages = " + json.dumps(
                    {k: re.sub(r"\{ \$([A-Za-z0-9_-]+) \}", r"{$\1}", v) for k, v in MESSAGES.items()
                     if k.startswith(("js-", "seat-", "piece-"))}) + ";\n"
                return self.send(200, script, "text/javascript; charset=utf-8")
            if url.path in ("/favicon.ico", "/favicon.svg"):
                with open(os.path.join(ASSETS, url.path[1:]), "rb") as f:
                    kind = "image/x-icon" if url.path.endswith(".ico") else "image/svg+xml"
                    return self.send(200, f.read(), kind)
            if url.path in ("/assets/replay.js", "/assets/replay.css"):
                name = url.path.rsplit("/", 1)[1]
                with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
                    kind = "text/javascript" if name.endswith(".js") else "text/css"
                    return self.send(200, f.read(), kind + "; charset=utf-8")
            if url.path == prefix + "/events":
                after = int(query.get("after", ["0"])[0])
                limit = max(1, min(100, int(query.get("limit", ["50"])[0])))
                items = [e for e in game.events if e["seq"] > after][:limit]
                last = items[-1]["seq"] if items else None
                cursor = str(last) if last is not None and last < game.version else None
                page = {"game_id": game.id, "version": game.version, "items": items,
                        "next_cursor": cursor,
                        "next": f"{prefix}/events?after={cursor}&limit={limit}" if cursor else None}
                return self.send(200, json.dumps(page), "application/json")
            if url.path in (prefix + "/state", prefix + "/board.svg"):
                at = self.version_arg(query)
                if at is None:
                    return self.problem(400, "`at` out of range")
                if url.path.endswith(".svg"):
                    return self.send(200, game.svg(at), "image/svg+xml")
                return self.send(200, json.dumps(game.state(at)), "application/json")
            return self.problem(404, f"no route {url.path}")

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--djambi", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--random-game", type=int, metavar="SEED")
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--game-id", default="mock-game")
    args = parser.parse_args()
    if args.random_game is not None:
        with open(args.record, "w", encoding="utf-8") as f:
            f.write(random_record(args.djambi, args.random_game, args.plies))
    game = Game(args.djambi, args.record, args.game_id)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(game))
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
