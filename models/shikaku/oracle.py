"""The brute-force oracle: every assignment of a rectangle to each clue, kept when the rectangles
tile the grid and none holds another clue; and random clue grids for differential testing.

Written from the rules alone, for ``gridsat fuzz``: it shares nothing with the reference search or
the formulations. Each clue is given, in turn, every rectangle of its area inside the grid that
covers it; an assignment whose rectangles overlap is abandoned as soon as they do (a plain product
would only test the same thing later), and a complete one is kept when it covers every cell and no
rectangle holds a clue other than its own.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from gridsat.models.errors import InvalidInstance
from gridsat.models.shikaku.formats import Board, Clue, board, to_game_id

Rect = tuple[int, int, int, int]  # (top, left, height, width)
MAX_CELLS = 30


def rectangles(board: Board, clue: Clue) -> list[Rect]:
    """Every rectangle of the clue's area inside the grid that covers the clue's cell."""
    r, c, n = clue
    return [(top, left, h, n // h)
            for h in range(1, n + 1) if n % h == 0
            for top in range(r - h + 1, r + 1)
            for left in range(c - n // h + 1, c + 1)
            if top >= 0 and left >= 0 and top + h <= board.rows and left + n // h <= board.cols]


def covered(rect: Rect) -> set[tuple[int, int]]:
    top, left, h, w = rect
    return {(top + i, left + j) for i in range(h) for j in range(w)}


def solutions(board: Board) -> Iterator[list[list[int]]]:
    """Every solution: one ``[top, left, height, width]`` per clue, in the board's clue order."""
    if board.area > MAX_CELLS:
        raise InvalidInstance(f"a {board.rows}x{board.cols} grid is too large for the brute-force oracle "
                              f"(at most {MAX_CELLS} cells)")
    options = [rectangles(board, clue) for clue in board.clues]
    clue_cells = {(r, c): i for i, (r, c, _) in enumerate(board.clues)}

    def assign(i: int, used: set[tuple[int, int]], chosen: list[Rect]) -> Iterator[list[list[int]]]:
        if i == len(options):
            if len(used) == board.area and all(clue_cells.get(cell, k) == k
                                               for k, rect in enumerate(chosen) for cell in covered(rect)):
                yield [list(rect) for rect in chosen]
            return
        for rect in options[i]:
            cells = covered(rect)
            if not cells & used:
                yield from assign(i + 1, used | cells, [*chosen, rect])

    yield from assign(0, set(), [])


def draw(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A random clue grid as a Tatham game id: a random partition with a clue in each rectangle
    (solvable, often ambiguous), sometimes spoiled (a clue changed, dropped or added: often
    unsolvable), or clues thrown at random."""
    rows, cols = rng.randint(1, 5), rng.randint(1, 6)
    while rows * cols > MAX_CELLS:
        rows, cols = rng.randint(1, 5), rng.randint(1, 6)
    clues = planted(rows, cols, rng) if rng.random() < 0.8 else scattered(rows, cols, rng)
    return to_game_id(board(rows, cols, clues)), {}


def planted(rows: int, cols: int, rng: random.Random) -> list[Clue]:
    """A clue in each rectangle of a random partition, then perhaps one clue spoiled."""
    from gridsat.models.shikaku.generate import partition, spot  # imports OR-Tools: only when drawing

    rects = partition(rows, cols, rng.randint(2, 8), rng)
    clues = {}
    for rect in rects:
        r, c = spot(rect, rng)
        clues[(r, c)] = rect[2] * rect[3]
    roll = rng.random()
    if roll < 0.15:  # a clue's area changed
        cell = rng.choice(sorted(clues))
        clues[cell] = rng.randint(1, min(rows * cols, 9))
    elif roll < 0.25 and len(clues) > 1:  # a clue dropped
        del clues[rng.choice(sorted(clues))]
    elif roll < 0.35 and len(clues) < rows * cols:  # a clue added
        free = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in clues]
        clues[rng.choice(free)] = rng.randint(1, min(rows * cols, 4))
    return [(r, c, n) for (r, c), n in clues.items()]


def scattered(rows: int, cols: int, rng: random.Random) -> list[Clue]:
    """Clues on random cells with random areas (mostly unsolvable)."""
    cells = rng.sample([(r, c) for r in range(rows) for c in range(cols)], rng.randint(1, min(6, rows * cols)))
    return [(r, c, rng.randint(1, min(rows * cols, 8))) for r, c in cells]
