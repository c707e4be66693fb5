"""The reference backend: the seed documents' algorithms, independent of every encoding."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.search import Algorithm
from gridsat.solvers.backend import ENUMERATORS, SLOW, Backend, Request
from gridsat.solvers.backends.algorithms import algorithm, algorithms
from gridsat.solvers.cubes import RESPLIT, Handback, Level, Part, interrupted_split, split_ordinals
from gridsat.solvers.stop import Stop

MAX_SPLIT_DEPTH = 64  # decisions deep at most: past that the tree is a path, and splitting it helps nobody
# seconds a part split again may take to finish the decision it is in (then it hands back the rest of its
# range); past that its search is stopped and what it counted is thrown away
GRACE = 0.5


@dataclass
class Resume(Handback):
    """How a reference part split again hands back the rest of its range: asked to ``drain``, its search
    finishes the decision of its last level that it is in, vetoes the ones after it and ends, so the
    decisions before ``upto`` are searched in full and counted, and the rest is untouched. A part that
    cannot (it owns one decision, or the solutions above its last level) or does not reach its next decision
    within ``GRACE`` seconds is stopped (``throw``), its count thrown away."""

    throw: Callable[[], None] | None = None  # set while the search runs
    able: bool = False  # whether the part can hand back the rest of its range
    models: bool = False  # a range, not models: a whole search (a split run's probe) has none to hand back

    def drain(self) -> None:
        self.draining = True
        throw = self.throw
        if throw is None:
            return
        if not self.able:
            throw()
            return
        timer = threading.Timer(GRACE, lambda: None if self.cut else throw())
        timer.daemon = True
        timer.start()


class Numbering:
    """A search listener that numbers the decisions at each of a part's levels in search order, vetoes
    those the part does not own, and says whether each solution reported belongs to the part.

    A level's decisions are only reached inside decisions the levels above own (the others are
    vetoed), so its numbers count within them: the numbering is a function of the part alone."""

    def __init__(self, part: Part, handback: Resume | None = None) -> None:
        self.levels = part.levels()
        self.seen = [0] * len(self.levels)
        self.inside = [False] * len(self.levels)
        self.keep = False
        self.handback = handback

    def __call__(self, kind: str, depth: int, what: Any) -> bool:
        if kind == "solution":
            # below a level: inside a decision it owns; above it: only where it owns the shallow solutions
            self.keep = all(self.inside[k] if depth >= level.depth else level.shallow
                            for k, level in enumerate(self.levels))
            return True
        for k, level in enumerate(self.levels):
            if depth != level.depth:
                continue
            if kind == "place":
                number, self.seen[k] = self.seen[k], self.seen[k] + 1
                self.inside[k] = level.lo <= number < level.hi
                if self.inside[k] and k == len(self.levels) - 1 and self.handback is not None:
                    self.inside[k] = self.resume(number)
                return self.inside[k]
            if kind == "remove":
                self.inside[k] = False
        return True

    def resume(self, number: int) -> bool:
        """Whether to enter the owned decision ``number`` of the last level: not once the part is asked
        to drain (every decision before it was searched in full: it hands back the rest from there)."""
        handback = self.handback
        assert handback is not None
        if handback.cut:
            return False
        if handback.draining and handback.able:
            handback.upto, handback.cut = number, True
            return False
        return True


def with_levels(index: int, levels: list[Level]) -> Part:
    """The reference part owning these levels."""
    top = levels[0]
    return Part(index, depth=top.depth, lo=top.lo, hi=top.hi, shallow=top.shallow, deeper=tuple(levels[1:]))


class Heard:
    """A listener passed on to another, noting whether any decision ("place") was reported."""

    def __init__(self, listen: Numbering) -> None:
        self.listen, self.placed = listen, False

    def __call__(self, kind: str, depth: int, what: Any) -> bool:
        self.placed = self.placed or kind == "place"
        return self.listen(kind, depth, what)


def listens(algorithm: Algorithm) -> bool:
    """Whether the algorithm's search takes a ``listen`` keyword (``models.search``)."""
    try:
        parameters = inspect.signature(algorithm.run).parameters.values()
    except (TypeError, ValueError):  # a callable Python cannot introspect: assume the documented form
        return True
    return any(p.name == "listen" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


@dataclass
class ReferenceSearch:
    """An algorithm bound to an instance (and, when split, to one part of its search tree)."""

    algorithm: Algorithm
    instance: Instance
    part: Part | None = None
    handback: Resume = field(default_factory=Resume)

    @property
    def label(self) -> str:
        return self.algorithm.name

    @property
    def exhaustive(self) -> bool:
        return self.algorithm.exhaustive

    @property
    def splittable(self) -> bool:
        """Whether ``split`` can find parts: the algorithm sees every solution and reports its decisions
        (a plugin's search that takes no ``listen`` reports none: there is nothing to number)."""
        return self.algorithm.exhaustive and listens(self.algorithm)

    def size(self) -> dict[str, int]:
        return {}

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Parts of the search tree: the first depth with at least ``target`` decisions, numbered.

        ``within`` a part: its last level's range cut in pieces, or, when it owns a single decision,
        a deeper level numbered inside that decision."""
        whole = within or Part()
        if not self.splittable:
            return [whole]
        base = whole.levels()
        if base and base[-1].hi - base[-1].lo > 1:
            last = base[-1]
            cut = split_ordinals(last.hi - last.lo, last.depth, target)
            return [with_levels(p.index, [*base[:-1], Level(last.depth, last.lo + p.lo, last.lo + p.hi,
                                                             last.shallow and p.shallow)]) for p in cut]
        if base and base[-1].hi == base[-1].lo:
            return [whole]  # it owns no decision, only solutions above its depth: nothing to split
        top = base[-1].depth if base else 0
        depth, count = 0, 0  # the deepest level with decisions, up to the first with enough of them
        for level in range(top + 1, top + MAX_SPLIT_DEPTH + 1):
            found = self.decisions(base, level, stop)
            if found == 0:
                break
            depth, count = level, found
            if count >= target:
                break
        if count == 0 or (base and count == 1):
            return [whole]  # no decision at all, or a path: nothing to split
        return [with_levels(p.index, [*base, Level(depth, p.lo, p.hi, p.shallow)])
                for p in split_ordinals(count, depth, target)]

    def decisions(self, base: list[Level], depth: int, stop: Stop) -> int:
        """How many decisions the search takes at ``depth`` inside the levels ``base`` (it vetoes every one)."""
        numbering = Numbering(with_levels(0, [*base, Level(depth, 0, 0, False)]))  # owns none at ``depth``
        heard = Heard(numbering)
        for _ in self.algorithm.run(self.instance, stop, listen=heard):
            if not heard.placed:  # a solution with no decision reported before it: the search reports none,
                return 0  # and numbering would cost the whole search
        if stop.expired():
            raise interrupted_split(stop)
        return numbering.seen[-1]

    def solutions(self, stop: Stop) -> Iterator[Any]:
        part = self.part
        if part is None or part.depth == 0:
            yield from self.algorithm.run(self.instance, stop)
        else:
            handback = self.handback
            # Only a part that owns several decisions of its last level, and no solution above that level
            # (the levels above decide nothing then: such a solution is kept only where the last level is
            # shallow), can hand back the rest of its range: it counted exactly the decisions before.
            last = part.levels()[-1]
            handback.able = last.hi - last.lo > 1 and not last.shallow
            handback.throw = lambda: stop.request(RESPLIT)
            if handback.draining and not handback.able:  # asked before the search began
                handback.throw()
            numbering = Numbering(part, handback)
            try:
                for solution in self.algorithm.run(self.instance, stop, listen=numbering):
                    if numbering.keep:
                        yield solution
            finally:
                handback.throw = None
        if not self.algorithm.exhaustive:
            stop.request(f"algorithm {self.algorithm.name!r} does not search for every solution")


class ReferenceBackend(Backend):
    """Backtracking algorithms ported from the seeds (the algorithm is looked up when the run starts)."""

    name = "reference"
    summary = "the seed's own backtracking algorithm, reimplemented (pure Python)"
    takes = ("algorithm",)
    can = ENUMERATORS
    install = "nothing to install: it is gridsat's own code"
    cost_rank = SLOW  # plain backtracking: a cross-check runs it after the solvers and counters

    def supported(self) -> bool:
        return True

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"algorithm": list(algorithms(puzzle))}

    def refusal(self, puzzle: Puzzle) -> str | None:
        return None if algorithms(puzzle) else f"puzzle {puzzle.name!r} has no reference algorithm"

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> ReferenceSearch:
        """The named algorithm; unnamed, the default, or for one solution the first one-solution method."""
        name = request.algorithm
        if name is None and request.limit == 1:
            # An exhaustive search can take forever to reach its first solution (knight's tours on
            # 9x10); a method built to find one, like Warnsdorff's rule, is what ``solve`` wants.
            name = next((a.name for a in algorithms(puzzle).values() if not a.exhaustive), None)
        return ReferenceSearch(algorithm(puzzle, name), instance, request.part)
