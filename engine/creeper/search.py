"""Creeper alpha-beta search: iterative deepening negamax with a transposition table.

* **Search**: fail-soft negamax alpha-beta, deepened one ply at a time until the budget runs
  out; the best move of the deepest finished depth is played (or a better one found part-way
  through the next depth: any root move that beats the first one searched is truly better).
* **Transposition table**: keyed by the exact position (pins, discs, side to move) as a tuple,
  so there are no hash collisions to guard against; it keeps the depth, a bound and the best
  move. Win scores are stored relative to the node, so a transposed win keeps its length.
* **Move ordering**: the table's move, then jumps that flip an opponent disc, new discs,
  captures, the two killer moves of the ply, then the history score of the move.
* **Evaluation** (from the side to move): the connection race. Each side's distance is the
  fewest octagons still to turn to its colour to link its bases (a 0-1 search over the board
  in which an opponent's disc costs what an empty octagon costs: one jump flips it), plus a
  small weight for pins and for the move in hand. A side to move one octagon from linking is
  checked for a jump that links at once, so a win one ply past the horizon is not missed.
* **Repetition**: a position already on the search path or in the game since its last
  irreversible move scores 0 (a draw), so the side ahead steers away from flip wars and the
  side behind may seek them; the bot offers a draw when the game repeats and is level.
* **Budget**: a node cap (deterministic, for tests and replays) and/or seconds on an injected
  clock. The engine never reads a clock of its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from creepnet.engine.creeper import core
from creepnet.engine.creeper.board import CAPTURE, JUMP, Entry, Move, Tables, side, tables
from creepnet.engine.creeper.rules import LIGHT, State

WIN = 1_000_000
WON = WIN - 1_000  # scores beyond this are wins (or losses) found by the search
DISTANCE_WEIGHT = 100  # one octagon of connection distance
PIN_WEIGHT = 30  # one pin more than the opponent: more reach, fewer threats
TEMPO = 15  # the side to move is a move ahead in the race
EXACT, LOWER, UPPER = 0, 1, 2
TABLE_LIMIT = 400_000  # entries; the table is cleared past this (memory stays bounded)
CLOCK_EVERY = 256  # nodes between looks at the clock

Key = tuple[int, int, int, int, int]  # mine, theirs, own, opp, side to move


class OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class Budget:
    """How long one move may think: ``nodes`` visited and/or ``seconds`` on ``clock``."""

    nodes: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] | None = None
    max_depth: int = 64

    def __post_init__(self) -> None:
        if self.nodes is None and self.seconds is None:
            raise ValueError("a search budget needs nodes or seconds")
        if self.seconds is not None and self.clock is None:
            raise ValueError("a budget in seconds needs a clock")
        if self.max_depth < 1:
            raise ValueError("max_depth must be >= 1")


@dataclass(frozen=True)
class SearchResult:
    move: Move
    score: int  # from the side to move: > WON a forced win, < -WON a forced loss
    depth: int  # deepest depth searched to the end
    nodes: int

    @property
    def forced_win(self) -> bool:
        return self.score > WON

    @property
    def plies_to_win(self) -> int | None:
        return WIN - self.score if self.score > WON else None


def position_key(state: State) -> Key:
    me, you = state.to_move, state.to_move.other
    return (state.pins(me), state.pins(you), state.discs(me), state.discs(you), side(me))


def _history_keys(state: State) -> set[Key]:
    """Every position of the game since its last irreversible move, this one included."""
    keys = {position_key(state)}
    node = state.history
    while node:
        (to_move, light_pins, dark_pins, light_discs, dark_discs), node = node
        if to_move is LIGHT:
            keys.add((light_pins, dark_pins, light_discs, dark_discs, 0))
        else:
            keys.add((dark_pins, light_pins, dark_discs, light_discs, 1))
    return keys


def evaluate(t: Tables, mine: int, theirs: int, own: int, opp: int, me: int) -> int:
    """The connection race from the side to move's view (no search)."""
    race = core.distance(t, opp, me ^ 1) - core.distance(t, own, me)
    return DISTANCE_WEIGHT * race + PIN_WEIGHT * (mine.bit_count() - theirs.bit_count()) + TEMPO


