"""What a puzzle hands a backend: a model plus the variables a solution is projected on."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the solvers' packages load only when a formulation is built
    from ortools.sat.python import cp_model
    from pysat.formula import CNF, IDPool

    from gridsat.models.constraints.notes import Noted

Key = Hashable
Solution = Any  # a puzzle's canonical solution: JSON-ready lists and ints
# Reads one assignment: every primary key mapped to its value (see Formulation).
Decoder = Callable[[Mapping[Key, int]], Solution]
Images = Callable[[Solution], list[Solution]]
# Given a SAT model (variables 1..n in order), clauses it violates, or [] when it is a real solution.
Refine = Callable[[list[int]], list[list[int]]]
# What a refinement clause was made for, in one line a certificate keeps (a cut's node set), and the check
# that a clause is what such a line says: None when it is, else why not.
Witness = Callable[[list[int]], str]
Vouch = Callable[[list[int], str], str | None]


def picker(indices: list[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """``itemgetter`` that always returns a tuple, even for zero or one index."""
    if len(indices) > 1:
        return itemgetter(*indices)
    return lambda items: tuple(items[i] for i in indices)


@dataclass(kw_only=True)
class Formulation:
    """What both kinds share: decoding the primary variables into canonical solutions.

    ``decode`` sees the same thing from every backend: a mapping of every primary key (a CP-SAT
    formulation's ``primary``, a CNF's ``projection``) to its value in one solution, 0 or 1 for a
    Boolean and the value for a CP-SAT integer variable. So a decoder reads the true Boolean keys as
    ``[k for k, v in values.items() if v]`` and never asks which backend ran.
    """

    decode: Decoder
    # When the model keeps one solution per symmetry orbit, ``images`` gives the whole orbit and
    # ``orbit_size`` how many solutions one model stands for (every orbit has that many; 0: orbits
    # differ in size, so a model count counts orbits).
    images: Images | None = None
    orbit_size: int = 1
    # The group whose orbits ``images`` lists, by the name a count is "up to" (``symmetry``, ``reversal``).
    orbits_of: str | None = None
    # Where each clause or constraint comes from (models/constraints/notes.py): the Formula or Model the
    # formulation was written through, None when it was written to a bare CNF or CpModel.
    notes: Noted | None = None
    # The encoding's full name (``cutset+bitwise+nosymmetry``), set by ``solvers.backend.formulate``.
    encoding: str = ""

    def solutions_of(self, values: Mapping[Key, int]) -> list[Solution]:
        """The canonical solutions one assignment of the primary variables stands for."""
        return self.stands_for(self.decode(values))

    def stands_for(self, solution: Solution) -> list[Solution]:
        """The canonical solutions one decoded solution stands for: its orbit's, when one per orbit is kept."""
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
    # A lazy formulation's missing rules: the sat backend asks about every model before reporting it
    # and adds the clauses returned to the same incremental solver, until a model passes. Each clause
    # must hold in every real solution, so refinement never loses one (see models/constraints/circuit.py).
    refine: Refine | None = None
    # With ``refine``: each refinement clause's witness, and its check (for certified runs: ``--certify``).
    witness: Witness | None = None
    vouch: Vouch | None = None

    @functools.cached_property
    def keys(self) -> list[Key]:
        """The structured key of each projection variable, in projection order."""
        return [self.pool.obj(v) for v in self.projection]

    @functools.cached_property
    def _indices(self) -> list[int]:
        return [v - 1 for v in self.projection]

    @functools.cached_property
    def _all_false(self) -> dict[Key, int]:
        return dict.fromkeys(self.keys, 0)

    def values(self, model: list[int]) -> dict[Key, int]:
        """The projection of a SAT model (which lists variables 1..n in order): every projection key
        mapped to 1 or 0, as ``decode`` expects (see Formulation). This runs once for every solution a
        count finds, so only the true keys are hashed: copying the all-false dict keeps its hashes."""
        values = self._all_false.copy()
        values.update(dict.fromkeys(compress(self.keys, [model[i] > 0 for i in self._indices]), 1))
        return values

    def literal(self, key: Key, value: int) -> int:
        """The literal that gives ``key`` the value ``value`` (1 or 0)."""
        var = self.pool.id(key)
        return var if value else -var

    def blocking_clause(self, model: list[int]) -> list[int]:
        """A clause that this model's projection violates and every other projection satisfies."""
        if self.block_true_only:
            return [-v for v in self.projection if model[v - 1] > 0]
        return [-model[v - 1] for v in self.projection]

    def blocking_of(self, row: Sequence[int]) -> list[int]:
        """The blocking clause of a projection given as 0/1 values in projection order (a model's
        ``blocking_clause``, for a model kept as its projection only)."""
        if self.block_true_only:
            return [-v for v, value in zip(self.projection, row, strict=True) if value]
        return [-v if value else v for v, value in zip(self.projection, row, strict=True)]

    def row_of(self, clause: Sequence[int]) -> tuple[int, ...]:
        """The projection, as 0/1 values in projection order, that a blocking clause of this formulation
        rules out (``blocking_clause``, ``blocking_of``, or a certified search's over every projection
        variable): its negative literals are the true variables."""
        row = [0] * len(self.projection)
        position = self._positions
        for literal in clause:
            if literal < 0:
                row[position[-literal]] = 1
        return tuple(row)

    def prefix_of(self, clause: Sequence[int], length: int) -> tuple[int, ...]:
        """``row_of(clause)[:length]``, without the rest of the row."""
        row = [0] * length
        position = self._positions
        for literal in clause:
            if literal < 0 and (at := position[-literal]) < length:
                row[at] = 1
        return tuple(row)

    @functools.cached_property
    def _positions(self) -> dict[int, int]:
        return {v: i for i, v in enumerate(self.projection)}

    def size(self) -> dict[str, int]:
        natives = len(getattr(self.cnf, "atmosts", ()))  # the native at-most-ones of a CNF+
        return {"variables": self.cnf.nv, "clauses": len(self.cnf.clauses), **({"native": natives} if natives else {})}

    def legend(self) -> list[str]:
        """One comment line per named variable: ``v <id> <key>``."""
        return [f"v {v} {self.pool.obj(v)!r}" for v in sorted(self.pool.id2obj) if self.pool.obj(v) is not None]


class BuildExpired(Exception):
    """The deadline passed while a formulation was being built (the run ends incomplete)."""


_build_deadline: ContextVar[float | None] = ContextVar("gridsat_build_deadline", default=None)


@contextlib.contextmanager
def build_deadline(deadline: float | None) -> Iterator[None]:
    """Let ``check_deadline`` calls in the formulations built inside raise ``BuildExpired`` at ``deadline``
    (a ``time.monotonic`` value), so that building counts against a run's time limit."""
    token = _build_deadline.set(deadline)
    try:
        yield
    finally:
        _build_deadline.reset(token)


def check_deadline() -> None:
    """Called now and then by a formulation's slow loops: stop building once the deadline has passed."""
    deadline = _build_deadline.get()
    if deadline is not None and time.monotonic() >= deadline:
        raise BuildExpired
