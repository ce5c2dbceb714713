"""The replay page of a Racer log in headless Chromium, stepped turn by turn and move by move:
what it says is the live page's words, never the deck's jargon (issue #26 item 12)."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from test_web_browser import browser, creepnet, open_page  # noqa: F401 (the fixtures)

from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

JARGON = re.compile(r"deck work|acts:|slot=|card=|target=|deck:\d|keep-drawn|release ")


def test_a_racer_replay_steps_by_turn_and_by_move(browser, creepnet, tmp_path):  # noqa: F811
    table = SessionHarness(seats=2, kind="racer", options={"turn_limit": 3}, seed=4)
    table.run([seat_bot("racer", "heuristic", seat) for seat in range(2)])
    log = tmp_path / "race.log"
    log.write_bytes(table.spectator.log.to_bytes())

    viewer = creepnet("dora", "replay", "--web", "--no-browser", str(log))
    page = open_page(browser, viewer.url)
    expect(page.locator("#verdict.valid")).to_contain_text("finished")
    heads = page.locator("#events li.turn-head")
    expect(heads).to_have_count(5)  # before the game, the set-up, three turns
    listed = page.locator("#events").inner_text()
    assert "Turn 3: " in listed and not JARGON.search(listed), JARGON.search(listed)

    page.click("#first")
    expect(page.locator("#turn-title")).to_have_text("Before the game")
    expect(page.locator("#event")).to_contain_text("hosts racer game")
    page.click("#next-turn")
    expect(page.locator("#turn-title")).to_have_text("Set-up")
    expect(page.locator("#event")).to_contain_text("deals")  # the deal, its deck work under it
    expect(page.locator("#work")).to_contain_text("shuffle the Creeps")
    page.click("#next-turn")
    expect(page.locator("#turn-title")).to_have_text(
        re.compile(r"^Turn 1: p\d \(seat \d\) to play$")
    )
    expect(page.locator("#event")).to_contain_text("draws a card")
    expect(page.locator("#work")).to_contain_text("see the card it draws")
    first_of_turn_1 = page.locator("#position").inner_text()
    page.click("#next")  # a move within the turn
    expect(page.locator("#turn-title")).to_contain_text("Turn 1: ")
    expect(page.locator("#position")).not_to_have_text(first_of_turn_1)
    page.keyboard.press("PageDown")
    expect(page.locator("#turn-title")).to_contain_text("Turn 2: ")
    page.keyboard.press("PageUp")  # back to the first move of turn 1
    expect(page.locator("#position")).to_have_text(first_of_turn_1)
    page.locator("#events li.turn-head", has_text="Turn 3: ").click()
    expect(page.locator("#turn-title")).to_contain_text("Turn 3: ")
    expect(page.locator("#events li.current")).to_have_count(1)
    page.click("#last")
    expect(page.locator(".racer-seat .seat-hand")).to_have_count(2)  # the audit named them
