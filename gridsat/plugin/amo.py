"""At-most-one and exactly-one through a named encoding, and the open registry of those encodings.

``axis()`` is the ``amo`` axis of a formulation's encoding space: every encoding registered, whenever it
is registered (a plugin's included, before or after any puzzle was built or counted). ``encoding("name")``
registers one: a function ``write(formula, lits)`` that adds clauses (auxiliaries from ``formula.pool``)
saying at most one of ``lits`` is true; ``needs=(CNF_PLUS,)`` declares that it writes native CNF+
constraints instead, which the gate then runs only where they can be taken. ``exactly_one``,
``at_most_one`` and ``at_least_one`` write the constraint in the encoding a formulation's ``amo`` choice names.
"""

from __future__ import annotations

from gridsat.models.constraints.amo import (
    ENCODINGS,
    Write,
    at_least_one,
    at_most_one,
    axis,
    encoding,
    exactly_one,
    measured,
)
from gridsat.models.registries import CNF_PLUS

__all__ = ["CNF_PLUS", "ENCODINGS", "Write", "at_least_one", "at_most_one", "axis", "encoding", "exactly_one",
           "measured"]
