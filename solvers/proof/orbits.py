"""The whole solution set behind a certificate whose formula keeps one solution per symmetry orbit.

A symmetry-breaking encoding (models/breaking.py, prime-grid's leader inequalities) blocks one assignment
per orbit, and a run counts each as its whole orbit (``CnfFormulation.images``). A proof over that formula
shows only that no other *leader* is left: it says nothing of how many solutions each stands for, nor that
the breaking kept a member of every orbit. So a certificate of such a run also holds

* the orbit of every blocked assignment, found by the puzzle's group acting on the formula's variables
  (``Element.key``) and read in the same formula built without symmetry breaking (``Unbroken``): every
  member is checked like a blocked assignment (a model, a solution the rule verifier accepts), no two
  members of all the orbits are the same solution (so the orbits are disjoint), and each orbit has as
  many members as the run counted for it (``images``);
* a second proof, ``orbits.lrat`` (``orbits.drat`` from a DRAT solver), that the unbroken formula with a
  blocking clause for every member of every orbit is unsatisfiable: those members are all its solutions.
  Where that formula blocks by true variables (``block_true_only``), a member's clause names its true
  variables only, and unit propagation on the formula must set every other projection variable false
  (``certificate.members_failure``): on prime-grid 4x4 the DRAT proof is then 1.3 MB and 45,096 steps
  instead of 43 MB and 139,173.

Then the count, the sum of the orbits' sizes, is proved without trusting the symmetry breaking. A part of a
split run (a cube) gets no such proof, as its orbits leave its cube (``solvers.proof.whole`` proves the
orbits of all the parts together), nor does a lazy formula (its models need cuts, which that proof does not
keep); the count is then said to assume that the breaking keeps a member of every orbit, and never printed
as exact.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.models.breaking import unbroken_encoding
from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import freeze
from gridsat.models.symmetry import Group

ASSUMED = "that the symmetry breaking keeps a member of every orbit (its orbits are not proved to be all)"


@dataclass
class Unbroken:
    """The group whose orbits a formula keeps one member of, the formula built without that breaking,
    and the proof that the orbits' members are all its solutions (empty until proved)."""

    group: Group
    formulation: CnfFormulation
    proof: bytes | Path = b""  # its bytes, or the file check-proof reads it from
    members: list[list[int]] = field(default_factory=list)  # each orbit member's blocking clause, once proved
    moved: list[dict[Key, Key]] = field(default_factory=list, repr=False)  # each element's images of keys so far
    index: dict[Key, int] = field(default_factory=dict, repr=False)  # the formula's projection variable of each key
    all_false: dict[Key, int] = field(default_factory=dict, repr=False)  # its projection, every key 0

    def values_of(self, clause: list[int]) -> dict[Key, int]:
        """``blocked_values`` on the formula without the breaking, copied from one all-false projection
        (a copy keeps its keys' hashes: this runs for every orbit member)."""
        if not self.all_false:
            self.all_false = dict.fromkeys(self.formulation.keys, 0)
        values, obj = self.all_false.copy(), self.formulation.pool.obj
        for literal in clause:
            if literal < 0 and (key := obj(-literal)) in values:
                values[key] = 1
        return values


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


Decoded = dict[tuple[int, ...], tuple[dict[Key, int], Any]]  # a blocking clause -> what it rules out, decoded


def decoded(f: CnfFormulation, clause: list[int], memo: Decoded | None = None) -> tuple[dict[Key, int], Any]:
    """The projection a blocking clause rules out (``blocked_values``) and that projection decoded; ``memo``
    keeps them per clause (a judge reads each blocking clause twice: its evidence, then its orbit)."""
    key = tuple(clause)
    if memo is not None and key in memo:
        return memo[key]
    values = blocked_values(f, clause)
    found = values, f.decode(values)
    if memo is not None:
        memo[key] = found
    return found


def members_of(unbroken: Unbroken, values: dict[Key, int]) -> list[list[int]] | str:
    """The distinct images of an assignment on the unbroken formula's variables, or why one is none."""
    members: dict[tuple[int, ...], list[int]] = {}
    if not unbroken.index:
        unbroken.index = dict(zip(unbroken.formulation.keys, unbroken.formulation.projection, strict=True))
    for image in images(unbroken.group, values, unbroken.formulation, unbroken.moved, unbroken.index):
        if isinstance(image, str):
            return image
        members.setdefault(tuple(image), image)
    return list(members.values())


