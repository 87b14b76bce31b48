#!/usr/bin/env python3
"""The table-talk panel of the game page (issue 21) with two players in headless Chromium.

    talk_test.py BASE_URL OUTDIR [--chromium PATH] [--timeout S]

Red and Blue sign up in isolated sessions (separate cookie jars); Red creates a game
through the API with computer players on Yellow and Green, Blue takes its seat; both
open /play/{id}. Then, with real key and mouse events:

- Red writes to the table (typed, Enter sends): Blue's page shows it by itself;
- Red moves to the "Blue" conversation with the keyboard (arrow keys on the tabs) and
  writes privately: Blue's page shows an unread count of 1 on its "Red" tab, by itself;
  Blue opens it (a click): the message is there, the count gone;
- a text with markup is shown as text (no element made of it);
- each message is checked against GET /v1/games/{id}/messages of each player (Blue's
  private message is not in a spectator's list);
- the page with the panel passes axe-core (WCAG 2.1 A and AA), at a desktop and at a
  phone's width (where the form fits the screen), and logs no error in the console.

Screenshots: OUTDIR/talk.png, OUTDIR/talk-phone.png. Exit status 0 pass, 1 a check failed,
2 no browser or no server. Standard library only (see cdp.py).
"""

import os
import secrets
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402
from play_test import Player, browser_test_main, http, login_token as token  # noqa: E402

LOG = "document.getElementById('talk-log').textContent"


def messages(base, game, tok=None):
    status, body = http("GET", f"{base}/v1/games/{game}/messages?limit=100", token=tok)
    if status != 200:
        raise Failed(f"messages: {status} {body}")
    return [m["text"] for m in body["items"]]


def wait_talk(player):
    player.page.wait_for("document.getElementById('talk') &&"
                         " document.getElementById('talk').dataset.ready === 'true'", "the talk panel")


def unread_badge(page, thread):
    return page.eval(f"(() => {{ const b = document.querySelector('#talk-tabs [data-thread=\"{thread}\"]');"
                     " if (!b) return null; const u = b.querySelector('.talk-unread');"
                     " return u ? u.textContent : ''; })()")


def send_keyboard(player, text):
    player.fill("#talk-text", text)
    player.page.press_enter("#talk-text")


def run(base, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    browser = Browser(chromium, timeout)
    tag = secrets.token_hex(3)
    try:
        red, blue = Player(browser, "R", base, tag), Player(browser, "B", base, tag)
        red.sign_up()
        blue.sign_up()
        red_tok, blue_tok = token(base, red.username), token(base, blue.username)
        status, game = http("POST", f"{base}/v1/games", {
            "seats": 4, "seat": "R", "bots": [{"seat": "Y", "level": 1}, {"seat": "G", "level": 1}]},
            token=red_tok)
        if status != 201:
            raise Failed(f"create: {status} {game}")
        gid = game["id"]
        status, body = http("POST", f"{base}/v1/games/{gid}/seats/B", {}, token=blue_tok)
        if status != 200:
            raise Failed(f"take seat: {status} {body}")
        for p in (red, blue):
            p.page.navigate(f"{base}/play/{gid}")
            p.wait_page("play", "/play/")
            wait_talk(p)

        # To the table, with the keyboard: Blue's page shows it by itself.
        send_keyboard(red, "Shall we share Yellow's squares?")
        blue.page.wait_for(f"{LOG}.includes(\"Shall we share Yellow's squares?\")", "the table message at Blue's")
        red.page.wait_for("document.getElementById('talk-text').value === ''", "the form emptied")

        # Red goes to the Blue conversation with the arrow keys, writes privately.
        red.page.eval("document.querySelector('#talk-tabs [data-thread=\"table\"]').focus(); true")
        red.page.key("ArrowRight", "ArrowRight", 39)
        red.page.wait_for("document.activeElement && document.activeElement.dataset.thread === 'B' &&"
                          " document.activeElement.getAttribute('aria-selected') === 'true'", "the Blue tab selected")
        send_keyboard(red, "psst, Blue: <b>just us</b>")
        red.page.wait_for(f"{LOG}.includes('psst')", "the private message at Red's")
        blue.page.wait_for("(() => { const b = document.querySelector('#talk-tabs [data-thread=\"R\"] .talk-unread');"
                           " return b && b.textContent === '1'; })()", "an unread count on Blue's Red tab")
        if f"{blue.page.eval(LOG)}".count("psst"):
            raise Failed("the private message shows in Blue's table conversation")
        blue.page.click("#talk-tabs [data-thread=\"R\"]")
        blue.page.wait_for(f"{LOG}.includes('psst, Blue: <b>just us</b>')", "the private message at Blue's")
        if blue.page.eval("document.querySelectorAll('#talk-log b').length") != 0:
            raise Failed("markup in a message was rendered")
        if unread_badge(blue.page, "R") != "":
            raise Failed("the unread count stays after reading")
        blue.page.wait_for("document.getElementById('talk-text').getAttribute('placeholder').includes('Red')",
                           "the form addressed to Red")
        send_keyboard(blue, "Deal.")
        red.page.wait_for(f"{LOG}.includes('Deal.')", "Blue's answer at Red's, in the Blue conversation")

        # The API agrees: both players see all three, a spectator the table's only.
        want = ["Shall we share Yellow's squares?", "psst, Blue: <b>just us</b>", "Deal."]
        for who, tok in (("Red", red_tok), ("Blue", blue_tok)):
            if messages(base, gid, tok) != want:
                raise Failed(f"{who}'s list: {messages(base, gid, tok)}")
        if messages(base, gid) != want[:1]:
            raise Failed(f"a spectator's list: {messages(base, gid)}")

        red.page.check_axe("the game page with the table-talk panel")
        red.page.screenshot(os.path.join(outdir, "talk.png"))
        blue.page.resize(390, 844, mobile=True, scale=2)
        blue.page.wait_for("window.innerWidth === 390", "the phone's width")
        fits = blue.page.eval("(() => { const r = document.getElementById('talk-form').getBoundingClientRect();"
                              " return r.width > 0 && r.right <= window.innerWidth + 1; })()")
        if not fits:
            raise Failed("the talk form does not fit a phone's screen")
        blue.page.check_axe("the table-talk panel on a phone")
        blue.page.eval("document.getElementById('talk').scrollIntoView(); true")
        blue.page.screenshot(os.path.join(outdir, "talk-phone.png"))
        for p in (red, blue):
            p.page.check_console()
        print(f"ok: table talk between {red.username} and {blue.username} in game {gid}")
    finally:
        browser.close()


def main():
    return browser_test_main("talk_test", "The table-talk panel in headless Chromium.",
                             lambda base, args, chromium: run(base, args.outdir, chromium, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
