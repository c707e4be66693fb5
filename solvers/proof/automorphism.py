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
orbits' expansion (``orbits.member_rows``). Elements that generate the others are checked, not all of them
(``generators``: a composition of automorphisms is one). The check is on arrays, one per clause length, each
clause packed into an integer where its literals fit: about a millisecond for prime-grid 4x4's 5,320 clauses
and eight elements, three of them checked.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import TYPE_CHECKING

from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.symmetry import Group

if TYPE_CHECKING:
    import numpy as np

MOST_FREE = 64  # variables outside the projection whose signs are searched; with more, no automorphism is found
GENERATED = 8  # the permutations, per element, that ``generators`` composes before it checks every element instead


def automorphic(full: CnfFormulation, group: Group, table: ClauseTable | None = None,
                moved: Moved | None = None) -> bool:
    """Whether every element of ``group`` maps ``full``'s clause set onto itself (see the module), checked on
    elements that generate them all (``generators``). ``table``: ``full``'s clauses as a ``ClauseTable``, and
    ``moved``, its keys' images (``key_images``), when the caller keeps them."""
    import numpy as np

    table = ClauseTable(full.cnf.clauses) if table is None else table
    top = max(full.cnf.nv, full.pool.top, table.top)
    projection = np.asarray(full.projection, np.int64)
    images = []
    for sent, _ in element_maps(group, full, full, moved):
        moved_to = sent[projection]  # a key sent off the projection, or two to one: no automorphism
        if (moved_to < 0).any() or len(np.unique(moved_to)) != len(moved_to):
            return False
        image = np.arange(top + 1, dtype=np.int64)
        image[projection] = moved_to
        images.append(image)
    free: list[int] | None = None
    for image in generators(images):
        if table.maps_onto_itself(image):
            continue
        free = table.free_variables(set(full.projection)) if free is None else free
        if len(free) > MOST_FREE or not table.sign_free(image, free) or not table.maps_onto_itself(image):
            return False
    return True


def generators(images: list[np.ndarray]) -> list[np.ndarray]:
    """Those of ``images`` (permutations of the variables, each an array ``v -> image[v]``) whose compositions give
    every one of them: in order, each that is not yet a composition of those chosen before it. A composition of
    automorphisms is one (with signs: a free variable's sign, ``sign_free``'s, composes as well), so the
    chosen ones being automorphisms makes every element one: a board's eight motions are checked as two or
    three. Every image, when their compositions reach more than ``GENERATED`` permutations per image (never a
    board's)."""
    import numpy as np

    if not images:
        return []
    identity = np.arange(len(images[0]), dtype=images[0].dtype)
    reached = {identity.tobytes(): identity}
    chosen: list[np.ndarray] = []
    for image in images:
        if image.tobytes() in reached:
            continue
        chosen.append(image)
        todo = list(reached.values())
        while todo:  # every composition of the chosen ones with what is reached, until nothing new comes
            product = todo.pop()
            for g in chosen:
                composed = g[product]
                if (code := composed.tobytes()) not in reached:
                    if len(reached) >= GENERATED * len(images):
                        return images
                    reached[code] = composed
                    todo.append(composed)
    return chosen


Moved = list[dict[Key, Key]]  # per element of a group, each key to its image


def key_images(group: Group, keys: list[Key]) -> Moved:
    """Per element of ``group``, each of ``keys`` to its image (``Element.key``): read once, for the automorphism
    check, the leaders' rule and the orbits' expansion alike (each read every element on every key)."""
    return [{key: element.key(key) for key in keys} for element in group.elements]


def element_maps(group: Group, f: CnfFormulation, full: CnfFormulation,
                 moved: Moved | None = None) -> list[tuple[np.ndarray, str]]:
    """Per element, indexed by each projection variable of ``f``: the variable ``full`` has for the image of
    its key (-1 where ``full`` has none; 0 at 0, where an orbit's rows end), and the element's name.
    ``moved``: the keys' images (``key_images``), where the caller has them (a key it lacks is read anew)."""
    import numpy as np

    index = dict(zip(full.keys, full.projection, strict=True))
    moved = key_images(group, f.keys) if moved is None else moved
    projection = np.asarray(f.projection, np.int64)
    maps = []
    for element, images in zip(group.elements, moved, strict=True):
        sent = np.full(max(f.projection, default=0) + 1, -1, np.int64)
        sent[0] = 0
        sent[projection] = [index.get(images[key] if key in images else element.key(key), -1) for key in f.keys]
        maps.append((sent, element.name))
    return maps


