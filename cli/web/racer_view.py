"""Creepy Racer for the page: the table (every line of Creeps, counts of hands and decks, the
discard pile, the attack), the local seat's hand, and its legal actions now.

It is a face, not a second copy of the rules: the hand and the actions come from the racer
adapter's ``seat_view`` (the engine's legal-action list), the rest from the public observation,
so a spectator's view is built from public facts only and can hold no hidden card.  Each action
goes to the page with its canonical text (what the page sends back, as the terminal does), the
words a person types for it (``grammar.spelling``), a sentence, and what to click: the hand card
it shows and the Creep or seat it aims at.  Typed lines are resolved by the terminal's grammar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from creepnet.cli.racer.grammar import creep_labels, resolve, spelling, split_steps, split_words
from creepnet.cli.racer.session_game import SessionGame
from creepnet.engine import racer
from creepnet.engine.racer import IllegalAction, Observation, SeatAction
from creepnet.engine.racer.state import HostageAnswer, HostageSwap, RevealFaceUp
from creepnet.protocol.games.racer import public_observation, seat_view
from creepnet.protocol.session import Session

# What the page asks of the local seat, by the engine's decision topic (clicks, not typing).
PROMPTS = {
    "move": "Your move: click a card in your hand, or Attack…, Ask…, Force…, or Pass",
    "attack": "Your attack: enlist more of your Creeps, then Go (or Go with a Hero), or Withdraw",
    "hero": "The attack waits for you: play a Hero from your hand, or Stop",
    "react": "A Calamity hit your Creep: play the matching Monster from your hand, or No Monster",
    "hostage": "You are asked for a Hostage Exchange: Accept or Refuse",
    "discard": "Too many cards: click a card to discard it",
}


def card_json(obs: Observation, card: int) -> dict[str, Any]:
    entry = obs.catalogue[card]
    return {"card": card, "name": entry.name, "kind": entry.kind.value}


def table(obs: Observation, stage: Any = None) -> dict[str, Any]:
    """The public table from an observation (the seat's own hand is not in it)."""
    labels = creep_labels(obs)
    attack = obs.attack
    players = []
    for player in obs.players:
        line = []
        for creep in player.line:
            base = obs.catalogue[creep.card].strength
            line.append(
                {
                    **card_json(obs, creep.card),
                    "slot": creep.slot,
                    "label": labels[creep.slot],
                    "strength": creep.strength,
                    "base": base,
                    "attached": [card_json(obs, c) for c in creep.attached],
                    "hit": creep.slot == obs.calamity_hit,
                    "attacking": attack is not None and creep.slot in attack.attackers,
                    "attacked": attack is not None and creep.slot == attack.target,
                }
            )
        players.append(
            {
                "seat": player.seat,
                "active": player.active,
                "line": line,
                "hand_count": player.hand_count,
                "deck_count": player.deck_count,
                "deck_creeps": player.deck_creeps,
                "forced_hostage": player.forced_hostage,
            }
        )
    request = obs.request
    over = isinstance(request, racer.GameOver)  # the last turn's seat is not "to play"
    return {
        "turn": (
            {"seat": obs.turn_seat, "number": obs.turn_number, "moves_left": obs.moves_left}
            if obs.turn_seat is not None and not over
            else None
        ),
        "deciding": (
            {"seat": request.seat, "topic": request.topic}
            if isinstance(request, racer.Decide)
            else None
        ),
        "players": players,
        "discard": {
            "count": len(obs.discard),
            "top": card_json(obs, obs.discard[-1]) if obs.discard else None,
        },
        "dead": [card_json(obs, c) for c in obs.dead],
        "attack": attack_json(obs, labels),
        "hostage": hostage_json(stage),
    }


def attack_json(obs: Observation, labels: dict[int, str]) -> dict[str, Any] | None:
    attack = obs.attack
    if attack is None:
        return None
    names = {c.slot: obs.catalogue[c.card].name for p in obs.players for c in p.line}
    return {
        "attacker": attack.attacker,
        "defender": attack.defender,
        "launched": attack.values is not None,
        "attackers": [f"{labels[s]} {names[s]}" for s in attack.attackers if s in labels],
        "target": f"{labels.get(attack.target, '?')} {names.get(attack.target, '?')}",
        "values": list(attack.values) if attack.values is not None else None,
        "heroes": [obs.catalogue[c].name for c in attack.heroes],
    }


def hostage_json(stage: Any) -> dict[str, Any] | None:
    """A Hostage Exchange under way (the engine's public stage): who asked whom, and whether
    the blind picks are being drawn."""
    if isinstance(stage, HostageAnswer):
        return {"asker": stage.asker, "target": stage.target, "step": "answer"}
    if isinstance(stage, HostageSwap):
        return {"asker": stage.asker, "target": stage.target, "step": "pick"}
    return None


def action_json(obs: Observation, action: SeatAction) -> dict[str, Any]:
    """One legal action: its text to send, its typed words, a sentence, and what to click."""
    labels = creep_labels(obs)
    words = spelling(obs, action)
    card = getattr(action, "card", None)
    slot = getattr(action, "slot", None)
    creep = getattr(action, "target", None)
    if isinstance(action, racer.AddAttacker):
        creep = action.creep
    seat = action.seat if isinstance(action, racer.AskHostage | racer.ForceHostage) else None
    group = f"card:{slot}" if slot is not None else words[0]
    return {
        "action": racer.format_action(action),
        "typed": " ".join(words),
        "text": sentence(obs, action, labels),
        "group": group,
        "slot": slot,  # the hand card it shows, if any
        "creep": creep,
        "seat": seat,
        "name": obs.catalogue[card].name if card is not None else None,
    }


def sentence(obs: Observation, action: SeatAction, labels: dict[int, str]) -> str:
    def card(slot_card: int | None) -> str:
        return obs.catalogue[slot_card].name if slot_card is not None else "?"

    creeps = {c.slot: (p.seat, obs.catalogue[c.card].name) for p in obs.players for c in p.line}

    def creep(slot: int) -> str:
        seat, name = creeps.get(slot, (None, "?"))
        return f"seat {seat}'s {name} ({labels.get(slot, '?')})"

    said: dict[type, Callable[[Any], str]] = {
        racer.PlayCalamity: lambda a: f"{card(a.card)} on {creep(a.target)}",
        racer.PlayGoodFortune: lambda a: f"{card(a.card)} heals {creep(a.target)}",
        racer.PlayMonster: lambda a: f"answer with the Monster {card(a.card)}",
        racer.PlayHero: lambda a: f"play the Hero {card(a.card)}",
        racer.Discard: lambda a: f"discard {card(a.card)}",
        racer.DeclareAttack: lambda a: f"attack {creep(a.target)}",
        racer.AddAttacker: lambda a: f"enlist {creep(a.creep)}",
        racer.Launch: lambda a: "go" if a.card is None else f"go, opening with {card(a.card)}",
        racer.AskHostage: lambda a: f"ask seat {a.seat} for a Hostage Exchange",
        racer.ForceHostage: lambda a: f"force a Hostage Exchange on seat {a.seat} (once a game)",
        racer.Pass: lambda a: "pass: end your turn",
        racer.Withdraw: lambda a: "withdraw: call the attack off",
        racer.StopHeroes: lambda a: "stop: play no more Heroes",
        racer.DeclineMonster: lambda a: "no Monster",
        racer.AcceptHostage: lambda a: "accept the exchange",
        racer.RefuseHostage: lambda a: "refuse the exchange",
    }
    say = said.get(type(action))
    return say(action) if say is not None else racer.format_action(action)


def view(session: Session) -> dict[str, Any] | None:
    """The table, plus the local seat's hand and (on its turn) its legal actions.  None while
    the deal is still being shown (there is no table to draw yet)."""
    game = session.game_state
    state = getattr(game, "state", None)
    if state is None or isinstance(state.stage, RevealFaceUp):
        return None
    mine = seat_view(session)
    obs = mine.observation if mine is not None else public_observation(session, 0)
    if obs is None:
        return None
    result = table(obs, state.stage)
    if mine is None:
        return result
    deciding = session.my_turn() is not None and isinstance(obs.request, racer.Decide)
    legal: Sequence[Any] = mine.legal if deciding else ()
    result["actions"] = actions = [action_json(obs, a) for a in legal]
    # The engine offers identical cards once (the lowest slot: which copy goes is all one);
    # every copy in the hand plays that offer, so none of them looks unplayable.
    offered = {a["slot"]: a["group"] for a in actions if a["slot"] is not None}
    plays: dict[str, str] = {}
    for slot, card in obs.hand:
        if slot in offered:
            plays.setdefault(obs.catalogue[card].name, offered[slot])
    result["hand"] = [
        {
            **card_json(obs, card),
            "slot": slot,
            "number": n,
            "plays": plays.get(obs.catalogue[card].name),
        }
        for n, (slot, card) in enumerate(obs.hand, start=1)
    ]
    result["prompt"] = PROMPTS.get(obs.request.topic, "") if legal else ""  # type: ignore[union-attr]
    if legal:
        result["status"] = asked(obs, [seat.player for seat in session.seats], state.stage)
    return result


def asked(obs: Observation, players: Sequence[str], stage: Any = None) -> str:
    """The page's status line while the local seat decides, worded for what is asked: a
    Calamity to answer or an attack to defend is not the seat's turn."""
    request = obs.request
    assert isinstance(request, racer.Decide)
    attack, labels = obs.attack, creep_labels(obs)

    def creep(slot: int | None) -> str:
        names = {c.slot: obs.catalogue[c.card].name for p in obs.players for c in p.line}
        return f"{names.get(slot, '?')} ({labels.get(slot, '?')})" if slot is not None else "?"

    def who(seat: int) -> str:
        return players[seat] if seat < len(players) else f"seat {seat}"

    topic = request.topic
    if topic == "move":
        left = obs.moves_left
        return f"your turn: {left} move{'s' if left != 1 else ''} left"
    if topic == "hero" and attack is not None and attack.attacker != obs.seat:
        return f"defend against {who(attack.attacker)}'s attack on {creep(attack.target)}"
    if topic == "react":
        return f"answer the Calamity on {creep(obs.calamity_hit)}"
    if topic == "hostage" and isinstance(stage, HostageAnswer):
        return f"answer {who(stage.asker)}'s Hostage Exchange"
    return {
        "attack": "your attack: enlist Creeps, then go",
        "hero": "your attack: play a Hero, or stop",
        "hostage": "answer the Hostage Exchange",
        "discard": "discard down to the hand limit",
    }.get(topic, "your decision")


def replay_table(state: racer.State, final: Any) -> dict[str, Any] | None:
    """The public table at one point of a log; once the log holds the whole game (the audit
    has named every card: ``final.cards``), every seat's hand too."""
    if isinstance(state.stage, RevealFaceUp):
        return None
    obs = racer.observation_of_view(state, 0)
    result = table(obs, state.stage)
    cards = getattr(final, "cards", None)
    if cards is not None:
        for row, player in zip(result["players"], state.players, strict=True):
            if all(slot in cards for slot in player.hand):  # not under a retired seat's layer
                row["hand"] = [card_json(obs, cards[slot]) for slot in player.hand]
    return result


def story(session: Session) -> Callable[[], Sequence[str]]:
    """The terminal's story of the game (one line per turn, naming public cards only).  It is
    told as the log grows, so the teller must live as long as the node follows the game."""
    return SessionGame(session, seat_view, public_observation).story


def typed_actions(session: Session, text: str) -> Iterator[str]:
    """The canonical texts a typed line stands for, one per step, each resolved against the
    legal actions when the step before has been played (``attack 1b with a go`` is three).
    Canonical text (what the page's clicks send) passes as it is.  IllegalAction says why not."""
    try:
        racer.parse_action(text)
    except IllegalAction:
        pass
    else:
        yield text
        return
    try:
        steps = split_steps(split_words(text))
    except ValueError as exc:
        raise IllegalAction(str(exc)) from None
    if not steps[0]:
        raise IllegalAction("nothing to send")
    for done, step in enumerate(steps):
        mine = seat_view(session)
        if mine is None or session.my_turn() is None:
            raise IllegalAction(_rest(step, "it is not your turn") if done else "not your turn")
        found = resolve(mine.observation, mine.legal, step)
        if isinstance(found, str):
            raise IllegalAction(_rest(step, found) if done else found)
        yield racer.format_action(found)


def _rest(step: tuple[str, ...], why: str) -> str:
    return f"the rest of your line was not sent: '{' '.join(step)}': {why}"
