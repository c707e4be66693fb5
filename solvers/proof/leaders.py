"""Leader clauses recognised by rule: a symmetry breaking that provably keeps every orbit's lexicographic leader,
so that the proof of the formula *with* the breaking (``proof.lrat``) proves the count, and no second
refutation of the formula without it (``orbits.lrat``) is needed.

The lex-leader argument (Crawford, Ginsberg, Luks and Roy, "Symmetry-breaking predicates for search
problems", KR 1996): order the cells (row by row) and compare two fillings by their values in that order.
The least member m of an orbit has m <=lex h.m for every element h, where ``(h.m)[h(p)] = m[p]`` (the action
of ``Element.key`` on one-hot keys ``(tag, r, c, value)``). Let f be the first cell h moves: h.m and m agree
before f, and differ at f when the values at f and at h^-1(f) differ; so m[f] < m[h^-1(f)]. A clause that
holds a pair of negative literals x[f] = v, x[h^-1(f)] = w with w <= v is then true of m: it only forbids
what that inequality forbids.

``failure`` accepts a formula F (with the breaking) against the formula U built without it when:

1. F and U name the same projection keys by the same variables, and every clause of U is a clause of F;
2. every clause of F that is not one of U holds such a pair for some element h (its leader pair, derived here
   from the elements' action on the keys, never read from the encoding);
3. for every leader pair's two cells, U holds the clauses that give each cell exactly one value (one clause
   naming all its values, one binary clause per two of them) and forbid the two cells one value (a binary
   clause per value), so that the values compared are defined and differ in every model of U;
4. every element maps U onto itself (``automorphism.automorphic``), so that the least member of a model's
   orbit is a model of U too, and so, by 2, of F; and the elements are closed under composition (a group),
   so that each h's image of that least member is in the orbit it is least of.

Then every model of U has a member of its orbit that is a model of F; the proof that F with the leaders'
blocking clauses is unsatisfiable says that member is a blocked leader, so the model lies in a blocked
leader's orbit. With the orbits expanded and checked as for the orbits proof (each member a model of U, no
member in two orbits, ``orbits.expand`` and ``certificate.members_failure``), the count is the sum of their
sizes. What is trusted beyond the plain certificate's base: this module's reading of the keys (a cell and
its value) and the argument above; what is no longer trusted or refuted again: the breaking's clauses.
Where a rule fails (a breaking with auxiliary variables, another encoding of the values, another cell
order), the certificate proves its orbits instead (``solvers.proof.orbits``).
"""
from __future__ import annotations

import itertools
from collections.abc import Hashable

from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.symmetry import Group
from gridsat.solvers.proof.automorphism import ClauseTable, Moved, as_sets

Cell = tuple[Hashable, ...]
Pair = tuple[Cell, Cell]


def failure(f: CnfFormulation, full: CnfFormulation, group: Group, automorphic: bool,
            table: ClauseTable | None = None, moved: Moved | None = None) -> str:
    """Why ``f``'s symmetry breaking is not recognised as keeping every orbit's leader against ``full``, the
    formula without it (empty: it is; see the module). ``automorphic``: whether ``group`` maps ``full`` onto
    itself; ``table``: ``full``'s clauses as a ``ClauseTable``, and ``moved``, the group's images of its keys
    (``automorphism.key_images``), when the caller keeps them."""
    if dict(zip(f.keys, f.projection, strict=True)) != dict(zip(full.keys, full.projection, strict=True)):
        return "the formula with the breaking names its projection otherwise than the one without it"
    cells = one_hot(f.keys, f.projection)
    if cells is None:
        return "the projection's keys are not one value of one cell each"
    pairs = leader_pairs(group, f.keys, moved)
    if isinstance(pairs, str):
        return pairs
    table = ClauseTable(full.cnf.clauses) if table is None else table
    clauses, n = f.cnf.clauses, len(full.cnf.clauses)
    if clauses[:n] == full.cnf.clauses:  # the breaking appended to the formula without it: compared in C
        added = clauses[n:]
    else:
        sets, unbroken = as_sets(clauses), table.known
        if unbroken - set(sets):
            return "a clause of the formula without the breaking is missing from the formula with it"
        added = [c for c, named in zip(clauses, sets, strict=True) if named not in unbroken]
    extra = [c for c, held in zip(added, table.holds(added).tolist(), strict=True) if not held]
    variable = dict(zip(f.projection, f.keys, strict=True))
    if clause := next((c for c in extra if not is_leader_clause(c, variable, pairs)), None):
        return f"a clause of the breaking, {clause[:6]}, holds no leader pair's inequality"
    if missing := undefined_values(pairs, cells, table):
        return missing
    if not automorphic:
        return "the group does not map the formula without the breaking onto itself"
    return ""


