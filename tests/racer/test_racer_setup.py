"""Creepy Racer catalogue and set-up: deal, Deck Shift, roll to start, opening hands."""

import json

import pytest

from creepnet.engine import racer
from creepnet.engine.racer import (
    PUBLIC,
    STANDARD_CATALOGUE,
    Catalogue,
    CatalogueError,
    Decide,
    Die,
    IllegalAction,
    Kind,
    Learn,
    NeedCard,
    NeedDie,
    NeedReveal,
    NeedShuffle,
    Options,
    Shuffle,
    apply,
    legal_actions,
    new_game,
    pending,
)

# --- catalogue -----------------------------------------------------------------------------------


def test_standard_catalogue_matches_the_tournament_piles():
    cat = STANDARD_CATALOGUE
    assert [c.id for c in cat.cards] == list(range(135))
    creeps = [cat[i] for i in cat.creep_ids]
    assert len(creeps) == 40 and len({c.name for c in creeps}) == 40
    assert [sum(c.strength == s for c in creeps) for s in (3, 4, 5)] == [14, 14, 12]
    play = [cat[i] for i in cat.play_ids]
    assert len(play) == 95
    for family in cat.families:
        of_family = [c for c in play if c.family == family.key]
        assert [
            sum(c.kind is k for c in of_family)
            for k in (Kind.CALAMITY, Kind.GOOD_FORTUNE, Kind.MONSTER)
        ] == [6, 6, 1]
    heroes = [c.hero.value for c in play if c.kind is Kind.HERO]
    assert {h: heroes.count(h) for h in set(heroes)} == {
        "2X": 8,
        "3X": 7,
        "Modifier": 5,
        "Reversal": 5,
        "Creep Eraser": 5,
    }
    bone_dry = cat[cat.ids_named("Bone Dry")[0]]
    assert cat.family(bone_dry.family).good_fortune == "Extra Gas"


def test_catalogue_round_trips_through_plain_json():
    data = json.loads(json.dumps(STANDARD_CATALOGUE.to_dict()))
    assert Catalogue.from_dict(data) == STANDARD_CATALOGUE


def test_bad_catalogue_spec_is_rejected():
    with pytest.raises(CatalogueError):
        Catalogue.from_dict({"families": [], "cards": [{"kind": "calamity", "family": "nope"}]})
    with pytest.raises(CatalogueError):
        Catalogue.from_dict(
            {"families": [], "cards": [{"kind": "creep", "name": "X", "strength": 0}]}
        )


HOME_RULES = {
    "families": [
        {
            "key": "fog",
            "calamity": "Pea Souper",
            "good_fortune": "Fog Lamps",
            "monster": "Mist Monster",
        }
    ],
    "cards": [
        *({"kind": "creep", "name": f"Home Creep {i}", "strength": 2 + i % 3} for i in range(8)),
        {"kind": "calamity", "family": "fog", "count": 10},
        {"kind": "good_fortune", "family": "fog", "count": 6},
        {"kind": "monster", "family": "fog"},
        {"kind": "hero", "hero": "2X", "count": 4},
        {"kind": "hero", "hero": "Creep Eraser", "name": "Big Rubber", "count": 1},
    ],
}


def test_a_home_catalogue_plays_a_whole_game():
    cat = Catalogue.from_dict(HOME_RULES)
    assert len(cat) == 30 and cat[29].name == "Big Rubber"
    options = Options(players=2, creeps_per_player=4, face_up_creeps=2, turn_limit=200)
    bots = [racer.make_bot("heuristic", s) for s in (1, 2)]
    result = racer.play_game(bots, seed=3, options=options, catalogue=cat)
    assert racer.audit(result.final) == []
    assert isinstance(racer.pending(result.final), racer.GameOver)


def test_options_are_validated():
    with pytest.raises(ValueError):
        new_game(Options(players=5))
    with pytest.raises(ValueError):
        new_game(Options(players=2, creeps_per_player=30))


# --- set-up --------------------------------------------------------------------------------------


def identity(request):
    return Shuffle(tuple(range(request.size)))


