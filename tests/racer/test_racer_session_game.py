"""The console's table over a networked session (SessionGame), exercised with a stand-in
session that logs one event per engine step, as the racer adapter does: the story told from
the log is the story of the game, the spectator sees no hand, and the seat's options come from
the accessor only on its turn."""

from types import SimpleNamespace

from creepnet.cli.racer.console import RacerConsole
from creepnet.cli.racer.local_game import public_view
from creepnet.cli.racer.narration import HostageWatch, Story, swap_story
from creepnet.cli.racer.session_game import SessionGame
from creepnet.engine import racer
from creepnet.protocol.identity import fingerprint


def request_topic(request):
    return getattr(request, "topic", "")


class LoggedGame:
    """A full-information bot game that a stand-in session follows event by event."""

    def __init__(self, players, seed, local_seat):
        self.full = racer.new_game(racer.Options(players=players, turn_limit=200))
        self.local_seat = local_seat
        self.seats = [
            SimpleNamespace(key=bytes([k + 1]) * 32, player=f"p{k}") for k in range(players)
        ]
        self.log = SimpleNamespace(events=[])
        self.game_state = SimpleNamespace(state=None)
        self.started, self.halted, self.outcome_text = True, None, None
        self.abandoned = None  # nobody claimed it abandoned
        self.bots = [racer.make_bot("heuristic", seed * 10 + k) for k in range(players)]
        self.rng = __import__("random").Random(seed)

    # the Session API the table reads
    def my_turn(self):  # the draws' place/keep steps are automatic, never "your turn"
        request = racer.pending(self.full)
        return (
            object() if request == racer.Decide(self.local_seat, request_topic(request)) else None
        )

    def waiting_for(self):
        return None

    # the accessors the racer adapter provides
    def seat_view(self, session):
        seat = self.local_seat
        view = racer.redact(self.full, seat)
        legal = racer.legal_actions(view) if racer.pending(view).actor == seat else []
        return SimpleNamespace(observation=racer.observation_of_view(view, seat), legal=legal)

    def public_observation(self, session, seat):
        return racer.observation_of_view(public_view(self.full), seat)

    def step(self):
        """One engine step, logged: an act for a seat action, a deck event for chance."""
        request = racer.pending(self.full)
        if request.actor == racer.CHANCE:
            action, kind, body = racer.chance_action(self.full, self.rng), "deck", {}
            author = self.seats[0].key
        else:
            view = racer.redact(self.full, request.actor)
            legal = racer.legal_actions(view)
            obs = racer.observation_of_view(view, request.actor)
            action = legal[0] if len(legal) == 1 else self.bots[request.actor].choose(obs, legal)
            kind, body = "act", {"action": racer.format_action(action)}
            author = self.seats[request.actor].key
        before = self.full
        self.full = racer.apply(before, action)
        self.log.events.append(SimpleNamespace(type=kind, body=body, author=author))
        self.game_state.state = public_view(self.full)
        return before, request.actor, action

    def over(self):
        return isinstance(racer.pending(self.full), racer.GameOver)


def test_the_story_told_from_the_log_is_the_story_of_the_game():
    game = LoggedGame(3, seed=6, local_seat=None)
    table = SessionGame(game, game.seat_view, game.public_observation)
    expected = Story()
    hostage = HostageWatch()
    while not game.over():
        before, actor, action = game.step()
        after = public_view(game.full)
        if actor != racer.CHANCE:  # an act: told, then its consequences
            expected.step(public_view(before), actor, action, after, consequences=False)
        # Of the deck work, the table tells what the states show: a Modifier's die, and that a
        # Hostage Exchange moved a card each way.
        die = action if isinstance(action, racer.Die) and before.turn is not None else None
        expected.step(public_view(before), racer.CHANCE, die, after)
        if (swap := hostage.see(after)) is not None:
            expected.add(swap_story(swap[0], swap[1]))
        table.story()  # the console looks after every event
    assert table.story() == expected.lines
    assert any("attacks" in line for line in expected.lines)
    assert expected.lines[-1].startswith(("Winner: seat", "Draw: "))


