"""Sessions over the signed log: whole games, every rejection class, stalls and convergence."""

from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creepnet.protocol import codec, onion, pending
from creepnet.protocol.event import sign_event
from creepnet.protocol.games import GAMES, Game
from creepnet.protocol.identity import Identity
from creepnet.protocol.lobby import JoinRequest, SeatSecrets, derive_game_id
from creepnet.protocol.log import EquivocationProof, Rejection
from creepnet.protocol.rules import GameRuleError, NeedRandom, Result
from creepnet.protocol.session import ALLOWED, Phase, Session
from creepnet.protocol.testing.sessions import SessionHarness, creeper_bot
from creepnet.protocol.verify import verify_log_bytes

BOTS = [creeper_bot("greedy", 1), creeper_bot("random", 2)]


def play(table: SessionHarness, players=BOTS) -> SessionHarness:
    table.run(players)
    return table


def forge(
    session: Session, identity: Identity, type_: str, body: dict, seq=None, prev=None, game=None
):
    return sign_event(
        identity,
        game=game or session.game,
        seq=len(session.log) if seq is None else seq,
        prev=session.log.head if prev is None else prev,
        type=type_,
        body=body,
    )


def started_table(**kwargs) -> SessionHarness:
    """Colours drawn, nobody has moved yet."""
    table = SessionHarness(**kwargs)
    for _ in range(3):
        for seat, s in enumerate(table.sessions):
            table.broadcast(seat, s.owed())
        table.pump()
    assert table.sessions[0].game_state.light_seat is not None
    return table


def mover(table: SessionHarness) -> int:
    return table.sessions[0].expected().seat


# ----- whole games ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_bot_games_end_identically_everywhere(seed):
    table = play(SessionHarness(seed=seed, options={"max_plies": 150}))
    logs = {s.log.to_bytes() for _, s in table.everyone}
    assert len(logs) == 1 and not table.rejections
    outcomes = {s.outcome_text for _, s in table.everyone}
    assert len(outcomes) == 1 and None not in outcomes
    verdict = verify_log_bytes(logs.pop())
    assert verdict.valid and verdict.finished and verdict.outcome in outcomes


def test_colours_come_from_both_seats_reveals():
    table = started_table(seed=1)
    events = table.sessions[0].log.events
    reveals = [e for e in events if e.type == "reveal"]
    assert [e.author for e in reveals] == table.sessions[0].seat_keys
    entropy = onion.draw_entropy(table.sessions[0].game, 0, [e.body["pre"] for e in reveals])
    assert table.sessions[0].game_state.light_seat == onion.uniform(entropy, 2)


def test_colour_coin_is_not_constant_across_games():
    seen = {started_table(seed=seed).sessions[0].game_state.light_seat for seed in range(12)}
    assert seen == {0, 1}


def test_resignation_and_agreed_draw_are_recorded():
    table = started_table(seed=2)
    first = mover(table)
    table.broadcast(first, [table.sessions[first].play("resign")])
    table.pump()
    assert table.spectator.result == Result(1 - first, "resignation")
    assert "wins by resignation" in verify_log_bytes(table.spectator.log.to_bytes()).outcome

    table = started_table(seed=3)
    first = mover(table)
    session = table.sessions[first]
    move = creeper_bot("random", 0)(session)
    table.broadcast(first, [session.play(f"{move} draw")])
    table.pump()
    other = table.sessions[1 - first]
    assert other.my_turn().types >= {"accept", "decline"}
    table.broadcast(1 - first, [other.play("accept")])
    table.pump()
    assert table.spectator.result == Result(None, "agreement")


def test_declined_draw_keeps_the_turn_and_accept_needs_an_offer():
    table = started_table(seed=4)
    first = mover(table)
    with pytest.raises(Rejection, match="not possible"):
        table.sessions[first].play("accept")
    session = table.sessions[first]
    table.broadcast(first, [session.play(f"{creeper_bot('random', 0)(session)} draw")])
    table.pump()
    other = table.sessions[1 - first]
    table.broadcast(1 - first, [other.play("decline")])
    table.pump()
    assert other.my_turn() is not None and "accept" not in other.my_turn().types


# ----- every rejection class ------------------------------------------------------------------


