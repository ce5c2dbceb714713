"""Creepy Racer at the terminal as a newcomer met it at a table of four (issue 26): what the
cards are and do, what a Hostage Exchange moved, people's words for the deck's work, the
lobby, and the 80-column promise.  Played through the console over a local engine game."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from creepnet.cli.racer.console import WIDTH, RacerConsole
from creepnet.cli.racer.local_game import LocalGame
from creepnet.cli.racer.narration import Story, waiting_words
from creepnet.engine import racer
from creepnet.engine.racer import crafted_position, format_action

NAMES = ["ann", "bob", "cy", "dee"]
LONG = ["a-player-with-a-32-letter-name-x", "b" * 32, "c" * 32, "d" * 32]


def table_at(state, seat=0, bots=(), seed=1, labels=NAMES):
    bots = {s: b if not isinstance(b, int) else racer.make_bot("heuristic", s) for s, b in bots}
    table = LocalGame(state, seed, seat, bots, labels[: state.n])
    table.advance()
    return table, RacerConsole(table)


def two_player():
    return crafted_position(
        lines={0: ["Grimy Gus", ("Skidmark Skip", ["Bone Dry"])], 1: ["Slime Sally"]},
        hands={0: ["Flat Tire", "Extra Gas", "2X"], 1: ["3X"]},
        decks={0: ["Duct Tape"] * 3, 1: ["Shortcut", "Nitro Nosferatu"]},
    )


def test_the_hand_shows_each_cards_kind_and_card_n_says_what_it_does():
    _, console = table_at(two_player())
    assert "your hand: 1 Flat Tire (Calamity)  2 Extra Gas (Good Fortune)  3 2X (Hero)" in (
        console.board()
    )
    one = console.handle("card 1").text
    assert one.startswith("1 Flat Tire, Calamity: on an opponent's Creep: -1 strength")
    assert "Spare Wheel heals it" in one
    assert "3 2X, Hero: in an attack, doubles your side's value" in console.handle("card").text
    creep = console.handle("card 0b").text
    assert "0b Skidmark Skip, Creep: strength 4" in creep and "on it: Bone Dry" in creep
    assert "you hold 3 cards" in console.handle("card 9").text
    kinds = console.handle("help cards").text
    for words in ("Creep", "Calamity", "Good Fortune", "Monster", "Modifier: multiplies"):
        assert words in kinds
    assert "Bone Dry / Extra Gas / Fuel Fiend" in kinds
    assert console.handle("play card 1 1a").action is not None  # "card" inside a move still plays


@dataclass
class Forcer:
    """Seat 0's bot: forces a Hostage Exchange on seat 1 once, then passes."""

    name: str = "forcer"

    def choose(self, obs: racer.Observation, legal: Sequence[racer.Action]) -> racer.Action:
        force = [a for a in legal if isinstance(a, racer.ForceHostage) and a.seat == 1]
        quiet = [a for a in legal if isinstance(a, racer.Pass | racer.StopHeroes)]
        return (force or quiet or list(legal))[0]


def hostage_game():
    return crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"], 2: ["Rusty Rita"]},
        hands={0: ["Flat Tire"], 1: ["3X"], 2: ["Duct Tape"]},
        decks={0: ["Shortcut"] * 3, 1: ["Spare Wheel"] * 3, 2: ["Jump Start"] * 3},
    )


def test_a_hostage_exchange_tells_each_player_their_own_side_and_the_table_that_cards_moved():
    asker_table, asker = table_at(hostage_game(), seat=0, bots=[(1, 1), (2, 2)])
    asker_table.play(asker.handle("force 1").action)
    asker_status = asker.status()
    assert "Hostage Exchange with seat 1: you gave Flat Tire and got 3X" in asker_status

    target_table, target = table_at(hostage_game(), seat=1, bots=[(0, Forcer()), (2, 2)])
    target_status = target.status()
    assert "Hostage Exchange with seat 0: you gave 3X and got Flat Tire" in target_status

    watcher_table, watcher = table_at(hostage_game(), seat=2, bots=[(0, Forcer()), (1, 1)])
    said = "\n".join([watcher.status(), watcher.board(), *watcher_table.story()])
    assert "Hostage Exchange with" not in said and "you gave" not in said
    assert "seat 0 and seat 1 each take a card blindly from the other's hand" in said
    assert "Hostage Exchange with" not in asker.status()  # said once


