"""Coverage-guided fuzzing of bytes -> codec -> event -> Session.receive, for both games (atheris).

Seeded from real logs: one seeded game of each kind is played in memory
(protocol/testing/sessions.py) and sessions are kept at checkpoints along its log. An input is a
3-byte header (game, checkpoint) and the bytes of an event; the seeds are the honest events at
every checkpoint, so libFuzzer's mutations start from real events. Each input is offered twice
to the checkpoint's session:

1. as it is: whatever the bytes, ``receive`` must return a receipt, never raise, and must never
   accept bytes other than the honest event's (a second encoding of a signed event would be
   malleability);
2. re-signed: if the bytes still decode to a map with a text ``type`` and a map ``body``, they are
   signed again by the seat entitled to the position, at exactly that position, so the mutation
   reaches the game's rules.  It must be rejected with its signer named, unless it is the honest
   event or a legal alternative decision; every 64th rejection the session's state digest is
   compared with the checkpoint's.

Any exception, or a broken promise (``Finding``), is a crash that libFuzzer reports and saves.

Run (see fuzz/README.md):
    .venv/bin/python fuzz/fuzz_session.py --seeds    # once: record the games, write the corpus
    nice -n 19 .venv/bin/python fuzz/fuzz_session.py -max_total_time=1800 fuzz/.work/corpus
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["creepnet"]):
    for game_module in ("creeper", "racer.adapter"):  # the registry imports games lazily
        importlib.import_module(f"creepnet.protocol.games.{game_module}")
    from creepnet.protocol import codec
    from creepnet.protocol.entitlement import is_decision
    from creepnet.protocol.event import Event, EventError, parse_event, sign_event
    from creepnet.protocol.identity import Identity
    from creepnet.protocol.lobby import SeatSecrets
    from creepnet.protocol.log import split_log
    from creepnet.protocol.session import Session
    from creepnet.protocol.testing.sessions import SessionHarness, seat_bot

KINDS = ("creeper", "racer")
SEEDS = {"creeper": 12, "racer": 11}
RACER_CHECKPOINTS = 16  # positions of the Racer log kept live (its sessions are large)
DIGEST_EVERY = 64


class Finding(AssertionError):
    """A promise of Session.receive broken by this input."""


@dataclass
class Game:
    kind: str
    events: list[Event]
    identities: dict[bytes, Identity]
    seat_identities: list[Identity]
    secrets: list[SeatSecrets]
    positions: list[int]
    sessions: dict[int, Session] = field(default_factory=dict)
    digests: dict[int, bytes] = field(default_factory=dict)

    def session(self, position: int) -> Session:
        """The checkpoint's session (rebuilt if an accepted input moved it on)."""
        session = self.sessions.get(position)
        if session is None or len(session.log) != position:
            STATS["rebuilt"] += session is not None
            viewer = position % 3  # a spectator, or seat 0 or 1 with its private side
            if viewer == 2:
                session = Session.follow(self.events[0].game)
            else:
                session = Session.follow(
                    self.events[0].game, self.seat_identities[viewer], self.secrets[viewer]
                )
            for event in self.events[:position]:
                if session.receive(event.raw).status != "accepted":
                    raise RuntimeError(f"the recorded log does not replay at {event.seq}")
            self.sessions[position] = session
            self.digests[position] = session.state_digest()
        return session


