"""The board's symmetries on fillings: orbits, the lexicographic leaders the ``symmetry`` encoding
keeps, and the group a count up to symmetry uses (see this package's docstring)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from gridsat.models.encoding import Encoding
from gridsat.models.formulation import Images, Key, picker
from gridsat.models.prime_grid.grid import Cell, Filling, Grid
from gridsat.models.symmetry import Element, Group, Motion, Permutation, board_group, motions


@cache
def symmetries(grid: Grid) -> tuple[Permutation, ...]:
    """The distinct cell permutations of the board's rotations and reflections, identity first."""
    return tuple(move.permutation() for move in motions(grid.rows, grid.cols))


def leader_orders(grid: Grid) -> list[tuple[Cell, Cell]]:
    """Pairs (p, q) with value(p) < value(q) that keep exactly the lexicographic leader of each orbit."""
    pairs: dict[tuple[Cell, Cell], None] = {}
    for image in symmetries(grid)[1:]:
        first = next(i for i, j in enumerate(image) if i != j)
        source = image.index(first)  # g^-1(first)
        pairs.setdefault((divmod(first, grid.cols), divmod(source, grid.cols)), None)
    return list(pairs)


def orbit(grid: Grid, filling: Filling) -> list[Filling]:
    """The images of a filling under every symmetry of the board (all distinct, itself first)."""
    flat = [v for row in filling for v in row]
    return [rows_of(grid, gather(flat)) for gather in gatherers(grid)]


def rows_of(grid: Grid, flat: tuple[int, ...]) -> Filling:
    """A flat row-major filling cut into rows."""
    return [list(flat[start : start + grid.cols]) for start in range(0, len(flat), grid.cols)]


@cache
def gatherers(grid: Grid) -> tuple[Callable[[list[int]], tuple[int, ...]], ...]:
    """Per symmetry, a picker that takes a flat filling to its flat image (cell j gets x[g^-1(j)])."""
    inverses = []
    for image in symmetries(grid):
        inverse = [0] * len(image)
        for i, j in enumerate(image):
            inverse[j] = i
        inverses.append(picker(inverse))
    return tuple(inverses)


def images(grid: Grid, encoding: Encoding) -> Images | None:
    """The formulation's ``images`` when it keeps one filling per orbit, else None."""
    if encoding["symmetry"] != "symmetry" or len(symmetries(grid)) == 1:
        return None
    return lambda filling: orbit(grid, filling)


def orbits(grid: Grid, encoding: Encoding) -> dict[str, Any]:
    """A formulation's ``images``, ``orbit_size`` and ``orbits_of``: one model per orbit of that many
    fillings under the board's symmetries, or per filling."""
    if (found := images(grid, encoding)) is None:
        return {"images": None}
    return {"images": found, "orbit_size": len(symmetries(grid)), "orbits_of": "symmetry"}


def group(grid: Grid) -> Group:
    """Every rotation and reflection: a moved filling keeps its values, its range and its neighbours.

    The ``symmetry`` encoding keeps exactly the lexicographic leader of each orbit (see above), and
    that leader is the representative an orbit count prints (the smallest filling, read row by row),
    so counting orbits needs no images: solvers/orbits/counting.py counts the leaders themselves.
    """
    pickers = dict(zip(symmetries(grid), gatherers(grid), strict=True))

    def element(move: Motion) -> Element:
        gather = pickers[move.permutation()]

        def filling(f: Filling) -> Filling:
            return rows_of(grid, gather([v for row in f for v in row]))

        def key(k: Key) -> Key:
            # (tag, r, c, ...) in the Boolean models ("x": one-hot, "ge": order, "bit": log); (r, c): integers
            return (k[0], *move(k[1:3]), *k[3:]) if isinstance(k[0], str) else move(k)

        return Element(move.name, filling, key)

    return board_group(grid.rows, grid.cols, element, unbroken=("nosymmetry",))


def keeps_leaders(grid: Grid, encoding: Encoding) -> list[tuple[Cell, Cell]]:
    """The leader inequalities the encoding asks for (none without symmetry breaking)."""
    return leader_orders(grid) if images(grid, encoding) else []
