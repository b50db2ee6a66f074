"""Screenshots of the web table for the README, taken in Debian's Chromium with Playwright.

Starts `kbdsl serve --http` on a free loopback port with a fresh data folder, then: the
lobby and new-game page; a game against two bots, three turns played by clicking, with the
targets of the next build highlighted and an illegal click refused, at a laptop's 1280x800
and at a phone's 390x844; and a finished bot game with its end-of-game dialog and replay.
Writes docs/img/web-*.png:

    python3 tools/screenshots.py [--out docs/img]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
#: Headless Chromium as this machine runs it: as root, and with no background traffic.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def start_server(data: Path, bot_delay: float = 0.05, *flags: str) -> tuple[subprocess.Popen, str]:
    """`kbdsl serve --http` on a free loopback port (with more `flags`); the process and its URL once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "kbdsl", "serve", "--http", "--port", str(port), "--data", str(data)]
    proc = subprocess.Popen(
        [*cmd, "--bot-delay", str(bot_delay), *flags],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/").read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the web server did not start") from None
            time.sleep(0.2)


def create(page, url: str, seats: list[str]) -> list[str]:
    """Create a first-game set-up on the new-game page with these seats ('person' or 'bot:NAME'); the seat links."""
    page.goto(url + "/")
    page.wait_for_selector("#seats li")
    page.select_option("#preset", "first-game")
    while page.locator("#seats li").count() < len(seats):
        page.click("#add-seat")
    while page.locator("#seats li").count() > len(seats):
        page.click("#remove-seat")
    for i, who in enumerate(seats):
        page.locator(".seat-kind").nth(i).select_option(who)
    page.click("#create")
    page.wait_for_selector("#created:not([hidden])")
    links = page.locator(".seat-link")
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def settled(page) -> dict:
    """The push the page shows once it has drawn it completely."""
    page.wait_for_function("() => T.push && T.shown === T.push.version")
    return page.evaluate("T.push")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        proc, url = start_server(Path(data))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport=VIEWPORT)
                page.set_default_timeout(60_000)
                page.goto(url + "/")
                page.wait_for_selector("#seats li")
                known = page.evaluate("kb.ask({cmd: 'hello'}).then(r => r.result.bots)")
                bots = [b for b in ("random", "greedy") if b in known] or known[:1]  # quick ones, for the finished game
                page.select_option("#preset", "first-game")
                page.screenshot(path=str(args.out / "web-new-game.png"), full_page=True)

                page.goto(create(page, url, ["person", "bot:random", "bot:greedy"])[0])
                for _ in range(3):  # three turns by clicking, each ended by the End turn button
                    page.wait_for_function("() => T.push && T.shown === T.push.version && T.push.legal")
                    while settled(page)["state"]["mandatory_left"] > 0:
                        version = settled(page)["version"]
                        page.click("#board polygon.hex.target >> nth=0", force=True)
                        page.wait_for_function(f"() => T.shown > {version}")
                    version = settled(page)["version"]
                    page.click('#actions button[data-action="end"]')
                    page.wait_for_function(f"() => T.shown > {version}")
                page.wait_for_function("() => T.push && T.shown === T.push.version && T.push.legal")
                page.click("#board polygon.hex:not(.target) >> nth=0", force=True)
                page.wait_for_function("() => document.getElementById('refusal').textContent.length > 0")
                page.screenshot(path=str(args.out / "web-table.png"))
                phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
                phone.goto(page.url)
                phone.wait_for_function("() => T.push && T.shown === T.push.version && T.push.legal")
                phone.evaluate("clicked(document.querySelector('#board polygon.hex:not(.target)').dataset.hex)")
                phone.wait_for_function("() => document.getElementById('refusal').textContent.length > 0")
                phone.screenshot(path=str(args.out / "web-table-phone.png"))

                create(page, url, [f"bot:{b}" for b in (bots * 3)[:3]])
                page.click("#spectator-link")
                page.wait_for_selector("#final:not([hidden])", timeout=300_000)
                page.wait_for_function("() => T.shown === T.push.version")
                page.screenshot(path=str(args.out / "web-final.png"))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(30)
    for name in ("web-new-game.png", "web-table.png", "web-table-phone.png", "web-final.png"):
        print(args.out / name)


if __name__ == "__main__":
    main()
