"""The sharp bot (the planner's own policy): the heuristic bot with its attack choice and its
Hostage Exchange threshold tuned; each test shows where the two differ."""

from creepnet.engine import racer
from creepnet.engine.racer import (
    AddAttacker,
    AskHostage,
    DeclareAttack,
    HeuristicBot,
    Launch,
    Pass,
    SharpBot,
    Withdraw,
    crafted_position,
    legal_actions,
    observation,
    slot_of,
)
from creepnet.engine.racer.bots import make_bot
from creepnet.engine.racer.planner import PlannerBot


def attack_sent(bot, state):
    """The target and the Creeps ``bot`` (seat 0) attacks with, or None."""
    action = bot.choose(observation(state, 0), legal_actions(state))
    if not isinstance(action, DeclareAttack):
        return None
    target, sent = action.target, []
    while True:
        state = racer.apply(state, action)
        action = bot.choose(observation(state, 0), legal_actions(state))
        if isinstance(action, AddAttacker):
            sent.append(action.creep)
        elif isinstance(action, Launch | Withdraw):
            return target, sent


def test_it_makes_the_attack_that_risks_fewest_creeps():
    # Two 4s against a 3 and a 5: the heuristic goes for the 5 with both 4s (both die if a
    # Hero turns it); the sharp bot takes the 3 with one 4.
    state = crafted_position(
        lines={0: ["Skidmark Skip", "Ghoul Gearhead"], 1: ["Grimy Gus", "Nitro Nosferatu"]},
        hands={0: ["3X"], 1: ["Extra Gas"]},
    )
    gus, nitro = slot_of(state, "Grimy Gus"), slot_of(state, "Nitro Nosferatu")
    for seed in range(6):
        target, sent = attack_sent(HeuristicBot(seed), state)
        assert target == nitro and len(sent) == 2
        target, sent = attack_sent(SharpBot(seed), state)
        assert target == gus and len(sent) == 1


def test_it_asks_for_a_hostage_exchange_only_for_a_clearly_weak_hand():
    # A blind card is worth about 4.6 here. A hand worth 4 is a little worse: the heuristic
    # asks, the sharp bot keeps its move. A hand worth 2 is far worse: both ask.
    def position(hand):
        return crafted_position(
            lines={0: ["Grimy Gus"], 1: ["Slime Sally"]},
            hands={0: hand, 1: ["Jump Start", "Shortcut"]},
            forced_used=[0],
        )

    near = position(["Creep Eraser", "Extra Gas", "Spare Wheel", "Duct Tape"])
    poor = position(["Extra Gas", "Spare Wheel", "Duct Tape"])
    for seed in range(6):
        assert HeuristicBot(seed).choose(observation(near, 0), legal_actions(near)) == AskHostage(1)
        assert SharpBot(seed).choose(observation(near, 0), legal_actions(near)) == Pass()
        for bot in (HeuristicBot(seed), SharpBot(seed)):
            assert bot.choose(observation(poor, 0), legal_actions(poor)) == AskHostage(1)


def test_it_is_the_planners_policy_and_a_named_bot():
    assert isinstance(PlannerBot(1).policy, SharpBot)
    assert type(PlannerBot(1, policy=HeuristicBot).policy) is HeuristicBot
    assert make_bot("sharp", 1).name == "sharp"