def images(group: Group, values: dict[Key, int], full: CnfFormulation, moved: list[dict[Key, Key]] | None = None,
           index: dict[Key, int] | None = None) -> Iterator[list[int] | str]:
    """Each element's image of an assignment, as the blocking clause of ``full`` that rules it out (over
    its true variables alone when ``full`` blocks so: the orbits proof is then far smaller, and
    ``certificate.members_failure`` checks that propagation fixes the rest), or the reason it is no
    assignment of ``full`` (a true variable sent to a key ``full`` has no variable for). ``moved``: each
    element's images of keys found so far, kept between calls (every orbit asks the same few); ``index``:
    ``full``'s projection variable of each key (built when not given)."""
    index = index or dict(zip(full.keys, full.projection, strict=True))
    moved = [{} for _ in group.elements] if moved is None else moved
    moved += [{} for _ in group.elements[len(moved):]]
    true_keys = [key for key, value in values.items() if value]
    for element, known in zip(group.elements, moved[:len(group.elements)], strict=True):
        true = set()
        for key in true_keys:
            image = known[key] if key in known else known.setdefault(key, element.key(key))
            if image not in index:
                yield f"{element.name} sends the true variable {key!r} to {image!r}, which has no variable"
                break
            true.add(index[image])
        else:
            if full.block_true_only:
                yield [-v for v in sorted(true)]
            else:
                yield [-v if v in true else v for v in full.projection]


@dataclass
class OrbitCount:
    """The orbits of a certificate's blocked assignments, expanded: the count (the sum of the orbits'
    sizes), each member's blocking clause over the unbroken formula (when there is one), or a failure."""

    solutions: int = 0
    members: list[list[int]] = field(default_factory=list)
    failure: str = ""
    seen: dict[Hashable, int] = field(default_factory=dict)  # each solution (frozen) -> its blocked assignment


def expand(f: CnfFormulation, unbroken: Unbroken | None, blocking: list[list[int]], puzzle: Puzzle,
           instance: Instance, accepted: set[Hashable] | None = None, memo: Decoded | None = None) -> OrbitCount:
    """Expand each blocked assignment's orbit as the run counted it (``images``) and check it: every image
    a solution the rule verifier accepts, no solution in two orbits; with ``unbroken``, also on the
    variables, whose images must decode to the same solutions (their models are ``solvers.proof.models``'s).
    ``accepted``: the solutions (frozen) the verifier accepted already, which it is not asked again; ``memo``:
    each clause decoded already (``decoded``)."""
    found = OrbitCount()
    owner = found.seen
    for i, clause in enumerate(blocking, 1):
        values, leader = decoded(f, clause, memo)
        orbit = {freeze(s): s for s in f.stands_for(leader)}
        for frozen, solution in orbit.items():
            problem = solution_problem(puzzle, instance, solution, frozen, owner, i, accepted)
            if problem:
                return OrbitCount(failure=f"blocked assignment {i}: {problem}")
        found.solutions += len(orbit)
        if unbroken is not None:
            members = members_of(unbroken, values)
            if isinstance(members, str):
                return OrbitCount(failure=f"blocked assignment {i}: {members}")
            read = {freeze(unbroken.formulation.decode(unbroken.values_of(m))) for m in members}
            if read != set(orbit) or len(read) != len(members):
                return OrbitCount(failure=f"blocked assignment {i}: its orbit on the variables ({len(members)} "
                                          f"assignments) is not its orbit of {len(orbit)} solutions")
            found.members += members
    return found


def solution_problem(puzzle: Puzzle, instance: Instance, solution: Any, frozen: Hashable,
                     owner: dict[Hashable, int], i: int, accepted: set[Hashable] | None = None) -> str | None:
    """Why a member of blocked assignment ``i``'s orbit is not a new solution (``owner``: the orbit each
    solution so far belongs to; ``accepted``: as for ``expand``)."""
    if accepted is None or frozen not in accepted:
        if problems := puzzle.verify(instance, solution):
            return f"a member of its orbit is not a solution: {problems[0]}"
        if accepted is not None:
            accepted.add(frozen)
    if frozen in owner:
        return f"it stands for a solution that blocked assignment {owner[frozen]} stands for too"
    owner[frozen] = i
    return None
