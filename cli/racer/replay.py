"""`creepnet replay` for Creepy Racer: turn by turn, every line of Creeps and every hand.

A finished log ends with every seat's deck secret, so the audit has named every card: the replay
then shows each hand as it was at the start of each turn.  An unfinished log (a game still
running, or stopped) shows only what was public: hands as counts.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from creepnet.cli.options import fail
from creepnet.cli.text import printable
from creepnet.engine import racer
from creepnet.protocol.log import Rejection
from creepnet.protocol.session import Session


def replay_racer(raws: list[bytes], args: argparse.Namespace) -> int:
    final = Session()
    try:
        for raw in raws:
            final.accept(raw)
    except Rejection as exc:
        print(f"INVALID: {exc.describe()}")
        return 1
    cards: Mapping[int, int] = {}
    if final.finished and final.game_state.cards is not None:
        cards = final.game_state.cards
    else:
        print("(the game is not over: hands stay hidden, shown as counts)")
    session, shown, quiet = Session(), None, 0
    for seq, raw in enumerate(raws):
        before = session.game_state.state.turn if session.started else None
        session.accept(raw)
        event = session.log.events[seq]
        if not session.started:
            continue
        state = session.game_state.state
        if (
            event.type == "act"
            and args.event is None
            and args.at in (None, before and before.number)
        ):
            seat = session.seat_keys.index(event.author)
            print(printable(f"  #{seq} seat {seat}: {words(state, cards, event.body['action'])}"))
        elif event.type != "act":
            quiet += 1
        turn = (state.turn.number, state.turn.seat) if state.turn else None
        if turn is not None and turn != shown and args.event is None:
            if args.at is None or args.at == turn[0]:
                print(table(state, cards, f"turn {turn[0]}, seat {turn[1]} to play"))
            shown = turn
        if seq == args.event:
            print(table(state, cards, f"after event #{seq} ({event.type})"))
            return 0
    if args.event is not None:
        return fail(f"--event must be between 0 and {len(raws) - 1}")
    print(f"({quiet} deck, randomness and lobby events not listed)")
    print(f"result: {printable(final.outcome_text or 'unfinished')}")
    return 0


def name(state: racer.State, cards: Mapping[int, int], slot: int) -> str:
    card = state.known.get(slot, cards.get(slot))
    return "?" if card is None else state.catalogue[card].name


def table(state: racer.State, cards: Mapping[int, int], title: str) -> str:
    lines = [f"== {title} =="]
    for player in state.players:
        line = ", ".join(
            f"{name(state, cards, c.slot)} {state.strength(c)}"
            + "".join(f" +{name(state, cards, s)}" for s in c.attached)
            for c in player.line
        )
        if cards:
            hand = ", ".join(name(state, cards, slot) for slot in player.hand) or "-"
        else:
            hand = f"{len(player.hand)} cards"
        out = "" if player.active else " (out)"
        lines.append(f"  seat {player.seat}{out}: line [{line}]  deck {len(player.deck)}")
        lines.append(f"    hand: {hand}")
    if state.discard:
        lines.append(f"  discard top: {name(state, cards, state.discard[-1])}")
    return "\n".join(printable(line) for line in lines)


def words(state: racer.State, cards: Mapping[int, int], text: str) -> str:
    """The action's notation, with the names of the cards it shows or aims at."""
    action = racer.parse_action(text)
    names = [
        f"{field} {name(state, cards, value)}"
        for field in ("slot", "target", "creep")
        if isinstance(value := getattr(action, field, None), int)
    ]
    return text + (f"  ({'; '.join(names)})" if names else "")
