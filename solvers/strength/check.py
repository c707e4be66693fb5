"""Whether unit propagation on a constraint's clauses derives everything the constraint implies.

A constraint is a CNF over *primary* variables (the ones the constraint is about) and auxiliaries
(an encoding's own). Its encoding is **propagation-complete** on the primary variables (Bordeaux and
Marques-Silva, "Knowledge compilation with empowerment", SOFSEM 2012; for a finite-domain variable's
value literals the same property is **arc consistency**, Gent, "Arc consistency in SAT", ECAI 2002)
when, for every partial assignment of primary literals, unit propagation

- reaches a conflict whenever the assignment has no extension to a model, and otherwise
- sets every primary literal that all the assignment's models set.

It is **unit-refutation complete** (UC, Gwynne and Kullmann, "Generalising unit-refutation
completeness and SLUR via nested input resolution", J. Autom. Reasoning 2014) when the first holds:
every partial assignment without a model is refuted by unit propagation. PC implies UC.

``check`` tries every partial assignment of at most ``k`` primary literals, smallest first. What
propagation derives comes from a MiniSat that never solves (so holds no learnt clause: only the
constraint's own clauses propagate); what the clauses imply comes from their models projected onto
the primary variables (or, past ``MODEL_CAP`` of them, from SAT calls on a second solver). The first
assignment where propagation falls short is the witness, so it is a smallest one.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np

# pysat's propagate() is offered by the MiniSat family; the constraints checked are tiny.
SOLVER = "minisat22"
CONFLICT = 0  # the "literal" a witness misses when propagation misses a conflict
MODEL_CAP = 4096  # projected models kept to answer what is implied; past it, SAT calls answer
UC_BUDGET = 100_000  # assignments tried after a PC witness, looking for a UC one (a missed conflict)


@dataclass(frozen=True)
class Constraint:
    """Clauses over primary variables and auxiliaries; ``names`` names the primary variables."""

    clauses: list[list[int]]
    primary: list[int]
    names: dict[int, Hashable] = field(default_factory=dict)
    about: str = ""  # what instance of the encoding this is (``n = 4``, ``2x3 grid, cells (0,0) (0,1)``)
    families: dict[str, int] = field(default_factory=dict)  # the clauses of each family it holds

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
    """What ``check`` found on one constraint: a PC witness, or none after ``tried`` assignments.

    ``refutation`` is a UC witness (an assignment without a model that propagation does not refute);
    ``uc_decided`` says whether the search for one ended (it stops ``UC_BUDGET`` assignments past a PC
    witness). Every verdict covers the assignments of at most k literals; ``exhaustive``: that is all of them.
    """

    witness: Witness | None
    tried: int
    exhaustive: bool  # k is at least the number of primary variables: every partial assignment is in reach
    refutation: Witness | None = None
    uc_decided: bool = True


def guarded(clauses: list[list[int]], guard: int) -> list[list[int]]:
    """``clauses`` with every unit clause made ``[lit, -guard]``: MiniSat's propagate() reports only what it
    derives above decision level 0, so with ``guard`` assumed first, the units' consequences are reported too."""
    return [[*clause, -guard] if len(clause) == 1 else list(clause) for clause in clauses]


def check(constraint: Constraint, k: int) -> Finding:
    """Propagate every partial assignment of at most ``k`` primary literals, smallest first (``level``); the
    first shortfall is the witness. An assignment that holds one propagation refuted is refuted too, and
    propagation is not asked (``inherited``)."""
    from pysat.solvers import Solver

    primary = constraint.primary
    guard = 1 + max([*primary, *(abs(lit) for clause in constraint.clauses for lit in clause)], default=0)
    variables = np.array(primary, dtype=np.int64)
    n, tried, pc, stop = len(primary), 0, None, 0
    refuted = np.zeros(1, dtype=bool)  # the level below's, by index (``level``)
    with Solver(name=SOLVER, bootstrap_with=guarded(constraint.clauses, guard)) as propagator, \
            Implied(constraint) as implied:
        for size in range(min(k, n) + 1):
            combos = level(n, size)
            signs = (np.arange(1 << size)[:, None] >> np.arange(size - 1, -1, -1)) & 1  # 1: negative
            refuted = inherited(combos, n, refuted)
            asked = np.flatnonzero(~refuted)
            rows, patterns = np.divmod(asked, 1 << size)
            literals = (variables[combos[rows]] * (1 - 2 * signs[patterns])).tolist()
            for index, assumption in zip(asked.tolist(), map(tuple, literals), strict=True):
                if pc is not None and tried + index >= stop:
                    return Finding(pc, stop, k >= n, None, False)
                consistent, derived = propagator.propagate(assumptions=[guard, *assumption])
                if not consistent:
                    refuted[index] = True
                    continue  # propagation is sound: a conflict it finds is real
                missed = implied.shortfall(assumption, set(derived), only_conflict=pc is not None)
                if missed is None:
                    continue
                if pc is None:
                    pc, stop = Witness(constraint, assumption, missed), tried + index + 1 + UC_BUDGET
                if missed == CONFLICT:
                    return Finding(pc, tried + index + 1, k >= n, Witness(constraint, assumption, missed))
            tried += len(refuted)
            if pc is not None and tried > stop:  # an assignment past the budget, refuted without a call
                return Finding(pc, stop, k >= n, None, False)
    return Finding(pc, tried, k >= n, None, True)


