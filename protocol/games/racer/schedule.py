"""The Creepy Racer schedule over the public table: the engine's state, the shared encrypted
deck, the map between the engine's card slots and the deck's pool positions, and what the
table waits for next.

Every peer (players and spectators alike) holds the same ``RacerGame``.  The engine never sees a
hidden identity: its chance requests are answered from the deck, and its slots are mapped onto
pool positions as the deck work settles them:

* start: every seat commits to its deck secret (``join``); then the whole catalogue becomes one
  pool ``cards`` (creeps first, then the play cards, by card id), split into ``creeps`` and
  ``play``.  That bookkeeping (create, split, merge) follows from the log and is never an event.
* ``NeedShuffle`` of ``creeps``, ``play``: every seat shuffles the pool in seat order (one family,
  depth 1).  The engine then deals blind; its dealt slots are mapped onto the pool's positions by
  a fixed public rule (seat order, then deal order) and the pool is split accordingly into
  ``faceup``, ``creeps:S``, ``box`` and ``play:S``.  Any fixed rule is as good as another: after
  an honest shuffle nobody knows which card sits at which position.
* ``NeedShuffle`` of ``deck:S``: ``creeps:S`` and ``play:S`` merge into ``deck:S``; every seat
  shuffles it again (so nobody, the owner included, knows where its Creeps are), then every seat
  locks it.  A discard-pile reshuffle is a new family ``discard:K`` (created from the public
  cards), shuffled and locked by every seat.  Position j of these locked pools is the engine's
  j-th fresh slot handle of that shuffle (``State.next_slot`` before it).
* ``NeedCard`` for everyone (the face-up Creeps): ``faceup`` is locked, then every seat releases
  every position publicly, once.  ``NeedCard`` for one seat: every other seat releases that
  position to it (a private draw); a card already held by another seat moves by the transfer
  protocol (``blind`` by the taker, ``unblind`` by the giver): the Hostage Exchange.  In a table
  with ``release_ahead`` each of them releases in one event every card of that pool the seat is
  sure to draw in this Drawing stage (``racer.certain_draws``: its count of non-Creep cards
  still to draw, from the top of its deck), so the later draws need no event.  Nothing a seat
  learns that way comes before a decision of its own: a Creep drawn means one more draw, never
  fewer, and no decision comes between two draws; a card of another pool (past a reshuffle)
  waits for its own draw.
* A drawn card kept in hand (``keep-drawn``) comes with a none-of proof (docs/DECKS.md) that it is
  none of the Creeps the dealt family may still hide: never a Creep, checked at once.
* ``GameOver``: every seat reveals its deck secret, the audit decodes every card and checks every
  claim, and only then does the game have a result.
* A seat **retired** by the table (protocol/retirement.py; only in a game made with escrow,
  docs/ESCROW.md "How the table will use it"): before anything else each remaining seat, in seat
  order, owes its ``recover`` of the retired seat's scalars the table needs (``to_recover``), then
  each remaining seat with a due ``refresh`` re-deals; the retired seat's later deck steps are
  authored by the lowest remaining seat (``DeckStep.by``) with ``RetiredSeatKeys`` and applied
  under the retired seat's number; the engine takes the seat out (``racer.retire``, deferred to
  the roll to start if the set-up is under way); it owes no end-of-game reveal.  A retirement
  during a Hostage hand-over cancels the exchange (the engine's rule, docs/spec-racer.md §5.9).
* **Complaints** (escrow): in place of a deck step it owes, a seat may complain about an escrow
  sent to it since its last deck step (``RacerGame.complain_from``); the adapter judges it.

``next_step`` says what the table waits for; ``settle`` performs every step that needs no event.
Both are pure functions of this state, so every peer schedules the same seat for the same step.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypeAlias

from creepnet.engine import racer
from creepnet.engine.racer import (
    PUBLIC,
    Decide,
    GameOver,
    Learn,
    NeedCard,
    NeedDie,
    NeedPick,
    NeedReveal,
    NeedShuffle,
    Shuffle,
    Slot,
)
from creepnet.engine.racer.beliefs import MEMORY
from creepnet.engine.racer.retire import SET_UP
from creepnet.protocol.deck import DeckState, create_message, merge_message, split_message
from creepnet.protocol.deck.escrow import ScalarId
from creepnet.protocol.deck.escrowing import refresh_due
from creepnet.protocol.deck.model import PUBLIC as EVERYONE
from creepnet.protocol.deck.model import Pool
from creepnet.protocol.deck.pools import handle_create, handle_merge, handle_split
from creepnet.protocol.rules import Result

NEVER_LOCKED = "box"  # the unused Creeps: never locked, dealt or drawn from
BOOKKEEPER = 0  # the nominal author of the table's own (never signed) pool bookkeeping
DEALT = "cards"  # the family of the deal: the whole catalogue, one pool at first


@dataclass(frozen=True)
class DeckStep:
    """A deck message ``seat`` owes: ``op`` on ``pool`` (positions and recipient for releases)."""

    seat: int
    op: str  # join, shuffle, lock, release, blind, unblind, reveal
    what: str
    pool: str | None = None
    positions: tuple[int, ...] = ()
    to: int | None = None  # a release's recipient; a recovery's retired dealer
    by: int | None = None  # the author, when the table acts for a retired seat
    scalars: tuple[ScalarId, ...] = ()  # a recovery's scalars

    @property
    def author(self) -> int:
        """Who signs the event: the seat itself, or for a retired seat the table's author."""
        return self.seat if self.by is None else self.by


