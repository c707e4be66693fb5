"""Static symmetry breaking: a formulation that keeps one solution per orbit of the puzzle's own group.

The ``symmetry`` axis names a group the puzzle declares for counting up to symmetry
(``Puzzle.symmetry``, models/symmetry.py): ``symmetry`` (the board motions that map the instance onto
itself, and for knight's tours each with and without reversing the tour) or, for knight's tours,
``reversal`` (a tour and its reverse); ``nosymmetry`` adds nothing. For every element g of the group
but the identity, the formulation gets the lex-leader constraint of Crawford, Ginsberg, Luks and Roy
(KR 1996), x <=lex x o g, over the puzzle's primary variables in the formulation's own order (a CNF's
projection, a CP-SAT model's ``primary``), written by models/constraints/lex.py through the
formulation's own ``Formula`` or ``Model`` (its ``notes``), in the family ``lex leader``. Because those
variables stand for a solution one to one, and g maps them one to one (``Element.key``), the assignment
kept is the lexicographically smallest of its orbit: exactly one solution per orbit, as many as
Burnside's lemma counts.

Such a formulation lists each orbit through ``images`` (the distinct images of the kept solution under
the group), so a run still counts and lists every solution, while the solver finds one per orbit; an orbit count
(``--up-to``) counts the kept solutions themselves (solvers/orbits/counting.py). Orbits differ in size (a
symmetric tiling has fewer images), so ``orbit_size`` is 0: a model count of such a formula counts
orbits, and the counting backends refuse it.

An element that cannot map the formulation's variables (a closed tour's ``position`` steps, numbered
from a root square that a rotation moves) refuses the encoding in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from gridsat.models.constraints.lex import lex_leq
from gridsat.models.encoding import Axis, Encoding
from gridsat.models.errors import InvalidOption
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Images, Key, Solution
from gridsat.models.symmetry import Element, Group, NotPermutable

NO = "nosymmetry"
FAMILY = "lex leader"
F = TypeVar("F", CnfFormulation, CpsatFormulation)
Groups = Mapping[str, Callable[[Any], Group]]


def axis(groups: Iterable[str], default: str = NO) -> Axis:
    """The ``symmetry`` axis: ``nosymmetry`` and one choice per group named, ``default`` first."""
    choices = [NO, *groups]
    return Axis("symmetry", (default, *(c for c in choices if c != default)), exact=NO)


def breaking(build: Callable[[Any, Encoding], F], groups: Groups) -> Callable[[Any, Encoding], F]:
    """``build`` with the lex-leader constraints of the group its encoding's ``symmetry`` choice names."""

    def formulate(instance: Any, encoding: Encoding) -> F:
        formulation = build(instance, encoding)
        choice = encoding["symmetry"]
        if choice == NO:
            return formulation
        group = groups[choice](instance)
        return broken(formulation, group, choice) if len(group) > 1 else formulation

    return formulate


def broken(f: F, group: Group, choice: str) -> F:
    """``f`` keeping only the lex-leader of each orbit of ``group``, listing the orbit through ``images``."""
    keys = f.keys if isinstance(f, CnfFormulation) else list(f.primary)
    for element in group.elements[1:]:
        try:
            moved = moves(keys, element)
        except NotPermutable as error:
            raise InvalidOption(f"the {choice} encoding cannot break {element.name}: {error}") from None
        with f.notes.family(FAMILY):
            if isinstance(f, CnfFormulation):
                leader_cnf(f, moved)
            else:
                leader_cpsat(f, moved)
    if isinstance(f, CnfFormulation):
        f.cnf.nv = max(f.cnf.nv, f.pool.top)
    return replace(f, images=orbit_of(group), orbit_size=0, orbits_of=choice)


def moves(keys: list[Key], element: Element) -> list[tuple[Key, Key]]:
    """Each key ``element`` moves, in order, with the key whose value its image takes there."""
    return [(key, image) for key in keys if (image := element.key(key)) != key]


def leader_cnf(f: CnfFormulation, moved: list[tuple[Key, Key]]) -> None:
    """x <=lex x o g in clauses, written through the formulation's Formula; an image with no variable is
    the constant false."""
    index = dict(zip(f.keys, f.projection, strict=True))
    lex_leq(f.notes, [index[k] for k, _ in moved], [index.get(image) for _, image in moved])


def leader_cpsat(f: CpsatFormulation, moved: list[tuple[Key, Key]]) -> None:
    """x <=lex x o g over the primary Booleans, written through the formulation's Model."""
    lex_leq(f.notes, [f.primary[k] for k, _ in moved], [f.primary.get(image) for _, image in moved])


def orbit_of(group: Group) -> Images:
    """The distinct images of a solution under ``group``, itself first."""

    def images(solution: Solution) -> list[Solution]:
        return list(group.orbit(solution).values())

    return images


def unbroken_encoding(encoding: Encoding, group: Group) -> Encoding | None:
    """``encoding`` with its ``symmetry`` choice swapped for one that keeps every solution (the group's
    ``unbroken``), or None when it has no such axis or the group names no such choice."""
    choices = dict(encoding.choices)
    if "symmetry" not in choices or not group.unbroken:
        return None
    choices["symmetry"] = group.unbroken[0]
    return Encoding(tuple(choices.items()))
