"""Every cheat is caught — at once where a proof or commitment allows, otherwise
by the audit — and attributed to the seat that cheated."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import nacl.bindings as nb
import pytest

from creepnet.protocol.deck import DeckError, DeckKeys
from creepnet.protocol.deck.group import card_point
from creepnet.protocol.testing.decks import DeckHarness

CARDS = [f"c{i}" for i in range(10)]
EXTRA = ["joker"]  # in the card table but never dealt
TORSION8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
CHEATER = 1


def cheat_when(
    op: str, change: Callable[[dict, int], dict], seat: int = CHEATER, times: int = 1
) -> Callable[[int, int, dict], dict]:
    """A tamper hook: rewrite the first `times` messages `op` authored by `seat`."""
    left = [times]

    def tamper(author: int, seq: int, message: dict) -> dict:
        if author == seat and message["op"] == op and left[0] > 0:
            left[0] -= 1
            return change(dict(message), seq)
        return message

    return tamper


def table_for(
    tamper: Callable[[int, int, dict], dict] | None = None, seats: int = 3
) -> DeckHarness:
    table = DeckHarness(seats, CARDS + EXTRA, tamper=tamper)
    table.create("deck", CARDS)
    return table


def locked(tamper: Callable[[int, int, dict], dict] | None = None, seats: int = 3) -> DeckHarness:
    table = table_for(tamper, seats)
    table.shuffle("deck")
    table.lock("deck")
    return table


def caught(error: pytest.ExceptionInfo[DeckError], seat: int | None, operation: str) -> None:
    assert (error.value.seat, error.value.operation) == (seat, operation), str(error.value)


# --- shuffles ---------------------------------------------------------------------------------


def test_shuffle_duplicating_a_point_is_caught_at_once() -> None:
    def dup(m: dict, seq: int) -> dict:
        m["points"] = [m["points"][0]] + m["points"][:-1]
        return m

    with pytest.raises(DeckError) as err:
        table_for(cheat_when("shuffle", dup)).shuffle("deck")
    caught(err, CHEATER, "shuffle")


def test_shuffle_dropping_a_card_is_caught_at_once() -> None:
    def drop(m: dict, seq: int) -> dict:
        m["points"] = m["points"][:-1]
        return m

    with pytest.raises(DeckError) as err:
        table_for(cheat_when("shuffle", drop)).shuffle("deck")
    caught(err, CHEATER, "shuffle")


# Substitutions, clones and wrong orders are caught at once by the proof of shuffle:
# tests/deck/test_deck_shuffle_proof.py.


# --- invalid points (at once) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        (1).to_bytes(32, "little"),
        TORSION8,
        nb.crypto_core_ed25519_add(card_point("x"), TORSION8),
        (2**255 - 19 + 1).to_bytes(32, "little"),
    ],
    ids=["identity", "small-order", "non-subgroup", "non-canonical"],
)
@pytest.mark.parametrize("op", ["shuffle", "lock"])
def test_invalid_point_is_caught_at_once(bad: bytes, op: str) -> None:
    def poison(m: dict, seq: int) -> dict:
        m["points"] = m["points"][:3] + [bad] + m["points"][4:]
        return m

    table = table_for(cheat_when(op, poison))
    with pytest.raises(DeckError) as err:
        table.shuffle("deck")
        table.lock("deck")
    caught(err, CHEATER, op)
    assert err.value.position == 3


@pytest.mark.parametrize("bad", [TORSION8, nb.crypto_core_ed25519_add(card_point("x"), TORSION8)])
def test_invalid_lock_commitment_is_caught_at_once(bad: bytes) -> None:
    def poison(m: dict, seq: int) -> dict:
        m["commits"] = m["commits"][:4] + [bad] + m["commits"][5:]
        return m

    with pytest.raises(DeckError) as err:
        locked(cheat_when("lock", poison))
    caught(err, CHEATER, "lock")
    assert err.value.position == 4


def test_invalid_point_in_an_open_is_caught_at_once() -> None:
    def poison(m: dict, seq: int) -> dict:
        m["point"] = TORSION8
        return m

    table = table_for(cheat_when("open", poison))
    table.shuffle("deck")
    with pytest.raises(DeckError) as err:
        table.open("deck", 0)
    caught(err, CHEATER, "open")


def test_repeated_point_in_a_lock_is_caught_at_once() -> None:
    def repeat(m: dict, seq: int) -> dict:
        m["commits"] = m["commits"][:2] + [m["commits"][0]] + m["commits"][3:]
        return m

    with pytest.raises(DeckError) as err:
        locked(cheat_when("lock", repeat))
    caught(err, CHEATER, "lock")
    assert err.value.position == 2


# --- proofs (at once) --------------------------------------------------------------------------


def test_wrong_lock_is_caught_at_once() -> None:
    def swap(m: dict, seq: int) -> dict:  # valid, distinct points; wrong positions
        pts = m["points"]
        m["points"] = [pts[1], pts[0]] + pts[2:]
        return m

    with pytest.raises(DeckError) as err:
        locked(cheat_when("lock", swap))
    caught(err, CHEATER, "lock")
    assert err.value.position == 0 and "DLEQ" in str(err.value)


def test_lock_with_foreign_key_commitment_is_caught_at_once() -> None:
    def recommit(m: dict, seq: int) -> dict:
        m["commits"] = [
            nb.crypto_scalarmult_ed25519_base_noclamp(
                nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))
            )
        ] + m["commits"][1:]
        return m

    with pytest.raises(DeckError) as err:
        locked(cheat_when("lock", recommit))
    caught(err, CHEATER, "lock")


def test_wrong_open_is_caught_at_once() -> None:
    def lie(m: dict, seq: int) -> dict:
        m["point"] = card_point("c3")  # claims the card is c3 straight away
        return m

    table = table_for(cheat_when("open", lie))
    table.shuffle("deck")
    with pytest.raises(DeckError) as err:
        table.open("deck", 0)
    caught(err, CHEATER, "open")


def test_proof_replayed_from_another_event_is_caught_at_once() -> None:
    holder: list[DeckHarness] = []

    def replay(m: dict, seq: int) -> dict:  # the proof was made for the previous event
        return holder[0].players[CHEATER].open(seq - 1, "deck", 0)

    table = table_for(cheat_when("open", replay))
    holder.append(table)
    table.shuffle("deck")
    with pytest.raises(DeckError) as err:
        table.open("deck", 0)
    caught(err, CHEATER, "open")


def test_proof_replayed_from_another_game_is_caught_at_once() -> None:
    """Two games with the same seats, secrets and history except the game id:
    every statement is identical, only the binding differs."""
    deck_secrets = [secrets.token_bytes(32) for _ in range(3)]
    first = DeckHarness(3, CARDS + EXTRA, game_id=b"first game", deck_secrets=deck_secrets)
    second = DeckHarness(
        3,
        CARDS + EXTRA,
        game_id=b"another game",
        seat_keys=first.seat_keys,
        deck_secrets=deck_secrets,
    )
    for p in second.players:  # derive exactly the first game's scalars in the second game
        p.keys = DeckKeys(b"first game", p.keys.seat_key, p.keys.secret)
    for table in (first, second):
        table.create("deck", CARDS)
        table.shuffle("deck")
    assert first.state.pools["deck"].points == second.state.pools["deck"].points
    replayed = first.players[0].open(first.seq + 1, "deck", 0)
    second.tamper = cheat_when("open", lambda m, seq: replayed, seat=0)
    with pytest.raises(DeckError) as err:
        second.open("deck", 0)
    caught(err, 0, "open")
    assert "DLEQ" in str(err.value)


# --- keys and claims ---------------------------------------------------------------------------


def test_released_key_not_matching_commitment_is_caught_at_once() -> None:
    def wrong_key(m: dict, seq: int) -> dict:
        m["keys"] = [nb.crypto_core_ed25519_scalar_reduce(secrets.token_bytes(64))]
        return m

    table = locked(cheat_when("release", wrong_key))
    with pytest.raises(DeckError) as err:
        table.draw("deck", [0], 0)
    caught(err, CHEATER, "release")
    assert err.value.position == 0


def test_false_claim_about_a_played_card_is_caught_at_once() -> None:
    table = locked()
    table.draw("deck", [0], CHEATER)
    real = table.players[CHEATER].decode("deck", 0)
    table.tamper = cheat_when("play", lambda m, seq: {**m, "card": "c9" if real != "c9" else "c8"})
    with pytest.raises(DeckError) as err:
        table.play(CHEATER, "deck", 0)
    caught(err, CHEATER, "play")
    assert repr(real) in str(err.value)


def test_playing_a_card_one_does_not_hold_is_caught_at_once() -> None:
    table = locked()
    table.draw("deck", [0], 0)
    stolen = table.players[0].play("deck", 0)
    with pytest.raises(DeckError) as err:
        table.post(CHEATER, lambda seq: stolen)
    caught(err, CHEATER, "play")


def test_lie_about_a_hidden_draw_is_caught_by_the_audit() -> None:
    table = locked()
    table.draw("deck", [4], CHEATER)
    real = table.players[CHEATER].decode("deck", 4)
    honest = {"seat": 0, "pool": "deck", "position": 4, "none_of": ["joker"]}
    lie = {"seat": CHEATER, "pool": "deck", "position": 4, "none_of": [real]}  # "I did not draw it"
    with pytest.raises(DeckError) as err:
        table.finish([honest, lie])
    caught(err, CHEATER, "claim")


def test_wrong_unblind_in_a_transfer_is_caught_at_once() -> None:
    def lie(m: dict, seq: int) -> dict:
        m["point"] = card_point("c1")
        return m

    table = locked(cheat_when("unblind", lie))
    table.draw("deck", [0], CHEATER)
    with pytest.raises(DeckError) as err:
        table.transfer("deck", 0, 2)
    caught(err, CHEATER, "unblind")


def test_wrong_blind_in_a_transfer_is_caught_at_once() -> None:
    def substitute(m: dict, seq: int) -> dict:
        m["point"] = card_point("c1")
        return m

    table = locked(cheat_when("blind", substitute))
    table.draw("deck", [0], 0)
    with pytest.raises(DeckError) as err:
        table.transfer("deck", 0, CHEATER)
    caught(err, CHEATER, "blind")


def test_revealing_a_wrong_secret_is_caught() -> None:
    table = locked(cheat_when("reveal", lambda m, seq: {**m, "secret": secrets.token_bytes(32)}))
    with pytest.raises(DeckError) as err:
        table.finish()
    caught(err, CHEATER, "reveal")


def test_out_of_turn_and_malformed_messages_are_attributed() -> None:
    table = table_for()
    table.shuffle("deck")
    with pytest.raises(DeckError) as err:  # seat 1 locks before seat 0
        table.post(1, lambda seq: table.players[1].lock(seq, "deck"))
    caught(err, 1, "lock")
    for bad in ({"op": "shuffle"}, {"op": "nope"}, {"op": "release", "pool": "deck"}, {}):
        with pytest.raises(DeckError) as err:
            table.post(2, lambda seq, bad=bad: bad)
        assert err.value.seat == 2


# --- transfers cannot freeze a card; exact types --------------------------------------------------


def test_a_blind_by_a_non_holder_cannot_freeze_the_card() -> None:
    """Seat 2 blinds seat 1's card uninvited: seat 1 cancels it, or simply plays."""
    table = locked()
    table.draw("deck", [0, 1], CHEATER)
    for position in (0, 1):
        table.post(2, lambda seq, j=position: table.players[2].blind(seq, "deck", j))
    table.post(CHEATER, lambda seq: table.players[CHEATER].cancel("deck", 0))
    assert table.state.pools["deck"].slots[0].pending is None
    table.transfer("deck", 0, 0)  # a transfer the game allows still works afterwards
    assert table.players[0].holds("deck", 0)
    assert table.play(CHEATER, "deck", 1) in CARDS  # playing voids the pending blind
    assert table.state.pools["deck"].slots[1].pending is None


