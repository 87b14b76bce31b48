#!/usr/bin/env python3
"""Drives the replay page (GET /games/{id}) in a real headless Chromium.

    replay_test.py BASE_URL GAME_ID OUTDIR [--chromium PATH] [--timeout SECONDS]

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
  4. on a phone-sized screen (390 px) the page fits the width;
  5. it saves OUTDIR/replay.png (the page at the last step), OUTDIR/replay-start.png and
     OUTDIR/replay-phone.png.

Exit status 0 when every check passes, 1 on a failed check, 2 when the browser or the
server cannot be used.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


class Failed(Exception):
    pass


class Browser:
    """A headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, chromium, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="replay-test-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [
            chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions",
            "--hide-scrollbars", "--mute-audio", f"--user-data-dir={self.profile}",
            "--window-size=1100,900", "about:blank",
        ]
        # The protocol's pipe is read from fd 3 and written to fd 4.
        script = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        self.proc = subprocess.Popen(
            ["bash", "-c", script, *args],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + self.timeout
        while True:
            while b"\0" not in self.buffer:
                if time.time() > deadline:
                    raise Failed(f"no answer to {method} in {self.timeout} s")
                chunk = os.read(self.from_browser, 65536)
                if not chunk:
                    raise Failed(f"the browser closed the pipe: {self.stderr_tail()}")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise Failed(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if answer.get("method") == "Runtime.exceptionThrown":
                details = answer["params"]["exceptionDetails"]
                raise Failed(f"a script error on the page: {json.dumps(details)[:500]}")

    def stderr_tail(self):
        try:
            self.proc.kill()
            return self.proc.stderr.read().decode(errors="replace")[-2000:]
        except Exception:  # noqa: BLE001 - best effort, for the message only
            return ""

    def eval(self, expression):
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise Failed(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what):
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            if self.eval(expression):
                return
            time.sleep(0.05)
        raise Failed(f"timed out waiting for {what}; status: {self.eval(STATUS)!r}")

    def navigate(self, url):
        self.call("Page.navigate", {"url": url})

    def key(self, key, code, key_code):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {
                "type": kind, "key": key, "code": code,
                "windowsVirtualKeyCode": key_code, "nativeVirtualKeyCode": key_code})

    def click(self, selector):
        box = self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {
                "type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except Failed:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


STATUS = "document.getElementById('status') && document.getElementById('status').textContent"
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


def run(base, game, outdir, chromium, timeout):
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
        browser.key("Home", "Home", 36)
        shown = check_step(browser, base, game, 0, dfens)
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
    finally:
        browser.close()
    print(f"ok: {len(actions)} actions stepped through in Chromium; screenshots in {outdir}")


def main():
    parser = argparse.ArgumentParser(
        description="Step through a game's replay page in headless Chromium.")
    parser.add_argument("base_url", help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("game_id")
    parser.add_argument("outdir", help="where to write replay.png and replay-start.png")
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
        run(args.base_url.rstrip("/"), args.game_id, args.outdir, chromium, args.timeout)
    except Failed as error:
        print(f"replay_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
