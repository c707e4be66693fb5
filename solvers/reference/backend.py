"""The reference backend: the seed documents' algorithms, independent of every encoding."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import Request
from gridsat.solvers.reference import Algorithm, algorithm, algorithms
from gridsat.solvers.stop import Stop


@dataclass
class ReferenceJob:
    """An algorithm bound to an instance."""

    algorithm: Algorithm
    instance: Instance

    @property
    def label(self) -> str:
        return self.algorithm.name

    @property
    def exhaustive(self) -> bool:
        return self.algorithm.exhaustive

    def size(self) -> dict[str, int]:
        return {}

    def solutions(self, stop: Stop) -> Iterator[Any]:
        yield from self.algorithm.run(self.instance, stop)
        if not self.algorithm.exhaustive:
            stop.request(f"algorithm {self.algorithm.name!r} does not search for every solution")


class ReferenceBackend:
    """Backtracking algorithms ported from the seeds."""

    name = "reference"
    summary = "the seed's own backtracking algorithm, reimplemented (pure Python)"
    takes = ("algorithm",)

    def supported(self) -> bool:
        return True

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"algorithm": list(algorithms(puzzle))}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> ReferenceJob:
        """The named algorithm; unnamed, the default, or for one solution the first one-solution method."""
        name = request.algorithm
        if name is None and request.limit == 1:
            # An exhaustive search can take forever to reach its first solution (knight's tours on
            # 9x10); a method built to find one, like Warnsdorff's rule, is what ``solve`` wants.
            name = next((a.name for a in algorithms(puzzle).values() if not a.exhaustive), None)
        return ReferenceJob(algorithm(puzzle, name), instance)