def one_hot(keys: list[Key], projection: list[int]) -> dict[Cell, dict[int, int]] | None:
    """Each cell's values and their variables (keys ``(tag, *cell, value)``, one tag for all), or None when the
    keys are not of that shape."""
    if not keys or any(not isinstance(k, tuple) or len(k) < 3 or not isinstance(k[-1], int) for k in keys):
        return None
    if len({k[0] for k in keys}) != 1:
        return None
    cells: dict[Cell, dict[int, int]] = {}
    for k, v in zip(keys, projection, strict=True):
        cells.setdefault(tuple(k[1:-1]), {})[k[-1]] = v
    return cells


def leader_pairs(group: Group, keys: list[Key], images: Moved | None = None) -> set[Pair] | str:
    """For each element h but the identity: (f, h^-1(f)), f the first cell (in sorted order) h moves. An
    element that changes a value, or moves a key off the projection, gives a reason instead. ``images``: the
    elements' images of the keys (``automorphism.key_images``), where the caller has them."""
    shown = set(keys)
    pairs: set[Pair] = set()
    maps: list[dict[Cell, Cell]] = []
    for element, sent in zip(group.elements, images or [{}] * len(group.elements), strict=True):
        moved: dict[Cell, Cell] = {}
        for k in keys:
            image = sent[k] if k in sent else element.key(k)
            if image not in shown or image[0] != k[0] or image[-1] != k[-1]:
                return f"{element.name} does not map each cell's value to a value of a cell"
            if moved.setdefault(tuple(k[1:-1]), tuple(image[1:-1])) != tuple(image[1:-1]):
                return f"{element.name} does not move cells as wholes"
        maps.append(moved)
        first = min((cell for cell, to in moved.items() if to != cell), default=None)
        if first is None:
            continue
        source = next(cell for cell, to in moved.items() if to == first)  # h^-1(f)
        pairs.add((first, source))
    # the least member of an orbit is compared with each h's image of it, which must be in the orbit too
    known = {tuple(sorted(m.items())) for m in maps}
    if any(tuple(sorted((c, b[a[c]]) for c in a)) not in known for a, b in itertools.product(maps, maps)):
        return "the elements are not closed under composition (not a group)"
    return pairs


def is_leader_clause(clause: list[int], variable: dict[int, Key], pairs: set[Pair]) -> bool:
    """Whether ``clause`` holds negative literals x[p] = v and x[q] = w with w <= v for a leader pair (p, q)."""
    named = [variable.get(-lit) for lit in clause if lit < 0]
    keys = [k for k in named if k is not None]
    for a, b in itertools.permutations(keys, 2):
        if (tuple(a[1:-1]), tuple(b[1:-1])) in pairs and b[-1] <= a[-1]:
            return True
    return False


def undefined_values(pairs: set[Pair], cells: dict[Cell, dict[int, int]], table: ClauseTable) -> str:
    """Why a leader pair's values may be undefined or equal in a model of the formula without the breaking
    (point 3 of the module; empty: they cannot). The clauses each needs are looked up at once (``holds``),
    and the first missing one named."""
    asked: list[list[int]] = []
    why: list[str] = []
    for cell in sorted({cell for pair in pairs for cell in pair}):
        values = list(cells.get(cell, {}).values())
        needed = [values, *([-a, -b] for a, b in itertools.combinations(values, 2))]
        asked += needed
        why += [f"the formula without the breaking does not give cell {cell} exactly one value in binary "
                "clauses"] * len(needed)
    for p, q in sorted(pairs):
        shared = sorted(cells.get(p, {}).keys() & cells.get(q, {}).keys())
        asked += ([-cells[p][v], -cells[q][v]] for v in shared)
        why += [f"the formula without the breaking does not forbid cells {p} and {q} one value"] * len(shared)
    missing = [i for i, held in enumerate(table.holds(asked).tolist()) if not held]
    return why[missing[0]] if missing else ""
