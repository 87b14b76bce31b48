#!/usr/bin/env python3
"""Conditional moves on the game page (issue 36) in headless Chromium.

    conditional_test.py BASE_URL OUTDIR [--chromium PATH] [--timeout S]

Red and Blue sign up in isolated sessions; Red creates a game through the API with
computer players on Yellow and Green, Blue takes its seat, Red plays a first move: it is
Blue's turn, and Blue waits. Red opens /play/{id} with its event stream off (?live=0, so
the last step can find the page stale) and, in the "Conditional moves" panel:

- enters a line by keyboard only (Enter on "Enter a new line", on the squares of each
  expected move of Blue, Yellow and Green, on Confirm, then on the squares of the
  answer, Confirm and "Add this line"), and a second line, differing in Green's move,
  by mouse; the board shows the line's position as it grows (its DFEN is the one
  POST /v1/positions/play gives); "Save the lines" stores them: GET conditional-moves
  holds exactly those two lines;
- enters a third line, the first's rivals' moves with another answer typed in the text
  box: the server's 400 is shown in plain words naming line 3 and move 4, nothing
  stored changes;
- prunes that line, then the second line (its last move's "Remove"), saves: the API
  holds the first line only; prunes the whole branch from Blue's move, saves: the API
  holds none;
- in French (the account's language changed through the API) the panel speaks French;
  a tree stored through the API is shown by the page, "Delete all" deletes it;
- enters a line again, Blue moves meanwhile (through the API), Save: the 412 is shown
  in plain words and nothing is stored.

axe-core (WCAG 2.1 A and AA) runs on the page with the panel, while entering a line, with
the stored tree, and in French; no console error but the two refusals provoked.
Screenshots: OUTDIR/conditional-entering.png, conditional.png, conditional-phone.png
(where the panel must fit the screen), conditional-fr.png.
Exit status 0 pass, 1 a check failed, 2 no browser or no server. Standard library only.
"""

import json
import os
import secrets
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402
from play_test import Player, browser_test_main, http, login_token as token  # noqa: E402

REFUSED = r"/v1/games/[0-9a-f-]+/seats/R/conditional-moves .*status of 400"
STALE = r"/v1/games/[0-9a-f-]+/seats/R/conditional-moves .*status of 412"
MESSAGE = "document.getElementById('message').textContent"
BOARD = "document.getElementById('board')"


def ok(status, body, what, want=(200,)):
    if status not in want:
        raise Failed(f"{what}: {status} {body}")
    return body


def position_moves(base, dfen, ruleset):
    q = urllib.parse.urlencode({"dfen": dfen, "ruleset": ruleset, "limit": 2000})
    return ok(*http("GET", f"{base}/v1/positions/legal-moves?{q}"), "legal moves")


def simple(page):
    """The moves that need no choice beyond the piece and its square, one per pair."""
    pairs = {}
    for m in page["moves"]:
        pairs.setdefault((m["move"]["from"], m["move"]["to"]), []).append(m)
    return [ms[0] for ms in pairs.values()
            if len(ms) == 1 and not any(ms[0]["move"].get(k) for k in ("victim", "exit", "place"))]


