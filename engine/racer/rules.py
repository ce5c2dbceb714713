"""Creepy Racer rules: ``pending``, ``legal_actions`` and ``apply``.

``apply(state, action)`` takes ``action`` as the answer of ``pending(state).actor`` (the
protocol layer checks who signed it) and returns the next state, always settled at the next
request. The engine never needs a hidden identity to move on: a hidden card is named by the
action that reveals it, and checked against what this state already knows.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from creepnet.engine.racer.actions import (
    PUBLIC,
    AcceptHostage,
    Action,
    AddAttacker,
    AskHostage,
    Decide,
    DeclareAttack,
    DeclineMonster,
    Die,
    Discard,
    ForceHostage,
    GameOver,
    IllegalAction,
    KeepDrawn,
    Launch,
    Learn,
    NeedCard,
    NeedDie,
    NeedPick,
    NeedReveal,
    NeedShuffle,
    Pass,
    Pick,
    PlaceCreep,
    PlayCalamity,
    PlayGoodFortune,
    PlayHero,
    PlayMonster,
    RefuseHostage,
    Request,
    Shuffle,
    Slot,
    StopHeroes,
    Withdraw,
)
from creepnet.engine.racer.cards import OPENING_HEROES, Card, CardId, Hero, Kind
from creepnet.engine.racer.state import (
    DeckShift,
    Declaring,
    Discarding,
    Drawing,
    Exchange,
    HostageAnswer,
    HostageSwap,
    LineCreep,
    Moves,
    Over,
    React,
    RevealFaceUp,
    SetupShuffle,
    StartRoll,
    State,
    Turn,
    with_player,
)

_FACTORS = {Hero.DOUBLE: 2, Hero.TRIPLE: 3}

# ============================================================================================
# pending
# ============================================================================================


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
            return NeedDie("modifier", _side_seat(state, st, st.rolling))
        return Decide(_side_seat(state, st, st.to_play), "hero")
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


def _side_seat(state: State, ex: Exchange, side: int) -> int:
    assert state.turn is not None
    return state.turn.seat if side == 0 else ex.defender


# ============================================================================================
# legal actions (for the seat to act, from what this state knows of its hand)
# ============================================================================================


def legal_actions(state: State) -> list[Action]:
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


def _move_options(state: State, seat: int, hand: list[tuple[Slot, Card]]) -> list[Action]:
    me = state.players[seat]
    options: list[Action] = [Pass()]
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
                if _matching_calamity(state, c, card.family) is not None
            )
    if me.line:
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
) -> list[Action]:
    options: list[Action] = [Withdraw()]
    options.extend(
        AddAttacker(c.slot) for c in state.players[seat].line if c.slot not in st.attackers
    )
    if st.attackers:
        total, target = _attack_values(state, st)
        if total > target:
            options.append(Launch())
        for slot, card in hand:
            if card.kind is Kind.HERO and _opener_ok(card.hero, total, target):
                options.append(Launch(slot, card.id))
    return options


def _opener_ok(hero: Hero | None, total: int, target: int) -> bool:
    if hero in _FACTORS:
        return total * _FACTORS[hero] > target
    if hero is Hero.REVERSAL:
        return target > total  # after the swap the attacker must be ahead
    return hero is Hero.MODIFIER  # a gamble: losing is settled by the die


def _attack_values(state: State, st: Declaring) -> tuple[int, int]:
    total = 0
    for slot in st.attackers:
        found = state.find_creep(slot)
        assert found is not None
        total += state.strength(found[1])
    target = state.find_creep(st.target)
    assert target is not None
    return total, state.strength(target[1])


def _matching_calamity(state: State, creep: LineCreep, family: str | None) -> Slot | None:
    for slot in creep.attached:
        card = state.public_card(slot)
        if card.kind is Kind.CALAMITY and card.family == family:
            return slot
    return None


# ============================================================================================
# apply
# ============================================================================================


def apply(state: State, action: Action) -> State:
    """The next state after ``action`` by ``pending(state).actor``; raises IllegalAction."""
    st = state.stage
    handler = _HANDLERS.get((type(st), type(action)))
    if handler is None:
        raise IllegalAction(f"{type(action).__name__} is not an answer to {pending(state)!r}")
    return _settle(handler(state, st, action))


# --- set-up ---------------------------------------------------------------------------------


def _on_setup_shuffle(state: State, st: SetupShuffle, action: Shuffle) -> State:
    n, opts = state.n, state.options
    if st.pool == "creeps":
        state, slots = _shuffled(state, state.creep_pile, action)
        in_play = opts.creeps_per_player * n
        face_up = slots[: opts.face_up_creeps * n]
        players = [replace(p, line=(), deck=()) for p in state.players]
        for k, slot in enumerate(face_up):
            p = players[k % n]
            players[k % n] = replace(p, line=p.line + (LineCreep(slot),))
        for k, slot in enumerate(slots[len(face_up) : in_play]):
            p = players[k % n]
            players[k % n] = replace(p, deck=p.deck + (slot,))
        return replace(
            state,
            players=tuple(players),
            creep_pile=(),
            box=slots[in_play:],
            stage=RevealFaceUp(face_up),
        )
    if st.pool == "play":
        state, slots = _shuffled(state, state.play_pile, action)
        players = list(state.players)
        for k, slot in enumerate(slots):  # clockwise from seat 0, as evenly as possible
            p = players[k % n]
            players[k % n] = replace(p, deck=p.deck + (slot,))
        return replace(state, players=tuple(players), play_pile=(), stage=SetupShuffle("deck", 0))
    player = state.players[st.seat]
    state, slots = _shuffled(state, player.deck, action)
    state = with_player(state, replace(player, deck=slots))
    following = SetupShuffle("deck", st.seat + 1) if st.seat + 1 < n else DeckShift()
    return replace(state, stage=following)


def _on_reveal_face_up(state: State, st: RevealFaceUp, action: Learn) -> State:
    if action.slot != st.slots[0] or action.card is None:
        raise IllegalAction("a face-up Creep must be revealed to everyone")
    _require_kind(state, action.card, Kind.CREEP)
    state = _reveal(state, action.slot, action.card, _everyone(state))
    rest = st.slots[1:]
    return replace(state, stage=RevealFaceUp(rest) if rest else SetupShuffle("play"))


def _on_deck_shift(state: State, st: DeckShift, action: Die) -> State:
    _require_die(action)
    if action.value % 2 == 1:  # odd: every deck passes to the player on the left
        n = state.n
        players = tuple(
            replace(p, deck=state.players[(p.seat - 1) % n].deck) for p in state.players
        )
        state = replace(state, players=players)
    return replace(state, stage=StartRoll(tuple(range(state.n))))


def _on_start_roll(state: State, st: StartRoll, action: Die) -> State:
    _require_die(action)
    rolls = st.rolls + (action.value,)
    if len(rolls) < len(st.contenders):
        return replace(state, stage=StartRoll(st.contenders, rolls))
    best = max(rolls)
    tied = tuple(seat for seat, roll in zip(st.contenders, rolls, strict=True) if roll == best)
    if len(tied) > 1:
        return replace(state, stage=StartRoll(tied))
    start = tied[0]
    order = [(start + k) % state.n for k in range(state.n)]
    queue = tuple((seat, state.options.opening_hand) for seat in order)
    return replace(state, start_seat=start, stage=Drawing(queue, "opening"))


# --- drawing --------------------------------------------------------------------------------


def _on_redeal(state: State, st: Drawing, action: Shuffle) -> State:
    if not st.redeal:
        raise IllegalAction("no shuffle is due")
    state, slots = _shuffled(state, state.discard, action)
    drawer = st.queue[0][0]
    order = [drawer]
    while (following := state.next_active(order[-1])) != drawer:
        order.append(following)
    players = list(state.players)
    for k, slot in enumerate(slots):  # round-robin to the bottoms of the decks
        p = players[order[k % len(order)]]
        players[p.seat] = replace(p, deck=p.deck + (slot,))
    return replace(state, players=tuple(players), discard=(), stage=replace(st, redeal=False))


def _on_draw_learn(state: State, st: Drawing, action: Learn) -> State:
    if st.drawn is None or st.learned or action.slot != st.drawn:
        raise IllegalAction("that is not the card being drawn")
    if action.card is not None:
        state = _reveal(state, action.slot, action.card, frozenset({st.queue[0][0]}))
    return replace(state, stage=replace(st, learned=True))


def _on_place_creep(state: State, st: Drawing, action: PlaceCreep) -> State:
    seat = _check_drawn(st, action.slot)
    _require_kind(state, action.card, Kind.CREEP)
    state = _reveal(state, action.slot, action.card, _everyone(state))
    p = state.players[seat]
    state = with_player(
        state,
        replace(p, hand=_without(p.hand, action.slot), line=p.line + (LineCreep(action.slot),)),
    )
    # A Creep is replaced by another draw: the queue count stays.
    return replace(state, stage=replace(st, drawn=None, learned=False))


def _on_keep_drawn(state: State, st: Drawing, action: KeepDrawn) -> State:
    _check_drawn(st, action.slot)
    card = state.card(action.slot)
    if card is not None and card.kind is Kind.CREEP:
        raise IllegalAction("a drawn Creep must be placed in the line")
    (seat, count), *rest = st.queue
    queue = ((seat, count - 1), *rest)
    return replace(state, stage=replace(st, queue=queue, drawn=None, learned=False))


def _check_drawn(st: Drawing, slot: Slot) -> int:
    if st.drawn is None or not st.learned or slot != st.drawn:
        raise IllegalAction("that is not the card just drawn")
    return st.queue[0][0]


def _settle_drawing(state: State, st: Drawing) -> State | None:
    if st.drawn is not None or st.redeal:
        return None
    if not st.queue:
        if st.then == "opening":
            assert state.start_seat is not None
            return _start_turn(state, state.start_seat, 1)
        return replace(state, stage=Moves())
    (seat, count), *rest = st.queue
    player = state.players[seat]
    if count <= 0 or not player.active:
        return replace(state, stage=replace(st, queue=tuple(rest)))
    if player.deck:
        slot = player.deck[0]
        state = with_player(
            state, replace(player, deck=player.deck[1:], hand=player.hand + (slot,))
        )
        return replace(state, stage=replace(st, drawn=slot, learned=False))
    if state.discard:
        return replace(state, stage=replace(st, redeal=True))
    return replace(state, stage=replace(st, queue=tuple(rest)))  # nothing left to draw


# --- turns ----------------------------------------------------------------------------------


def begin_turn(state: State, seat: int, number: int = 1) -> State:
    """Start turn ``number`` for ``seat`` (draws first), settled at the next request."""
    return _settle(_start_turn(state, seat, number))


def _start_turn(state: State, seat: int, number: int) -> State:
    limit = state.options.turn_limit
    if limit is not None and number > limit:
        return replace(state, stage=Over(None))
    turn = Turn(seat, number, moves_left=state.options.moves_per_turn)
    queue = ((seat, state.options.draws_per_turn),)
    return replace(state, turn=turn, stage=Drawing(queue, "moves"))


def _end_turn(state: State) -> State:
    turn = state.turn
    assert turn is not None
    chosen = turn.next_seat
    if chosen is not None and state.players[chosen].active:
        following = chosen
    else:
        following = state.next_active(turn.seat)
    return _start_turn(state, following, turn.number + 1)


def _finish_move(state: State) -> State:
    """A move is complete: check for the winner, then continue the mover's turn."""
    remaining = state.active_seats()
    if len(remaining) <= 1:
        return replace(state, stage=Over(remaining[0] if remaining else None))
    turn = state.turn
    assert turn is not None
    if not state.players[turn.seat].active:
        return _end_turn(state)  # the mover was eliminated: their turn is over at once
    left = turn.moves_left - 1
    return replace(
        state, turn=replace(turn, moves_left=left), stage=Moves() if left > 0 else Discarding()
    )


