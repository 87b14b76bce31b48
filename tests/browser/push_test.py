#!/usr/bin/env python3
"""Web Push in the web client and the installable web app (issue 24), in headless Chromium.

    push_test.py BASE_URL OUTDIR [--chromium PATH] [--timeout S]

The server must send pushes (a VAPID key). Checked, against the real server:

- the web app manifest (`/manifest.webmanifest`, `application/manifest+json`): parsed here
  (name, short_name, start_url in its scope, display standalone, theme and background
  colours, icons of 192 and 512 pixels for `any` and `maskable`), each icon fetched and
  its PNG header read for its true size; and as Chromium reads it (`Page.getAppManifest`:
  no error; `Page.getInstallabilityErrors`: none);
- the service worker script (`/sw.js`, `text/javascript`);
- the settings page asks nothing at load (permission still "default", no service worker
  registered); after `Browser.grantPermissions` a click on "Enable notifications on this
  device" registers `/sw.js` with scope `/` and subscribes. Headless Chromium has no
  push service: its `subscribe()` never answers, so the page must show a clear error
  after its time limit, and the account must have no subscription. (Were it to answer,
  the subscription must be the account's.) Then the browser's `PushManager` is replaced
  in the page by a stand-in (keys made with WebCrypto, an endpoint on
  fcm.googleapis.com) and the click again must send the subscription, made with the
  server's key, to POST /v1/me/push-subscriptions: the account lists it, the page says
  it is on; "Turn off" deletes it;
- the service worker shows a push (`ServiceWorker.deliverPushMessage`): title, body, tag,
  icon, and the game's link (a link of another origin read on this one); a second push of
  the same game replaces the first;
- its notificationclick handler (a click on a notification cannot be made in headless
  Chromium, so the event is dispatched in the worker, with `clients.openWindow` and
  `WindowClient.focus` recorded): it closes the notification and focuses a window
  already on the page, or opens the page;
- its pushsubscriptionchange handler (Chromium never fires the event, so it is dispatched
  in the worker with a stand-in new subscription): the new subscription reaches the
  account, signed in by the page's cookie and CSRF token, and the old one's row goes;
- axe-core on the settings page, no error in the page's console.

Screenshot: OUTDIR/push.png. Exit status 0 pass, 1 a check failed, 2 no browser or no
server. Standard library only (see cdp.py).
"""

import json
import os
import secrets
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402
from play_test import Player, browser_test_main, get_json, http, login_token as token  # noqa: E402

