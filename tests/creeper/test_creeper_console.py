"""Terminal play commands against a real session: moves, errors, draw offers, resignation."""

from creepnet.cli.creeper.console import CreeperConsole
from creepnet.cli.text import printable
from creepnet.protocol.identity import Identity, fingerprint
from creepnet.protocol.lobby import SeatSecrets
from creepnet.protocol.session import Session
from creepnet.protocol.testing.sessions import SessionHarness


def started() -> tuple[SessionHarness, CreeperConsole, CreeperConsole]:
    table = SessionHarness(seed=31)
    for _ in range(3):
        for seat, session in enumerate(table.sessions):
            table.broadcast(seat, session.owed())
        table.pump()
    mover = table.sessions[0].expected().seat
    return table, CreeperConsole(table.sessions[mover]), CreeperConsole(table.sessions[1 - mover])


def send(table: SessionHarness, console: CreeperConsole, action: str) -> None:
    session = console.session
    table.broadcast(session.local_seat, [session.play(action)])
    table.pump()


def test_introduction_and_status_name_the_players():
    table, me, other = started()
    intro = me.introduction()
    assert "(you)" in intro and "light" in intro and "dark" in intro
    first = me.status()
    assert first.startswith("your turn (") and "type a move" in first and me.prompt() == "> "
    assert me.status() in {"your turn (light)", "your turn (dark)"}  # the hint comes once
    assert "waiting for seat" in other.status() and other.prompt() == ""


def test_a_legal_move_becomes_an_action_and_bad_ones_explain():
    table, me, other = started()
    assert "legal moves" in me.handle("moves").text
    first = me.handle("moves").text.split()[3]
    assert me.handle(first).action == first
    assert "illegal" in me.handle("d4-d5").text and "moves" in me.handle("d4-d5").text
    assert "e7-d6 or c3xc5" in me.handle("a1-a2").text  # no such hole: how moves look
    assert "not your turn" in other.handle(first).text


def test_words_that_are_no_command_are_unknown_on_either_turn():
    table, me, other = started()
    for console in (me, other):
        reply = console.handle("hello there")
        assert reply.action is None and "unknown command 'hello there'" in reply.text
        assert "not your turn" not in reply.text and "moves" in reply.text


def test_moves_out_of_turn_lists_what_we_could_play():
    table, me, other = started()
    text = other.handle("moves").text
    assert "not your turn" in text and "would have" in text
    listed = text.split("\n", 1)[1].split()
    assert listed and all("-" in m or "x" in m for m in listed)
    assert not set(listed) & set(me.handle("moves").text.split("\n", 1)[1].split())


def test_a_wrong_separator_is_corrected_only_into_a_legal_move():
    table, me, other = started()  # the mover plays light: its pins stand on e7, f7, g6, …
    wrong = me.handle("e7-e5").text  # a capture by geometry, but nothing to capture
    assert "write e7xe5" not in wrong and "nothing to capture" in wrong
    assert "From e7 you can play: e7-d6" in wrong
    assert "nothing to capture" in me.handle("e7xe5").text
    assert "write e7-d6" in me.handle("e7xd6").text  # a jump written as a capture: legal advice


def test_draw_offer_goes_with_the_next_move_and_can_be_accepted():
    table, me, other = started()
    assert "next move" in me.handle("draw").text
    move = me.handle("moves").text.split()[3]
    reply = me.handle(move)
    assert reply.action == f"{move} draw"
    send(table, me, reply.action)
    assert "offers a draw" in other.status()
    assert other.handle("draw").action == "accept"
    send(table, other, "accept")
    assert me.status().startswith("game over: draw")
    assert "over" in me.handle("resign").text


def test_draw_offers_and_declines_are_shown_to_the_offerer_and_spectators():
    table, me, other = started()
    watcher = CreeperConsole(table.spectator)
    me.handle("draw")
    send(table, me, me.handle(me.handle("moves").text.split()[3]).action)
    offerer = me.session.local_seat
    assert "you offered a draw" in me.status()
    assert f"seat {offerer} offers a draw" in watcher.status()
    assert "offers a draw" in other.status()
    assert other.handle("decline").action == "decline"
    send(table, other, "decline")
    assert "your opponent declined the draw" in me.status()
    assert "you declined the draw" in other.status() and "your turn" in other.status()
    assert f"seat {1 - offerer} declined the draw" in watcher.status()


def test_an_armed_draw_offer_can_be_cancelled():
    table, me, _ = started()
    me.handle("draw")
    assert "draw offer" in me.handle("cancel").text
    move = me.handle("moves").text.split()[3]
    assert me.handle(move).action == move


def test_resign_asks_once_and_anything_else_calls_it_off():
    table, me, other = started()
    asked = me.handle("resign")
    assert asked.action is None and "confirm" in asked.text
    assert me.handle("board").action is None  # another command: no longer confirming
    assert me.handle("yes").action is None
    me.handle("resign")
    assert me.handle("yes").action == "resign"
    send(table, me, "resign")
    assert me.status().startswith("game over: you lose")
    assert other.status().startswith("game over: you win")
    assert "over" in me.handle("resign").text


def test_resign_out_of_turn_is_queued_until_our_turn_and_can_be_cancelled():
    table, me, other = started()
    assert "confirm" in other.handle("resign").text
    assert "as soon as" in other.handle("resign").text
    assert "'cancel' takes it back" in other.status()
    assert other.pending_action() is None
    assert "resignation" in other.handle("cancel").text
    move = me.handle("moves").text.split()[3]
    send(table, me, me.handle(move).action)
    assert other.pending_action() is None  # taken back: nothing goes out
    assert "confirm" in other.handle("resign").text
    assert other.handle("resign").action == "resign"  # our turn now: sent at once