def level(n: int, size: int) -> np.ndarray:
    """Every choice of ``size`` of the variables 0 to n-1, one a row, in ``itertools.combinations`` order. With
    each row's signs (pattern p: its bit ``size-1-j`` set when the row's j-th variable is negative) the
    level's assignments are numbered row * 2**size + p: the order ``itertools.product`` gives over
    ``(v, -v)`` for each, smallest assignments first."""
    found = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), size)), dtype=np.int64)
    return found.reshape(-1, size) if size else np.zeros((1, 0), dtype=np.int64)


def rank(combos: np.ndarray, n: int) -> np.ndarray:
    """Each row's place in ``level(n, size)`` (lexicographic order: the rows before it that start alike up to
    position j and have a smaller j-th variable, counted by the hockey-stick identity)."""
    size = combos.shape[1]
    if size == 0:
        return np.zeros(len(combos), dtype=np.int64)
    choose = binomials(n, size)
    before = np.concatenate([np.full((len(combos), 1), -1), combos[:, :-1]], axis=1)
    left = size - np.arange(size)
    return (choose[n - before - 1, left] - choose[n - combos, left]).sum(axis=1)


@functools.lru_cache(maxsize=64)
def binomials(n: int, size: int) -> np.ndarray:
    """C(a, b) for a up to n + 1 and b up to ``size``, a table ``rank`` reads (made once per size and n)."""
    return np.array([[math.comb(a, b) for b in range(size + 1)] for a in range(n + 2)], dtype=np.int64)


def inherited(combos: np.ndarray, n: int, below: np.ndarray) -> np.ndarray:
    """Which assignments of a level (numbered as ``level`` numbers them) hold one that is refuted in the level
    below (``below``, by the same numbering). Propagation is monotone, and the sizes come in turn: an
    assignment holds a refuted one exactly when one of its subsets with one literal fewer is refuted (found
    so, or inherited in turn). Most of the assignments the atlas tries are such conflicts (2.99 of its 3.78
    million)."""
    size = combos.shape[1]
    patterns = np.arange(1 << size)
    out = np.zeros((len(combos), 1 << size), dtype=bool)
    if size == 0 or not below.any():
        return out.ravel()
    for j in range(size):
        low = size - 1 - j  # the bit of the j-th literal's sign
        dropped = ((patterns >> (low + 1)) << low) | (patterns & ((1 << low) - 1))
        out |= below[rank(np.delete(combos, j, axis=1), n)[:, None] * (1 << (size - 1)) + dropped[None, :]]
    return out.ravel()


class Implied:
    """What the clauses imply under an assignment of primary literals: from their models projected onto
    the primary variables when there are at most ``MODEL_CAP`` of them, else from SAT calls."""

    def __init__(self, constraint: Constraint) -> None:
        from pysat.solvers import Solver

        self.primary = constraint.primary
        # A tautology per primary variable: every one gets a value in every model, even one in no clause.
        self.clauses = [*constraint.clauses, *([v, -v] for v in self.primary)]
        self.models = self.projected()
        self.solver = Solver(name=SOLVER, bootstrap_with=self.clauses) if self.models is None else None
        # The models as bit sets, one per primary literal (bit j: model j sets it), so that the models an
        # assignment fits are a few integer ANDs rather than a subset test per model and assignment.
        self.fits = {lit: sum(1 << j for j, model in enumerate(self.models) if lit in model)
                     for v in self.primary for lit in (v, -v)} if self.models is not None else {}
        self.every = (1 << len(self.models)) - 1 if self.models is not None else 0

    def __enter__(self) -> Implied:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.solver is not None:
            self.solver.delete()

    def projected(self) -> list[frozenset[int]] | None:
        """Every model's primary literals, each once (each blocked as found); None past ``MODEL_CAP``."""
        from pysat.solvers import Solver

        models: list[frozenset[int]] = []
        primary = set(self.primary)
        with Solver(name=SOLVER, bootstrap_with=self.clauses) as solver:
            while solver.solve():
                if len(models) == MODEL_CAP:
                    return None
                models.append(frozenset(lit for lit in solver.get_model() if abs(lit) in primary))
                if not models[-1]:
                    break  # no primary variable: one projected model, the empty one
                solver.add_clause([-lit for lit in models[-1]])
        return models

    def shortfall(self, assumption: tuple[int, ...], derived: set[int], only_conflict: bool) -> int | None:
        """A primary literal (or ``CONFLICT``) the clauses imply under ``assumption`` and ``derived`` lacks."""
        if self.models is None:
            return self.asked(list(assumption), derived, only_conflict)
        fitting = self.every
        for lit in assumption:
            fitting &= self.fits[lit]
        if not fitting:
            return CONFLICT
        if only_conflict:
            return None
        for v in self.primary:  # every model sets v one way: all fitting models set v, none, or some
            on = fitting & self.fits[v]
            lit = v if on == fitting else -v if not on else None
            if lit is not None and lit not in derived:
                return lit
        return None

    def asked(self, assumption: list[int], derived: set[int], only_conflict: bool) -> int | None:
        """``shortfall`` by SAT calls: every model found rules out the literals it does not set."""
        assert self.solver is not None
        if not self.solver.solve(assumptions=assumption):
            return CONFLICT
        if only_conflict:
            return None
        alive = set(self.solver.get_model())
        for lit in (v if v in alive else -v for v in self.primary):
            if lit in derived or lit not in alive:
                continue
            if not self.solver.solve(assumptions=[*assumption, -lit]):
                return lit
            alive &= set(self.solver.get_model())
        return None
