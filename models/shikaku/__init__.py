"""Shikaku (Tatham's "Rectangles"): divide the grid into rectangles, one per clue, of the clue's area.

Seed: the rectangle-puzzle write-up (a 12x12 grid with 22 clues and one solution, printed as letters).
Every clue chooses one candidate rectangle: one that contains the clue, has the clue's area, fits
in the grid and contains no other clue. Variables: ``("rect", i, top, left, height, width)`` is
true when clue ``i`` takes that rectangle, so a solution is exactly a choice of rectangles. The
rules are exact cover: each clue takes one candidate, and each cell lies in one chosen rectangle.
A solution lists ``[row, col, height, width]`` (top-left cell and size) per clue, in row-major
clue order. Clues that do not sum to the grid's area are a valid puzzle with no solution; the
instance's description says so.
"""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import golden, svg
from gridsat.models.encoding import EncodingSpace
from gridsat.models.formulation import Key
from gridsat.models.params import check_keys
from gridsat.models.puzzle import Case, Puzzle
from gridsat.models.shikaku import reference
from gridsat.models.shikaku.formats import Board, read, to_game_id
from gridsat.models.shikaku.formulations import (
    CNF_CARD,
    CNF_CELLS,
    CPSAT_CELLS,
    Cell,
    Choice,
    Rect,
    Solution,
    candidates,
    cells,
    choices,
    cnf,
    covering,
    cpsat,
    decode,
)
from gridsat.models.symmetry import Element, Group, Motion, board_group

__all__ = ["CNF_CARD", "CNF_CELLS", "CPSAT_CELLS", "Board", "Cell", "Choice", "Rect", "Solution", "candidates", "cells",
           "choices", "cnf", "covering", "cpsat", "decode", "PUZZLE"]


LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def parse(text: str, params: Mapping[str, str]) -> Board:
    """A puzzle file, a game id ``WxH:desc``, ``-`` for stdin, or ``seed``; no parameters."""
    check_keys(params, {})
    return read(text)


def note(board: Board) -> str | None:
    """What to tell the user before solving: clues that cannot tile the grid."""
    if board.total() != board.area:
        return f"the clues sum to {board.total()} but the grid has {board.area} cells, so there is no solution"
    return None


def describe(board: Board) -> str:
    count = len(board.clues)
    name = f"{board.rows}x{board.cols}, {count} clue{'' if count == 1 else 's'}"
    return name


def group(board: Board) -> Group:
    """The rotations and reflections that map every clue onto a clue of the same number."""
    clues = set(board.clues)
    index = {(r, c): i for i, (r, c, _) in enumerate(board.clues)}

    def element(move: Motion) -> Element | None:
        if {(*move((r, c)), n) for r, c, n in board.clues} != clues:
            return None
        target = [index[move((r, c))] for r, c, _ in board.clues]  # clue i's rectangle becomes clue target[i]'s

        def solution(s: Solution) -> Solution:
            out: Solution = [[]] * len(s)
            for i, rect in enumerate(s):
                out[target[i]] = list(move.rect(tuple(rect)))
            return out

        def key(k: Key) -> Key:
            return ("rect", target[k[1]], *move.rect(k[2:]))

        return Element(move.name, solution, key)

    return board_group(board.rows, board.cols, element, why="move the clues")


def verify(board: Board, solution: Solution) -> list[str]:
    """The rules a solution breaks, checked from the definition (not from any encoding)."""
    if not isinstance(solution, list) or len(solution) != len(board.clues):
        return [f"expected one rectangle per clue ({len(board.clues)}), got {solution!r}"]
    clue_at = {(r, c): i for i, (r, c, _) in enumerate(board.clues)}
    owner: dict[Cell, int] = {}
    problems: list[str] = []
    for i, ((r, c, n), rect) in enumerate(zip(board.clues, solution, strict=True)):
        if not (isinstance(rect, list) and len(rect) == 4 and all(type(x) is int for x in rect)):
            return [f"rectangle {i} is not [row, col, height, width]: {rect!r}"]
        top, left, height, width = rect
        name = f"the rectangle {rect} of clue {n} at {[r, c]}"
        if height < 1 or width < 1 or top < 0 or left < 0 or top + height > board.rows or left + width > board.cols:
            problems.append(f"{name} is empty or leaves the grid")
            continue
        if height * width != n:
            problems.append(f"{name} has area {height * width}")
        if not (top <= r < top + height and left <= c < left + width):
            problems.append(f"{name} does not contain its clue")
        for cell in cells((top, left, height, width)):
            if clue_at.get(cell, i) != i:
                problems.append(f"{name} contains another clue, at {list(cell)}")
            if cell in owner:
                problems.append(f"cell {list(cell)} is in two rectangles")
            owner[cell] = i
    missing = [[r, c] for r in range(board.rows) for c in range(board.cols) if (r, c) not in owner]
    if missing:
        problems.append(f"{len(missing)} cells are in no rectangle, first {missing[0]}")
    return problems


