"""`creepnet replay` for Creepy Racer: turn by turn and move by move, in the live page's words,
every line of Creeps and every hand at the start of each turn.

The words are the replay's story (cli/replay_story.py) told by ``RacerTeller``: a seat's action
as the live story tells it (cli/racer/narration.py), or as the page offers it; the deck work,
the randomness and the table's steps for a retired seat in the words the page uses for what the
table waits on, folded into the move they serve.  A finished log ends with every seat's deck
secret, so the audit has named every card: the replay then shows each hand as it was at the
start of each turn.  An unfinished log (a game still running, or stopped) shows only what was
public: hands as counts.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping

from creepnet.cli.options import fail
from creepnet.cli.racer.grammar import creep_labels
from creepnet.cli.racer.narration import (
    HostageWatch,
    consequences,
    deal_lines,
    ending,
    modifier_die,
    move_words,
    swap_story,
    waiting_words,
)
from creepnet.cli.replay_story import Before, Told, TurnMark, name, tell_log, work_summary
from creepnet.cli.text import printable
from creepnet.engine import racer
from creepnet.engine.racer import IllegalAction
from creepnet.protocol.session import Session
from creepnet.protocol.verify import abandonment_text

SETUP = "Set-up"
# Deck work that lets a seat see the card it is about to draw: it serves the draw that follows.
DRAW_WORK = re.compile(r"release \S+\[\d+\] to seat \d+( for retired seat \d+)?")


class RacerTeller:
    """Racer's events for the replay's story (one per log: it follows the log in order)."""

    def __init__(self) -> None:
        self._hostage = HostageWatch()
        self._dice: set[tuple[int, int, int]] = set()

    def tell(self, before: Before, session: Session, seq: int) -> Told | None:
        event = session.log.events[seq]
        prior = getattr(before.game, "state", None)
        after = getattr(session.game_state, "state", None)
        if not isinstance(prior, racer.State) or not isinstance(after, racer.State):
            return None if event.type == "act" else Told(work=_work(before))
        news = self._news(prior, after)
        turn = _turn(session, prior)
        if event.type == "act":
            actor = session.seat_keys.index(event.author)
            return Told(_move(prior, actor, event.body.get("action"), after), news=news, turn=turn)
        dealt = deal_lines(prior, after)
        if dealt:
            deal = "; ".join(line.strip().rstrip(":") for line in dealt)
            return Told(deal.removeprefix("Set-up: "), _work(before), by_table=True, turn=turn)
        if prior.start_seat is None and after.start_seat is not None:
            start = f"the roll to start: seat {after.start_seat} starts"
            return Told(start, _work(before), news=news, by_table=True, turn=turn)
        # In the set-up, all work serves the next step (the deal, the roll to start, a draw).
        draw = before.what is not None and DRAW_WORK.fullmatch(before.what) is not None
        ahead = prior.turn is None or draw
        return Told(work=_work(before), ahead=ahead, news=news)

    def waiting(self, what: str) -> str:
        return waiting_words(what)

    def _news(self, prior: racer.State, after: racer.State) -> tuple[str, ...]:
        said = consequences(prior, after)
        die = modifier_die(after)
        if die is not None and die[0] not in self._dice:
            self._dice.add(die[0])
            said.append(f"Modifier die {die[1]}")
        swap = self._hostage.see(after)
        if swap is not None:
            said.append(swap_story(swap[0], swap[1]))
        over = ending(after) if ending(prior) is None else None
        return (*said, *([over] if over else []))


def _work(before: Before) -> str:
    return waiting_words(before.what) if before.what else "deck work"


def _turn(session: Session, state: racer.State) -> TurnMark:
    if state.turn is None:
        return TurnMark(SETUP)
    number, seat = state.turn.number, state.turn.seat
    return TurnMark(f"Turn {number}: {name(session, seat)} to play", number)


def _move(prior: racer.State, actor: int, text: object, after: racer.State) -> str:
    try:
        action = racer.parse_action(str(text))
    except IllegalAction:
        return "acts"  # the session accepted it, so this does not happen
    if isinstance(action, racer.KeepDrawn):
        return "draws a card"
    if isinstance(action, racer.Pass):
        return "passes"
    told = move_words(prior, actor, action, after).removeprefix(f"seat {actor} ")
    if told:
        return told
    obs = racer.observation_of_view(prior, 0)
    labels = creep_labels(obs)
    creeps = {c.slot: (p.seat, c.card) for p in obs.players for c in p.line}

    def creep(slot: int) -> str:
        seat, card = creeps.get(slot, (None, None))
        named = obs.catalogue[card].name if card is not None else "?"
        return f"seat {seat}'s {named} ({labels.get(slot, '?')})"

    if isinstance(action, racer.DeclareAttack):
        return f"declares an attack on {creep(action.target)}"
    if isinstance(action, racer.AddAttacker):
        return f"enlists {creep(action.creep)}"
    if isinstance(action, racer.DeclineMonster):
        return "answers with no Monster"
    from creepnet.cli.web.racer_view import sentence  # the page's words for its buttons

    return sentence(obs, action, labels)


def replay_racer(raws: list[bytes], args: argparse.Namespace) -> int:
    if args.event is not None and not 0 <= args.event < len(raws):
        return fail(f"--event must be between 0 and {len(raws) - 1}")
    states: list[racer.State | None] = []
    story = tell_log(raws, lambda s, seq: states.append(getattr(s.game_state, "state", None)))
    if story.error is not None:
        print(f"INVALID: {story.error.describe()}")
        return 1
    final = story.session
    cards: Mapping[int, int] = {}
    if final.finished and getattr(final.game_state, "cards", None) is not None:
        cards = final.game_state.cards
    else:
        print("(the game is not over: hands stay hidden, shown as counts)")
    if args.event is not None:
        print(f"seq {args.event}: {story.words[args.event]}")
        state = states[args.event]
        shown = table(state, cards, f"after event #{args.event}") if state is not None else None
        print(shown or "(the game has not started yet)")
        return 0
    numbers = [mark.number for mark in story.turns if mark.number is not None]
    if args.at is not None and args.at not in numbers:
        return fail(f"--at {args.at}: the game has turns 1 to {max(numbers, default=0)}")
    for index, mark in enumerate(story.turns):
        if args.at is not None and mark.number != args.at:
            continue
        steps = [step for step in story.steps if step.turn == index]
        start = states[steps[0].first - 1] if steps and steps[0].first > 0 else None
        if mark.number is not None and start is not None:
            print(table(start, cards, mark.title))
        else:
            print(printable(f"== {mark.title} =="))
        for step in steps:
            print(f"  seq {step.seq}: {step.line}")
            if step.work:
                print(f"      with: {'; '.join(work_summary(step.work))}")
    if args.at is None:
        waiting = f"unfinished: {story.status[-1]}" if story.status else "unfinished"
        result = final.outcome_text or abandonment_text(final) or waiting
        print(f"result: {printable(result)}")
    return 0


def card_name(state: racer.State, cards: Mapping[int, int], slot: int) -> str:
    card = state.known.get(slot, cards.get(slot))
    return "?" if card is None else state.catalogue[card].name


def table(state: racer.State, cards: Mapping[int, int], title: str) -> str | None:
    if not state.players or not any(player.line for player in state.players):
        return None  # nothing dealt yet
    lines = [f"== {title} =="]
    for player in state.players:
        line = ", ".join(
            f"{card_name(state, cards, c.slot)} {state.strength(c)}"
            + "".join(f" +{card_name(state, cards, s)}" for s in c.attached)
            for c in player.line
        )
        if not player.active:
            lines.append(f"  seat {player.seat} (out): line [{line}]")
            continue
        if cards and all(slot in cards for slot in player.hand):
            hand = ", ".join(card_name(state, cards, slot) for slot in player.hand) or "-"
        else:
            hand = f"{len(player.hand)} cards"
        lines.append(f"  seat {player.seat}: line [{line}]  deck {len(player.deck)}")
        lines.append(f"    hand: {hand}")
    if state.discard:
        lines.append(f"  discard top: {card_name(state, cards, state.discard[-1])}")
    return "\n".join(printable(line) for line in lines)