def test_forged_signature_is_rejected_and_the_game_goes_on():
    table = started_table(seed=5)
    seat = mover(table)
    session = table.sessions[seat]
    event = session.play(creeper_bot("random", 0)(session))
    fields = codec.decode(event.raw)
    fields["body"] = {"move": "a2-a3"}
    receipt = table.sessions[1 - seat].receive(codec.encode(fields))
    assert receipt.status == "rejected" and receipt.rejection.kind == "signature"
    assert receipt.rejection.author is None
    assert table.sessions[1 - seat].receive(event.raw).status == "accepted"


def test_wrong_author_and_out_of_turn_are_rejected_and_blamed():
    table = started_table(seed=6)
    seat = mover(table)
    victim = table.sessions[seat]
    stranger = Identity.generate()
    for who in (stranger, table.identities[1 - seat]):
        event = forge(victim, who, "move", {"move": "b1-b2"})
        receipt = victim.receive(event.raw)
        assert receipt.rejection.kind == "entitlement"
        assert receipt.rejection.author == who.public_key


def test_illegal_move_is_rejected_with_the_reason_and_blamed():
    table = started_table(seed=7)
    seat = mover(table)
    other = table.sessions[1 - seat]
    for body, why in (
        ({"move": "d4-d5"}, "illegal move"),
        ({"move": "zz"}, "illegal move"),
        ({"x": 1}, "body needs"),
    ):
        event = forge(other, table.identities[seat], "move", body)
        receipt = other.receive(event.raw)
        assert receipt.rejection.kind == "illegal" and why in receipt.rejection.reason
        assert receipt.rejection.author == table.identities[seat].public_key
    with pytest.raises(Rejection, match="illegal"):
        table.sessions[seat].play("d4-d5")
    with pytest.raises(Rejection, match="not your turn"):
        other.play("b1-b2")


def test_a_rule_that_fails_unforeseen_is_a_rejection_naming_the_author_and_changes_nothing(
    monkeypatch,
):
    """Issue 21: a bug in a game's rules must never become a remote kill switch.  Whatever a
    rule raises, receive returns a rejection blaming the event's author at its position."""
    table = started_table(seed=7)
    seat = mover(table)
    other = table.sessions[1 - seat]
    rules = type(other.rules)
    honest_apply = rules.apply

    def buggy(self, game, seat, type_, body, seq=0):
        if body.get("move") == "boom":
            return {}["no such key"]  # a KeyError no rule foresaw
        return honest_apply(self, game, seat, type_, body, seq)

    monkeypatch.setattr(rules, "apply", buggy)
    before = other.state_digest()
    event = forge(other, table.identities[seat], "move", {"move": "boom"})
    receipt = other.receive(event.raw)
    assert receipt.status == "rejected"
    assert receipt.rejection.kind == "illegal" and "KeyError" in receipt.rejection.reason
    assert receipt.rejection.author == table.identities[seat].public_key
    assert receipt.rejection.seq == event.seq
    assert other.state_digest() == before
    resignation = table.sessions[seat].play("resign")
    assert other.receive(resignation.raw).status == "accepted"


def test_event_replayed_from_another_game_is_rejected():
    one, two = started_table(seed=8), started_table(seed=9)
    seat = mover(one)
    session = one.sessions[seat]
    event = session.play(creeper_bot("random", 0)(session))
    receipt = two.sessions[1 - mover(two)].receive(event.raw)
    assert receipt.status == "rejected" and receipt.rejection.kind == "game"


def test_bad_onion_reveal_is_rejected_and_blamed():
    table = SessionHarness(seed=10)
    host = table.sessions[0]
    table.broadcast(0, host.owed())  # start and seat 0's reveal
    table.pump()
    joiner = table.sessions[1]
    bad = forge(joiner, table.identities[1], "reveal", {"draw": 0, "pre": b"\x00" * 32})
    receipt = host.receive(bad.raw)
    assert receipt.rejection.kind == "illegal" and "onion" in receipt.rejection.reason
    assert receipt.rejection.author == table.identities[1].public_key
    wrong_draw = forge(joiner, table.identities[1], "reveal", {"draw": 1, "pre": b"\x00" * 32})
    assert "draw" in host.receive(wrong_draw.raw).rejection.reason


