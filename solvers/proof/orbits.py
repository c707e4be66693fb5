"""The whole solution set behind a certificate whose formula keeps one solution per symmetry orbit.

A symmetry-breaking encoding (models/breaking.py, prime-grid's leader inequalities) blocks one assignment
per orbit, and a run counts each as its whole orbit (``CnfFormulation.images``). A proof over that formula
shows only that no other *leader* is left: it says nothing of how many solutions each stands for, nor that
the breaking kept a member of every orbit. So a certificate of such a run also holds

* the orbit of every blocked assignment, as the run counted it (``images``): each member a solution the
  rule verifier accepts, no solution in two orbits;
* the same orbit on the variables of the formula built without symmetry breaking (``Unbroken``), by the
  puzzle's group acting on keys (``Element.key``), computed on arrays (``member_rows``): each member checked
  to be a model of that formula, each orbit with as many distinct members as it has solutions, and no
  member in two orbits (so the members number exactly the solutions counted);
* a second proof, ``orbits.lrat`` (``orbits.drat`` from a DRAT solver), that the unbroken formula with a
  blocking clause for every member of every orbit is unsatisfiable: those members are all its solutions.
  Where that formula blocks by true variables (``block_true_only``), a member's clause names its true
  variables only, and unit propagation on the formula must set every other projection variable false
  (``certificate.members_failure``): on prime-grid 4x4 the DRAT proof is then 1.3 MB and 45,096 steps
  instead of 43 MB and 139,173.

Then the count, the sum of the orbits' sizes, is proved without trusting the symmetry breaking. Where the
breaking is recognised clause by clause as keeping every orbit's lexicographic leader
(``solvers.proof.leaders``), the second proof is not made: the proof of the formula with the breaking proves
the count, with the orbits expanded and checked as above. A part of a
split run (a cube) gets no such proof, as its orbits leave its cube (``solvers.proof.whole`` proves the
orbits of all the parts together), nor does a lazy formula (its models need cuts, which that proof does not
keep); the count is then said to assume that the breaking keeps a member of every orbit, and never printed
as exact.
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gridsat.models.breaking import unbroken_encoding
from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import freeze
from gridsat.models.symmetry import Group
from gridsat.solvers.proof.automorphism import ClauseTable, Moved, automorphic, element_maps, key_images

if TYPE_CHECKING:
    import numpy as np

ASSUMED = "that the symmetry breaking keeps a member of every orbit (its orbits are not proved to be all)"


@dataclass
class Unbroken:
    """The group whose orbits a formula keeps one member of, the formula built without that breaking,
    and the proof that the orbits' members are all its solutions (empty until proved)."""

    group: Group
    formulation: CnfFormulation
    proof: bytes | Path = b""  # its bytes, or the file check-proof reads it from
    members: list[list[int]] = field(default_factory=list)  # each orbit member's blocking clause, once proved
    # per element: the unbroken formula's variable of each blocked key's image (``element_maps``), and its name
    maps: list[tuple[np.ndarray, str]] = field(default_factory=list, repr=False)
    automorphic: bool | None = None  # whether the group maps the formula onto itself (None: not asked yet)
    # why the breaking is not recognised as keeping every orbit's leader (``solvers.proof.leaders``): "" when it
    # is, and then the proof of the formula with the breaking proves the count; None: not asked yet
    unruled: str | None = None

    @cached_property
    def table(self) -> ClauseTable:
        """The formula's clauses as arrays, built once for the automorphism and the leaders' rules."""
        return ClauseTable(self.formulation.cnf.clauses)

    @cached_property
    def moved(self) -> Moved:
        """The elements' images of the formula's keys (``key_images``), read once for every check here."""
        return key_images(self.group, self.formulation.keys)

    def acts_by_automorphisms(self) -> bool:
        """Whether every element maps the formula without the breaking onto itself
        (``solvers.proof.automorphism``): then a member's checks follow from its orbit's first member's."""
        if self.automorphic is None:
            self.automorphic = automorphic(self.formulation, self.group, self.table, self.moved)
        return self.automorphic

    def keeps_leaders(self, f: CnfFormulation) -> bool:
        """Whether ``f``'s breaking is recognised, clause by clause, as keeping every orbit's lexicographic
        leader (``solvers.proof.leaders``): then no orbits proof is needed."""
        if self.unruled is None:
            from gridsat.solvers.proof import leaders

            self.unruled = leaders.failure(f, self.formulation, self.group, self.acts_by_automorphisms(),
                                           self.table, self.moved)
        return not self.unruled


def unbroken_of(puzzle: Puzzle, instance: Instance, f: CnfFormulation, encoding: Encoding) -> Unbroken | None:
    """The group and unbroken formula of a formulation that keeps one solution per orbit; None when it
    keeps every solution, when no encoding without the breaking (or no group) is declared, or when that
    formula is lazy (then the count assumes the breaking: ``ASSUMED``)."""
    if f.images is None or f.orbits_of is None or f.orbits_of not in puzzle.symmetry.groups:
        return None
    group = puzzle.symmetry.groups[f.orbits_of](instance)
    full = unbroken_encoding(encoding, group)
    if full is None:
        return None
    formulation = puzzle.cnf(instance, full)
    # A lazy formula's models need cuts before they are solutions, which the orbits proof does not keep.
    return None if formulation.images is not None or formulation.refine is not None else Unbroken(group, formulation)