def _on_pass(state: State, st: Moves, action: Pass) -> State:
    return replace(state, stage=Discarding())


def _on_discard(state: State, st: Discarding, action: Discard) -> State:
    seat = _turn_seat(state)
    p = state.players[seat]
    if len(p.hand) <= state.options.hand_limit:
        raise IllegalAction("the hand is within the limit")
    _from_hand(state, seat, action.slot, action.card, None)
    state = _reveal(state, action.slot, action.card, _everyone(state))
    state = with_player(state, replace(p, hand=_without(p.hand, action.slot)))
    return replace(state, discard=state.discard + (action.slot,))


# --- Calamity, Monster reaction, Good Fortune -----------------------------------------------


def _on_calamity(state: State, st: Moves, action: PlayCalamity) -> State:
    seat = _turn_seat(state)
    card = _from_hand(state, seat, action.slot, action.card, Kind.CALAMITY)
    found = state.find_creep(action.target)
    if found is None or found[0] == seat:
        raise IllegalAction("a Calamity goes on an opponent's Creep")
    owner, creep = found
    assert card.family is not None
    if state.shows_monster(owner, card.family):
        raise IllegalAction("that line shows this family's Monster")
    state = _play_from_hand(state, seat, action.slot, action.card)
    state = _replace_creep(state, owner, replace(creep, attached=creep.attached + (action.slot,)))
    # The target is always asked, so the question itself reveals nothing about its hand.
    return replace(state, stage=React(seat, owner, action.target, card.family))


