#!/usr/bin/env python3
"""A newcomer's first ten minutes, in a real headless Chromium.

    newcomer_test.py BASE_URL OUTDIR --game ID --token TOKEN --move TEXT --lessons JSON
                     [--chromium PATH] [--timeout SECONDS]

GAME is a public game under way, TOKEN the access token of its seat to move and TEXT a
legal move of that seat; JSON the lessons as `[{"id", "example", "wrong"}]` (a right
answer and a legal wrong one, from the server's own lesson data). Standard library only
(see cdp.py). What it checks, signed out first:
  1. `/` is the welcome page: the live games list shows GAME's board; when TEXT is played
     (through the API, beside the page) the board follows by itself (its event stream);
     the leaderboard's top and both buttons are there; axe-core (WCAG 2.1 A and AA);
  2. Enter on "learn the rules" opens `/rules`: every section has its picture (each
     loads as an SVG), the contents link to every section; axe;
  3. `/learn`: each lesson by keyboard (Tab to the field, type, Enter): first an
     unreadable text, then the wrong try (a legal move: "legal but not the task" and the
     hint shows), then, for the first lesson, an illegal move (the engine's refusal shown),
     then the right answer (done, progress counted); after a reload the progress is still
     there (localStorage); axe on a lesson with its hint and on the finished page;
  4. "sign up and play against the computer": the sign-up form with the level, the game
     against three computer players opens at once; the first-game note points at the
     rules; a click on a piece highlights where it may go; the first move is played with
     clicks and Confirm, and the computer players answer; axe on the page and the note;
  5. no page logs an error in its console but the refusals provoked on purpose.
Screenshots: OUTDIR/welcome.png, rules.png, learn.png, first-game.png.
Exit status 0 when every check passes, 1 on a failed check, 2 when the browser cannot be
used.
"""

import argparse
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402 - the shared driver, beside this file

READY = "document.readyState === 'complete'"
PASSWORD = "correct horse battery staple 1975"
# The refusals this test provokes on purpose (the page logs them as failed loads).
REFUSED = r"/v1/positions/play .*status of 4(00|22)"


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


def active_id(page):
    return page.eval("document.activeElement && document.activeElement.id")


def tab_to(page, element_id, most=40):
    """Presses Tab until `element_id` has the focus (fails after `most` presses)."""
    for _ in range(most):
        if active_id(page) == element_id:
            return
        page.key("Tab", "Tab", 9)
    raise Failed(f"Tab never reaches #{element_id} (at #{active_id(page)})")


def wait_page(page, name, path_prefix):
    page.wait_for(f"{READY} && document.body && document.body.dataset.page === {json.dumps(name)}"
                  f" && location.pathname.startsWith({json.dumps(path_prefix)})", f"the {name} page")


def fill(page, selector, text):
    page.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
              " e.focus(); e.select && e.select(); })()")
    page.call("Input.insertText", {"text": text})


def welcome(page, base, game, token, move):
    page.navigate(f"{base}/")
    wait_page(page, "welcome", "/")
    item = f"#live-games li[data-game-id={json.dumps(game)}]"
    page.wait_for(f"!!document.querySelector({json.dumps(item + ' img')})"
                  f" && document.querySelector({json.dumps(item + ' img')}).complete"
                  f" && document.querySelector({json.dumps(item + ' img')}).naturalWidth > 0",
                  "the live game's board on the welcome page")
    page.wait_for("!!document.querySelector('#top-players li')", "the leaderboard's top")
    for needed in ["#welcome-learn[href='/rules']", "#welcome-play[href='/signup?play=1']",
                   "#login-form", "#login-forgot", "nav a[href='/rules']"]:
        if not page.eval(f"!!document.querySelector({json.dumps(needed)})"):
            raise Failed(f"the welcome page has no {needed}")
    page.check_axe("the welcome page")
    page.screenshot(os.path.join(os.environ["NEWCOMER_OUT"], "welcome.png"))
    before = int(page.eval(f"document.querySelector({json.dumps(item + ' img')}).dataset.version"))
    status, answer = http("POST", f"{base}/v1/games/{game}/moves",
                          {"move": move, "expected_version": before}, token)
    if status not in (200, 201):
        raise Failed(f"the move {move} beside the page: {status} {answer}")
    page.wait_for(f"(() => {{ const i = document.querySelector({json.dumps(item + ' img')});"
                  f" return parseInt(i.dataset.version, 10) > {before} && i.complete && i.naturalWidth > 0"
                  f" && i.src.includes('at=' + i.dataset.version); }})()",
                  "the live board to follow the move")
    page.check_console()


