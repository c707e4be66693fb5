"""``native``: no clauses, a PySAT CNF+ at-most constraint, for the solvers that take them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridsat.models.constraints.amo.registry import Declared, encoding
from gridsat.models.registries import CNF_PLUS

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula


@encoding("native", Declared("PySAT's CNF+ (CNFPlus.atmosts), propagated by MiniCard (Liffiton and Maglalang, "
                             "SAT 2012) and Glucard", "0; 0, and one native constraint", lambda n: (0, 1),
                             "not checked: no clauses (the solver propagates it natively)", least=2),
          needs=(CNF_PLUS,))
def native(formula: Formula, lits: list[int]) -> None:
    """A native cardinality constraint (PySAT's CNFPlus ``atmost``), no clauses: propagated by the solver
    itself (MiniCard: Liffiton and Maglalang, SAT 2012; Glucard). It needs CNF+: the gate runs it only on a
    backend and solver that take CNF+ (the sat backend's ``cnf_plus_solvers``) and refuses it elsewhere.
    Size: 0 variables, 0 clauses, one native constraint."""
    formula.atmost(lits, 1)