@dataclass(frozen=True)
class ShowDrawn:
    """``seat`` drew ``slot``: it must place it if it is a Creep, else keep it (automatic)."""

    seat: int
    slot: Slot


Step: TypeAlias = DeckStep | ShowDrawn | NeedDie | NeedPick | Decide


Seen: TypeAlias = tuple[racer.State, int, racer.Action]  # (the public state before, seat, action)
RECENT = MEMORY  # choices ``RacerGame.recent`` keeps: as many as a planner remembers


@dataclass
class RacerGame:
    """One game's public state.  The adapter changes a ``fork`` of it and returns that, so the
    state it was given (the session's, until the whole event is accepted) never changes."""

    state: racer.State
    deck: DeckState
    where: dict[Slot, tuple[str, int]] = field(default_factory=dict)  # never forgets a slot
    draw_pools: dict[int, str] = field(default_factory=dict)  # seat -> its draw deck's pool
    reshuffles: int = 0
    voided: tuple[str, ...] = ()  # discard:K pools a retirement left half made: never used
    cards: dict[Slot, int] | None = None  # every slot's card, once the audit has run
    result: Result | None = None
    retired: tuple[int, ...] = ()  # seats the table retired, in log order
    to_recover: dict[int, tuple[ScalarId, ...]] = field(default_factory=dict)
    deferred: tuple[int, ...] = ()  # retired during the set-up: out of the engine at the roll
    # seat -> index into deck.escrow.kept from which it may still complain: every bundle kept
    # since its last deck step (its window closes at its next one: docs/ESCROW.md step 2)
    complain_from: dict[int, int] = field(default_factory=dict)
    release_ahead: bool = False  # a private draw releases the stage's certain draws together
    # The last seats' choices, newest last, each with the public state just before it: what a
    # bot of a seat reads of the others (engine/racer/beliefs.py). No rule reads it.
    recent: tuple[Seen, ...] = ()

    @property
    def remaining(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if s not in self.retired)

    @property
    def seats(self) -> int:
        return self.state.n

    def fork(self) -> RacerGame:
        """A copy to change; the engine state and the audit's results are immutable, shared."""
        return replace(
            self,
            deck=self.deck.fork(),
            where=dict(self.where),
            draw_pools=dict(self.draw_pools),
            to_recover=dict(self.to_recover),
            complain_from=dict(self.complain_from),
        )

    def complaint_window(self, seat: int) -> int:
        """The index into ``deck.escrow.kept`` of the first bundle ``seat`` may complain about."""
        return self.complain_from.get(seat, 0)


def card_ids(state: racer.State) -> list[str]:
    """The deck's card ids: the catalogue's ids as decimal text, creeps first."""
    return [str(i) for i in (*state.catalogue.creep_ids, *state.catalogue.play_ids)]