def test_only_the_holder_may_cancel_and_only_a_pending_transfer() -> None:
    table = locked()
    table.draw("deck", [0], CHEATER)
    with pytest.raises(DeckError) as err:
        table.post(CHEATER, lambda seq: table.players[CHEATER].cancel("deck", 0))
    caught(err, CHEATER, "cancel")
    table.post(2, lambda seq: table.players[2].blind(seq, "deck", 0))
    with pytest.raises(DeckError) as err:
        table.post(2, lambda seq: table.players[2].cancel("deck", 0))
    caught(err, 2, "cancel")


@pytest.mark.parametrize("cards", [[["c0"]], [{"a": 1}], [b"c0"], [1], ["c0", "c0"], []])
def test_create_with_a_malformed_card_list_gets_a_deck_error(cards: list) -> None:
    table = DeckHarness(2, CARDS)
    with pytest.raises(DeckError) as err:
        table.post(1, lambda seq: {"op": "create", "pool": "deck", "cards": cards})
    caught(err, 1, "create")


def test_booleans_are_not_positions() -> None:
    """Honest messages but for True in place of 1: rejected, not read as position 1."""
    table = locked()
    keys = table.players[2].keys
    release = {"op": "release", "pool": "deck", "to": 0, "keys": [keys.lock_key("deck", 1)]}
    with pytest.raises(DeckError) as err:
        table.post(2, lambda seq: {**release, "positions": [True]})
    caught(err, 2, "release")
    with pytest.raises(DeckError) as err:
        table.post(2, lambda seq: {**release, "positions": [1], "to": False})
    caught(err, 2, "release")
    table.draw("deck", [1], CHEATER)
    play = table.players[CHEATER].play("deck", 1)
    with pytest.raises(DeckError) as err:
        table.post(CHEATER, lambda seq: {**play, "position": True})
    caught(err, CHEATER, "play")
    table.post(CHEATER, lambda seq: play)  # the same message with 1 is accepted