def rules(page, base):
    page.press_enter("#welcome-learn")
    wait_page(page, "rules", "/rules")
    sections = page.eval("Array.from(document.querySelectorAll('section.rule')).map(s => s.id)")
    if len(sections) < 15:
        raise Failed(f"the rules page has only {len(sections)} sections: {sections}")
    links = page.eval("Array.from(document.querySelectorAll('nav.toc a')).map(a => a.hash.slice(1))")
    if links != sections:
        raise Failed(f"the contents {links} do not list the sections {sections}")
    # Each picture is an SVG drawn by the server (fetched by the page, as the browser would).
    bad = page.eval("Promise.all(Array.from(document.querySelectorAll('section.rule img')).map(i =>"
                    " fetch(i.src).then(r => r.ok && r.headers.get('content-type').startsWith('image/svg+xml')"
                    " && i.alt.length > 20 ? null : i.src))).then(l => l.filter(Boolean))")
    if bad:
        raise Failed(f"pictures that do not load or lack a text: {bad}")
    page.eval("Array.from(document.querySelectorAll('img')).forEach(i => i.loading = 'eager'); true")
    page.wait_for("Array.from(document.querySelectorAll('section.rule img')).every(i => i.complete && i.naturalWidth > 0)",
                  "every picture of the rules")
    page.check_axe("the rules page")
    page.screenshot(os.path.join(os.environ["NEWCOMER_OUT"], "rules.png"))
    page.check_console()


def answer(page, lesson, text):
    """Types `text` in the lesson's field (reached with Tab) and sends it with Enter."""
    field = f"lesson-{lesson}-move"
    page.eval(f"document.getElementById('{field}').value = ''; true")
    # From the lesson's heading, Tab reaches its field.
    page.eval(f"(() => {{ const h = document.getElementById('lesson-{lesson}-title');"
              " h.tabIndex = -1; h.focus(); return true; })()")
    tab_to(page, field)
    page.type_text(text)
    page.eval(f"document.getElementById('lesson-{lesson}-result').textContent = ''; true")
    page.press_enter(f"#{field}")


def wait_result(page, lesson, kind, what):
    page.wait_for(f"(() => {{ const r = document.getElementById('lesson-{lesson}-result');"
                  f" return r.classList.contains('{kind}') && r.textContent.length > 0; }})()", what)
    return page.eval(f"document.getElementById('lesson-{lesson}-result').textContent")


def learn(page, base, lessons):
    page.navigate(f"{base}/learn")
    wait_page(page, "learn", "/learn")
    page.eval("localStorage.clear(); true")
    page.navigate(f"{base}/learn")
    wait_page(page, "learn", "/learn")
    page.check_axe("the lessons page")
    shown = page.eval("Array.from(document.querySelectorAll('section.lesson')).map(s => s.dataset.lesson)")
    if shown != [l["id"] for l in lessons]:
        raise Failed(f"the page shows the lessons {shown}, the server's data says {lessons}")
    for n, l in enumerate(lessons):
        lesson = l["id"]
        answer(page, lesson, "nonsense")
        wait_result(page, lesson, "bad", f"{lesson}: the unreadable text refused")
        answer(page, lesson, l["wrong"])
        said = wait_result(page, lesson, "bad", f"{lesson}: the wrong try refused")
        if l["wrong"] not in said:
            raise Failed(f"{lesson}: the wrong try's message does not name it: {said!r}")
        if page.eval(f"document.getElementById('lesson-{lesson}-hint').hidden"):
            raise Failed(f"{lesson}: no hint after a wrong try")
        if n == 0:
            # A move the engine refuses (a Green piece: not Red's): its reason is shown.
            answer(page, lesson, "A1-A2")
            said = wait_result(page, lesson, "bad", f"{lesson}: the illegal move refused")
            if "A1-A2" not in said:
                raise Failed(f"{lesson}: the illegal move's message: {said!r}")
            page.check_axe("a lesson with its hint and an error")
        answer(page, lesson, l["example"])
        wait_result(page, lesson, "good", f"{lesson}: the right answer accepted")
        page.wait_for(f"document.getElementById('learn-progress').textContent.includes('{n + 1}')",
                      f"the progress after {lesson}")
    total = len(lessons)
    page.navigate(f"{base}/learn")
    wait_page(page, "learn", "/learn")
    page.wait_for(f"document.querySelectorAll('section.lesson.finished').length === {total}",
                  "every lesson still done after a reload (localStorage)")
    page.check_axe("the lessons page, every lesson done")
    page.screenshot(os.path.join(os.environ["NEWCOMER_OUT"], "learn.png"))
    page.check_console(allowed=[REFUSED])


