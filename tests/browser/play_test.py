#!/usr/bin/env python3
"""Plays a game through the web client (/signup, /lobby, /play/{id}) in headless Chromium.

    play_test.py BASE_URL OUTDIR --moves C8-D7,G8-F7,... [--chromium PATH] [--timeout S]

Four isolated browser sessions (separate cookie jars, CDP browser contexts) sign up,
the first creates a four-player game in the lobby, the others take the other seats
there; then the given moves are played, each by the page of the seat to move, by
clicking: the piece, its destination, then in the choice dialog the victim, the maze
exit or the placement when the move needs one, then Confirm (the second move is typed
in the text box instead). After every move each of the four pages must show, without
reloading (the event stream), the position of GET /v1/games/{id}/state. Then a stale
page (its stream turned off with ?live=0) tries a move after the same player moved
elsewhere: the page must say the game moved on and keep the move in the text box, and
nothing is written. Then the page on a phone-sized screen, and resignations clicked in
the pages until the game is over.

Every page (sign-up, log-in, lobby, also at a phone's width where the open games come
before the creation form, the game page waiting for players, under way, with a piece
selected and with a choice dialog, my games, settings, the HTML 404) is checked with
axe-core (WCAG 2.1 A and AA: no violation), and no page may log an error in the console
but the refusals the test provokes (the illegal move's 422, the stale move's 412). The
board's squares are checked in Chromium's accessibility tree: a grid of 9 rows of 9
gridcells, each holding a button named after its square and what stands there, the
selected piece's pressed.

Screenshots in OUTDIR: play.png (a piece selected), play-dialog.png (a choice dialog),
play-stale.png, play-phone.png, play-end.png, lobby-phone.png, settings.png. Exit status
0 pass, 1 a check failed, 2 no browser or no server. Standard library only (see cdp.py).
"""

import argparse
import json
import os
import re
import secrets
import shutil
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402 - the shared driver, beside this file

SEATS = "RBYG"
# What the pages say that the test waits for, in the language the players choose at
# sign-up (--lang; the pages follow the account's preference).
TEXTS = {
    "en": {"open": "Open games", "grid": "choose a piece", "waiting": "Waiting for players", "rules": "Variant: no two-player bonus",
           "mine": "waiting for your move", "moved": "moved on", "offer": "offers a draw",
           "over": "Game over", "saved": "saved", "vacation": "On vacation until",
           "ended": "ended or cancelled", "lobby": "Lobby"},
    "fr": {"open": "Parties ouvertes", "grid": "choisissez une pièce", "waiting": "En attente de joueurs", "rules": "Variante : pas de bonus à deux",
           "mine": "en attente de votre coup", "moved": "a avancé", "offer": "propose la nulle",
           "over": "Partie terminée", "saved": "enregistr", "vacation": "En vacances jusqu",
           "ended": "terminées ou annulées", "lobby": "Salon"},
}
LANG = "en"
T = TEXTS[LANG]


def has(key, element):
    """A JavaScript test that the element's text contains the page's text `key`."""
    return f"document.getElementById('{element}').textContent.includes({json.dumps(T[key])})"
PASSWORD = "correct horse battery staple 1975"
MOVE = re.compile(r"^([A-I][1-9])([-x])([A-I][1-9])(?:x([A-I][1-9]))?(?:/([A-I][1-9]))?(?:>([A-I][1-9]))?$")


