"""The game registry: every game a session can run, found by its kind (as OpenSpiel's `load_game`).

A game plugs in here with its rules adapter and its seat bots; the session, the node and the CLI
ask this registry and never import a game.  The CLI keeps the faces (consoles, narrators) in its
own registry, `creepnet.cli.faces`, because a lower layer may not import the CLI.

Each game's modules are imported the first time its kind is looked up: `creepnet verify` of a
Creeper log never loads Creepy Racer's engine and deck code (about 0.13 s of start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TypeVar

from creepnet.protocol.rules import GameRules, SeatBot

T = TypeVar("T")


@dataclass(frozen=True)
class Game:
    rules: GameRules
    bots: Mapping[str, Callable[[int], SeatBot]]  # name -> factory(seed)
    # The levels for people (each also a name in ``bots``) -> what it is and its think time;
    # every face (the CLI's --vs, the page's form) offers this one list.
    levels: Mapping[str, str] = field(default_factory=dict)

    def make_bot(self, name: str, seed: int = 0) -> SeatBot:
        if name not in self.bots:
            raise ValueError(
                f"{self.rules.kind} has no bot {name!r}; choose from {', '.join(self.bots)}"
            )
        return self.bots[name](seed)


class Registry(MutableMapping[str, T]):
    """Records by kind, each built by its loader on first lookup; kinds are known without loading.

    The games here; the CLI's faces (creepnet.cli.faces) are a registry of the same kind."""

    def __init__(self, loaders: dict[str, Callable[[], T]]) -> None:
        self._loaders = dict(loaders)
        self._built: dict[str, T] = {}

    def __getitem__(self, kind: str) -> T:
        if kind not in self._built:
            self._built[kind] = self._loaders[kind]()  # KeyError for an unknown kind
        return self._built[kind]

    def __setitem__(self, kind: str, record: T) -> None:
        self._loaders[kind] = lambda: record
        self._built[kind] = record

    def __delitem__(self, kind: str) -> None:
        del self._loaders[kind]
        self._built.pop(kind, None)

    def __contains__(self, kind: object) -> bool:
        return kind in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


def _creeper() -> Game:
    from creepnet.protocol.games import creeper

    return Game(creeper.CreeperRules(), creeper.BOTS, creeper.LEVELS)


def _racer() -> Game:
    from creepnet.protocol.games.racer.adapter import RacerRules
    from creepnet.protocol.games.racer.bots import BOTS, LEVELS

    return Game(RacerRules(), BOTS, LEVELS)


GAMES: MutableMapping[str, Game] = Registry[Game]({"creeper": _creeper, "racer": _racer})


def get_game(kind: str) -> Game:
    try:
        return GAMES[kind]
    except KeyError:
        raise ValueError(f"unknown game kind {kind!r}; choose from {', '.join(GAMES)}") from None


def bot_names() -> list[str]:
    """Every bot name of every game, for command-line choices."""
    return sorted({name for game in GAMES.values() for name in game.bots})


def level_help() -> str:
    """The levels of every game and their think times, for a command's help."""
    return "; ".join(
        f"{kind}: " + ", ".join(f"{level} ({what})" for level, what in game.levels.items())
        for kind, game in GAMES.items()
        if game.levels
    )


__all__ = ["GAMES", "Game", "Registry", "bot_names", "get_game", "level_help"]
