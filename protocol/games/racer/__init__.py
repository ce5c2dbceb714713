"""Creepy Racer over the session: hidden hands with no dealer, every step proven or audited.

Modules: ``table`` (the public game: engine state, shared deck, slot-to-position map, and the
owed step schedule), ``adapter`` (the rules adapter: ``deck`` and ``act`` events), ``private``
(one seat's deck secret, owed messages and hidden hand), ``bots``.  docs/PROTOCOL.md specifies
every event of a Racer log.

**For consoles and bots — the local seat's view.**  ``seat_view(session)`` returns the local
seat's ``SeatView`` (or None for a spectator, or before the game starts): ``.observation`` is the
engine's ``racer.Observation`` for that seat (public facts plus its own decoded hand, as
``(slot, card id)`` pairs), ``.legal`` the seat's legal actions now (``racer.SeatAction`` values;
hand them on as ``racer.format_action(action)`` to ``node.play(game, text)``), and ``.state`` the
engine state with the seat's own hand known.  Only offer ``.legal`` when ``session.my_turn()`` is
not None: the draws' "place the Creep / keep the card" steps are played automatically.
``public_observation(session, seat)`` is what anyone (a spectator too) may see of a seat.
It is the same object ``Session.local_view()`` returns, which is what bots are handed.
"""

from __future__ import annotations

from typing import Any, Protocol

from creepnet.engine import racer
from creepnet.protocol.games.racer.adapter import RacerRules
from creepnet.protocol.games.racer.bots import BOTS
from creepnet.protocol.games.racer.private import RacerPrivate, SeatView
from creepnet.protocol.games.racer.schedule import RacerGame


class Session(Protocol):
    """The part of ``creepnet.protocol.session.Session`` these helpers read."""

    kind: str
    started: bool
    game_state: Any

    def local_view(self) -> Any: ...


def seat_view(session: Session) -> SeatView | None:
    """The local seat's observation and legal actions (None for spectators)."""
    view = session.local_view() if session.started and session.kind == "racer" else None
    return view if isinstance(view, SeatView) else None


def public_observation(session: Session, seat: int) -> racer.Observation | None:
    """What everyone may see, from ``seat``'s chair (its hand shows as a count only)."""
    game = session.game_state
    if not isinstance(game, RacerGame):
        return None
    return racer.observation_of_view(game.state, seat)


__all__ = [
    "BOTS",
    "RacerGame",
    "RacerPrivate",
    "RacerRules",
    "SeatView",
    "public_observation",
    "seat_view",
]