class ClauseTable:
    """A clause set as arrays, one per clause length (each clause's literals sorted, the rows sorted), to
    compare with its image under a signed map of the variables and to look clauses up in (``holds``)."""

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
        # Each row of a length whose literals fit in 63 bits as one int64 (``packed``), in the rows' order, which
        # is the codes' order: an image is compared, and a clause looked up, by one sort or search of integers
        # (prime-grid 4x4's eight elements: a lexsort per length each cost 4.8 ms, a Python set 6.8 ms more).
        self.width = max(1, (2 * self.top).bit_length())
        self.codes = {k: packed(rows, self.top, self.width) for k, rows in self.rows.items() if k * self.width <= 63}
        self.long: dict[int, set[tuple[int, ...]]] = {}  # the rows of a length too long to pack, as tuples
        self.first: dict[int, tuple[int, ...]] = {}  # a clause naming each variable asked for (``naming``)

    @cached_property
    def known(self) -> set[tuple[int, ...]]:
        """The clauses as a set (each ``as_set``)."""
        return {clause for rows in self.rows.values() for clause in map(tuple, rows.tolist())}

    def holds(self, clauses: list[list[int]] | list[tuple[int, ...]]) -> np.ndarray:
        """Whether each clause, as a set of literals (``as_set``), is a clause of the table (an empty one never is)."""
        import numpy as np

        found = np.zeros(len(clauses), np.bool_)
        for numbers, rows, twice in grouped(clauses):
            for i, clause in zip(np.asarray(numbers)[twice].tolist(), rows[twice].tolist(), strict=True):
                found[i] = self.holds_rows(np.array([as_set(clause)], np.int64))[0]
            found[np.asarray(numbers)[~twice]] = self.holds_rows(rows[~twice])
        return found

    def holds_rows(self, rows: np.ndarray) -> np.ndarray:
        """Whether each row (its literals sorted and distinct, all of one length) is a row of the table."""
        import numpy as np

        k = rows.shape[1]
        table = self.rows.get(k)
        if table is None or not len(table) or not len(rows):
            return np.zeros(len(rows), np.bool_)
        codes = self.codes.get(k)
        if codes is None:  # too long to pack: compared as tuples, made once per length
            if k not in self.long:
                self.long[k] = set(map(tuple, table.tolist()))
            mine = self.long[k]
            return np.array([row in mine for row in map(tuple, rows.tolist())], np.bool_)
        inside = (rows[:, 0] >= -self.top) & (rows[:, -1] <= self.top)
        asked = packed(np.where(inside[:, None], rows, 0), self.top, self.width)
        at = np.minimum(np.searchsorted(codes, asked), len(codes) - 1)
        return inside & (codes[at] == asked)

    def maps_onto_itself(self, image: np.ndarray) -> bool:
        """Whether the signed map ``image`` (variable v to ``image[v]``) sends the clause set onto itself."""
        import numpy as np

        for k, rows in self.rows.items():
            mapped = np.sign(rows) * image[np.abs(rows)]
            mapped.sort(axis=1)
            codes = self.codes.get(k)
            if codes is None:
                if not np.array_equal(sorted_rows(mapped), rows):
                    return False
            elif mapped[:, 0].min() < -self.top or mapped[:, -1].max() > self.top or \
                    not np.array_equal(np.sort(packed(mapped, self.top, self.width)), codes):
                return False  # a literal the table never names, or another multiset of clauses
        return True

    def free_variables(self, shown: set[int]) -> list[int]:
        """The variables the clauses name outside the projection ``shown``, in order."""
        import numpy as np

        named = np.unique(np.abs(np.concatenate([rows.ravel() for rows in self.rows.values()] or [np.zeros(0, int)])))
        return sorted(set(named.tolist()) - shown)

    def naming(self, variables: list[int]) -> dict[int, tuple[int, ...]]:
        """A clause of the table naming each of ``variables`` (those it names), found once per variable (each
        generator that needs signs asks for the same free variables)."""
        import numpy as np

        wanted = [v for v in variables if v not in self.first]
        for rows in self.rows.values() if wanted else ():
            named = np.abs(rows)
            for v in wanted:
                if v not in self.first and (hit := np.flatnonzero((named == v).any(axis=1))).size:
                    self.first[v] = tuple(rows[hit[0]].tolist())
        return self.first

    def sign_free(self, image: np.ndarray, free: list[int]) -> bool:
        """Send each free variable to itself or its negation, whichever takes a clause naming it to a clause of
        the set (``image`` changed in place); False when neither does. (A guess: ``maps_onto_itself`` judges.)"""
        first = self.naming(free)
        signed = image.tolist()  # read element by element below: a list's items are far cheaper than an array's
        for v in free:
            if v not in first:
                return False
            for sign in (1, -1):
                signed[v] = sign * v
                if self.holds([[signed[abs(lit)] * (1 if lit > 0 else -1) for lit in first[v]]])[0]:
                    break
            else:
                return False
        image[free] = [signed[v] for v in free]
        return True


def packed(rows: np.ndarray, top: int, width: int) -> np.ndarray:
    """Each row (literals of magnitude at most ``top``) as one integer, its literals ``width`` bits each, the
    first the highest: rows in lexicographic order give codes in increasing order."""
    import numpy as np

    code = np.zeros(len(rows), np.int64)
    for column in rows.T:
        code = (code << width) | (column + top)
    return code


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


def grouped(clauses: list[list[int]] | list[tuple[int, ...]]) -> Iterator[tuple[list[int], np.ndarray, np.ndarray]]:
    """The clauses of each length (empty ones aside): their places in ``clauses``, their literals sorted (one
    numpy sort per length, the clauses flattened in C, not a Python sort or pass per clause), and which of them
    name a literal twice (rare)."""
    import numpy as np

    from gridsat.solvers.proof.clausal import flattened

    flat, starts = flattened(clauses)
    lengths = np.diff(starts)
    for k in np.unique(lengths).tolist():
        if k:
            numbers = np.flatnonzero(lengths == k)
            rows = np.sort(flat[starts[numbers][:, None] + np.arange(k)], axis=1)
            yield numbers.tolist(), rows, (rows[:, 1:] == rows[:, :-1]).any(axis=1)


def sorted_rows(rows: np.ndarray) -> np.ndarray:
    """The rows in lexicographic order."""
    import numpy as np

    if not len(rows) or not rows.shape[1]:
        return rows
    return rows[np.lexsort(rows.T[::-1])]
