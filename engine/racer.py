"""Creepy Racer: the public import point of the rules engine.

    from creepnet.engine import racer
    state = racer.new_game(racer.Options(players=3))
    while not isinstance(request := racer.pending(state), racer.GameOver):
        ...  # answer chance requests with chance actions, seats via legal_actions
        state = racer.apply(state, action)

See docs/rules-racer.md for the rules as implemented and the catalogue.
"""

from creepnet.engine.racer_actions import (
    CHANCE,
    PUBLIC,
    AcceptHostage,
    Action,
    AddAttacker,
    AskHostage,
    ChanceAction,
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
    SeatAction,
    Shuffle,
    Slot,
    StopHeroes,
    Withdraw,
    action_from_dict,
    action_to_dict,
)
from creepnet.engine.racer_bots import HeuristicBot, RandomBot, make_bot
from creepnet.engine.racer_cards import (
    STANDARD_CATALOGUE,
    STANDARD_SPEC,
    Card,
    CardId,
    Catalogue,
    CatalogueError,
    Family,
    Hero,
    Kind,
)
from creepnet.engine.racer_driver import Bot, GameResult, chance_action, play_game
from creepnet.engine.racer_positions import crafted_position, slot_of
from creepnet.engine.racer_rules import apply, legal_actions, pending
from creepnet.engine.racer_state import (
    LineCreep,
    Options,
    Player,
    State,
    locations,
    new_game,
    public_slots,
    redact,
)
from creepnet.engine.racer_view import Observation, audit, observation, observation_of_view

__all__ = [
    "CHANCE", "PUBLIC", "AcceptHostage", "Action", "AddAttacker", "AskHostage", "Bot", "Card",
    "CardId", "Catalogue", "CatalogueError", "ChanceAction", "DeclareAttack", "Decide",
    "DeclineMonster", "Die", "Discard", "Family", "ForceHostage", "GameOver", "GameResult",
    "Hero", "HeuristicBot", "IllegalAction", "KeepDrawn", "Kind", "Launch", "Learn",
    "LineCreep", "NeedCard", "NeedDie", "NeedPick", "NeedReveal", "NeedShuffle",
    "Observation", "Options", "Pass", "Pick", "PlaceCreep", "PlayCalamity", "PlayGoodFortune",
    "PlayHero", "PlayMonster", "Player", "RandomBot", "RefuseHostage", "Request",
    "STANDARD_CATALOGUE", "STANDARD_SPEC", "SeatAction", "Shuffle", "Slot", "State",
    "StopHeroes", "Withdraw", "action_from_dict", "action_to_dict", "apply", "audit",
    "chance_action", "crafted_position", "legal_actions", "locations", "make_bot",
    "new_game", "observation", "observation_of_view", "pending", "play_game", "public_slots",
    "redact", "slot_of",
]
