"""The game registry: every game a session can run, found by its kind (as OpenSpiel's `load_game`).

A game plugs in here with its rules adapter and its seat bots; the session, the node and the CLI
ask this registry and never import a game.  The CLI keeps the faces (consoles, narrators) in its
own registry, `creepnet.cli.faces`, because a lower layer may not import the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from creepnet.protocol.games import creeper
from creepnet.protocol.games.racer.adapter import RacerRules
from creepnet.protocol.games.racer.bots import BOTS as RACER_BOTS
from creepnet.protocol.rules import GameRules, SeatBot


@dataclass(frozen=True)
class Game:
    rules: GameRules
    bots: Mapping[str, Callable[[int], SeatBot]]  # name -> factory(seed)

    def make_bot(self, name: str, seed: int = 0) -> SeatBot:
        if name not in self.bots:
            raise ValueError(
                f"{self.rules.kind} has no bot {name!r}; choose from {', '.join(self.bots)}"
            )
        return self.bots[name](seed)


GAMES: dict[str, Game] = {
    "creeper": Game(creeper.CreeperRules(), creeper.BOTS),
    "racer": Game(RacerRules(), RACER_BOTS),
}


def get_game(kind: str) -> Game:
    try:
        return GAMES[kind]
    except KeyError:
        raise ValueError(f"unknown game kind {kind!r}; choose from {', '.join(GAMES)}") from None


def bot_names() -> list[str]:
    """Every bot name of every game, for command-line choices."""
    return sorted({name for game in GAMES.values() for name in game.bots})


__all__ = ["GAMES", "Game", "bot_names", "get_game"]