def record(kind: str, work: Path) -> Game:
    """The seeded game of this kind: played once and kept in ``work`` (its proofs carry fresh
    randomness, so a corpus only matches the very log it was cut from).  Each kind has its own
    seed: one seed would give both games the same host key and game id, and the host's two
    starts would be a true equivocation the moment the fuzzer crossed them over."""
    seed = SEEDS[kind]
    options = {"turn_limit": 20} if kind == "racer" else {}
    table = SessionHarness(seats=2, kind=kind, options=options, seed=seed, onion_length=512)
    kept = work / f"{kind}.log"
    if kept.exists():
        events = [parse_event(raw) for raw in split_log(kept.read_bytes()).items]
    else:
        table.run([seat_bot(kind, "random", seat) for seat in range(2)])
        events = list(table.spectator.log.events)
        work.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(b"".join(event.raw for event in events))
    if kind == "racer":
        step = max(1, len(events) // RACER_CHECKPOINTS)
        first_of_shape: dict[tuple[object, ...], int] = {}
        for event in events[1:]:
            first_of_shape.setdefault(
                (event.type, event.body.get("op"), *sorted(event.body)), event.seq
            )
        positions = sorted({*range(1, len(events), step), *first_of_shape.values()})
    else:
        positions = list(range(1, len(events)))
    identities = {identity.public_key: identity for identity in table.identities}
    return Game(kind, events, identities, table.identities, table.secrets, positions)


GAMES: list[Game] = []
STATS = {"inputs": 0, "resigned": 0, "rejected": 0, "digests": 0, "rebuilt": 0}


def seeds(directory: Path) -> None:
    """Write the seed corpus: the honest event of every checkpoint, with its header."""
    directory.mkdir(parents=True, exist_ok=True)
    for index, game in enumerate(GAMES):
        for number, position in enumerate(game.positions):
            header = bytes([index, number >> 8, number & 0xFF])
            (directory / f"{game.kind}-{position:04d}").write_bytes(
                header + game.events[position].raw
            )


def offer_resigned(game: Game, position: int, session: Session, value: object) -> None:
    if not isinstance(value, dict):
        return
    type_, body = value.get("type"), value.get("body")
    if not isinstance(type_, str) or not isinstance(body, dict):
        return
    honest = game.events[position]
    if type_ == honest.type and body == honest.body:
        return  # the honest event again: nothing to learn, and it would use up the checkpoint
    turn = session.expected()
    if turn is None or turn.seat >= len(session.seat_keys):
        return
    signer = game.identities[session.seat_keys[turn.seat]]
    try:
        event = sign_event(
            signer, game=honest.game, seq=position, prev=honest.prev, type=type_, body=body
        )
    except (codec.CodecError, EventError, ValueError):
        return  # not representable as an event (too deep, too long...)
    STATS["resigned"] += 1
    receipt = session.receive(event.raw)
    if receipt.status == "accepted":
        free_commit = honest.body.get("op") == "join" and body.keys() == honest.body.keys()
        if not (is_decision(turn, turn.seat) or free_commit):  # else the author's free choice
            raise Finding(f"accepted a mutated {type_} at {position}: {body!r}")
        return  # another legal choice of the player: the checkpoint is rebuilt next time
    rejection = receipt.rejection
    if receipt.status != "rejected" or rejection is None or not rejection.reason:
        raise Finding(f"re-signed mutation at {position}: {receipt.status} {receipt!r}")
    if rejection.author != signer.public_key or rejection.seq != position:
        raise Finding(f"rejection does not name the signer and seq: {rejection.describe()}")
    STATS["rejected"] += 1
    if STATS["rejected"] % DIGEST_EVERY == 0:
        STATS["digests"] += 1
        if session.state_digest() != game.digests[position]:
            raise Finding(f"a rejected {type_} at {position} changed the session: {body!r}")


def one_input(data: bytes) -> None:
    if len(data) < 4 or not GAMES:
        return
    STATS["inputs"] += 1
    if STATS["inputs"] % 20_000 == 0:
        print("fuzz stats:", STATS, file=sys.stderr, flush=True)
    game = GAMES[data[0] % len(GAMES)]
    position = game.positions[((data[1] << 8) | data[2]) % len(game.positions)]
    raw = data[3:]
    session = game.session(position)
    if raw != game.events[position].raw:
        receipt = session.receive(raw)
        if receipt.status == "accepted":
            raise Finding(f"accepted bytes that are not the honest event at {position}")
        if len(session.log) != position or session.halted is not None:
            raise Finding(f"unsigned bytes moved the session at {position}: {receipt.status}")
        if receipt.status == "pending":  # validly signed by a seat for a later position
            game.digests[position] = session.state_digest()  # held, as it may be: a new baseline
    try:
        value = parse_event(raw)
        decoded: object = {"type": value.type, "body": value.body}
    except EventError:
        try:
            decoded = codec.decode(raw)
        except codec.CodecError:
            return
    offer_resigned(game, position, session, decoded)


def main() -> None:
    skips = {"--skip-creeper": "creeper", "--skip-racer": "racer"}  # fuzz one game only
    kinds = [k for k in KINDS if k not in {skips[a] for a in sys.argv if a in skips}]
    ours = ("--skip-", "--seeds", "--work=")
    work = Path(next((a[7:] for a in sys.argv if a.startswith("--work=")), "fuzz/.work"))
    argv = [a for a in sys.argv if not a.startswith(ours)]
    GAMES.extend(record(kind, work) for kind in kinds)
    if "--seeds" in sys.argv:
        seeds(work / "corpus")
        return
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
