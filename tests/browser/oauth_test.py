#!/usr/bin/env python3
"""A third-party app signs a player in with OAuth 2.0, through a real OAuth client
library (Authlib) and the consent page in a real headless Chromium, then plays a move.

    oauth_test.py BASE_URL USERNAME PASSWORD GAME_ID OUTDIR [--chromium PATH] [--timeout SECONDS]

Run with the python of scripts/oauth-test-venv.sh (Authlib and requests, pinned). The
player USERNAME holds the seat to move in GAME_ID. What it checks:
  1. Authlib's OAuth2Session (PKCE S256) makes the authorization URL for a native app
     whose redirect URI is a loopback address (RFC 8252): a small HTTP server of this
     script on 127.0.0.1;
  2. Chromium opens it signed out: the login page comes first; signing in (by keyboard)
     brings the consent page, which names the app and passes axe-core; Enter on "Allow"
     sends the browser to the app's redirect URI with the code and the state;
  3. Authlib exchanges the code (checking the state) for a token with the scopes asked;
     with it, the app reads the game and plays the first legal move (201);
  4. the same code again: the server refuses it (invalid_grant) and revokes the token;
     a second authorization, then Authlib's RFC 7009 revocation ends that token too;
  5. no page logs an error in the console; OUTDIR/oauth-consent.png is the consent page.

Exit status 0 when every check passes, 1 on a failed check, 2 when the browser cannot be
used.
"""

import argparse
import http.server
import os
import shutil
import sys
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402 - the shared driver, beside this file

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session, OAuthError  # noqa: E402

READY = "document.readyState === 'complete'"
CLIENT_ID = "authlib-test-bot"


class Callback(http.server.BaseHTTPRequestHandler):
    """The app's redirect URI: keeps the URL it was called with, says so."""

    received = []

    def do_GET(self):  # noqa: N802 - http.server's name
        Callback.received.append(self.path)
        body = b"<!doctype html><html lang=en><title>Signed in</title><p>You can close this tab.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def authorize_in_browser(page, url, port, username, password, outdir, sign_in):
    """Opens the authorization URL, signs in when asked, allows; returns the callback URL."""
    before = len(Callback.received)
    page.navigate(url)
    if sign_in:
        page.wait_for(f"{READY} && !!document.getElementById('login-username')",
                      "the login page before the consent page")
        page.eval("document.getElementById('login-username').focus()")
        page.type_text(username)
        page.eval("document.getElementById('login-password').focus()")
        page.type_text(password)
        page.press_enter("#login-password")
    page.wait_for(f"{READY} && !!document.getElementById('oauth-allow')", "the consent page")
    said = page.eval("document.getElementById('oauth-app').textContent")
    if CLIENT_ID not in said:
        raise Failed(f"the consent page does not name the app: {said!r}")
    host = page.eval("document.getElementById('oauth-host').textContent")
    if host != f"127.0.0.1:{port}":
        raise Failed(f"the consent page names {host!r} as the redirect host")
    scopes = page.eval("document.querySelectorAll('#oauth-scopes li').length")
    if scopes != 2:
        raise Failed(f"the consent page lists {scopes} scopes, not 2")
    page.check_axe("the consent page")
    if outdir:
        page.screenshot(os.path.join(outdir, "oauth-consent.png"))
    page.press_enter("#oauth-allow")
    page.wait_for(f"location.host === '127.0.0.1:{port}' && {READY}", "the app's redirect URI")
    # Chromium also asks this server for /favicon.ico, sometimes after the callback.
    calls = [path for path in Callback.received[before:] if path.startswith("/callback")]
    if not calls:
        raise Failed(f"the app's redirect URI was never called: {Callback.received[before:]!r}")
    return f"http://127.0.0.1:{port}{calls[0]}"


