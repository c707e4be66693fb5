"""At-most-one and exactly-one, each at-most-one through a named encoding: the ``amo`` axis.

``ENCODINGS`` maps every name to the function that writes it: ``write(formula, lits)`` adds clauses
(and auxiliaries from ``formula.pool``) saying that at most one of ``lits`` is true, for any number of
literals (two or more; ``at_most_one`` handles fewer). A new encoding is one function decorated with
``@encoding("name")``; its docstring names its source and its size in the number of inputs n.
Every encoding is applied as named at every group size: none stands in for another.

The encodings of ``pysat.card`` (all of its kinds differ at a bound of one) are written by PySAT;
models/constraints/amo/pysat_card.py registers them, and ``native``: no clauses at all but a CNF+ at-most
constraint, for the solvers that take them. Commander, product and bimander are written here from their
papers (models/constraints/amo/papers.py). The axis lists them in that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

# The encodings register themselves in ENCODINGS on import, in the axis order: PySAT's, the papers', native.
# isort: off
from gridsat.models.constraints.amo import pysat_card  # noqa: F401
from gridsat.models.constraints.amo import papers  # noqa: F401
from gridsat.models.constraints.amo import native  # noqa: F401
# isort: on
from gridsat.models.constraints.amo.registry import DECLARED, ENCODINGS, Declared, Write, encoding
from gridsat.models.encoding import Axis

if TYPE_CHECKING:
    from gridsat.models.constraints.formula import Formula

__all__ = ["DECLARED", "ENCODINGS", "Declared", "Write", "at_least_one", "at_most_one", "axis", "encoding",
           "exactly_one", "measured"]


def at_most_one(formula: Formula, lits: Sequence[int], name: str) -> None:
    """At most one of ``lits`` is true, in encoding ``name``; its clauses are scoped to ``lits``."""
    if len(lits) < 2:
        return
    with formula.scope(lits, "at_most"):
        ENCODINGS[name](formula, list(lits))


def at_least_one(formula: Formula, lits: Sequence[int]) -> None:
    """At least one of ``lits`` is true: one clause (the empty clause for no literals)."""
    with formula.scope(lits, "at_least"):
        formula.add(lits)


def exactly_one(formula: Formula, lits: Sequence[int], name: str) -> None:
    """Exactly one of ``lits`` is true: one clause plus the named at-most-one."""
    at_least_one(formula, lits)
    at_most_one(formula, lits, name)


def axis(names: Sequence[str] | None = None, default: str = "pairwise") -> Axis:
    """The ``amo`` axis of an encoding space, ``default`` first: ``names``, or without them every encoding
    registered, now or later (a plugin's too, whenever it registers)."""
    return ENCODINGS.axis(default, names)


def measured(name: str, n: int) -> tuple[int, int]:
    """(auxiliary variables, clauses) of encoding ``name`` on ``n`` inputs, built once (native constraints
    count as clauses)."""
    return _sizes.setdefault((name, n), _measure(name, n))


_sizes: dict[tuple[str, int], tuple[int, int]] = {}


def _measure(name: str, n: int) -> tuple[int, int]:
    from gridsat.models.constraints.formula import Formula

    formula = Formula("measure")
    lits = [formula.var(i) for i in range(n)]
    at_most_one(formula, lits, name)
    variables, clauses = formula.size()
    return variables - n, clauses