def http(method, url, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("accept", "application/json")
    if data is not None:
        req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def get_json(url):
    status, body = http("GET", url)
    if status != 200:
        raise Failed(f"GET {url}: {status} {body}")
    return body


def login_token(base, username):
    """An access token of `username` (registered with PASSWORD), for API calls beside the pages."""
    status, body = http("POST", f"{base}/v1/sessions", {"username": username, "password": PASSWORD})
    if status not in (200, 201):
        raise Failed(f"log in {username}: {status} {body}")
    return body["access_token"]


def browser_test_main(name, description, run, add_arguments=None):
    """The command line of a browser test that takes `base_url outdir [--chromium]
    [--timeout]` and what `add_arguments(parser)` adds: 2 when Chromium or the server is
    missing, 1 on a failure, 0 when run(base, args, chromium) passes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("base_url")
    parser.add_argument("outdir")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"{name}: {args.chromium} not found; run scripts/ensure-chromium.sh", file=sys.stderr)
        return 2
    base = args.base_url.rstrip("/")
    try:
        get_json(f"{base}/healthz")
    except Exception as error:  # noqa: BLE001 - any failure here means no usable server
        print(f"{name}: no server at {base}: {error}", file=sys.stderr)
        return 2
    try:
        run(base, args, chromium)
    except Failed as error:
        print(f"{name}: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


# The answers this test provokes on purpose (the page logs them as failed loads).
ILLEGAL = r"/v1/games/[0-9a-f-]+/moves .*status of 422"
STALE = r"/v1/games/[0-9a-f-]+/moves .*status of 412"


def ax_children(tree, node, roles):
    """The nearest descendants of `node` with a role in `roles` (through ignored and
    generic nodes)."""
    found = []
    for child_id in node.get("childIds", []):
        child = tree.get(child_id)
        if child is None:
            continue
        role = (child.get("role") or {}).get("value")
        if role in roles and not child.get("ignored"):
            found.append(child)
        else:
            found.extend(ax_children(tree, child, roles))
    return found


def ax_property(node, name):
    for prop in node.get("properties", []):
        if prop["name"] == name:
            return prop["value"].get("value")
    return None


def check_board_ax_tree(page, selected):
    """The squares in Chromium's accessibility tree: a grid, 9 rows of 9 gridcells, each
    with one button named "<square>: <what stands there>", only `selected` pressed."""
    tree = page.ax_tree()
    grids = [n for n in tree.values() if (n.get("role") or {}).get("value") == "grid" and not n.get("ignored")]
    if len(grids) != 1:
        raise Failed(f"the game page has {len(grids)} grids in the accessibility tree")
    grid = grids[0]
    if T["grid"] not in (grid.get("name") or {}).get("value", ""):
        raise Failed(f"the grid's name: {grid.get('name')}")
    rows = ax_children(tree, grid, {"row"})
    if len(rows) != 9:
        raise Failed(f"the grid has {len(rows)} rows, not 9")
    pressed = []
    for rank, row in zip(range(9, 0, -1), rows):
        cells = ax_children(tree, row, {"gridcell"})
        if len(cells) != 9:
            raise Failed(f"rank {rank} has {len(cells)} gridcells, not 9")
        for file, cell in zip("ABCDEFGHI", cells):
            buttons = ax_children(tree, cell, {"button"})
            name = (buttons[0].get("name") or {}).get("value", "") if len(buttons) == 1 else ""
            if len(buttons) != 1 or not name.startswith(f"{file}{rank}"):
                raise Failed(f"the gridcell of {file}{rank}: buttons {[b.get('name') for b in buttons]}")
            state = ax_property(buttons[0], "pressed")
            if state not in ("true", "false"):
                raise Failed(f"the button of {file}{rank} is not a toggle: pressed {state!r}")
            if state == "true":
                pressed.append(f"{file}{rank}")
    if pressed != [selected]:
        raise Failed(f"pressed squares {pressed}, the piece selected is on {selected}")
    sample = (ax_children(tree, ax_children(tree, rows[0], {"gridcell"})[0], {"button"})[0]["name"]["value"])
    print(f"accessibility tree: a grid of 9 rows x 9 gridcells with buttons (A9: {sample!r}), {selected} pressed")


def parse(text):
    m = MOVE.match(text)
    if not m:
        raise Failed(f"not a move: {text}")
    return {"from": m.group(1), "to": m.group(3), "victim": m.group(4), "exit": m.group(5),
            "place": m.group(6)}


BOARD = """(() => { const b = document.getElementById('board'); if (!b) return null;
  return {dfen: b.dataset.dfen, version: b.dataset.version, current: b.dataset.current,
          ready: b.dataset.ready, status: document.getElementById('status').textContent,
          message: document.getElementById('message').textContent}; })()"""


class Player:
    def __init__(self, browser, seat, base, tag):
        self.page = browser.new_page()
        self.seat = seat
        self.base = base
        self.username = f"p{tag}{seat.lower()}"

    def fill(self, selector, text):
        self.page.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                       " e.focus(); e.select && e.select(); })()")
        self.page.call("Input.insertText", {"text": text})

    def wait_page(self, name, path_prefix):
        self.page.wait_for(
            f"document.readyState === 'complete' && document.body &&"
            f" document.body.dataset.page === {json.dumps(name)} &&"
            f" location.pathname.startsWith({json.dumps(path_prefix)})", f"the {name} page")

    def sign_up(self, audit=False):
        self.page.navigate(f"{self.base}/signup")
        self.wait_page("signup", "/signup")
        if audit:
            self.page.check_axe("the sign-up page")
        self.fill("#signup-username", self.username)
        self.fill("#signup-email", f"{self.username}@example.org")
        self.fill("#signup-password", PASSWORD)
        if LANG != "en":
            self.page.eval(f"document.getElementById('signup-language').value = {json.dumps(LANG)}; true")
        self.page.click("#signup-submit")
        self.wait_page("lobby", "/lobby")
        # The account's language, from the first page on.
        self.page.wait_for(f"document.documentElement.lang === {json.dumps(LANG)} &&"
                           f" document.querySelector('h1').textContent === {json.dumps(T['lobby'])}",
                           f"the lobby in {LANG}")

    def synced(self, state):
        shown = self.page.eval(BOARD)
        return bool(shown) and shown["ready"] == "true" and shown["current"] == "true" and \
            shown["dfen"] == state["dfen"] and int(shown["version"] or -1) == state["version"]

    def wait_synced(self, state, what):
        deadline = time.time() + self.page.timeout
        while time.time() < deadline:
            if self.synced(state):
                return
            time.sleep(0.05)
        raise Failed(f"{self.seat}'s page does not show {what}: it shows {self.page.eval(BOARD)}, "
                     f"state is v{state['version']} {state['dfen']}")


def check_phone_lobby(page, game, outdir):
    """At a phone's width the lobby lists the open games before the creation form."""
    page.resize(390, 844, mobile=True, scale=2)
    try:
        page.wait_for("window.innerWidth === 390", "the phone's width")
        layout = page.eval(
            "(() => { const r = e => document.querySelector(e).getBoundingClientRect();"
            f" return {{open: r('#open-games').top, game: r('#open-games [data-game-id=\"{game}\"]').top,"
            " form: r('#create-form').top, title: r('#create-title').top,"
            " overflow: document.documentElement.scrollWidth - window.innerWidth,"
            " height: window.innerHeight}; })()")
        if not layout["open"] < layout["game"] < layout["title"] < layout["form"]:
            raise Failed(f"on a phone the open games are not above the creation form: {layout}")
        if layout["overflow"] > 0 or layout["game"] > layout["height"]:
            raise Failed(f"on a phone the first open game is not on the first screen: {layout}")
        page.screenshot(os.path.join(outdir, "lobby-phone.png"))
        page.check_axe("the lobby on a phone")
    finally:
        page.resize(1100, 900)
    print(f"lobby on a phone: the open games at y={layout['open']:.0f}, the creation form at y={layout['form']:.0f}")


def run(base, outdir, moves, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    browser = Browser(chromium, timeout)
    tag = secrets.token_hex(3)
    dialogs = set()
    typed = 0
    try:
        players = {seat: Player(browser, seat, base, tag) for seat in SEATS}
        for p in players.values():
            p.sign_up(audit=p.seat == "R")
        print(f"signed up: {', '.join(p.username for p in players.values())}")
        red = players["R"]
        red.page.wait_for(has("open", "status"), "the lobby")
        red.page.check_axe("the lobby")

        # Signed out: the log-in page.
        browser.navigate(f"{base}/login")
        browser.wait_for("document.readyState === 'complete' && document.body &&"
                         " document.body.dataset.page === 'login'", "the log-in page")
        browser.first.check_axe("the log-in page")

        # Red creates the game in the lobby; the others take their seats there.
        red.page.eval("document.getElementById('create-seats').value = '4';"
                      "document.getElementById('create-seat').value = 'R';"
                      "document.getElementById('create-time').value = '259200';"
                      # A rule variant that changes nothing in a four-seat game of the
                      # planned length (the plan is made under it too).
                      "document.querySelector('input[data-option=two_seat_bonus]').checked = true; true")
        red.page.click("#create-submit")
        red.wait_page("play", "/play/")
        game = red.page.eval("location.pathname.split('/')[2]")
        api = f"{base}/v1/games/{game}"
        red.page.wait_for(has("waiting", "status") + " &&"
                          " document.getElementById('board').dataset.ready === 'true'", "the game waiting")
        red.page.check_axe("the game page of a game waiting for players")
        rules = red.page.eval("document.getElementById('rules').textContent")
        if rules != T["rules"]:
            raise Failed(f"the game page names the rules {rules!r}")
        ruleset = get_json(api)["ruleset"]
        if ruleset != "djambi-standard-2026 two_seat_bonus=off":
            raise Failed(f"the game was created with the ruleset {ruleset!r}")
        for seat in "BYG":
            p = players[seat]
            p.page.navigate(f"{base}/lobby")
            p.wait_page("lobby", "/lobby")
            button = f'button.take-seat[data-game-id="{game}"][data-seat="{seat}"]'
            p.page.wait_for(f"!!document.querySelector({json.dumps(button)})", f"the seat {seat} in the lobby")
            if seat == "B":
                check_phone_lobby(p.page, game, outdir)
            p.page.click(button)
            p.wait_page("play", f"/play/{game}")
        state = get_json(f"{api}/state")
        if state["status"] != "active":
            raise Failed(f"the game did not start: {state['status']}")
        for p in players.values():
            p.wait_synced(state, "the start")
            p.page.check_console()
        red.page.check_axe("the game page under way")
        print(f"game {game} started; {len(moves)} moves to play")

        # My games: the game is listed for everyone, under "waiting for my move" for the
        # player to move only; that player opens it from there.
        mover = players[state["turn"]["seat"]]
        for p in players.values():
            p.page.navigate(f"{base}/")
            p.wait_page("home", "/")
            p.page.wait_for(has("mine", "status"),
                            f"{p.seat}'s games")
            waiting = p.page.eval(f"!!document.querySelector('#my-turn a[data-game-id=\"{game}\"]')")
            listed = p.page.eval(f"!!document.querySelector('#my-games a[data-game-id=\"{game}\"]')")
            if waiting != (p is mover) or not listed:
                raise Failed(f"{p.seat}'s games: waiting {waiting}, listed {listed}")
            if p is mover:
                p.page.check_axe("my games")
        for p in players.values():
            if p is mover:
                p.page.click(f'#my-turn a[data-game-id="{game}"]')
            else:
                p.page.navigate(f"{base}/play/{game}")
            p.wait_page("play", f"/play/{game}")
            p.wait_synced(state, "the start, again")

        for i, text in enumerate(moves):
            state = get_json(f"{api}/state")
            seat = state["turn"]["seat"]
            p = players[seat]
            mv = parse(text)
            p.page.wait_for(
                f"!!document.querySelector('#squares [data-square=\"{mv['from']}\"].movable')"
                f" && document.getElementById('board').dataset.version === '{state['version']}'",
                f"{seat}'s turn on its page before {text}")
            # The first move is played with the keyboard (Enter on the squares), the
            # second typed in the text box, the others clicked.
            press = p.page.press_enter if i == 0 else p.page.click
            if i == 1:
                # First an illegal move: the server's answer is shown, the text kept.
                illegal = next(f"{sq}-{sq[0]}{int(sq[1]) % 9 + 1}" for sq in ("A5", "B5", "C5", "D5")
                               if sq not in (mv["from"], mv["to"]))
                p.fill("#move-text", illegal)
                p.page.click("#move-text-submit")
                p.page.wait_for(
                    "(() => { const m = document.getElementById('message');"
                    f" return !m.hidden && m.classList.contains('error') && m.textContent.includes('{illegal}'); }})()",
                    "the refusal of an illegal move")
                if p.page.eval("document.getElementById('move-text').value") != illegal:
                    raise Failed("the illegal move is not kept in the text box")
                if get_json(f"{api}/state")["version"] != state["version"]:
                    raise Failed(f"the illegal move {illegal} was written")
                print(f"illegal move refused: {p.page.eval(BOARD)['message']}")
                p.fill("#move-text", text.lower())
                p.page.click("#move-text-submit")
                typed += 1
            else:
                press(f"#squares [data-square=\"{mv['from']}\"]")
                p.page.wait_for(f"!!document.querySelector('#squares [data-square=\"{mv['to']}\"].target')",
                                f"{mv['to']} offered as a destination")
                if i == 2:
                    p.page.screenshot(os.path.join(outdir, "play.png"))
                    check_board_ax_tree(p.page, mv["from"])
                    p.page.check_axe("the game page with a piece selected")
                press(f"#squares [data-square=\"{mv['to']}\"]")
                for _ in range(4):
                    ui = p.page.eval(
                        "(() => { const d = document.querySelector('.choice-dialog');"
                        " const c = document.getElementById('confirm');"
                        " return {field: d ? d.dataset.field : null, ready: !c.disabled,"
                        " move: c.dataset.move}; })()")
                    if ui["field"]:
                        field = ui["field"]
                        value = mv[field] or ""
                        if not dialogs:
                            p.page.screenshot(os.path.join(outdir, "play-dialog.png"))
                            p.page.check_axe("the game page with a choice dialog")
                        dialogs.add(field)
                        p.page.click(f'.choice-dialog button[data-value="{value}"]')
                        p.page.wait_for(
                            f"(() => {{ const d = document.querySelector('.choice-dialog');"
                            f" return !d || d.dataset.field !== '{field}'; }})()",
                            f"the {field} chosen")
                        continue
                    if ui["ready"]:
                        break
                    time.sleep(0.05)
                ui = p.page.eval("document.getElementById('confirm').dataset.move")
                if ui != text:
                    raise Failed(f"{seat}'s page is about to play {ui!r}, not {text}")
                press("#confirm")
            deadline = time.time() + timeout
            while time.time() < deadline:
                new = get_json(f"{api}/state")
                if new["version"] > state["version"]:
                    break
                time.sleep(0.05)
            else:
                raise Failed(f"{text} was not played: {p.page.eval(BOARD)}")
            events = get_json(f"{api}/events?after={state['version']}")["items"]
            played = [e["payload"].get("text") for e in events if e["kind"] == "move_played"]
            if played[:1] != [text]:
                raise Failed(f"the server recorded {played}, the page was to play {text}")
            for q in players.values():
                q.wait_synced(new, f"the position after {text}")
            p.page.check_console(allowed=[ILLEGAL] if i == 1 else [], settle=0)
            print(f"{i + 1:3}. {seat} {text:<14} all four pages at v{new['version']}: {new['dfen']}")

        if "place" not in dialogs and not any(parse(t)["place"] for t in moves):
            raise Failed("no placement move was played")
        if not any(parse(t)["exit"] for t in moves):
            raise Failed("no maze move was played")

        # A stale page: its stream off, the same player moves elsewhere, then the page tries.
        state = get_json(f"{api}/state")
        seat = state["turn"]["seat"]
        p = players[seat]
        p.page.navigate(f"{base}/play/{game}?live=0")
        p.wait_page("play", f"/play/{game}")
        p.wait_synced(state, "the position before the stale move")
        legal = get_json(f"{api}/legal-moves?limit=2000")["moves"]
        simple = [m for m in legal if not any(m["move"][k] for k in ("victim", "exit", "place"))]
        first, second = simple[0], simple[-1]
        status, token = http("POST", f"{base}/v1/sessions", {"username": p.username, "password": PASSWORD})
        if status != 201:
            raise Failed(f"login through the API: {status} {token}")
        status, answer = http("POST", f"{api}/moves", {"move": first["text"], "expected_version": state["version"]},
                              token["access_token"])
        if status != 201:
            raise Failed(f"the move elsewhere: {status} {answer}")
        m = second["move"]
        p.page.click(f"#squares [data-square=\"{m['from']}\"]")
        p.page.click(f"#squares [data-square=\"{m['to']}\"]")
        p.page.wait_for("!document.getElementById('confirm').disabled", "the stale move ready")
        p.page.click("#confirm")
        p.page.wait_for(has("moved", "message"),
                        "the stale move's message")
        kept = p.page.eval("document.getElementById('move-text').value")
        if kept != second["text"]:
            raise Failed(f"the refused move is not kept in the text box: {kept!r}")
        after = get_json(f"{api}/state")
        if after["version"] != state["version"] + 1:
            raise Failed(f"the stale move was written: v{state['version']} -> v{after['version']}")
        p.wait_synced(after, "the current position after the refusal")
        print(f"stale page refused: {p.page.eval(BOARD)['message']}")
        p.page.check_console(allowed=[STALE])
        p.page.screenshot(os.path.join(outdir, "play-stale.png"))

        # A phone-sized screen: nothing wider than the screen, the board and the panel there.
        p.page.resize(390, 844, mobile=True, scale=2)
        p.page.navigate(f"{base}/play/{game}")
        p.wait_page("play", f"/play/{game}")
        p.wait_synced(after, "the position on a phone")
        layout = p.page.eval(
            "(() => { const r = id => document.getElementById(id).getBoundingClientRect();"
            " return {overflow: document.documentElement.scrollWidth - window.innerWidth,"
            " board: r('board').width, square: document.querySelector('#squares .sq').getBoundingClientRect().width}; })()")
        if layout["overflow"] > 0 or not 250 <= layout["board"] <= 390 or layout["square"] < 25:
            raise Failed(f"the game page does not fit a phone: {layout}")
        p.page.screenshot(os.path.join(outdir, "play-phone.png"))
        p.page.check_axe("the game page on a phone")
        p.page.resize(1100, 900)
        p.page.navigate(f"{base}/play/{game}")
        p.wait_page("play", f"/play/{game}")

        # A draw offered in one page reaches another by itself, which declines it.
        state = get_json(f"{api}/state")
        offerer, decliner = [players[s] for s in state["active_seats"][:2]]
        offerer.wait_synced(state, "the position before the draw offer")
        offerer.page.click("#draw-offer")
        decliner.page.wait_for("!document.getElementById('draw-accept').hidden && " +
                               has("offer", "draw-status"),
                               "the draw offer on another page")
        decliner.page.click("#draw-decline")
        deadline = time.time() + timeout
        while get_json(f"{api}/state").get("draw_offer"):
            if time.time() > deadline:
                raise Failed("the draw offer was not declined")
            time.sleep(0.05)
        kinds = [e["kind"] for e in get_json(f"{api}/events?after={state['version']}")["items"]]
        if kinds != ["draw_offered", "draw_declined"]:
            raise Failed(f"the draw offer and its refusal are not in the log: {kinds}")
        print(f"{offerer.seat} offered a draw, {decliner.seat} declined it, in their pages")

        # Resignations clicked in the pages until the game is over.
        while True:
            state = get_json(f"{api}/state")
            if state["status"] != "active":
                break
            seat = [s for s in state["active_seats"]][-1]
            q = players[seat]
            q.wait_synced(state, "the position before resigning")
            q.page.click("#resign")
            q.page.wait_for("!document.getElementById('resign-confirm').hidden", "the resign confirmation")
            q.page.click("#resign-confirm")
            deadline = time.time() + timeout
            while get_json(f"{api}/state")["version"] == state["version"]:
                if time.time() > deadline:
                    raise Failed(f"{seat}'s resignation was not recorded")
                time.sleep(0.05)
            print(f"{seat} resigned in its page")
        for q in players.values():
            q.wait_synced(state, "the final position")
            q.page.wait_for(has("over", "status"),
                            f"{q.seat}'s page saying the game is over")
        players["R"].page.screenshot(os.path.join(outdir, "play-end.png"))
        players["R"].page.check_axe("the game page of a finished game")

        # Settings: a notification channel and the reminders saved, a vacation declared
        # and ended, each checked through the API.
        g = players["G"]
        status, login = http("POST", f"{base}/v1/sessions", {"username": g.username, "password": PASSWORD})
        if status != 201:
            raise Failed(f"login through the API: {status} {login}")
        token = login["access_token"]
        g.page.navigate(f"{base}/settings")
        g.wait_page("settings", "/settings")
        box = 'input[data-kind="your_turn"][data-channel="email"]'
        g.page.wait_for(f"!!document.querySelector('{box}') && document.getElementById('vacation-now').textContent",
                        "the settings")
        g.page.check_axe("the settings page")
        g.page.click(box)
        g.fill("#reminders", "12")
        g.page.click("#notify-submit")
        g.page.wait_for(has("saved", "status"), "the settings saved")
        _, saved = http("GET", f"{base}/v1/me/notification-settings", token=token)
        if saved["kinds"]["your_turn"]["email"] or saved["reminder_offsets_secs"] != [43200]:
            raise Failed(f"the settings were not saved: {saved}")
        g.page.click("#vacation-submit")
        g.page.wait_for(has("vacation", "vacation-now"),
                        "the vacation declared")
        _, vacation = http("GET", f"{base}/v1/me/vacations", token=token)
        if not vacation["on_vacation"]:
            raise Failed(f"the vacation was not declared: {vacation}")
        g.page.click("#vacation-cancel")
        g.page.wait_for(has("ended", "status"),
                        "the vacation ended")
        _, vacation = http("GET", f"{base}/v1/me/vacations", token=token)
        if vacation["on_vacation"]:
            raise Failed(f"the vacation did not end: {vacation}")
        g.page.screenshot(os.path.join(outdir, "settings.png"))
        print("settings saved and a vacation declared and ended through /settings")
        if LANG != "en":
            # The language and time zone choice: Spanish and Madrid time, the page again
            # in Spanish, the account changed.
            g.page.eval("document.getElementById('language').value = 'es'; true")
            g.fill("#time-zone", "Europe/Madrid")
            g.page.click("#language-submit")
            g.page.wait_for("document.documentElement.lang === 'es' && document.readyState === 'complete' &&"
                            " document.querySelector('h1').textContent === 'Ajustes' &&"
                            " document.body.dataset.timeZone === 'Europe/Madrid'", "the settings in Spanish")
            _, me = http("GET", f"{base}/v1/me", token=token)
            if me["language"] != "es" or me["time_zone"] != "Europe/Madrid":
                raise Failed(f"the language was not saved: {me}")
            g.page.check_axe("the settings page in Spanish")
            print("language and time zone changed on /settings: the page speaks Spanish")

        # The HTML 404 page of an unknown game.
        missing = f"{base}/play/00000000-0000-0000-0000-000000000000"
        g.page.navigate(missing)
        g.page.wait_for("document.readyState === 'complete' && !!document.getElementById('not-found')",
                        "the 404 page")
        g.page.check_axe("the 404 page")
        g.page.check_console(allowed=[re.escape(missing) + r" .*status of 404"])
        # No page logged an error (a missing /favicon.ico would have).
        for q in [browser.first] + [q.page for q in players.values()]:
            q.check_console()
        print("axe-core: no violation on any page; no error in any page's console")
        if typed != 1:
            raise Failed("the text box was not used")
    finally:
        browser.close()
    print(f"ok: {len(moves)} moves by four players (clicks, keyboard, text box) (dialogs: {', '.join(sorted(dialogs)) or 'none'}),"
          f" a stale move refused, a draw offered and declined, resignations to the end; screenshots in {outdir}")


def main():
    def more(parser):
        parser.add_argument("--moves", required=True, help="comma-separated canonical moves from the start")
        parser.add_argument("--lang", default="en", choices=sorted(TEXTS),
                            help="the language the players choose at sign-up")

    def play(base, args, chromium):
        global LANG, T
        LANG, T = args.lang, TEXTS[args.lang]
        run(base, args.outdir, [m for m in args.moves.split(",") if m], chromium, args.timeout)

    return browser_test_main("play_test", "Play a game through the web client in headless Chromium.",
                             play, more)


if __name__ == "__main__":
    sys.exit(main())
