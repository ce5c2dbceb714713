"""Take the README's screenshots of the web face (docs/ui-*.png) in headless Chromium.

    .venv/bin/python docs/screenshots.py

Three `creepnet ui` nodes on 127.0.0.1 (homes in a temporary folder): alice hosts, bob joins,
carol watches on a phone-sized page; a dozen moves are clicked, then the replay is opened.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))
from web_support import CHROMIUM, CHROMIUM_FLAGS, Process  # noqa: E402

PLIES = 12


def main() -> None:
    # A DNS-SD type of our own: other creepnet nodes on this LAN stay out of the pictures.
    os.environ["CREEPNET_SERVICE_TYPE"] = f"_cns{secrets.token_hex(6)}._tcp.local."
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        home = Path(folder)
        nodes = {
            name: Process(
                ["ui", "--no-browser", "--player", name, "--iface", "127.0.0.1"], home / name
            )
            for name in ("alice", "bob", "carol")
        }
        context = playwright.chromium.launch_persistent_context(
            str(home / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        expect.set_options(timeout=20_000)
        try:
            shoot(context, nodes)
        finally:
            context.close()
            for node in nodes.values():
                node.stop()


def shoot(context, nodes) -> None:
    host = context.new_page()
    host.goto(nodes["alice"].url)
    host.fill("#host-name", "friday night")
    host.click("#host-button")
    expect(host.locator("#status")).to_contain_text("waiting for 1 more player")

    guest = context.new_page()
    guest.goto(nodes["bob"].url)
    row = guest.locator('#lan tr[data-name="friday night"]')
    expect(row).to_be_visible()
    guest.screenshot(path=HERE / "ui-lobby.png")
    row.locator("button.join").click()

    spectator = context.new_page()
    spectator.set_viewport_size({"width": 390, "height": 844})
    spectator.goto(nodes["carol"].url)
    spectator.locator('#lan tr[data-name="friday night"] button.watch').click()

    for ply in range(PLIES):
        for page in (host, guest):
            expect(page.locator("#summary")).to_contain_text(f"ply {ply} ")
        mover = host if host.locator("#status.mine").count() else guest
        pins = mover.locator(".pin.movable")
        pins.nth(ply * 3 % pins.count()).click()
        targets = mover.locator(".target")
        targets.nth(ply % targets.count()).click()
    for page in (host, guest, spectator):
        expect(page.locator("#summary")).to_contain_text(f"ply {PLIES} ")
    mover = host if host.locator("#status.mine").count() else guest
    mover.locator(".pin.movable").first.click()
    mover.screenshot(path=HERE / "ui-creeper.png")
    spectator.screenshot(path=HERE / "ui-spectator-phone.png", full_page=True)

    mover.keyboard.press("Escape")
    mover.click("#resign")
    mover.screenshot(path=HERE / "ui-resign.png")
    mover.click("#resign-yes")
    expect(mover.locator("#status")).to_contain_text("wins by resignation")
    mover.click("#replay-link")
    expect(mover.locator("#verdict")).to_contain_text("valid")
    mover.click("#prev")
    mover.click("#prev")
    mover.screenshot(path=HERE / "ui-replay.png")


if __name__ == "__main__":
    main()