def regions(board: Board, solution: Solution) -> list[list[int]]:
    """The grid as clue indices: which clue's rectangle holds each cell."""
    grid = [[-1] * board.cols for _ in range(board.rows)]
    for i, rect in enumerate(solution):
        for r, c in cells(tuple(rect)):
            grid[r][c] = i
    return grid


def touching(board: Board, grid: list[list[int]]) -> list[set[int]]:
    """Per clue, the clues whose regions share an edge with its own (cells of no region are skipped)."""
    near: list[set[int]] = [set() for _ in board.clues]
    for r in range(board.rows):
        for c in range(board.cols):
            for r2, c2 in ((r + 1, c), (r, c + 1)):
                if r2 < board.rows and c2 < board.cols:
                    a, b = grid[r][c], grid[r2][c2]
                    if a != b and a >= 0 and b >= 0:
                        near[a].add(b)
                        near[b].add(a)
    return near


def letters(board: Board, grid: list[list[int]]) -> list[str] | None:
    """A letter per clue: the board's own labels, else a..zA..Z in clue order, else a greedy
    colouring where touching regions differ; None when 52 letters do not suffice."""
    count = len(board.clues)
    if board.labels:
        return list(board.labels)
    if count <= len(LETTERS):
        return list(LETTERS[:count])
    near = touching(board, grid)
    out: list[str] = []
    for i in range(count):
        taken = {out[j] for j in near[i] if j < i}
        free = [ch for k in range(len(LETTERS)) if (ch := LETTERS[(i + k) % len(LETTERS)]) not in taken]
        if not free:
            return None
        out.append(free[0])
    return out


def render(board: Board, solution: Solution) -> str:
    """The regions as a letter grid, like the seed's output (boxes when letters run out)."""
    grid = regions(board, solution)
    names = letters(board, grid)
    if names is None:
        return boxes(board, grid)
    return "\n".join("".join(names[i] if i >= 0 else "?" for i in row) for row in grid)


def boxes(board: Board, grid: list[list[int]]) -> str:
    """The regions drawn with ``+--+`` borders and the clues in their cells."""
    width = max([2, *(len(str(n)) for _, _, n in board.clues)])
    clue = {(r, c): str(n) for r, c, n in board.clues}
    lines = []
    for r in range(board.rows + 1):
        border = "+"
        for c in range(board.cols):
            inside = 0 < r < board.rows and grid[r - 1][c] == grid[r][c]
            border += (" " if inside else "-") * width + "+"
        lines.append(border)
        if r == board.rows:
            break
        row = "|"
        for c in range(board.cols):
            joined = c + 1 < board.cols and grid[r][c] == grid[r][c + 1]
            row += clue.get((r, c), "").rjust(width) + (" " if joined else "|")
        lines.append(row)
    return "\n".join(lines)


def region_shape(lay: svg.Layout, rect: Rect | list[int], fill: str, **attrs: object) -> svg.Element:
    """A clue's rectangle, filled, with a dark outline."""
    top, left, height, width = rect
    return svg.rect(lay.x(left), lay.y(top), lay.x(width), lay.y(height), fill=fill, stroke=svg.INK,
                    stroke_width=max(1.5, lay.cell / 16), **attrs)


def draw(board: Board, solution: Solution | None, cell: float | None = None) -> svg.Figure:
    """The clues, and each rectangle filled so that touching rectangles get different colours."""
    lay = svg.layout(board.rows, board.cols, cell)
    body = [svg.rect(0, 0, lay.width, lay.height, fill=svg.PAPER, class_="grid"),
            *svg.grid_lines(lay, stroke="#cccccc", stroke_width=1)]
    if solution:
        colours = svg.greedy_colours(touching(board, regions(board, solution)))
        body += [region_shape(lay, rect, svg.PALETTE[colours[i]], class_="region") for i, rect in enumerate(solution)]
    size = lay.font(max([1, *(len(str(n)) for _, _, n in board.clues)]))
    top = [svg.label(lay.centre(r, c), str(n), size, font_weight="bold", fill=svg.INK, class_="clue")
           for r, c, n in board.clues] if size else []
    top.append(svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=svg.INK, stroke_width=2, class_="border"))
    note = None if size else "clue numbers left out at this size"
    return svg.Figure(lay.width, lay.height, body, top, note=note, layout=lay)