def plan_line(base, dfen, ruleset, avoid=None):
    """Plies from `dfen` until Red's answer included, each (seat, text, from, to, dfen
    after); at the ply where `avoid` (index, text) says, another move than that."""
    plies = []
    for i in range(12):
        page = position_moves(base, dfen, ruleset)
        seat = page["turn"]["seat"]
        moves = simple(page)
        if avoid and avoid[0] == i:
            moves = [m for m in moves if m["text"] != avoid[1]]
        if not moves:
            raise Failed(f"no simple move for {seat} in {dfen}")
        m = moves[len(moves) // 2]
        played = ok(*http("POST", f"{base}/v1/positions/play", {"dfen": dfen, "ruleset": ruleset, "move": m["text"]}),
                    "play on a position")
        plies.append({"seat": seat, "text": m["text"], "from": m["move"]["from"], "to": m["move"]["to"],
                      "before": dfen, "after": played["dfen"]})
        dfen = played["dfen"]
        if seat == "R":
            return plies
    raise Failed("no line reaches Red's turn")


def text_of(plies):
    return " ".join(f"{p['seat']} {p['text']}" for p in plies)


def stored(base, gid, tok):
    body = ok(*http("GET", f"{base}/v1/games/{gid}/seats/R/conditional-moves", token=tok), "GET conditional-moves")
    return sorted(body["lines"])


def wait_position(page, dfen, what):
    page.wait_for(f"{BOARD}.dataset.ready === 'true' && {BOARD}.dataset.dfen === {json.dumps(dfen)} &&"
                  f" {BOARD}.dataset.current === 'false'", what)


def sq(name):
    return f"#squares [data-square=\"{name}\"]"


def enter_ply(page, ply, how):
    """One ply on the board: the piece, its square, Confirm (by `how`: keyboard or mouse)."""
    wait_position(page, ply["before"], f"the position before {ply['seat']} {ply['text']}")
    page.wait_for(f"document.querySelector({json.dumps(sq(ply['from']))}).classList.contains('movable')",
                  f"{ply['from']} movable for {ply['seat']}")
    act = page.press_enter if how == "keyboard" else page.click
    act(sq(ply["from"]))
    page.wait_for(f"document.querySelector({json.dumps(sq(ply['to']))}).classList.contains('target')",
                  f"{ply['to']} a target")
    act(sq(ply["to"]))
    page.wait_for("!document.getElementById('confirm').disabled", "Confirm enabled")
    act("#confirm")
    wait_position(page, ply["after"], f"the position after {ply['seat']} {ply['text']}")


def wait_tree(page, lines, what):
    want = json.dumps(json.dumps(sorted(lines), separators=(",", ":")))
    try:
        page.wait_for("JSON.stringify(Array.from(document.querySelectorAll('#cond-tree li'))"
                      ".filter(li => !li.querySelector('li')).map(li => li.dataset.path).sort()) === " + want, what)
    except Failed as error:
        raise Failed(f"{error}; the panel: {page.eval('document.getElementById(' + json.dumps('cond') + ').outerHTML')};"
                     f" the message: {page.eval(MESSAGE)!r}") from None


def save(page, what):
    page.wait_for("!document.getElementById('cond-save').disabled", "Save enabled")
    page.eval("document.getElementById('message').textContent = ''; true")
    page.press_enter("#cond-save")
    page.wait_for(f"{MESSAGE}.length > 0 && document.getElementById('cond-save').disabled ||"
                  f" document.getElementById('message').classList.contains('error')", what)


def run(base, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    browser = Browser(chromium, timeout)
    tag = secrets.token_hex(3)
    try:
        red, blue = Player(browser, "R", base, tag), Player(browser, "B", base, tag)
        red.sign_up()
        blue.sign_up()
        red_tok, blue_tok = token(base, red.username), token(base, blue.username)
        game = ok(*http("POST", f"{base}/v1/games", {
            "seats": 4, "seat": "R", "bots": [{"seat": "Y", "level": 1}, {"seat": "G", "level": 1}]},
            token=red_tok), "create", (201,))
        gid = game["id"]
        ok(*http("POST", f"{base}/v1/games/{gid}/seats/B", {}, token=blue_tok), "take seat")
        moves = ok(*http("GET", f"{base}/v1/games/{gid}/legal-moves", token=red_tok), "Red's legal moves")
        state = ok(*http("GET", f"{base}/v1/games/{gid}/state"), "state")
        ok(*http("POST", f"{base}/v1/games/{gid}/moves",
                 {"move": moves["moves"][0]["text"], "expected_version": state["version"]}, token=red_tok),
           "Red's first move", (200, 201))
        state = ok(*http("GET", f"{base}/v1/games/{gid}/state"), "state")
        if state["turn"]["seat"] != "B":
            raise Failed(f"Blue is not to move: {state['turn']}")
        dfen, ruleset = state["dfen"], state.get("ruleset", "")
        line1 = plan_line(base, dfen, ruleset)
        line2 = line1[:2] + plan_line(base, line1[2]["before"], ruleset, avoid=(0, line1[2]["text"]))
        line3 = line1[:3] + plan_line(base, line1[3]["before"], ruleset, avoid=(0, line1[3]["text"]))
        print(f"lines: {text_of(line1)} | {text_of(line2)} | {text_of(line3)}")

        page = red.page
        page.navigate(f"{base}/play/{gid}?live=0")
        red.wait_page("play", "/play/")
        page.wait_for("document.getElementById('cond').dataset.ready === 'true' && !document.getElementById('cond').hidden",
                      "the conditional moves panel")
        summary = page.eval("document.getElementById('cond-summary').textContent")
        if "No conditional moves" not in summary:
            raise Failed(f"the empty tree is not said: {summary!r}")
        page.check_axe("the game page with the conditional moves panel")

        # Line 1, by keyboard only.
        page.press_enter("#cond-new")
        page.wait_for("!document.getElementById('cond-compose').hidden", "the line being entered")
        for i, ply in enumerate(line1):
            enter_ply(page, ply, "keyboard")
            if i == 1:
                page.check_axe("the game page while entering a line")
                page.screenshot(os.path.join(outdir, "conditional-entering.png"))
        page.wait_for("!document.getElementById('cond-add').disabled && document.activeElement.id === 'cond-add'",
                      "Add this line, focused after the answer")
        prompt = page.eval("document.getElementById('choice-prompt').textContent")
        if "Or add the line as it stands" not in prompt:
            raise Failed(f"after the answer the prompt does not offer to add the line: {prompt!r}")
        page.press_enter("#cond-add")
        wait_tree(page, [text_of(line1)], "line 1 in the tree")

        # Line 2, by mouse.
        page.click("#cond-new")
        for ply in line2:
            enter_ply(page, ply, "mouse")
        page.click("#cond-add")
        wait_tree(page, [text_of(line1), text_of(line2)], "both lines in the tree")
        save(page, "the lines saved")
        if "error" in page.eval("document.getElementById('message').className"):
            raise Failed(f"saving failed: {page.eval(MESSAGE)}")
        got = stored(base, gid, red_tok)
        if got != sorted([text_of(line1), text_of(line2)]):
            raise Failed(f"the API's tree is not the two lines entered: {got}")
        print(f"saved, the API holds: {got}")
        page.check_axe("the game page with a stored tree")
        page.eval("document.getElementById('cond').scrollIntoView(); true")
        page.screenshot(os.path.join(outdir, "conditional.png"))
        # On a phone the panel and its tree fit the screen.
        page.resize(390, 844, mobile=True, scale=2)
        try:
            page.wait_for("window.innerWidth === 390", "the phone's width")
            fits = page.eval("(() => { const r = e => document.querySelector(e).getBoundingClientRect();"
                             " const p = r('#cond'); let right = p.right;"
                             " document.querySelectorAll('#cond-tree button').forEach(b => {"
                             " right = Math.max(right, b.getBoundingClientRect().right); });"
                             " return p.width > 0 && right <= window.innerWidth + 1; })()")
            if not fits:
                raise Failed("the conditional moves panel does not fit a phone's screen")
            page.check_axe("the conditional moves panel on a phone")
            page.eval("document.getElementById('cond').scrollIntoView(); true")
            page.screenshot(os.path.join(outdir, "conditional-phone.png"))
        finally:
            page.resize(1100, 900)

        # Line 3 answers otherwise where line 1 answers: the server's 400 in plain words.
        page.press_enter("#cond-new")
        for ply in line3[:3]:
            enter_ply(page, ply, "keyboard")
        wait_position(page, line3[3]["before"], "the position of Red's answer")
        red.fill("#move-text", line3[3]["text"].lower())
        page.press_enter("#move-text")
        wait_position(page, line3[3]["after"], "the typed answer played on the line")
        page.press_enter("#cond-add")
        save(page, "the refusal")
        said = page.eval(MESSAGE)
        if "line 3, move 4 does not hold" not in said or "answers" not in said:
            raise Failed(f"the 400 is not said in plain words: {said!r}")
        print(f"refused: {said}")
        if stored(base, gid, red_tok) != sorted([text_of(line1), text_of(line2)]):
            raise Failed("a refused tree changed what is stored")

        # Prune line 3 and line 2 (each by its last move), save: line 1 only.
        for line in (line3, line2):
            page.press_enter(f"#cond-tree button.cond-prune[data-path={json.dumps(text_of(line))}]")
        wait_tree(page, [text_of(line1)], "line 1 alone in the tree")
        save(page, "the pruned tree saved")
        got = stored(base, gid, red_tok)
        if got != [text_of(line1)]:
            raise Failed(f"after pruning, the API holds {got}")
        # The whole branch from Blue's move: nothing left, deleted.
        page.click(f"#cond-tree button.cond-prune[data-path={json.dumps(text_of(line1[:1]))}]")
        page.wait_for("document.querySelectorAll('#cond-tree li').length === 0", "an empty tree")
        save(page, "the empty tree saved")
        got = stored(base, gid, red_tok)
        if got != []:
            raise Failed(f"after pruning the branch, the API holds {got}")
        print("pruned a line, then the branch: the API holds none")
        page.check_console(allowed=[REFUSED])

        # In French.
        ok(*http("PATCH", f"{base}/v1/me", {"language": "fr"}, token=red_tok), "French")
        page.navigate(f"{base}/play/{gid}?live=0")
        page.wait_for("document.documentElement.lang === 'fr' && document.getElementById('cond').dataset.ready === 'true'",
                      "the page in French")
        labels = page.eval("[document.getElementById('cond-title').textContent, document.getElementById('cond-new').textContent,"
                           " document.getElementById('cond-save').textContent, document.getElementById('cond-summary').textContent]")
        if labels != ["Coups conditionnels", "Saisir une nouvelle ligne", "Enregistrer les lignes",
                      "Aucun coup conditionnel enregistré."]:
            raise Failed(f"the panel in French says {labels}")
        # A tree stored through the API is loaded by the page, and "Delete all" deletes it.
        ok(*http("PUT", f"{base}/v1/games/{gid}/seats/R/conditional-moves",
                 {"lines": [text_of(line1)], "expected_version": state["version"]}, token=red_tok), "PUT a tree")
        page.navigate(f"{base}/play/{gid}?live=0")
        page.wait_for("document.documentElement.lang === 'fr' && document.getElementById('cond').dataset.ready === 'true'",
                      "the page in French again")
        wait_tree(page, [text_of(line1)], "the tree stored through the API, loaded")
        loaded = page.eval("[document.getElementById('cond-summary').textContent,"
                           " document.getElementById('cond-clear').textContent, document.getElementById('cond-clear').hidden,"
                           " document.querySelector('#cond-tree li.answer .ply').textContent]")
        if loaded[:3] != ["Une ligne.", "Supprimer toutes les lignes enregistrées", False] or \
                not loaded[3].endswith("(votre réponse)"):
            raise Failed(f"the stored tree in French: {loaded}")
        page.press_enter("#cond-clear")
        page.wait_for("document.querySelectorAll('#cond-tree li').length === 0 &&"
                      " document.getElementById('cond-summary').textContent === 'Aucun coup conditionnel enregistré.'",
                      "the tree deleted")
        if stored(base, gid, red_tok) != []:
            raise Failed("Delete all left a tree")
        print("a tree stored through the API loaded by the page, deleted by Delete all")
        page.press_enter("#cond-new")
        enter_ply(page, line1[0], "keyboard")
        prompt = page.eval("document.getElementById('choice-prompt').textContent")
        if not prompt.startswith("Coup attendu de"):
            raise Failed(f"the French prompt says {prompt!r}")
        page.check_axe("the game page in French while entering a line")
        page.screenshot(os.path.join(outdir, "conditional-fr.png"))
        for ply in line1[1:]:
            enter_ply(page, ply, "keyboard")
        page.press_enter("#cond-add")
        wait_tree(page, [text_of(line1)], "the line again")

        # Blue moves meanwhile: the save is refused as stale, in plain words.
        ok(*http("POST", f"{base}/v1/games/{gid}/moves",
                 {"move": line2[0]["text"], "expected_version": state["version"]}, token=blue_tok),
           "Blue's move", (200, 201))
        save(page, "the stale refusal")
        said = page.eval(MESSAGE)
        if "La partie a avancé depuis la saisie de ces lignes" not in said:
            raise Failed(f"the 412 is not said in plain words: {said!r}")
        if stored(base, gid, red_tok) != []:
            raise Failed("a stale tree was stored")
        print(f"stale: {said}")
        page.check_console(allowed=[STALE])
        print(f"ok: conditional moves entered, saved, pruned in game {gid}")
    finally:
        browser.close()


def main():
    return browser_test_main("conditional_test", "Conditional moves on the game page in headless Chromium.",
                             lambda base, args, chromium: run(base, args.outdir, chromium, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
