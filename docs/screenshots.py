"""Take the README's screenshots of the web face (docs/ui-*.png) in headless Chromium.

    .venv/bin/python docs/screenshots.py

Three `creepnet ui` nodes on 127.0.0.1 (homes in a temporary folder): alice hosts, bob joins,
carol watches on a phone-sized page; a dozen moves are clicked, then the replay is opened.
Then Creepy Racer: bob hosts a 3-player game from his lobby (alice's lobby shows it, with the
game chosen in her host form), and dora plays `creepnet play racer --players 3 --web` against
two bots, by clicks, until the turn limit; then its replay, every hand shown.
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
RACER_TURNS = 9


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
            shoot_racer_lobby(context, nodes)
            nodes["dora"] = Process(
                ["play", "racer", "--players", "3", "--turn-limit", str(RACER_TURNS), "--web"]
                + ["--no-browser", "--player", "dora", "--iface", "127.0.0.1"],
                home / "dora",
            )
            shoot_racer(context, nodes["dora"])
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


def shoot_racer_lobby(context, nodes) -> None:
    bob = context.new_page()
    bob.goto(nodes["bob"].url)
    bob.select_option("#host-kind", "racer")
    bob.select_option("#host-seats", "3")
    bob.fill("#host-name", "racing night")
    bob.click("#host-button")
    expect(bob.locator("#status")).to_contain_text("waiting for 2 more players")
    alice = context.new_page()
    alice.goto(nodes["alice"].url)
    expect(alice.locator('#lan tr[data-name="racing night"]')).to_be_visible()
    alice.select_option("#host-kind", "racer")
    alice.select_option("#host-seats", "4")
    alice.fill("#host-name", "sunday race")
    alice.fill("#host-limit", "30")
    alice.screenshot(path=HERE / "ui-lobby-racer.png")


def shoot_racer(context, dora) -> None:
    """Dora's turns by clicks: a card on a Creep when she holds one, then pass; the bots' asks
    answered no.  Near the end, a card picked (its targets glowing) is the picture."""
    page = context.new_page()
    page.goto(dora.url)
    expect.set_options(timeout=120_000)
    answers = {
        "A Calamity": "decline-monster",
        "You are asked": "refuse-hostage",
        "The attack": "stop-heroes",
        "Your move": "pass",
    }
    shot = False
    while not page.locator("#status").inner_text().startswith("game over"):
        expect(page.locator("#prompt:not([hidden]), #status.over").first).to_be_visible()
        if not page.locator("#prompt").is_visible():
            break
        prompt, seen = page.locator("#prompt").inner_text(), page.evaluate("view.events")
        cards = page.locator("#hand .card.playable.calamity, #hand .card.playable.good_fortune")
        turn = int(page.locator(".racer").get_attribute("data-turn"))
        if (
            prompt.startswith("Your move")
            and not shot
            and (cards.count() or turn >= RACER_TURNS - 2)
        ):
            if cards.count():
                cards.first.click()
            if turn >= RACER_TURNS - 3:  # a lived-in table: the picture
                page.screenshot(path=HERE / "ui-racer.png")
                shot = True
            if cards.count():
                page.locator(".racer .card.creep.target").first.click()
            else:
                page.locator('#choices [data-action="pass"]').click()
        elif prompt.startswith("Too many"):
            page.locator("#hand .card.playable").first.click()
            page.locator("#choices .choice").first.click()
        else:
            word = next(action for start, action in answers.items() if prompt.startswith(start))
            page.locator(f'#choices [data-action="{word}"]').click()
        page.wait_for_function(f"view.events > {seen}")
    expect(page.locator("#status")).to_contain_text("game over")
    # `play --web` serves the page after the game: its own link opens the replay.
    page.click("#replay-link")
    expect(page.locator("#verdict")).to_contain_text("valid")
    for _ in range(12):
        page.click("#prev")
    page.screenshot(path=HERE / "ui-racer-replay.png")


if __name__ == "__main__":
    main()