def _on_decline_monster(state: State, st: React, action: DeclineMonster) -> State:
    found = state.find_creep(st.creep)
    assert found is not None
    if state.strength(found[1]) <= 0:
        state = _kill(state, st.creep)
    return _finish_move(replace(state, stage=Moves()))


def _on_monster(state: State, st: React, action: PlayMonster) -> State:
    card = _from_hand(state, st.seat, action.slot, action.card, Kind.MONSTER)
    if card.family != st.family:
        raise IllegalAction("this Monster does not match the Calamity")
    state = _play_from_hand(state, st.seat, action.slot, action.card)
    # The Monster lands before death is checked, so it saves a Creep the Calamity brought to 0.
    line = []
    cleared: list[Slot] = []
    for creep in state.players[st.seat].line:
        keep = []
        for slot in creep.attached:
            attached = state.public_card(slot)
            if attached.kind is Kind.CALAMITY and attached.family == st.family:
                cleared.append(slot)
            else:
                keep.append(slot)
        if creep.slot == st.creep:
            keep.append(action.slot)
        line.append(replace(creep, attached=tuple(keep)))
    player = state.players[st.seat]
    state = with_player(state, replace(player, line=tuple(line)))
    turn = state.turn
    assert turn is not None
    # The Calamity player's turn ends (after discarding); the reacting player goes next.
    return replace(
        state,
        discard=state.discard + tuple(cleared),
        turn=replace(turn, next_seat=st.seat, moves_left=0),
        stage=Discarding(),
    )