def test_a_batch_of_events_is_told_too():
    game = LoggedGame(2, seed=3, local_seat=None)
    table = SessionGame(game, game.seat_view, game.public_observation)
    while not game.over():
        for _ in range(7):  # the console looks only now and then
            if not game.over():
                game.step()
        table.story()
    lines = table.story()
    assert lines[-1].startswith(("Winner: seat", "Draw: "))
    assert sum(line.startswith("Turn") for line in lines) > 10


def test_a_creep_drawn_in_a_batch_is_told_with_the_seat_that_drew_it():
    """A networked story tells a batch's acts against the state before the batch, whose
    request may be the chance step of the draw: the seat named is the one that placed the
    Creep (the act's author), never the chance actor."""
    game = LoggedGame(2, seed=5, local_seat=None)
    while True:
        before, actor, action = game.step()
        if actor == racer.CHANCE and isinstance(racer.pending(game.full), racer.NeedReveal):
            _, seat, placed = game.step()
            if isinstance(placed, racer.PlaceCreep):
                break
    story = Story()
    story.step(public_view(before), seat, placed, public_view(game.full), consequences=False)
    assert story.lines == [f"Opening hand: seat {seat} draws the Creep {_name(game, placed)}."]


def _name(game: LoggedGame, action: racer.PlaceCreep) -> str:
    return game.full.catalogue[action.card].name


def test_a_seat_plays_through_the_console_and_a_spectator_sees_no_hand():
    game = LoggedGame(2, seed=4, local_seat=1)
    table = SessionGame(game, game.seat_view, game.public_observation)
    console = RacerConsole(table)
    while not game.over() and game.my_turn() is None:
        game.step()
    assert console.ready()
    assert table.legal() and "your hand: 1 " in console.board()
    reply = console.handle("moves")
    assert reply.text.startswith("you can type:")
    assert table.seat_of_peer(fingerprint(game.seats[1].key)) == 1
    assert "seat 1 p1 (you)" in console.peer_news(False, fingerprint(game.seats[1].key), "x")
    assert "is back" in console.peer_news(True, fingerprint(game.seats[0].key), "x", back=True)
    shown = console.peer_news(True, "zzzz-zzzz", "mallory\x1b[2J follows the game")
    assert "\x1b" not in shown and shown.startswith("* mallory?[2J")
    game.step()  # our seat decides (the bot plays for the test), the turn moves on
    while not game.over() and game.my_turn() is None:
        game.step()
        assert table.legal() == [] or game.my_turn() is not None
    watcher = SessionGame(game, game.seat_view, game.public_observation)
    watcher.session = SimpleNamespace(**{**vars(game), "local_seat": None})
    watcher.session.my_turn = game.my_turn
    watching = RacerConsole(watcher)
    assert watcher.observation().hand == () and "your hand" not in watching.board()


def test_a_real_session_game_played_by_typing_at_the_console():
    import random
    import re

    from creepnet.cli.faces import console_for
    from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

    table = SessionHarness(
        seats=2, kind="racer", options={"turn_limit": 12}, seed=3, onion_length=512
    )
    me = console_for(table.sessions[0])
    watcher = console_for(table.spectator)
    rng = random.Random(3)
    typed = []

    def person(session):
        screen = (me.board() + "\n" + me.status()).split("\n")
        assert len(screen) <= 23 and max(map(len, screen)) <= 80
        listed = me.handle("moves").text.removeprefix("you can type: ")
        choice = rng.choice([s for s in re.split(r"\s{2,}|\n", listed) if s.strip()]).strip()
        typed.append(choice)
        reply = me.handle(choice)
        assert reply.action is not None, (choice, reply.text)
        return reply.action

    table.run([person, seat_bot("racer", "heuristic", 1)])
    assert table.rejections == [] and table.sessions[0].finished
    assert len(typed) > 5
    assert me.status().startswith("game over: ")
    assert any(line.startswith("Turn") for line in me.view.story())
    assert "your hand" not in watcher.board()
    # The watcher never looked during the game: its story says so instead of guessing.
    assert watcher.view.story() == ["(the game is at turn 12)"]