def blocked_values(f: CnfFormulation, clause: list[int]) -> dict[Key, int]:
    """The projection, key by key, that a blocking clause rules out: its negative literals are the true
    variables (a clause over every projection variable, or over the true ones only: ``block_true_only``)."""
    values = dict.fromkeys(f.keys, 0)  # one C call, then the few true keys: this runs for every orbit member
    for literal in clause:
        if literal < 0 and (key := f.pool.obj(-literal)) in values:
            values[key] = 1
    return values


Decoded = dict[tuple[int, ...], Any]  # a blocking clause -> the projection it rules out, decoded


def decoded(f: CnfFormulation, clause: list[int], memo: Decoded | None = None) -> Any:
    """The projection a blocking clause rules out (``blocked_values``), decoded; ``memo`` keeps them per
    clause (a judge reads each blocking clause twice: its evidence, then its orbit)."""
    key = tuple(clause)
    if memo is not None and key in memo:
        return memo[key]
    found = f.decode(blocked_values(f, clause))
    if memo is not None:
        memo[key] = found
    return found


def member_rows(unbroken: Unbroken, f: CnfFormulation, leaders: list[list[int]]) -> tuple[np.ndarray, np.ndarray] | str:
    """Each element's image of each blocked assignment on the unbroken formula's variables, as arrays: the
    members' true projection variables (sorted, one row each, 0 after a member's last), the rows of all the
    orbits one after another with no row twice, and each orbit's number of distinct rows; or the reason an
    image is no assignment of that formula (a true variable sent to a key it has no variable for).
    ``leaders``: each assignment's true projection variables in ``f``, the formula with the breaking. On
    arrays: prime-grid 4x4's 1,236 leaders and 9,888 members take milliseconds (0.4 s as dictionaries)."""
    import numpy as np

    full = unbroken.formulation
    if not unbroken.maps:
        unbroken.maps = element_maps(unbroken.group, f, full, unbroken.moved)
    width = max((len(t) for t in leaders), default=0)
    true = np.zeros((len(leaders), width), np.int64)
    for i, named in enumerate(leaders):
        true[i, :len(named)] = named
    if true.max(initial=0) >= len(unbroken.maps[0][0]):
        return "a blocking clause names a variable beyond the projection"
    images = np.stack([np.sort(sent[true], axis=1) for sent, _ in unbroken.maps], axis=1)
    for (sent, element), image in zip(unbroken.maps, images.transpose(1, 0, 2), strict=True):
        if (image < 0).any():
            i, j = map(int, np.argwhere(sent[true] < 0)[0])
            return f"{element} sends the true variable {f.pool.obj(int(true[i, j]))!r} to a key the formula " \
                   "without the breaking has no variable for"
    flat = images.reshape(len(leaders) * len(unbroken.maps), width)
    # one row per distinct member of each orbit, in order: drop a row equal to an earlier one of its orbit
    # (compared within orbits only, a few rows each: no sort of all the rows)
    first = np.ones(images.shape[:2], np.bool_)
    for g in range(1, images.shape[1]):
        first[:, g] = ~(images[:, g, None, :] == images[:, :g, :]).all(axis=2).any(axis=1)
    return flat[first.reshape(-1)], first.sum(axis=1)


def member_clauses(full: CnfFormulation, rows: np.ndarray) -> list[list[int]]:
    """The blocking clause of each member (its true variables' rows): over its true variables alone when
    ``full`` blocks so (the orbits proof is then far smaller, and ``certificate.members_failure`` checks that
    propagation fixes the rest), else over every projection variable."""
    import numpy as np

    if full.block_true_only:
        return [[-v for v in row if v] for row in rows.tolist()]
    projection = np.asarray(full.projection, np.int64)
    true = np.zeros(int(projection.max(initial=0)) + 1, np.bool_)
    clauses = []
    for row in rows:
        true[row] = True
        clauses.append(np.where(true[projection], -projection, projection).tolist())
        true[row] = False
    return clauses


@dataclass
class OrbitCount:
    """The orbits of a certificate's blocked assignments, expanded: the count (the sum of the orbits'
    sizes), each member's blocking clause over the unbroken formula (when there is one), or a failure."""

    solutions: int = 0
    failure: str = ""
    seen: dict[Hashable, int] = field(default_factory=dict)  # each solution (frozen) -> its blocked assignment
    firsts: list[int] = field(default_factory=list)  # where each orbit's members begin in ``members``
    rows: np.ndarray | None = field(default=None, repr=False)  # each member's true variables (``member_rows``)
    unbroken: CnfFormulation | None = field(default=None, repr=False)  # the formula the members are of

    @cached_property
    def members(self) -> list[list[int]]:
        """Each member's blocking clause over the unbroken formula (``member_clauses``), made when first asked:
        a judge that checks only each orbit's first member (``certificate.members_failure``) and proves no
        orbits never asks for them all."""
        return self.chosen(range(len(self.rows))) if self.rows is not None else []

    def chosen(self, numbers: Sequence[int]) -> list[list[int]]:
        """The blocking clauses of the members numbered ``numbers`` (0-based, as ``firsts`` numbers them)."""
        if self.rows is None or self.unbroken is None:
            return []
        if "members" in self.__dict__:
            return [self.members[i] for i in numbers]
        return member_clauses(self.unbroken, self.rows[list(numbers)])


