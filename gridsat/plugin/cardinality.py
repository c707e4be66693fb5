"""``sum(lits) <= k``, ``>= k`` and ``== k`` for any bound through a named encoding, and the ``card`` axis."""

from __future__ import annotations

from gridsat.models.constraints.cardinality import ANY_BOUND, at_least, at_most, axis, exactly

__all__ = ["ANY_BOUND", "at_least", "at_most", "axis", "exactly"]
