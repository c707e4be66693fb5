"""The classic backtracking search for N-Queens: rows top to bottom, columns left to right.

Independent of both formulations: it keeps the columns and diagonals in use and yields every
placement. The choice points live on an explicit stack, and it polls ``stop`` so that a time limit
or Ctrl-C ends it with a correct partial count.
"""

from __future__ import annotations

from collections.abc import Iterator

from gridsat.plugin import Algorithm, Halt
from gridsat_nqueens import Board, Placement

POLL = 1 << 12  # loop turns between looks at the clock


def placements(board: Board, stop: Halt) -> Iterator[Placement]:
    """Every placement, in lexicographic order of the columns."""
    n = board.size
    cols, row, turns = [-1] * n, 0, 0
    used_col, used_diag, used_anti = [False] * n, [False] * (2 * n), [False] * (2 * n)
    while row >= 0:
        turns += 1
        if turns % POLL == 0 and stop.expired():
            return
        c = cols[row]
        if c >= 0:  # lift the queen of this row before trying the next column
            used_col[c] = used_diag[row + c] = used_anti[row - c + n] = False
        c += 1
        while c < n and (used_col[c] or used_diag[row + c] or used_anti[row - c + n]):
            c += 1
        if c == n:
            cols[row] = -1
            row -= 1
            continue
        cols[row] = c
        used_col[c] = used_diag[row + c] = used_anti[row - c + n] = True
        if row == n - 1:
            yield list(cols)
        else:
            row += 1


ALGORITHMS = {
    "backtrack": Algorithm("backtrack", "row by row, columns in order, with used columns and diagonals", placements),
}