def test_the_deck_work_is_said_in_words_for_people():
    said = {
        "release deck:3[12] to seat 0": "let seat 0 see the card it draws",
        "show whether the card just drawn is a Creep": "place or keep the card it drew",
        "decide (hero)": "play a Hero or stop",
        "reveal the deck secret for the audit": "show its deck secret, to check the game",
        "shuffle discard:2": "shuffle the discard pile",
        "lock deck:1": "seal a draw deck",
        "reveal randomness for the die (modifier) of seat 2": "roll for seat 2's Modifier",
        "reveal randomness for the die (start) of seat 0": "roll for seat 0's start roll",
        "take the hostage card deck:1[4]": "take the Hostage card",
        "seat the next player who asks to join": "seat the next player who asks to join",
        "lock faceup": "seal the face-up Creeps",
        "release deck:2[7] to seat 0 for retired seat 2": (
            "let seat 0 see the card it draws, for retired seat 2"
        ),
        "re-deal its escrow among the seats still playing": (
            "re-deal its escrow among the seats still playing"
        ),
    }
    for internal, words in said.items():
        assert waiting_words(internal) == words
        assert not re.search(r"\w+:\d|\[\d+\]|\(\w+\)$", waiting_words(internal))


def test_counts_are_singular_when_one_and_a_drawn_creep_is_named_plainly():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"]},
        hands={0: ["2X"], 1: ["3X"]},
        decks={0: ["Nitro Nosferatu", "Duct Tape", "Jump Start", "Turbo Toad"], 1: ["Shortcut"]},
        turn=0,
        at="turn-start",
    )
    table, console = table_at(state)
    board = console.board()
    assert "(1 Creep)" in board and "1 Creeps" not in board
    assert "draws the Creep Nitro Nosferatu" in board and "draws Creep seat" not in board


def test_a_turn_seen_only_from_half_way_is_not_told_as_a_pass():
    bots = {0: racer.make_bot("heuristic", 0), 1: racer.make_bot("heuristic", 1)}
    table = LocalGame(racer.new_game(racer.Options(players=2)), 3, None, bots)
    table.advance(150)
    turn = table.state.turn
    assert turn is not None and not isinstance(racer.pending(table.state), racer.GameOver)
    story = Story()
    story.note(f"(the game is at turn {turn.number})", under_way=(turn.number, turn.seat))
    # The rest of that turn is told by its consequences only: what came before is unknown.
    before = table.state
    story.step(before, racer.CHANCE, None, before)
    story.note("(looked away)")
    line = next(row for row in story.lines if row.startswith(f"Turn {turn.number:3d}"))
    assert "passes" not in line and line.endswith(": …"), line
    plain = Story()
    plain.step(before, racer.CHANCE, None, before)
    plain.note("(looked away)")
    assert any(row.endswith(": passes") for row in plain.lines)  # the same, seen whole


@dataclass
class Lobby:
    """A table whose seats are still filling (what the console reads before the deal)."""

    names: list[str]
    local_seat: int | None = 1
    seats: int = 4

    def labels(self):
        return self.names

    def seat_count(self):
        return self.seats

    def observation(self):
        return None

    def legal(self):
        return []

    def story(self):
        return []

    def outcome(self):
        return None

    def waiting(self):
        return None

    def seat_of_peer(self, fingerprint):
        return 1 if fingerprint == "k3xq-7mfa" and len(self.names) > 1 else None

    def news(self):
        return []


def test_while_seats_fill_the_lobby_counts_them_and_names_who_took_one():
    lobby = Lobby(["ann"], local_seat=0)
    host = RacerConsole(lobby)
    waits = "waiting for players to join ({}/4 seats taken); 'quit' stops waiting"
    assert host.status() == "you have seat 0\n" + waits.format(1)
    news = host.peer_news(True, "k3xq-7mfa", "bob (k3xq-7mfa) at 127.0.0.1:4000 follows the game")
    assert news == "* bob (k3xq-7mfa) connected"  # not seated yet: not "follows the game"
    lobby.names.append("bob")
    assert host.status() == "* seat 1 bob takes a seat\n" + waits.format(2)
    joiner = RacerConsole(Lobby(["ann", "bob"], local_seat=1))
    assert joiner.status() == "you have seat 1\n" + waits.format(2)
    lobby.names += ["cy", "dee"]
    assert host.status().split("\n") == [
        "* seat 2 cy takes a seat",
        "* seat 3 dee takes a seat",
        "all 4 seats taken: the game starts",
        "dealing the cards",
    ]
    assert host.status() == "dealing the cards"  # said once


