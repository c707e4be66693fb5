"""The seed's knight's-tour searches: plain backtracking, Warnsdorff's rule, divide and conquer.

All three walk the same way: a depth-first search over the knight's jumps, taken in the seed's
order, with the choice points on an explicit stack (a 50x50 tour is 2,500 moves deep, past
Python's recursion limit). They differ in what they try first and where they may go:

- ``backtrack`` tries the jumps in the seed's order and yields every tour, for counting.
- ``warnsdorff`` tries first the square with the fewest onward exits (ties: the seed's jump
  order), and falls back on backtracking in that order when the walk gets stuck; it stops at
  the first tour. A closed tour is the greedy open tour closed by Posa rotations.
- ``divide`` cuts the board into blocks (the seed's 3x10 band and two 6x5 blocks on 9x10; see
  ``blocks``), tours one block at a time with the Warnsdorff-ordered search confined to it, and
  jumps from a block's last square into a fresh block. Only where a block tour ends matters to
  the rest of the board, so one tour per end square is tried, and an entry square found to lead
  nowhere is remembered. It finds open tours only: on closed tours, and on boards it cannot cut,
  it finds nothing and says why (the run is reported incomplete with that reason).

The squares are numbered r * cols + c here; the moves are computed from the rules, not taken
from any encoding.

Events (see ``gridsat.models.search``), as the seed's coroutine reports (depth, x, y): "place"
and "remove" of the knight on a square at depth n (the square is step n of the path), ``what`` =
``[r, c]``; "solution" with the tour. ``divide`` adds "block" (``{"block": [top, left, rows,
cols], "entry": [r, c]}``, at the depth of the block's first square, before it is placed) and
"join" (``{"from": [r, c], "to": [r, c]}``, at the depth of the block's last square) when it
jumps from a toured block into the next. ``backtrack`` honours the veto. ``warnsdorff`` and
``divide`` skip a vetoed square too, but they stop at their first tour (and ``divide`` remembers
an entry whose block led nowhere, vetoed or not), so vetoes do not split their work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from gridsat.models.knights_tour.board import Board, Tour
from gridsat.models.search import Algorithm, Halt, Listener

# The seed's jumps as (dx, dy), x the column and y the row, in its order.
DELTAS = ((1, -2), (2, -1), (2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2))
POLL = 1 << 12  # loop turns between looks at the clock

Graph = list[list[int]]  # square number -> the squares one jump away, in the seed's order
Order = Callable[[list[int], bytearray], list[int]]  # candidates, visited -> the order to try them


def graph(board: Board, inside: Callable[[int, int], bool] | None = None) -> Graph:
    """The knight's jumps between squares (only between squares ``inside`` a block, when given)."""
    rows, cols = board.rows, board.cols
    keep = inside or (lambda r, c: True)
    jumps: Graph = []
    for r in range(rows):
        for c in range(cols):
            targets = [(r + dy, c + dx) for dx, dy in DELTAS]
            jumps.append(
                [y * cols + x for y, x in targets if 0 <= y < rows and 0 <= x < cols and keep(r, c) and keep(y, x)]
            )
    return jumps


def walks(
    jumps: Graph,
    start: int,
    length: int,
    stop: Halt,
    order: Order | None = None,
    visited: bytearray | None = None,
    listen: Listener | None = None,
    cols: int = 1,
    base: int = 0,
) -> Iterator[list[int]]:
    """Every path of ``length`` unvisited squares from ``start``, depth first and iteratively.

    With ``listen``, each square entering the path is a "place" at depth ``base`` + its place in the
    path (``what`` = ``[r, c]``, squares numbered ``r * cols + c``), each one leaving it a "remove".
    """
    seen = visited if visited is not None else bytearray(len(jumps))
    if seen[start] or (listen is not None and not placed(listen, base + 1, start, cols)):
        return
    seen[start] = 1
    path = [start]
    try:
        if length == 1:
            yield [start]
            seen[path.pop()] = 0
            if listen is not None:
                listen("remove", base + 1, list(divmod(start, cols)))
            return
        yield from deepen(jumps, path, length, stop, order, seen, listen, cols, base)
    finally:
        for square in path:  # leave a caller's visited map as it was
            seen[square] = 0


def placed(listen: Listener, depth: int, square: int, cols: int) -> bool:
    """Whether the listener lets ``square`` enter the path at ``depth`` (a veto is removed at once)."""
    if listen("place", depth, list(divmod(square, cols))) is not False:
        return True
    listen("remove", depth, list(divmod(square, cols)))
    return False