def run(base, username, password, game_id, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    server = http.server.HTTPServer(("127.0.0.1", 0), Callback)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    browser = Browser(chromium, timeout)
    try:
        page = browser.first
        app = OAuth2Session(CLIENT_ID, redirect_uri=redirect_uri, scope="read play",
                            code_challenge_method="S256", token_endpoint_auth_method="none")
        verifier = generate_token(64)
        url, state = app.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
        callback = authorize_in_browser(page, url, port, username, password, outdir, True)
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        if query.get("state") != state or not query.get("code", "").startswith("djc_"):
            raise Failed(f"the redirect brought {query!r}")
        token = app.fetch_token(f"{base}/oauth/token", authorization_response=callback,
                                code_verifier=verifier)
        if token.get("token_type") != "Bearer" or token.get("scope") != "read play":
            raise Failed(f"the token answer is {token!r}")
        if not token["access_token"].startswith("djo_"):
            raise Failed("the access token is not an app's token")

        # The app plays with it.
        me = app.get(f"{base}/v1/me")
        if me.status_code != 200 or me.json()["username"] != username:
            raise Failed(f"GET /v1/me with the token: {me.status_code} {me.text}")
        game = app.get(f"{base}/v1/games/{game_id}").json()
        moves = app.get(f"{base}/v1/games/{game_id}/legal-moves").json()["moves"]
        played = app.post(f"{base}/v1/games/{game_id}/moves",
                          json={"move": moves[0]["text"], "expected_version": game["version"]})
        if played.status_code != 201:
            raise Failed(f"the move with the token: {played.status_code} {played.text}")

        # The same code again: refused, and the token issued from it ends.
        replay = OAuth2Session(CLIENT_ID, redirect_uri=redirect_uri, state=state,
                               token_endpoint_auth_method="none")
        try:
            replay.fetch_token(f"{base}/oauth/token", authorization_response=callback,
                               code_verifier=verifier)
            raise Failed("a replayed code gave a token")
        except OAuthError as error:
            if error.error != "invalid_grant":
                raise Failed(f"a replayed code: {error.error}") from error
        if app.get(f"{base}/v1/me").status_code != 401:
            raise Failed("the token of a replayed code still works")

        # A second authorization (the player is signed in now: straight to the consent
        # page), then the app revokes its token (RFC 7009).
        second = OAuth2Session(CLIENT_ID, redirect_uri=redirect_uri, scope="read play",
                               code_challenge_method="S256", token_endpoint_auth_method="none")
        verifier = generate_token(64)
        url, _ = second.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
        callback = authorize_in_browser(page, url, port, username, password, None, False)
        token = second.fetch_token(f"{base}/oauth/token", authorization_response=callback,
                                   code_verifier=verifier)
        if second.get(f"{base}/v1/me").status_code != 200:
            raise Failed("the second token does not work")
        revoked = second.revoke_token(f"{base}/oauth/revoke", token=token["access_token"],
                                      token_type_hint="access_token")
        if revoked.status_code != 200:
            raise Failed(f"revocation: {revoked.status_code} {revoked.text}")
        if second.get(f"{base}/v1/me").status_code != 401:
            raise Failed("a revoked token still works")
        page.check_console()
    finally:
        browser.close()
        server.shutdown()
    print(f"ok: Authlib signed in through the consent page, played a move, and its tokens "
          f"were revoked; screenshot in {outdir}")


def main():
    parser = argparse.ArgumentParser(description="OAuth 2.0 with Authlib and headless Chromium.")
    parser.add_argument("base_url")
    parser.add_argument("username")
    parser.add_argument("password")
    parser.add_argument("game_id")
    parser.add_argument("outdir")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"oauth_test: {args.chromium} not found; run scripts/ensure-chromium.sh",
              file=sys.stderr)
        return 2
    try:
        run(args.base_url.rstrip("/"), args.username, args.password, args.game_id, args.outdir,
            chromium, args.timeout)
    except Failed as error:
        print(f"oauth_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