PUSH = "document.getElementById('push')"
STATE = f"({PUSH} && {PUSH}.dataset.state)"
ERROR = "document.getElementById('push-error').textContent"
# The page's time limit for subscribe() (app.js PUSH_SUBSCRIBE_SECS), and some slack.
SUBSCRIBE_WAIT = 20 + 15


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def png_size(data):
    """(width, height) from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise Failed("not a PNG")
    return struct.unpack(">II", data[16:24])


def check_manifest(base):
    url = f"{base}/manifest.webmanifest"
    status, headers, body = fetch(url)
    if status != 200:
        raise Failed(f"GET {url}: {status}")
    media = headers.get("content-type", "")
    if media.split(";")[0].strip() != "application/manifest+json":
        raise Failed(f"the manifest is served as {media!r}")
    m = json.loads(body)
    for member in ("name", "short_name", "start_url", "display", "icons", "theme_color", "background_color"):
        if not m.get(member):
            raise Failed(f"the manifest has no {member}: {m}")
    if m["display"] != "standalone":
        raise Failed(f"display is {m['display']!r}")
    start = urllib.parse.urljoin(url, m["start_url"])
    scope = urllib.parse.urljoin(url, m.get("scope", "."))
    if not start.startswith(base + "/") or not start.startswith(scope):
        raise Failed(f"start_url {start} is not in the scope {scope} of this site")
    if len(m["short_name"]) > 12:
        raise Failed(f"short_name {m['short_name']!r} is too long for a home screen")
    found = set()
    for icon in m["icons"]:
        src = urllib.parse.urljoin(url, icon["src"])
        status, headers, data = fetch(src)
        if status != 200:
            raise Failed(f"the icon {src}: {status}")
        media = headers.get("content-type", "")
        if media != icon.get("type") or media != "image/png":
            raise Failed(f"the icon {src} is {media!r}, the manifest says {icon.get('type')!r}")
        w, h = png_size(data)
        if icon["sizes"] != f"{w}x{h}":
            raise Failed(f"the icon {src} is {w}x{h}, the manifest says {icon['sizes']}")
        for purpose in icon.get("purpose", "any").split():
            found.add((purpose, w))
    for need in [("any", 192), ("any", 512), ("maskable", 192), ("maskable", 512)]:
        if need not in found:
            raise Failed(f"no {need[0]} icon of {need[1]} pixels: {m['icons']}")
    return m


def check_sw_script(base):
    status, headers, body = fetch(f"{base}/sw.js")
    media = headers.get("content-type", "")
    if status != 200 or media.split(";")[0].strip() != "text/javascript":
        raise Failed(f"GET /sw.js: {status} {media!r}")
    if b"notificationclick" not in body or b"showNotification" not in body:
        raise Failed("/sw.js does not show notifications")


def rows(base, tok):
    status, body = http("GET", f"{base}/v1/me/push-subscriptions", token=tok)
    if status != 200:
        raise Failed(f"GET /v1/me/push-subscriptions: {status} {body}")
    return body


class FirstTab(Player):
    """A player in the browser's first tab: its default context, where permissions can be
    granted and push works (isolated contexts are off the record, where Chromium refuses
    push)."""

    def __init__(self, browser, base, tag):  # noqa: D107 - no new tab
        self.page = browser.first
        self.seat = "R"
        self.base = base
        self.username = f"push{tag}"


# The stand-in of the browser's push service: PushManager's subscribe and getSubscription
# replaced in the page; the keys are real (WebCrypto), the endpoint is on a known push
# service. What the page asked is kept in window.standIn.
STAND_IN = """(() => {
  const b64 = bytes => btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const state = window.standIn = {asked: null, unsubscribed: 0, sub: null};
  PushManager.prototype.getSubscription = async function () { return state.sub; };
  PushManager.prototype.subscribe = async function (options) {
    state.asked = {userVisibleOnly: options.userVisibleOnly,
                   key: b64(options.applicationServerKey)};
    const pair = await crypto.subtle.generateKey({name: 'ECDH', namedCurve: 'P-256'}, true, ['deriveBits']);
    const p256dh = b64(await crypto.subtle.exportKey('raw', pair.publicKey));
    const auth = b64(crypto.getRandomValues(new Uint8Array(16)));
    const endpoint = ENDPOINT;
    state.sub = {
      endpoint, expirationTime: null, options: {applicationServerKey: options.applicationServerKey},
      toJSON() { return {endpoint, expirationTime: null, keys: {p256dh, auth}}; },
      async unsubscribe() { state.unsubscribed += 1; state.sub = null; return true; },
    };
    return state.sub;
  };
  return true;
})()"""


def wait_state(page, wanted, what, timeout=None):
    page.wait_for(f"{STATE} === {json.dumps(wanted)}", what, timeout)


def notifications(page):
    return page.eval("navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => ("
                     "{title: n.title, body: n.body, tag: n.tag, icon: n.icon, data: n.data})))")


def wait_notification(page, body):
    deadline = time.time() + page.timeout
    while time.time() < deadline:
        shown = notifications(page)
        if any(n["body"] == body for n in shown):
            return shown
        time.sleep(0.1)
    raise Failed(f"the service worker showed no notification {body!r}: {notifications(page)}")


def worker_session(browser, base):
    """A CDP session attached to the site's service worker."""
    targets = browser.call("Target.getTargets")["targetInfos"]
    workers = [t for t in targets if t["type"] == "service_worker" and t["url"] == f"{base}/sw.js"]
    if not workers:
        raise Failed(f"no service worker target: {[(t['type'], t['url']) for t in targets]}")
    return browser.call("Target.attachToTarget", {"targetId": workers[0]["targetId"], "flatten": True})["sessionId"]


def check_click(browser, base, settings_url):
    """Dispatches notificationclick in the service worker (recording the clients' calls)."""
    session = worker_session(browser, base)

    def click(url):
        expression = """(async () => {
          const calls = [];
          self.clients.openWindow = async url => { calls.push(['open', url]); return null; };
          WindowClient.prototype.focus = async function () { calls.push(['focus', this.url]); return this; };
          await self.registration.showNotification('Click me', {tag: 'click-test', data: {url: URL}});
          const shown = (await self.registration.getNotifications({tag: 'click-test'}))[0];
          self.dispatchEvent(new NotificationEvent('notificationclick', {notification: shown}));
          await new Promise(r => setTimeout(r, 300));
          const left = (await self.registration.getNotifications({tag: 'click-test'})).length;
          return {calls, left};
        })()""".replace("URL", json.dumps(url))
        result = browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                   "awaitPromise": True}, session=session)
        if "exceptionDetails" in result:
            raise Failed(f"notificationclick in the worker: {result['exceptionDetails']}")
        return result["result"]["value"]

    # A window already on the page: focused, nothing opened.
    got = click(settings_url)
    if got["calls"] != [["focus", settings_url]] or got["left"] != 0:
        raise Failed(f"a click on a notification of the open page: {got}")
    # A game no window shows: opened (on this site, whatever origin the push named).
    game = f"{base}/play/0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11"
    got = click("https://elsewhere.example/play/0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11")
    if got["calls"] != [["open", game]] or got["left"] != 0:
        raise Failed(f"a click on a notification of another game: {got}")
    browser.call("Target.detachFromTarget", {"sessionId": session})