def test_reveal_out_of_seat_order_is_rejected():
    table = SessionHarness(seed=11)
    host, joiner = table.sessions
    start = host.write("start", {})
    joiner.receive(start.raw)
    pre = onion.preimage(host.game, table.secrets[1].onion_seed, table.onion_length, 0)
    early = forge(joiner, table.identities[1], "reveal", {"draw": 0, "pre": pre})
    receipt = host.receive(early.raw)
    assert receipt.rejection.kind == "entitlement" and "seat 0" in receipt.rejection.reason


def test_join_request_cannot_be_replayed_into_another_game_or_seat():
    table = SessionHarness(seed=12)
    request = JoinRequest.from_map(table.sessions[0].log.events[1].body["join"])
    other_host = Session.host(Identity.generate(), SeatSecrets.generate(), kind="creeper", name="x")
    with pytest.raises(Rejection, match="another game"):
        other_host.admit(request.to_bytes())
    altered = codec.decode(request.to_bytes())
    altered["seat"] = 2
    with pytest.raises(Rejection, match="signature"):
        other_host.admit(codec.encode(altered))


def test_host_cannot_seat_itself_twice_or_start_early():
    identity, secrets_ = Identity.generate(), SeatSecrets.generate()
    host = Session.host(identity, secrets_, kind="creeper", name="x")
    self_join = JoinRequest.create(
        identity,
        secrets_,
        game=host.game,
        genesis=host.log.events[0].id,
        seat=1,
        player="me",
        onion_length=host.onion_length,
    )
    with pytest.raises(Rejection, match="already has a seat"):
        host.admit(self_join.to_bytes())
    with pytest.raises(Rejection, match="'start' not allowed"):
        host.write("start", {})
    assert host.owed() == []


def test_bad_genesis_is_rejected():
    identity = Identity.generate()
    nonce = b"n" * 16
    base = {
        "nonce": nonce,
        "kind": "creeper",
        "name": "n",
        "seats": 2,
        "options": {},
        "onion": 8,
        "player": "p",
        "anchor": b"a" * 32,
    }
    for change, why in (
        ({"kind": "chess"}, "unknown game kind"),
        ({"seats": 3}, "2-2 seats"),
        ({"onion": 0}, "onion"),
        ({"options": {"max_plies": -1}}, "max_plies"),
        ({"seats": True}, "2-2 seats"),  # a boolean is not an integer
        ({"onion": True}, "onion"),
        ({"options": {"max_plies": True}}, "max_plies"),
        ({"nonce": b"m" * 16}, "game id"),  # the id does not commit to this nonce
        ({"nonce": "n" * 16}, "nonce"),
        ({"name": "tab\there"}, "game name"),
        ({"player": "\u202eevil"}, "player name"),  # a bidi override
    ):
        event = sign_event(
            identity,
            game=derive_game_id(identity.public_key, nonce),
            seq=0,
            prev=bytes(32),
            type="genesis",
            body={**base, **change},
        )
        with pytest.raises(Rejection, match=why):
            Session.from_log([event.raw])


def test_a_creeper_genesis_with_max_plies_nil_is_refused_not_unlimited():
    """PROTOCOL.md §5.1: Creeper's ``max_plies``, when present, is a positive integer; nil is
    not (it read as "no option", an unlimited game, where every other option refuses nil)."""
    identity = Identity.generate()
    nonce = b"n" * 16
    body = {
        "nonce": nonce,
        "kind": "creeper",
        "name": "n",
        "seats": 2,
        "options": {"max_plies": None},
        "onion": 8,
        "player": "p",
        "anchor": b"a" * 32,
    }
    event = sign_event(identity, game=derive_game_id(identity.public_key, nonce), seq=0,
                       prev=bytes(32), type="genesis", body=body)  # fmt: skip
    with pytest.raises(Rejection, match="max_plies") as caught:
        Session.from_log([event.raw])
    assert (caught.value.kind, caught.value.author) == ("genesis", identity.public_key)