def _on_good_fortune(state: State, st: Moves, action: PlayGoodFortune) -> State:
    seat = _turn_seat(state)
    card = _from_hand(state, seat, action.slot, action.card, Kind.GOOD_FORTUNE)
    found = state.find_creep(action.target)
    if found is None or found[0] != seat:
        raise IllegalAction("a Good Fortune goes on one of your own Creeps")
    creep = found[1]
    calamity = _matching_calamity(state, creep, card.family)
    if calamity is None:
        raise IllegalAction("that Creep carries no matching Calamity")
    state = _play_from_hand(state, seat, action.slot, action.card)
    state = _replace_creep(state, seat, replace(creep, attached=_without(creep.attached, calamity)))
    state = replace(state, discard=state.discard + (calamity, action.slot))
    return _finish_move(state)


# --- attacks --------------------------------------------------------------------------------


def _on_declare_attack(state: State, st: Moves, action: DeclareAttack) -> State:
    seat = _turn_seat(state)
    found = state.find_creep(action.target)
    if found is None or found[0] == seat:
        raise IllegalAction("attack a Creep of an opponent")
    if not state.players[found[0]].hand:
        raise IllegalAction("players with no cards in hand may not be attacked")
    if not state.players[seat].line:
        raise IllegalAction("you have no Creep to attack with")
    return replace(state, stage=Declaring(action.target))


def _on_add_attacker(state: State, st: Declaring, action: AddAttacker) -> State:
    found = state.find_creep(action.creep)
    if found is None or found[0] != _turn_seat(state) or action.creep in st.attackers:
        raise IllegalAction("enlist one of your own Creeps, once")
    return replace(state, stage=replace(st, attackers=st.attackers + (action.creep,)))


def _on_withdraw(state: State, st: Declaring, action: Withdraw) -> State:
    return replace(state, stage=Moves())


