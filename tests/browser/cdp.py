"""A headless Chromium driven over the DevTools protocol, standard library only.

Shared by the browser tests (replay_test.py, play_test.py). Chromium is started with
`--remote-debugging-pipe`: the protocol is NUL-separated JSON on file descriptors 3 (to
the browser) and 4 (from it), so no WebDriver, no websockets, nothing to download.

    browser = Browser(chromium, timeout)       # a process, and a first page
    browser.navigate(url); browser.eval(js)    # the first page's methods, for short tests
    page = browser.new_page()                  # another tab with its own cookie jar
    page.click("#confirm"); page.screenshot(path)
    page.check_console()                       # no error logged on the page so far
    page.check_axe("the lobby")                # axe-core (WCAG 2.1 A, AA): no violation
    browser.close()

Errors a page logs (console.error, failed loads such as a missing /favicon.ico, a 4xx
answer to a fetch) are collected from the protocol's events; `check_console(allowed)`
fails on any that no pattern of `allowed` matches (the answers a test provokes on
purpose). axe-core is installed by scripts/ensure-axe.sh (pinned, under
~/.cache/djambi-ci/) and injected with Runtime.evaluate, so the page's CSP does not
stand in the way; nothing of it is served by the server.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

STATUS = "document.getElementById('status') && document.getElementById('status').textContent"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The rules axe runs: WCAG 2.0 and 2.1, levels A and AA.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
_axe_source = None


def axe_source():
    """axe.min.js, installed by scripts/ensure-axe.sh when missing (once per run)."""
    global _axe_source
    if _axe_source is None:
        run = subprocess.run(["bash", os.path.join(ROOT, "scripts/ensure-axe.sh")],
                             capture_output=True, text=True)
        if run.returncode != 0 or not run.stdout.strip():
            raise Failed(f"axe-core could not be installed by scripts/ensure-axe.sh: {run.stderr}")
        with open(run.stdout.strip().splitlines()[-1], encoding="utf-8") as f:
            _axe_source = f.read()
    return _axe_source


class Failed(Exception):
    pass


class Page:
    """One tab (a target with its flattened session)."""

    def __init__(self, browser, session, width, height):
        self.browser = browser
        self.session = session
        self.timeout = browser.timeout
        # Errors the page logged and not yet checked: {"text", "url"}.
        self.errors = []
        browser.pages[session] = self
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Log.enable")
        self.resize(width, height)

    def on_event(self, method, params):
        """Keeps the errors the page logs (the protocol's events for this tab)."""
        if method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append({"text": entry.get("text", ""), "url": entry.get("url", "")})
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.errors.append({"text": f"console.{params['type']}: {text}", "url": ""})

    def check_console(self, allowed=(), settle=0.5):
        """Fails if the page logged an error no pattern of `allowed` (regular expressions,
        searched in "URL text") matches; forgets the errors checked. Waits `settle`
        seconds first, for late loads (the icon) to report."""
        time.sleep(settle)
        self.eval("1")  # reads the events that arrived meanwhile
        unexpected = [e for e in self.errors
                      if not any(re.search(a, f"{e['url']} {e['text']}") for a in allowed)]
        self.errors = []
        if unexpected:
            where = self.eval("location.href")
            raise Failed(f"{where} logged errors: {json.dumps(unexpected)[:1500]}")

    def check_axe(self, what):
        """Runs axe-core (WCAG 2.1 A and AA) on the page; fails on any violation."""
        if not self.eval("typeof window.axe === 'object'"):
            result = self.call("Runtime.evaluate", {"expression": axe_source(), "returnByValue": True})
            if "exceptionDetails" in result:
                raise Failed(f"axe-core did not load in {what}: {result['exceptionDetails']}")
        found = self.eval(
            "axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']})"
            ".then(r => ({url: r.url, passes: r.passes.length, violations: r.violations.map(v => ({"
            "id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,"
            " targets: v.nodes.slice(0, 3).map(n => n.target.join(' ')),"
            " summary: (v.nodes[0] || {}).failureSummary}))}))" % json.dumps(AXE_TAGS))
        if found["violations"]:
            raise Failed(f"axe-core finds {len(found['violations'])} violation(s) in {what} "
                         f"({found['url']}): {json.dumps(found['violations'], indent=1)[:4000]}")
        return found

    def ax_tree(self):
        """Chromium's accessibility tree of the page: {nodeId: node}."""
        self.call("Accessibility.enable")
        nodes = self.call("Accessibility.getFullAXTree")["nodes"]
        return {n["nodeId"]: n for n in nodes}

    def call(self, method, params=None):
        return self.browser.call(method, params, session=self.session)

    def resize(self, width, height, mobile=False, scale=1):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})

    def eval(self, expression):
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise Failed(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what, timeout=None):
        deadline = time.time() + (timeout or self.timeout)
        error = None
        while time.time() < deadline:
            try:
                if self.eval(expression):
                    return
                error = None
            except Failed as e:
                # Evaluated while a navigation replaces the document (no
                # documentElement yet): look again.
                error = e
            time.sleep(0.05)
        raise Failed(f"timed out waiting for {what}; status: {self.eval(STATUS)!r}; last error: {error}")

    def navigate(self, url):
        self.call("Page.navigate", {"url": url})

    def key(self, key, code, key_code, modifiers=0):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {
                "type": kind, "key": key, "code": code, "modifiers": modifiers,
                "windowsVirtualKeyCode": key_code, "nativeVirtualKeyCode": key_code})

    def press_enter(self, selector):
        """Focuses an element and presses Enter on it (the keyboard's way to click)."""
        found = self.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                          " if (!e) return false; e.focus(); return document.activeElement === e; })()")
        if not found:
            raise Failed(f"cannot focus {selector}; status: {self.eval(STATUS)!r}")
        self.call("Input.dispatchKeyEvent", {
            "type": "keyDown", "key": "Enter", "code": "Enter", "text": "\r",
            "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13})
        self.call("Input.dispatchKeyEvent", {
            "type": "keyUp", "key": "Enter", "code": "Enter",
            "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13})

    def type_text(self, text):
        for ch in text:
            self.call("Input.dispatchKeyEvent", {"type": "char", "text": ch})

    def click(self, selector):
        box = self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
        if box is None:
            raise Failed(f"nothing matches {selector}; status: {self.eval(STATUS)!r}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {
                "type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


class Browser:
    """A headless Chromium process; the first page's methods are its own."""

    def __init__(self, chromium, timeout, width=1100, height=900):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="browser-test-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [
            chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions",
            "--hide-scrollbars", "--mute-audio", f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}", "about:blank",
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
        self.pages = {}
        self.first = self.new_page(isolated=False, width=width, height=height)

    def new_page(self, isolated=True, width=1100, height=900):
        """A new tab; `isolated`: in a browser context of its own (separate cookies)."""
        params = {"url": "about:blank"}
        if isolated:
            params["browserContextId"] = self.call(
                "Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
        target = self.call("Target.createTarget", params)["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, width, height)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session is None and not method.startswith(("Target.", "Browser.")):
            session = self.first.session
        if session:
            message["sessionId"] = session
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
            page = self.pages.get(answer.get("sessionId"))
            if page is not None and "method" in answer:
                page.on_event(answer["method"], answer.get("params", {}))

    def stderr_tail(self):
        try:
            self.proc.kill()
            return self.proc.stderr.read().decode(errors="replace")[-2000:]
        except Exception:  # noqa: BLE001 - best effort, for the message only
            return ""

    # The first page's methods.
    def eval(self, expression):
        return self.first.eval(expression)

    def wait_for(self, expression, what, timeout=None):
        return self.first.wait_for(expression, what, timeout)

    def navigate(self, url):
        return self.first.navigate(url)

    def key(self, key, code, key_code, modifiers=0):
        return self.first.key(key, code, key_code, modifiers)

    def click(self, selector):
        return self.first.click(selector)

    def screenshot(self, path):
        return self.first.screenshot(path)

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
