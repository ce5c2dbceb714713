"""What the game waits for (``pending``) and the actor's options (``legal_actions``).

Both depend only on what the given state knows: public facts for ``pending``, so every node
agrees on who acts next; the actor's own hand for ``legal_actions``.

``pending`` is specified in docs/spec-racer.md §4; legality in §5.
"""

from __future__ import annotations

from creepnet.engine.racer.actions import (
    PUBLIC,
    AcceptHostage,
    AddAttacker,
    AskHostage,
    Decide,
    DeclareAttack,
    DeclineMonster,
    Discard,
    ForceHostage,
    GameOver,
    KeepDrawn,
    Launch,
    NeedCard,
    NeedDie,
    NeedPick,
    NeedReveal,
    NeedShuffle,
    Pass,
    PlaceCreep,
    PlayCalamity,
    PlayGoodFortune,
    PlayHero,
    PlayMonster,
    RefuseHostage,
    Request,
    SeatAction,
    Slot,
    StopHeroes,
    Withdraw,
)
from creepnet.engine.racer.attacks import attack_values, may_declare, opener_ok
from creepnet.engine.racer.cards import Card, Kind
from creepnet.engine.racer.state import (
    DeckShift,
    Declaring,
    Discarding,
    Drawing,
    Exchange,
    HostageAnswer,
    HostageSwap,
    Moves,
    Over,
    React,
    RevealFaceUp,
    SetupShuffle,
    StartRoll,
    State,
)
from creepnet.engine.racer.table import matching_calamity, side_seat


def pending(state: State) -> Request:
    """What the game waits for. Depends on public facts only, so every node agrees."""
    st = state.stage
    if isinstance(st, SetupShuffle):
        if st.pool == "creeps":
            return NeedShuffle("creeps", state.creep_pile)
        if st.pool == "play":
            return NeedShuffle("play", state.play_pile)
        return NeedShuffle(f"deck:{st.seat}", state.players[st.seat].deck)
    if isinstance(st, RevealFaceUp):
        return NeedCard(st.slots[0], PUBLIC)
    if isinstance(st, DeckShift):
        return NeedDie("deck-shift", state.options.dealer)
    if isinstance(st, StartRoll):
        return NeedDie("start", st.contenders[len(st.rolls)])
    if isinstance(st, Drawing):
        seat = st.queue[0][0]
        if st.redeal:
            return NeedShuffle("discard", state.discard)
        assert st.drawn is not None
        if not st.learned:
            return NeedCard(st.drawn, seat)
        return NeedReveal(seat, st.drawn)
    turn = state.turn
    if isinstance(st, Moves):
        assert turn is not None
        return Decide(turn.seat, "move")
    if isinstance(st, Declaring):
        assert turn is not None
        return Decide(turn.seat, "attack")
    if isinstance(st, Exchange):
        assert turn is not None
        if st.rolling is not None:
            return NeedDie("modifier", side_seat(state, st, st.rolling))
        return Decide(side_seat(state, st, st.to_play), "hero")
    if isinstance(st, React):
        return Decide(st.seat, "react")
    if isinstance(st, HostageAnswer):
        return Decide(st.target, "hostage")
    if isinstance(st, HostageSwap):
        if len(st.picked) == 0:
            return NeedPick(st.target, st.asker, len(state.players[st.target].hand))
        if len(st.picked) == 1:
            return NeedPick(st.asker, st.target, len(state.players[st.asker].hand))
        slot, learner = st.to_learn[0]
        return NeedCard(slot, learner)
    if isinstance(st, Discarding):
        assert turn is not None
        return Decide(turn.seat, "discard")
    if isinstance(st, Over):
        return GameOver(st.winner)
    raise AssertionError(f"unknown stage {st!r}")