def check_renewal(browser, base, tok, tag):
    """Dispatches pushsubscriptionchange in the service worker (Chromium never fires it)
    with a stand-in new subscription: the worker must send it to the account, signed in
    by the page's cookie, and delete the old one's row."""
    session = worker_session(browser, base)

    def renew(old, new):
        expression = """(async () => {
          const b64 = bytes => btoa(String.fromCharCode(...new Uint8Array(bytes)))
            .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
          const pair = await crypto.subtle.generateKey({name: 'ECDH', namedCurve: 'P-256'}, true, ['deriveBits']);
          const keys = {p256dh: b64(await crypto.subtle.exportKey('raw', pair.publicKey)),
                        auth: b64(crypto.getRandomValues(new Uint8Array(16)))};
          const fresh = {endpoint: NEW, toJSON() { return {endpoint: NEW, expirationTime: null, keys}; }};
          const event = new ExtendableEvent('pushsubscriptionchange');
          Object.defineProperty(event, 'oldSubscription', {value: OLD === null ? null : {endpoint: OLD}});
          Object.defineProperty(event, 'newSubscription', {value: fresh});
          const waited = [];
          event.waitUntil = p => waited.push(p);
          self.dispatchEvent(event);
          await Promise.all(waited);
          return waited.length;
        })()""".replace("NEW", json.dumps(new)).replace("OLD", json.dumps(old))
        result = browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                   "awaitPromise": True}, session=session)
        if "exceptionDetails" in result:
            raise Failed(f"pushsubscriptionchange in the worker: {result['exceptionDetails']}")
        if result["result"]["value"] != 1:
            raise Failed("the worker did not wait for its renewal (event.waitUntil)")

    first = f"https://fcm.googleapis.com/fcm/send/renewed-{tag}"
    renew(None, first)
    if [r["endpoint"] for r in rows(base, tok)] != [first]:
        raise Failed(f"a renewed subscription was not sent: {rows(base, tok)}")
    second = f"https://fcm.googleapis.com/fcm/send/renewed-again-{tag}"
    renew(first, second)
    if [r["endpoint"] for r in rows(base, tok)] != [second]:
        raise Failed(f"the renewal did not replace the old subscription: {rows(base, tok)}")
    browser.call("Target.detachFromTarget", {"sessionId": session})


