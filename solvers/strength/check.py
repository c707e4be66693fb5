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

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field

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


def assignments(primary: Sequence[int], k: int) -> Iterator[tuple[int, ...]]:
    """Every partial assignment of at most ``k`` of ``primary``, smallest first (the empty one too)."""
    for size in range(min(k, len(primary)) + 1):
        for chosen in itertools.combinations(primary, size):
            yield from itertools.product(*((v, -v) for v in chosen))  # signs as product((1, -1)) orders them


def guarded(clauses: list[list[int]], guard: int) -> list[list[int]]:
    """``clauses`` with every unit clause made ``[lit, -guard]``: MiniSat's propagate() reports only what it
    derives above decision level 0, so with ``guard`` assumed first, the units' consequences are reported too."""
    return [[*clause, -guard] if len(clause) == 1 else list(clause) for clause in clauses]


def check(constraint: Constraint, k: int) -> Finding:
    """Propagate every partial assignment of at most ``k`` primary literals; the first shortfall is the witness."""
    from pysat.solvers import Solver

    primary = constraint.primary
    guard = 1 + max([*primary, *(abs(lit) for clause in constraint.clauses for lit in clause)], default=0)
    tried, pc, stop = 0, None, 0
    refuted = Refuted(primary)
    with Solver(name=SOLVER, bootstrap_with=guarded(constraint.clauses, guard)) as propagator, \
            Implied(constraint) as implied:
        for assumption in assignments(primary, k):
            if pc is not None and tried >= stop:
                return Finding(pc, tried, k >= len(primary), None, False)
            tried += 1
            if refuted.inherits(assumption):
                continue  # a conflict without a call: see ``Refuted``
            consistent, derived = propagator.propagate(assumptions=[guard, *assumption])
            if not consistent:
                refuted.add(assumption)
                continue  # propagation is sound: a conflict it finds is real
            missed = implied.shortfall(assumption, set(derived), only_conflict=pc is not None)
            if missed is None:
                continue
            if pc is None:
                pc, stop = Witness(constraint, assumption, missed), tried + UC_BUDGET
            if missed == CONFLICT:
                return Finding(pc, tried, k >= len(primary), Witness(constraint, assumption, missed))
    return Finding(pc, tried, k >= len(primary), None, True)


class Refuted:
    """The assignments unit propagation refutes, one size at a time, as bit sets (two bits a variable).

    Propagation is monotone: an assignment that holds a refuted one is refuted too. ``assignments`` yields
    the sizes in turn and every sub-assignment of each, so an assignment holds a refuted one exactly when
    one of its subsets with one literal fewer is refuted (found so, or inherited in turn). Those are asked
    of the size below, and propagation is not called: most of the assignments the atlas tries are such
    conflicts (2.99 of its 3.78 million).
    """

    def __init__(self, primary: Sequence[int]) -> None:
        self.bit = {lit: 1 << (2 * i + (lit < 0)) for i, v in enumerate(primary) for lit in (v, -v)}
        self.size, self.below, self.here = 0, set[int](), set[int]()

    def inherits(self, assumption: tuple[int, ...]) -> bool:
        """Whether ``assumption`` holds a refuted assignment (then it is recorded as refuted itself)."""
        if len(assumption) != self.size:
            self.size, self.below, self.here = len(assumption), self.here, set()
        if not self.below:
            return False
        bits = list(map(self.bit.__getitem__, assumption))  # map, not a generator: millions of calls
        key = sum(bits)
        if any(map(self.below.__contains__, map(key.__xor__, bits))):
            self.here.add(key)
            return True
        return False

    def add(self, assumption: tuple[int, ...]) -> None:
        """Record that propagation refutes ``assumption`` (of the size last asked about)."""
        self.here.add(sum(map(self.bit.__getitem__, assumption)))


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