def certain_draws(state: State) -> tuple[Slot, ...]:
    """The cards the drawing seat is sure to draw in this Drawing stage, the one being drawn
    first: as many as it still has non-Creep cards to draw (``Drawing.queue[0]``, counting the
    one drawn), from the top of its deck.  A Creep drawn means one more draw, never fewer, and
    no decision comes between two draws, so every one of these is drawn before the seat decides
    anything (docs/spec-racer.md §5.2).  Empty outside a draw.  Public facts only."""
    st = state.stage
    if not isinstance(st, Drawing) or st.drawn is None or st.redeal or not st.queue:
        return ()
    seat, count = st.queue[0]
    return (st.drawn, *state.players[seat].deck[: max(count - 1, 0)])


def legal_actions(state: State) -> list[SeatAction]:
    """The actor's options. Empty at chance nodes and at game over, and when this state
    lacks the actor's private knowledge (e.g. a drawn card it has not learned).

    Identical cards in hand are offered once (the lowest slot): which copy is played
    makes no difference to the game; ``apply`` accepts any of them.
    """
    request = pending(state)
    st = state.stage
    if isinstance(request, NeedReveal):
        card = state.card(request.slot)
        if card is None:
            return []
        if card.kind is Kind.CREEP:
            return [PlaceCreep(request.slot, card.id)]
        return [KeepDrawn(request.slot)]
    if not isinstance(request, Decide):
        return []
    seat = request.seat
    hand = _known_hand(state, seat)
    if isinstance(st, Moves):
        return _move_options(state, seat, hand)
    if isinstance(st, Declaring):
        return _declaring_options(state, seat, st, hand)
    if isinstance(st, Exchange):
        return [StopHeroes(), *(PlayHero(s, c.id) for s, c in hand if c.kind is Kind.HERO)]
    if isinstance(st, React):
        family = st.family
        return [
            DeclineMonster(),
            *(
                PlayMonster(s, c.id)
                for s, c in hand
                if c.kind is Kind.MONSTER and c.family == family
            ),
        ]
    if isinstance(st, HostageAnswer):
        return [AcceptHostage(), RefuseHostage()]
    if isinstance(st, Discarding):
        return [Discard(s, c.id) for s, c in hand]
    return []


def _known_hand(state: State, seat: int) -> list[tuple[Slot, Card]]:
    """One (slot, card) per distinct known card in the seat's hand."""
    seen: set[str] = set()
    result = []
    for slot in sorted(state.players[seat].hand):
        card = state.card(slot)
        if card is not None and card.name not in seen:
            seen.add(card.name)
            result.append((slot, card))
    return result


def _move_options(state: State, seat: int, hand: list[tuple[Slot, Card]]) -> list[SeatAction]:
    me = state.players[seat]
    options: list[SeatAction] = [Pass()]
    opponents = [p for p in state.players if p.active and p.seat != seat]
    for slot, card in hand:
        if card.kind is Kind.CALAMITY:
            assert card.family is not None
            for opp in opponents:
                if not state.shows_monster(opp.seat, card.family):
                    options.extend(PlayCalamity(slot, card.id, c.slot) for c in opp.line)
        elif card.kind is Kind.GOOD_FORTUNE:
            options.extend(
                PlayGoodFortune(slot, card.id, c.slot)
                for c in me.line
                if matching_calamity(state, c, card.family) is not None
            )
    if me.line and may_declare(state):
        options.extend(DeclareAttack(c.slot) for opp in opponents if opp.hand for c in opp.line)
    if me.hand:
        for opp in opponents:
            if opp.hand:
                options.append(AskHostage(opp.seat))
                if not me.forced_hostage:
                    options.append(ForceHostage(opp.seat))
    return options


def _declaring_options(
    state: State, seat: int, st: Declaring, hand: list[tuple[Slot, Card]]
) -> list[SeatAction]:
    options: list[SeatAction] = [Withdraw()]
    options.extend(
        AddAttacker(c.slot) for c in state.players[seat].line if c.slot not in st.attackers
    )
    if st.attackers:
        total, target = attack_values(state, st)
        if total > target:
            options.append(Launch())
        for slot, card in hand:
            if card.kind is Kind.HERO and opener_ok(card.hero, total, target):
                options.append(Launch(slot, card.id))
    return options
