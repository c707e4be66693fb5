"""Whether a group acts on a CNF as syntactic automorphisms: each element, read on the projection's keys, maps
the clause set onto itself.

An element g of a puzzle's group maps the variable of each projection key k to that of g(k)
(``Element.key``), and each other variable of the formula to itself or to its negation (prime-grid's
``phase``, whose colours a reflection of an even board swaps), the signs found one variable at a time
where the identity fails. Such a sigma with sigma(F) = F (each clause compared as a set of literals)
takes every model of F to a model of F, with the propagation of unit clauses commuting: so an orbit member
sigma(l) of a checked assignment l is a model, and its short blocking clause is exact, without being
checked itself (``certificate.members_failure``: prime-grid 4x4 checks its 1,236 leaders instead of all
9,888 members). ``element_maps`` reads each element on the variables, for this check and for the
orbits' expansion (``orbits.member_rows``). The check is on arrays, one per clause length: milliseconds for
prime-grid 4x4's 5,320 clauses and eight elements.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

from gridsat.models.formulation import CnfFormulation
from gridsat.models.symmetry import Group

if TYPE_CHECKING:
    import numpy as np

MOST_FREE = 64  # variables outside the projection whose signs are searched; with more, no automorphism is found


def automorphic(full: CnfFormulation, group: Group, table: ClauseTable | None = None) -> bool:
    """Whether every element of ``group`` maps ``full``'s clause set onto itself (see the module). ``table``:
    ``full``'s clauses as a ``ClauseTable``, when the caller keeps one."""
    import numpy as np

    table = ClauseTable(full.cnf.clauses) if table is None else table
    top = max(full.cnf.nv, full.pool.top, table.top)
    projection = np.asarray(full.projection, np.int64)
    free: list[int] | None = None
    for sent, _ in element_maps(group, full, full):
        moved = sent[projection]
        if (moved < 0).any() or len(np.unique(moved)) != len(moved):  # a key sent off the projection, or two to one
            return False
        image = np.arange(top + 1, dtype=np.int64)
        image[projection] = moved
        if table.maps_onto_itself(image):
            continue
        free = table.free_variables(set(full.projection)) if free is None else free
        if len(free) > MOST_FREE or not table.sign_free(image, free) or not table.maps_onto_itself(image):
            return False
    return True


def element_maps(group: Group, f: CnfFormulation, full: CnfFormulation) -> list[tuple[np.ndarray, str]]:
    """Per element, indexed by each projection variable of ``f``: the variable ``full`` has for the image of
    its key (-1 where ``full`` has none; 0 at 0, where an orbit's rows end), and the element's name."""
    import numpy as np

    index = dict(zip(full.keys, full.projection, strict=True))
    maps = []
    for element in group.elements:
        sent = np.full(max(f.projection, default=0) + 1, -1, np.int64)
        sent[0] = 0
        for key, v in zip(f.keys, f.projection, strict=True):
            sent[v] = index.get(element.key(key), -1)
        maps.append((sent, element.name))
    return maps


class ClauseTable:
    """A clause set as arrays, one per clause length (each clause's literals sorted, the rows sorted), to
    compare with its image under a signed map of the variables; and as a set of clauses (``as_set``'s)."""

    def __init__(self, clauses: list[list[int]]) -> None:
        import numpy as np

        self.clauses = clauses
        by_length: dict[int, list[np.ndarray]] = {}
        for _, rows, twice in grouped(clauses):
            by_length.setdefault(rows.shape[1], []).append(rows[~twice])
            for clause in rows[twice].tolist():  # a literal twice: the clause is shorter as a set
                once = np.array([as_set(clause)], np.int64)
                by_length.setdefault(once.shape[1], []).append(once)
        self.rows = {k: sorted_rows(np.concatenate(parts)) for k, parts in by_length.items()}
        self.top = max((int(np.abs(rows).max()) for rows in self.rows.values() if rows.size), default=0)
        self.first: dict[int, tuple[int, ...]] = {}  # a clause naming each variable

    @cached_property
    def known(self) -> set[tuple[int, ...]]:
        """The clauses as a set (each ``as_set``)."""
        return {clause for rows in self.rows.values() for clause in map(tuple, rows.tolist())}

    def maps_onto_itself(self, image: np.ndarray) -> bool:
        """Whether the signed map ``image`` (variable v to ``image[v]``) sends the clause set onto itself."""
        import numpy as np

        for rows in self.rows.values():
            mapped = np.sign(rows) * image[np.abs(rows)]
            if not np.array_equal(sorted_rows(np.sort(mapped, axis=1)), rows):
                return False
        return True

    def free_variables(self, shown: set[int]) -> list[int]:
        """The variables the clauses name outside the projection ``shown``, in order."""
        import numpy as np

        named = np.unique(np.abs(np.concatenate([rows.ravel() for rows in self.rows.values()] or [np.zeros(0, int)])))
        return sorted(set(named.tolist()) - shown)

    def sign_free(self, image: np.ndarray, free: list[int]) -> bool:
        """Send each free variable to itself or its negation, whichever takes the first clause naming it to a
        clause of the set (``image`` changed in place); False when neither does."""
        if not self.first:
            for clause in self.known:
                for lit in clause:
                    self.first.setdefault(abs(lit), clause)
        first, known = self.first, self.known
        signed = image.tolist()  # read element by element below: a list's items are far cheaper than an array's
        for v in free:
            for sign in (1, -1):
                signed[v] = sign * v
                if as_set([signed[abs(lit)] * (1 if lit > 0 else -1) for lit in first[v]]) in known:
                    break
            else:
                return False
        image[free] = [signed[v] for v in free]
        return True


def as_set(clause: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """A clause as the sorted tuple of its distinct literals."""
    return tuple(sorted(set(clause)))


def as_sets(clauses: list[list[int]]) -> list[tuple[int, ...]]:
    """Each clause as ``as_set`` gives it, in order (``grouped``)."""
    out: list[tuple[int, ...]] = [()] * len(clauses)
    for numbers, rows, twice in grouped(clauses):
        for i, row, again in zip(numbers, map(tuple, rows.tolist()), twice.tolist(), strict=True):
            out[i] = as_set(row) if again else row
    return out


def grouped(clauses: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
    """The clauses of each length (empty ones aside): their places in ``clauses``, their literals sorted (one
    numpy sort per length, not a Python sort per clause), and which of them name a literal twice (rare)."""
    import numpy as np

    by_length: dict[int, list[int]] = {}
    for i, clause in enumerate(clauses):
        by_length.setdefault(len(clause), []).append(i)
    for k, numbers in by_length.items():
        if k:
            rows = np.sort(np.array([clauses[i] for i in numbers], np.int64).reshape(len(numbers), k), axis=1)
            yield numbers, rows, (rows[:, 1:] == rows[:, :-1]).any(axis=1)


def sorted_rows(rows: np.ndarray) -> np.ndarray:
    """The rows in lexicographic order."""
    import numpy as np

    if not len(rows) or not rows.shape[1]:
        return rows
    return rows[np.lexsort(rows.T[::-1])]