def test_equivocation_halts_the_game_and_names_the_author():
    table = started_table(seed=13)
    seat = mover(table)
    session = table.sessions[seat]
    moves = [m for m in (creeper_bot("random", s)(session) for s in range(20))]
    first, second = sorted(set(moves))[:2]
    honest = session.play(first)
    twin = forge(
        session, table.identities[seat], "move", {"move": second}, seq=honest.seq, prev=honest.prev
    )
    watcher = table.spectator
    table.pump()
    watcher.receive(honest.raw)
    receipt = watcher.receive(twin.raw)
    assert receipt.status == "equivocation" and watcher.halted is not None
    assert receipt.rejection.author == table.identities[seat].public_key
    proof = EquivocationProof.from_bytes(receipt.proof.to_bytes())
    assert proof.verify().author == table.identities[seat].public_key
    assert watcher.receive(honest.raw).status == "halted"


def two_moves_and_a_latecomer(seed: int):
    """Two moves played; a session that has seen neither, to receive them out of order."""
    table = started_table(seed=seed)
    seat = mover(table)
    session = table.sessions[seat]
    first = session.play(creeper_bot("random", 0)(session))
    table.broadcast(seat, [first])
    table.pump()
    other = table.sessions[1 - seat]
    reply = other.play(creeper_bot("random", 0)(other))
    late = Session.from_log([e.raw for e in other.log.events[:-2]])
    return table, other, first, reply, late


def test_equivocation_seen_before_the_gap_fills_halts_once_one_twin_is_accepted():
    table, other, first, reply, late = two_moves_and_a_latecomer(seed=14)
    author = table.identities[other.local_seat]
    twin = forge(other, author, "resign", {}, seq=reply.seq, prev=reply.prev)
    assert late.receive(reply.raw).status == "pending"
    assert late.receive(twin.raw).status == "pending"  # nothing accepted yet: nothing proven
    assert late.halted is None
    receipt = late.receive(first.raw)
    assert receipt.status == "equivocation" and late.halted is not None
    assert receipt.proof.verify().author == author.public_key
    assert [e.seq for e in receipt.accepted] == [first.seq, reply.seq]


def test_an_outsider_cannot_halt_a_game_with_two_future_events():
    """Attack 1 of issue #13: a fresh key signs two moves for a future position."""
    table = started_table(seed=42)
    host, watcher = table.sessions[0], table.spectator
    outsider = Identity.generate()
    ahead = len(host.log) + 3
    twins = [
        forge(host, outsider, "move", {"move": move}, seq=ahead, prev=bytes(32))
        for move in ("a1-b2", "a1-b3")
    ]
    for session in (host, watcher):
        assert [session.receive(t.raw).status for t in twins] == ["deferred", "deferred"]
        assert session.halted is None and session.held == 0
    seat = mover(table)
    session = table.sessions[seat]
    table.broadcast(seat, [session.play(creeper_bot("random", 0)(session))])
    table.pump()
    assert not table.rejections and len(watcher.log) == len(session.log)


def test_a_seat_twice_signing_a_position_not_its_own_halts_nothing():
    """Held events are never judged against each other; when their turn comes they are
    refused for entitlement, and the honest event for that position is accepted."""
    table, other, first, reply, late = two_moves_and_a_latecomer(seed=43)
    wrong = table.identities[1 - other.local_seat]  # seated, but reply.seq is not its turn
    twins = [
        forge(other, wrong, "move", {"move": move}, seq=reply.seq, prev=reply.prev)
        for move in ("a1-b2", "a1-b3")
    ]
    assert [late.receive(t.raw).status for t in twins] == ["pending", "pending"]
    receipt = late.receive(first.raw)
    assert late.halted is None and receipt.status == "accepted"
    assert {r.kind for r in receipt.rejections} == {"entitlement"}
    assert late.receive(reply.raw).status == "accepted"
    assert late.log.to_bytes() == other.log.to_bytes()


# ----- stalls and abandonment -----------------------------------------------------------------


def test_a_stalled_last_revealer_is_named():
    table = SessionHarness(seed=15)
    host = table.sessions[0]
    table.broadcast(0, host.owed())
    table.pump()
    waiting = host.waiting_for()
    assert (
        waiting.seat == 1
        and "reveal" in waiting.what
        and waiting.key == table.identities[1].public_key
    )
    verdict = verify_log_bytes(host.log.to_bytes())
    assert verdict.valid and not verdict.finished
    assert any("waiting for seat 1" in note and "reveal" in note for note in verdict.notes)