def deepen(jumps: Graph, path: list[int], length: int, stop: Halt, order: Order | None, seen: bytearray,
           listen: Listener | None, cols: int, base: int) -> Iterator[list[int]]:
    """The depth-first loop of ``walks``: every way to extend ``path`` (its squares marked in ``seen``) to
    ``length`` squares; each square leaving the path is unmarked, and the path ends empty unless stopped."""

    def candidates(square: int) -> Iterator[int]:
        """The next squares to try (visited ones are skipped when their turn comes)."""
        return iter(order([v for v in jumps[square] if not seen[v]], seen) if order else jumps[square])

    stack = [candidates(path[-1])]
    turns = 0
    while stack:
        turns += 1
        if turns % POLL == 0 and stop.expired():
            break
        square = next(stack[-1], None)
        if square is None:
            stack.pop()
            seen[path[-1]] = 0
            gone = path.pop()
            if listen is not None:
                listen("remove", base + len(path) + 1, list(divmod(gone, cols)))
            continue
        if seen[square]:
            continue
        path.append(square)
        if listen is not None and not placed(listen, base + len(path), square, cols):
            path.pop()  # vetoed: as if the square were taken
            continue
        if len(path) == length:  # the caller sees the path with all but its last square marked
            yield list(path)
            path.pop()
            if listen is not None:
                listen("remove", base + length, list(divmod(square, cols)))
            continue
        seen[square] = 1
        stack.append(candidates(square))


def tour_of(board: Board, path: list[int]) -> Tour:
    return [list(divmod(square, board.cols)) for square in path]


def closes(board: Board, jumps: Graph, path: list[int]) -> bool:
    """Whether a path is a tour of the board's kind (a closed one jumps back to its first square)."""
    return not board.closed or path[0] in jumps[path[-1]]


def first_squares(board: Board) -> list[int]:
    """Where tours begin: the start, a closed tour's root, or every square in row order."""
    if board.closed or board.start:
        r, c = board.root
        return [r * board.cols + c]
    return list(range(board.area))


def backtrack(board: Board, stop: Halt, listen: Listener | None = None) -> Iterator[Tour]:
    """Every tour, by the seed's plain backtracking (its jump order, no pruning)."""
    jumps = graph(board)
    for start in first_squares(board):
        for path in walks(jumps, start, board.area, stop, listen=listen, cols=board.cols):
            if closes(board, jumps, path):
                tour = tour_of(board, path)
                if listen is not None:
                    listen("solution", board.area, tour)
                yield tour
        if stop.expired():
            return


def warnsdorff_order(jumps: Graph) -> Order:
    """Fewest onward exits first; a stable sort keeps the seed's jump order among ties."""
    return lambda free, seen: sorted(free, key=lambda v: sum(1 for w in jumps[v] if not seen[w]))


def close_by_rotation(jumps: Graph, path: list[int], stop: Halt, tries: int) -> list[int] | None:
    """Turn a path into a closed tour by Posa rotations (the first square stays), or give up.

    When the last square x jumps to path[i], reversing path[i+1:] gives a path over the same squares
    that ends at path[i+1]; rotate until the end jumps back to the first square. The rotation point
    is the first, in the seed's jump order, that leads to an end not tried before (else a pseudo-random one).
    """
    path = list(path)
    ends = {path[-1]}
    for turn in range(tries):
        if path[0] in jumps[path[-1]]:
            return path
        if turn % 64 == 0 and stop.expired():
            return None
        where = {square: i for i, square in enumerate(path)}
        pivots = [where[v] for v in jumps[path[-1]] if where[v] < len(path) - 2]
        if not pivots:
            return None
        fresh = [i for i in pivots if path[i + 1] not in ends]
        i = fresh[0] if fresh else pivots[(turn * 7919) % len(pivots)]
        path[i + 1 :] = path[:i:-1]
        ends.add(path[-1])
    return None


def warnsdorff(board: Board, stop: Halt, listen: Listener | None = None) -> Iterator[Tour]:
    """One tour by Warnsdorff's rule from the start (else the corner [0, 0]), backtracking when stuck.

    A closed tour is the greedy open tour closed by rotations; if that fails the search moves on to
    the next open tour (a closed tour needs an even area, so odd boards end at once).
    """
    jumps = graph(board)
    start = first_squares(board)[0]
    if board.closed and board.area % 2:
        return
    for path in walks(jumps, start, board.area, stop, warnsdorff_order(jumps), listen=listen, cols=board.cols):
        tour = close_by_rotation(jumps, path, stop, 50 * board.area) if board.closed else path
        if tour is not None:
            if listen is not None:
                listen("solution", board.area, tour_of(board, tour))
            yield tour_of(board, tour)
            return
        if stop.expired():
            return


# Block sides the plain backtracking tours at once from any square it can start on.
PIECES = (5, 6)


