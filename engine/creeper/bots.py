"""Creeper bots: `random`, `greedy` (one ply) and `search` (iterative-deepening alpha-beta with
a transposition table, `creepnet.engine.creeper.search`).

Every bot owns a `random.Random(seed)`. By default work is counted in nodes, never in seconds,
so a game between bots replays identically on every machine; a bot for people may be given
seconds on an injected clock instead (the engine reads no clock of its own).
`ClassicSearchBot` is the search bot of before: kept as the benchmark's yardstick.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from creepnet.engine.creeper import core
from creepnet.engine.creeper.board import CAPTURE, JUMP, Entry, Tables, side, tables
from creepnet.engine.creeper.rules import Move, State, apply, legal_moves, repetitions
from creepnet.engine.creeper.search import Budget, Searcher, SearchResult

WIN = 1_000_000
DISTANCE_WEIGHT = 100  # one octagon of connection distance
PIN_WEIGHT = 30  # one pin more than the opponent: more reach, fewer threats
REPEAT_PENALTY = 60  # per earlier occurrence of the position a root move leads to


class Bot(Protocol):
    name: str

    def choose(self, state: State) -> Move: ...


class RandomBot:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Move:
        return self.rng.choice(_require_moves(state))


class GreedyBot:
    """Takes the move after which its connection distance most beats the opponent's."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Move:
        _require_moves(state)
        t, me, node = _root(state)
        scored = []
        for e in core.generate(t, node[0], node[1]):
            _, _, own, opp, gained = core.play(e, *node)
            if gained and core.connected(t, own, me):
                return e[4]
            score = core.distance(t, opp, me ^ 1) - core.distance(t, own, me)
            scored.append((score, e[4]))
        best = max(score for score, _ in scored)
        return self.rng.choice([move for score, move in scored if score == best])


class _OutOfBudget(Exception):
    pass


DRAW_MARGIN = 60  # a score this close to 0 is "level": a repeating game may end in a draw
SEARCH_NODES = 20_000  # the default budget per move: about 0.06 s (the old bot took 0.09 s)


@dataclass(frozen=True)
class Reply:
    """A turn's answer: a move (with or without a draw offer), or accepting the offered draw."""

    move: Move | None
    offer_draw: bool = False

    @property
    def accept(self) -> bool:
        return self.move is None


