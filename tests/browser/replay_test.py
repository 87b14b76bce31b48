#!/usr/bin/env python3
"""Drives the replay page (GET /games/{id}) in a real headless Chromium.

    replay_test.py BASE_URL GAME_ID OUTDIR [--waiting GAME_ID] [--chromium PATH] [--timeout SECONDS]

e.g. `replay_test.py http://127.0.0.1:8080 0192f5e4-... target/browser`. Standard library
only: it talks to Chromium through the DevTools protocol over a pipe
(`--remote-debugging-pipe`: NUL-separated JSON on file descriptors 3 and 4), so no
WebDriver, no websockets, nothing to download. `scripts/ensure-chromium.sh` installs
Debian's `chromium` when it is missing.

What it checks, for a game whose record is public:
  1. the page loads under its Content-Security-Policy and lists one step per action of
     GET /v1/games/{id}/events (moves, resignations, timeouts, an agreed draw) plus the
     start, and opens at the last step;
  2. Home goes to step 0; then it steps through every action to the end, alternating the
     ArrowRight key and clicks on the "next" button (real input events), and at each step
     reads the board's data-step, data-version and data-dfen, checks the URL hash (#N),
     that the picture loaded and is board.svg?at=VERSION, and that data-dfen is the dfen
     of GET /v1/games/{id}/state?at=VERSION fetched here independently;
  3. ArrowLeft, End, the "first" button, a changed hash and a page opened at #N land
     where they should;
  4. "explore from here" (by keyboard) in the middle of the game offers the legal moves of
     GET /v1/positions/legal-moves, plays one to the position POST /v1/positions/play
     gives (drawn by GET /v1/positions/board.svg), takes it back, and leaves for the
     game's step again; axe-clean while exploring;
  5. on a phone-sized screen (390 px) the page fits the width;
  6. it saves OUTDIR/replay.png (the page at the last step), OUTDIR/replay-start.png and
     OUTDIR/replay-phone.png;
  7. axe-core (WCAG 2.1 A and AA) finds no violation on the page (at the last step, at
     the start, on a phone) nor on the HTML 404 page, and no page logs an error in the
     console (a missing /favicon.ico would);
  8. with --waiting GAME_ID, the replay page of a game still waiting for players says so
     (not "Game over", not a turn), and passes axe too.

Exit status 0 when every check passes, 1 on a failed check, 2 when the browser or the
server cannot be used.
"""

import argparse
import json
import os
import re
import shutil
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402 - the shared driver, beside this file


SHOWN = """(() => {
  const b = document.getElementById('board');
  return {step: b.dataset.step, steps: b.dataset.steps, version: b.dataset.version,
          dfen: b.dataset.dfen, ready: b.dataset.ready, src: b.getAttribute('src'),
          loaded: b.complete && b.naturalWidth > 0, hash: location.hash,
          current: (document.querySelector('#move-list [aria-current=step]') || {}).textContent,
          items: document.querySelectorAll('#move-list li').length};
})()"""


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


def expected_labels(base, game):
    """The actions that change the position, from the event log (independently of the page)."""
    labels, after = [], None
    while True:
        url = f"{base}/v1/games/{game}/events?limit=100" + (f"&after={after}" if after else "")
        page = get_json(url)
        for event in page["items"]:
            kind, payload = event["kind"], event.get("payload") or {}
            if kind in ("move_played", "resigned", "timed_out", "timeout"):
                labels.append((event["seq"], kind))
            elif kind == "ended" and (payload.get("result") or {}).get("reason") == "draw_agreed":
                labels.append((event["seq"], kind))
        after = page.get("next_cursor")
        if not after or not page["items"]:
            return labels


def check_step(browser, base, game, step, dfens):
    expr = ("(() => { const b = document.getElementById('board');"
            f" return !!b && b.dataset.step === '{step}' && b.dataset.ready === 'true'; }})()")
    browser.wait_for(expr, f"step {step}")
    shown = browser.eval(SHOWN)
    version = int(shown["version"])
    if shown["hash"] != f"#{step}":
        raise Failed(f"step {step}: the URL hash is {shown['hash']!r}")
    if not shown["loaded"]:
        raise Failed(f"step {step}: the board picture did not load ({shown['src']})")
    if not shown["src"].endswith(f"/v1/games/{game}/board.svg?at={version}"):
        raise Failed(f"step {step}: the picture is {shown['src']}, not at={version}")
    if version not in dfens:
        dfens[version] = get_json(f"{base}/v1/games/{game}/state?at={version}")["dfen"]
    if shown["dfen"] != dfens[version]:
        raise Failed(f"step {step}: the page shows {shown['dfen']!r}, "
                     f"state?at={version} says {dfens[version]!r}")
    return shown


