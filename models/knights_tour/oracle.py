"""The brute-force oracle: every knight's tour of a small board by plain depth-first search over
all Hamiltonian paths (and cycles, for a closed tour); and random boards for differential testing.

Written from the rules alone, for ``gridsat fuzz``: no move ordering, no pruning, no shared code
with the reference searches or the formulations (a knight move is any step whose row and column
distances multiply to 2). An open tour is a directed path from any square (or from ``start``); a
closed tour is a directed cycle, listed once, from its root square (``start``, else [0, 0]).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from gridsat.models.errors import InvalidInstance
from gridsat.models.knights_tour.board import Board, Square, Tour

MAX_SQUARES = 25  # 5x5: 1,728 open tours, found in seconds by a DFS without pruning


def moves(board: Board, square: Square) -> list[Square]:
    """The squares a knight on ``square`` reaches."""
    r, c = square
    return [(r2, c2) for r2 in range(board.rows) for c2 in range(board.cols) if abs(r2 - r) * abs(c2 - c) == 2]


def solutions(board: Board) -> Iterator[Tour]:
    """Every tour of ``board`` as the list of ``[row, col]`` squares in visiting order."""
    if board.area > MAX_SQUARES:
        raise InvalidInstance(f"a {board.rows}x{board.cols} board is too large for the brute-force oracle "
                              f"(at most {MAX_SQUARES} squares)")
    squares = [(r, c) for r in range(board.rows) for c in range(board.cols)]
    index = {square: i for i, square in enumerate(squares)}
    jumps = [[index[to] for to in moves(board, square)] for square in squares]
    if board.closed:
        starts = [board.start or (0, 0)]
    else:
        starts = [board.start] if board.start else squares
    for first in starts:
        for path in paths(jumps, index[first], len(squares)):
            if not board.closed or path[0] in jumps[path[-1]]:
                yield [list(squares[i]) for i in path]


def paths(jumps: list[list[int]], first: int, length: int) -> Iterator[list[int]]:
    """Every path of ``length`` squares (numbered) from ``first`` that visits no square twice: depth first,
    with a stack of the moves each square on the path has left to try (no generator per square: a 5x5
    count walks millions of partial paths)."""
    if length == 1:
        yield [first]
        return
    path, seen = [first], [False] * len(jumps)
    seen[first] = True
    left = [iter(jumps[first])]
    while left:
        for square in left[-1]:
            if seen[square]:
                continue
            if len(path) + 1 == length:
                yield [*path, square]
                continue
            path.append(square)
            seen[square] = True
            left.append(iter(jumps[square]))
            break
        else:  # every move from the path's end tried: back up one square
            left.pop()
            seen[path.pop()] = False


def draw(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A random board of at most 5x5 squares, open or closed, with a random start square or none (an
    open 5x5 tour always has one: from every square, the search takes seconds)."""
    smallest = 3 if rng.random() < 0.7 else 1  # most boards narrower than 3 have no tour
    rows, cols = rng.randint(smallest, 5), rng.randint(smallest, 5)
    params = {"closed": "true"} if rng.random() < 0.4 else {}
    if rng.random() < 0.5 or (rows * cols == MAX_SQUARES and not params):
        params["start"] = f"{rng.randrange(rows)},{rng.randrange(cols)}"
    return f"{rows}x{cols}", params
