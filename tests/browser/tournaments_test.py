#!/usr/bin/env python3
"""Drives the tournament pages in a real headless Chromium, by keyboard.

    tournaments_test.py BASE_URL OUTDIR [--chromium PATH] [--timeout SECONDS]

Standard library only (see cdp.py). What it checks:
  1. /tournaments lists the events and passes axe-core (WCAG 2.1 A and AA);
  2. Enter on the first event's link opens its page, with the standings table, the
     crosstable and a link to every game; it passes axe;
  3. Enter on a game's link opens the game's replay page;
  4. no page logs an error in the console; OUTDIR/tournament.png is the event page.

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


def run(base, outdir, chromium, timeout):
    os.makedirs(outdir, exist_ok=True)
    browser = Browser(chromium, timeout)
    try:
        page = browser.first
        page.navigate(f"{base}/tournaments")
        page.wait_for(f"{READY} && !!document.querySelector('table.tournaments a')",
                      "the list of events")
        page.check_axe("the list of events")
        page.press_enter("table.tournaments a")
        page.wait_for(f"{READY} && !!document.querySelector('table.crosstable')",
                      "the event's page")
        page.check_axe("the event's page")
        games = page.eval("document.querySelectorAll('ul.tables a[href^=\"/games/\"]').length")
        if not games:
            raise Failed("the event's page links to no game")
        rows = page.eval("document.querySelectorAll('table.standings tbody tr').length")
        if rows < 4:
            raise Failed(f"the standings have {rows} rows")
        page.screenshot(os.path.join(outdir, "tournament.png"))
        page.check_console()
        page.press_enter("ul.tables a")
        page.wait_for(f"{READY} && location.pathname.startsWith('/games/')", "a game's page")
    finally:
        browser.close()
    print(f"ok: the tournament pages pass axe; screenshot in {outdir}")


def main():
    parser = argparse.ArgumentParser(description="The tournament pages in headless Chromium.")
    parser.add_argument("base_url")
    parser.add_argument("outdir")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per wait")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if not chromium:
        print(f"tournaments_test: {args.chromium} not found; run scripts/ensure-chromium.sh",
              file=sys.stderr)
        return 2
    try:
        run(args.base_url.rstrip("/"), args.outdir, chromium, args.timeout)
    except Failed as error:
        print(f"tournaments_test: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
