"""``native``: no clauses, a PySAT CNF+ at-most constraint, for the solvers that take them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridsat.models.constraints.amo.registry import encoding
from gridsat.models.registries import CNF_PLUS

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

# The PySAT solvers that take CNF+ (native at-most-k constraints): the only ones ``native`` runs on.
NATIVE_SOLVERS = ("minicard", "gluecard3", "gluecard4")


@encoding("native", needs=(CNF_PLUS,))
def native(formula: Formula, lits: list[int]) -> None:
    """A native cardinality constraint (PySAT's CNFPlus ``atmost``), no clauses: propagated by the solver
    itself (MiniCard: Liffiton and Maglalang, SAT 2012; Glucard). Only the solvers in ``NATIVE_SOLVERS``
    take it; every other backend or solver refuses a formulation that has one.
    Size: 0 variables, 0 clauses, one native constraint."""
    formula.atmost(lits, 1)


