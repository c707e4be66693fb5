"""A knight's-tour board: its squares and moves, parsing, decoding, and the rules a tour must keep.

Counting convention: an open tour is a directed path (a sequence of squares), a closed tour a
directed cycle. A solution is the list of ``[row, col]`` squares in visiting order; a closed tour
begins at ``start`` (or at [0, 0]) and keeps its direction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import compress

from gridsat.models.errors import InvalidInstance
from gridsat.models.formulation import Key
from gridsat.models.params import bool_param, check_keys, excerpt, integer, parse_size

Square = tuple[int, int]
Arc = tuple[Square, Square]
Tour = list[list[int]]  # [[r, c], ...] in visiting order

# The seed's eight jumps as (row, col) steps, in its order (its (x, y) deltas with x the column).
JUMPS: tuple[Square, ...] = ((-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1))
# A 100x100 board: CP-SAT, the cutset CNF and Warnsdorff's rule find tours there; the eager CNF
# encodings that would outgrow memory on a board are refused by size (knights_tour.cnf.MAX_CLAUSES).
MAX_SQUARES = 10_000

PARAMS = {
    "closed": "true: the last square jumps back to the first (default false)",
    "start": "R,C: the first square, 0-based (closed tours are rotated to begin there)",
}


@dataclass(frozen=True)
class Board:
    """An R x C board, whether the tour must close, and an optional first square."""

    rows: int
    cols: int
    closed: bool = False
    start: Square | None = None

    @property
    def area(self) -> int:
        return self.rows * self.cols

    def squares(self) -> Iterator[Square]:
        return ((r, c) for r in range(self.rows) for c in range(self.cols))

    def on(self, square: Square) -> bool:
        return 0 <= square[0] < self.rows and 0 <= square[1] < self.cols

    def jumps(self, square: Square) -> list[Square]:
        """The squares a knight on ``square`` reaches, in the seed's order."""
        r, c = square
        return [(r + dr, c + dc) for dr, dc in JUMPS if self.on((r + dr, c + dc))]

    @property
    def root(self) -> Square:
        """Where a closed tour is written to begin."""
        return self.start or (0, 0)


def parse(text: str, params: Mapping[str, str]) -> Board:
    """``RxC`` with ``-p closed=true|false`` and ``-p start=R,C``."""
    check_keys(params, PARAMS)
    rows, cols = parse_size(text, "board", MAX_SQUARES)
    closed = bool_param(params, "closed", False)
    start = None
    if "start" in params:
        parts = params["start"].replace(" ", "").split(",")
        try:
            start = (integer(parts[0], "row"), integer(parts[1], "column")) if len(parts) == 2 else None
        except InvalidInstance:  # not two whole numbers in ASCII digits: said below for the whole value
            start = None
        if start is None:
            raise InvalidInstance(f"parameter start={excerpt(params['start'])} is not R,C (two 0-based integers)")
        if not (0 <= start[0] < rows and 0 <= start[1] < cols):
            raise InvalidInstance(f"parameter start={excerpt(params['start'])} is off the {rows}x{cols} board")
    return Board(rows, cols, closed, start)


def describe(board: Board) -> str:
    name = f"{board.rows}x{board.cols}" + (" closed" if board.closed else "")
    return name + (f" from {board.start[0]},{board.start[1]}" if board.start else "")


def arcs(board: Board) -> Iterator[Arc]:
    """Every move u -> v on the board (both directions of each knight edge)."""
    for u in board.squares():
        for v in board.jumps(u):
            yield (u, v)


def ends(board: Board) -> tuple[list[Square], list[Square]]:
    """Where an open tour may begin and end (none for a closed tour)."""
    if board.closed:
        return [], []
    squares = list(board.squares())
    return ([board.start] if board.start else squares), squares


