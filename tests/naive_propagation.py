"""Unit propagation the slow, obvious way, for tests that check a propagating product against it (the DRAT
checker, the strength checker): scan every clause until nothing changes."""

from __future__ import annotations


def propagate(clauses: list[list[int]], given: set[int]) -> set[int] | None:
    """The literals ``given`` and the clauses force, None on a conflict."""
    known = set(given)
    if any(-lit in known for lit in known):
        return None
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            if any(lit in known for lit in clause):
                continue
            free = [lit for lit in clause if -lit not in known]
            if not free:
                return None
            if len(free) == 1:
                known.add(free[0])
                changed = True
    return known
