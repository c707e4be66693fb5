"""Where each clause or constraint comes from, noted by the object it is written through.

A formulation writes through a ``Formula`` (CNF) or a ``Model`` (CP-SAT), both ``Noted``. The
formulation labels what it writes with ``with sink.family("one mat per cell"):``; the at-most-one and
cardinality helpers narrow that to one constraint with ``sink.scope(lits, "at_most")``. The sink keeps
the origin in force as runs over its clause (or constraint) list: a family change notes where the new
run begins, so writing a clause costs nothing extra, and ``origins()`` expands the runs, one ``Origin``
per item. Nothing is patched and no stack frame is read: the names are the ones the formulation gives.

A family's full name is ``owner:label`` (``tatami:cnf:one mat per cell``); inside a helper's scope it is
suffixed with the helper (``tatami:cnf:one mat per cell at_most``), since the at-least and the at-most
half of an exactly-one are separate bugs. Anything written outside a ``family`` block is ``owner:unlabelled``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

UNLABELLED = "unlabelled"


@dataclass(frozen=True)
class Origin:
    """One clause's or constraint's family and scope (variable ids; None: its own variables)."""

    family: str
    scope: tuple[int, ...] | None = None


class Noted:
    """The recording half of a sink: the origin in force and where each run of origins begins.

    Subclasses say how many items (clauses, constraints) they hold now: ``_count``.
    """

    def __init__(self, owner: str, count: Callable[[], int]) -> None:
        self.owner = owner
        self._count = count
        self.current = Origin(f"{owner}:{UNLABELLED}")
        self._starts: list[int] = [0]
        self._origins: list[Origin] = [self.current]

    def _switch(self, origin: Origin) -> Origin:
        """Make ``origin`` the one in force from the next item on; returns the one it replaces."""
        before, self.current = self.current, origin
        at = self._count()
        if self._starts[-1] == at:  # the previous run is empty: replace it
            self._origins[-1] = origin
            if len(self._origins) > 1 and self._origins[-2] == origin:  # and merge with the one before
                self._starts.pop()
                self._origins.pop()
        elif self._origins[-1] != origin:
            self._starts.append(at)
            self._origins.append(origin)
        return before

    def family(self, label: str) -> _Switch:
        """``with sink.family("label"):`` everything written inside belongs to family ``owner:label``."""
        return _Switch(self, Origin(f"{self.owner}:{label}"))

    def scope(self, lits: Sequence[int], helper: str) -> _Switch:
        """``with sink.scope(lits, "at_most"):`` the items written inside encode one constraint on ``lits``
        (its family suffixed with the helper's name). An inner scope keeps the outer one: the outermost
        helper names the constraint."""
        if self.current.scope is not None:
            return _Switch(self, self.current)
        return _Switch(self, Origin(f"{self.current.family} {helper}", tuple(abs(lit) for lit in lits)))

    def origins(self) -> list[Origin]:
        """One origin per item written so far, in order."""
        total = self._count()
        out: list[Origin] = []
        ends = [*self._starts[1:], total]
        for start, end, origin in zip(self._starts, ends, self._origins, strict=True):
            out += [origin] * (min(end, total) - start)
        return out + [self.current] * (total - len(out))


class _Switch:
    """The context manager of ``Noted.family`` and ``Noted.scope`` (a class: inner loops open many)."""

    __slots__ = ("noted", "origin", "saved")

    def __init__(self, noted: Noted, origin: Origin) -> None:
        self.noted = noted
        self.origin = origin
        self.saved: Origin | None = None

    def __enter__(self) -> None:
        self.saved = self.noted._switch(self.origin)

    def __exit__(self, *_: object) -> None:
        assert self.saved is not None
        self.noted._switch(self.saved)


def origins_of(formulation: Any) -> list[Origin]:
    """The origin of each clause (CNF) or constraint (CP-SAT) of a built formulation; ``unrecorded`` for
    each when it was not written through a sink (a plugin writing to a bare CNF or CpModel)."""
    noted: Noted | None = getattr(formulation, "notes", None)
    total = (len(formulation.cnf.clauses) if hasattr(formulation, "cnf")
             else len(formulation.model.Proto().constraints))
    if noted is None:
        return [Origin("unrecorded")] * total
    found = noted.origins()
    if len(found) != total:  # the formulation's items were changed after writing: nothing can be told
        return [Origin("unrecorded")] * total
    return found