def _on_launch(state: State, st: Declaring, action: Launch) -> State:
    if not st.attackers:
        raise IllegalAction("no Creep is attacking")
    seat = _turn_seat(state)
    total, target = _attack_values(state, st)
    defender = state.find_creep(st.target)
    assert defender is not None
    ex = Exchange(defender[0], st.attackers, st.target, (total, target))
    if action.slot is None:
        if total <= target:
            raise IllegalAction("without a Hero the attackers must be stronger than the target")
        return replace(state, stage=ex)
    if action.card is None:
        raise IllegalAction("name the opening Hero")
    hero = _from_hand(state, seat, action.slot, action.card, Kind.HERO).hero
    if hero not in OPENING_HEROES or not _opener_ok(hero, total, target):
        raise IllegalAction(f"{hero} cannot open this attack")
    state = _play_from_hand(state, seat, action.slot, action.card)
    ex = replace(ex, heroes=(action.slot,))
    if hero is Hero.MODIFIER:
        ex = replace(ex, rolling=0, opening_roll=True)
    else:
        ex = _hero_effect(ex, 0, hero)
    return replace(state, stage=replace(ex, to_play=1))


def _on_play_hero(state: State, st: Exchange, action: PlayHero) -> State:
    _require_no_roll(st)
    side = st.to_play
    seat = _side_seat(state, st, side)
    hero = _from_hand(state, seat, action.slot, action.card, Kind.HERO).hero
    assert hero is not None
    state = _play_from_hand(state, seat, action.slot, action.card)
    ex = replace(st, heroes=st.heroes + (action.slot,), to_play=1 - side)
    if hero is Hero.ERASER:
        return _resolve_attack(state, replace(ex, eraser=side))
    if hero is Hero.MODIFIER:
        return replace(state, stage=replace(ex, rolling=side))
    return replace(state, stage=_hero_effect(ex, side, hero))


def _hero_effect(ex: Exchange, side: int, hero: Hero) -> Exchange:
    values, stacks = list(ex.values), list(ex.stacks)
    other = 1 - side
    if hero in _FACTORS:
        factor = _FACTORS[hero]
        values[side] *= factor
        stacks[side] += (factor,)
    elif hero is Hero.REVERSAL:
        if stacks[other]:  # take the opponent's last effect for yourself
            factor = stacks[other][-1]
            stacks[other] = stacks[other][:-1]
            values[other] //= factor
            values[side] *= factor
            stacks[side] += (factor,)
        else:  # nothing to take (e.g. as an opener): the two values swap
            values.reverse()
            stacks.reverse()
    return replace(ex, values=(values[0], values[1]), stacks=(stacks[0], stacks[1]))


def _on_modifier_die(state: State, st: Exchange, action: Die) -> State:
    _require_die(action)
    side = st.rolling
    if side is None:
        raise IllegalAction("no Modifier waits for a die")
    values, stacks = list(st.values), list(st.stacks)
    values[side] *= action.value
    stacks[side] += (action.value,)
    ex = replace(st, values=(values[0], values[1]), stacks=(stacks[0], stacks[1]), rolling=None)
    if st.opening_roll:
        ex = replace(ex, opening_roll=False)
        if ex.values[0] <= ex.values[1]:
            return _resolve_attack(state, ex)  # an opening Modifier that falls short loses
    return replace(state, stage=ex)


def _on_stop_heroes(state: State, st: Exchange, action: StopHeroes) -> State:
    _require_no_roll(st)
    return _resolve_attack(state, st)


def _require_no_roll(st: Exchange) -> None:
    if st.rolling is not None:
        raise IllegalAction("a Modifier waits for its die")


def _resolve_attack(state: State, ex: Exchange) -> State:
    attacker_wins = ex.eraser == 0 if ex.eraser is not None else ex.values[0] > ex.values[1]
    state = replace(state, discard=state.discard + ex.heroes, stage=Moves())
    losers = (ex.target,) if attacker_wins else ex.attackers
    for slot in losers:
        state = _kill(state, slot)
    return _finish_move(state)


# --- Hostage Exchange -----------------------------------------------------------------------


def _check_hostage(state: State, target: int) -> int:
    seat = _turn_seat(state)
    if not 0 <= target < state.n or target == seat or not state.players[target].active:
        raise IllegalAction("ask another player still in the game")
    if not state.players[seat].hand or not state.players[target].hand:
        raise IllegalAction("both players must hold at least one card")
    return seat


def _on_ask_hostage(state: State, st: Moves, action: AskHostage) -> State:
    seat = _check_hostage(state, action.seat)
    return replace(state, stage=HostageAnswer(seat, action.seat))


