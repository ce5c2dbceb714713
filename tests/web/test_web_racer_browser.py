"""Creepy Racer through real pages in headless Chromium: hosted and joined from the lobby,
turns taken by clicks (a draw, a card and its target, a reaction prompt answered, a pass, a
discard down to the hand limit),
watched by a third page that never holds a hidden card, then the replay with every hand."""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import Page, expect
from test_web_browser import (  # noqa: F401 (the fixtures)
    LOOPBACK,
    WEB,
    browser,
    creepnet,
    host_in_lobby,
    lan_row,
    open_page,
)
from web_support import card_ids

# The turn limit: the game ends in a draw after it.  Six turns, not four, so that a deal with
# no card to play on a Creep in time (about one in a hundred at four) is out of reach.
TURNS = 6
HAND_LIMIT = 10  # the engine's default: more at the end of a turn is discarded
TURN_TIMEOUT = 60_000  # a turn's draws are deck work with proofs, on a shared machine


# On every Creep card drawn, the strength and the name do not overlap.
STRENGTHS_CLEAR = """() => {
  const cards = [...document.querySelectorAll(".card.creep")];
  return cards.length > 0 && cards.every((card) => {
    const a = card.querySelector(".strength").getBoundingClientRect();
    const b = card.querySelector(".card-name").getBoundingClientRect();
    return a.bottom <= b.top + 0.5 || a.right <= b.left || b.right <= a.left;
  });
}"""
# The notation field's placeholder, measured in its own font, fits inside the field.
PLACEHOLDER_FITS = """() => {
  const input = document.getElementById("notation"), style = getComputedStyle(input);
  const font = getComputedStyle(input, "::placeholder");
  const context = document.createElement("canvas").getContext("2d");
  context.font = `${font.fontSize} ${font.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return input.placeholder.length > 20 && context.measureText(input.placeholder).width <= room;
}"""


def whose_turn(page: Page, number: int) -> str:
    turn = page.locator("#turn")
    expect(turn).to_contain_text(f"Turn {number}:", timeout=TURN_TIMEOUT)
    match = re.match(r"Turn \d+: (.+)'s turn", turn.inner_text())
    assert match, turn.inner_text()
    return match.group(1)


def cards_in(page: Page, selector: str) -> set[int]:
    """The card ids the page draws at ``selector`` (its data-card attributes)."""
    found = page.locator(selector).evaluate_all("cs => cs.map(c => c.dataset.card)")
    return {int(card) for card in found}


def seat_of(player: str) -> str:
    """The selector of a player's seat box, by its name exactly: a card's name may contain a
    player's name (alice holding Backfire Bob is not bob's seat)."""
    return f'.racer-seat:has(.player:text-is("{player}"))'


def hand_of(page: Page) -> set[int]:
    return cards_in(page, "#hand .card")


def play_a_card_by_clicks(mover: Page, other: Page) -> str | None:
    """Click a card that aims at a Creep, then the first Creep it may go to; the hit player
    answers the Monster prompt.  The card's name, or None when no such card is held."""
    cards = mover.locator("#hand .card.playable.calamity, #hand .card.playable.good_fortune")
    if not cards.count():
        return None
    card = cards.first
    name = card.locator(".card-name").inner_text()
    calamity = "calamity" in (card.get_attribute("class") or "")
    card.click()
    expect(card).to_have_class(re.compile("selected"))
    expect(mover.locator("#pick-hint")).to_contain_text("click a glowing Creep")
    mover.locator(".racer .card.creep.target").first.click()
    if calamity:  # the owner of the Creep is asked, whether or not they hold the Monster
        expect(other.locator("#prompt")).to_contain_text("A Calamity hit your Creep")
        expect(other.locator("#status")).to_contain_text("answer the Calamity on")  # no "turn"
        expect(other.locator(".card.creep.hit")).to_have_count(1)
        other.locator('#choices [data-action="decline-monster"]').click()
    expect(other.locator("#feed")).to_contain_text(name)
    return name


def pass_the_turn(page: Page) -> None:
    expect(page.locator("#prompt")).to_contain_text("Your move", timeout=TURN_TIMEOUT)
    page.locator('#choices [data-action="pass"]').click()


def discard_down_to_the_limit(page: Page, held: int) -> None:
    """A hand over the limit at the end of a turn: one click on a card, one on its discard."""
    for left in range(held - 1, HAND_LIMIT - 1, -1):
        expect(page.locator("#prompt")).to_contain_text("Too many cards", timeout=TURN_TIMEOUT)
        page.locator("#hand .card.playable").first.click()
        page.locator('#choices button.choice[data-action^="discard "]').click()
        expect(page.locator("#hand .card")).to_have_count(left, timeout=TURN_TIMEOUT)