class SearchBot:
    """Iterative-deepening alpha-beta with a transposition table (see `search`).

    ``nodes`` caps the positions visited per move (deterministic); ``seconds`` on ``clock``
    caps the time instead (or as well). ``last`` keeps the latest search's figures."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        nodes: int | None = None,
        max_depth: int = 64,
        seconds: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if nodes is None and seconds is None:
            nodes = SEARCH_NODES
        self.budget = Budget(nodes=nodes, seconds=seconds, clock=clock, max_depth=max_depth)
        self.searcher = Searcher(seed)
        self.last: SearchResult | None = None

    def choose(self, state: State) -> Move:
        _require_moves(state)
        self.last = self.searcher.search(state, self.budget)
        return self.last.move

    def reply(self, state: State, draw_offered: bool = False) -> Reply:
        """The move to play, offering a draw when the game repeats and is level; or, when
        the opponent offered one, accepting it unless the search sees this side ahead."""
        move = self.choose(state)
        assert self.last is not None
        level = abs(self.last.score) <= DRAW_MARGIN
        if draw_offered and self.last.score <= DRAW_MARGIN:
            return Reply(None)
        return Reply(move, offer_draw=level and repetitions(state) > 1)


class ClassicSearchBot:
    """Iterative-deepening negamax alpha-beta over distance and pin count.

    `nodes` caps the positions visited per move; the best move of the deepest fully searched
    depth is played. Root moves are shuffled by the seeded RNG first, which breaks ties.
    """

    name = "classic"

    def __init__(self, seed: int = 0, nodes: int = 2000, max_depth: int = 8) -> None:
        self.rng = random.Random(seed)
        self.nodes = nodes
        self.max_depth = max_depth

    def choose(self, state: State) -> Move:
        _require_moves(state)
        t, me, node = _root(state)
        root = core.generate(t, node[0], node[1])
        self.rng.shuffle(root)
        self._t, self._visited = t, 0
        penalties = {e[4]: _repeat_penalty(state, e[4]) for e in root}
        scores = {e[4]: 0 for e in root}
        for depth in range(1, self.max_depth + 1):
            root.sort(key=lambda e: -scores[e[4]])
            try:
                scores = self._search_root(root, me, node, depth, penalties)
            except _OutOfBudget:
                break
            if max(scores.values()) > WIN // 2:
                break  # a forced win is found; deeper search cannot improve on it
        return max(root, key=lambda e: scores[e[4]])[4]

    def _search_root(
        self,
        root: list[Entry],
        me: int,
        node: tuple[int, int, int, int],
        depth: int,
        penalties: dict[Move, int],
    ) -> dict[Move, int]:
        """Scores net of the repetition penalty; below the best they are only upper bounds,
        so the first move in `root` order with the top score is the true best."""
        alpha = -WIN - 1
        scores: dict[Move, int] = {}
        for e in root:
            penalty = penalties[e[4]]
            raw = -self._negamax(e, me, node, depth - 1, -WIN - 1, -(alpha + penalty), 1)
            scores[e[4]] = raw - penalty
            alpha = max(alpha, raw - penalty)
        return scores

    def _negamax(
        self,
        e: Entry,
        mover: int,
        node: tuple[int, int, int, int],
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """Score for the side to move after `mover` plays `e` in `node`."""
        self._visited += 1
        if self._visited > self.nodes and depth > 0:
            raise _OutOfBudget
        t = self._t
        mine, theirs, own, opp, gained = core.play(e, *node)
        if gained and core.connected(t, own, mover):
            return -(WIN - ply)
        child = (theirs, mine, opp, own)
        if depth == 0:
            return _evaluate(t, child, mover ^ 1)
        moves = core.generate(t, theirs, mine)
        if not moves:
            return 0
        best = -WIN - 1
        for reply in _ordered(moves, opp):
            score = -self._negamax(reply, mover ^ 1, child, depth - 1, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


def _repeat_penalty(state: State, move: Move) -> int:
    # Search sees no history, so it would happily flip the same disc back and forth forever;
    # steering away from positions already seen makes games progress.
    return REPEAT_PENALTY * (repetitions(apply(state, move)) - 1)


def _evaluate(t: Tables, node: tuple[int, int, int, int], me: int) -> int:
    mine, theirs, own, opp = node
    distances = core.distance(t, opp, me ^ 1) - core.distance(t, own, me)
    return DISTANCE_WEIGHT * distances + PIN_WEIGHT * (mine.bit_count() - theirs.bit_count())


def _ordered(moves: list[Entry], own: int) -> list[Entry]:
    """Disc-gaining jumps first, then captures, then the rest: the likeliest cut-offs first."""
    gains = [e for e in moves if e[0] == JUMP and e[3] and not own & e[3]]
    captures = [e for e in moves if e[0] == CAPTURE]
    rest = [e for e in moves if e[0] != CAPTURE and not (e[0] == JUMP and e[3] and not own & e[3])]
    return gains + captures + rest


def _root(state: State) -> tuple[Tables, int, tuple[int, int, int, int]]:
    me, you = state.to_move, state.to_move.other
    node = (state.pins(me), state.pins(you), state.discs(me), state.discs(you))
    return tables(state.spec), side(me), node


def _require_moves(state: State) -> list[Move]:
    moves = legal_moves(state)
    if not moves:
        raise ValueError("no legal move: the game is over")
    return moves


_BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": SearchBot,
}
BOT_NAMES: tuple[str, ...] = tuple(_BOTS)
_ALL_BOTS: dict[str, Callable[..., Bot]] = {**_BOTS, "classic": ClassicSearchBot}


def make_bot(name: str, seed: int = 0, **budget: object) -> Bot:
    """A bot by name; `search` takes `nodes=`, `seconds=` with `clock=`, and `max_depth=`
    budgets; `classic` (the old search, for benchmarks) `nodes=` and `max_depth=`."""
    if name not in _ALL_BOTS:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")
    if budget and name not in ("search", "classic"):
        raise ValueError(f"the {name} bot takes no budget, got {sorted(budget)}")
    return _ALL_BOTS[name](seed, **budget)