def _on_force_hostage(state: State, st: Moves, action: ForceHostage) -> State:
    seat = _check_hostage(state, action.seat)
    player = state.players[seat]
    if player.forced_hostage:
        raise IllegalAction("the forced Hostage Exchange is already used")
    state = with_player(state, replace(player, forced_hostage=True))
    return replace(state, stage=HostageSwap(seat, action.seat))


def _on_accept_hostage(state: State, st: HostageAnswer, action: AcceptHostage) -> State:
    return replace(state, stage=HostageSwap(st.asker, st.target))


def _on_refuse_hostage(state: State, st: HostageAnswer, action: RefuseHostage) -> State:
    return _finish_move(replace(state, stage=Moves()))  # the refused ask used the move


def _on_hostage_pick(state: State, st: HostageSwap, action: Pick) -> State:
    if len(st.picked) == 2:
        raise IllegalAction("both cards are already picked")
    giver = st.target if not st.picked else st.asker
    hand = state.players[giver].hand
    if not 0 <= action.index < len(hand):
        raise IllegalAction("pick a position in the hand")
    picked = st.picked + (hand[action.index],)
    if len(picked) == 1:
        return replace(state, stage=replace(st, picked=picked))
    to_asker, to_target = picked
    asker, target = state.players[st.asker], state.players[st.target]
    state = with_player(state, replace(asker, hand=_without(asker.hand, to_target) + (to_asker,)))
    state = with_player(state, replace(target, hand=_without(target.hand, to_asker) + (to_target,)))
    learn = ((to_asker, st.asker), (to_target, st.target))
    return replace(state, stage=replace(st, picked=picked, to_learn=learn))


def _on_hostage_learn(state: State, st: HostageSwap, action: Learn) -> State:
    if not st.to_learn or action.slot != st.to_learn[0][0]:
        raise IllegalAction("that is not the card being taken")
    if action.card is not None:
        state = _reveal(state, action.slot, action.card, frozenset({st.to_learn[0][1]}))
    rest = st.to_learn[1:]
    if rest:
        return replace(state, stage=replace(st, to_learn=rest))
    return _finish_move(replace(state, stage=Moves()))


# ============================================================================================
# settling: automatic steps until the next request
# ============================================================================================


def _settle(state: State) -> State:
    while True:
        st = state.stage
        if isinstance(st, Drawing):
            following = _settle_drawing(state, st)
        elif isinstance(st, Discarding):
            seat = _turn_seat(state)
            following = (
                _end_turn(state)
                if len(state.players[seat].hand) <= state.options.hand_limit
                else None
            )
        elif isinstance(st, Exchange) and st.rolling is None:
            seat = _side_seat(state, st, st.to_play)
            following = _resolve_attack(state, st) if not state.players[seat].hand else None
        else:
            following = None
        if following is None:
            return state
        state = following


# ============================================================================================
# helpers
# ============================================================================================


def _everyone(state: State) -> frozenset[int]:
    return frozenset(range(state.n))


def _turn_seat(state: State) -> int:
    assert state.turn is not None
    return state.turn.seat


def _without(slots: tuple[Slot, ...], slot: Slot) -> tuple[Slot, ...]:
    index = slots.index(slot)
    return slots[:index] + slots[index + 1 :]


def _require_die(action: Die) -> None:
    if not 1 <= action.value <= 6:
        raise IllegalAction("a die shows 1 to 6")


def _require_kind(state: State, card_id: CardId, kind: Kind) -> Card:
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    card = state.catalogue[card_id]
    if card.kind is not kind:
        raise IllegalAction(f"{card.name} is not a {kind.value}")
    return card


def _from_hand(state: State, seat: int, slot: Slot, card_id: CardId, kind: Kind | None) -> Card:
    """Check that ``seat`` holds ``slot`` and that it can be ``card_id`` of ``kind``."""
    if slot not in state.players[seat].hand:
        raise IllegalAction("that card is not in your hand")
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    card = state.catalogue[card_id]
    if kind is not None and card.kind is not kind:
        raise IllegalAction(f"{card.name} is not a {kind.value}")
    if card.kind is Kind.CREEP:
        raise IllegalAction("a Creep is never held in hand")
    known = state.known.get(slot)
    if known is not None and known != card_id:
        raise IllegalAction("that slot holds a different card")
    return card


