"""A filling checked from the rules (``verify``) and written as text (``render``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import chain
from operator import add

from gridsat.models.formulation import picker
from gridsat.models.prime_grid.grid import Filling, Grid, primes
from gridsat.models.prime_grid.rules import edges


def verify(grid: Grid, filling: Filling) -> list[str]:
    """The rules a filling breaks, checked from the definition (not from any encoding).

    A quick pass accepts a good filling; anything it doubts goes through ``problems`` for the reasons.
    """
    # Every step is one call into C (no Python loop over the cells): this runs for every solution
    # of every backend, so it is the floor of the per-solution cost.
    if (
        type(filling) is list
        and len(filling) == grid.rows
        and set(map(type, filling)) == LIST
        and set(map(len, filling)) == {grid.cols}
    ):
        flat = list(chain.from_iterable(filling))
        first, second = neighbours(grid)
        if (
            set(map(type, flat)) == INT
            and len(set(flat)) == len(flat)
            and grid.low <= min(flat)
            and max(flat) <= grid.high
            and primes(2 * grid.high).issuperset(map(add, first(flat), second(flat)))
        ):
            return []
    return problems(grid, filling)


LIST, INT = {list}, {int}


@cache
def neighbours(grid: Grid) -> tuple[Callable[[list[int]], tuple[int, ...]], ...]:
    """Two pickers that take a flat filling to the first and to the second ends of every edge."""
    ends = [(r1 * grid.cols + c1, r2 * grid.cols + c2) for (r1, c1), (r2, c2) in edges(grid)]
    return tuple(picker([pair[k] for pair in ends]) for k in (0, 1))


def problems(grid: Grid, filling: Filling) -> list[str]:
    """Every broken rule, each named: shape, range, distinctness, adjacent sums."""
    shape = shape_problems(grid, filling)
    if shape:
        return shape
    flat = [v for row in filling for v in row]
    table = primes(2 * grid.high)
    found = [f"value {v} at {list(divmod(i, grid.cols))} is outside {grid.low}..{grid.high}"
             for i, v in enumerate(flat) if not grid.low <= v <= grid.high]
    if len(set(flat)) != len(flat):
        repeated = sorted({v for v in flat if flat.count(v) > 1})
        found.append(f"values used more than once: {repeated}")
    for (r1, c1), (r2, c2) in edges(grid):
        a, b = filling[r1][c1], filling[r2][c2]
        if a + b not in table:
            found.append(f"{a} at {[r1, c1]} and {b} at {[r2, c2]} sum to {a + b}, not a prime")
    return found


def shape_problems(grid: Grid, filling: Filling) -> list[str]:
    """Whether a filling is R rows of C integers."""
    if not isinstance(filling, (list, tuple)) or len(filling) != grid.rows:
        return [f"expected {grid.rows} rows, got {filling!r}"]
    for r, row in enumerate(filling):
        if not isinstance(row, (list, tuple)) or len(row) != grid.cols:
            return [f"row {r} should hold {grid.cols} values: {row!r}"]
        if any(type(v) is not int for v in row):
            return [f"row {r} holds a value that is not an integer: {row!r}"]
    return []


def render(grid: Grid, filling: Filling) -> str:
    """The grid as right-aligned columns of numbers."""
    width = len(str(grid.high))
    return "\n".join(" ".join(f"{v:>{width}}" for v in row) for row in filling)
