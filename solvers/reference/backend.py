"""The reference backend: the seed documents' algorithms, independent of every encoding."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import ENUMERATORS, Request
from gridsat.solvers.parts import Level, Part, interrupted_split, split_ordinals
from gridsat.solvers.reference import Algorithm, algorithm, algorithms
from gridsat.solvers.stop import Stop

MAX_SPLIT_DEPTH = 64  # decisions deep at most: past that the tree is a path, and splitting it helps nobody


class Numbering:
    """A search listener that numbers the decisions at each of a part's levels in search order, vetoes
    those the part does not own, and says whether each solution reported belongs to the part.

    A level's decisions are only reached inside decisions the levels above own (the others are
    vetoed), so its numbers count within them: the numbering is a function of the part alone."""

    def __init__(self, part: Part) -> None:
        self.levels = part.levels()
        self.seen = [0] * len(self.levels)
        self.inside = [False] * len(self.levels)
        self.keep = False

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
                return self.inside[k]
            if kind == "remove":
                self.inside[k] = False
        return True


def with_levels(index: int, levels: list[Level]) -> Part:
    """The reference part owning these levels."""
    top = levels[0]
    return Part(index, depth=top.depth, lo=top.lo, hi=top.hi, shallow=top.shallow, deeper=tuple(levels[1:]))


@dataclass
class ReferenceSearch:
    """An algorithm bound to an instance (and, when split, to one part of its search tree)."""

    algorithm: Algorithm
    instance: Instance
    part: Part | None = None

    @property
    def label(self) -> str:
        return self.algorithm.name

    @property
    def exhaustive(self) -> bool:
        return self.algorithm.exhaustive

    def size(self) -> dict[str, int]:
        return {}

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Parts of the search tree: the first depth with at least ``target`` decisions, numbered.

        ``within`` a part: its last level's range cut in pieces, or, when it owns a single decision,
        a deeper level numbered inside that decision."""
        whole = within or Part()
        if not self.algorithm.exhaustive:
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
        for _ in self.algorithm.run(self.instance, stop, listen=numbering):
            pass
        if stop.expired():
            raise interrupted_split(stop)
        return numbering.seen[-1]

    def solutions(self, stop: Stop) -> Iterator[Any]:
        part = self.part
        if part is None or part.depth == 0:
            yield from self.algorithm.run(self.instance, stop)
        else:
            numbering = Numbering(part)
            for solution in self.algorithm.run(self.instance, stop, listen=numbering):
                if numbering.keep:
                    yield solution
        if not self.algorithm.exhaustive:
            stop.request(f"algorithm {self.algorithm.name!r} does not search for every solution")


class ReferenceBackend:
    """Backtracking algorithms ported from the seeds."""

    name = "reference"
    summary = "the seed's own backtracking algorithm, reimplemented (pure Python)"
    takes = ("algorithm",)
    can = ENUMERATORS
    install = "nothing to install: it is gridsat's own code"

    def supported(self) -> bool:
        return True

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"algorithm": list(algorithms(puzzle))}

    def refusal(self, puzzle: Puzzle) -> str | None:
        return None if algorithms(puzzle) else f"puzzle {puzzle.name!r} has no reference algorithm"

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """Nothing to refuse before a run: the algorithm is looked up when the run starts."""

    def listing(self) -> dict[str, Any]:
        return {}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> ReferenceSearch:
        """The named algorithm; unnamed, the default, or for one solution the first one-solution method."""
        name = request.algorithm
        if name is None and request.limit == 1:
            # An exhaustive search can take forever to reach its first solution (knight's tours on
            # 9x10); a method built to find one, like Warnsdorff's rule, is what ``solve`` wants.
            name = next((a.name for a in algorithms(puzzle).values() if not a.exhaustive), None)
        return ReferenceSearch(algorithm(puzzle, name), instance, request.part)
