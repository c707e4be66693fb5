"""What a puzzle hands a backend: a model plus the variables a solution is projected on."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the solvers' packages load only when a formulation is built
    from ortools.sat.python import cp_model
    from pysat.formula import CNF, IDPool

Key = Hashable
Solution = Any  # a puzzle's canonical solution: JSON-ready lists and ints
Decoder = Callable[[Mapping[Key, int]], Solution]
Images = Callable[[Solution], list[Solution]]


def picker(indices: list[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``itemgetter`` that always returns a tuple, even for zero or one index."""
    if len(indices) > 1:
        return itemgetter(*indices)
    return lambda items: tuple(items[i] for i in indices)


@dataclass(kw_only=True)
class Formulation:
    """What both kinds share: decoding the primary variables into canonical solutions."""

    decode: Decoder
    # When the model keeps one solution per symmetry orbit, ``images`` gives the whole orbit and
    # ``orbit_size`` how many solutions one model stands for (every orbit has that many).
    images: Images | None = None
    orbit_size: int = 1

    def solutions_of(self, values: Mapping[Key, int]) -> list[Solution]:
        """The canonical solutions one assignment of the primary variables stands for."""
        solution = self.decode(values)
        return self.images(solution) if self.images else [solution]


@dataclass(kw_only=True)
class CpsatFormulation(Formulation):
    """A CP-SAT model and its primary variables; enumeration is projected onto them."""

    model: cp_model.CpModel
    primary: dict[Key, cp_model.IntVar]

    def size(self) -> dict[str, int]:
        proto = self.model.Proto()
        return {"variables": len(proto.variables), "constraints": len(proto.constraints)}


@dataclass(kw_only=True)
class CnfFormulation(Formulation):
    """A CNF, the pool that named its variables, and the projection (the puzzle's own variables)."""

    cnf: CNF
    pool: IDPool
    projection: list[int]
    # True when every solution sets the same number of projection variables (one value per cell,
    # one mat per cell pair...): then no solution's true set contains another's, and a blocking
    # clause over the true literals alone excludes exactly one solution, with far fewer literals.
    block_true_only: bool = False

    @functools.cached_property
    def keys(self) -> list[Key]:
        """The structured key of each projection variable, in projection order."""
        return [self.pool.obj(v) for v in self.projection]

    @functools.cached_property
    def unset(self) -> dict[Key, int]:
        """Every projection key at 0: a model's values start as a copy of it (a dict copy does not
        hash the keys again, and hashing hundreds of tuple keys per model was most of the cost)."""
        return dict.fromkeys(self.keys, 0)

    @functools.cached_property
    def key_of(self) -> dict[int, Key]:
        return dict(zip(self.projection, self.keys, strict=True))

    def values(self, model: list[int]) -> dict[Key, int]:
        """The projection of a SAT model (which lists variables 1..n in order), keyed by structured keys."""
        found = self.unset.copy()
        key_of = self.key_of
        for v in self.projection:
            if model[v - 1] > 0:
                found[key_of[v]] = 1
        return found

    def blocking_clause(self, model: list[int]) -> list[int]:
        """A clause that this model's projection violates and every other projection satisfies."""
        if self.block_true_only:
            return [-v for v in self.projection if model[v - 1] > 0]
        return [-model[v - 1] for v in self.projection]

    def size(self) -> dict[str, int]:
        return {"variables": self.cnf.nv, "clauses": len(self.cnf.clauses)}

    def legend(self) -> list[str]:
        """One comment line per named variable: ``v <id> <key>``."""
        return [f"v {v} {self.pool.obj(v)!r}" for v in sorted(self.pool.id2obj) if self.pool.obj(v) is not None]