def decode(values: Mapping[Key, int], start: Square | None = None) -> Tour:
    """Follow the true arcs (or read the steps) into the list of squares; a cycle is followed from ``start``."""
    after: dict[Square, Square] = {}
    at: list[tuple[int, Square]] = []
    first = None
    for key in compress(values, values.values()):  # the true keys (lean: this runs for every tour counted)
        kind = key[0]
        if kind == "arc":
            after[key[1]] = key[2]
        elif kind == "first":
            first = key[1]
        elif kind == "at":
            at.append((key[2], key[1]))
    if at:
        return [list(square) for _, square in sorted(at)]
    head = start if start in after else first if first is not None else min(after, default=None)
    if head is None:
        return []
    tour, square, bound = [list(head)], after.get(head), len(after)
    while square is not None and square != head and len(tour) <= bound:  # bounded: arcs may be wrong
        tour.append(list(square))
        square = after.get(square)
    return tour


def rooted(board: Board, tour: Tour) -> Tour:
    """A closed tour rotated to begin at the board's root square (open tours are left alone): the
    canonical form of a moved or reversed closed tour (see ``group``)."""
    if not board.closed or list(board.root) not in tour:
        return tour
    i = tour.index(list(board.root))
    return tour[i:] + tour[:i]


def decoder(board: Board) -> Callable[[Mapping[Key, int]], Tour]:
    """``decode`` for this board: a closed tour is followed from its root, so it is written from there."""
    start = board.root if board.closed else None
    return lambda values: decode(values, start)


def knight_move(a: list[int], b: list[int]) -> bool:
    """One square and two the other way: the only steps whose row and column distances multiply to 2."""
    return abs(a[0] - b[0]) * abs(a[1] - b[1]) == 2


def verify(board: Board, tour: Tour) -> list[str]:
    """The rules a tour breaks, checked from the definition (not from any encoding)."""
    if not isinstance(tour, list) or not all(isinstance(s, list) and len(s) == 2 for s in tour):
        return [f"a tour is a list of [row, col] squares, not {tour!r}"]
    # Written inline rather than with board.on and knight_move: this runs for every tour counted.
    rows, cols = board.rows, board.cols
    problems = [f"square {s} is off the board" for s in tour if not (0 <= s[0] < rows and 0 <= s[1] < cols)]
    seen = {(r, c) for r, c in tour}
    if len(seen) != len(tour):
        problems.append(f"{len(tour) - len(seen)} squares are visited twice")
    if len(seen) != board.area:
        problems.append(f"{board.area - len(seen & set(board.squares()))} squares are never visited")
    for i, (a, b) in enumerate(zip(tour, tour[1:], strict=False)):
        if abs(a[0] - b[0]) * abs(a[1] - b[1]) != 2:  # knight_move, inline
            problems.append(f"step {i + 1} -> {i + 2} from {a} to {b} is not a knight move")
    if tour and board.closed and not knight_move(tour[-1], tour[0]):
        problems.append(f"the tour does not close: {tour[-1]} does not jump back to {tour[0]}")
    if tour and board.closed and tour[0] != list(board.root):
        problems.append(f"a closed tour must be written from {list(board.root)}, not {tour[0]}")
    if tour and board.start and tour[0] != list(board.start):
        problems.append(f"the tour begins at {tour[0]}, not at the start {list(board.start)}")
    return problems


def note(board: Board) -> str | None:
    """Why a closed tour cannot exist on a board with an odd number of squares."""
    if board.closed and board.area % 2:
        return (f"a closed tour alternates square colours, so it needs an even number of squares; "
                f"{board.rows}x{board.cols} has {board.area}, so there is none")
    return None


def render(board: Board, tour: Tour) -> str:
    """The board with each square's step number (1 first), as the seed prints it."""
    step = {tuple(square): i + 1 for i, square in enumerate(tour)}
    width = len(str(board.area))
    return "\n".join(
        " ".join(str(step.get((r, c), ".")).rjust(width) for c in range(board.cols)) for r in range(board.rows)
    )