def reveal_face_up(state):
    while isinstance(req := pending(state), NeedCard) and req.learner == PUBLIC:
        state = apply(state, Learn(req.slot, state.known[req.slot]))
    return state


@pytest.mark.parametrize(
    "players, boxed, play_split",
    [
        (2, 20, [48, 47]),
        (3, 10, [32, 32, 31]),
        (4, 0, [24, 24, 24, 23]),
    ],
)
def test_deal(players, boxed, play_split):
    state = new_game(Options(players=players))
    req = pending(state)
    assert isinstance(req, NeedShuffle) and req.pool == "creeps" and req.size == 40
    state = apply(state, identity(req))
    assert len(state.box) == boxed  # the unused Creeps: a random subset, hidden
    creeps = STANDARD_CATALOGUE.creep_ids
    for seat in range(players):  # dealt clockwise from seat 0, three face-up each
        line = [state.known[c.slot] for c in state.players[seat].line]
        assert line == [creeps[seat], creeps[seat + players], creeps[seat + 2 * players]]
        assert len(state.players[seat].deck) == 7
    first = pending(state)
    assert first == NeedCard(state.players[0].line[0].slot, PUBLIC)
    with pytest.raises(IllegalAction):
        apply(state, Learn(first.slot, None))  # face-up means everyone sees it
    with pytest.raises(IllegalAction):
        apply(state, Learn(first.slot, STANDARD_CATALOGUE.play_ids[0]))  # not a Creep
    state = reveal_face_up(state)
    req = pending(state)
    assert isinstance(req, NeedShuffle) and req.pool == "play" and req.size == 95
    state = apply(state, identity(req))
    assert [len(p.deck) for p in state.players] == [7 + k for k in play_split]
    for seat in range(players):
        req = pending(state)
        assert req.pool == f"deck:{seat}" and req.size == 7 + play_split[seat]
        state = apply(state, Shuffle(tuple(reversed(range(req.size)))))
    assert pending(state) == NeedDie("deck-shift", 0)
    assert racer.audit(state) == []


def dealt(players=2):
    state = new_game(Options(players=players))
    while not isinstance(req := pending(state), NeedDie):
        state = (
            apply(state, identity(req)) if isinstance(req, NeedShuffle) else reveal_face_up(state)
        )
    return state


def test_odd_deck_shift_passes_every_deck_left():
    state = dealt(3)
    decks = [p.deck for p in state.players]
    shifted = apply(state, Die(3))
    assert [p.deck for p in shifted.players] == [decks[2], decks[0], decks[1]]
    kept = apply(state, Die(4))
    assert [p.deck for p in kept.players] == decks


def test_roll_to_start_rerolls_the_tied_only():
    state = apply(dealt(3), Die(2))
    assert pending(state) == NeedDie("start", 0)
    for value in (6, 2, 6):
        state = apply(state, Die(value))
    assert pending(state) == NeedDie("start", 0)  # seats 0 and 2 tied on 6
    state = apply(state, Die(1))
    assert pending(state) == NeedDie("start", 2)
    state = apply(state, Die(4))
    assert state.start_seat == 2
    assert pending(state) == NeedCard(state.players[2].hand[0], 2)  # seat 2 draws first


def test_opening_hands_then_the_first_turn():
    state = apply(apply(apply(dealt(2), Die(2)), Die(1)), Die(5))
    assert state.start_seat == 1
    while not isinstance(pending(state), Decide):
        req = pending(state)
        if isinstance(req, NeedCard):
            state = apply(state, Learn(req.slot, state.known[req.slot]))
        else:
            assert isinstance(req, NeedReveal)
            state = apply(state, legal_actions(state)[0])
    assert pending(state) == Decide(1, "move")
    assert state.turn.number == 1
    assert len(state.players[0].hand) == 5 and len(state.players[1].hand) == 7
    for player in state.players:  # drawn Creeps went to the line, never to the hand
        assert all(state.card(s).kind is not Kind.CREEP for s in player.hand)
        assert len(player.line) >= 3
    assert racer.audit(state) == []
