"""Symmetry as data: the rotations and reflections of a board, and the groups puzzles build from them.

A puzzle declares, for each kind of counting "up to" it offers (``symmetry``; for knight's tours also
``reversal``), a function from an instance to the ``Group`` of elements that map that instance onto
itself (``Puzzle.symmetry``). An ``Element`` knows two things:

* ``solution``: how it maps a canonical solution, to the canonical form of the image (a reflected
  tiling sorted again, a rotated closed tour re-rooted at the root square);
* ``key``: how it maps a formulation's primary variables, key to key, so that the solutions it
  fixes are exactly those with x[k] == x[g(k)] for every primary key k (``fix_cpsat``, ``fix_cnf``).
  A key with no variable in the formulation stands for a fact the formulation rules out (a value a
  cell may not hold), so its preimage must be false. An element that cannot map a formulation's
  variables one to one raises ``NotPermutable``.

The board motions are D4 (8 elements) on a square board and D2 (4: identity, the two mirrors and
the half turn) otherwise, each written as "transpose?, then reverse the rows?, then reverse the
columns?". Only distinct maps of the cells are kept: on a 1xN row the up-down mirror moves no cell,
so it is the identity and is listed once (under that name); on a 1x1 board only the identity is left.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from gridsat.models.errors import InvalidOption
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key, Solution
from gridsat.models.solution import freeze

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]  # (top, left, height, width)
Permutation = tuple[int, ...]  # image[i] = the row-major index of the cell that cell i goes to

# (transpose, reverse rows, reverse columns) -> name. Rows are numbered from the top, so reversing
# the rows is the up-down mirror; transposing then reversing the columns sends the top-left
# corner to the top-right one, a quarter turn clockwise.
NAMES = {
    (False, False, False): "identity",
    (False, False, True): "mirror-lr",
    (False, True, False): "mirror-ud",
    (False, True, True): "rot180",
    (True, False, False): "transpose",
    (True, False, True): "rot90",
    (True, True, False): "rot270",
    (True, True, True): "antitranspose",
}


class NotPermutable(InvalidOption):
    """An element that does not map this formulation's variables one to one (so Burnside cannot use it)."""


@dataclass(frozen=True)
class Motion:
    """A rotation or reflection of an R x C board, as a map of its cells."""

    rows: int
    cols: int
    transpose: bool
    flip_rows: bool
    flip_cols: bool

    @property
    def name(self) -> str:
        return NAMES[self.transpose, self.flip_rows, self.flip_cols]

    def __call__(self, cell: Cell) -> Cell:
        r, c = cell
        if self.transpose:  # only on square boards, so the sizes below stay right
            r, c = c, r
        return (self.rows - 1 - r if self.flip_rows else r, self.cols - 1 - c if self.flip_cols else c)

    @functools.cached_property
    def table(self) -> list[list[Cell]]:
        """Each cell's image by row and column: a lookup is several times faster than a call, and
        an orbit count maps every square of every solution through every element."""
        return [[self((r, c)) for c in range(self.cols)] for r in range(self.rows)]

    def rect(self, rect: Rect) -> Rect:
        """The image of a rectangle (top, left, height, width): the box of its two mapped corners."""
        top, left, height, width = rect
        (r1, c1), (r2, c2) = self((top, left)), self((top + height - 1, left + width - 1))
        return min(r1, r2), min(c1, c2), abs(r1 - r2) + 1, abs(c1 - c2) + 1

    def permutation(self) -> Permutation:
        """Where each cell goes, by row-major index."""
        return tuple(r * self.cols + c for r, c in map(self, itertools.product(range(self.rows), range(self.cols))))

    @property
    def is_identity(self) -> bool:
        return self.permutation() == tuple(range(self.rows * self.cols))


@functools.cache
def motions(rows: int, cols: int) -> tuple[Motion, ...]:
    """The distinct rotations and reflections of an R x C board (D4 if square, else D2), identity first."""
    found: dict[Permutation, Motion] = {}
    for flags in itertools.product((False, True) if rows == cols else (False,), (False, True), (False, True)):
        motion = Motion(rows, cols, *flags)
        found.setdefault(motion.permutation(), motion)
    return tuple(found.values())


@dataclass(frozen=True)
class Element:
    """One symmetry of an instance: its action on canonical solutions and on primary variables."""

    name: str
    solution: Callable[[Solution], Solution]
    key: Callable[[Key], Key]


@dataclass(frozen=True)
class Group:
    """The elements that map an instance onto itself, identity first.

    ``left_out`` names the board symmetries that move the instance (``why`` says how, as a verb
    phrase: "move the clues"); ``unbroken`` are
    encoding choices under which a formulation keeps every solution instead of one per orbit, for
    counting the solutions an element fixes.
    """

    elements: tuple[Element, ...]
    left_out: tuple[str, ...] = ()
    why: str = ""
    unbroken: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.elements)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.elements]

    @property
    def note(self) -> str | None:
        """What the user should know about the group: the symmetries it leaves out, and why."""
        if not self.left_out:
            return None
        total = len(self) + len(self.left_out)
        return f"{len(self)} of {total} symmetries kept ({', '.join(self.names)}): the others {self.why}"

    def orbit(self, solution: Solution) -> dict[Hashable, Solution]:
        """A solution's distinct images (its orbit), each under its frozen canonical form, itself first."""
        images = {freeze(solution): solution}
        for element in self.elements[1:]:
            image = element.solution(solution)
            images.setdefault(freeze(image), image)
        return images


def board_group(rows: int, cols: int, element: Callable[[Motion], Element | None], why: str = "",
                unbroken: tuple[str, ...] = ()) -> Group:
    """The board motions that ``element`` turns into elements; a None is a motion that moves the instance."""
    kept, left_out = [], []
    for motion in motions(rows, cols):
        built = element(motion)
        if built is None:
            left_out.append(motion.name)
        else:
            kept.append(built)
    return Group(tuple(kept), tuple(left_out), why, unbroken)


def pairs(keys: Iterable[Key], element: Element) -> Iterable[tuple[Key, Key]]:
    """Each primary key with its image, once per unordered pair, skipping keys the element fixes."""
    seen: set[frozenset[Key]] = set()
    for key in keys:
        image = element.key(key)
        if image != key and (pair := frozenset((key, image))) not in seen:
            seen.add(pair)
            yield key, image


def unbroken(f: CpsatFormulation | CnfFormulation, element: Element) -> None:
    """A formulation that keeps one solution per orbit cannot count the solutions an element fixes."""
    if f.images is not None:
        raise InvalidOption(f"counting the solutions {element.name} fixes needs an encoding that keeps every "
                            "solution, not one per orbit")


def fix_cpsat(f: CpsatFormulation, element: Element) -> CpsatFormulation:
    """Add x[k] == x[g(k)] for every primary variable: the model's solutions become those g fixes."""
    unbroken(f, element)
    for key, image in pairs(list(f.primary), element):
        other = f.primary.get(image)
        f.model.Add(f.primary[key] == (0 if other is None else other))
    return f


def fix_cnf(f: CnfFormulation, element: Element) -> CnfFormulation:
    """Add x[k] <-> x[g(k)] for every projection variable: the CNF's models become those g fixes."""
    unbroken(f, element)
    index = dict(zip(f.keys, f.projection, strict=True))
    for key, image in pairs(f.keys, element):
        a, b = index[key], index.get(image)
        f.cnf.extend([[-a]] if b is None else [[-a, b], [a, -b]])
    return f