def test_abandoned_game_verifies_as_unfinished_waiting_for_the_mover():
    table = started_table(seed=16)
    seat = mover(table)
    verdict = verify_log_bytes(table.spectator.log.to_bytes())
    assert verdict.valid and not verdict.finished
    assert any(f"waiting for seat {seat}" in note for note in verdict.notes)


def test_nothing_may_follow_the_end_of_a_game():
    table = started_table(seed=17)
    seat = mover(table)
    table.broadcast(seat, [table.sessions[seat].play("resign")])
    table.pump()
    late = forge(table.spectator, table.identities[1 - seat], "move", {"move": "b1-b2"})
    assert table.spectator.receive(late.raw).rejection.kind == "finished"
    assert table.spectator.waiting_for() is None


# ----- delivery disorder ----------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), drop=st.floats(0, 0.4), dup=st.floats(0, 0.3))
def test_random_delivery_orders_converge(seed, drop, dup):
    table = SessionHarness(seed=seed, shuffle_deliveries=True, options={"max_plies": 40})
    rng = table.rng

    def tamper(delivery):
        roll = rng.random()
        if roll < drop:
            return []
        return [delivery.raw, delivery.raw] if roll < drop + dup else [delivery.raw]

    table.tamper = tamper
    players = [creeper_bot("random", seed), creeper_bot("random", seed + 1)]
    for _ in range(200):
        table.run(players)
        table.tamper = None
        table.resend_all()  # catch-up after losses, as a node's have/get would do
        table.pump()
        table.tamper = tamper
        if all(s.finished for _, s in table.everyone):
            break
    assert {s.log.to_bytes() for _, s in table.everyone} == {table.sessions[0].log.to_bytes()}
    assert table.spectator.finished
    assert not [r for _, r in table.rejections if r.kind not in {"sequence"}]


# ----- randomness mechanics with a test-only multi-seat game ----------------------------------


@dataclass(frozen=True)
class DiceGame:
    rolls: tuple = ()
    turn: int = 0
    seats: int = 2
    limit: int = 3


class DiceRules:
    """Everyone rolls a die each round; used to test N-seat reveals and exhaustion."""

    kind, min_seats, max_seats = "dice", 2, 4

    def check_options(self, options, seats):
        pass

    def start(self, seats, options, seating):
        return DiceGame(seats=seats, limit=options.get("limit", 3))

    def next(self, game):
        if len(game.rolls) >= game.limit:
            return None
        return NeedRandom(6, "die")

    def apply_random(self, game, value):
        return replace(game, rolls=game.rolls + (value + 1,))

    def apply(self, game, seat, type_, body, seq):
        raise GameRuleError("dice has no moves")

    def result(self, game):
        return Result(None, "rolled") if len(game.rolls) >= game.limit else None

    def action(self, game, seat, text):
        raise GameRuleError("nothing to do")

    def describe(self, game, seat):
        return "roller"


@pytest.fixture
def dice(monkeypatch):
    monkeypatch.setitem(GAMES, "dice", Game(DiceRules(), {}))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_n_seats_reveal_in_order_and_agree(dice, seats):
    table = play(
        SessionHarness(seats=seats, kind="dice", options={"limit": 5}, seed=seats),
        players=[None] * seats,
    )
    rolls = {s.game_state.rolls for _, s in table.everyone}
    assert len(rolls) == 1 and len(rolls.pop()) == 5
    reveals = [e for e in table.spectator.log.events if e.type == "reveal"]
    assert [e.author for e in reveals] == table.sessions[0].seat_keys * 5
    assert verify_log_bytes(table.spectator.log.to_bytes()).finished


def test_join_request_for_another_seat_is_refused(dice):
    fresh = Session.host(
        Identity.generate(), SeatSecrets.generate(), kind="dice", name="y", seats=3
    )
    # Two players ask for seat 1; once the first is seated, the second request cannot be reused.
    first, second = (
        JoinRequest.create(
            Identity.generate(),
            SeatSecrets.generate(),
            game=fresh.game,
            genesis=fresh.log.events[0].id,
            seat=1,
            player="s",
            onion_length=64,
        )
        for _ in range(2)
    )
    fresh.admit(first.to_bytes())
    with pytest.raises(Rejection, match="next free seat is 2"):
        fresh.admit(second.to_bytes())