def new_game(
    game: bytes,
    keys: tuple[bytes, ...],
    state: racer.State,
    escrow: bool = False,
    release_ahead: bool = False,
) -> RacerGame:
    """The table; with ``escrow`` (3-4 seats) every layer and lock key is escrowed, so the table
    can play on without a retired seat.  No lock is exempt: after an odd Deck Shift a seat draws
    from the pool another seat locked as its own, so every lock key may be needed.  With
    ``release_ahead`` a private draw's release covers the stage's certain draws (``_card_step``).
    """
    deck = DeckState(game, keys, card_ids(state), escrow=escrow)
    return RacerGame(state, deck, release_ahead=release_ahead)


# --- what the table waits for ------------------------------------------------------------------


def next_step(game: RacerGame) -> Step | None:
    """The one step the game waits for; None once the audit is done."""
    owed = _after_retirement(game)
    if owed is not None:
        return owed
    step = _next_step(game)
    if isinstance(step, DeckStep) and step.seat in game.retired:
        return replace(step, by=game.remaining[0])
    return step


def _after_retirement(game: RacerGame) -> DeckStep | None:
    """What the remaining seats owe after a retirement: recoveries, then refreshes."""
    book = game.deck.escrow
    if book is None or not game.retired:
        return None
    for gone, scalars in game.to_recover.items():
        missing = [sc for sc in scalars if (gone, sc) not in book.recovered]
        for seat in game.remaining:
            mine = tuple(sc for sc in missing if seat not in book.recovery.get((gone, sc), {}))
            if mine:
                what = f"publish its shares of retired seat {gone}'s keys"
                return DeckStep(seat, "recover", what, to=gone, scalars=mine)
    for seat in game.remaining:
        if refresh_due(game.deck, seat):
            return DeckStep(seat, "refresh", "re-deal its escrow among the seats still playing")
    return None


def to_recover(game: RacerGame, seat: int, every_draw_pool: bool = False) -> tuple[ScalarId, ...]:
    """The retired seat's scalars the table will need (docs/ESCROW.md): its layer of every pool
    it has not locked yet but ``box`` (never locked: nothing ever strips a layer there), and its
    lock key of every position it has not released that is not public, not held and not being
    released to it, outside its own draw deck (which leaves play hidden).  Never more: a
    recovery publishes the scalar.  Before the Deck Shift nobody knows which draw deck will be
    the seat's, so none is recovered then (``_retire_deferred`` adds them at the roll to start,
    once the seat's own is known); ``every_draw_pool`` names them all, its own unknown yet (what
    the table may still need of a seat retired in the set-up: ``lost_share``)."""
    book = game.deck.escrow
    assert book is not None
    deck = game.state.players[seat].deck
    set_up = isinstance(game.state.stage, SET_UP)
    # Its own draw deck is the pool of its next card.  Drawn out in play it has none: the pool
    # named for it (deck:S) is then another seat's after an odd Deck Shift, and needs its keys.
    named = game.draw_pools.get(seat) if set_up else None
    own = game.where[deck[0]][0] if deck and deck[0] in game.where else named
    if every_draw_pool:
        own = None
    draw_pools_later = set_up and not every_draw_pool
    wanted: dict[ScalarId, None] = {}
    for pool in game.deck.pools.values():
        if pool.name == NEVER_LOCKED or pool.name in game.voided:
            continue
        if pool.locks <= seat:
            if pool.depth[seat] > 0:
                wanted[ScalarId("layer", pool.family, pool.depth[seat])] = None
            again = pool.depth[seat] + 1  # a shuffle to come re-publishes a layer it has shown
            if (
                set_up
                and _to_shuffle(pool)
                and (seat, pool.family, again) in game.deck.layer_commits
            ):
                wanted[ScalarId("layer", pool.family, again)] = None
        elif (
            pool.locks > seat
            and pool.name != own
            and not (draw_pools_later and _is_draw_pool(game, pool))
        ):
            for j in _hidden_unreleased(pool, seat):
                wanted[ScalarId("lock", pool.name, j)] = None
    return tuple(sc for sc in wanted if book.bundle(seat, sc) is not None)


