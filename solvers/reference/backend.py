"""The reference backend: the seed documents' algorithms, independent of every encoding."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import ENUMERATORS, Request
from gridsat.solvers.parts import Part, interrupted_split, split_ordinals
from gridsat.solvers.reference import Algorithm, algorithm, algorithms
from gridsat.solvers.stop import Stop

MAX_SPLIT_DEPTH = 64  # decisions deep at most: past that the tree is a path, and splitting it helps nobody


class Numbering:
    """A search listener that numbers the decisions at ``part.depth`` in search order, vetoes those the
    part does not own, and says whether each solution reported belongs to the part."""

    def __init__(self, part: Part) -> None:
        self.part, self.seen, self.inside, self.keep = part, 0, False, False

    def __call__(self, kind: str, depth: int, what: Any) -> bool:
        part = self.part
        if kind == "place" and depth == part.depth:
            number, self.seen = self.seen, self.seen + 1
            self.inside = part.lo <= number < part.hi
            return self.inside
        if kind == "remove" and depth == part.depth:
            self.inside = False
        elif kind == "solution":
            self.keep = self.inside or (depth < part.depth and part.shallow)
        return True


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

    def split(self, target: int, cap: int, stop: Stop) -> list[Part]:
        """Parts of the search tree: the first depth with at least ``target`` decisions, numbered."""
        if not self.algorithm.exhaustive:
            return [Part()]
        depth, count = 0, 0  # the deepest level with decisions, up to the first with enough of them
        for level in range(1, MAX_SPLIT_DEPTH + 1):
            found = self.decisions(level, stop)
            if found == 0:
                break
            depth, count = level, found
            if count >= target:
                break
        if count == 0:
            return [Part()]  # no decision at all: nothing to split
        return split_ordinals(count, depth, target)

    def decisions(self, depth: int, stop: Stop) -> int:
        """How many decisions the search takes at ``depth`` (it vetoes every one of them)."""
        numbering = Numbering(Part(depth=depth))  # owns no decision: the search stays above depth
        for _ in self.algorithm.run(self.instance, stop, listen=numbering):
            pass
        if stop.expired():
            raise interrupted_split(stop)
        return numbering.seen

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
