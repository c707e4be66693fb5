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

The axis is open (``BREAKINGS``, models/registries.py): ``encoding("name", group)`` registers another way
to write the comparison, ``leq(sink, xs, ys)`` requiring x <=lex y in a ``Formula`` (integer literals) or a
``Model`` (Booleans) as ``lex_leq`` does (a ``None`` in ys is the constant false; in a ``Model`` every
kept assignment must have exactly one extension to the auxiliaries, since CP-SAT lists them all). It
breaks the group a puzzle names ``group`` (``symmetry``: its board motions), so it is a choice of every
formulation built with ``breaking`` whose puzzle declares that group, whenever it is registered.
Prime-grid writes its own leader inequalities, and its axis stays its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from gridsat.models.constraints.lex import lex_leq
from gridsat.models.encoding import Axis, Encoding
from gridsat.models.errors import InvalidOption
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Images, Key, Solution
from gridsat.models.registries import Registry
from gridsat.models.symmetry import Element, Group, NotPermutable

NO = "nosymmetry"
FAMILY = "lex leader"
F = TypeVar("F", CnfFormulation, CpsatFormulation)
Groups = Mapping[str, Callable[[Any], Group]]
Leq = Callable[[Any, Sequence[Any], Sequence[Any]], object]


@dataclass(frozen=True)
class Breaking:
    """A registered symmetry-breaking encoding: the lex-leader constraint of the puzzle's group named
    ``group``, each comparison x <=lex x o g written by ``leq`` (see the module)."""

    group: str
    leq: Leq


# Open: every ``symmetry`` axis of a puzzle that declares the group offers it, whenever it is registered.
BREAKINGS: Registry[Breaking] = Registry("symmetry-breaking encoding", "symmetry")


def encoding(name: str, group: str = "symmetry") -> Callable[[Leq], Leq]:
    """Register ``leq(sink, xs, ys)`` as the symmetry-breaking encoding ``name`` of the group ``group``."""
    enter = BREAKINGS.entry(name)

    def register(leq: Leq) -> Leq:
        enter(Breaking(group, leq))
        return leq

    return register


class BreakingsOffered(Mapping[str, Breaking]):
    """The registered encodings of the groups a puzzle declares, read live (an open axis's registry)."""

    what = BREAKINGS.what

    def __init__(self, groups: frozenset[str]) -> None:
        self.groups = groups

    def __getitem__(self, name: str) -> Breaking:
        found = BREAKINGS[name]
        if found.group not in self.groups:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return (name for name, found in list(BREAKINGS.items()) if found.group in self.groups)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    @property
    def needs(self) -> dict[str, frozenset[str]]:
        return {name: BREAKINGS.needs[name] for name in self}


@functools.cache
def offered(groups: frozenset[str]) -> BreakingsOffered:
    """One view per set of groups, so that axes built from the same groups are equal."""
    return BreakingsOffered(groups)


def axis(groups: Iterable[str], default: str = NO, registered: bool = True) -> Axis:
    """The ``symmetry`` axis: ``nosymmetry`` and one choice per group named, ``default`` first; then
    (``registered``) every encoding registered for one of those groups, now or later."""
    named = list(groups)
    choices = [NO, *named]
    return Axis("symmetry", (default, *(c for c in choices if c != default)), exact=NO,
                registry=offered(frozenset(named)) if registered else None)


def breaking(build: Callable[[Any, Encoding], F], groups: Groups) -> Callable[[Any, Encoding], F]:
    """``build`` with the lex-leader constraints of the group its encoding's ``symmetry`` choice names, or
    of the group a registered encoding breaks, written its way."""

    def formulate(instance: Any, encoding: Encoding) -> F:
        formulation = build(instance, encoding)
        choice = encoding["symmetry"]
        if choice == NO:
            return formulation
        way = Breaking(choice, lex_leq) if choice in groups else BREAKINGS[choice]
        group = groups[way.group](instance)
        return broken(formulation, group, choice, way.leq) if len(group) > 1 else formulation

    return formulate


def broken(f: F, group: Group, choice: str, leq: Leq = lex_leq) -> F:
    """``f`` keeping only the lex-leader of each orbit of ``group`` (each comparison written by ``leq``),
    listing the orbit through ``images``."""
    keys = f.keys if isinstance(f, CnfFormulation) else list(f.primary)
    for element in group.elements[1:]:
        try:
            moved = moves(keys, element)
        except NotPermutable as error:
            raise InvalidOption(f"the {choice} encoding cannot break {element.name}: {error}") from None
        with f.notes.family(FAMILY):
            if isinstance(f, CnfFormulation):
                leader_cnf(f, moved, leq)
            else:
                leader_cpsat(f, moved, leq)
    if isinstance(f, CnfFormulation):
        f.cnf.nv = max(f.cnf.nv, f.pool.top)
    return replace(f, images=orbit_of(group), orbit_size=0, orbits_of=choice)


def moves(keys: list[Key], element: Element) -> list[tuple[Key, Key]]:
    """Each key ``element`` moves, in order, with the key whose value its image takes there."""
    return [(key, image) for key in keys if (image := element.key(key)) != key]


def leader_cnf(f: CnfFormulation, moved: list[tuple[Key, Key]], leq: Leq = lex_leq) -> None:
    """x <=lex x o g in clauses, written through the formulation's Formula; an image with no variable is
    the constant false."""
    index = dict(zip(f.keys, f.projection, strict=True))
    leq(f.notes, [index[k] for k, _ in moved], [index.get(image) for _, image in moved])


def leader_cpsat(f: CpsatFormulation, moved: list[tuple[Key, Key]], leq: Leq = lex_leq) -> None:
    """x <=lex x o g over the primary Booleans, written through the formulation's Model."""
    leq(f.notes, [f.primary[k] for k, _ in moved], [f.primary.get(image) for _, image in moved])


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