def void_reshuffle(game: RacerGame) -> None:
    """A retirement while the discard pile's reshuffle is under way (pool ``discard:K`` made, the
    engine not yet answered) voids that pool: the retired seat's line leaves its attachments on
    the pile, or its turn passes and the pile changes before the next redeal, so the pool's cards
    may no longer be the pile's.  ``discard:K`` stays in the deck unused; the next reshuffle is
    ``discard:K+1``, made from the pile as it is then (docs/spec-racer.md §9.1)."""
    name = f"discard:{game.reshuffles}"
    if name in game.deck.pools:
        game.voided = (*game.voided, name)
        game.reshuffles += 1


def _hidden_unreleased(pool: Pool, seat: int) -> list[int]:
    """The positions of a pool ``seat`` has locked that are not public, not held and not
    released by it or being released to it.  A pool not yet locked by every seat (a second
    departure can come while the table still owes a first retired seat's lock) has no slots
    yet: then every position not opened in its shuffle phase."""
    if not pool.slots:
        return [j for j in range(len(pool.points)) if j not in pool.public]
    return [
        j
        for j, slot in enumerate(pool.slots)
        if not slot.is_public
        and slot.holder is None
        and seat not in slot.released
        and slot.release_to != seat
    ]


def lost_share(game: RacerGame) -> tuple[int, ScalarId] | None:
    """A scalar the table still needs of a retired seat (``to_recover`` not yet recovered; for a
    seat retired in the set-up, the Deck Shift still to come, its lock keys of every draw pool
    too) whose newest escrow has a recipient that is retired and has not published its share:
    the share is lost with it, the scalar can never be recovered, and the table could never
    make that seat's steps (docs/ESCROW.md "Known limits").  The first such (dealer, scalar)."""
    book = game.deck.escrow
    assert book is not None
    for dealer in game.retired:
        needed = game.to_recover.get(dealer, ())
        if dealer in game.deferred:
            needed = (*needed, *to_recover(game, dealer, every_draw_pool=True))
        for scalar in needed:
            kept = book.bundle(dealer, scalar)
            if kept is None or (dealer, scalar) in book.recovered:
                continue
            published = book.recovery.get((dealer, scalar), {})
            if any(r in book.retired and r not in published for r in kept[0].recipients):
                return dealer, scalar
    return None


def _to_shuffle(pool: Pool) -> bool:
    """A pool the set-up shuffles again into a seat's draw deck (deck:S, or its parts): the seat
    that shuffled deck:0 re-publishes the same layer on each later one, so the table needs it."""
    return pool.name.startswith(("creeps:", "play:", "deck:"))


def _is_draw_pool(game: RacerGame, pool: Pool) -> bool:
    """A seat's draw pool: ``deck:S``, or ``creeps:S`` / ``play:S`` under its own name (a seat
    with no face-down Creep); the Deck Shift may make any of them the retired seat's own."""
    return pool.name in game.draw_pools.values()


def _next_step(game: RacerGame) -> Step | None:
    deck, n = game.deck, game.seats
    missing = [s for s in range(n) if deck.joins[s] is None]
    if missing:
        return DeckStep(missing[0], "join", "commit to a deck secret")
    request = racer.pending(game.state)
    if isinstance(request, NeedShuffle):
        name = draw_pool_name(game, request)
        pool = deck.pools[name]
        if pool.shuffles < n:
            return DeckStep(pool.shuffles, "shuffle", f"shuffle {name}", name)
        return DeckStep(pool.locks, "lock", f"lock {name}", name)
    if isinstance(request, NeedCard):
        return _card_step(game, request)
    if isinstance(request, NeedReveal):
        return ShowDrawn(request.seat, request.slot)
    if isinstance(request, GameOver):
        unrevealed = [s for s in game.remaining if deck.secrets[s] is None]
        if unrevealed:
            return DeckStep(unrevealed[0], "reveal", "reveal the deck secret for the audit")
        return None
    return request


