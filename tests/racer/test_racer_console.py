"""The Creepy Racer terminal console, played through a local engine game (LocalGame): what it
shows fits 80×24 and keeps hidden cards hidden; what a person types becomes exactly one legal
action, and anything else gets a helpful answer."""

import re

import pytest

from creepnet.cli.faces import Console
from creepnet.cli.racer.console import HEIGHT, WIDTH, RacerConsole
from creepnet.cli.racer.local_game import LocalGame, public_view
from creepnet.cli.racer.narration import Story
from creepnet.engine import racer
from creepnet.engine.racer import crafted_position, format_action, slot_of


def table_at(state, seat=0, bots=(), seed=1):
    table = LocalGame(
        state, seed, seat, {s: racer.make_bot("heuristic", s) for s in bots}, ["ann", "bob", "cy"]
    )
    table.advance()
    return table, RacerConsole(table)


def two_player(**kw):
    return crafted_position(
        lines={
            0: ["Grimy Gus", ("Skidmark Skip", ["Bone Dry"])],
            1: ["Slime Sally", "Nitro Nosferatu"],
        },
        hands={0: ["Flat Tire", "Extra Gas", "2X", "2X"], 1: ["3X", "Spare Wheel"]},
        decks={0: ["Duct Tape"] * 3, 1: ["Shortcut"] * 3},
        **kw,
    )


def send(table, console, line):
    reply = console.handle(line)
    assert reply.action is not None, reply.text
    table.play(reply.action)
    while (queued := console.pending_action()) is not None:
        table.play(queued)
    return reply


# --- what it shows -------------------------------------------------------------------------------


def test_the_board_shows_lines_hand_counts_discard_turn_and_story():
    table, console = table_at(two_player())
    assert console.ready()
    board = console.board()
    assert "turn 1: seat 0 ann (you)'s turn, 2 moves left" in board
    assert "a Grimy Gus 3" in board and "b Skidmark Skip 3/4 [Bone Dry]" in board
    assert re.search(r"seat 1 bob: hand 2, deck 3 \(0 Creeps\)", board)
    assert "your hand: 1 Flat Tire (Calamity)  2 Extra Gas (Good Fortune)  3 2X (Hero)" in board
    assert "discard pile: 0 (top empty)" in board
    assert console.status().startswith("your move")
    send(table, console, "1 1a")  # Flat Tire on Slime Sally
    board = console.board()
    assert "a Slime Sally 2/3 [Flat Tire]" in board
    assert "Flat Tire on seat 1's Slime Sally (2)" in board  # what just happened, in words


def test_every_screen_of_a_four_player_game_fits_80_by_24():
    state = racer.new_game(racer.Options(players=4, turn_limit=60))
    table, console = table_at(state, seat=0, bots=(1, 2, 3), seed=5)
    bot = racer.make_bot("heuristic", 0)
    screens = 0
    while table.legal():
        screen = console.board() + "\n" + console.status()
        rows = screen.split("\n")
        assert len(rows) <= HEIGHT - 1, screen  # and the prompt below
        assert max(len(r) for r in rows) <= WIDTH, screen
        screens += 1
        choice = bot.choose(table.observation(), table.legal())
        table.play(format_action(choice))
    assert screens > 20


def test_a_spectator_sees_no_hand_and_cannot_move():
    state = racer.new_game(racer.Options(players=3))
    table, console = table_at(state, seat=None, bots=(0, 1, 2), seed=2)
    table.advance(400)
    obs = table.observation()
    assert obs.hand == ()
    assert set(public_view(table.state).known) <= racer.public_slots(table.state)
    assert "your hand" not in console.board()
    assert "you are watching" in console.introduction()
    assert "watching" in console.handle("pass").text


def test_the_story_names_only_cards_everyone_has_seen():
    full, public = Story(), Story()

    def both(before, actor, action, after):
        full.step(before, actor, action, after)
        public.step(public_view(before), actor, action, public_view(after))

    bots = [racer.make_bot("heuristic", s) for s in range(3)]
    racer.play_game(bots, 4, racer.Options(players=3, turn_limit=200), observer=both)
    assert full.lines == public.lines and len(full.lines) > 10


# --- what a line means ---------------------------------------------------------------------------


def test_every_legal_action_has_a_spelling_that_the_console_turns_back_into_it():
    state = racer.new_game(racer.Options(players=3, turn_limit=80))
    table, console = table_at(state, seat=1, bots=(0, 2), seed=7)
    bot = racer.make_bot("heuristic", 1)
    kinds = set()
    while table.legal():
        legal = table.legal()
        listed = console.handle("moves").text.removeprefix("you can type: ")
        spellings = [s.strip() for s in re.split(r"\s{2,}|\n", listed) if s.strip()]
        assert len(spellings) == len(legal)
        resolved = {console.handle(s).action for s in spellings}
        assert resolved == {format_action(a) for a in legal}
        kinds |= {type(a).__name__ for a in legal}
        table.play(format_action(bot.choose(table.observation(), legal)))
    assert {"PlayCalamity", "DeclareAttack", "Launch", "StopHeroes", "Discard"} <= kinds