class Searcher:
    """One search at a time; the table, killers and history persist between moves."""

    def __init__(self, seed: int = 0, repetition: bool = True) -> None:
        self.rng = random.Random(seed)
        self.repetition = repetition  # off only for the full-width correctness check
        self.table: dict[Key, tuple[int, int, int, Entry | None]] = {}
        self.history_score: dict[int, int] = {}  # by the move's toggle bits (unique per move)
        self.distances: dict[tuple[int, int], int] = {}  # (discs, side) -> distance
        self.nodes = 0

    def search(self, state: State, budget: Budget) -> SearchResult:
        t = tables(state.spec)
        me = side(state.to_move)
        mine, theirs, own, opp, _ = position_key(state)
        root = core.generate(t, mine, theirs)
        if not root:
            raise ValueError("no legal move: the game is over")
        self.rng.shuffle(root)  # the seed breaks ties between equal moves
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        if len(self.distances) > TABLE_LIMIT:
            self.distances.clear()
        self._t = t
        self._seen = _history_keys(state) if self.repetition else set()
        self._path: set[Key] = set()
        self._killers: dict[int, list[Entry]] = {}
        self.nodes = 0
        self._limit = budget.nodes
        self._clock = budget.clock
        self._deadline = None
        if budget.seconds is not None and budget.clock is not None:
            self._deadline = budget.clock() + budget.seconds
        best, best_score, depth_done = root[0], -WIN - 1, 0
        for depth in range(1, budget.max_depth + 1):
            try:
                move, score = self._root(root, (mine, theirs, own, opp), me, depth, best)
            except OutOfBudget as partial:
                # The first root move searched is the last depth's best; a move that scored
                # above it at this depth before time ran out is truly better.
                if partial.args:
                    best = partial.args[0]
                break
            best, best_score, depth_done = move, score, depth
            if abs(score) > WON:
                break  # a forced result: deeper search finds the same or a longer one
        if depth_done == 0:  # not even depth 1 finished: the ordering's first choice
            best_score = 0
        return SearchResult(best[4], best_score, depth_done, self.nodes)

    # --- the tree ---------------------------------------------------------------------------

    def _root(
        self, root: list[Entry], node: tuple[int, int, int, int], me: int, depth: int, first: Entry
    ) -> tuple[Entry, int]:
        root.sort(key=lambda e: e is not first)  # stable: the rest keep their order
        mine, theirs, own, opp = node
        key = (mine, theirs, own, opp, me)
        self._path.add(key)
        alpha, best, best_score = -WIN - 1, root[0], -WIN - 1
        try:
            for e in root:
                try:
                    score = self._child(e, mine, theirs, own, opp, me, depth, -WIN - 1, -alpha, 1)
                except OutOfBudget:
                    raise OutOfBudget(best) from None
                if score > best_score:
                    best, best_score = e, score
                    alpha = max(alpha, score)
        finally:
            self._path.discard(key)
        self.table[key] = (depth, best_score, EXACT, best)
        return best, best_score

    def _child(
        self,
        e: Entry,
        mine: int,
        theirs: int,
        own: int,
        opp: int,
        me: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """The score for the mover of ``e`` after playing it (negamax of the reply)."""
        mine2, theirs2, own2, opp2, gained = core.play(e, mine, theirs, own, opp)
        if gained and core.connected(self._t, own2, me):
            return WIN - ply
        return -self._negamax(theirs2, mine2, opp2, own2, me ^ 1, depth - 1, alpha, beta, ply)

    def _negamax(
        self,
        mine: int,
        theirs: int,
        own: int,
        opp: int,
        me: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        self.nodes += 1
        if self.nodes % CLOCK_EVERY == 0:
            self._check_budget()
        key = (mine, theirs, own, opp, me)
        if key in self._path or key in self._seen:
            return 0  # a repetition: nobody can force progress through it
        t = self._t
        entry = self.table.get(key)
        tt_move = None
        if entry is not None:
            tt_depth, tt_score, flag, tt_move = entry
            if tt_depth >= depth:
                score = _from_table(tt_score, ply)
                if flag == EXACT:
                    return score
                if flag == LOWER and score >= beta:
                    return score
                if flag == UPPER and score <= alpha:
                    return score
        if depth <= 0:
            return self._leaf(mine, theirs, own, opp, me, ply)
        moves = core.generate(t, mine, theirs)
        if not moves:
            return 0  # the side to move cannot move: a draw
        original_alpha = alpha
        best, best_move = -WIN - 1, None
        self._path.add(key)
        try:
            for e in self._ordered(moves, own, opp, tt_move, ply):
                score = self._child(e, mine, theirs, own, opp, me, depth, -beta, -alpha, ply + 1)
                if score > best:
                    best, best_move = score, e
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            self._reward(e, own, depth, ply)
                            break
        finally:
            self._path.discard(key)
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        self.table[key] = (depth, _to_table(best, ply), flag, best_move)
        return best

    def _distance(self, discs: int, side: int) -> int:
        # Most moves are steps, which leave the discs alone: leaves share their distances.
        key = (discs, side)
        found = self.distances.get(key)
        if found is None:
            found = self.distances[key] = core.distance(self._t, discs, side)
        return found

    def _leaf(self, mine: int, theirs: int, own: int, opp: int, me: int, ply: int) -> int:
        t = self._t
        mine_distance = self._distance(own, me)
        if mine_distance == 1:  # can the side to move link right now?
            for e in core.generate(t, mine, theirs):
                if e[0] == JUMP and e[3] and not own & e[3] and core.connected(t, own | e[3], me):
                    return WIN - (ply + 1)
        race = self._distance(opp, me ^ 1) - mine_distance
        pins = mine.bit_count() - theirs.bit_count()
        return DISTANCE_WEIGHT * race + PIN_WEIGHT * pins + TEMPO

    def _ordered(
        self, moves: list[Entry], own: int, opp: int, tt_move: Entry | None, ply: int
    ) -> list[Entry]:
        killers = self._killers.get(ply, ())
        history = self.history_score

        def rank(e: Entry) -> int:
            if e is tt_move:
                return -(1 << 40)
            kind, aux = e[0], e[3]
            if kind == JUMP and aux and not own & aux:
                return -(1 << 38) if opp & aux else -(1 << 37)
            if kind == CAPTURE:
                return -(1 << 36)
            if any(e is k for k in killers):
                return -(1 << 35)
            return -history.get(e[1], 0)

        return sorted(moves, key=rank)

    def _reward(self, e: Entry, own: int, depth: int, ply: int) -> None:
        """A quiet move that cut the search off: try it early at this ply and elsewhere."""
        if e[0] == CAPTURE or (e[0] == JUMP and e[3] and not own & e[3]):
            return
        killers = self._killers.setdefault(ply, [])
        if not any(e is k for k in killers):
            killers.insert(0, e)
            del killers[2:]
        self.history_score[e[1]] = self.history_score.get(e[1], 0) + depth * depth

    def _check_budget(self) -> None:
        if self._limit is not None and self.nodes >= self._limit:
            raise OutOfBudget
        clock, deadline = self._clock, self._deadline
        if deadline is not None and clock is not None and clock() >= deadline:
            raise OutOfBudget


def _to_table(score: int, ply: int) -> int:
    """Win scores counted from this node rather than the root, so a transposition keeps them."""
    if score > WON:
        return score + ply
    if score < -WON:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score > WON:
        return score - ply
    if score < -WON:
        return score + ply
    return score


def full_width(state: State, depth: int) -> int:
    """Plain minimax of ``depth`` plies with the same evaluation, no pruning and no table:
    the reference the search must agree with (repetition ignored, as ``repetition=False``)."""
    t = tables(state.spec)
    mine, theirs, own, opp, me = position_key(state)

    def value(mine: int, theirs: int, own: int, opp: int, me: int, depth: int, ply: int) -> int:
        if depth == 0:
            if core.distance(t, own, me) == 1:
                for e in core.generate(t, mine, theirs):
                    gain = e[0] == JUMP and e[3] and not own & e[3]
                    if gain and core.connected(t, own | e[3], me):
                        return WIN - (ply + 1)
            return evaluate(t, mine, theirs, own, opp, me)
        moves = core.generate(t, mine, theirs)
        if not moves:
            return 0
        best = -WIN - 1
        for e in moves:
            mine2, theirs2, own2, opp2, gained = core.play(e, mine, theirs, own, opp)
            if gained and core.connected(t, own2, me):
                score = WIN - (ply + 1)
            else:
                score = -value(theirs2, mine2, opp2, own2, me ^ 1, depth - 1, ply + 1)
            best = max(best, score)
        return best

    return value(mine, theirs, own, opp, me, depth, 0)