def test_running_out_of_randomness_is_a_clear_error(dice):
    table = SessionHarness(seats=2, kind="dice", options={"limit": 5}, onion_length=3, seed=21)
    with pytest.raises(onion.OnionExhausted, match="committed to only 3"):
        table.run([None, None])
    assert table.sessions[0].exhausted()
    verdict = verify_log_bytes(table.sessions[0].log.to_bytes())
    assert verdict.valid and any("exhausted" in note for note in verdict.notes)


def test_uniform_is_in_range_and_unbiased_enough():
    counts = [0] * 6
    for i in range(6000):
        counts[onion.uniform(i.to_bytes(32, "big"), 6)] += 1
    assert all(850 < c < 1150 for c in counts)
    huge = 2**63 + 1  # rejects almost half of all 64-bit blocks
    assert all(0 <= onion.uniform(bytes([i]) * 32, huge) < huge for i in range(50))
    with pytest.raises(ValueError):
        onion.uniform(b"x" * 32, 0)


def test_forged_or_unentitled_future_events_cannot_crowd_out_the_honest_one():
    table, other, first, reply, late = two_moves_and_a_latecomer(seed=40)
    # A forgery and a validly signed event by the wrong seat both arrive first for seq n+1.
    forged = codec.decode(reply.raw)
    forged["body"] = {"move": "a2-a3"}
    assert late.receive(codec.encode(forged)).rejection.kind == "signature"
    wrong = table.identities[1 - other.local_seat]
    squatter = forge(late, wrong, "resign", {}, seq=reply.seq, prev=reply.prev)
    assert late.receive(squatter.raw).status == "pending"
    assert late.receive(reply.raw).status == "pending"
    receipt = late.receive(first.raw)
    assert [e.seq for e in receipt.accepted] == [first.seq, reply.seq]
    assert any(r.kind == "entitlement" and r.author == wrong.public_key for r in receipt.rejections)
    assert late.log.to_bytes() == other.log.to_bytes()


def test_held_events_are_bounded_by_size_not_only_count():
    """A seat's validly signed far-future events cannot park unbounded memory."""
    table = started_table(seed=41)
    watcher = table.spectator
    stranger = table.identities[0]
    padding = b"\x00" * (512 << 10)  # 512 KiB bodies: 1024 of them would be half a GiB
    held = 0
    for ahead in range(2, 40):
        bulky = forge(
            watcher,
            stranger,
            "move",
            {"move": "a2-a3", "pad": padding},
            seq=len(watcher.log) + ahead,
            prev=b"\x01" * 32,
        )
        if watcher.receive(bulky.raw).status == "pending":
            held += 1
    assert 0 < held <= pending.MAX_HELD_BYTES // len(padding)
    # the game itself is unaffected: in-order events are never held
    seat = mover(table)
    session = table.sessions[seat]
    assert watcher.receive(session.play(creeper_bot("random", 0)(session)).raw).status == "accepted"


def test_the_phase_walks_the_documented_table_and_each_turn_is_allowed_in_its_phase():
    """Session.ALLOWED is the one place the phases and their events are read: every event of a
    real game was allowed in the phase it was taken in, and the phases come in order."""
    game = play(SessionHarness(seed=3))
    spectator = Session.follow(game.spectator.game)
    phases = [spectator.phase]
    for event in game.spectator.log.events:
        phase = spectator.phase
        allowed = ALLOWED[phase]
        assert event.type in allowed or (
            "turn" in allowed and event.type not in ALLOWED[Phase.LOBBY]
        )
        assert spectator.receive(event.raw).status == "accepted"
        if spectator.phase != phases[-1]:
            phases.append(spectator.phase)
    assert phases == [Phase.EMPTY, Phase.LOBBY, Phase.PLAYING, Phase.FINISHED]
    assert spectator.expected() is None and not ALLOWED[Phase.FINISHED]
