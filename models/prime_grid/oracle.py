"""The brute-force oracle: every arrangement of distinct values on the grid, kept when every two
orthogonal neighbours sum to a prime.

Written from the rules alone, for differential testing (``gridsat fuzz``): it shares nothing with the
seed's DFS or the formulations (no parity, no candidate lists, no sieve: primes by trial division).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import permutations
from math import perm

from gridsat.models.errors import InvalidInstance
from gridsat.models.prime_grid.grid import Filling, Grid

MAX_ARRANGEMENTS = 400_000  # permutations tried at most: a few seconds of plain Python


def is_prime(n: int) -> bool:
    """Trial division."""
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def solutions(grid: Grid) -> Iterator[Filling]:
    """Every filling of ``grid`` (rows of values), in no particular order."""
    cells = grid.rows * grid.cols
    values = range(grid.low, grid.high + 1)
    if perm(len(values), cells) > MAX_ARRANGEMENTS:
        raise InvalidInstance(f"grid {grid.rows}x{grid.cols} with values {grid.low}..{grid.high} is too large for "
                              f"the brute-force oracle (more than {MAX_ARRANGEMENTS} arrangements)")
    pairs = [(r * grid.cols + c, r2 * grid.cols + c2)
             for r in range(grid.rows) for c in range(grid.cols)
             for r2, c2 in ((r, c + 1), (r + 1, c)) if r2 < grid.rows and c2 < grid.cols]
    prime = [is_prime(n) for n in range(2 * grid.high + 1)]
    for flat in permutations(values, cells):
        if all(prime[flat[i] + flat[j]] for i, j in pairs):
            yield [list(flat[r * grid.cols:(r + 1) * grid.cols]) for r in range(grid.rows)]


def draw(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A random grid of at most 6 cells with a random range min..max, sometimes too short to fill,
    small enough for the oracle."""
    while True:
        rows = rng.randint(1, 3)
        cols = rng.randint(1, 6 // rows)
        low = rng.randint(1, 12)
        high = low + rng.randint(max(0, rows * cols - 2), rows * cols + 3)
        if perm(high - low + 1, rows * cols) <= MAX_ARRANGEMENTS // 8:
            return f"{rows}x{cols}", {"min": str(low), "max": str(high)}
