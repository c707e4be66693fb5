"""What the rules say about cells and values, and the redundant knowledge drawn from them: the
neighbour pairs, the checkerboard colours and parity phases, each cell's candidate values."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache

from gridsat.models.formulation import Key
from gridsat.models.prime_grid.grid import Cell, Grid, Phase, primes


def edges(grid: Grid) -> Iterator[tuple[Cell, Cell]]:
    """Every orthogonally adjacent pair of cells, once: right and down neighbours."""
    for r, c in grid.cells():
        if c + 1 < grid.cols:
            yield (r, c), (r, c + 1)
        if r + 1 < grid.rows:
            yield (r, c), (r + 1, c)


def colour(cell: Cell) -> int:
    """The checkerboard colour: 0 for the colour of cell (0, 0)."""
    return (cell[0] + cell[1]) % 2


@cache
def phases(grid: Grid) -> tuple[Phase, ...]:
    """The checkerboard phases with enough values of each parity for each colour class."""
    cells = [0, 0]
    for cell in grid.cells():
        cells[colour(cell)] += 1
    supply = [0, 0]
    for v in grid.values():
        supply[v % 2] += 1
    return tuple(p for p in (1, 0) if cells[0] <= supply[p] and cells[1] <= supply[1 - p])


def candidates(grid: Grid, cell: Cell, parity: bool) -> list[int]:
    """The values cell may hold: all of them, or with parity those some possible phase allows.

    When no phase is possible there is no filling; the rules alone say so, so nothing is restricted.
    """
    if not parity or not phases(grid):
        return list(grid.values())
    allowed = {phase ^ colour(cell) for phase in phases(grid)}
    return [v for v in grid.values() if v % 2 in allowed]


def partners(grid: Grid, value: int, others: list[int]) -> list[int]:
    """The values among ``others`` that may sit next to ``value``: distinct, with a prime sum."""
    table = primes(2 * grid.high)
    return [w for w in others if w != value and value + w in table]


def everywhere(grid: Grid, parity: bool) -> set[int]:
    """The values every filling uses (pigeonhole), so "at most once" may become "exactly once".

    With as many values as cells every value is used. With parity and a forced phase, the same holds
    for a colour class with as many cells as values of its parity (each is a candidate there only).
    """
    cells = list(grid.cells())
    used = set(grid.values()) if len(cells) == len(grid.values()) else set()
    if parity and len(phases(grid)) == 1:
        for k in (0, 1):
            group = [cell for cell in cells if colour(cell) == k]
            if group and len(group) == len(candidates(grid, group[0], True)):
                used.update(candidates(grid, group[0], True))
    return used


def phase_guard(grid: Grid, parity: bool) -> bool:
    """Whether a phase variable is needed: parity on and both phases possible."""
    return parity and len(phases(grid)) == 2


def by_value(grid: Grid, x: Mapping[Key, object]) -> dict[int, list]:
    """The one-hot variables grouped by the value they place."""
    groups: dict[int, list] = {}
    for key, var in x.items():
        groups.setdefault(key[3], []).append(var)
    return groups