def test_a_whole_attack_in_one_line():
    state = crafted_position(
        lines={0: ["Grimy Gus", "Slime Sally"], 1: ["Nitro Nosferatu"]},
        hands={0: ["2X"], 1: ["Extra Gas"]},
        decks={0: ["Duct Tape"] * 3, 1: ["Shortcut"] * 3},
    )
    table, console = table_at(state, bots=(1,))
    reply = send(table, console, "att 1a with a b go")
    assert reply.action.startswith("declare-attack")
    assert table.state.dead == (slot_of(state, "Nitro Nosferatu"),)  # 3 + 3 beat 5
    assert "attacks seat 1's Nitro Nosferatu (5) with seat 0's Grimy Gus (3) + seat 0's" in (
        console.board().replace("\n    ", " ")
    )


def test_an_attack_step_that_becomes_impossible_is_dropped_and_said():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Nitro Nosferatu"]},
        hands={0: ["2X"], 1: ["Extra Gas"]},
        decks={0: ["Duct Tape"] * 3, 1: ["Shortcut"] * 3},
    )
    table, console = table_at(state, bots=(1,))
    table.play(console.handle("attack a with a go").action)  # 3 against 5: 'go' is not legal
    table.play(console.pending_action())  # 'with a' is
    assert console.pending_action() is None
    assert "the rest of your attack was not sent: 'go'" in console.status()
    assert console.handle("go 1").action.startswith("launch")  # opening with the 2X works


@pytest.mark.parametrize(
    "line, answer",
    [
        ("7", "you hold 4 cards: type 1 to 4"),
        ("1", "card 1 (Flat Tire): type one of 1 1a, 1 1b"),
        ("2 1a", "card 2 (Extra Gas): type one of 2 0b"),
        ("wi a", "'wi' is not a command: with or withdraw?"),
        ("xyzzy", "'xyzzy' is not a command"),
        ("attack 0a", "'attack 0a' is not possible now; try attack 1a, attack 1b"),
        ("stop", "'stop' is not possible now; type 'moves' for your options"),
        # the grammar read the word after 'discard', which is not there: an IndexError
        ("discard", "discard which card? type its number, e.g. discard 1"),
        ("discard card", "discard which card?"),
    ],
)
def test_helpful_errors_suggest_only_legal_moves(line, answer):
    _, console = table_at(two_player())
    reply = console.handle(line)
    assert reply.action is None and answer in reply.text


def test_commands_may_be_shortened_to_an_unambiguous_prefix():
    _, console = table_at(two_player())
    assert console.handle("fo 1").action == "force-hostage seat=1"
    assert console.handle("as 1").action == "ask-hostage seat=1"
    assert console.handle("PASS").action == "pass"


def test_identical_cards_are_one_choice_typed_by_either_number():
    table, console = table_at(two_player())
    send(table, console, "attack 1a with b")
    assert console.handle("go 3").action == console.handle("go 4").action


def test_a_bare_creep_letter_is_taken_when_only_one_target_has_it():
    state = crafted_position(
        lines={0: ["Grimy Gus"], 1: ["Slime Sally"], 2: ["Rusty Rita"]},
        hands={0: ["Flat Tire"], 1: ["2X"], 2: ["2X"]},
    )
    _, console = table_at(state)
    assert console.handle("1 a").text == "'1 a' could be 1 1a or 1 2a"
    assert console.handle("1 2a").action == format_action(
        racer.PlayCalamity(
            slot_of(state, "Flat Tire"),
            state.known[slot_of(state, "Flat Tire")],
            slot_of(state, "Rusty Rita"),
        )
    )
    _, console = table_at(two_player())
    assert console.handle("1 a").action == console.handle("1 1a").action  # 0a is not a target


def test_answers_out_of_turn_and_after_the_end():
    _, console = table_at(two_player(turn=1))
    assert console.handle("pass").text == "not your turn: waiting for seat 1 bob to move"
    assert console.prompt() == ""
    _, console = table_at(two_player())
    assert console.prompt() == "> "
    over = crafted_position(lines={0: ["Grimy Gus"], 1: ["Rusty Rita"]})
    table, console = table_at(over)
    table.play(console.handle("pass").action)  # a dead position: the game ends level
    assert console.status().startswith("game over: Draw: nobody can draw")
    assert console.handle("pass").text.startswith("the game is over")
    assert console.handle("quit").quit


def test_the_console_answers_everything_the_play_loop_asks():
    asked = [name for name in vars(Console) if not name.startswith("_")]
    asked += list(Console.__annotations__)  # resign_queued, redraw_after
    _, console = table_at(two_player())
    for name in asked:
        assert hasattr(console, name), name