def test_a_console_that_first_looks_at_a_dealt_game_announces_no_seats():
    table, console = table_at(two_player())
    assert "takes a seat" not in console.status() and "you have seat" not in console.status()


def every_screen(console: RacerConsole, table: LocalGame) -> list[str]:
    shown = [console.introduction(), console.board(), console.status()]
    for line in ("help", "help cards", "moves", "card", "card 1", "card 0a", "board", "x"):
        shown.append(console.handle(line).text)
    shown.append(console.peer_news(False, None, f"{LONG[1]} (k3xq-7mfa) at 10.0.0.1:5 left"))
    for seat in range(table.state.n):
        shown.append(console.peer_news(False, "x", "x"))
        shown.append(console._label(seat))
    return shown


def test_every_racer_screen_fits_80_columns_with_long_names():
    state = racer.new_game(racer.Options(players=4, turn_limit=40))
    table, console = table_at(state, seat=0, bots=[(1, 1), (2, 2), (3, 3)], seed=5, labels=LONG)
    bot = racer.make_bot("heuristic", 0)
    checked = 0
    while table.legal():
        for text in every_screen(console, table):
            for row in text.split("\n"):
                assert len(row) <= WIDTH, f"{len(row)} columns: {row!r}"
        checked += 1
        table.play(format_action(bot.choose(table.observation(), table.legal())))
    assert checked > 10


async def test_a_seated_console_follows_a_networked_deal_from_the_first_event(tmp_path):
    """The seat's own cards are remembered as the log grows (to name a Hostage Exchange): that
    must not ask for the seat's view while the dealt face-up Creeps are not shown yet."""
    import trio

    from creepnet.cli.racer.session_game import SessionGame
    from creepnet.node import Node
    from creepnet.protocol.games.racer import public_observation, seat_view

    async with (
        Node.open(tmp_path / "a", host="127.0.0.1") as alice,
        Node.open(tmp_path / "b", host="127.0.0.1") as bob,
    ):
        game = await alice.host_game("racer", "r", seats=2, player="ann", options={"turn_limit": 2})
        await bob.join(alice.address, game, player="bob")
        session = alice.session(game)
        console = RacerConsole(SessionGame(session, seat_view, public_observation))
        shown = [console.status()]
        with trio.fail_after(120):
            while console.view.observation() is None or session.game_state.state.turn is None:
                shown += [console.status(), console.board()]  # as the play loop does
                await alice.wait_changed(game)
    assert "you have seat 0" in shown[0]
    assert any("all 2 seats taken: the game starts" in text for text in shown)
    assert "Set-up" in "\n".join(console.view.story())


def test_a_racer_game_in_a_terminal_explains_its_cards_and_fits_80_columns(tmp_path):
    """A pty, as a person has it: `creepnet play racer`, then `card 1`, `help cards`, `quit`."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    main, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "creepnet.cli", "play", "racer", "--players", "2",
         "--home", str(tmp_path), "--player", "me"],
        stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True,
    )  # fmt: skip
    os.close(terminal)
    seen = b""

    def read_until(wanted: bytes, since: int = 0) -> None:
        nonlocal seen
        deadline = time.monotonic() + 180
        while not re.search(wanted, seen[since:]):
            ready, _, _ = select.select([main], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"never saw {wanted!r} in {seen[-800:]!r}"
            seen += os.read(main, 4096)

    try:
        read_until(rb"\n> ")  # our turn: the prompt on a row of its own
        os.write(main, b"card 1\n")
        read_until(rb"(\n|\x1b\[K)1 [^\r\n]+, (Creep|Calamity|Good Fortune|Monster|Hero): ")
        # Type the next command only at the next prompt, as a person would: typed any sooner,
        # the terminal echoes it on the row still being written (the line then looks too wide).
        read_until(rb"\n> ", since=seen.rindex(b"1 "))
        os.write(main, b"help cards\n")
        read_until(rb"Calamity / its Good Fortune / its Monster")
        os.write(main, b"quit\n")
        read_until(rb"it waits for you")
        assert process.wait(timeout=120) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    text = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]", b"", seen).decode()
    rows = [row for line in text.split("\r\n") for row in line.split("\r")]
    assert "the kinds of card" in text
    assert re.search(r"your hand: 1 .+ \((Calamity|Good Fortune|Hero|Monster)\)", text)
    # The resume command repeats the --home path the user typed, however long it is.
    rows = [row for row in rows if "it waits for you: " not in row]
    assert max(len(row) for row in rows) <= WIDTH, max(rows, key=len)