def _card_step(game: RacerGame, request: NeedCard) -> DeckStep:
    name, j = game.where[request.slot]
    pool = game.deck.pools[name]
    if not pool.locked(game.seats):
        return DeckStep(pool.locks, "lock", f"lock {name}", name)
    slot = pool.slots[j]
    learner = request.learner
    if learner == PUBLIC:
        seat = next(s for s in range(game.seats) if s not in slot.released)
        positions = tuple(
            k
            for k, other in enumerate(pool.slots)
            if not other.is_public and other.holder is None and seat not in other.released
        )
        return DeckStep(seat, "release", f"reveal {name} to everyone", name, positions, EVERYONE)
    if slot.holder is None:
        seat = next(s for s in range(game.seats) if s != learner and s not in slot.released)
        positions = _released_together(game, name, j, seat) if game.release_ahead else (j,)
        what = f"release {name}{list(positions)} to seat {learner}"
        return DeckStep(seat, "release", what, name, positions, learner)
    if slot.pending is None:
        return DeckStep(learner, "blind", f"take the hostage card {name}[{j}]", name, (j,))
    return DeckStep(slot.holder, "unblind", f"hand over the hostage card {name}[{j}]", name, (j,))


def _released_together(game: RacerGame, name: str, j: int, seat: int) -> tuple[int, ...]:
    """What ``seat`` releases at once for a private draw of ``name[j]`` in a table with
    ``release_ahead``: the positions, in the order drawn, of the cards the learner is sure to
    draw in this stage (``racer.certain_draws``, the one being drawn first), up to the first
    that is not in the drawn card's pool, leaving out any ``seat`` has already released.
    Public facts only."""
    slots = game.deck.pools[name].slots
    positions = [j]
    for upcoming in racer.certain_draws(game.state)[1:]:
        where = game.where.get(upcoming)
        if where is None or where[0] != name:
            break
        if seat not in slots[where[1]].released:
            positions.append(where[1])
    return tuple(positions)


def not_a_creep(game: RacerGame, slot: Slot) -> tuple[str, int, list[str]] | None:
    """What a seat keeping the drawn ``slot`` must prove: (pool, position, the Creeps it may be).

    Only the dealt family ``cards`` holds Creeps; the card is none of those face up (every card is
    once per family, checked at each shuffle), so it must be proven none of the others (a deck
    ``none_of`` proof).  A reshuffled discard pile holds no Creep, so keeping one of its cards
    needs no proof (None).
    """
    name, position = game.where[slot]
    if game.deck.pools[name].family != DEALT:
        return None
    shown = _shown(game)
    creeps = [str(card) for card in game.state.catalogue.creep_ids]
    return name, position, [card for card in creeps if card not in shown]


def may_be(game: RacerGame) -> list[str]:
    """The play cards the dealt family may still hide: the set of the ``class`` proofs that
    logs written before ``none_of`` carry for a kept card (docs/PROTOCOL.md)."""
    shown = _shown(game)
    return [str(card) for card in game.state.catalogue.play_ids if str(card) not in shown]


def _shown(game: RacerGame) -> set[str]:
    """Cards of the dealt family face up now, each at a position other than any hidden one."""
    return {
        card
        for pool in game.deck.pools.values()
        if pool.family == DEALT
        for card in (*pool.public.values(), *(s.card for s in pool.slots if s.card is not None))
    }


def draw_pool_name(game: RacerGame, request: NeedShuffle) -> str:
    """The deck pool an engine shuffle request works on (made by ``settle``)."""
    if request.pool.startswith("deck:"):
        return game.draw_pools[int(request.pool.split(":")[1])]
    if request.pool == "discard":
        return f"discard:{game.reshuffles}"
    return request.pool


def _locked_after_shuffle(request: NeedShuffle) -> bool:
    """Pools that are dealt from are locked; creeps and play are split and shuffled again."""
    return request.pool not in ("creeps", "play")


# --- automatic steps -----------------------------------------------------------------------------