def sketch(board: Board, lay: svg.Layout, kind: str, depth: int, what: dict, path: list[dict]) -> svg.Sketch:
    """A decision: the rectangle a clue takes (solid) or gives up (dashed red); a propagation: the
    rectangles it fixed (a dead end: a red frame)."""
    def fill(i: int) -> str:
        return svg.PALETTE[i % len(svg.PALETTE)]

    def cells_of(i: int, rect: list[int]) -> dict[Cell, str]:
        return {cell: LETTERS[i % len(LETTERS)] for cell in cells(tuple(rect))}

    if kind == "place" and "rect" in what:
        i = what["clue"]
        return svg.Sketch([region_shape(lay, what["rect"], fill(i), class_="choice")], cells_of(i, what["rect"]))
    if kind == "place":
        refusal = region_shape(lay, what["not"], "none", class_="refusal")
        refusal.set("stroke", "#d62728")
        refusal.set("stroke-dasharray", "6,4")
        return svg.Sketch([refusal])
    if kind == "prune":
        sketch_ = svg.Sketch()
        for fix in what["fixed"]:
            sketch_.pieces.append(region_shape(lay, fix["rect"], fill(fix["clue"]), class_="fixed"))
            sketch_.labels.update(cells_of(fix["clue"], fix["rect"]))
        if what["dead"]:
            sketch_.pieces.append(svg.rect(0, 0, lay.width, lay.height, fill="none", stroke="#d62728",
                                           stroke_width=4, class_="dead"))
        return sketch_
    return svg.Sketch()


def generate(size: str, *, seed: int | None = None, max_area: int | None = None, unique: bool = False) -> str:
    """A random puzzle of ``RxC`` in the text format (see models/shikaku/generate.py)."""
    from gridsat.models.shikaku.generate import generate as run

    return run(size, seed=seed, max_area=max_area, unique=unique)


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds; a file name is read from the golden folder."""
    cases = golden.cases("shikaku/golden", "instance")
    return [Case(str(golden.path("shikaku", c.text)) if c.text.endswith(".txt") else c.text, c.params, c.count,
                 c.source) for c in cases]


def checkerboard(rows: int, cols: int) -> str:
    """A game id with a 2 on every cell of one colour: its solutions are the grid's domino tilings."""
    return to_game_id(read("\n".join(" ".join("2" if (r + c) % 2 == 0 else "." for c in range(cols))
                                     for r in range(rows))))


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Domino checkerboards up to 4x4, then generated puzzles up to 5x5 (fixed seeds), as game ids."""
    # Importing the generator module rebinds this package's ``generate`` to that module: call it by module.
    from gridsat.models.shikaku.generate import generate as make

    boards = [checkerboard(r, c) for r, c in ((2, 2), (2, 3), (3, 4), (4, 4))]
    for size in ("3x3", "3x4", "4x4", "4x5", "5x5"):
        boards += [to_game_id(read(make(size, seed=seed))) for seed in range(3)]
    return [(b, {}) for b in boards]


def rect_cells(key: Key) -> list[Cell]:
    """A rectangle variable ``(tag, clue, top, left, height, width)`` is about its two corner cells."""
    top, left, height, width = key[-4:]
    return [(top, left), (top + height - 1, left + width - 1)]


PUZZLE = Puzzle(
    name="shikaku",
    summary="divide a grid into rectangles, one per clue, each with the clue's area",
    instance_help="a puzzle file (rows of '.' and numbers), a Tatham game id WxH:desc, '-' (stdin), or 'seed'",
    params={},
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    note=note,
    cpsat_encodings=EncodingSpace((CPSAT_CELLS,)),
    cnf_encodings=EncodingSpace((CNF_CARD, CNF_CELLS)),
    generate=generate,
    reference=reference.ALGORITHMS,
    example="seed",
    symmetries={"symmetry": group},
    draw=draw,
    sketch=sketch,
    corpus=corpus,
    ladder=ladder,
    cells=rect_cells,
)