def post_json(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def explored(browser, tried):
    expr = ("(() => { const b = document.getElementById('board');"
            f" return b.dataset.explore === '{tried}' && b.dataset.ready === 'true'; }})()")
    browser.wait_for(expr, f"the explored position after {tried} moves")
    return browser.eval(
        "(() => { const b = document.getElementById('board');"
        " return {dfen: b.dataset.dfen, src: b.src, loaded: b.naturalWidth > 0,"
        " options: Array.from(document.querySelectorAll('#explore-move option')).map(o => o.value),"
        " line: document.querySelectorAll('#explore-line li').length,"
        " status: document.getElementById('status').textContent}; })()")


def check_explore(browser, base, step, dfen):
    """"Explore from here" at `step` (whose position is `dfen`): the legal moves offered are
    the API's, playing one (by keyboard) shows the position the API gives after it, taking
    it back and leaving return to the game's step; axe-clean while exploring."""
    page = browser.first
    browser.wait_for("!document.getElementById('explore-start').disabled", "the explore button")
    page.press_enter("#explore-start")
    shown = explored(browser, 0)
    query = urllib.parse.urlencode({"dfen": dfen, "limit": 2000})
    moves = [m["text"] for m in get_json(f"{base}/v1/positions/legal-moves?{query}")["moves"]]
    if shown["dfen"] != dfen or shown["options"] != moves or not shown["loaded"]:
        raise Failed(f"exploring from step {step}: {shown}, the API's moves are {moves}")
    choice = moves[len(moves) // 2]
    after = post_json(f"{base}/v1/positions/play", {"dfen": dfen, "move": choice})["dfen"]
    page.eval(f"document.getElementById('explore-move').value = {json.dumps(choice)}")
    page.press_enter("#explore-play")
    shown = explored(browser, 1)
    if shown["dfen"] != after or shown["line"] != 1 or "/v1/positions/board.svg?" not in shown["src"]:
        raise Failed(f"after {choice}: {shown}, the API says {after}")
    if not shown["loaded"]:
        raise Failed(f"the explored position's picture did not load: {shown['src']}")
    page.check_axe("the replay page while exploring")
    page.press_enter("#explore-back")
    shown = explored(browser, 0)
    if shown["dfen"] != dfen or shown["line"] != 0:
        raise Failed(f"taken back: {shown}")
    page.press_enter("#explore-leave")
    browser.wait_for("(() => { const b = document.getElementById('board');"
                     f" return !('explore' in b.dataset) && b.dataset.step === '{step}'"
                     " && b.dataset.ready === 'true' && document.getElementById('explore-panel').hidden; })()",
                     "back to the game")
    print(f"explore: {len(moves)} moves offered at step {step}; {choice} played and taken back")


def check_waiting(browser, base, game):
    """The replay page of a game waiting for players says it has not started."""
    browser.navigate(f"{base}/games/{game}")
    browser.wait_for("(() => { const b = document.getElementById('board');"
                     " return !!b && b.dataset.ready === 'true'; })()", "the waiting game's page")
    shown = browser.eval(
        "({status: document.getElementById('status').textContent,"
        " caption: document.getElementById('position-caption').textContent,"
        " state: document.getElementById('board').dataset.status,"
        " loaded: document.getElementById('board').naturalWidth > 0})")
    text = f"{shown['status']} {shown['caption']}"
    if shown["state"] != "open" or not shown["loaded"]:
        raise Failed(f"the waiting game's page: {shown}")
    if "Game over" in text or "to move" in text or "The starting position" in text:
        raise Failed(f"the page of a game waiting for players says: {text!r}")
    if "has not started" not in shown["status"] or "waiting for players" not in shown["status"]:
        raise Failed(f"the page does not say the game waits for players: {text!r}")
    browser.first.check_axe("the replay page of a game waiting for players")
    browser.first.check_console()
    print(f"waiting game: {text}")


def run(base, game, outdir, chromium, timeout, waiting=None):
    os.makedirs(outdir, exist_ok=True)
    actions = expected_labels(base, game)
    page_url = f"{base}/games/{game}"
    browser = Browser(chromium, timeout)
    dfens = {}
    try:
        browser.navigate(page_url)
        last = len(actions)
        shown = check_step(browser, base, game, last, dfens)
        if int(shown["steps"]) != last or shown["items"] != last + 1:
            raise Failed(f"the page lists {shown['items']} steps (data-steps "
                         f"{shown['steps']}), the events give {last} actions and the start")
        page = browser.first
        # The engine's analysis, when the game has one: each judged move of its section is
        # marked beside the move in the list (issue 37).
        marks = browser.eval(
            "(() => ({judged: document.querySelectorAll('#analysis-judged li').length,"
            " marks: document.querySelectorAll('#move-list .judgement').length,"
            " curve: !!document.querySelector('svg.analysis-curve')}))()")
        if marks["judged"] != marks["marks"]:
            raise Failed(f"{marks['judged']} judged moves, {marks['marks']} marked in the list")
        print(f"analysis: curve {marks['curve']}, {marks['marks']} judged moves marked")
        page.check_axe("the replay page at the last step")
        page.check_console()
        browser.key("Home", "Home", 36)
        shown = check_step(browser, base, game, 0, dfens)
        page.check_axe("the replay page at the start")
        browser.screenshot(os.path.join(outdir, "replay-start.png"))
        for step in range(1, last + 1):
            if step % 2:
                browser.key("ArrowRight", "ArrowRight", 39)
            else:
                browser.click("#next")
            shown = check_step(browser, base, game, step, dfens)
            seq, _ = actions[step - 1]
            if int(shown["version"]) != seq:
                raise Failed(f"step {step} draws version {shown['version']}, "
                             f"the action is event {seq}")
            print(f"step {step}/{last}: v{seq} {shown['current']!s:<24} {shown['dfen']}")
        browser.screenshot(os.path.join(outdir, "replay.png"))
        if last > 0:
            browser.key("ArrowLeft", "ArrowLeft", 37)
            check_step(browser, base, game, last - 1, dfens)
            browser.key("End", "End", 35)
            check_step(browser, base, game, last, dfens)
            browser.click("#first")
            check_step(browser, base, game, 0, dfens)
            # A changed hash moves the page; a page opened with a hash starts there.
            middle = last // 2
            browser.navigate(f"{page_url}#{middle}")
            check_step(browser, base, game, middle, dfens)
            browser.navigate("about:blank")
            browser.wait_for("location.href === 'about:blank'", "a blank page")
            browser.navigate(f"{page_url}#{middle + 1}")
            shown = check_step(browser, base, game, middle + 1, dfens)
            check_explore(browser, base, middle + 1, shown["dfen"])
            check_step(browser, base, game, middle + 1, dfens)
        # A phone: nothing wider than the screen, the board and the controls visible.
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        browser.navigate(f"{page_url}#{last}")
        check_step(browser, base, game, last, dfens)
        layout = browser.eval(
            "(() => { const r = id => document.getElementById(id).getBoundingClientRect();"
            " return {overflow: document.documentElement.scrollWidth - window.innerWidth,"
            " board: r('board').width, next: r('next').bottom, height: window.innerHeight}; })()")
        if layout["overflow"] > 0 or not 250 <= layout["board"] <= 390:
            raise Failed(f"the page does not fit a phone's width: {layout}")
        if layout["next"] > 2 * layout["height"]:
            raise Failed(f"the controls are far below the board on a phone: {layout}")
        browser.screenshot(os.path.join(outdir, "replay-phone.png"))
        page.check_axe("the replay page on a phone")
        page.check_console()
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        # The HTML 404 page: accessible, and no error logged but its own 404.
        missing = f"{base}/games/00000000-0000-0000-0000-000000000000"
        browser.navigate(missing)
        browser.wait_for("document.readyState === 'complete' && !!document.getElementById('not-found')",
                         "the 404 page")
        page.check_axe("the 404 page")
        page.check_console(allowed=[re.escape(missing) + r" .*status of 404"])
        if waiting:
            check_waiting(browser, base, waiting)
    finally:
        browser.close()
    print(f"ok: {len(actions)} actions stepped through in Chromium; screenshots in {outdir}")


def main():
    parser = argparse.ArgumentParser(
        description="Step through a game's replay page in headless Chromium.")
    parser.add_argument("base_url", help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("game_id")
    parser.add_argument("outdir", help="where to write replay.png and replay-start.png")
    parser.add_argument("--waiting", metavar="GAME_ID",
                        help="also check the replay page of this game waiting for players")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"replay_test: {args.chromium} not found; run scripts/ensure-chromium.sh",
              file=sys.stderr)
        return 2
    try:
        get_json(f"{args.base_url.rstrip('/')}/v1/games/{args.game_id}/events?limit=1")
    except Exception as error:  # noqa: BLE001 - any failure here means no usable server
        print(f"replay_test: cannot read the game's events: {error}", file=sys.stderr)
        return 2
    try:
        run(args.base_url.rstrip("/"), args.game_id, args.outdir, chromium, args.timeout,
            args.waiting)
    except Failed as error:
        print(f"replay_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