def settle(game: RacerGame) -> None:
    """Perform every step that needs no event: pool bookkeeping, blind engine shuffles once the
    deck work is done, and the engine's learning of cards the deck has made known."""
    deck, n = game.deck, game.seats
    if None in deck.joins:
        return
    _retire_deferred(game)
    if DEALT not in deck.used_names:
        _bookkeep(game, create_message(DEALT, card_ids(game.state)))
        creeps = len(game.state.catalogue.creep_ids)
        plays = len(game.state.catalogue.play_ids)
        _bookkeep(game, split_message(DEALT, ["creeps", "play"], [creeps, plays]))
    while True:
        request = racer.pending(game.state)
        if isinstance(request, NeedShuffle):
            name = _ensure_pool(game, request)
            pool = deck.pools[name]
            if pool.shuffles < n or (_locked_after_shuffle(request) and not pool.locked(n)):
                return
            before = game.state
            game.state = racer.apply(before, Shuffle(None))
            _place(game, request, before, name)
            _retire_deferred(game)
        elif isinstance(request, NeedCard):
            learned = _learned(game, request)
            if learned is None:
                return
            game.state = racer.apply(game.state, learned)
            _retire_deferred(game)
        else:
            return


def _retire_deferred(game: RacerGame) -> None:
    """Take seats retired during the set-up out of the engine once it may (the roll to start)."""
    for seat in game.deferred:
        if racer.can_retire(game.state, seat) is None:
            known = game.to_recover.get(seat, ())
            game.to_recover[seat] = tuple(dict.fromkeys((*known, *to_recover(game, seat))))
            game.state = racer.retire(game.state, seat)
            game.deferred = tuple(s for s in game.deferred if s != seat)


def _learned(game: RacerGame, request: NeedCard) -> Learn | None:
    name, j = game.where[request.slot]
    pool = game.deck.pools[name]
    if not pool.locked(game.seats):
        return None
    slot = pool.slots[j]
    if request.learner == PUBLIC:
        return None if slot.card is None else Learn(request.slot, int(slot.card))
    if slot.holder != request.learner or slot.pending is not None:
        return None
    return Learn(request.slot, None)


def _ensure_pool(game: RacerGame, request: NeedShuffle) -> str:
    if request.pool.startswith("deck:"):
        seat = int(request.pool.split(":")[1])
        if seat not in game.draw_pools:
            parts = [p for p in (f"creeps:{seat}", f"play:{seat}") if p in game.deck.pools]
            name = parts[0]
            if len(parts) > 1:
                name = f"deck:{seat}"
                _bookkeep(game, merge_message(parts, name))
            game.draw_pools[seat] = name
    elif request.pool == "discard":
        name = f"discard:{game.reshuffles}"
        if name not in game.deck.pools:
            cards = [str(game.state.known[s]) for s in request.slots]
            _bookkeep(game, create_message(name, cards))
    return draw_pool_name(game, request)


def _place(game: RacerGame, request: NeedShuffle, before: racer.State, name: str) -> None:
    """Map the slots the engine just dealt onto the shuffled pool's positions."""
    after = game.state
    if request.pool == "creeps":
        pieces = [("faceup", [c.slot for p in after.players for c in p.line])]
        pieces += [(f"creeps:{p.seat}", list(p.deck)) for p in after.players]
        pieces.append(("box", list(after.box)))
        _split(game, name, pieces)
    elif request.pool == "play":
        pieces = [
            (f"play:{p.seat}", list(p.deck[len(before.players[p.seat].deck) :]))
            for p in after.players
        ]
        _split(game, name, pieces)
    else:
        # A deck or the discard pile: position j of the locked pool is the engine's j-th fresh
        # handle (the engine may already have drawn one of them when a redeal feeds a draw).
        for j in range(len(request.slots)):
            game.where[before.next_slot + j] = (name, j)
        if request.pool == "discard":
            game.reshuffles += 1


def _split(game: RacerGame, name: str, pieces: list[tuple[str, list[Slot]]]) -> None:
    pieces = [(piece, slots) for piece, slots in pieces if slots]
    _bookkeep(game, split_message(name, [p for p, _ in pieces], [len(s) for _, s in pieces]))
    for piece, slots in pieces:
        for j, slot in enumerate(slots):
            game.where[slot] = (piece, j)


def _bookkeep(game: RacerGame, message: dict) -> None:
    handler = {"create": handle_create, "split": handle_split, "merge": handle_merge}
    handler[message["op"]](game.deck, BOOKKEEPER, game.deck.last_seq or 0, message)