def test_a_racer_game_by_clicks_between_pages_watched_without_hidden_cards_then_replayed(
    browser,  # noqa: F811
    creepnet,  # noqa: F811
):
    name = f"race {secrets.token_hex(3)}"
    alice, bob, carol = (
        creepnet(who, "ui", "--no-browser", "--player", who, *LOOPBACK)
        for who in ("alice", "bob", "carol")
    )
    host = open_page(browser, alice.url)
    host.select_option("#host-kind", "racer")
    expect(host.locator("#host-seats option")).to_have_count(3)  # 2, 3 or 4 players
    expect(host.locator("#host-limit-label")).to_have_text("Turn limit")
    host.select_option("#host-seats", "2")
    host_in_lobby(host, name, TURNS)

    guest = open_page(browser, bob.url)
    expect(lan_row(guest, name)).to_contain_text("Creepy Racer")  # the name its record gives
    expect(lan_row(guest, name)).to_contain_text("1/2")
    lan_row(guest, name).locator("button.join").click()
    expect(guest).to_have_url(re.compile(r"/game/"))
    spectator = open_page(browser, carol.url)
    lan_row(spectator, name).locator("button.watch").click()
    expect(spectator.locator("#watching")).to_be_visible()

    pages = {"alice": host, "bob": guest}
    first = whose_turn(host, 1)
    second = "bob" if first == "alice" else "alice"
    played = []
    for number in range(1, TURNS + 1):
        name_now = first if number % 2 else second
        mover, other = pages[name_now], pages[second if name_now == first else first]
        assert whose_turn(mover, number) == name_now and whose_turn(other, number) == name_now
        expect(mover.locator("#status")).to_contain_text("your turn")
        expect(other.locator("#status")).to_contain_text("waiting for seat")
        expect(other.locator("#choices")).to_be_hidden()
        expect(other.locator("#hand .card.playable")).to_have_count(0)
        if number == 1:  # the second player holds the opening hand: five cards, not yet drawn
            expect(other.locator("#hand .card")).to_have_count(5)
            expect(mover.locator(".racer-seat:not(.mine) .counts")).to_contain_text("hand 5 ")
        if number == 2:  # their turn began with a draw of two cards, seen by everyone
            expect(mover.locator("#hand .card")).to_have_count(7)
            expect(other.locator(".racer-seat:not(.mine) .counts")).to_contain_text("hand 7 ")
            expect(spectator.locator(f"{seat_of(name_now)} .counts")).to_contain_text("hand 7 ")
        if not played:
            card = play_a_card_by_clicks(mover, other)
            if card is not None:
                played.append(card)
                expect(spectator.locator("#feed")).to_contain_text(card)
                expect(mover.locator("#turn")).to_contain_text("1 move left")
        expect(mover.locator("#prompt")).to_contain_text("Your move", timeout=TURN_TIMEOUT)
        held = len(hand_of(mover))  # the turn's draw is in hand once the move is asked for
        if number == 3:  # by keyboard: the terminal's words, checked by its grammar
            expect(mover.locator("#prompt")).to_contain_text("Your move", timeout=TURN_TIMEOUT)
            assert mover.evaluate(PLACEHOLDER_FITS)  # the game's examples, not cut off
            mover.fill("#notation", "fly away")
            mover.press("#notation", "Enter")
            expect(mover.locator("#error")).to_contain_text("'fly' is not a command")
            mover.fill("#notation", "pass")
            mover.press("#notation", "Enter")
        else:
            pass_the_turn(mover)
        discard_down_to_the_limit(mover, held)  # seen by the turn 6 mover: 5 + 3 draws of 2

        # The spectator's page and what its node tells it: no card of any hand, ever.
        hidden = hand_of(host) | hand_of(guest)
        expect(spectator.locator("#hand")).to_have_count(0)
        shown = cards_in(spectator, "[data-card]")
        told = card_ids(spectator.evaluate("api('/api/game/' + GAME)"))
        assert shown and told and not (shown | told) & hidden
    assert played, f"neither player held a card to play on a Creep in {TURNS} turns"

    for page in (host, guest, spectator):
        expect(page.locator("#status")).to_contain_text("game over", timeout=TURN_TIMEOUT)
    expect(host.locator(".seat .presence.connected")).to_have_count(2)  # both nodes are there
    assert spectator.evaluate(STRENGTHS_CLEAR)  # a "4/5" never covers the Creep's name
    bobs_hand = hand_of(guest)
    host.click("#replay-link")
    expect(host.locator("#verdict")).to_contain_text("valid,")
    expect(host.locator("#verdict")).to_contain_text("finished")
    expect(host.locator(".racer-seat .seat-hand")).to_have_count(2)  # every hand, shown
    assert cards_in(host, f"{seat_of('bob')} .seat-hand [data-card]") == bobs_hand
    host.click("#first")
    expect(host.locator("#event")).to_contain_text(f"hosts racer game '{name}'")


# Whether the element is wholly inside the window as it stands (nothing scrolled).
IN_VIEW = """(id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
}"""


def test_on_a_phone_what_the_game_asks_waits_at_the_foot_of_the_window(
    browser,  # noqa: F811
    creepnet,  # noqa: F811
):
    """At 390 px the table fills a screen or two: when the game asks us, whose turn it is, the
    prompt and its buttons are in sight without scrolling, and hide no card of the hand."""
    solo = creepnet("solo", "play", "racer", "--player", "solo", *WEB)
    page = open_page(browser, solo.url, width=390, height=844)
    expect(page.locator("#prompt")).to_be_visible(timeout=3 * TURN_TIMEOUT)
    assert page.evaluate("window.scrollY") == 0
    for part in ("status", "prompt", "choices"):
        assert page.evaluate(IN_VIEW, part), part
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    hand = page.locator("#hand").bounding_box()
    bar = page.locator("#now").bounding_box()
    assert hand is not None and bar is not None and hand["y"] + hand["height"] <= bar["y"] + 1
