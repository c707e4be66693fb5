"""Whether unit propagation on a constraint's clauses derives everything the constraint implies.

A constraint is a CNF over *primary* variables (the ones the constraint is about) and auxiliaries
(an encoding's own). Its encoding is **propagation-complete** on the primary variables (Bordeaux and
Marques-Silva, "Knowledge compilation with empowerment", SOFSEM 2012; for a finite-domain variable's
value literals the same property is **arc consistency**, Gent, "Arc consistency in SAT", ECAI 2002)
when, for every partial assignment of primary literals, unit propagation

- reaches a conflict whenever the assignment has no extension to a model, and otherwise
- sets every primary literal that all the assignment's models set.

``check`` tries every partial assignment of at most ``k`` primary literals, smallest first, and
compares ``Solver.propagate`` with what SAT calls on the same clauses say is implied; the first
assignment where propagation falls short is the witness. With ``k`` at least the number of primary
variables the verdict is exact; below it, it holds for the assignments tried.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field

# pysat's propagate() is offered by the MiniSat family; the constraints checked are tiny.
SOLVER = "minisat22"
CONFLICT = 0  # the "literal" a witness misses when propagation misses a conflict


@dataclass(frozen=True)
class Constraint:
    """Clauses over primary variables and auxiliaries; ``names`` names the primary variables."""

    clauses: list[list[int]]
    primary: list[int]
    names: dict[int, Hashable] = field(default_factory=dict)
    about: str = ""  # what instance of the encoding this is (``n = 4``, ``2x3 grid, cells (0,0) (0,1)``)

    def literal(self, lit: int) -> str:
        """A primary literal in words: its variable's name, ``-`` when negative."""
        if lit == CONFLICT:
            return "a conflict"
        name = self.names.get(abs(lit), f"x{abs(lit)}")
        return ("-" if lit < 0 else "") + spoken(name)


def spoken(key: Hashable) -> str:
    """A pool key in few characters: ``("arc", (0, 0), (1, 2))`` as ``arc((0,0),(1,2))``."""
    if isinstance(key, tuple) and key and isinstance(key[0], str):
        return f"{key[0]}({','.join(map(spoken, key[1:]))})"
    if isinstance(key, tuple):
        return f"({','.join(map(spoken, key))})"
    return str(key)


@dataclass(frozen=True)
class Witness:
    """A partial assignment after which unit propagation misses an implied literal (or a conflict)."""

    constraint: Constraint
    assignment: tuple[int, ...]
    missed: int

    def __str__(self) -> str:
        given = " ".join(self.constraint.literal(lit) for lit in self.assignment) or "nothing"
        where = f" ({self.constraint.about})" if self.constraint.about else ""
        return f"after {given}, unit propagation misses {self.constraint.literal(self.missed)}{where}"


@dataclass(frozen=True)
class Finding:
    """What ``check`` found on one constraint: a witness, or none after ``tried`` assignments."""

    witness: Witness | None
    tried: int
    exhaustive: bool  # every partial assignment was tried (k at least the number of primary variables)


def assignments(primary: Sequence[int], k: int) -> Iterator[tuple[int, ...]]:
    """Every partial assignment of at most ``k`` of ``primary``, smallest first (the empty one too)."""
    for size in range(min(k, len(primary)) + 1):
        for chosen in itertools.combinations(primary, size):
            for signs in itertools.product((1, -1), repeat=size):
                yield tuple(s * v for s, v in zip(signs, chosen, strict=True))


def check(constraint: Constraint, k: int) -> Finding:
    """Propagate every partial assignment of at most ``k`` primary literals; the first shortfall is the witness."""
    from pysat.solvers import Solver

    tried = 0
    with Solver(name=SOLVER, bootstrap_with=constraint.clauses) as solver:
        for assumption in assignments(constraint.primary, k):
            tried += 1
            missed = shortfall(solver, constraint.primary, list(assumption))
            if missed is not None:
                return Finding(Witness(constraint, assumption, missed), tried, False)
    return Finding(None, tried, k >= len(constraint.primary))


def shortfall(solver, primary: Sequence[int], assumption: list[int]) -> int | None:  # noqa: ANN001
    """A primary literal (or ``CONFLICT``) the clauses imply under ``assumption`` and propagation misses."""
    consistent, derived = solver.propagate(assumptions=assumption)
    if not consistent:
        return None  # propagation is sound: a conflict it finds is real
    if not solver.solve(assumptions=assumption):
        return CONFLICT
    model = set(solver.get_model())
    known = set(derived)
    # A literal is implied only if every model sets it: each model found rules out the others it flips.
    candidates = [v if v in model else -v for v in primary if v not in known and -v not in known]
    while candidates:
        lit = candidates.pop()
        if not solver.solve(assumptions=[*assumption, -lit]):
            return lit
        other = set(solver.get_model())
        candidates = [c for c in candidates if c in other]
    return None
