#!/usr/bin/env python3
"""Drives the password reset pages in a real headless Chromium, by keyboard only.

    reset_test.py BASE_URL RESET_PATH OUTDIR [--chromium PATH] [--timeout SECONDS]

RESET_PATH is the page a reset mail links to (`/reset-password/djx_...`). Standard library
only (see cdp.py). What it checks:
  1. the login page links to "Forgot your password?"; Enter on the link opens the page
     that asks for a reset link, which passes axe-core (WCAG 2.1 A and AA);
  2. the page of the mailed link passes axe; its fields are reached with Tab, typed
     into, and the form sent with Enter; two different passwords bring the form back
     with the error announced (role=alert), which passes axe too;
  3. the same passwords set it: the page says so (role=status) and passes axe;
  4. no page logs an error in the console; OUTDIR/reset.png is the form.

Exit status 0 when every check passes, 1 on a failed check, 2 when the browser cannot be
used.
"""

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, Failed  # noqa: E402 - the shared driver, beside this file

READY = "document.readyState === 'complete'"


def active_id(page):
    return page.eval("document.activeElement && document.activeElement.id")


def tab_to(page, element_id, most=12):
    """Presses Tab until `element_id` has the focus (fails after `most` presses)."""
    for _ in range(most):
        if active_id(page) == element_id:
            return
        page.key("Tab", "Tab", 9)
    raise Failed(f"Tab never reaches #{element_id} (at #{active_id(page)})")


def run(base, reset_path, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    browser = Browser(chromium, timeout)
    try:
        page = browser.first
        page.navigate(f"{base}/login")
        page.wait_for(f"{READY} && !!document.getElementById('login-forgot')", "the login page")
        page.press_enter("#login-forgot")
        page.wait_for(f"{READY} && !!document.getElementById('reset-who')", "the reset request page")
        page.check_axe("the reset request page")

        page.navigate(base + reset_path)
        page.wait_for(f"{READY} && !!document.getElementById('reset-new-password')",
                      "the new password page")
        page.check_axe("the new password page")
        page.screenshot(os.path.join(outdir, "reset.png"))
        page.eval("document.body.focus()")
        tab_to(page, "reset-new-password")
        page.type_text("a long enough passphrase")
        tab_to(page, "reset-repeat")
        page.type_text("another passphrase")
        page.press_enter("#reset-repeat")
        page.wait_for(f"{READY} && !!document.querySelector('#form-error[role=alert]')",
                      "the error of two different passwords")
        page.check_axe("the form with its error")
        page.eval("document.body.focus()")
        tab_to(page, "reset-new-password")
        page.type_text("a long enough passphrase")
        tab_to(page, "reset-repeat")
        page.type_text("a long enough passphrase")
        page.press_enter("#reset-repeat")
        try:
            page.wait_for(f"{READY} && !!document.querySelector('[role=status]')"
                          " && !document.getElementById('reset-new-password')",
                          "the page of the new password")
        except Failed as error:
            said = page.eval("(document.getElementById('form-error') || {}).textContent")
            raise Failed(f"{error}; the form says: {said!r}") from error
        page.check_axe("the page of the new password")
        page.check_console(allowed=[r"status of 400"])
    finally:
        browser.close()
    print(f"ok: the reset pages work by keyboard and pass axe; screenshot in {outdir}")


def main():
    parser = argparse.ArgumentParser(description="The password reset pages in headless Chromium.")
    parser.add_argument("base_url")
    parser.add_argument("reset_path")
    parser.add_argument("outdir")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"reset_test: {args.chromium} not found; run scripts/ensure-chromium.sh",
              file=sys.stderr)
        return 2
    try:
        run(args.base_url.rstrip("/"), args.reset_path, args.outdir, chromium, args.timeout)
    except Failed as error:
        print(f"reset_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
