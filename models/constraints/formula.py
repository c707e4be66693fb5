"""``Formula``: the CNF a formulation writes through (clauses, the variable pool, native at-most-k
constraints), noting the family and scope of every clause (models/constraints/notes.py)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from gridsat.models.constraints.notes import Noted

if TYPE_CHECKING:
    from pysat.formula import CNF, IDPool


class Formula(Noted):
    """A CNF under construction.

    ``owner`` prefixes every family name (``"tatami:cnf"``). Write clauses with ``add``/``extend`` (or, in
    a hot loop, append to ``clauses`` directly: the family in force still applies); name variables with
    ``var(key)`` (the pool's id), draw auxiliaries with ``aux()``. ``atmosts`` holds native at-most-k
    constraints (the ``native`` at-most-one; only solvers with CNF+ support take them). ``close()`` gives
    the finished CNF (a ``CNFPlus`` when there are native constraints), its ``nv`` the pool's top.
    """

    def __init__(self, owner: str, pool: IDPool | None = None) -> None:
        from pysat.formula import CNF, IDPool

        self.pool = pool if pool is not None else IDPool()
        self.cnf: CNF = CNF()
        self.clauses: list[list[int]] = self.cnf.clauses
        self.atmosts: list[tuple[list[int], int]] = []
        super().__init__(owner, self.clauses.__len__)

    def var(self, key: Hashable) -> int:
        """The variable named ``key`` (made on first use)."""
        return self.pool.id(key)

    def aux(self) -> int:
        """A fresh auxiliary variable, named by nothing."""
        return self.pool.id()

    def add(self, clause: Sequence[int]) -> None:
        self.clauses.append(list(clause))

    def extend(self, clauses: Iterable[Sequence[int]]) -> None:
        self.clauses.extend(list(c) for c in clauses)

    def absorb(self, encoded: CNF) -> None:
        """Append the clauses of a CNF a PySAT encoder built from this pool (``vpool=formula.pool``)."""
        self.clauses.extend(encoded.clauses)

    def atmost(self, lits: Sequence[int], bound: int) -> None:
        """A native ``sum(lits) <= bound`` constraint (CNF+)."""
        self.atmosts.append((list(lits), bound))

    def close(self) -> CNF:
        """The finished CNF: ``nv`` covers every variable of the pool, native constraints make it a CNFPlus."""
        cnf = self.cnf
        if self.atmosts:
            from pysat.formula import CNFPlus

            plus = CNFPlus()
            plus.clauses, plus.atmosts = self.clauses, [[lits, k] for lits, k in self.atmosts]
            cnf = self.cnf = plus
        cnf.nv = max(cnf.nv, self.pool.top, *(abs(lit) for lits, _ in self.atmosts for lit in lits))
        return cnf

    def parts(self) -> dict[str, Any]:
        """``CnfFormulation(**formula.parts(), projection=..., decode=...)``: the CNF, pool and notes."""
        return {"cnf": self.close(), "pool": self.pool, "notes": self}

    def size(self) -> tuple[int, int]:
        """(variables, clauses) so far, native constraints counted as clauses."""
        return self.pool.top, len(self.clauses) + len(self.atmosts)