def expand(f: CnfFormulation, unbroken: Unbroken | None, blocking: list[list[int]], puzzle: Puzzle,
           instance: Instance, accepted: set[Hashable] | None = None, memo: Decoded | None = None,
           imaged: Decoded | None = None, known: dict[int, tuple[Any, Hashable]] | None = None) -> OrbitCount:
    """Expand each blocked assignment's orbit as the run counted it (``images``) and check it: every image
    a solution the rule verifier accepts, no solution in two orbits. With ``unbroken``, also on the
    variables (``member_rows``): each orbit there has as many distinct members as it has solutions, and no
    member is in two orbits, so the members (whose models are ``solvers.proof.models``'s to check, and
    which the orbits proof shows to be every projection of a model) number exactly the solutions counted.
    ``accepted``: the solutions (frozen) the verifier accepted already, which it is not asked again;
    ``memo``: each clause decoded already (``decoded``); ``imaged``: each clause's decoding expanded already
    (``stands_for``, as the search did: ``Certificate.adopt_searched``); ``known``: solutions frozen already, by
    their objects' ids (``Certificate.frozen``), each taken only for that very object."""
    found = OrbitCount()
    owner, sizes, leaders = found.seen, [], []
    for i, clause in enumerate(blocking, 1):
        images = imaged.get(tuple(clause)) if imaged else None
        orbit: dict[Hashable, Any] = {}
        for s in images if images is not None else f.stands_for(decoded(f, clause, memo)):
            entry = known.get(id(s)) if known else None
            orbit[entry[1] if entry is not None and entry[0] is s else freeze(s)] = s
        for frozen, solution in orbit.items():
            problem = solution_problem(puzzle, instance, solution, frozen, owner, i, accepted)
            if problem:
                return OrbitCount(failure=f"blocked assignment {i}: {problem}")
        found.solutions += len(orbit)
        sizes.append(len(orbit))
        leaders.append(sorted(-lit for lit in clause if lit < 0))
    if unbroken is None or not blocking:
        return found
    rows = member_rows(unbroken, f, leaders)
    if isinstance(rows, str):
        return OrbitCount(failure=f"an orbit member: {rows}")
    members, distinct = rows
    if failure := orbits_failure(sizes, distinct, members):
        return OrbitCount(failure=failure)
    found.rows, found.unbroken = members, unbroken.formulation
    found.firsts = [0, *distinct.cumsum()[:-1].tolist()]
    return found


def orbits_failure(sizes: list[int], distinct: np.ndarray, members: np.ndarray) -> str:
    """Why the orbits on the variables (``member_rows``: each orbit's ``distinct`` members, and all the
    orbits' ``members``) are not the orbits the run counted (each of ``sizes`` solutions): an orbit of
    another size, or a member in two orbits (empty when they are)."""
    for i, (n, m) in enumerate(zip(sizes, distinct.tolist(), strict=True), 1):
        if n != m:
            return f"blocked assignment {i}: its orbit on the variables ({m} assignments) is not its orbit of {n} " \
                   "solutions"
    if distinct_rows(members) != len(members):
        return "two orbits on the variables share an assignment"
    return ""


def distinct_rows(rows: np.ndarray) -> int:
    """How many distinct rows ``rows`` has: each row read as one opaque value (its bytes), so that one sort of
    values does what ``np.unique(axis=0)``'s sort of rows does, several times faster."""
    import numpy as np

    if not rows.shape[1]:  # rows of nothing: all equal
        return min(len(rows), 1)
    packed = np.ascontiguousarray(rows)
    return len(np.unique(packed.view(np.dtype((np.void, packed.dtype.itemsize * packed.shape[1]))).ravel()))


def solution_problem(puzzle: Puzzle, instance: Instance, solution: Any, frozen: Hashable,
                     owner: dict[Hashable, int], i: int, accepted: set[Hashable] | None = None) -> str | None:
    """Why a member of blocked assignment ``i``'s orbit is not a new solution (``owner``: the orbit each
    solution so far belongs to; ``accepted``: as for ``expand``)."""
    if accepted is None or frozen not in accepted:
        if problems := puzzle.verify(instance, solution):
            return f"a member of its orbit is not a solution: {problems[0]}"
        if accepted is not None:
            accepted.add(frozen)
    if (first := owner.setdefault(frozen, i)) != i:  # an orbit's solutions are distinct (``expand``'s dict)
        return f"it stands for a solution that blocked assignment {first} stands for too"
    return None
