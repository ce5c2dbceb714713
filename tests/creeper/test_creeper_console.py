"""Terminal play commands against a real session: moves, errors, draw offers, resignation."""

from creepnet.cli.creeper.console import CreeperConsole
from creepnet.protocol.table import Table


def started() -> tuple[Table, CreeperConsole, CreeperConsole]:
    table = Table(seed=31)
    for _ in range(3):
        for seat, session in enumerate(table.sessions):
            table.broadcast(seat, session.owed())
        table.pump()
    mover = table.sessions[0].expected().seat
    return table, CreeperConsole(table.sessions[mover]), CreeperConsole(table.sessions[1 - mover])


def send(table: Table, console: CreeperConsole, action: str) -> None:
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
    assert "e7-d6 or c3xc5" in me.handle("hello").text
    assert "not your turn" in other.handle(first).text


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


def test_resign_out_of_turn_is_queued_until_our_turn():
    table, me, other = started()
    assert "as soon as" in other.handle("resign").text
    assert other.pending_action() is None
    move = me.handle("moves").text.split()[3]
    send(table, me, me.handle(move).action)
    assert other.pending_action() == "resign"
    send(table, other, "resign")
    assert "wins by resignation" in me.status()


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
    watcher = CreeperConsole(table.spectator)
    assert f"seat {other.session.local_seat} {opponent.player}" in watcher.peer_news(False, fp, "x")
    assert me.peer_news(False, "zzzz-zzzz", "a stranger left") == "* a stranger left"
