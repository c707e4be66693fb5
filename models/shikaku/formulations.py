"""Shikaku's two formulations: every clue chooses one candidate rectangle, every cell lies in one.

The generator (models/shikaku/generate.py) builds on the CP-SAT one to test uniqueness.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gridsat.models.constraints import Formula, Model, amo
from gridsat.models.constraints.amo import at_most_one, exactly_one
from gridsat.models.encoding import Axis, Encoding
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.shikaku.formats import Board

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]  # (top, left, height, width)
Choice = tuple[str, int, int, int, int, int]  # ("rect", clue index, top, left, height, width)
Solution = list[list[int]]  # one [row, col, height, width] per clue, row-major clue order


# How the "every cell in one rectangle" rule is written. cover: exactly one chosen rectangle per
# cell. pack: at most one per cell, plus "the clues sum to the area" (then no cell can stay empty).
# nooverlap2d (CP-SAT only): optional intervals in CP-SAT's 2-D no-overlap, plus the same sum.
CPSAT_CELLS = Axis("cells", ("cover", "pack", "nooverlap2d"))
CNF_CELLS = Axis("cells", ("cover", "pack"))


# product is the fastest at-most-one on the seed puzzle in python -m gridsat.benchmarks.compare.amo (in
# three runs of five, tied in one): a close call, as the seed takes milliseconds whatever the encoding
# (best of 60 interleaved counts: product 0.005 s, pairwise and commander 0.006 s, seqcounter 0.010 s). On a
# generated unique 30x30 the linear encodings were within 20% of each other (kmtotalizer 0.092 s,
# product 0.110 s, pairwise 0.123 s).
CNF_AMO = amo.axis(default="product")


def cells(rect: Rect) -> Iterator[Cell]:
    top, left, height, width = rect
    return ((r, c) for r in range(top, top + height) for c in range(left, left + width))


def candidates(board: Board) -> list[list[Rect]]:
    """Per clue, every rectangle of its area that fits, contains it, and contains no other clue."""
    # count[r][c]: clues in rows < r and columns < c, so any rectangle's clue count is four lookups.
    count = [[0] * (board.cols + 1) for _ in range(board.rows + 1)]
    at = {(r, c) for r, c, _ in board.clues}
    for r in range(board.rows):
        for c in range(board.cols):
            count[r + 1][c + 1] = count[r][c + 1] + count[r + 1][c] - count[r][c] + ((r, c) in at)
    out = []
    for r, c, n in board.clues:
        mine = []
        for height in range(1, min(n, board.rows) + 1):
            width = n // height
            if n % height or width > board.cols:
                continue
            for top in range(max(0, r - height + 1), min(r, board.rows - height) + 1):
                for left in range(max(0, c - width + 1), min(c, board.cols - width) + 1):
                    bottom, right = top + height, left + width
                    inside = count[bottom][right] - count[top][right] - count[bottom][left] + count[top][left]
                    if inside == 1:
                        mine.append((top, left, height, width))
        out.append(mine)
    return out


def choices(board: Board) -> list[list[Choice]]:
    """The variables' keys, per clue."""
    return [[("rect", i, *rect) for rect in rects] for i, rects in enumerate(candidates(board))]


def covering(board: Board, keys: list[list[Choice]]) -> list[list[Choice]]:
    """Per cell, the candidate rectangles (of any clue) that contain it; a list that repeats another
    cell's, or a clue's own candidates, is left out, since its constraint is already there."""
    here: dict[Cell, list[Choice]] = {(r, c): [] for r in range(board.rows) for c in range(board.cols)}
    for mine in keys:
        for key in mine:
            for cell in cells(key[2:]):
                here[cell].append(key)
    seen = {tuple(mine) for mine in keys}
    out = []
    for lists in here.values():
        if tuple(lists) not in seen:
            seen.add(tuple(lists))
            out.append(lists)
    return out


def decode(values: Mapping[Key, int]) -> Solution:
    """The chosen rectangles, in clue order."""
    return [list(key[2:]) for key in sorted(k for k, v in values.items() if v)]


def cpsat(board: Board, encoding: Encoding) -> CpsatFormulation:
    """A Boolean per candidate; exactly one per clue; the cell rule as the encoding says."""
    model = Model("shikaku:cpsat")
    keys = choices(board)
    chosen = {key: model.NewBoolVar("r_{}_{}_{}_{}_{}".format(*key[1:])) for mine in keys for key in mine}
    with model.family("one rectangle per clue"):
        for mine in keys:
            model.AddExactlyOne(chosen[k] for k in mine)
    rule = encoding["cells"]
    if rule != "cover" and board.total() != board.area:
        with model.family("clue areas fill the grid"):
            model.AddBoolOr([])  # packing the clues cannot cover the grid
    if rule == "nooverlap2d":
        xs, ys = [], []
        for (_, i, top, left, height, width), var in chosen.items():
            with model.family("rectangle columns"):
                xs.append(model.NewOptionalFixedSizeIntervalVar(left, width, var, f"x_{i}_{top}_{left}_{height}"))
            with model.family("rectangle rows"):
                ys.append(model.NewOptionalFixedSizeIntervalVar(top, height, var, f"y_{i}_{top}_{left}_{height}"))
        with model.family("rectangles do not overlap"):
            model.AddNoOverlap2D(xs, ys)
    else:
        for here in covering(board, keys):
            if rule == "cover":
                with model.family("one rectangle per cell"):
                    model.AddExactlyOne(chosen[k] for k in here)
            else:
                with model.family("at most one rectangle per cell"):
                    model.AddAtMostOne(chosen[k] for k in here)
    return CpsatFormulation(**model.parts(), primary=chosen, decode=decode)


def cnf(board: Board, encoding: Encoding) -> CnfFormulation:
    """The same exact cover as clauses, every exactly/at-most-one through the named at-most-one encoding."""
    formula = Formula("shikaku:cnf")
    keys = choices(board)
    projection = [formula.var(key) for mine in keys for key in mine]
    name, rule = encoding["amo"], encoding["cells"]
    with formula.family("one rectangle per clue"):
        for mine in keys:
            exactly_one(formula, [formula.var(k) for k in mine], name)
    if rule == "pack" and board.total() != board.area:
        with formula.family("clue areas fill the grid"):
            formula.add([])
    for here in covering(board, keys):
        lits = [formula.var(k) for k in here]
        if rule == "cover":
            with formula.family("one rectangle per cell"):
                exactly_one(formula, lits, name)
        else:
            with formula.family("at most one rectangle per cell"):
                at_most_one(formula, lits, name)
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode)
