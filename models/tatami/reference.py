"""The seed's row-scan search for tatami tilings, made iterative.

The room sits inside a guard band of -1, and every placed mat gets a number. Scanning cells row
by row, a free cell may start a mat only if (up-left, up) or (left, up-left) belong to the same
mat: otherwise up-left, up and left are three different mats and any mat here would be a fourth
at their common corner. The guard band makes those tests and the "is the next cell free" tests
work on the border without special cases. The seed recurses once per cell, so a 30x30 room goes
past Python's recursion limit; here the choice points live on an explicit stack.

Events (see ``gridsat.models.search``): "place" and "remove" of a mat at depth n, the mat's
number in the seed's numbering (the n-th mat on the path), ``what`` its two cells
``[[r, c], [r2, c2]]`` (0-based, the first cell the one the scan stands on); the veto is honoured.
"""

from __future__ import annotations

from collections.abc import Iterator

from gridsat.models.search import Algorithm, Halt, Listener
from gridsat.models.tatami.room import Room, Tiling

GUARD = -1
POLL = 1 << 14  # loop turns between looks at the clock


def tilings(room: Room, stop: Halt, listen: Listener | None = None) -> Iterator[Tiling]:
    """Every tatami tiling of ``room``, in the seed's search order."""
    stride = room.cols + 2
    grid = [GUARD] * (stride * (room.rows + 2))
    for r in range(room.rows):
        for c in range(room.cols):
            grid[(r + 1) * stride + c + 1] = 0
    end = (room.rows + 1) * stride
    step = (1, stride)  # a mat's second cell: to the right (horizontal), below (vertical)
    stack: list[tuple[int, int]] = []  # (first cell, orientation) of each placed mat
    pos, turns = stride + 1, 0

    def place(cell: int, first: int) -> bool:
        """Lay a mat at ``cell`` in the first free orientation from ``first`` on (that a listener allows)."""
        for orientation in range(first, 2):
            if grid[cell + step[orientation]] == 0:
                number = len(stack) + 1
                grid[cell] = grid[cell + step[orientation]] = number
                stack.append((cell, orientation))
                if listen is None or listen("place", number, _mat(cell, orientation, stride)) is not False:
                    return True
                stack.pop()  # vetoed: as if this orientation had not fit
                grid[cell] = grid[cell + step[orientation]] = 0
                listen("remove", number, _mat(cell, orientation, stride))
        return False

    while True:
        turns += 1
        if turns % POLL == 0 and stop.expired():
            return
        while pos < end and grid[pos] != 0:
            pos += 1
        if pos >= end:
            tiling = sorted(_mat(cell, o, stride) for cell, o in stack)
            if listen is not None:
                listen("solution", len(stack), tiling)
            yield tiling
        else:
            up, left, corner = grid[pos - stride], grid[pos - 1], grid[pos - stride - 1]
            if (up == corner or left == corner) and place(pos, 0):
                pos += 1
                continue
        # Backtrack: undo mats until one can turn to its other orientation.
        while stack:
            cell, orientation = stack.pop()
            grid[cell] = grid[cell + step[orientation]] = 0
            if listen is not None:
                listen("remove", len(stack) + 1, _mat(cell, orientation, stride))
            if place(cell, orientation + 1):
                pos = cell + 1
                break
        else:
            return


def _mat(cell: int, orientation: int, stride: int) -> list[list[int]]:
    """A mat's two cells in 0-based room coordinates."""
    r, c = divmod(cell, stride)
    first = [r - 1, c - 1]
    return [first, [r - 1, c]] if orientation == 0 else [first, [r, c - 1]]


ALGORITHMS = {
    "rowscan": Algorithm("rowscan", "the seed's row-scan depth-first search with a guard band", tilings),
}