def run(base, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    manifest = check_manifest(base)
    check_sw_script(base)
    print(f"manifest valid ({manifest['name']!r}, {len(manifest['icons'])} icons of the right sizes); /sw.js served")
    key = get_json(f"{base}/v1/push/vapid-public-key")["public_key"]
    browser = Browser(chromium, timeout)
    tag = secrets.token_hex(3)
    try:
        player = FirstTab(browser, base, tag)
        page = player.page
        registrations = []
        keep = page.on_event

        def on_event(method, params):
            if method == "ServiceWorker.workerRegistrationUpdated":
                registrations.extend(params["registrations"])
            keep(method, params)
        page.on_event = on_event
        player.sign_up()
        tok = token(base, player.username)
        settings_url = f"{base}/settings"
        page.navigate(settings_url)
        player.wait_page("settings", "/settings")
        wait_state(page, "off", "the push section")
        asked = page.eval("navigator.serviceWorker.getRegistration('/').then(r => ({registered: !!r,"
                          " permission: Notification.permission}))")
        if asked != {"registered": False, "permission": "default"}:
            raise Failed(f"the page asked or registered something at load: {asked}")
        if page.eval("document.getElementById('push-enable').hidden"):
            raise Failed("no enable button")

        # The manifest as Chromium reads it, linked from the page.
        app = page.call("Page.getAppManifest")
        if app.get("url") != f"{base}/manifest.webmanifest" or app.get("errors"):
            raise Failed(f"Chromium's reading of the manifest: {json.dumps(app)[:1500]}")
        installability = page.call("Page.getInstallabilityErrors")["installabilityErrors"]
        if installability:
            raise Failed(f"Chromium would not install the app: {installability}")
        print("Chromium reads the manifest without errors; installable")

        # Allowed, then clicked: the worker registers; the browser's own push service.
        browser.call("Browser.grantPermissions", {"permissions": ["notifications"], "origin": base})
        page.click("#push-enable")
        page.wait_for(f"{STATE} === 'on' || {ERROR} !== ''", "the enable button's outcome", SUBSCRIBE_WAIT)
        page.wait_for("navigator.serviceWorker.getRegistration('/').then(r => !!(r && r.active))",
                      "the active service worker")
        reg = page.eval("navigator.serviceWorker.getRegistration('/').then(r => ({scope: r.scope,"
                        " script: r.active.scriptURL}))")
        if reg != {"scope": f"{base}/", "script": f"{base}/sw.js"}:
            raise Failed(f"the service worker's registration: {reg}")
        print(f"service worker registered: {reg}")
        if page.eval(STATE) == "on":
            endpoint = page.eval("navigator.serviceWorker.ready.then(r => r.pushManager.getSubscription())"
                                 ".then(s => s && s.endpoint)")
            if [r["endpoint"] for r in rows(base, tok)] != [endpoint]:
                raise Failed(f"the browser's subscription is not the account's: {endpoint} {rows(base, tok)}")
            print(f"the browser's push service subscribed: {endpoint}")
            page.click("#push-disable")
            wait_state(page, "off", "notifications turned off")
        else:
            error = page.eval(ERROR)
            if "could not subscribe at its push service" not in error:
                raise Failed(f"the page's error is not clear: {error!r}")
            if rows(base, tok):
                raise Failed(f"a subscription without the browser's: {rows(base, tok)}")
            print(f"no push service in this Chromium; the page says: {error!r}")

        # The stand-in push service: the page sends what the browser subscribed.
        endpoint = f"https://fcm.googleapis.com/fcm/send/browser-test-{tag}"
        page.eval(STAND_IN.replace("ENDPOINT", json.dumps(endpoint)))
        page.click("#push-enable")
        wait_state(page, "on", "notifications on with the stand-in")
        if page.eval(ERROR):
            raise Failed(f"an error left on the page: {page.eval(ERROR)!r}")
        asked = page.eval("window.standIn.asked")
        if asked != {"userVisibleOnly": True, "key": key}:
            raise Failed(f"the page subscribed with {asked}, not the server's key {key}")
        listed = rows(base, tok)
        if [r["endpoint"] for r in listed] != [endpoint]:
            raise Failed(f"the account's subscriptions: {listed}")
        if not page.eval("document.getElementById('push-enable').hidden") or \
                page.eval("document.getElementById('push-disable').hidden"):
            raise Failed("with notifications on, the page offers to enable them, or not to turn them off")
        text = page.eval("document.getElementById('push-state').textContent")
        if "on for this device" not in text:
            raise Failed(f"the page does not say notifications are on: {text!r}")
        page.check_axe("the settings page with notifications on")
        page.screenshot(os.path.join(outdir, "push.png"))
        print(f"subscription sent and listed: {listed[0]['id']}")

        # The service worker shows a push, and replaces it with the next of the same game.
        page.call("ServiceWorker.enable")
        deadline = time.time() + page.timeout
        while True:
            page.eval("1")  # reads the events that arrived meanwhile
            ours = [r for r in registrations if r["scopeURL"] == f"{base}/" and not r["isDeleted"]]
            if ours:
                break
            if time.time() > deadline:
                raise Failed(f"no registration reported for {base}/: {registrations}")
            time.sleep(0.05)
        game = "0192f5e4-7a3c-7cc1-9a51-3e1f0c2b8d11"
        for body in ("Game 0192f5e4", "Game 0192f5e4, again"):
            payload = {"title": "Your turn", "body": body, "url": f"https://elsewhere.example/play/{game}",
                       "tag": game, "kind": "your_turn", "id": secrets.token_hex(8)}
            page.call("ServiceWorker.deliverPushMessage", {
                "origin": base, "registrationId": ours[0]["registrationId"], "data": json.dumps(payload)})
            shown = wait_notification(page, body)
        if len(shown) != 1:
            raise Failed(f"the second push of the game did not replace the first: {shown}")
        n = shown[0]
        want = {"title": "Your turn", "tag": game, "icon": f"{base}/icons/icon-192.png"}
        if any(n[k] != v for k, v in want.items()) or n["data"]["url"] != f"{base}/play/{game}":
            raise Failed(f"the notification: {n}")
        print(f"the service worker shows a push: {n}")
        check_click(browser, base, settings_url)
        print("notificationclick focuses the open page, or opens the game")

        # Turned off: the account's subscription deleted, the browser's unsubscribed.
        page.click("#push-disable")
        wait_state(page, "off", "notifications turned off")
        if rows(base, tok) or page.eval("window.standIn.unsubscribed") != 1:
            raise Failed(f"turning off left {rows(base, tok)}, unsubscribed "
                         f"{page.eval('window.standIn.unsubscribed')} times")
        print("turned off: the subscription deleted")
        check_renewal(browser, base, tok, tag)
        print("pushsubscriptionchange: the renewed subscription sent, the old one deleted")
        page.check_console()
        print("ok: push notifications and the web app manifest in Chromium")
    finally:
        browser.close()


def main():
    return browser_test_main("push_test", "Web Push and the web app manifest in headless Chromium.",
                             lambda base, args, chromium: run(base, args.outdir, chromium, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