def play_now(page, base, timeout):
    page.press_enter("#learn-play")
    wait_page(page, "signup", "/signup")
    if not page.eval("!!document.getElementById('playnow-level')"):
        raise Failed("the sign-up page of 'play now' has no level to choose")
    page.check_axe("the sign-up page of 'play now'")
    name = f"newbie{int(time.time()) % 100000}"
    fill(page, "#signup-username", name)
    fill(page, "#signup-email", f"{name}@example.org")
    fill(page, "#signup-password", PASSWORD)
    page.eval("document.getElementById('playnow-level').value = '1'; true")
    page.click("#signup-submit")
    wait_page(page, "play", "/play/")
    game = page.eval("location.pathname.split('/')[2]")
    page.wait_for("!!document.getElementById('first-game') &&"
                  " !!document.querySelector('#first-game a[href=\"/rules\"]')", "the first-game note")
    page.wait_for("document.querySelectorAll('#squares button.sq.movable').length > 0",
                  "the pieces Red may move")
    page.check_axe("the first game page")
    status, summary = http("GET", f"{base}/v1/games/{game}")
    if status != 200 or summary.get("status") != "active":
        raise Failed(f"the new game is not under way: {status} {summary}")
    page.click('#squares [data-square="C8"]')
    page.wait_for("document.querySelector('#squares [data-square=\"D7\"]').classList.contains('target')",
                  "the squares the clicked militant may go to")
    targets = page.eval("Array.from(document.querySelectorAll('#squares .sq.target')).map(b => b.dataset.square).sort()")
    if "D7" not in targets or "C8" in targets:
        raise Failed(f"the targets of C8: {targets}")
    page.screenshot(os.path.join(os.environ["NEWCOMER_OUT"], "first-game.png"))
    page.click('#squares [data-square="D7"]')
    page.wait_for("!document.getElementById('confirm').disabled", "the move to confirm")
    page.click("#confirm")
    deadline = time.time() + timeout
    while time.time() < deadline:
        _, state = http("GET", f"{base}/v1/games/{game}/state")
        if state.get("ply", 0) >= 4:
            break
        time.sleep(0.2)
    else:
        raise Failed(f"the computer players did not answer the first move: {state}")
    page.click("#first-game-close")
    page.wait_for("!document.getElementById('first-game')", "the note closed")
    page.check_console()


def run(base, outdir, args, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    os.environ["NEWCOMER_OUT"] = outdir
    lessons = json.loads(args.lessons)
    browser = Browser(chromium, timeout)
    try:
        page = browser.new_page()
        welcome(page, base, args.game, args.token, args.move)
        rules(page, base)
        learn(page, base, lessons)
        play_now(page, base, timeout)
    finally:
        browser.close()
    print(f"ok: a newcomer watched a live game, read the rules, did {len(lessons)} lessons and"
          f" played a first move against the computer; screenshots in {outdir}")


def main():
    parser = argparse.ArgumentParser(description="A newcomer's first pages in headless Chromium.")
    parser.add_argument("base_url")
    parser.add_argument("outdir")
    parser.add_argument("--game", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--move", required=True)
    parser.add_argument("--lessons", required=True)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"newcomer_test: {args.chromium} not found; run scripts/ensure-chromium.sh",
              file=sys.stderr)
        return 2
    try:
        run(args.base_url.rstrip("/"), args.outdir, args, chromium, args.timeout)
    except Failed as error:
        print(f"newcomer_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