def cuts(length: int) -> list[int] | None:
    """``length`` as a sum of PIECES (fives first), or None."""
    for sixes in range(length // 6 + 1):
        rest = length - 6 * sixes
        if rest % 5 == 0:
            return [5] * (rest // 5) + [6] * sixes
    return None


Block = tuple[int, int, int, int]  # first row, first column, rows, columns


def blocks(board: Board) -> list[Block] | None:
    """The seed's blocks for 9x10 (a 3x10 band and two 6x5 blocks; transposed for 10x9), else a
    grid of 5- and 6-square sides in snake order; None when a side is not a sum of fives and sixes."""
    if (board.rows, board.cols) == (9, 10):
        return [(0, 0, 3, 10), (3, 0, 6, 5), (3, 5, 6, 5)]
    if (board.rows, board.cols) == (10, 9):
        return [(0, 0, 10, 3), (0, 3, 5, 6), (5, 3, 5, 6)]
    heights, widths = cuts(board.rows), cuts(board.cols)
    if heights is None or widths is None:
        return None
    tops = [sum(heights[:i]) for i in range(len(heights))]
    lefts = [sum(widths[:i]) for i in range(len(widths))]
    grid = []
    for i, top in enumerate(tops):
        row = [(top, left, heights[i], widths[j]) for j, left in enumerate(lefts)]
        grid += row if i % 2 == 0 else row[::-1]
    return grid


def divide(board: Board, stop: Halt, listen: Listener | None = None) -> Iterator[Tour]:
    """One open tour joined from block tours; on boards ``blocks`` does not cover it says why and stops."""
    parts = blocks(board)
    if board.closed or parts is None:
        what = "closed tours" if board.closed else f"a {board.rows}x{board.cols} board"
        stop.request(f"divide does not cover {what}: it needs open tours on sides made of 5s and 6s, or 9x10")
        return
    for path in Division(board, parts, stop, listen).chain(first_squares(board)[0], 0, 0):
        if listen is not None:
            listen("solution", board.area, tour_of(board, path))
        yield tour_of(board, path)
        return


class Division:
    """The board cut into ``parts`` (blocks), each toured by ``walks`` within it and the tours joined by a
    jump from a block's last square into an untoured block."""

    def __init__(self, board: Board, parts: list[Block], stop: Halt, listen: Listener | None) -> None:
        self.parts, self.stop, self.listen, self.cols = parts, stop, listen, board.cols
        cols = board.cols
        self.owner = owner = [0] * board.area
        for b, (top, left, height, width) in enumerate(parts):
            for r in range(top, top + height):
                owner[r * cols + left : r * cols + left + width] = [b] * width
        self.inner = [graph(board, lambda r, c, b=b: owner[r * cols + c] == b) for b in range(len(parts))]
        self.outer = graph(board)
        self.order = [warnsdorff_order(jumps) for jumps in self.inner]
        self.seen, self.toured = bytearray(board.area), bytearray(len(parts))
        self.failed: set[tuple[int, bytes]] = set()  # (entry, blocks toured): no way on from there

    def can_enter(self, square: int) -> bool:
        """An odd block is toured only from its corners' colour, the colour of more of its squares."""
        top, left, height, width = self.parts[self.owner[square]]
        r, c = divmod(square, self.cols)
        return height * width % 2 == 0 or (r + c) % 2 == (top + left) % 2

    def chain(self, entry: int, done: int, base: int) -> Iterator[list[int]]:
        """Tours of the rest of the board that begin by touring ``entry``'s block."""
        b, parts, seen, listen, cols = self.owner[entry], self.parts, self.seen, self.listen, self.cols
        if self.stop.expired():  # each block's walk polls the clock only now and then: look before every one
            return
        self.toured[b] = 1
        key = (entry, bytes(self.toured))
        tried: set[int] = set()  # the rest of the board only sees where a piece ends
        if key in self.failed:
            self.toured[b] = 0
            return
        if listen is not None:
            listen("block", base + 1, {"block": list(parts[b]), "entry": list(divmod(entry, cols))})
        area = parts[b][2] * parts[b][3]
        for piece in walks(self.inner[b], entry, area, self.stop, self.order[b], seen, listen, cols, base):
            if done + 1 == len(parts):
                yield piece
                continue
            if piece[-1] in tried:
                continue
            tried.add(piece[-1])
            seen[piece[-1]] = 1  # the rest of the piece is still marked by its walk
            yield from self.onward(piece, b, done, base + area)
            seen[piece[-1]] = 0
            if self.stop.expired():
                return
        self.failed.add(key)
        self.toured[b] = 0

    def onward(self, piece: list[int], b: int, done: int, base: int) -> Iterator[list[int]]:
        """``piece`` (block ``b``'s tour) joined to each tour of the rest that a jump from its end lands on."""
        exits = [v for v in self.outer[piece[-1]] if not self.seen[v] and self.can_enter(v)]
        exits.sort(key=lambda v: self.owner[v] != (b + 1) % len(self.parts))  # the next block in snake order first
        for landing in exits:
            if self.listen is not None:
                jump = {"from": list(divmod(piece[-1], self.cols)), "to": list(divmod(landing, self.cols))}
                self.listen("join", base, jump)
            for rest in self.chain(landing, done + 1, base):
                yield piece + rest


ALGORITHMS = {
    "backtrack": Algorithm("backtrack", "the seed's plain backtracking over the 8 jumps (every tour)", backtrack),
    "warnsdorff": Algorithm(
        "warnsdorff", "fewest onward exits first, backtracking when stuck (one tour)", warnsdorff, exhaustive=False
    ),
    "divide": Algorithm(
        "divide", "the seed's divide and conquer: tour blocks and join them (one open tour)", divide, exhaustive=False
    ),
}