def _play_from_hand(state: State, seat: int, slot: Slot, card_id: CardId) -> State:
    """Reveal a hand card to everyone and take it out of the hand (caller places it)."""
    state = _reveal(state, slot, card_id, _everyone(state))
    player = state.players[seat]
    return with_player(state, replace(player, hand=_without(player.hand, slot)))


def _reveal(state: State, slot: Slot, card_id: CardId, seats: frozenset[int]) -> State:
    if not 0 <= card_id < len(state.catalogue):
        raise IllegalAction(f"no card {card_id}")
    current = state.known.get(slot)
    known = state.known
    if current is None:
        if card_id in known.values():
            raise IllegalAction(f"{state.catalogue[card_id].name} (#{card_id}) is elsewhere")
        known = MappingProxyType({**known, slot: card_id})
    elif current != card_id:
        raise IllegalAction("that slot holds a different card")
    seen = state.audience.get(slot, frozenset())
    audience = state.audience
    if not seats <= seen:
        audience = MappingProxyType({**audience, slot: seen | seats})
    return replace(state, known=known, audience=audience)


def _shuffled(
    state: State, slots: tuple[Slot, ...], action: Shuffle
) -> tuple[State, tuple[Slot, ...]]:
    """Fresh handles for a shuffled pool; identities follow a given permutation."""
    size = len(slots)
    permutation = action.permutation
    if permutation is not None and sorted(permutation) != list(range(size)):
        raise IllegalAction(f"not a permutation of {size} cards")
    fresh = tuple(range(state.next_slot, state.next_slot + size))
    known = dict(state.known)
    audience = dict(state.audience)
    old = {slot: known.pop(slot, None) for slot in slots}
    for slot in slots:
        audience.pop(slot, None)
    if permutation is not None:
        for new_slot, source in zip(fresh, permutation, strict=True):
            card_id = old[slots[source]]
            if card_id is not None:
                known[new_slot] = card_id
    state = replace(
        state,
        known=MappingProxyType(known),
        audience=MappingProxyType(audience),
        next_slot=state.next_slot + size,
    )
    return state, fresh


def _replace_creep(state: State, seat: int, creep: LineCreep) -> State:
    player = state.players[seat]
    line = tuple(creep if c.slot == creep.slot else c for c in player.line)
    return with_player(state, replace(player, line=line))


def _kill(state: State, slot: Slot) -> State:
    """The Creep goes to the Dead Creep pile, its cards to the discard pile; an empty line
    puts its player out at once (``_finish_move`` then looks for the winner)."""
    found = state.find_creep(slot)
    if found is None:
        return state
    seat, creep = found
    player = state.players[seat]
    line = tuple(c for c in player.line if c.slot != slot)
    player = replace(player, line=line, active=bool(line))
    state = with_player(state, player)
    return replace(state, dead=state.dead + (slot,), discard=state.discard + creep.attached)


_HANDLERS = {
    (SetupShuffle, Shuffle): _on_setup_shuffle,
    (RevealFaceUp, Learn): _on_reveal_face_up,
    (DeckShift, Die): _on_deck_shift,
    (StartRoll, Die): _on_start_roll,
    (Drawing, Shuffle): _on_redeal,
    (Drawing, Learn): _on_draw_learn,
    (Drawing, PlaceCreep): _on_place_creep,
    (Drawing, KeepDrawn): _on_keep_drawn,
    (Moves, Pass): _on_pass,
    (Moves, PlayCalamity): _on_calamity,
    (Moves, PlayGoodFortune): _on_good_fortune,
    (Moves, DeclareAttack): _on_declare_attack,
    (Moves, AskHostage): _on_ask_hostage,
    (Moves, ForceHostage): _on_force_hostage,
    (Declaring, AddAttacker): _on_add_attacker,
    (Declaring, Withdraw): _on_withdraw,
    (Declaring, Launch): _on_launch,
    (Exchange, PlayHero): _on_play_hero,
    (Exchange, StopHeroes): _on_stop_heroes,
    (Exchange, Die): _on_modifier_die,
    (React, PlayMonster): _on_monster,
    (React, DeclineMonster): _on_decline_monster,
    (HostageAnswer, AcceptHostage): _on_accept_hostage,
    (HostageAnswer, RefuseHostage): _on_refuse_hostage,
    (HostageSwap, Pick): _on_hostage_pick,
    (HostageSwap, Learn): _on_hostage_learn,
    (Discarding, Discard): _on_discard,
}
