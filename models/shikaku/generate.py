"""Random Shikaku puzzles: a random partition into rectangles, one clue in each.

The partition is grown in row-major order: the first free cell is always the top-left corner of
a new rectangle, whose width is bounded by the free run to its right (the cells below such a run
are free too) and whose area is at most ``max_area``; then each 1x1 left over joins a neighbouring
strip when the two make a rectangle within ``max_area``. With ``unique``, clue placement is
repaired until the puzzle has one solution: while CP-SAT finds a second solution, the clue of one
rectangle that solution moves is put on another cell of its rectangle. A partition that does not
become unique in a bounded number of moves is dropped for a new one.
"""

from __future__ import annotations

import random

from ortools.sat.python import cp_model

from gridsat.models.encoding import EncodingSpace
from gridsat.models.errors import InvalidInstance
from gridsat.models.params import parse_size
from gridsat.models.shikaku.formats import MAX_CELLS, Board, board, to_text
from gridsat.models.shikaku.formulations import CPSAT_CELLS, cpsat

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]  # (top, left, height, width)

DEFAULT_MAX_AREA = 12
PARTITIONS = 20  # fresh partitions tried before giving up on a unique puzzle
MOVES_PER_RECT = 4  # clue moves allowed per rectangle of a partition


def partition(rows: int, cols: int, max_area: int, rng: random.Random) -> list[Rect]:
    """A random partition of the grid into rectangles of at most ``max_area`` cells (1x1 only when forced)."""
    free = [[True] * cols for _ in range(rows)]
    rects = []
    for r in range(rows):
        for c in range(cols):
            if not free[r][c]:
                continue
            run = 1
            while c + run < cols and free[r][c + run]:
                run += 1
            shapes = [
                (h, w)
                for h in range(1, min(rows - r, max_area) + 1)
                for w in range(1, min(run, max_area // h) + 1)
                if h * w >= 2
            ]
            h, w = rng.choice(shapes) if shapes else (1, 1)
            for rr in range(r, r + h):
                for cc in range(c, c + w):
                    free[rr][cc] = False
            rects.append((r, c, h, w))
    return merge_singletons(rects, max_area, rng)


def merge_singletons(rects: list[Rect], max_area: int, rng: random.Random) -> list[Rect]:
    """Join each 1x1 rectangle to a 1-wide or 1-high neighbour in line with it, where the area allows."""
    rects = list(rects)
    for single in [rect for rect in rects if rect[2:] == (1, 1)]:
        r, c = single[:2]
        options = []
        for k, (top, left, h, w) in enumerate(rects):
            if h * w + 1 > max_area:
                continue
            if w == 1 and left == c and (top + h == r or top == r + 1):
                options.append((k, (min(top, r), c, h + 1, 1)))
            elif h == 1 and top == r and (left + w == c or left == c + 1):
                options.append((k, (r, min(left, c), 1, w + 1)))
        if options:
            k, merged = rng.choice(options)
            rects[k] = merged
            rects.remove(single)
    return rects


def spot(rect: Rect, rng: random.Random, avoid: Cell | None = None) -> Cell:
    """A random cell of ``rect``, other than ``avoid`` when there is another."""
    top, left, h, w = rect
    options = [(r, c) for r in range(top, top + h) for c in range(left, left + w) if (r, c) != avoid]
    return rng.choice(options) if options else (top, left)


def puzzle(rows: int, cols: int, rects: list[Rect], spots: list[Cell]) -> Board:
    return board(
        rows, cols, ((r, c, rect[2] * rect[3]) for rect, (r, c) in zip(rects, spots, strict=True)), "generated"
    )


def another_solution(instance: Board, intended: list[list[int]]) -> list[list[int]] | None:
    """A solution other than ``intended``, or None when the puzzle is unique."""
    formulation = cpsat(instance, EncodingSpace((CPSAT_CELLS,)).resolve("cover"))
    model = formulation.model
    mine = [formulation.primary[("rect", i, *rect)] for i, rect in enumerate(intended)]
    model.AddBoolOr([var.Not() for var in mine])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # deterministic: a fixed seed gives the same puzzle
    if solver.Solve(model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return formulation.decode({key: solver.Value(var) for key, var in formulation.primary.items()})


def make_unique(rows: int, cols: int, rects: list[Rect], spots: list[Cell], rng: random.Random) -> bool:
    """Move clues (in place, within their rectangles) until the puzzle is unique; False if it never is."""
    for _ in range(MOVES_PER_RECT * len(rects) + 10):
        instance = puzzle(rows, cols, rects, spots)
        region = {spot_: k for k, spot_ in enumerate(spots)}
        order = [region[(r, c)] for r, c, _ in instance.clues]  # clue i lies in rectangle order[i]
        intended = [list(rects[k]) for k in order]
        other = another_solution(instance, intended)
        if other is None:
            return True
        moved = [order[i] for i in range(len(order)) if other[i] != intended[i]]
        k = rng.choice(moved)
        spots[k] = spot(rects[k], rng, avoid=spots[k])
    return False


def generate(size: str, *, seed: int | None = None, max_area: int | None = None, unique: bool = False) -> str:
    """A random ``RxC`` puzzle in the text format, headed by how it was made."""
    rows, cols = parse_size(size, "grid", MAX_CELLS)
    limit = DEFAULT_MAX_AREA if max_area is None else max_area
    if limit < 1:
        raise InvalidInstance(f"max_area={max_area} must be at least 1")
    rng = random.Random(seed)
    for _ in range(PARTITIONS if unique else 1):
        rects = partition(rows, cols, limit, rng)
        spots = [spot(rect, rng) for rect in rects]
        if unique and not make_unique(rows, cols, rects, spots, rng):
            continue
        made = f"gridsat generate shikaku {rows}x{cols}" + (f" --seed {seed}" if seed is not None else "")
        made += f" --max-area {limit}" + (" --unique" if unique else "")
        return to_text(puzzle(rows, cols, rects, spots), [made])
    raise InvalidInstance(f"no unique {rows}x{cols} puzzle found in {PARTITIONS} partitions; try another seed")
