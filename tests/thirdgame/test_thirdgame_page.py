"""The dice race in a real page (headless Chromium): the page loads the game's own script, which
lives under tests/, by the name its view gives, plays it by clicks, and replays its log."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).parents[1] / "web"))
from web_support import Process, chromium  # noqa: E402

CLI = [sys.executable, str(Path(__file__).with_name("dicerace_cli.py"))]
WEB = ("--web", "--no-browser", "--iface", "127.0.0.1")


@pytest.fixture
def browser(tmp_path) -> Iterator:
    with chromium(tmp_path / "chromium-profile") as context:
        yield context


def test_a_dice_race_against_a_bot_by_clicks_then_its_replay(browser, tmp_path):
    started: list[Process] = []
    try:
        solo = Process(
            ["play", "dicerace", "--vs", "roller", "--player", "dora", *WEB], tmp_path / "dora", CLI
        )
        started.append(solo)
        page = browser.new_page()
        page.goto(solo.url)
        expect(page.locator("#track li")).to_have_count(2)
        expect(page.locator("#notation")).to_have_attribute("placeholder", "type: roll")
        expect(page.locator("#resign")).to_be_hidden()
        expect(page.locator("#offer-draw-label")).to_be_hidden()
        rolls = 0
        while True:  # roll on each of our turns (the button is there only then) to the end
            page.locator("#roll, #status.over").first.wait_for()
            if page.locator("#status.over").count():
                break
            # The view redraws the board on every change: wait until this very button is gone,
            # or the next pass could click a stale one just before the bot's winning roll.
            button = page.query_selector("#roll")
            assert button is not None
            button.click()
            button.wait_for_element_state("hidden")
            rolls += 1
            expect(page.locator("#summary")).to_contain_text("rolled")
            assert rolls < 40
        expect(page.locator("#status")).to_contain_text("wins by reaching 10")
        assert rolls >= 1
        log_path = solo.wait_line(re.compile(r"^log: (.+)$")).group(1)
        assert solo.popen.poll() is None  # the page stays up after the game, until Ctrl-C

        viewer = Process(["replay", "--web", "--no-browser", log_path], tmp_path / "dora", CLI)
        started.append(viewer)
        page = browser.new_page()
        page.goto(viewer.url)
        expect(page.locator("#verdict.valid")).to_contain_text("wins by reaching 10")
        expect(page.locator("#track li")).to_have_count(2)
        expect(page.locator("#summary")).to_contain_text("rolled")
        page.keyboard.press("Home")
        expect(page.locator("#track")).to_have_count(0)  # before the start: no track yet
    finally:
        for process in started:
            process.stop()