def test_resign_queued_out_of_turn_goes_out_on_our_turn():
    table, me, other = started()
    other.handle("resign")
    other.handle("yes")
    move = me.handle("moves").text.split()[3]
    send(table, me, me.handle(move).action)
    assert other.pending_action() == "resign"
    send(table, other, "resign")
    assert "wins by resignation" in me.status() and "you win" in me.status()


def test_the_lobby_answers_commands_before_anyone_joins():
    session = Session.host(
        Identity.generate(), SeatSecrets.generate(), kind="creeper", name="lobby"
    )
    console = CreeperConsole(session)
    assert "waiting for an opponent to join (1/2 seats taken)" in console.status()
    assert "opponent has joined" in console.handle("board").text
    assert "has not started" in console.handle("moves").text
    assert "commands" in console.handle("help").text
    assert console.handle("quit").quit


def test_spectator_and_quit():
    table, me, _ = started()
    watcher = CreeperConsole(table.spectator)
    assert "watching" in watcher.introduction()
    assert "watching" in watcher.handle("e7-d6").text
    assert watcher.handle("quit").quit
    assert "ply 0" in watcher.handle("board").text


def test_connection_news_names_the_opponent_and_says_what_it_means():
    table, me, other = started()
    opponent = other.session.seats[other.session.local_seat]
    from creepnet.protocol.identity import fingerprint

    fp = fingerprint(opponent.key)
    gone = me.peer_news(False, fp, "raw text")
    assert f"your opponent {opponent.player} ({fp}) disconnected" in gone and "waits" in gone
    assert "is connected" in me.peer_news(True, fp, "raw text")
    assert f"{opponent.player} ({fp}) is back" in me.peer_news(True, fp, "raw", back=True)
    watcher = CreeperConsole(table.spectator)
    assert f"seat {other.session.local_seat} {opponent.player}" in watcher.peer_news(False, fp, "x")
    assert me.peer_news(False, "zzzz-zzzz", "a stranger left") == "* a stranger left"


def test_text_from_peers_cannot_drive_the_terminal():
    table, me, _ = started()
    evil = "mallory\x1b[2J\x1b]0;owned\x07\n* your opponent resigned\u202e"
    shown = me.peer_news(False, "zzzz-zzzz", evil)
    assert "\x1b" not in shown and "\n" not in shown and "\u202e" not in shown
    assert shown.startswith("* mallory?[2J")
    assert printable("née Ω 🙂") == "née Ω 🙂"  # letters and symbols of any script stay


def test_everything_a_game_shows_fits_80_columns_and_a_board_fits_24_rows():
    from creepnet.engine import creeper

    table, me, other = started()
    for seat in table.sessions[0].seats, table.sessions[1].seats, table.spectator.seats:
        for index, entry in enumerate(seat):
            entry.player = f"{'ABCDEFGHIJ'[index]}" * 32  # the longest name a seat may have
    watcher = CreeperConsole(table.spectator)
    shown: list[str] = []
    for console in (me, other, watcher):
        shown += [console.introduction(), console.status(), console.peer_news(False, "x", "y")]
        for line in ("help", "moves", "hello there", "e7-e5", "a1-a2", "d4-d5", "draw", "resign"):
            shown.append(console.handle(line).text)
        console.handle("cancel")
    other.handle("resign")
    shown.append(other.handle("resign").text)  # queued: the longest waiting status
    shown.append(other.status())
    shown.append(
        me.peer_news(False, fingerprint(other.session.seats[1 - me.session.local_seat].key), "")
    )
    while not me.session.finished:
        mover = me if me.session.my_turn() is not None else other
        move = creeper.legal_moves(mover.session.engine_state)[0]
        send(table, mover, creeper.format_move(move))
        for console in (me, other, watcher):
            shown.append(console.status())
        if me.session.engine_state.ply >= 6:
            send(table, me if me.session.my_turn() else other, "resign")
    for console in (me, other, watcher):
        shown.append(console.status())
        board = console.handle("board").text
        assert len(board.splitlines()) <= 23  # and the prompt: one screen
    too_wide = [line for text in shown for line in text.splitlines() if len(line) > 80]
    assert not too_wide


def test_the_dark_players_board_is_mirrored_so_their_home_is_at_the_bottom_left():
    """Issue 26.10: the page mirrors the dark player's board; the terminal now does too."""
    table, me, other = started()
    watcher = CreeperConsole(table.spectator)
    game = me.session.game_state
    light, dark = (
        (me, other)
        if game.colour_of(me.session.local_seat).value == "light"
        else (
            other,
            me,
        )
    )

    def rows(console: CreeperConsole) -> list[str]:
        return console.board().splitlines()

    assert rows(light) == rows(watcher)  # light and spectators: rank 7 on top
    board_rows = rows(light)[1:-3]  # between the file letters and the octagon letters
    mirrored = rows(dark)[1:-3]
    assert mirrored == board_rows[::-1] != board_rows
    assert rows(dark)[0] == rows(light)[0] and rows(dark)[-3:] == rows(light)[-3:]
    assert mirrored[0].startswith(" 1 ") and mirrored[-1].startswith(" 7 ")
    # The light player's first home base is bottom left; so is the dark player's own.
    assert "=L=" in board_rows[-2][:10] and "=D=" in mirrored[-2][:10]
