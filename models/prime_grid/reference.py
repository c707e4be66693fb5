"""The seed's depth-first search for prime-sum grids, made iterative.

Cells are filled left to right, top to bottom. A value may go into a cell when it is not used yet
and its sums with the left and the upper neighbour (the only neighbours already filled) are in a
prime table; a used-array gives distinctness. The seed recurses once per cell and counts the
fillings; here the choice points live on an explicit stack and every filling is yielded.

Events (see ``gridsat.models.search``): "place" and "remove" of a value in the n-th cell of the
row-major order at depth n, ``what`` = ``[r, c, value]``; the veto is honoured.
"""

from __future__ import annotations

from collections.abc import Iterator

from gridsat.models.prime_grid.grid import Filling, Grid, primes
from gridsat.models.search import Algorithm, Halt, Listener

POLL = 1 << 14  # loop turns between looks at the clock


def fillings(grid: Grid, stop: Halt, listen: Listener | None = None) -> Iterator[Filling]:
    """Every filling of ``grid``, in the seed's search order (values tried in increasing order)."""
    rows, cols, low, high = grid.rows, grid.cols, grid.low, grid.high
    size = rows * cols
    table = primes(2 * high)
    prime = bytearray(2 * high + 1)
    for p in table:
        prime[p] = 1
    used = bytearray(high + 1)
    cells = [0] * size
    trial = [low] * size  # the next value to try in each cell
    pos, turns = 0, 0
    while True:
        turns += 1
        if turns % POLL == 0 and stop.expired():
            return
        if pos == size:
            filling = [cells[r * cols : (r + 1) * cols] for r in range(rows)]
            if listen is not None:
                listen("solution", size, filling)
            yield filling
            pos -= 1
            used[cells[pos]] = 0
            if listen is not None:
                listen("remove", pos + 1, [*divmod(pos, cols), cells[pos]])
            continue
        left = cells[pos - 1] if pos % cols else 0
        up = cells[pos - cols] if pos >= cols else 0
        v = trial[pos]
        while v <= high and (used[v] or (left and not prime[left + v]) or (up and not prime[up + v])):
            v += 1
        if v <= high:
            cells[pos], used[v], trial[pos] = v, 1, v + 1
            if listen is not None and listen("place", pos + 1, [*divmod(pos, cols), v]) is False:
                used[v] = 0  # vetoed: try the next value in this cell
                listen("remove", pos + 1, [*divmod(pos, cols), v])
                continue
            pos += 1
            if pos < size:
                trial[pos] = low
            continue
        if pos == 0:
            return
        pos -= 1
        used[cells[pos]] = 0
        if listen is not None:
            listen("remove", pos + 1, [*divmod(pos, cols), cells[pos]])


ALGORITHMS = {
    "dfs": Algorithm("dfs", "the seed's row-major depth-first search with a prime table and a used-array", fillings),
}
